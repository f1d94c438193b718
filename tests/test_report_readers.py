"""Whole-page readers in the benchmark: notes and missing cells, never zeros; real readers too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from snapshot.legibility import page_readers as pr
from snapshot.legibility.page_readers import ReaderInfo, ReaderUnavailable
from snapshot.report import markdown
from snapshot.report.matrix import MatrixRow, Settings, evaluate
from snapshot.report.needle_recall import reader_recall
from snapshot.report.sources import demo_sources

MODEL = "gemini-3-pro-preview"


class BrokenOnPages:
    """A test double: loads, then fails on every page (an engine crashing mid-run)."""

    info = ReaderInfo("broken", "0", "0" * 64, {})

    def read_page(self, pixels: np.ndarray) -> str:
        raise RuntimeError("engine crashed")


def _absent() -> pr.PageReader:
    raise ReaderUnavailable("the absent reader's model file is missing (test)")


@pytest.fixture
def stand_ins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(pr._FACTORIES, "absent", _absent)
    monkeypatch.setitem(pr._FACTORIES, "broken", BrokenOnPages)
    pr.load_page_reader.cache_clear()
    yield
    pr.load_page_reader.cache_clear()


def _coding_rows(settings: Settings) -> list[MatrixRow]:
    from snapshot.ladder.target import target_for

    source = next(s for s in demo_sources() if "coding" in s.id)
    return evaluate(source, [target_for(MODEL)], settings)


def test_a_missing_or_failing_reader_gives_a_note_and_a_missing_cell(
    stand_ins: None, tmp_path: Path
) -> None:
    from snapshot.report.run import run

    settings = Settings(page_readers=("absent", "broken"))
    rows = _coding_rows(settings)
    snap = next(r for r in rows if r.strategy == "snapshot")
    assert snap.pages and sum(snap.page_needles.values()) >= 5
    assert snap.reader_found == {}  # no cell, not a zero
    assert "model file is missing" in snap.reader_notes["absent"]
    assert "failed on a page" in snap.reader_notes["broken"]
    assert snap.recall is None  # pages nobody read: not measured
    # text-only strategies keep their exact text recall
    assert next(r for r in rows if r.strategy == "none").recall == 1.0

    cells = {(x.strategy, x.reader): x for x in reader_recall(rows)}
    assert cells[("snapshot", "absent")].needles == 0
    assert cells[("snapshot", "absent")].unmeasured == 1

    result = run(None, models=(MODEL,), settings=settings, workers=1, limit=2)
    assert result.page_readers["absent"]["unavailable"].endswith("(test)")
    text = markdown.write(result, tmp_path, figures={}).read_text()
    table = text[text.index("## Strategies") :]
    snap_line = next(ln for ln in table.splitlines() if f"| {MODEL} | snapshot |" in ln)
    # The two whole-page reader cells (after the text recall) are missing, not zeros.
    cells = [c.strip() for c in snap_line.split("|")]
    text_col = next(i for i, c in enumerate(cells) if c.endswith("%ᵐ"))
    assert cells[text_col + 1 : text_col + 3] == ["–", "–"]
    assert "not measured" in text and "failed on a page" in text
    assert "oracle" not in text


def test_unknown_reader_name_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    from snapshot.cli import main

    assert main(["report", "--page-readers", "ppocrv9", "--out", "/tmp/never"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ppocrv6-small" in err


@pytest.mark.ocr
def test_a_real_reader_reads_the_sampled_page() -> None:
    try:
        pr.load_page_reader("ppocrv6-small")
    except ReaderUnavailable as exc:
        pytest.skip(f"ppocrv6-small is not usable here: {exc}")
    rows = _coding_rows(Settings(page_readers=("ppocrv6-small",)))
    for strategy in ("snapshot", "snapshot+factsheet"):
        row = next(r for r in rows if r.strategy == strategy)
        asked = sum(row.page_needles.values())
        got = sum(row.reader_found["ppocrv6-small"].values())
        assert asked >= 5 and 0 < got <= asked
        assert row.reader_pages == 1
        # snap8x16, the comfortable default: PP-OCRv6 reads most needles
        assert got / asked >= 0.6
    # same pages, same reads: the page-only counts agree; the factsheet only adds text
    snap, fact = (
        next(r for r in rows if r.strategy == s) for s in ("snapshot", "snapshot+factsheet")
    )
    assert snap.reader_found == fact.reader_found
    page_only = sum(fact.reader_found["ppocrv6-small"].values())
    assert sum(fact.reader_found_or_text["ppocrv6-small"].values()) >= page_only


def test_the_readers_read_only_the_seeded_sample_of_conversations(
    stand_ins: None, tmp_path: Path
) -> None:
    from snapshot.report.run import run

    settings = Settings(page_readers=("absent",), reader_conversations=1)
    result = run(None, models=(MODEL,), settings=settings, workers=1)
    (chosen,) = result.settings.reader_sources
    asked = {r.source for r in result.rows if r.reader_notes}
    assert asked == {chosen}  # every other conversation: no reader cell, no note
    again = run(None, models=(MODEL,), settings=settings, workers=1)
    assert again.settings.reader_sources == (chosen,)  # the same draw every run
    text = markdown.write(result, tmp_path, figures={}).read_text()
    assert "a seeded sample of 1 conversations" in text


def test_reader_sample_prefers_long_conversations_and_takes_all_for_zero() -> None:
    from snapshot.report.readability import READER_MIN_CHARS, reader_sample

    convs = [(f"c{i}", READER_MIN_CHARS * (i % 2)) for i in range(20)]  # odd ones long
    chosen = reader_sample(convs, 5, seed=7)
    assert len(chosen) == 5 and all(int(c[1:]) % 2 for c in chosen)
    assert reader_sample(convs, 5, seed=8) != chosen  # the seed draws
    assert reader_sample(convs, 0, seed=7) == tuple(sorted(c for c, _ in convs))
    assert len(reader_sample(convs, 15, seed=7)) == 15  # short ones fill in when needed
