"""The report's figures: the characters-per-token figure counts the report's own
conversations with the profiles' own counters, and every figure is the same file for
the same numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from snapshot.cli import main
from snapshot.report import plots
from snapshot.report.matrix import MatrixRow
from snapshot.report.tables import aggregate


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


def _session(path: Path) -> Path:
    """A small pi session with text to page (the format of tests/test_report_cache.py)."""
    text = "Fix the parser in src/app/parser.py: ValueError at line 42 with id 7f3a9c21. " * 60
    records: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": path.stem, "cwd": "/w"},
        {"type": "message", "id": "u", "parentId": None,
         "message": {"role": "user", "content": text}},
        {"type": "message", "id": "a", "parentId": "u",
         "message": {"role": "assistant", "content": [{"type": "text", "text": text[::-1]}]}},
        {"type": "message", "id": "u2", "parentId": "a",
         "message": {"role": "user", "content": "and now the tests"}},
    ]  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_a_report_counts_its_own_text_with_its_profiles_counters_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No other family's vocabulary is loaded for the figure: the OpenAI profile's
    counter is the only exact one asked for, and the text bars are the session's."""
    from snapshot.billing import text_tokens

    asked: list[str] = []
    loaded = text_tokens._encoding

    def recording(name: str) -> Any:
        asked.append(name)
        return loaded(name)

    monkeypatch.setattr(text_tokens, "_encoding", recording)
    session = _session(tmp_path / "s" / "a.jsonl")
    out = tmp_path / "r"
    args = ["report", str(session), "--out", str(out), "--workers", "1", "--no-legibility"]
    assert main([*args, "--model", "gpt-5.1", "--model", "gemini-3.8-flash"]) == 0
    assert set(asked) == {"o200k_base"}
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    none = {r["model"]: r for r in results["rows"] if r["strategy"] == "none"}
    chars = results["sources"][0]["chars"]
    # the text tokens are the conversation's tokens less its images' (it has none here)
    assert all(0 < r["text_tokens_before"] == r["tokens_before"] for r in none.values())
    assert {r["text_tokens_before"] for r in results["rows"] if r["model"] == "gpt-5.1"} == {
        none["gpt-5.1"]["text_tokens_before"]
    }
    assert chars / none["gpt-5.1"]["text_tokens_before"] > 1
    report = (out / "REPORT.md").read_text(encoding="utf-8")
    assert "against this report's own conversations as text" in report
    assert (out / "chars_per_token.png").read_bytes().startswith(b"\x89PNG")


def _density(model: str, page: float, text: float | None) -> dict[str, Any]:
    return {
        "model": model,
        "font": "snap8x16",
        "page": [1540, 1540],
        "chars_per_token": page,
        "text_chars_per_token": text,
        "text_counter": "exact",
        "conversations": 1,
    }


def _rows() -> list[MatrixRow]:
    out = []
    for model, before in (("claude-sonnet-5-5", 1000), ("gpt-6.1-sol", 800)):
        for strategy, after in (("none", before), ("snapshot", before // 3), ("elide", 700)):
            out.append(MatrixRow(f"c{before}", "demo", model, strategy, before, after, 0.0, 4))
            out.append(MatrixRow(f"d{before}", "demo", model, strategy, before, after // 2, 0.0, 4))
    return out


def test_each_figure_is_the_same_file_for_the_same_numbers(tmp_path: Path) -> None:
    densities = [_density("claude-sonnet-5-5", 6.03, 2.31), _density("gpt-6.1-sol", 5.2, 3.3)]
    rows = _rows()
    draws = {
        "chars_per_token.png": lambda p: plots.chars_per_token(densities, p),
        "pareto.png": lambda p: plots.pareto(aggregate(rows), p),
        "distribution.png": lambda p: plots.distribution(rows, p),
    }
    for name, draw in draws.items():
        one, two = tmp_path / "1" / name, tmp_path / "2" / name
        one.parent.mkdir(exist_ok=True)
        two.parent.mkdir(exist_ok=True)
        draw(one)
        draw(two)
        assert one.read_bytes() == two.read_bytes(), name
        assert one.read_bytes().startswith(b"\x89PNG")
    # other numbers draw another file
    plots.chars_per_token([_density("claude-sonnet-5-5", 6.03, 2.5)], tmp_path / "3.png")
    assert (tmp_path / "3.png").read_bytes() != (
        tmp_path / "1" / "chars_per_token.png"
    ).read_bytes()


def test_the_density_figure_leaves_out_a_profile_without_a_page_or_text(tmp_path: Path) -> None:
    """A text-only profile has no page, a profile whose conversations all failed no text
    count: each is left out, not drawn as a zero bar; the figure keeps its size rule."""
    from PIL import Image

    drawn = [_density("claude-sonnet-5-5", 6.03, 2.31)]
    both = plots.chars_per_token(drawn, tmp_path / "one.png")
    more = plots.chars_per_token(
        [*drawn, _density("text-only", 0.0, 3.0), _density("failed", 5.0, None)],
        tmp_path / "more.png",
    )
    assert both.read_bytes() == more.read_bytes()
    with Image.open(both) as image:
        assert image.size == (1100, round((0.5 + 1.9) * 110))


def test_the_labs_figures_are_the_same_file_for_the_same_numbers(tmp_path: Path) -> None:
    """The legibility lab's two figures, laid out with fixed margins: byte for byte the
    same PNG from the same measurements, and another from other measurements."""
    from snapshot.legibility.generational import GenerationalLoss
    from snapshot.legibility.readers import ReaderMeasurement
    from snapshot.legibility.report import plot_generational, plot_vs_scale
    from snapshot.readability.scoring import Score

    def sweep(errors: int) -> list[tuple[str, str, float, str, ReaderMeasurement]]:
        rows = []
        for reader in ("round-trip check", "rapidocr"):
            for font in ("snap5x8", "misc-6x12"):
                for scale, filt in (
                    (1.0, "-"),
                    (0.75, "bicubic"),
                    (0.75, "lanczos"),
                    (0.5, "bicubic"),
                ):
                    score = Score(400, errors + int(100 * (1 - scale)), 60, 50, 6, 3)
                    m = ReaderMeasurement(reader, font, filt, score, (), ())
                    rows.append((reader, font, scale, filt, m))
        return rows

    gens = [
        GenerationalLoss("rapidocr", "snap5x8", "x0.9 bicubic", 6, (0.9, 0.85, 0.85),
                         (0.9, 0.9, 0.9), (0.8, 0.7, 0.7), (0.8, 0.8, 0.8)),
    ]  # fmt: skip
    for name, draw in (
        ("scale.png", lambda p: plot_vs_scale(sweep(4), p)),
        ("gens.png", lambda p: plot_generational(gens, p)),
    ):
        one, two = tmp_path / f"1-{name}", tmp_path / f"2-{name}"
        draw(one)
        draw(two)
        assert one.read_bytes() == two.read_bytes(), name
    plot_vs_scale(sweep(40), tmp_path / "other.png")
    assert (tmp_path / "other.png").read_bytes() != (tmp_path / "1-scale.png").read_bytes()
