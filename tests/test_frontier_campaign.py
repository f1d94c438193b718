"""The real-page reading campaign: its order, its stopping rules, and frontier.md showing only
readings at the pages providers get."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from snapshot.errors import SnapshotError
from snapshot.legibility.campaign import (
    PPOCR_READERS,
    Step,
    adopt_face_readings,
    campaign_steps,
    run_campaign,
)
from snapshot.legibility.controls import Controls, control_layout, is_control
from snapshot.legibility.frontier import DENSE_LAYOUT, CandidateLayout, Point, PointCache
from snapshot.legibility.hardlines import HELD_OUT_SEED
from snapshot.legibility.page_readers import (
    ReaderUnavailable,
    current_settings_version,
    load_page_reader,
)
from snapshot.legibility.weakest import jittered

GEMINI_PAGE = (1568, 728)
#: PP-OCRv6 as recorded under its current settings (the cache returns only those readings).
PPOCRV6 = {"name": "ppocrv6-small", "model_sha256": "ab", "version": "4.0.0",
           "settings": {"settings_version": current_settings_version("ppocrv6-small")}}  # fmt: skip


def _controls(cache: PointCache, *layouts: CandidateLayout, acc: float = 0.99) -> None:
    """PP-OCRv6's control reading of each layout (hard lines), at ``acc``."""
    for lay in layouts:
        c = control_layout(lay)
        cache.put(Point(c, PPOCRV6, 1.0, None, HELD_OUT_SEED, 1, 100, 100, 1.0, acc, 10, 10))


def test_stage_one_reads_the_dense_layout_and_both_defaults_by_every_reader_first() -> None:
    steps = campaign_steps()
    every_first = [s for s in steps if s.stage == 1]
    assert steps[: len(every_first)] == every_first  # priority order: stage 1 before the rest
    # each layout reading comes right after its reader's control reading (same page, ink, text)
    first = [s for s in every_first if not is_control(s.layout)]
    for s in first:
        i = steps.index(s)
        assert any(
            c.layout == control_layout(s.layout) and (c.reader, c.text) == (s.reader, s.text)
            for c in steps[:i]
        ), s
    assert len(every_first) - len(first) == 3 * 5 * 2  # one control per page, ink, reader, text
    keys = {(s.layout.key, s.reader, s.text) for s in first}
    assert len(first) == 3 * 5 * 2 == len(keys)  # 3 layouts × 5 readers × 2 texts, once each
    assert {s.layout.key for s in first} == {
        DENSE_LAYOUT.with_page(GEMINI_PAGE).key,  # snap5x9v2 gray, the face the ladder draws
        "snap5x8 1-bit gap 0x0 1568x728",  # Gemini's default
        "snap8x16 1-bit gap 0x0 1540x1540",  # Claude's default
    }
    assert DENSE_LAYOUT.font == "snap5x9v2"
    assert {s.reader for s in first} >= {"easyocr-en", "tesseract-x2", *PPOCR_READERS}
    # hard lines of every layout before any corpus reading
    texts = [s.text for s in first]
    assert texts == sorted(texts, key=lambda t: t != "hardlines")


def test_later_stages_resample_then_jitter_ppocr_first_then_other_pages() -> None:
    steps = campaign_steps(readers=("tesseract-x2", "ppocrv6-small"))
    stages = [s.stage for s in steps]
    assert stages == sorted(stages) and set(stages) == {1, 2, 3, 4}
    assert all(s.scale == 0.9 for s in steps if s.stage == 2)
    jitter = [s for s in steps if s.stage == 3]
    assert jitter[0].reader == "ppocrv6-small"  # the detector that rounds to 32 px first
    assert {s.layout.page for s in jitter} == {(1572, 732), (1564, 724), (1544, 1544), (1536, 1536)}
    fourth = [s for s in steps if s.stage == 4]
    real = {(1536, 1568), (1568, 1568), (768, 1568), (1024, 1024)}
    assert {s.layout.page for s in fourth if s.scale == 1.0} == {
        size for page in real for size in jittered(page)
    }  # the other profiles' real pages and ±4 px: GPT-5.4's and Mistral's sides are 32-multiples
    resampled = [s for s in fourth if s.scale == 0.9]
    assert {s.layout.page for s in resampled} == real  # ×0.9 at the real page only
    kinds = [
        ("real" if s.layout.page in real else "±4") if s.scale == 1.0 else "x0.9" for s in fourth
    ]
    assert kinds == sorted(kinds, key=["real", "x0.9", "±4"].index)  # natively first
    assert next(s for s in fourth if s.layout.page not in real).reader == "ppocrv6-small"
    only = campaign_steps(stages=(5,), readers=("ppocrv5",), texts=("corpus",))
    assert only and all(s.layout.page == GEMINI_PAGE and s.text == "corpus" for s in only)


def _reader_or_skip() -> object:
    try:
        return load_page_reader("tesseract-x2")
    except ReaderUnavailable as exc:
        pytest.skip(f"tesseract-x2 not installed here: {exc}")


def _point(reader: object, layout: CandidateLayout, acc: float, *, scale: float = 1.0) -> Point:
    info = reader.info.as_dict()  # type: ignore[attr-defined]
    return Point(
        layout, info, scale, None if scale == 1.0 else "bicubic", HELD_OUT_SEED, 1, 100, 100,
        layout.chars_per_kpx, acc, 10, 10,
    )  # fmt: skip


def test_the_campaign_reads_nothing_cached_skips_a_moot_resample_and_stops_at_the_deadline(
    tmp_path: Path,
) -> None:
    reader = _reader_or_skip()
    cache = PointCache(tmp_path / "p.jsonl")
    weak, strong = (
        CandidateLayout("snap5x8", page=GEMINI_PAGE),
        CandidateLayout("snap8x16", page=(1540, 1540)),
    )
    cache.put(_point(reader, weak, 0.50))
    cache.put(_point(reader, strong, 0.99))
    cache.put(_point(reader, control_layout(strong), 0.99))  # qualified: its ×0.9 would count
    steps = [
        Step(1, weak, "tesseract-x2", "hardlines"),
        Step(2, weak, "tesseract-x2", "hardlines", 0.9),  # below the bar natively: moot
        Step(2, strong, "tesseract-x2", "hardlines", 0.9),  # would read: the deadline stops it
        Step(1, CandidateLayout("snap5x10", page=GEMINI_PAGE), "easyocr-missing", "hardlines"),
    ]
    log: list[str] = []
    past = time.time() - 1
    run = run_campaign(cache, steps[:3], seed=HELD_OUT_SEED, until=past, log=log.append)
    assert [p.char_accuracy for p in run.points] == [0.50]  # the cached reading, nothing new
    assert log == ["deadline reached: no new reading started"]
    assert len((tmp_path / "p.jsonl").read_text().splitlines()) == 3  # nothing appended
    with pytest.raises(SnapshotError, match="easyocr-missing"):
        run_campaign(cache, steps[3:], seed=HELD_OUT_SEED, until=past, log=log.append)


def test_face_readings_of_a_bundled_face_are_adopted_once_and_say_so(tmp_path: Path) -> None:
    cache = PointCache(tmp_path / "p.jsonl")
    record = {
        "variant": "snap5x9v2", "page": [1568, 728], "text": "corpus", "pages": 1,
        "reader": {"name": "ppocrv6-small", "model_sha256": "ab", "version": "4.0.0"},
        "chars": 24766, "char_accuracy": 0.935, "hard_tokens": 184, "hard_tokens_exact": 169,
        "substitutions": {"x>×": 13, "*>k": 32}, "seconds": 1258.7, "loadavg_end": "10.32",
    }  # fmt: skip
    draft = {**record, "variant": "v3_c1"}  # a draft face: not a bundled one, never adopted
    got = adopt_face_readings([record, draft], cache, seed=HELD_OUT_SEED,
                              font_of={"snap5x9v2": "snap5x9v2"})  # fmt: skip
    assert len(got) == 1
    p = got[0]
    assert p.layout.key == "snap5x9v2 gray gap 0x0 1568x728" and p.text == "corpus"
    assert (p.char_accuracy, p.hard_tokens_exact, p.load) == (0.935, 169, 10.32)
    assert p.confusions[0] == ("*", "k", 32) and "face_confusions" in p.note
    again = adopt_face_readings([record], PointCache(tmp_path / "p.jsonl"),
                                seed=HELD_OUT_SEED, font_of={"snap5x9v2": "snap5x9v2"})  # fmt: skip
    assert again == []


def test_frontier_md_shows_only_real_page_readings_and_names_the_weakest(tmp_path: Path) -> None:
    from snapshot.legibility.frontier_report import frontier_report

    cache = PointCache(tmp_path / "p.jsonl")
    info = PPOCRV6
    dense = DENSE_LAYOUT.with_page(GEMINI_PAGE)
    for lay, acc in ((dense.with_page((784, 728)), 0.777), (dense, 0.986)):
        cache.put(
            Point(lay, info, 1.0, None, HELD_OUT_SEED, 1, 100, 100, lay.chars_per_kpx, acc, 10, 9)
        )
    _controls(cache, dense, acc=0.9)  # below the qualifying bar: shown, never deciding
    report = frontier_report(
        ["ppocrv6-small"], cache_path=tmp_path / "p.jsonl", out_dir=tmp_path,
        measure_missing=False,
    )  # fmt: skip
    md = report.table.read_text()
    assert "0.777" not in md and "784x728" not in md  # the sample page is no provider's page
    dense_row = next(ln for ln in md.splitlines() if f"| {dense.key} |" in ln)
    # an unqualified reader: labelled, its reading shown, no weakest figure from it
    assert "ppocrv6-small on hardlines: unqualified (control 0.900 < 0.93)" in dense_row
    assert "0.986 absolute" in md and "| – |" in dense_row
    assert "not measured: tesseract-x2 (both texts)" in md and "easyocr-en" in md
    _controls(cache, dense)  # qualified: the weakest figure is relative, the absolute beside it
    md = frontier_report(
        ["ppocrv6-small"], cache_path=tmp_path / "p.jsonl", out_dir=tmp_path,
        measure_missing=False,
    ).table.read_text()  # fmt: skip
    assert "0.996 of control, 0.986 absolute (ppocrv6-small, hardlines)" in md
    assert "## Density at Gemini's real page (1568×728)" in md


def test_a_reading_another_process_appends_is_seen_before_reading_again(tmp_path: Path) -> None:
    reader = _reader_or_skip()
    lay = CandidateLayout("snap5x8", page=GEMINI_PAGE)
    mine = PointCache(tmp_path / "p.jsonl")
    assert mine.get(lay, reader, HELD_OUT_SEED, 1, 1.0) is None
    PointCache(tmp_path / "p.jsonl").put(_point(reader, lay, 0.42))  # another process's line
    hit = mine.get(lay, reader, HELD_OUT_SEED, 1, 1.0)
    assert hit is not None and hit.char_accuracy == 0.42


def test_frontier_md_says_where_x09_is_moot_and_where_it_is_missing(tmp_path: Path) -> None:
    from snapshot.legibility.frontier_report import frontier_report

    cache = PointCache(tmp_path / "p.jsonl")
    info = PPOCRV6
    dense = DENSE_LAYOUT.with_page(GEMINI_PAGE)
    default = CandidateLayout("snap5x8", page=GEMINI_PAGE)  # Gemini's default
    _controls(cache, dense, default)
    for lay, acc, exact in ((dense, 0.986, 10), (default, 0.500, 2)):
        cache.put(
            Point(
                lay, info, 1.0, None, HELD_OUT_SEED, 1, 100, 100, lay.chars_per_kpx, acc, 10, exact
            )
        )
    report = frontier_report(
        ["ppocrv6-small"], cache_path=tmp_path / "p.jsonl", out_dir=tmp_path,
        measure_missing=False,
    )  # fmt: skip
    md = report.table.read_text()
    dense_row = next(ln for ln in md.splitlines() if f"| {dense.key} |" in ln)
    assert "| not measured (ppocrv6-small on hardlines) |" in dense_row  # passes: ×0.9 owed
    assert "×0.9 not measured: ppocrv6-small on hardlines" in dense_row
    default_row = next(ln for ln in md.splitlines() if f"| {default.key} |" in ln)
    assert (
        "| moot: no qualified reader passes natively |" in default_row
    )  # below: the resample decides nothing
    missing = md[md.index("### Not measured yet") :]
    assert f"{dense.key}: " in missing
    assert "×0.9 (passes natively, not resampled yet): ppocrv6-small on hardlines" in missing


def test_every_committed_reading_at_a_real_page_has_its_control() -> None:
    """reports/frontier-points.jsonl: each native reading under a reader's current settings
    at a profile's real page has that reader's control reading (same settings, text, page
    and ink) beside it, so every figure the reports show is relative to one."""
    from snapshot.legibility.weakest import profile_pages

    points = Path(__file__).resolve().parents[1] / "reports" / "frontier-points.jsonl"
    if not points.is_file():
        pytest.skip("not a source checkout: reports/frontier-points.jsonl is not installed")
    current = PointCache(points).points()
    real = {p.page for p in profile_pages()}
    native = [
        p for p in current
        if p.scale == 1.0 and p.layout.page in real and not is_control(p.layout)
    ]  # fmt: skip
    if not native:
        pytest.skip("no reading under the readers' current settings is committed yet")
    controls = Controls(current)
    # a reader with no control committed at all (EasyOCR, not installed where the controls
    # were read) is labelled "no control read" in the reports and never decides
    with_controls = {p.reader_name for p in current if is_control(p.layout)}
    lacking = [
        f"{p.reader_name} {p.text} {p.layout.key}"
        for p in native
        if p.reader_name in with_controls and controls.of(p) is None
    ]
    assert with_controls and lacking == []
