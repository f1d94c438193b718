"""The density frontier and whole-page tuning: layouts, measurement, analysis, profile files."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from snapshot.errors import SnapshotError
from snapshot.legibility.frontier import (
    CandidateLayout,
    Point,
    PointCache,
    densest_passing,
    frontier,
    frontier_table,
    measure,
    measure_cached,
    page_text,
)
from snapshot.legibility.frontier_plot import plot_frontier
from snapshot.legibility.hardlines import HELD_OUT_SEED, TUNING_SEED, full_page_rows
from snapshot.legibility.page_readers import ReaderInfo, ReaderUnavailable, load_page_reader
from snapshot.legibility.tune import Billing, page_profile_document, tune_pages
from snapshot.profiles import load_profiles
from snapshot.readability.goal import Goal
from snapshot.rendering.page import render


def _point(font: str, kpx: float, acc: float, *, reader: str = "r", scale: float = 1.0,
           hard: tuple[int, int] = (9, 10), row_gap: int = 0) -> Point:  # fmt: skip
    return Point(
        CandidateLayout(font, row_gap=row_gap), {"name": reader, "model_sha256": "ab", "version": "1"},
        scale, None if scale == 1.0 else "bicubic", HELD_OUT_SEED, 1, 1000, 900, kpx, acc,
        hard[1], hard[0],
    )  # fmt: skip


def test_layout_density_is_the_cell_pitch() -> None:
    assert round(CandidateLayout("snap8x16").chars_per_kpx, 1) == 7.8  # today's default
    assert CandidateLayout("snap5x8", row_gap=2).chars_per_kpx == 20.0
    assert CandidateLayout("dejavu-sans-mono", size=8, shade="gray").cell == (5, 10)
    assert CandidateLayout.from_dict(
        json.loads(json.dumps(CandidateLayout("snap5x8").as_dict()))
    ) == CandidateLayout("snap5x8")


def test_page_text_fills_the_page_edge_to_edge() -> None:
    g = CandidateLayout("snap5x8", page=(400, 200)).geometry()
    rows = page_text(g, seed=HELD_OUT_SEED, page=0).split("\n")
    assert len(rows) == g.text_rows
    assert all(g.cols - 4 <= len(r) <= g.cols for r in rows)
    assert page_text(g, seed=HELD_OUT_SEED, page=1) != page_text(g, seed=HELD_OUT_SEED, page=0)
    assert full_page_rows(50, 3, seed=TUNING_SEED) != full_page_rows(50, 3, seed=HELD_OUT_SEED)


def test_frontier_keeps_undominated_points_per_reader_and_scale() -> None:
    pts = [
        _point("snap5x8", 25.0, 0.60),
        _point("snap5x8", 20.0, 0.97, row_gap=2),
        _point("snap8x16", 7.8, 0.99),
        _point("misc-6x12", 13.9, 0.95),  # beaten by the 20.0 point on both axes
        _point("snap5x8", 25.0, 0.10, reader="other"),
    ]
    kept = {(p.reader_name, p.layout.key) for p in frontier(pts)}
    assert ("r", CandidateLayout("misc-6x12").key) not in kept
    assert ("r", CandidateLayout("snap5x8").key) in kept and (
        "other",
        CandidateLayout("snap5x8").key,
    ) in kept


def test_densest_passing_needs_native_and_resampled_targets() -> None:
    native = _point("snap5x8", 20.0, 0.98, row_gap=2)
    weak_resample = _point("snap5x8", 20.0, 0.80, scale=0.9, row_gap=2)
    safe = _point("snap8x16", 7.8, 0.99)
    safe_resample = _point("snap8x16", 7.8, 0.97, scale=0.9)
    best = densest_passing([native, weak_resample, safe, safe_resample], "r", Goal())
    assert best is not None and best.layout.font == "snap8x16"
    few_hard = _point("snap5x8", 25.0, 0.99, hard=(5, 10))
    assert not Goal().passes(few_hard, None)


def test_table_and_plot_are_deterministic(tmp_path: Path) -> None:
    pts = [_point("snap5x8", 25.0, 0.6), _point("snap8x16", 7.8, 0.99),
           _point("snap8x16", 7.8, 0.98, scale=0.9)]  # fmt: skip
    table = frontier_table(pts, models=("claude-sonnet-4-5",))
    assert "| r | snap8x16 1-bit gap 0x0 1568x728 |" in table and "*" in table
    a = plot_frontier(pts, tmp_path / "a.png")
    b = plot_frontier(pts, tmp_path / "b.png")
    assert hashlib.sha256(a.read_bytes()).digest() == hashlib.sha256(b.read_bytes()).digest()


# ---------------------------------------------------------------------------- tuning


@dataclass
class KnownPagesReader:
    """A test double for the search logic, not a reader: it recognises the pages the
    tuner will draw (rendered here beforehand, native and resampled) and returns their
    text, with every other character wrong on pages of a text in ``bad_texts`` drawn with a
    row gap in ``bad_gaps`` (default 0) and no extra stroke weight."""

    layouts: tuple[CandidateLayout, ...]
    name: str = "known-pages-test-double"
    bad_gaps: tuple[int, ...] = (0,)
    texts: tuple[str, ...] = ("hardlines",)
    bad_texts: tuple[str, ...] = ("hardlines", "corpus-tuning")

    @property
    def info(self) -> ReaderInfo:
        return ReaderInfo(self.name, "test", "none")

    def read_page(self, pixels: np.ndarray) -> str:
        from snapshot.legibility.resample import resample
        from snapshot.legibility.stroke import embolden
        from snapshot.rendering.page import render

        for lay in self.layouts:
            g = lay.geometry()
            for kind in self.texts:
                page = render(page_text(g, seed=TUNING_SEED, page=0, text=kind), g)[0]
                px = embolden(page.pixels, lay.stroke) if lay.stroke else page.pixels
                for drawn in (px, resample(px, 0.9, "bicubic")):
                    if drawn.shape == pixels.shape and np.array_equal(drawn, pixels):
                        text = "\n".join((page.header, *page.rows))
                        bad = lay.row_gap in self.bad_gaps and kind in self.bad_texts
                        if bad and lay.stroke == 0:
                            return "".join("?" if i % 2 else c for i, c in enumerate(text))
                        return text
        return ""


def _billing() -> Billing:
    return Billing(
        model="claude-sonnet-4-5",
        tokens=lambda w, h: math.ceil(w / 28) * math.ceil(h / 28),
        seen=lambda w, h: (w, h),
        default_size=(420, 140),
        page_sizes=((420, 140),),
        source="test billing",
    )


def test_tune_pages_takes_the_densest_layout_that_reads(tmp_path: Path) -> None:
    cache = PointCache(tmp_path / "c.jsonl")
    sizes = ((420, 140), (424, 144), (416, 136))  # the page and ±4 px
    reader = KnownPagesReader(
        tuple(CandidateLayout("snap5x8", row_gap=g, page=p) for g in (0, 1, 2) for p in sizes)
    )
    result = tune_pages(
        "claude-sonnet-4-5",
        reader,
        styles=(("snap5x8", None, "1-bit"),),
        row_gaps=(0, 1, 2),
        billing=_billing(),
        cache=cache,
        strokes=(0,),
    )
    assert result.winner is not None
    assert result.winner.candidate.layout.row_gap == 1  # gap 0 misread; gap 1 denser than 2
    assert [t.passed for t in result.trials] == [False, True]
    assert result.trials[0].resampled is None  # rejected before paying for the resample
    assert [j.layout.page for j in result.winner.jitter] == [(424, 144), (416, 136)]
    assert not result.winner.unstable
    doc = page_profile_document(result)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    prof = load_profiles(path)["claude-sonnet-4-5"]
    assert (prof.font, prof.row_gap, prof.page) == ("snap5x8", 1, (420, 140))
    # the cache answers the second run without reading
    again = PointCache(tmp_path / "c.jsonl")
    assert len(again.points()) == len(cache.points()) == 5


def test_with_several_readers_the_weakest_decides_and_stops_the_readings(tmp_path: Path) -> None:
    sizes = ((420, 140), (424, 144), (416, 136))  # the page and ±4 px
    layouts = tuple(CandidateLayout("snap5x8", row_gap=g, page=p) for g in (0, 1, 2) for p in sizes)
    strong = KnownPagesReader(layouts, name="strong", bad_gaps=())
    weak = KnownPagesReader(layouts, name="weak", bad_gaps=(0, 1))
    cache = PointCache(tmp_path / "c.jsonl")
    result = tune_pages(
        "claude-sonnet-4-5", [strong, weak], styles=(("snap5x8", None, "1-bit"),),
        row_gaps=(0, 1, 2), billing=_billing(), cache=cache, strokes=(0,),
    )  # fmt: skip
    assert result.winner is not None and result.winner.candidate.layout.row_gap == 2
    gap0 = result.trials[0]
    assert [p.reader_name for p in gap0.readings] == ["strong", "weak"]
    assert gap0.native.reader_name == "weak" and not gap0.passed  # the weakest is shown
    assert gap0.resampled is None and gap0.resampled_readings == ()  # not paid for
    win = result.winner
    assert [p.reader_name for p in win.readings] == ["strong", "weak"]
    assert [q.reader_name for q in win.resampled_readings] == ["strong", "weak"]
    assert len(win.jitter) == 4  # ±4 px by each reader
    assert "the weakest of strong, weak" in result.why
    assert f"of generated hard lines (seed {TUNING_SEED})" in result.why  # its text, named
    doc = page_profile_document(result)
    assert [r["name"] for r in doc["tuned"]["readers"]] == ["strong", "weak"]
    first = doc["tuned"]["trials"][0]["readings"]
    assert [(r["reader"], r["text"]) for r in first] == [
        ("strong", "hardlines"),
        ("weak", "hardlines"),
    ]
    assert first[1]["char_accuracy"] < 0.97 and first[1]["resampled_char_accuracy"] is None
    # the weak reader first: it alone decides gaps 0 and 1, the strong one is never asked
    cache2 = PointCache(tmp_path / "d.jsonl")
    again = tune_pages(
        "claude-sonnet-4-5", [weak, strong], styles=(("snap5x8", None, "1-bit"),),
        row_gaps=(0, 1, 2), billing=_billing(), cache=cache2, strokes=(0,),
    )  # fmt: skip
    assert [len(t.readings) for t in again.trials] == [1, 1, 2]
    assert again.winner is not None and again.winner.candidate.layout.row_gap == 2


def test_tune_reads_the_corpus_tuning_half_when_asked_and_never_the_held_out_half(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from snapshot.legibility.corpus_text import is_held_out

    corpus = tmp_path / "corpus"
    (corpus / "demo").mkdir(parents=True)
    entry = "demo/t1.json"  # sha256 starts with "d": the tuning half
    assert not is_held_out(entry)
    demo = Path(__file__).resolve().parents[1] / "snapshot" / "demo" / "transcripts"
    (corpus / entry).write_bytes((demo / "demo-coding.json").read_bytes())
    (corpus / "benchmark.manifest.json").write_text(json.dumps([{"id": entry, "path": entry}]))
    monkeypatch.setenv("SNAPSHOT_CORPUS", str(corpus))
    page = (420, 140)
    texts = ("hardlines", "corpus-tuning")
    reader = KnownPagesReader(
        tuple(CandidateLayout("snap5x8", row_gap=g, page=p) for g in (1, 2)
              for p in ((420, 140), (424, 144), (416, 136))),
        bad_gaps=(1,), texts=texts, bad_texts=("corpus-tuning",),
    )  # fmt: skip
    kw: dict[str, Any] = dict(styles=(("snap5x8", None, "1-bit"),), row_gaps=(1, 2), billing=_billing(),
              strokes=(0,), sizes=(page,))  # fmt: skip
    hard_only = tune_pages("claude-sonnet-4-5", reader, cache=PointCache(None), **kw)
    assert hard_only.winner is not None and hard_only.winner.candidate.layout.row_gap == 1
    both = tune_pages("claude-sonnet-4-5", reader, cache=PointCache(None), texts=texts, **kw)
    assert both.winner is not None and both.winner.candidate.layout.row_gap == 2
    gap1 = both.trials[0]
    assert [p.text for p in gap1.readings] == list(texts)  # hard lines first, then the corpus
    assert gap1.native.text == "corpus-tuning" and not gap1.passed
    assert "the corpus's tuning half" in both.why and both.texts == texts
    with pytest.raises(SnapshotError, match="held-out corpus text"):
        tune_pages("claude-sonnet-4-5", reader, texts=("corpus",), **kw)


def test_tune_pages_refuses_a_layout_whose_verdict_flips_with_4_px(tmp_path: Path) -> None:
    # the reader reads the real page and nothing at ±4 px (as PP-OCRv6 at a 32-px multiple)
    reader = KnownPagesReader((CandidateLayout("snap5x8", row_gap=1, page=(420, 140)),))
    result = tune_pages(
        "claude-sonnet-4-5", reader, styles=(("snap5x8", None, "1-bit"),), row_gaps=(1,),
        billing=_billing(), cache=PointCache(tmp_path / "c.jsonl"), strokes=(0,),
    )  # fmt: skip
    assert result.winner is None
    (trial,) = result.trials
    assert trial.unstable and trial.native.char_accuracy == 1.0
    assert [j.char_accuracy for j in trial.jitter] == [0.0, 0.0]


def test_a_heavier_stroke_that_reads_is_reported_but_never_written(tmp_path: Path) -> None:
    page = (420, 140)
    reader = KnownPagesReader(
        tuple(
            CandidateLayout("snap5x8", row_gap=g, page=page, stroke=k)
            for g in (0, 1)
            for k in (0, 1)
        )
    )
    result = tune_pages(
        "claude-sonnet-4-5", reader, styles=(("snap5x8", None, "1-bit"),), row_gaps=(0, 1),
        billing=_billing(), cache=PointCache(tmp_path / "c.jsonl"), sizes=(page,),
        measure_page=page,
    )  # fmt: skip
    keys = [t.candidate.layout.key for t in result.trials]
    assert keys == [
        "snap5x8 1-bit gap 0x0 420x140",
        "snap5x8 1-bit gap 0x0 420x140 stroke+1",  # same density, heavier: tried next
        "snap5x8 1-bit gap 0x1 420x140",
    ]
    assert [t.lab_only for t in result.trials] == [False, True, False]
    assert result.winner is result.trials[2]  # the drawable layout wins
    assert "heavier stroke" in result.why and "gap 0x0 420x140 stroke+1" in result.why
    doc = page_profile_document(result)
    assert "stroke" not in doc["profile"][0]
    assert [t["lab_only"] for t in doc["tuned"]["trials"]] == [False, True, False]


def test_stroke_weight_widens_strokes_and_keys_only_when_set() -> None:
    from snapshot.legibility.stroke import embolden

    plain, heavy = (
        CandidateLayout("snap5x9", shade="gray"),
        CandidateLayout("snap5x9", shade="gray", stroke=1),
    )
    assert plain.key == "snap5x9 gray gap 0x0 1568x728"  # points measured before stay keyed
    assert heavy.key == plain.key + " stroke+1" and heavy.chars_per_kpx == plain.chars_per_kpx
    assert CandidateLayout.from_dict(plain.as_dict() | {"stroke": 1}) == heavy
    g = plain.geometry()
    px = render("il|!1 " * 40, g)[0].pixels
    assert (embolden(px, 1) < 128).sum() > (px < 128).sum()
    with pytest.raises(SnapshotError, match="stroke weight"):
        embolden(px, -1)


def test_tune_pages_refuses_the_held_out_seed() -> None:
    with pytest.raises(SnapshotError, match="held-out"):
        tune_pages(
            "claude-sonnet-4-5", KnownPagesReader(()), seed=HELD_OUT_SEED, billing=_billing()
        )


def test_gray_profile_fields_load(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"model": "claude-sonnet-4-5", "font": "dejavu-sans-mono",
                                "font_size": 8, "shade": "gray", "page": [1568, 728]}))  # fmt: skip
    g = load_profiles(path)["claude-sonnet-4-5"].geometry()
    assert (g.font.cell, g.shade) == ((5, 10), "gray")
    path.write_text(json.dumps({"model": "claude-sonnet-4-5", "shade": "grey"}))
    with pytest.raises(SnapshotError, match="shade"):
        load_profiles(path)


# ---------------------------------------------------------------------------- real readers


def _reader(name: str):  # type: ignore[no-untyped-def]
    try:
        return load_page_reader(name)
    except ReaderUnavailable as exc:
        pytest.skip(f"{name} is not installed here: {exc}")


@pytest.mark.ocr
def test_a_real_reader_reads_a_full_page_and_the_point_names_it(tmp_path: Path) -> None:
    reader = _reader("ppocrv6-small")
    lay = CandidateLayout("snap8x16", page=(400, 120))
    cache = PointCache(tmp_path / "c.jsonl")
    p = measure_cached(lay, reader, cache, seed=HELD_OUT_SEED, pages=1)
    assert p.reader["name"] == "ppocrv6-small" and len(p.reader["model_sha256"]) == 64
    assert p.char_accuracy > 0.8 and p.hard_tokens > 0
    assert PointCache(tmp_path / "c.jsonl").points() == [p]


@pytest.mark.ocr
def test_gray_dejavu_page_reads_whole() -> None:
    reader = _reader("ppocrv6-small")
    p = measure(CandidateLayout("dejavu-sans-mono", size=8, shade="gray", page=(400, 120)), reader,
                seed=HELD_OUT_SEED)  # fmt: skip
    assert p.char_accuracy > 0.8


def test_frontier_command_writes_table_and_plot_from_the_cache(tmp_path: Path) -> None:
    from snapshot.cli import main

    cache = PointCache(tmp_path / "points.jsonl")
    for p in (_point("snap5x8", 25.0, 0.0), _point("snap8x16", 7.8, 0.99)):
        cache.put(p)
    code = main(["frontier", "--cached-only", "--cache", str(tmp_path / "points.jsonl"),
                 "--out-dir", str(tmp_path), "--reader", "ppocrv6-small"])  # fmt: skip
    assert code == 0
    # the points were written by reader "r", so nothing of ppocrv6-small is cached: no row,
    # never a made-up one, and every default layout listed as not measured
    table = (tmp_path / "frontier.md").read_text()
    rows = [line for line in table.splitlines() if line.startswith("| ") and "snap" in line]
    assert rows == [] and (tmp_path / "frontier.png").is_file()
    assert "gpt-6.1-sol, snap8x16 1-bit gap 0x0 1536x1568: ppocrv6-small on hardlines" in table


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "gpt-5.1", "gemini-3-pro-preview"])
def test_foveation_draws_the_far_past_in_the_dense_layout(model: str) -> None:
    from snapshot.ladder.sheets import SheetOptions, _render
    from snapshot.ladder.target import target_for
    from snapshot.legibility.frontier import DENSE_LAYOUT

    target = target_for(model)
    assert target.geometry is not None
    source = "x = 1\n" * 4000
    plain, _ = _render(source, target, SheetOptions())
    fove, _ = _render(source, target, SheetOptions(foveate_chars=3000))
    fonts = [(p.geometry.font.name, p.geometry.shade) for p in fove]
    assert fonts[0] == (DENSE_LAYOUT.font, DENSE_LAYOUT.shade)  # the far past: dense
    assert fonts[-1] == (target.geometry.font.name, target.geometry.shade)  # near the tail
    assert [p.png() for p in fove] != [p.png() for p in plain]  # differs in every profile


def test_the_held_out_page_text_is_pinned() -> None:
    """The committed frontier was measured on exactly these lines: a generator change
    that alters them would silently detach the claims from their evidence."""
    text = "\n".join(full_page_rows(156, 72, seed=HELD_OUT_SEED))
    assert hashlib.sha256(text.encode()).hexdigest() == (
        "c444e572b37022b4c7d2a8844d7cc376745d840975eb5346110ead47258885a9"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tune", "--model", "claude-sonnet-4-5", "--font", "snap5x9@x"], "pixel size"),
        (["tune", "--model", "claude-sonnet-4-5", "--font", "snap5x9:grey"], "shade"),
        (["tune", "--model", "claude-sonnet-4-5", "--measure-page", "12"], "WxH"),
        (["frontier", "--pages", "0"], "--pages"),
        (
            ["tune", "--model", "claude-sonnet-4-5", "--reader", "oracle", "--reader", "ppocrv5"],
            "only page readers",
        ),
    ],
)
def test_bad_tune_and_frontier_arguments_give_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from snapshot.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_a_goal_outside_zero_to_one_is_refused_where_it_is_made() -> None:
    from snapshot.errors import InputError

    with pytest.raises(InputError, match=r"targets must be in \(0, 1\], got 0.0"):
        Goal(hard_tokens=0.0)
    assert Goal(char_accuracy=1.0).char_accuracy == 1.0


def test_a_layouts_density_from_its_cell_alone_equals_its_geometrys() -> None:
    """``CandidateLayout.chars_per_kpx`` reads the face's metrics instead of drawing the font: the
    same number as the drawn font's geometry for every layout the committed points hold."""
    from snapshot.legibility.frontier import PointCache
    from snapshot.legibility.weakest import committed_points
    from snapshot.rendering.glyphs import font_cell, load_font

    layouts = {p.layout for p in PointCache(committed_points()).points()}
    assert len({(lay.font, lay.size) for lay in layouts}) >= 3
    for lay in sorted(layouts, key=lambda x: x.key):
        assert (
            font_cell(lay.font, pixel_size=lay.size)
            == load_font(lay.font, pixel_size=lay.size).cell
        )
        assert lay.chars_per_kpx == lay.geometry().chars_per_kpx, lay.key


def test_points_are_only_the_readings_under_each_readers_current_settings(tmp_path: Path) -> None:
    """A file holding one layout read under Tesseract's old settings (unversioned, ×2) and its
    current ones gives back the current reading only; the old one stays in the file, keyed
    apart, and ``every_setting=True`` still returns it. A reader the package does not version
    (a test reader, EasyOCR) is returned as read."""
    from dataclasses import replace

    from snapshot.legibility.page_readers import current_settings_version

    version = current_settings_version("tesseract-x2")
    assert version is not None
    old = _point("snap5x8", 20.0, 0.80, reader="tesseract-x2")
    new = replace(old, reader={**old.reader, "settings": {"settings_version": version}},
                  char_accuracy=0.86)  # fmt: skip
    older = replace(old, reader={**old.reader, "settings": {"settings_version": version - 1}})
    other = _point("snap5x8", 20.0, 0.5, reader="r")
    cache = PointCache(tmp_path / "c.jsonl")
    for p in (old, new, older, other):
        cache.put(p)
    for c in (cache, PointCache(tmp_path / "c.jsonl")):  # as put, and as read back
        assert sorted(p.char_accuracy for p in c.points()) == [0.5, 0.86]
        assert len(c.points(every_setting=True)) == 4
