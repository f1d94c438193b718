"""Simulated provider preprocessing: what may happen to a page before a model sees it.

Pure, deterministic functions over H×W uint8 arrays (0 = ink, 255 = paper):
resampling by a factor or into a box with a named filter, JPEG/WebP
re-encoding at a quality, and padding. Pillow does the arithmetic, so results
are bit-identical across runs for one Pillow version.

No closed provider publishes its resampling filter, so the lab sweeps them
(``SWEEP_SCALES`` × ``FILTERS``); the documented ones (Qwen/Pixtral bicubic,
sharp's lanczos3 in some clients) are among them.
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

import numpy as np
from PIL import Image

from snapshot.errors import SnapshotError

Filter = Literal["nearest", "bilinear", "bicubic", "lanczos", "box"]
FILTERS: tuple[Filter, ...] = ("nearest", "bilinear", "bicubic", "lanczos", "box")
Codec = Literal["png", "jpeg", "webp"]


def filter_set(names: Sequence[str] | None = None) -> tuple[Filter, ...]:
    """The resampling filters ``names`` ask for, in order, once each.

    None, or a name ``"all"`` among them, means every filter (:data:`FILTERS`):
    providers do not publish theirs.

    Examples
    --------
    >>> filter_set(["bicubic", "box", "bicubic"])
    ('bicubic', 'box')
    >>> filter_set(["box", "all"]) == filter_set() == FILTERS
    True
    >>> filter_set(["sinc"])
    Traceback (most recent call last):
    ...
    snapshot.errors.SnapshotError: unknown filter 'sinc'; use one of: nearest, bilinear, bicubic, lanczos, box, all
    """
    if names is None or "all" in names:
        return FILTERS
    for name in names:
        if name not in FILTERS:
            raise SnapshotError(f"unknown filter {name!r}; use one of: {', '.join(FILTERS)}, all")
    return tuple(cast(Filter, n) for n in dict.fromkeys(names))


# 0.555 is Claude's downscale of an oversize 1928² page; 0.75/0.5 bracket it.
SWEEP_SCALES: tuple[float, ...] = (1.0, 0.9, 0.75, 0.555, 0.5)

_PIL_FILTERS: dict[Filter, Image.Resampling] = {
    "nearest": Image.Resampling.NEAREST,
    "bilinear": Image.Resampling.BILINEAR,
    "bicubic": Image.Resampling.BICUBIC,
    "lanczos": Image.Resampling.LANCZOS,
    "box": Image.Resampling.BOX,
}


def _check(pixels: np.ndarray) -> np.ndarray:
    if pixels.ndim != 2 or pixels.dtype != np.uint8:
        raise ValueError(f"expected an H×W uint8 array, got {pixels.dtype} {pixels.shape}")
    if pixels.size == 0:
        raise ValueError("empty image")
    return pixels


def _filter(name: str) -> Image.Resampling:
    try:
        return _PIL_FILTERS[name]  # type: ignore[index]
    except KeyError:
        raise ValueError(f"unknown filter {name!r}; use one of {', '.join(FILTERS)}") from None


def scaled_size(size: tuple[int, int], scale: float) -> tuple[int, int]:
    """(width, height) after scaling, rounded, never below 1 px."""
    if not scale > 0:
        raise ValueError(f"scale must be > 0, got {scale}")
    w, h = size
    return max(1, round(w * scale)), max(1, round(h * scale))


def resample_to(pixels: np.ndarray, size: tuple[int, int], filter: Filter) -> np.ndarray:
    """Resize to exactly ``size`` = (width, height) with ``filter``."""
    _check(pixels)
    w, h = size
    if w < 1 or h < 1:
        raise ValueError(f"target size must be positive, got {size}")
    if (w, h) == (pixels.shape[1], pixels.shape[0]):
        return pixels.copy()
    img = Image.fromarray(pixels)
    return np.asarray(img.resize((w, h), resample=_filter(filter)), dtype=np.uint8).copy()


def resample_many(stack: np.ndarray, size: tuple[int, int], filter: Filter) -> np.ndarray:
    """:func:`resample_to` on each of T same-sized images (a T×H×W stack), bit for bit.

    Pillow resizes in two separable passes, rounding to uint8 after each
    (``nearest`` picks a row and a column index alike). A pass treats each row
    (or column) on its own, so the stack goes through each pass as one tall (or
    wide) image: two calls instead of 2×T. Which pass Pillow runs first depends on
    its version and the sizes; :func:`_pass_order` asks it once per sizes. Where it
    cannot tell, both orders run, and where they differ each image is resampled alone.

    >>> rng = np.random.default_rng(0)
    >>> stack = rng.integers(0, 256, (3, 17, 23), dtype=np.uint8)
    >>> all(
    ...     np.array_equal(resample_many(stack, (w, h), f)[i], resample_to(stack[i], (w, h), f))
    ...     for f in FILTERS for w, h in ((13, 9), (31, 8), (40, 30)) for i in range(3)
    ... )
    True
    """
    if stack.ndim != 3 or stack.dtype != np.uint8 or stack.size == 0:
        raise ValueError(f"expected a T×H×W uint8 stack, got {stack.dtype} {stack.shape}")
    _, h, w = stack.shape
    tw, th = size
    if tw < 1 or th < 1:
        raise ValueError(f"target size must be positive, got {size}")
    # nearest picks indices, so its passes commute; so do both orders with one size kept
    both = tw != w and th != h and filter != "nearest"
    order = _pass_order((w, h), (tw, th), filter) if both else "rows"
    rows_first = _cols_pass(_rows_pass(stack, tw, filter), th, filter) if order != "cols" else None
    cols_first = _rows_pass(_cols_pass(stack, th, filter), tw, filter) if order != "rows" else None
    if (
        rows_first is not None
        and cols_first is not None
        and not np.array_equal(rows_first, cols_first)
    ):  # Pillow's order unknown for these sizes, and it matters here
        return np.stack([resample_to(image, size, filter) for image in stack])
    out = rows_first if rows_first is not None else cols_first
    return np.array(out, dtype=np.uint8, order="C", copy=True)


def _rows_pass(stack: np.ndarray, width: int, filter: Filter) -> np.ndarray:
    """Each image's rows resampled to ``width``: the images one above the other, one call."""
    t, h, w = stack.shape
    if width == w:
        return stack
    return _lines_resampled(stack.reshape(t * h, w), width, filter).reshape(t, h, width)


def _cols_pass(stack: np.ndarray, height: int, filter: Filter) -> np.ndarray:
    """Each image's columns resampled to ``height``: the images side by side, one call."""
    t, h, w = stack.shape
    if height == h:
        return stack
    cols = stack.transpose(0, 2, 1).reshape(t * w, h)  # each column as a line
    return _lines_resampled(cols, height, filter).reshape(t, w, height).transpose(0, 2, 1)


def _lines_resampled(lines: np.ndarray, length: int, filter: Filter) -> np.ndarray:
    """Each row of an N×L array resampled to ``length``: one Pillow call."""
    img = Image.fromarray(np.ascontiguousarray(lines))
    return np.asarray(img.resize((length, len(lines)), resample=_filter(filter)), dtype=np.uint8)


@functools.lru_cache(maxsize=256)
def _pass_order(
    size: tuple[int, int], target: tuple[int, int], filter: Filter
) -> Literal["rows", "cols"] | None:
    """Which pass Pillow runs first resizing ``size`` to ``target`` (None: cannot tell).

    Seeded noise, where the two orders round differently, resized by Pillow
    itself: the order that gives its bytes is the one it ran.
    """
    w, h = size
    for seed in range(4):
        noise = np.random.default_rng(seed).integers(0, 256, (1, h, w), dtype=np.uint8)
        rows = _cols_pass(_rows_pass(noise, target[0], filter), target[1], filter)
        cols = _rows_pass(_cols_pass(noise, target[1], filter), target[0], filter)
        if not np.array_equal(rows, cols):
            pillow = resample_to(noise[0], target, filter)
            if np.array_equal(pillow, rows[0]):
                return "rows"
            return "cols" if np.array_equal(pillow, cols[0]) else None
    return None


def resample(pixels: np.ndarray, scale: float, filter: Filter) -> np.ndarray:
    """Resize by ``scale`` (both axes) with ``filter``; 1.0 returns an unchanged copy."""
    size = scaled_size((pixels.shape[1], pixels.shape[0]), scale)
    return resample_to(pixels, size, filter)


def fit_size(size: tuple[int, int], box: tuple[int, int]) -> tuple[int, int]:
    """Largest aspect-preserving size within ``box``; smaller images are not enlarged."""
    w, h = size
    bw, bh = box
    s = min(1.0, bw / w, bh / h)
    return (w, h) if s >= 1.0 else (max(1, math.floor(w * s)), max(1, math.floor(h * s)))


def fit_within(pixels: np.ndarray, box: tuple[int, int], filter: Filter) -> np.ndarray:
    """Downscale (never enlarge) to fit ``box`` = (width, height), keeping the aspect ratio."""
    _check(pixels)
    return resample_to(pixels, fit_size((pixels.shape[1], pixels.shape[0]), box), filter)


def pad(pixels: np.ndarray, *, multiple: int = 1, to: tuple[int, int] | None = None) -> np.ndarray:
    """Pad with paper on the bottom and right: to a multiple of ``multiple`` or to ``to``."""
    _check(pixels)
    h, w = pixels.shape
    if to is not None:
        tw, th = to
    else:
        if multiple < 1:
            raise ValueError("multiple must be >= 1")
        tw, th = -(-w // multiple) * multiple, -(-h // multiple) * multiple
    if tw < w or th < h:
        raise ValueError(f"cannot pad {w}×{h} down to {tw}×{th}")
    out = np.full((th, tw), 255, dtype=np.uint8)
    out[:h, :w] = pixels
    return out


def reencode(pixels: np.ndarray, codec: Codec, quality: int = 90) -> np.ndarray:
    """Encode with a lossy (or lossless PNG) codec and decode back to grayscale."""
    _check(pixels)
    if not 1 <= quality <= 100:
        raise ValueError(f"quality must be in 1..100, got {quality}")
    buf = io.BytesIO()
    img = Image.fromarray(pixels)
    if codec == "png":
        img.save(buf, format="PNG")
    elif codec == "jpeg":
        # 4:2:0 subsampling is what most encoders default to; on gray it has no effect
        img.save(buf, format="JPEG", quality=quality)
    elif codec == "webp":
        img.save(buf, format="WEBP", quality=quality, method=4)
    else:
        raise ValueError(f"unknown codec {codec!r}; use png, jpeg or webp")
    buf.seek(0)
    with Image.open(buf) as decoded:
        return np.asarray(decoded.convert("L"), dtype=np.uint8).copy()


@dataclass(frozen=True)
class Seen:
    """What a reader receives, plus what is needed to find the page inside it.

    ``content_size`` is the size of the (possibly resampled) page before any
    padding; the padding sits on the bottom and right.
    """

    pixels: np.ndarray
    native_size: tuple[int, int]
    content_size: tuple[int, int]
    filter: Filter | None = None  # the resampling filter used, when one was

    @property
    def scale(self) -> tuple[float, float]:
        """Horizontal and vertical factor from native page pixels to seen pixels."""
        return (
            self.content_size[0] / self.native_size[0],
            self.content_size[1] / self.native_size[1],
        )


@dataclass(frozen=True)
class Preprocess:
    """One simulated provider pipeline: resample, then pad, then re-encode.

    Exactly one of ``scale`` or ``box`` sets the size (``box`` downscales into
    a (width, height) limit the way providers document it).
    """

    scale: float = 1.0
    filter: Filter = "bicubic"
    box: tuple[int, int] | None = None
    pad_multiple: int = 1
    codec: Codec = "png"
    quality: int = 90

    def __post_init__(self) -> None:
        if self.filter not in FILTERS:
            raise ValueError(f"unknown filter {self.filter!r}; use one of {', '.join(FILTERS)}")
        if not self.scale > 0:
            raise ValueError(f"scale must be > 0, got {self.scale}")

    @property
    def label(self) -> str:
        size = f"box{self.box[0]}x{self.box[1]}" if self.box else f"x{self.scale:g}"
        parts = [size]
        if self.box or self.scale != 1.0:
            parts.append(self.filter)
        if self.pad_multiple > 1:
            parts.append(f"pad{self.pad_multiple}")
        if self.codec != "png":
            parts.append(f"{self.codec}q{self.quality}")
        return " ".join(parts)

    def apply(self, pixels: np.ndarray) -> Seen:
        _check(pixels)
        native = (pixels.shape[1], pixels.shape[0])
        if self.box is not None:
            out = fit_within(pixels, self.box, self.filter)
        else:
            out = resample(pixels, self.scale, self.filter)
        content = (out.shape[1], out.shape[0])
        if self.pad_multiple > 1:
            out = pad(out, multiple=self.pad_multiple)
        if self.codec != "png":
            out = reencode(out, self.codec, self.quality)
        return Seen(out, native, content, self.filter if content != native else None)


NATIVE = Preprocess()


def restore(seen: Seen, filter: Filter = "bilinear") -> np.ndarray:
    """Crop the padding and resize back to the native page size (for a decoder
    that only knows the native cell grid)."""
    cw, ch = seen.content_size
    return resample_to(seen.pixels[:ch, :cw], seen.native_size, filter)


def sweep(
    scales: tuple[float, ...] = SWEEP_SCALES, filters: tuple[Filter, ...] = FILTERS
) -> list[Preprocess]:
    """Every scale × filter (scale 1.0 once: no filter runs at native size)."""
    out = []
    for s in scales:
        if s == 1.0:
            out.append(NATIVE)
            continue
        out.extend(Preprocess(scale=s, filter=f) for f in filters)
    return out
