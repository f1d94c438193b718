"""snapshot report and snapshot compact, end to end through the command line."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from snapshot.cli import main


def _demo(name: str) -> Path:
    with resources.as_file(resources.files("snapshot.demo").joinpath("transcripts", name)) as p:
        return Path(p)


def test_report_on_the_demo_writes_the_report_results_and_plots(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    code = main(
        [
            "report",
            "--out",
            str(out),
            "--workers",
            "1",
            "--limit",
            "2",
            "--no-legibility",
            "--model",
            "gpt-5.1",
            # the same flags as `snapshot cost` (one spelling): the run prices at them
            "--tier",
            "batch",
            "--date",
            "2027-01-02",
        ]
    )
    assert code == 0
    report = (out / "REPORT.md").read_text(encoding="utf-8")
    assert "Priced on **2027-01-02** at the **batch** tier" in report
    assert "bundled demo transcripts" in report and "| gpt-5.1 | snapshot |" in report
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["settings"]["tier"] == "batch"
    assert results["settings"]["priced_on"] == "2027-01-02"
    price = results["profiles"]["gpt-5.1"]["price"]
    assert price["tier"] == "batch" and price["priced_on"] == "2027-01-02"
    assert price["input_per_mtok"] == pytest.approx(1.25 / 2)  # list $1.25, batch -50 %
    strategies = {r["strategy"] for r in results["rows"]}
    assert {"none", "elide", "drop_images", "snapshot", "summary", "ladder"} <= strategies
    snap = [r for r in results["rows"] if r["strategy"] == "snapshot" and r["pages"]]
    assert snap and all(r["round_trip_check"] is not None for r in snap)
    assert "oracle" not in report and "round-trip check" in report
    for name in ("pareto.png", "chars_per_token.png"):
        assert (out / name).read_bytes().startswith(b"\x89PNG")


def test_report_refuses_a_missing_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--corpus", str(tmp_path / "nope.json"), "--out", str(tmp_path)]) == 2
    assert "no such manifest" in capsys.readouterr().err


def test_report_refuses_a_tier_a_model_lacks_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["report", "--out", str(tmp_path), "--model", "claude-sonnet-5-5", "--tier", "flex"]
    )
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--tier flex: claude-sonnet-5-5: anthropic has no 'flex' price tier" in err
    assert not (tmp_path / "results.json").exists()


def test_compact_writes_request_pages_and_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conv = _demo("demo-coding.json")
    code = main(
        [
            "compact",
            str(conv),
            "--model",
            "gemini-3-pro-preview",
            "--budget",
            "1800",  # below what elide alone reaches: pages are drawn
            "--out",
            str(tmp_path),
            "--json",
        ]
    )
    record = json.loads(capsys.readouterr().out)
    assert code == (0 if record["fits"] else 1)
    assert record["api"] == "gemini" and record["rungs_taken"]
    assert record["pages"] and all(
        (tmp_path / p).read_bytes().startswith(b"\x89PNG") for p in record["pages"]
    )
    body = json.loads((tmp_path / "request.json").read_text(encoding="utf-8"))
    assert "contents" in body


def test_compact_for_a_blind_model_sends_no_image(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(
        [
            "compact",
            str(_demo("demo-browse.json")),
            "--model",
            "o3-mini",
            "--budget",
            "100000",
            "--out",
            str(tmp_path),
            "--json",
        ]
    )
    record = json.loads(capsys.readouterr().out)
    assert record["pages"] == []
    body = (tmp_path / "request.json").read_text(encoding="utf-8")
    assert "image_url" not in body and "base64" not in body


def test_compact_unknown_model_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "compact",
            str(_demo("demo-support.json")),
            "--model",
            "nosuch-7",
            "--budget",
            "10",
            "--out",
            str(tmp_path),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "unknown model" in err


def test_compact_budget_below_head_is_refused_with_a_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "compact",
            str(_demo("demo-coding.json")),
            "--model",
            "claude-sonnet-4-5",
            "--budget",
            "5",
            "--out",
            str(tmp_path),
            "--json",
        ]
    )
    record = json.loads(capsys.readouterr().out)
    assert code == 1 and not record["fits"]
    assert "smaller than the verbatim head" in record["failure"]
