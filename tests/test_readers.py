"""Readers and metrics: edit distance, accuracy, crops, the oracle round trip, real OCR."""

from __future__ import annotations

import string
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from snapshot.errors import SnapshotError
from snapshot.legibility import readers as readers_mod
from snapshot.legibility.hardlines import KINDS, hard_lines
from snapshot.legibility.readers import (
    OracleReader,
    PageLayout,
    RapidOcrReader,
    Reader,
    ReaderUnavailable,
    TesseractReader,
    crop_rows,
    get_reader,
    line_geometry,
    measure,
    measure_each,
    render_lines,
    tesseract_available,
)
from snapshot.legibility.resample import NATIVE, Preprocess, Seen, resample_to, restore
from snapshot.readability.scoring import (
    align,
    char_accuracy,
    levenshtein,
    score_lines,
    substitutions,
    token_accuracy,
)


def _naive(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[:], i
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
    return row[-1]


@given(st.text("ab0O ", max_size=14), st.text("ab0O ", max_size=14))
def test_levenshtein_matches_the_textbook_dp(a: str, b: str) -> None:
    assert levenshtein(a, b) == _naive(a, b)
    edits = align(a, b)
    assert "".join(e.ref for e in edits) == a
    assert "".join(e.hyp for e in edits) == b
    assert sum(e.op != "equal" for e in edits) == _naive(a, b)


def test_accuracy_edge_cases() -> None:
    assert char_accuracy("", "") == 1.0
    assert char_accuracy("", "x") == 0.0
    assert char_accuracy("abcd", "abcf") == 0.75
    assert char_accuracy("ab", "xxxxxxxx") == 0.0  # clipped, never negative
    assert token_accuracy("foo bar baz", "foo bor baz") == pytest.approx(2 / 3)
    assert token_accuracy("a b c", "a c") == pytest.approx(2 / 3)  # a dropped token costs one
    assert substitutions([("0O", "O0"), ("same", "same")]) == {("0", "O"): 1, ("O", "0"): 1}


def test_score_lines_is_a_micro_average() -> None:
    s = score_lines(["abcd", "xy"], ["abcd", "xz"])
    assert (s.chars, s.char_errors, s.lines, s.lines_exact) == (6, 1, 2, 1)
    assert s.char_accuracy == pytest.approx(5 / 6)
    missing = score_lines(["abc"], [])
    assert missing.char_accuracy == 0.0


def test_hard_lines_are_seeded_ascii_and_varied() -> None:
    a = hard_lines(25, seed=3)
    assert a == hard_lines(25, seed=3)
    assert a != hard_lines(25, seed=4)
    assert all(set(line) <= set(string.printable) - set("\t\n\r\x0b\x0c") for line in a)
    assert all(0 < len(line) <= 64 for line in a)
    assert len(KINDS) == 5 and any("0x" in s or "sha" in s or "#" in s for s in a)


def _font(name: str = "misc-5x8"):  # type: ignore[no-untyped-def]
    from snapshot.rendering.glyphs import load_font

    return load_font(name)


def test_layout_and_crops_follow_the_scale() -> None:
    lines = ["hello world", "0xDEADBEEF"]
    (page, refs), *_ = render_lines(lines, line_geometry(_font(), lines))
    assert refs == lines
    layout = PageLayout.of(page)
    assert layout.row_boxes == tuple(tuple(b) for b in page.row_boxes())
    full = crop_rows(NATIVE.apply(page.pixels), layout.row_boxes, pad=4)
    half = crop_rows(Preprocess(scale=0.5).apply(page.pixels), layout.row_boxes, pad=4)
    assert full[0].shape[0] == 8 + 2 * 4  # one cell tall plus the added paper
    assert half[0].shape[0] < full[0].shape[0]
    # the blank tail is trimmed: the shorter line gives the narrower crop
    assert full[1].shape[1] < full[0].shape[1] + 5
    assert (full[0][:4] == 255).all()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.text(string.ascii_letters + string.digits + string.punctuation + " ", max_size=30)
        .map(str.strip)
        .filter(bool),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(["misc-5x8", "snap5x8"]),
)
def test_oracle_round_trip_at_native_scale(lines: list[str], font_name: str) -> None:
    m = measure(OracleReader(), lines, line_geometry(_font(font_name), lines), NATIVE)
    assert list(m.readings) == lines
    assert m.char_accuracy == 1.0


def test_oracle_survives_a_mild_downscale_but_not_nearest_at_half() -> None:
    lines = hard_lines(8, seed=1)
    g = line_geometry(_font(), lines)
    mild = measure(OracleReader(), lines, g, Preprocess(scale=0.9, filter="bicubic"))
    harsh = measure(OracleReader(), lines, g, Preprocess(scale=0.5, filter="nearest"))
    assert mild.char_accuracy >= 0.95
    assert harsh.char_accuracy < mild.char_accuracy


def test_readers_follow_the_protocol() -> None:
    assert isinstance(OracleReader(), Reader)
    assert isinstance(RapidOcrReader(), Reader)
    assert isinstance(TesseractReader(), Reader)


def test_get_reader_errors_are_clear() -> None:
    with pytest.raises(SnapshotError, match="unknown reader"):
        get_reader("eyeball")
    with pytest.raises(ReaderUnavailable, match="snapshot probe"):
        get_reader("live")


def test_missing_ocr_extra_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    # import fails, also for submodules an earlier test imported (found by their full name)
    for name in [m for m in sys.modules if m.startswith("rapidocr_onnxruntime.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)
    readers_mod._rapidocr_recognizer.cache_clear()
    try:
        with pytest.raises(ReaderUnavailable, match=r"snapshot\[ocr\]"):
            get_reader("ocr")
        with pytest.raises(ReaderUnavailable, match=r"\[ocr\]"):
            readers_mod._rapidocr_recognizer()
    finally:
        readers_mod._rapidocr_recognizer.cache_clear()


def test_missing_tesseract_binary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readers_mod.shutil, "which", lambda _name: None)
    with pytest.raises(ReaderUnavailable, match="tesseract"):
        get_reader("tesseract")


@pytest.mark.ocr
def test_rapidocr_reads_line_crops() -> None:
    pytest.importorskip("rapidocr_onnxruntime")
    lines = hard_lines(6, seed=2)
    reader = get_reader("ocr")
    m = measure(reader, lines, line_geometry(_font("misc-6x12"), lines), NATIVE)
    assert m.reader == "rapidocr"
    assert len(m.readings) == 6
    assert m.char_accuracy > 0.8
    recognizer = readers_mod._rapidocr_recognizer()
    assert readers_mod._rapidocr_recognizer() is recognizer  # one per process


@pytest.mark.ocr
def test_rapidocr_reads_a_row_sample_only() -> None:
    pytest.importorskip("rapidocr_onnxruntime")
    lines = hard_lines(30, seed=2)
    m = measure(RapidOcrReader(), lines, line_geometry(_font(), lines), NATIVE, sample=5, seed=1)
    assert len(m.refs) == 5 and set(m.refs) <= set(lines)
    again = measure(
        RapidOcrReader(), lines, line_geometry(_font(), lines), NATIVE, sample=5, seed=1
    )
    assert again.refs == m.refs and again.readings == m.readings  # seeded and deterministic


@pytest.mark.ocr
@pytest.mark.skipif(not tesseract_available(), reason="tesseract is not on the PATH")
def test_tesseract_reads_a_line() -> None:
    pytest.importorskip("pytesseract")
    lines = ["def parse(self, value): return 42"]
    m = measure(TesseractReader(), lines, line_geometry(_font("misc-6x12"), lines), NATIVE)
    assert m.char_accuracy > 0.6


def test_white_on_black_crops_pad_with_the_page_paper() -> None:
    lines = ["ink"]
    g = line_geometry(_font(), lines, ink="white-on-black")
    (page, _), *_ = render_lines(lines, g)
    layout = PageLayout.of(page)
    assert layout.paper == 0
    crop = crop_rows(NATIVE.apply(page.pixels), layout.row_boxes, paper=layout.paper)[0]
    assert (crop[:2] == 0).all() and np.any(crop == 255)


def _glyph_by_glyph(seen: Seen, layout: PageLayout, rows: list[int]) -> list[str]:
    """The oracle's matcher as it was written first: one template page per glyph and
    column parity, each resampled on its own (the reference the batched one must equal)."""
    g = layout.geometry
    paper = float(layout.paper)
    w, h = g.cell
    pw, ph = g.pitch
    ox, oy = g.origin
    first = 1 if g.header else 0
    filt = seen.filter or "bicubic"
    chars, bitmaps = readers_mod._oracle_alphabet(g.font)
    nw, nh = seen.native_size
    text_rows = g.rows - first
    y0 = oy + first * ph
    want = np.asarray(rows, dtype=np.int64)

    def cells(native: np.ndarray) -> np.ndarray:
        ink = np.abs(native.astype(np.float32) - paper) / 255.0
        band = ink[y0 : y0 + text_rows * ph, ox : ox + g.cols * pw]
        full = np.zeros((text_rows * ph, g.cols * pw), np.float32)
        full[: band.shape[0], : band.shape[1]] = band
        grid = full.reshape(text_rows, ph, g.cols, pw)[want, :h, :, :w]
        return grid.transpose(0, 2, 1, 3).reshape(len(rows), g.cols, h * w)

    page = cells(restore(seen, "bilinear"))
    best = np.full((len(rows), g.cols), np.inf, np.float32)
    pick = np.zeros((len(rows), g.cols), np.int64)
    for k in range(len(chars)):
        for parity in (0, 1):
            canvas = np.full((nh, nw), paper, np.uint8)
            block = np.zeros((text_rows, ph, g.cols, pw), bool)
            block[:, :h, parity::2, :w] = bitmaps[k][:, None, :].astype(bool)
            flat = block.reshape(text_rows * ph, g.cols * pw)
            region = canvas[y0 : y0 + flat.shape[0], ox : ox + flat.shape[1]]
            region[flat[: region.shape[0], : region.shape[1]]] = 255 - int(paper)
            small = resample_to(canvas, seen.content_size, filt)
            d = ((cells(resample_to(small, (nw, nh), "bilinear")) - page) ** 2).sum(axis=2)
            d[:, 1 - parity :: 2] = np.inf
            better = d < best
            best[better] = d[better]
            pick[better] = k
    return ["".join(chars[int(i)] for i in row).rstrip(" ") for row in pick]


@pytest.mark.parametrize(
    ("font_name", "pp"),
    [
        ("misc-5x8", Preprocess(scale=0.555, filter="lanczos")),
        ("misc-5x8", Preprocess(scale=0.5, filter="nearest")),
        ("misc-6x12", Preprocess(scale=0.75, filter="box")),
        ("misc-6x12", Preprocess(scale=0.62, filter="bilinear", pad_multiple=28)),
        ("misc-5x8", Preprocess(scale=0.9, filter="bicubic", codec="jpeg", quality=60)),
    ],
)
@pytest.mark.parametrize("batch", ["one batch", "7 glyphs a batch"])
def test_the_batched_oracle_reads_as_glyph_by_glyph(
    font_name: str, pp: Preprocess, batch: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [s[:14] for s in hard_lines(3, seed=11)]
    if batch != "one batch":  # ties across batches: the earlier glyph keeps the cell
        monkeypatch.setattr(readers_mod, "_BATCH_BYTES", 7 * 2 * 2 * 14 * 72 * 4)
    page, _refs = render_lines(lines, line_geometry(_font(font_name), lines))[0]
    seen, layout = pp.apply(page.pixels), PageLayout.of(page)
    rows = [0, 2]
    assert OracleReader().read(seen, layout, rows) == _glyph_by_glyph(seen, layout, rows)


@pytest.mark.parametrize("scale", [0.555, 0.9, 1.3])
@pytest.mark.parametrize("filt", ["lanczos", "bilinear", "box"])
def test_the_oracle_cuts_the_same_cells_as_from_whole_pages(scale: float, filt: str) -> None:
    lines = [s[:14] for s in hard_lines(3, seed=5)]
    g = line_geometry(_font(), lines)
    page, _refs = render_lines(lines, g)[0]
    seen = Preprocess(scale=scale, filter=filt).apply(page.pixels)  # type: ignore[arg-type]
    _chars, bitmaps = readers_mod._oracle_alphabet(g.font)
    small = readers_mod._templates_resampled(g, bitmaps[:9], 255, seen, filt)  # type: ignore[arg-type]
    cut = readers_mod._CellCutter(g, [0, 2], 255)
    for parity in (0, 1):
        whole = readers_mod._restored(small[parity::2], seen.native_size, "bilinear", g, parity)
        cells = readers_mod._restored_cells(
            small[parity::2], seen.native_size, "bilinear", cut, parity
        )
        assert cells.dtype == np.float32
        assert np.array_equal(cells, cut(whole, slice(parity, None, 2)))


@pytest.mark.ocr
def test_the_crop_recognizer_keeps_its_memory_arena() -> None:
    pytest.importorskip("rapidocr_onnxruntime")
    session = readers_mod._rapidocr_recognizer().session.session
    assert session.get_session_options().enable_cpu_mem_arena  # rapidocr's default is off


@pytest.mark.ocr
@pytest.mark.skipif(not tesseract_available(), reason="tesseract is not on the PATH")
def test_one_tesseract_process_reads_as_one_per_crop() -> None:
    import pytesseract
    from PIL import Image

    lines = hard_lines(3, seed=4)
    pages = []
    for name in ("misc-5x8", "misc-6x12"):
        page, refs = render_lines(lines, line_geometry(_font(name), lines))[0]
        pages.append((NATIVE.apply(page.pixels), PageLayout.of(page), list(range(len(refs)))))
    got = TesseractReader().read_pages(pages)
    alone = [
        [
            pytesseract.image_to_string(Image.fromarray(c), config="--oem 1 --psm 7").strip()
            for c in crop_rows(seen, [layout.row_boxes[r] for r in rows])
        ]
        for seen, layout, rows in pages
    ]
    assert got == alone and [len(g) for g in got] == [3, 3]
    assert measure_each(TesseractReader(), [(lines, pages[0][1].geometry)]) == [
        measure(TesseractReader(), lines, pages[0][1].geometry)
    ]
