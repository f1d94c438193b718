"""Glyph confusability: which characters of a font a reader can mix up.

The pixel Hamming distance between two glyph bitmaps is the number of pixels a
reader must get right to tell them apart. After a provider downscale the page
is gray, so the same idea becomes an L1 distance over ink coverage (0..1 per
pixel) once the page is brought back to its native grid; at scale 1 the two
agree exactly. Observed OCR substitutions, taken from aligned edits, are then
compared with the pairs this matrix predicts.
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from snapshot.legibility.resample import Filter, resample, resample_to
from snapshot.readability.scoring import substitutions

if TYPE_CHECKING:
    from snapshot.rendering.glyphs import Font

# Printable ASCII without the space: what hard lines are made of.
ASCII_GLYPHS = "".join(c for c in string.printable if c.isprintable() and c != " ")


@dataclass(frozen=True)
class GlyphSet:
    """Bitmaps of some characters of a font, one (h, w) 0/1 array per character."""

    font: str
    chars: str
    bitmaps: np.ndarray  # (n, h, w) uint8, 1 = ink
    missing: str = ""  # requested characters the font itself does not draw


def glyph_set(font: Font, chars: str = ASCII_GLYPHS) -> GlyphSet:
    """The font's own glyphs for ``chars`` (fallback glyphs excluded)."""
    atlas = font.atlas
    have, missing, idx = [], [], []
    for ch in dict.fromkeys(chars):
        i = font.index_of(ch)
        if i is None or not font.covers(ch):
            missing.append(ch)
            continue
        have.append(ch)
        idx.append(i)
    bitmaps = (atlas[np.array(idx, dtype=np.int64)] > 0).astype(np.uint8)
    return GlyphSet(font.name, "".join(have), bitmaps, "".join(missing))


def hamming_matrix(bitmaps: np.ndarray) -> np.ndarray:
    """(n, n) int matrix of differing pixels between every pair of 0/1 bitmaps."""
    flat = (bitmaps.reshape(len(bitmaps), -1) > 0).astype(np.int32)
    ink = flat.sum(axis=1)
    # |a xor b| = |a| + |b| - 2|a and b|: one matrix product instead of n² xors
    return ink[:, None] + ink[None, :] - 2 * (flat @ flat.T)


def degrade_glyphs(
    bitmaps: np.ndarray,
    scale: float,
    filter: Filter,
    *,
    restore_filter: Filter = "bilinear",
    margin: int = 2,
    offset: tuple[int, int] | None = None,
) -> np.ndarray:
    """Each glyph as a reader sees it after a down-and-back resample: (n, h, w) float ink 0..1.

    Every glyph sits at the same offset in its own small page, so all of them
    meet the same sub-pixel phase and differences come from the shapes alone;
    ``offset`` (x, y) picks that phase (the oracle matches cells per phase).
    """
    n, h, w = bitmaps.shape
    ox, oy = offset if offset is not None else (margin, margin)
    out = np.empty((n, h, w), dtype=np.float64)
    size = (ox + w + margin, oy + h + margin)
    for k in range(n):
        page = np.full((size[1], size[0]), 255, dtype=np.uint8)
        page[oy : oy + h, ox : ox + w][bitmaps[k] > 0] = 0
        small = resample(page, scale, filter)
        back = resample_to(small, size, restore_filter)
        out[k] = (255.0 - back[oy : oy + h, ox : ox + w]) / 255.0
    return out


def l1_matrix(ink: np.ndarray) -> np.ndarray:
    """(n, n) float matrix of summed ink differences (equals Hamming on 0/1 input)."""
    flat = ink.reshape(len(ink), -1).astype(np.float64)
    out = np.empty((len(flat), len(flat)), dtype=np.float64)
    for i in range(len(flat)):  # n rows of vector work; n is ~100 glyphs
        out[i] = np.abs(flat - flat[i]).sum(axis=1)
    return out


def distance_matrix(
    glyphs: GlyphSet, scale: float = 1.0, filter: Filter = "bicubic", *, phases: int = 1
) -> np.ndarray:
    """Hamming at native scale; the mean degraded L1 distance over ``phases`` offsets otherwise."""
    if scale == 1.0:
        return hamming_matrix(glyphs.bitmaps).astype(np.float64)
    mats = [
        l1_matrix(degrade_glyphs(glyphs.bitmaps, scale, filter, margin=2 + p))
        for p in range(max(1, phases))
    ]
    return np.mean(mats, axis=0)


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    distance: float


def nearest_pairs(matrix: np.ndarray, chars: str, k: int = 10) -> list[Pair]:
    """The ``k`` closest distinct character pairs, closest first (ties by character)."""
    n = len(chars)
    iu, ju = np.triu_indices(n, k=1)
    d = matrix[iu, ju]
    order = sorted(range(len(d)), key=lambda t: (float(d[t]), chars[iu[t]], chars[ju[t]]))
    return [Pair(chars[iu[t]], chars[ju[t]], float(d[t])) for t in order[:k]]


@dataclass(frozen=True)
class Confusability:
    """Summary of one font's matrix at one scale."""

    font: str
    scale: float
    filter: str
    glyphs: int
    floor: float  # smallest distance between two different glyphs
    within: dict[int, int]  # threshold -> glyphs with a neighbour at distance <= threshold
    nearest: tuple[Pair, ...]


def summarize(
    glyphs: GlyphSet,
    matrix: np.ndarray,
    *,
    scale: float = 1.0,
    filter: str = "-",
    k: int = 10,
    thresholds: Sequence[int] = (1, 2, 3),
) -> Confusability:
    off = matrix + np.diag(np.full(len(matrix), np.inf))
    nn = off.min(axis=1)
    return Confusability(
        font=glyphs.font,
        scale=scale,
        filter=filter,
        glyphs=len(glyphs.chars),
        floor=float(nn.min()) if len(nn) else float("inf"),
        within={t: int((nn <= t).sum()) for t in thresholds},
        nearest=tuple(nearest_pairs(matrix, glyphs.chars, k)),
    )


@dataclass(frozen=True)
class ObservedConfusion:
    true: str
    read: str
    count: int
    distance: float | None  # None when either character is outside the glyph set
    rank: int | None  # rank of the pair among all pairs by predicted distance (0 = closest)


@dataclass(frozen=True)
class ConfusionComparison:
    """Confusions an OCR reader made, set against the matrix's predictions."""

    substitutions: int
    outside: int  # substitutions involving characters the matrix does not cover
    mean_distance_observed: float  # count-weighted, over covered substitutions
    mean_distance_all: float  # over all distinct pairs: what chance would give
    top_k: int
    share_in_top_k: float  # covered substitutions whose pair is among the k closest
    observed: tuple[ObservedConfusion, ...]


def compare_confusions(
    matrix: np.ndarray,
    chars: str,
    readings: Iterable[tuple[str, str]],
    *,
    top_k: int = 20,
) -> ConfusionComparison:
    """Align each (reference, reading) pair and rank its substitutions by predicted distance."""
    counts: Counter[tuple[str, str]] = substitutions(readings)
    pos = {c: i for i, c in enumerate(chars)}
    n = len(chars)
    iu, ju = np.triu_indices(n, k=1)
    all_d = matrix[iu, ju]
    order = np.lexsort((ju, iu, all_d))
    rank_of = {(int(iu[t]), int(ju[t])): r for r, t in enumerate(order.tolist())}
    observed = []
    covered = outside = in_top = 0
    weighted = 0.0
    for (a, b), c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if a in pos and b in pos and a != b:
            i, j = sorted((pos[a], pos[b]))
            dist = float(matrix[i, j])
            rank = rank_of[(i, j)]
            covered += c
            weighted += dist * c
            in_top += c if rank < top_k else 0
            observed.append(ObservedConfusion(a, b, c, dist, rank))
        else:
            outside += c
            observed.append(ObservedConfusion(a, b, c, None, None))
    return ConfusionComparison(
        substitutions=covered + outside,
        outside=outside,
        mean_distance_observed=weighted / covered if covered else float("nan"),
        mean_distance_all=float(all_d.mean()) if len(all_d) else float("nan"),
        top_k=top_k,
        share_in_top_k=in_top / covered if covered else float("nan"),
        observed=tuple(observed),
    )
