"""compact as a session operation, show, and the context window, through the command line
(issue 22 items 3, 6, 7, 8, 9) on a real corpus conversation and the demo."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from ladder_helpers import CORPUS as _CORPUS
from ladder_helpers import REPRO, needs_repro

from snapshot.cli import main
from snapshot.transcript.store import Store

MODEL = "claude-sonnet-4-6"


def _demo(name: str) -> Path:
    with resources.as_file(resources.files("snapshot.demo").joinpath("transcripts", name)) as p:
        return Path(p)


def _compact(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["compact", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.corpus
@needs_repro
def test_compact_save_then_compact_again_keeps_pages_and_the_way_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    args = ["--model", MODEL, "--workspace", str(ws)]
    code, first = _compact(
        capsys, str(REPRO), *args, "--budget", "40000", "--out", str(tmp_path / "a"), "--save"
    )
    assert code == 0 and first["fits"] and first["saved"] is not None
    saved = first["saved"]
    conv_id = saved["conversation"]
    stored = Store(ws).load(conv_id, saved["agent"])
    assert stored.tip == saved["tip"]
    # The path before compaction is one branch away: its tip is still stored.
    assert saved["tip_before"] in stored.index
    # A second compact runs on the stored result; the first pass's pages survive.
    code, second = _compact(
        capsys, conv_id, *args, "--budget", "30000", "--out", str(tmp_path / "b"), "--save"
    )
    # The stored result is what it compacts (its new message ids may count a few tokens).
    assert abs(second["tokens_before"] - first["tokens_after"]) <= first["tokens_after"] // 100
    request = (tmp_path / "b" / "request.json").read_text(encoding="utf-8")
    assert (
        "[image dropped" not in request
        or "snapshot page" not in request.split("[image dropped")[1][:200]
    )
    # The request still carries the first pass's pages (every page it carries is written).
    first_pages = {p.read_bytes() for p in (tmp_path / "a").glob("page-*.png")}
    second_pages = {p.read_bytes() for p in (tmp_path / "b").glob("page-*.png")}
    assert first_pages and second_pages and len(second["pages"]) == len(second_pages)
    assert first_pages <= second_pages or "snapshot" in second["rungs_taken"]
    # An elided placeholder (drawn on the pages, or left as text) leads back through show.
    after = Store(ws).load(conv_id, saved["agent"])
    held = request + "".join(str(m.meta.get("source_text", "")) for m in after.path())
    ref = held.split("; ref ")[1].split(":")[0]
    assert main(["show", conv_id, ref, "--workspace", str(ws)]) == 0
    shown = capsys.readouterr().out
    message, block = ref.split("#")
    from snapshot.transcript.formats import import_path
    from snapshot.transcript.model import ToolResult

    [source] = import_path(REPRO)
    result = source.get(message).blocks[int(block)]
    assert isinstance(result, ToolResult)
    assert shown.rstrip("\n") == result.text().rstrip("\n")


def test_compact_out_clears_a_previous_runs_pages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conv = str(_demo("demo-coding.json"))
    _, record = _compact(capsys, conv, "--model", MODEL, "--budget", "3000", "--out", str(tmp_path))
    assert record["pages"]
    code, record = _compact(
        capsys, conv, "--model", MODEL, "--budget", "10000000", "--out", str(tmp_path)
    )
    assert record["pages"] == [] and code == 0
    assert sorted(p.name for p in tmp_path.glob("page-*.png")) == []


def test_compact_says_not_met_and_exits_1_with_or_without_a_provider_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conv = str(_demo("demo-coding.json"))
    for extra in ([], ["--provider-limit", "200000"]):
        code = main(
            ["compact", conv, "--model", MODEL, "--budget", "50", "--out", str(tmp_path), *extra]
        )
        out = capsys.readouterr().out
        assert code == 1 and "NOT met" in out and "none needed" not in out
        request = (tmp_path / "request.json").read_text(encoding="utf-8")
        assert "modelled only" not in request


def test_compact_to_a_share_of_the_context_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conv = str(_demo("demo-coding.json"))
    _, record = _compact(
        capsys, conv, "--model", MODEL, "--window-share", "0.001", "--out", str(tmp_path)
    )
    assert record["budget"] == 1000
    assert record["budget_from"]["window_tokens"] == 1_000_000
    assert "genai-prices" in record["budget_from"]["window_source"]
    # A model no source states a window for is a clear error, exit 2.
    assert (
        main(
            ["compact", conv, "--model", "grok-4", "--window-share", "0.5", "--out", str(tmp_path)]
        )
        == 2
    )
    assert "context window of grok-4" in capsys.readouterr().err


def test_compact_takes_a_profile_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from snapshot.rendering.decode import read_page_file

    profile = tmp_path / "tuned.toml"
    profile.write_text(f'model = "{MODEL}"\nfont = "snap5x8"\n', encoding="utf-8")
    out = tmp_path / "out"
    _, record = _compact(
        capsys,
        str(_demo("demo-coding.json")),
        "--model",
        MODEL,
        "--profile",
        str(profile),
        "--budget",
        "3000",
        "--out",
        str(out),
    )
    assert record["pages"]
    assert read_page_file(out / record["pages"][0], font="snap5x8")


def test_context_shows_the_share_of_the_window(capsys: pytest.CaptureFixture[str]) -> None:
    conv = str(_demo("demo-coding.json"))
    assert main(["context", conv, "--model", MODEL]) == 0
    out = capsys.readouterr().out
    assert "context window: 1,000,000 tokens" in out and "in use:" in out
    assert main(["context", conv, "--model", MODEL, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["context_window"]["tokens"] == 1_000_000
    assert doc["window_share"] == pytest.approx(doc["total_tokens"] / 1_000_000)


def test_show_refuses_a_bad_reference(capsys: pytest.CaptureFixture[str]) -> None:
    conv = str(_demo("demo-coding.json"))
    assert main(["show", conv, "not-a-ref"]) == 2
    assert "MESSAGE#BLOCK" in capsys.readouterr().err
    assert main(["show", conv, "no-such-message#0"]) == 2
    assert "no-such-message" in capsys.readouterr().err


@pytest.mark.corpus
@pytest.mark.skipif(not (_CORPUS / "tau_bench").is_dir(), reason="tau_bench corpus not found")
def test_integer_select_values_work_through_the_api() -> None:
    from snapshot.transcript.formats import import_path

    convs = import_path(
        _CORPUS / "tau_bench/gpt-4o-airline.json", select={"task_id": 3, "trial": 0}
    )
    assert len(convs) == 1


def test_report_takes_a_profile_file_and_states_the_elided_share(tmp_path: Path) -> None:
    profile = tmp_path / "tuned.toml"
    profile.write_text(f'model = "{MODEL}"\nfont = "snap5x8"\n', encoding="utf-8")
    out = tmp_path / "r"
    code = main(
        [
            "report",
            "--out",
            str(out),
            "--workers",
            "1",
            "--limit",
            "1",
            "--no-legibility",
            "--model",
            MODEL,
            "--profile",
            str(profile),
        ]
    )
    assert code == 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["settings"]["profiles_file"] == str(profile)
    (elide_row,) = [r for r in results["rows"] if r["strategy"] == "elide"]
    assert elide_row["elided_share"] == pytest.approx(
        elide_row["tool_result_chars_elided"] / elide_row["tool_result_chars"]
    )
    report = (out / "REPORT.md").read_text(encoding="utf-8")
    assert f"Elide alone (`{MODEL}`):" in report and "of the tool-result characters" in report
