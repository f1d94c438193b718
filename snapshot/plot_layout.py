"""Figure margins fixed in inches: the layout ``tight_layout`` would find, without its pass.

``tight_layout`` lays every label out once more before ``savefig`` draws them (~0.1 s of
CPU a figure on this project's figures); the report's and the legibility lab's figures
have labels of known kinds, so their margins are set directly. The same numbers draw the
same PNG, byte for byte.

>>> from matplotlib.figure import Figure
>>> fig = Figure(figsize=(8, 4))
>>> fixed_margins(fig, left=1.0, bottom=0.5, right=0.2, top=0.4)
>>> p = fig.subplotpars
>>> [round(float(x), 3) for x in (p.left, p.bottom, p.right, p.top)]
[0.125, 0.125, 0.975, 0.9]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def fixed_margins(
    fig: Any, *, left: float, bottom: float, right: float = 0.25, top: float = 0.45
) -> None:
    """Set ``fig``'s subplot margins to these widths in inches."""
    w, h = fig.get_size_inches()
    fig.subplots_adjust(left=left / w, bottom=bottom / h, right=1 - right / w, top=1 - top / h)


def label_inches(labels: Sequence[str], points: float) -> float:
    """Room for the longest of ``labels`` at ``points`` beside an axis, in inches.

    ~0.6 em a character of DejaVu Sans (matplotlib's default) plus the tick and its pad:
    an upper bound, so a long custom model id is never cut off.

    >>> label_inches(["none", "snapshot+factsheet"], 8)
    1.35
    """
    return round(max((len(s) for s in labels), default=0) * points * 0.6 / 72 + 0.15, 4)
