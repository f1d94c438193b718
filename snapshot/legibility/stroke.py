"""Stroke weight: every stroke of a drawn page widened by whole pixels.

The renderer draws each face at its designed weight; the legibility lab asks
whether readers read a face better when its strokes are heavier. Widening is
the classic bitmap emboldening, applied to the page as drawn: each pixel takes
the inkiest of itself and the ``px`` pixels to its left, so a vertical stem one
pixel wide becomes ``1 + px`` wide and gray edges widen with it. Ink spills into
the cell to the right only where that cell's first column is its side bearing.

This is a lab axis (:class:`~snapshot.legibility.frontier.CandidateLayout` ``stroke``):
the renderer does not draw it, so a profile never carries it.

>>> import numpy as np
>>> page = np.full((1, 6), 255, np.uint8); page[0, 1] = 0; page[0, 4] = 128
>>> embolden(page, 1).tolist()
[[255, 0, 0, 255, 128, 128]]
>>> embolden(255 - page, 1, "white-on-black").tolist()
[[0, 255, 255, 0, 127, 127]]
"""

from __future__ import annotations

import numpy as np

from snapshot.errors import InputError

#: Stroke widths (extra pixels) the frontier and the tuner search.
STROKES: tuple[int, ...] = (0, 1)


def embolden(pixels: np.ndarray, px: int, ink: str = "black-on-white") -> np.ndarray:
    """``pixels`` (H×W uint8 gray) with every stroke ``px`` pixels wider to the right."""
    if px < 0:
        raise InputError(f"stroke weight must be >= 0 extra pixels, got {px}")
    arr = np.asarray(pixels)
    if arr.ndim != 2 or arr.dtype != np.uint8:
        raise InputError(f"a page to embolden must be H×W uint8 gray, got {arr.dtype} {arr.shape}")
    inkiest = np.minimum if ink == "black-on-white" else np.maximum
    out = arr.copy()
    for k in range(1, min(px, arr.shape[1] - 1) + 1):
        out[:, k:] = inkiest(out[:, k:], arr[:, :-k])
    return out


__all__ = ["STROKES", "embolden"]
