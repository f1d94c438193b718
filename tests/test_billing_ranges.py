"""Disputed facts as ranges: both ends shown, the verdict flip named, a usage probe settling it.

The usage probe never reaches a provider: the OpenAI SDK is pointed at
``fake_provider`` on 127.0.0.1, an offline stand-in that bills the page by a
rule the test chooses, and a guard fails any other connection.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
from fake_provider import FakeProvider, Recorded, loopback_only

import snapshot.cli as cli
from snapshot.billing import providers
from snapshot.billing.uncertain import load_settled, range_for
from snapshot.errors import InputError
from snapshot.legibility.usage_probe import PROMPT, probe_usage_and_save, settle
from snapshot.profiles import count_text_tokens, profile_for
from snapshot.profiles.quote import quote_request
from snapshot.report.matrix import MatrixRow
from snapshot.report.ranges import range_rows, range_section

REPO = Path(__file__).resolve().parents[1]
KEY = "sk-proj-FAKEfakeFAKE0123456789abcdefXYZ"


def _prose(tmp_path: Path) -> Path:
    """The package's own architecture notes of 2026-12-06 (real prose, ~3.7 chars per o200k
    token), kept verbatim in the journal: the verdict flips between the range's ends at this
    length, so the text must not change when docs/ARCHITECTURE.md does."""
    journal = (REPO / "docs" / "journal" / "ARCHITECTURE-history.md").read_text(encoding="utf-8")
    text = journal[journal.index("# Architecture and internal contracts") :][:36926]
    path = tmp_path / "arch.txt"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("snapshot.cli.cost", "snapshot.cli.probe"))

    def _run(*argv: str) -> tuple[int, str, str]:
        code = cli.main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return _run


# --- the range in the tables -------------------------------------------------


def test_every_gpt6_row_bills_at_the_point_and_each_end_has_its_source() -> None:
    rng = range_for("gpt-6.1-sol")
    assert rng is not None and rng.point == "1.5"
    assert {e.value: e.fact.label for e in rng.ends} == {"1.2": "measured", "1.5": "uncertain"}
    assert "HF-itc" in rng.ends[0].fact.source and "APIYI" in rng.ends[0].fact.source
    for model in rng.models:
        assert providers.MODELS[model].scheme.multiplier == "1.5"  # type: ignore[attr-defined]
        ends = profile_for(model, warn=False).range_ends()
        assert [(v, p.image_tokens(1024, 1024)) for v, _, p in ends] == [
            ("1.2", 1229),
            ("1.5", 1536),
        ]
    assert profile_for("gpt-5.6-sol", warn=False).range_ends() == []


def test_cost_text_shows_both_ends_and_the_flip(tmp_path: Path) -> None:
    rec = quote_request(
        "gpt-6.1-sol", text=str(_prose(tmp_path)), today="2026-12-02", evidence=None
    ).record
    rng = rec["range"]
    assert rng["uncertain"] is True
    ends = {e["value"]: e for e in rng["ends"]}
    for e in ends.values():
        assert e["image_tokens"] == e["pages"] * e["tokens_per_page"]
        assert e["imaging_pays"] == (e["image_tokens"] < rec["text_tokens"])
    # The point is what the record's own figures are billed at.
    assert rec["image_tokens"] == ends["1.5"]["image_tokens"]
    assert ends["1.2"]["tokens_per_page"] < ends["1.5"]["tokens_per_page"]
    assert ends["1.2"]["imaging_pays"] and not ends["1.5"]["imaging_pays"]
    assert rng["verdict_flips"] is True


def test_cost_cli_prints_the_range_and_names_the_probe(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(
        "cost", "--model", "gpt-6.1-sol", "--text", str(_prose(tmp_path)), "--probes", "none/"
    )
    assert code == 0
    assert "UNCERTAIN GPT-6 family patch multiplier" in out
    assert "FLIPS" in out and "--battery usage" in out
    code, out, _ = run("cost", "--model", "gpt-6-sol", "--size", "1024x1024", "--json")
    data = json.loads(out)
    assert [(e["value"], e["tokens"]) for e in data["range"]["ends"]] == [
        ("1.2", 1229),
        ("1.5", 1536),
    ]
    code, out, _ = run("cost", "--model", "claude-opus-5", "--size", "1024x1024", "--json")
    assert json.loads(out)["range"] is None


def test_profiles_show_the_page_at_each_end(run) -> None:  # type: ignore[no-untyped-def]
    _, out, _ = run("profiles", "--model", "gpt-6.1-sol", "--json")
    rec = json.loads(out)["uncertain"]
    assert rec["point"] == "1.5" and rec["uncertain"] is True
    by = {e["value"]: e for e in rec["ends"]}
    assert by["1.2"]["tokens_per_page"] < by["1.5"]["tokens_per_page"]
    assert by["1.2"]["chars_per_token"] > by["1.5"]["chars_per_token"]
    _, out, _ = run("profiles", "--model", "gpt-6.1-sol")
    assert "UNCERTAIN" in out
    _, out, _ = run("profiles", "--model", "gpt-5.5", "--json")
    assert json.loads(out)["uncertain"] is None


def test_report_rows_at_both_ends() -> None:
    rows = [
        MatrixRow("c1", "demo", "gpt-6.1-sol", "drop_images", 30000, 12000, 0.0, 0),
        MatrixRow("c1", "demo", "gpt-6.1-sol", "snapshot", 30000, 13000, 0.0, 0, pages=3),
        MatrixRow("c2", "demo", "gpt-6.1-sol", "drop_images", 30000, 20000, 0.0, 0),
        MatrixRow("c2", "demo", "gpt-6.1-sol", "snapshot", 30000, 9000, 0.0, 0, pages=2),
        MatrixRow("c1", "demo", "claude-opus-5", "drop_images", 30000, 12000, 0.0, 0),
        MatrixRow("c1", "demo", "claude-opus-5", "snapshot", 30000, 13000, 0.0, 0, pages=3),
    ]
    (only,) = range_rows(rows, ["gpt-6.1-sol", "claude-opus-5"])
    per_page = only.tokens_per_page
    assert only.tokens_after["1.5"] == 22000
    assert only.tokens_after["1.2"] == 22000 - 5 * (per_page["1.5"] - per_page["1.2"])
    assert only.pays == {"1.2": 2, "1.5": 1} and only.flips == 1
    text = "\n".join(range_section(rows, ["gpt-6.1-sol", "claude-opus-5"]))
    assert "gpt-6.1-sol" in text and "claude-opus-5" not in text and "| **1** |" in text


# --- settling the range with one usage request (offline stand-in) -------------


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    loopback_only(monkeypatch)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def _bill_at(multiplier: str) -> Any:
    """A stand-in provider's bill: the page's 32-px patches x multiplier, plus the prompt."""
    from fractions import Fraction

    from PIL import Image

    prompt = count_text_tokens("gpt-6.1-sol", PROMPT).tokens

    def bill(rec: Recorded) -> int:
        assert rec.png is not None
        w, h = Image.open(io.BytesIO(rec.png)).size
        patches = math.ceil(w / 32) * math.ceil(h / 32)
        return math.ceil(patches * Fraction(multiplier)) + prompt + 7  # 7: chat framing

    return bill


@pytest.fixture
def need_openai() -> None:
    pytest.importorskip("openai", reason="the [live] extra (openai SDK) is not installed")


@pytest.mark.parametrize(
    ("billed", "value", "settles"),
    [("1.2", "1.2", True), ("1.5", "1.5", True), ("1.35", "1.35", False)],
)
def test_usage_probe_settles_the_range(
    need_openai: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    billed: str,
    value: str,
    settles: bool,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeProvider(
        {"openai": KEY}, "OK", max_requests=2, lifetime=30.0, input_tokens=_bill_at(billed)
    ) as fake:
        saved = probe_usage_and_save(
            "gpt-6.1-sol", tmp_path, base_url=fake.base_url("openai"), timeout=10
        )
        assert fake.problems == [] and len(fake.requests) == 1
    rec = saved.record
    assert (rec.value, rec.settles, rec.offline_stand_in) == (value, settles, True)
    assert rec.page == profile_for("gpt-6.1-sol", warn=False).solution().size
    assert KEY not in saved.path.read_text(encoding="utf-8")
    settled = load_settled(tmp_path)["gpt-6.1-sol"]
    assert settled.value == value and settled.stand_in and "offline stand-in" in settled.fact.source


def test_a_settled_range_is_used_from_then_on(
    need_openai: None,
    run,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeProvider(
        {"openai": KEY}, "OK", max_requests=2, lifetime=30.0, input_tokens=_bill_at("1.2")
    ) as fake:
        code, out, _ = run(
            "probe",
            "--model",
            "gpt-6.1-sol",
            "--battery",
            "usage",
            "--base-url",
            fake.base_url("openai"),
            "--out",
            str(tmp_path),
            "--timeout",
            "10",
        )
    assert code == 0 and "settles multiplier = 1.2" in out and "OFFLINE STAND-IN" in out
    code, out, _ = run(
        "cost", "--model", "gpt-6.1-sol", "--size", "1024x1024", "--probes", str(tmp_path)
    )
    assert "1229 tokens" in out and "OFFLINE STAND-IN" in out and "UNCERTAIN" not in out
    code, out, _ = run("profiles", "--model", "gpt-6.1-sol", "--json", "--probes", str(tmp_path))
    data = json.loads(out)
    assert data["scheme_label"] == "measured" and data["uncertain"]["settled"]["value"] == "1.2"
    assert data["uncertain"]["settled"]["offline_stand_in"] is True


def test_usage_probe_refuses_a_model_with_no_range() -> None:
    with pytest.raises(InputError, match="no disputed billing fact"):
        probe_usage_and_save("claude-opus-5", "unused-dir")


def test_settle_tolerance() -> None:
    assert settle(2830, {"1.2": 2823, "1.5": 3528}) == "1.2"  # chat framing inside 16 tokens
    assert settle(3528 + 60, {"1.2": 2823, "1.5": 3528}) == "1.5"  # within 2 %
    assert settle(3200, {"1.2": 2823, "1.5": 3528}) is None


def test_a_broken_usage_record_is_named(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text('{"kind": "snapshot-usage-probe"}', encoding="utf-8")
    (tmp_path / "other.json").write_text('{"kind": "needles"}', encoding="utf-8")
    with pytest.raises(InputError, match=r"x\.json: not a usage-probe record"):
        load_settled(tmp_path)
    assert load_settled(tmp_path / "missing") == {}


def test_evidence_that_is_a_file_is_one_clear_line(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    file = tmp_path / "records.json"
    file.write_text("{}", encoding="utf-8")
    code, _, err = run("cost", "--model", "gpt-6-sol", "--size", "10x10", "--probes", str(file))
    assert (
        code == 2 and "not a folder of probe records" in err and len(err.strip().splitlines()) == 1
    )
