"""Readers given the renderer's layout: the round-trip check and OCR on row crops.

These readers are told where the rows are (a :class:`PageLayout`), which no
model is: they are diagnostics. Readability is measured by the whole-page
readers in :mod:`snapshot.legibility.page_readers`, which get the page alone.

- ``OracleReader``: the **round-trip check** — the project's own font-aware
  decoder, run after the simulated preprocessing with the page brought back to
  its native size. It knows the font, the grid and the filter, so it shows
  whether the information survived at all; it is never readability or recall.
- ``RapidOcrReader``: PP-OCRv4 recognition (models ship inside the
  ``rapidocr_onnxruntime`` wheel) on row crops cut at the renderer's row
  boxes: *given the renderer's rows*, no text detection.
- ``TesseractReader``: Tesseract LSTM, one row crop per call (``--psm 7``),
  given the renderer's rows, when the ``tesseract`` binary is on the PATH.

The OCR engines are optional (the ``[ocr]`` extra) and imported on first use.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import random
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from snapshot.errors import ImageError, SnapshotError
from snapshot.legibility.page_engine import ReaderUnavailable
from snapshot.legibility.resample import (
    NATIVE,
    Filter,
    Preprocess,
    Seen,
    _cols_pass,
    _lines_resampled,
    _pass_order,
    _rows_pass,
    resample_many,
    restore,
)
from snapshot.readability.scoring import Score, score_lines

if TYPE_CHECKING:
    from snapshot.rendering.geometry import Geometry
    from snapshot.rendering.page import Page

Box = tuple[int, int, int, int]
READER_NAMES = ("oracle", "ocr", "rapidocr", "tesseract", "live")

# How each reader is named in every table, plot and report: the oracle is a
# round-trip check, and crop readers are told the renderer's rows.
DISPLAY_NAMES = {
    "oracle": "round-trip check",
    "rapidocr": "rapidocr crops given the renderer's rows",
    "ocr": "rapidocr crops given the renderer's rows",
    "tesseract": "tesseract crops given the renderer's rows",
}


def display_name(reader: str) -> str:
    """The name a report shows for ``reader``.

    >>> display_name("oracle")
    'round-trip check'
    """
    return DISPLAY_NAMES.get(reader, reader)


@dataclass(frozen=True)
class PageLayout:
    """What a reader may know about a page besides its pixels: never its text."""

    size: tuple[int, int]  # native (width, height)
    row_boxes: tuple[Box, ...]  # native pixel box of each text row
    geometry: Geometry

    @property
    def paper(self) -> int:
        """Background value of the page's pixels (pixels are true colours)."""
        return 0 if self.geometry.ink == "white-on-black" else 255

    @classmethod
    def of(cls, page: Page) -> PageLayout:
        h, w = page.pixels.shape
        boxes = tuple((int(a), int(b), int(c), int(d)) for a, b, c, d in page.row_boxes())
        return cls((w, h), boxes, page.geometry)


@runtime_checkable
class Reader(Protocol):
    """Reads the given text rows of a (possibly degraded) page."""

    @property
    def name(self) -> str: ...

    def read(self, seen: Seen, layout: PageLayout, rows: Sequence[int]) -> list[str]:
        """One string per requested row index, in the order asked."""
        ...


# ---------------------------------------------------------------------------- oracle


@dataclass(frozen=True)
class OracleReader:
    """The font-aware decoder; after a resample, a matcher that knows the filter too.

    At native size the project's decoder (:func:`snapshot.rendering.decode.read`) is exact.
    A resampled page no longer matches the crisp templates, so the oracle
    brings it back to the native grid and compares each cell with what each
    glyph of the font looks like at that very cell after the same resample:
    for every glyph it draws a page of the same size with the glyph in every
    other column (neighbours left as paper), puts it through the same
    down-and-back resample, and cuts the cells out. Same page size, same
    filter, same sub-pixel phase, so even ``nearest`` is matched exactly.
    Knowing font, grid and filter, it bounds what any reader could recover.
    Its alphabet is printable ASCII (what the hard lines use).
    """

    restore_filter: Filter = "bilinear"

    @property
    def name(self) -> str:
        return "oracle"

    def read(self, seen: Seen, layout: PageLayout, rows: Sequence[int]) -> list[str]:
        if seen.scale == (1.0, 1.0):
            from snapshot.rendering.decode_exact import round_trip

            try:  # the page's own geometry: cells looked up, searched only if that fails
                text = round_trip(seen.pixels, layout.geometry)
                lines = text.split("\n")
                return [lines[r] if r < len(lines) else "" for r in rows]
            except ImageError:
                pass  # e.g. a heavily re-encoded page: fall through to the matcher
        return self._match(seen, layout, rows)

    def _match(self, seen: Seen, layout: PageLayout, rows: Sequence[int]) -> list[str]:
        g = layout.geometry
        paper = layout.paper
        filt: Filter = seen.filter or "bicubic"
        chars, bitmaps = _oracle_alphabet(g.font)
        nw, nh = seen.native_size
        cut = _CellCutter(g, rows, paper)
        page = cut(restore(seen, self.restore_filter)[None])[0]
        cols = g.cols
        best = np.full((len(rows), cols), np.inf, np.float32)
        pick = np.zeros((len(rows), cols), np.int64)
        # Templates go through the resample in batches (resample_many: the same
        # bytes as one at a time), bounded in cell values per batch.
        per_glyph = 2 * len(rows) * cols * cut.size * 4
        step = max(1, _BATCH_BYTES // max(per_glyph, 1))
        for first in range(0, len(chars), step):
            ks = range(first, min(first + step, len(chars)))
            small = _templates_resampled(g, bitmaps[first : ks.stop], paper, seen, filt)
            d = np.empty((len(ks), len(rows), cols), np.float32)
            for parity in (0, 1):  # a template drew only in the columns of its parity
                tpl = _restored_cells(small[parity::2], (nw, nh), self.restore_filter, cut, parity)
                d[:, :, parity::2] = ((tpl - page[:, parity::2]) ** 2).sum(axis=3)
            low, arg = d.min(axis=0), d.argmin(axis=0)  # argmin: the first glyph on a tie
            better = low < best  # an earlier batch keeps a tie, as glyph by glyph did
            best[better] = low[better]
            pick[better] = first + arg[better]
        return ["".join(chars[int(i)] for i in row).rstrip(" ") for row in pick]


class _CellCutter:
    """Cuts the requested rows' cells out of native-size pages: (T, rows, cols, h*w) ink."""

    def __init__(self, g: Geometry, rows: Sequence[int], paper: int) -> None:
        self.g, self.paper = g, paper
        self.first = 1 if g.header else 0
        self.want = np.asarray(rows, dtype=np.int64)
        self.size = g.cell[0] * g.cell[1]

    def __call__(self, pages: np.ndarray, cols: slice = slice(None)) -> np.ndarray:
        """``cols`` picks grid columns (e.g. every other one)."""
        g = self.g
        w, h = g.cell
        pw, ph = g.pitch
        ox, oy = g.origin
        text_rows = g.rows - self.first
        y0 = oy + self.first * ph
        band = pages[:, y0 : y0 + text_rows * ph, ox : ox + g.cols * pw]
        if band.shape[1:] != (text_rows * ph, g.cols * pw):  # the grid runs off the page
            full = np.full((len(pages), text_rows * ph, g.cols * pw), self.paper, np.uint8)
            full[:, : band.shape[1], : band.shape[2]] = band
            band = full
        grid = band.reshape(len(pages), text_rows, ph, g.cols, pw)[:, self.want, :h, cols, :w]
        picked = grid.transpose(0, 1, 3, 2, 4).reshape(len(pages), len(self.want), -1, h * w)
        # cut first, then to ink: the same float32 values as the whole page's, fewer of them
        return np.abs(picked.astype(np.float32) - float(self.paper)) / 255.0


def _templates_resampled(
    g: Geometry, bitmaps: np.ndarray, paper: int, seen: Seen, filt: Filter
) -> np.ndarray:
    """:func:`_template_pages` put through ``seen``'s resample (the same bytes).

    A template page has few distinct pixel rows (paper, and each cell row of the
    glyph repeated down every text row); where Pillow resamples rows first, each
    distinct row goes through the first pass once.
    """
    (nw, nh), (cw, ch) = seen.native_size, seen.content_size
    both = cw != nw and ch != nh and filt != "nearest"
    if both and _pass_order((nw, nh), (cw, ch), filt) != "rows":
        return resample_many(_template_pages(g, bitmaps, paper, (nw, nh)), (cw, ch), filt)
    w, h = g.cell
    pw, ph = g.pitch
    ox, oy = g.origin
    first = 1 if g.header else 0
    y0 = oy + first * ph
    n = len(bitmaps)
    line = np.zeros((n, 2, h, g.cols, pw), bool)
    for parity in (0, 1):
        line[:, parity, :, parity::2, :w] = bitmaps.astype(bool)[:, :, None, :]
    flat = line.reshape(2 * n, h, g.cols * pw)
    bank = np.full((2 * n, h + 1, nw), paper, np.uint8)  # the glyph's cell rows, then paper
    region = bank[:, :h, ox : ox + flat.shape[2]]
    region[flat[:, :, : region.shape[2]]] = 255 - paper
    y = np.arange(nh)
    cell_row = (y - y0) % ph
    text = (y >= y0) & (y < y0 + (g.rows - first) * ph) & (cell_row < h)
    which = np.where(text, cell_row, h)  # each page row: which bank row it is
    return _cols_pass(_rows_pass(bank, cw, filt)[:, which], ch, filt)


def _restored(
    small: np.ndarray, size: tuple[int, int], filt: Filter, g: Geometry, parity: int
) -> np.ndarray:
    """Resampled pages brought back to ``size``, exact in the cells of the grid columns
    of ``parity`` (where Pillow resamples rows first, only those pixel columns go
    through the column pass, which treats each on its own; the rest are left 0)."""
    (w, h), (tw, th) = small.shape[2:0:-1], size
    if w == tw or h == th or _pass_order((w, h), size, filt) != "rows":
        return resample_many(small, size, filt)
    across = _rows_pass(small, tw, filt)
    pw = g.pitch[0]
    starts = g.origin[0] + pw * np.arange(parity, g.cols, 2)
    xs = (starts[:, None] + np.arange(g.cell[0])).ravel()
    xs = xs[xs < tw]
    out = np.zeros((len(small), th, tw), np.uint8)
    out[:, :, xs] = _cols_pass(np.ascontiguousarray(across[:, :, xs]), th, filt)
    return out


def _restored_cells(
    small: np.ndarray, size: tuple[int, int], filt: Filter, cut: _CellCutter, parity: int
) -> np.ndarray:
    """``cut`` of :func:`_restored`'s pages in the grid columns of ``parity``: the same
    float32 cells. Where Pillow resamples rows first and the grid lies inside the page,
    the column pass's output is cut as it comes, without laying out whole pages."""
    g = cut.g
    (sw, sh), (tw, th) = small.shape[2:0:-1], size
    cw, ch = g.cell
    pw, ph = g.pitch
    ox, oy = g.origin
    y0 = oy + cut.first * ph
    inside = ox + g.cols * pw <= tw and y0 + (g.rows - cut.first) * ph <= th
    if not (inside and sw != tw and sh != th and _pass_order((sw, sh), size, filt) == "rows"):
        return cut(_restored(small, size, filt, g, parity), slice(parity, None, 2))
    starts = ox + pw * np.arange(parity, g.cols, 2)
    xs = (starts[:, None] + np.arange(cw)).ravel()  # the pixel columns of those cells
    ys = (y0 + cut.want[:, None] * ph + np.arange(ch)).ravel()  # the requested rows' pixels
    across = _rows_pass(small, tw, filt)
    # each cell pixel column as a line, as _cols_pass would lay it out
    lines = np.ascontiguousarray(across[:, :, xs].transpose(0, 2, 1)).reshape(-1, sh)
    back = _lines_resampled(lines, th, filt).reshape(len(small), len(starts), cw, th)
    picked = back[:, :, :, ys].reshape(len(small), len(starts), cw, len(cut.want), ch)
    picked = picked.transpose(0, 3, 1, 4, 2).reshape(len(small), len(cut.want), len(starts), -1)
    return np.abs(picked.astype(np.float32) - float(cut.paper)) / 255.0


def _template_pages(
    g: Geometry, bitmaps: np.ndarray, paper: int, size: tuple[int, int]
) -> np.ndarray:
    """For each glyph, two native pages: the glyph in every even column of every text
    row, then in every odd one (neighbours left as paper), stacked glyph by glyph."""
    w, h = g.cell
    pw, ph = g.pitch
    ox, oy = g.origin
    first = 1 if g.header else 0
    text_rows = g.rows - first
    y0 = oy + first * ph
    nw, nh = size
    n = len(bitmaps)
    block = np.zeros((n, 2, text_rows, ph, g.cols, pw), bool)
    ink = bitmaps.astype(bool)[:, :, None, :]  # (glyph, cell row, 1, cell column)
    for parity in (0, 1):
        block[:, parity, :, :h, parity::2, :w] = ink[:, None]
    flat = block.reshape(2 * n, text_rows * ph, g.cols * pw)
    canvas = np.full((2 * n, nh, nw), paper, np.uint8)
    region = canvas[:, y0 : y0 + flat.shape[1], ox : ox + flat.shape[2]]
    region[flat[:, : region.shape[1], : region.shape[2]]] = 255 - paper
    return canvas


#: Bytes of template cell values the oracle holds at once (~8 MB).
_BATCH_BYTES = 8_000_000


@functools.lru_cache(maxsize=8)
def _oracle_alphabet(font: Any) -> tuple[str, np.ndarray]:
    from snapshot.legibility.confusability import glyph_set

    gs = glyph_set(font)
    space = np.zeros((1, *gs.bitmaps.shape[1:]), dtype=np.uint8)
    return " " + gs.chars, np.concatenate([space, gs.bitmaps])


# ---------------------------------------------------------------------------- OCR crops


def crop_rows(
    seen: Seen, boxes: Sequence[Box], *, pad: int = 4, paper: int = 255
) -> list[np.ndarray]:
    """Cut each row box out of the seen pixels (boxes are in native coordinates).

    Neighbouring rows touch on a dense page, so the crop is exact and the
    breathing room an OCR model expects is added as fresh paper around it. The
    blank tail of a short row is trimmed (judged from the pixels alone), as a
    text detector's box would be.
    """
    sx, sy = seen.scale
    h, w = seen.pixels.shape
    crops = []
    for x0, y0, x1, y1 in boxes:
        a0 = max(0, math.floor(x0 * sx))
        b0 = max(0, math.floor(y0 * sy))
        a1 = min(w, max(a0 + 1, math.ceil(x1 * sx)))
        b1 = min(h, max(b0 + 1, math.ceil(y1 * sy)))
        crop = seen.pixels[b0:b1, a0:a1]
        inked = np.flatnonzero((np.abs(crop.astype(np.int16) - paper) > 64).any(axis=0))
        end = int(inked[-1]) + 1 if len(inked) else 1
        crop = crop[:, : max(end, 1)]
        p = max(1, round(pad * min(sx, sy)))
        out = np.full((crop.shape[0] + 2 * p, crop.shape[1] + 2 * p), paper, dtype=np.uint8)
        out[p : p + crop.shape[0], p : p + crop.shape[1]] = crop
        crops.append(out)
    return crops


def _missing_extra(engine: str, exc: Exception) -> ReaderUnavailable:
    return ReaderUnavailable(
        f"the {engine} reader needs the optional OCR engines ({exc}); "
        "install them with: pip install 'snapshot[ocr]'"
    )


@functools.lru_cache(maxsize=1)
def _rapidocr_recognizer() -> Any:
    """One PP-OCRv4 recogniser per process: rapidocr's own, with its own model and
    pre- and post-processing, but not its detector or classifier (the crops need neither).

    Its session gets :func:`~snapshot.legibility.page_engine.ocr_threads` threads
    (default 1) instead of one per core: a thread spinning per core doubled the
    lab's OCR CPU on a busy 2-core machine, for the same text and scores. It keeps
    ONNX Runtime's memory arena, which rapidocr turns off: without it each call's
    tensors came from fresh pages of memory, and the first call alone faulted in
    about 1 GB (0.6 s of system CPU); the same text either way (docs/journal/bench-2026-11-to-12.md).
    """
    try:
        from rapidocr_onnxruntime.ch_ppocr_rec.text_recognize import TextRecognizer
        from rapidocr_onnxruntime.ch_ppocr_rec.utils import CTCLabelDecode
        from rapidocr_onnxruntime.main import DEFAULT_CFG_PATH
        from rapidocr_onnxruntime.utils import OrtInferSession, read_yaml, update_model_path
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise _missing_extra("rapidocr", exc) from exc
    from snapshot.legibility.page_engine import ocr_threads

    class ArenaSession(OrtInferSession):
        @staticmethod
        def _init_sess_opts(config: dict[str, Any]) -> Any:
            opts = OrtInferSession._init_sess_opts(config)
            opts.enable_cpu_mem_arena = True
            return opts

    class Recognizer(TextRecognizer):
        def __init__(self, config: dict[str, Any]) -> None:
            # TextRecognizer.__init__ (rapidocr_onnxruntime 1.4.4, pinned) with the session above
            self.session = ArenaSession(config)
            keys = self.session.get_character_list() if self.session.have_key() else None
            path = config.get("rec_keys_path")
            self.postprocess_op = CTCLabelDecode(character=keys, character_path=path)
            self.rec_batch_num = config["rec_batch_num"]
            self.rec_image_shape = config["rec_img_shape"]

    config = update_model_path(read_yaml(DEFAULT_CFG_PATH))["Rec"]
    threads = min(ocr_threads(), os.cpu_count() or 1)  # rapidocr ignores more than the cores
    return Recognizer({**config, "intra_op_num_threads": threads, "inter_op_num_threads": 1})


@dataclass(frozen=True)
class RapidOcrReader:
    """PP-OCRv4 recognition (rapidocr_onnxruntime) on row crops given the renderer's rows."""

    pad: int = 4

    @property
    def name(self) -> str:
        return "rapidocr"

    def read(self, seen: Seen, layout: PageLayout, rows: Sequence[int]) -> list[str]:
        if not rows:
            return []
        recognize = _rapidocr_recognizer()
        crops = crop_rows(
            seen, [layout.row_boxes[r] for r in rows], pad=self.pad, paper=layout.paper
        )
        bgr = [np.repeat(c[:, :, None], 3, axis=2) for c in crops]
        # The recognizer alone: RapidOCR.__call__ would first upscale any image
        # under 30 px, a resize we did not ask for.
        results, _ = recognize(bgr)
        return [str(text).strip() for text, _score in results]


@dataclass(frozen=True)
class TesseractReader:
    """Tesseract 5 LSTM (``--oem 1 --psm 7``) on row crops given the renderer's rows,
    each crop read on its own (one process reads a list of them: see :meth:`read_pages`)."""

    pad: int = 4

    @property
    def name(self) -> str:
        return "tesseract"

    def read(self, seen: Seen, layout: PageLayout, rows: Sequence[int]) -> list[str]:
        return self.read_pages([(seen, layout, rows)])[0]

    def read_pages(
        self, pages: Sequence[tuple[Seen, PageLayout, Sequence[int]]]
    ) -> list[list[str]]:
        """:meth:`read` of each (seen, layout, rows), every crop in one tesseract process.

        Starting tesseract (loading its model) costs about 0.3 s of CPU, reading a line
        far less; given a list of images it reads each as a page of its own (``--psm 7``:
        one line), the same text as one process per crop.
        """
        if shutil.which("tesseract") is None:
            raise ReaderUnavailable(
                "the tesseract reader needs the tesseract binary on the PATH "
                "(Debian: apt-get install tesseract-ocr tesseract-ocr-eng)"
            )
        try:
            import pytesseract  # noqa: F401
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise _missing_extra("tesseract", exc) from exc
        per_page = [
            crop_rows(seen, [layout.row_boxes[r] for r in rows], pad=self.pad, paper=layout.paper)
            for seen, layout, rows in pages
        ]
        with _one_omp_thread():
            texts = _tesseract_lines([c for crops in per_page for c in crops])
        out, at = [], 0
        for crops in per_page:
            out.append(texts[at : at + len(crops)])
            at += len(crops)
        return out


_TESSERACT_LINE = ("--oem", "1", "--psm", "7")


def _tesseract_lines(crops: Sequence[np.ndarray]) -> list[str]:
    """Each crop's text: one tesseract process for the list (one per crop if that fails)."""
    import subprocess
    import tempfile

    import pytesseract
    from PIL import Image

    if len(crops) > 1:
        with tempfile.TemporaryDirectory(prefix="snapshot-tess-") as tmp:
            names = []
            for i, crop in enumerate(crops):
                names.append(os.path.join(tmp, f"{i}.png"))
                Image.fromarray(crop).save(names[-1])
            listing = os.path.join(tmp, "crops.txt")
            with open(listing, "w", encoding="utf-8") as fh:
                fh.write("\n".join(names) + "\n")
            cmd = [pytesseract.pytesseract.tesseract_cmd, listing, "stdout", *_TESSERACT_LINE]
            done = subprocess.run(cmd, capture_output=True, check=False)
        # pages are separated by a form feed: one text per crop, or read them one by one
        texts = done.stdout.decode("utf-8", errors="replace").split("\f")
        if done.returncode == 0 and len(texts) == len(crops):
            return [t.strip() for t in texts]
    config = " ".join(_TESSERACT_LINE)
    return [pytesseract.image_to_string(Image.fromarray(c), config=config).strip() for c in crops]


@contextlib.contextmanager
def _one_omp_thread() -> Iterator[None]:
    """Tesseract started meanwhile runs one OpenMP thread (unless the caller chose).

    Its OpenMP threads spin: on a busy 2-core machine one thread read the lab's
    lines for 0.7× the CPU, the same text. pytesseract passes ``os.environ``.
    """
    if "OMP_THREAD_LIMIT" in os.environ:
        yield
        return
    os.environ["OMP_THREAD_LIMIT"] = "1"
    try:
        yield
    finally:
        os.environ.pop("OMP_THREAD_LIMIT", None)


def tesseract_available() -> bool:
    """The binary and its Python wrapper both: either alone fails only when the lab reads."""
    import importlib.util

    return (
        shutil.which("tesseract") is not None
        and importlib.util.find_spec("pytesseract") is not None
    )


def rapidocr_available() -> bool:
    try:
        import rapidocr_onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def get_reader(name: str) -> Reader:
    """A reader by name: ``oracle``, ``ocr``/``rapidocr``, ``tesseract``."""
    if name == "oracle":
        return OracleReader()
    if name in ("ocr", "rapidocr"):
        if not rapidocr_available():
            raise _missing_extra("rapidocr", ImportError("rapidocr_onnxruntime is not installed"))
        return RapidOcrReader()
    if name == "tesseract":
        if not tesseract_available():
            raise ReaderUnavailable(
                "the tesseract reader needs the tesseract binary on the PATH "
                "(Debian: apt-get install tesseract-ocr tesseract-ocr-eng)"
            )
        return TesseractReader()
    if name == "live":
        raise ReaderUnavailable(
            "live models are read by `snapshot probe --model M` (the live battery), "
            "not by this offline measurement; use --reader oracle or ocr here"
        )
    raise SnapshotError(f"unknown reader {name!r}; use one of: oracle, ocr, tesseract")


# ---------------------------------------------------------------------------- measuring


@dataclass(frozen=True)
class ReaderMeasurement:
    """One reader on one font and geometry under one preprocessing."""

    reader: str
    font: str
    preprocess: str
    score: Score
    refs: tuple[str, ...]
    readings: tuple[str, ...]

    @property
    def char_accuracy(self) -> float:
        return self.score.char_accuracy

    @property
    def token_accuracy(self) -> float:
        return self.score.token_accuracy


def line_geometry(font: Any, lines: Sequence[str], **kw: Any) -> Geometry:
    """A page in lines mode wide enough that no test line wraps."""
    from snapshot.rendering.geometry import Geometry

    cols = max((len(s) for s in lines), default=1)
    rows = kw.pop("rows", min(len(lines), 40) + 1)  # +1: the header row
    return Geometry(font, cols=max(cols, 8), rows=rows, flow=False, **kw)


def render_lines(lines: Sequence[str], geometry: Geometry) -> list[tuple[Page, list[str]]]:
    """Render one test line per row; each page comes with the lines it holds."""
    from snapshot.rendering.page import render

    pages = render("\n".join(lines), geometry)
    out: list[tuple[Page, list[str]]] = []
    for page in pages:
        refs = [r.rstrip("\n") for r in page.rows]
        out.append((page, refs))
    return out


def measure(
    reader: Reader,
    lines: Sequence[str],
    geometry: Geometry,
    preprocess: Preprocess = NATIVE,
    *,
    sample: int | None = None,
    seed: int = 0,
) -> ReaderMeasurement:
    """Render ``lines``, apply ``preprocess``, read (a seeded sample of) the rows, score.

    ``sample`` caps how many rows are read in total, so the OCR cost stays
    bounded however long the text is; the same seed picks the same rows.
    """
    todo = _to_read(lines, geometry, preprocess, sample, seed)
    got = [reader.read(seen, layout, rows) for seen, layout, rows, _refs in todo]
    return _scored(reader, geometry, preprocess, todo, got)


def measure_each(
    reader: Reader, jobs: Sequence[tuple[Sequence[str], Geometry]], preprocess: Preprocess = NATIVE
) -> list[ReaderMeasurement]:
    """:func:`measure` of each (lines, geometry); a reader that reads a list of pages at
    once (``read_pages``, e.g. tesseract: one process) gets them all in one call."""
    todos = [_to_read(lines, geometry, preprocess, None, 0) for lines, geometry in jobs]
    read_pages = getattr(reader, "read_pages", None)
    pages = [(seen, layout, rows) for todo in todos for seen, layout, rows, _refs in todo]
    got = read_pages(pages) if read_pages else [reader.read(*page) for page in pages]
    out, at = [], 0
    for (_lines, geometry), todo in zip(jobs, todos, strict=True):
        out.append(_scored(reader, geometry, preprocess, todo, got[at : at + len(todo)]))
        at += len(todo)
    return out


_ToRead = list[tuple[Seen, PageLayout, list[int], list[str]]]


def _to_read(
    lines: Sequence[str], geometry: Geometry, preprocess: Preprocess, sample: int | None, seed: int
) -> _ToRead:
    """The pages :func:`measure` reads: (seen, layout, rows, the rows' source lines)."""
    pages = render_lines(lines, geometry)
    slots = [(p, r) for p, (_page, refs) in enumerate(pages) for r in range(len(refs))]
    if sample is not None and sample < len(slots):
        slots = sorted(random.Random(seed).sample(slots, sample))
    out: _ToRead = []
    for p, (page, refs) in enumerate(pages):
        rows = [r for q, r in slots if q == p]
        if rows:
            seen = preprocess.apply(page.pixels)
            out.append((seen, PageLayout.of(page), rows, [refs[r] for r in rows]))
    return out


def _scored(
    reader: Reader,
    geometry: Geometry,
    preprocess: Preprocess,
    todo: _ToRead,
    got: Sequence[Sequence[str]],
) -> ReaderMeasurement:
    refs_out = [ref for *_, refs in todo for ref in refs]
    reads_out = [text for texts in got for text in texts]
    return ReaderMeasurement(
        reader=reader.name,
        font=geometry.font.name,
        preprocess=preprocess.label,
        score=score_lines(refs_out, reads_out),
        refs=tuple(refs_out),
        readings=tuple(reads_out),
    )
