"""The report's whole-page readers at the real page and ±4 px (issue 25 item 1).

A PP-OCR detector rounds each page side to a multiple of 32 px, and a page
whose sides already are can give it a blank map: one reader's verdict then
flips with a 4 px change of page size. The report reads each sampled page as
the provider gets it and again 4 px larger and 4 px smaller (half on each side:
margin added in the page's paper, or taken from its margins, so the text and
the needles stay the same), scores each reading against the page's text
(:func:`~snapshot.legibility.page_readers.score_page`: characters, exact hard
tokens) and marks a reader *unstable* for a profile when its verdict against
the :class:`~snapshot.legibility.frontier.Goal` differs between the sizes. An
unstable reader is shown at every size, never averaged.

>>> import numpy as np
>>> page = np.full((10, 12), 255, np.uint8); page[3:7, 3:9] = 0
>>> [resized(page, d, margin=(3, 3, 3, 3)).shape for d in (4, -4)]
[(14, 16), (6, 8)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from snapshot.legibility.metrics import Score
from snapshot.legibility.weakest import JITTER

if TYPE_CHECKING:
    from snapshot.legibility.frontier import Goal

#: The page sizes read, by label: as the provider gets it, larger, smaller.
SIZES: tuple[tuple[str, int], ...] = (("real", 0), (f"+{JITTER}", JITTER), (f"-{JITTER}", -JITTER))


def resized(
    pixels: np.ndarray, delta: int, *, margin: tuple[int, int, int, int] | None = None
) -> np.ndarray:
    """``pixels`` with ``delta`` px more (or fewer) on each side's total, half on each side.

    Grown pages get paper (the top-left pixel's value); shrunk pages lose margin
    only: ``margin`` (left, top, right, bottom px free of text) caps the crop on
    each side, so no drawn cell is cut.
    """
    if delta == 0:
        return pixels
    lo, hi = abs(delta) // 2, abs(delta) - abs(delta) // 2
    if delta > 0:
        pad = [(lo, hi), (lo, hi)] + [(0, 0)] * (pixels.ndim - 2)
        paper = pixels[0, 0] if pixels.ndim == 2 else pixels[0, 0, 0]
        return np.pad(pixels, pad, mode="constant", constant_values=paper)
    left, top, right, bottom = margin or (lo, lo, hi, hi)
    h, w = pixels.shape[:2]
    return pixels[min(lo, top) : h - min(hi, bottom), min(lo, left) : w - min(hi, right)]


def text_margin(geometry: object) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) px of a page's geometry that hold no cell."""
    x, y = geometry.origin  # type: ignore[attr-defined]
    bw, bh = geometry.block_size  # type: ignore[attr-defined]
    w, h = geometry.size  # type: ignore[attr-defined]
    return (x, y, w - x - bw, h - y - bh)


@dataclass(frozen=True)
class SizeScore:
    """One reader's pooled page-text score at one page size (pages as ``lines``)."""

    score: Score = field(default_factory=lambda: Score(0, 0, 0, 0, 0, 0))
    size: str = ""  # "WxH" of the (first) page read at this size

    @property
    def char_accuracy(self) -> float:
        return self.score.char_accuracy

    @property
    def hard_token_accuracy(self) -> float:
        return self.score.token_accuracy

    def add(self, other: SizeScore) -> SizeScore:
        return SizeScore(self.score + other.score, self.size or other.size)

    def as_list(self) -> list[int | str]:
        """``[chars, char errors, hard tokens, exact hard tokens, "WxH"]`` (a Row's JSON)."""
        s = self.score
        return [s.chars, s.char_errors, s.tokens, s.tokens_exact, self.size]

    @classmethod
    def from_list(cls, v: Sequence[int | str]) -> SizeScore:
        c, e, h, x, size = v
        return cls(Score(int(c), int(e), int(h), int(x), 1, int(e == 0)), str(size))


def score(expected: str, read: str, size: tuple[int, int]) -> SizeScore:
    """One page's reading as a :class:`SizeScore`."""
    from snapshot.legibility.page_readers import score_page

    s = score_page(expected, read)
    n = len(expected)
    errors = round((1.0 - s.char_accuracy) * n)
    tally = Score(n, errors, s.hard_tokens, s.hard_tokens_exact, 1, int(errors == 0))
    return SizeScore(tally, f"{size[0]}x{size[1]}")


def passes(s: SizeScore, goal: Goal | None = None) -> bool:
    """The native verdict against ``goal`` (default: :class:`~snapshot.legibility.frontier.Goal`)."""
    from snapshot.legibility.frontier import Goal

    g = goal or Goal()
    return s.char_accuracy >= g.char_accuracy and s.hard_token_accuracy >= g.hard_tokens


def verdict(by_size: Mapping[str, SizeScore], goal: Goal | None = None) -> str:
    """``stable`` / ``unstable`` across the sizes read; ``one size`` when only one was.

    >>> good, bad = SizeScore.from_list([100, 1, 10, 10, ""]), SizeScore.from_list([100, 100, 10, 0, ""])
    >>> verdict({"real": bad, "+4": good}), verdict({"real": good, "+4": good})
    ('unstable', 'stable')
    """
    if len(by_size) < 2:
        return "one size"
    return "stable" if len({passes(s, goal) for s in by_size.values()}) == 1 else "unstable"


def pooled_scores(rows: Sequence[object], model: str) -> dict[str, dict[str, SizeScore]]:
    """reader → size label → the score pooled over ``rows`` of ``model``
    (rows carrying ``reader_page_scores``, e.g. report ``Row`` objects)."""
    out: dict[str, dict[str, SizeScore]] = {}
    for r in rows:
        if getattr(r, "model", None) != model:
            continue
        for reader, by_size in getattr(r, "reader_page_scores", {}).items():
            mine = out.setdefault(reader, {})
            for label, v in by_size.items():
                mine[label] = mine.get(label, SizeScore()).add(SizeScore.from_list(v))
    return out


def jitter_lines(rows: Sequence[object], models: Sequence[str]) -> list[str]:
    """The report's table: per profile and reader, page-text characters (exact hard tokens)
    at the real page and ±4 px, the verdict's stability, and the weakest reader per profile.

    >>> class R:
    ...     model = "m"
    ...     reader_page_scores = {"a": {"real": [100, 0, 4, 4, "9x9"], "+4": [100, 90, 4, 0, "13x13"]},
    ...                           "b": {"real": [100, 5, 4, 4, "9x9"]}}
    >>> print("\\n".join(jitter_lines([R()], ["m"])[-4:]))
    | m | a | 1.000 (1.00) 9x9 | 0.100 (0.00) 13x13 | – | unstable |
    | m | b | 0.950 (1.00) 9x9 | – | – | one size |
    <BLANKLINE>
    - m: weakest reader at the real page: b, 0.950 characters (hard tokens: a 1.00); unstable: a
    """
    body: list[str] = []
    weakest: list[str] = []
    for m in models:
        pooled = pooled_scores(rows, m)
        if not pooled:
            continue
        real = {rd: s["real"] for rd, s in pooled.items() if "real" in s}
        unstable = [rd for rd, s in sorted(pooled.items()) if verdict(s) == "unstable"]
        for reader, by_size in sorted(pooled.items()):
            cells = [
                f"{s.char_accuracy:.3f} ({s.hard_token_accuracy:.2f}) {s.size}"
                if (s := by_size.get(label))
                else "–"
                for label, _ in SIZES
            ]
            body.append(f"| {m} | {reader} | " + " | ".join(cells) + f" | {verdict(by_size)} |")
        if real:
            wc = min(real.items(), key=lambda kv: (kv[1].char_accuracy, kv[0]))
            wh = min(real.items(), key=lambda kv: (kv[1].hard_token_accuracy, kv[0]))
            weakest.append(
                f"- {m}: weakest reader at the real page: {wc[0]}, {wc[1].char_accuracy:.3f} "
                f"characters (hard tokens: {wh[0]} {wh[1].hard_token_accuracy:.2f})"
                + (f"; unstable: {', '.join(unstable)}" if unstable else "")
            )
    if not body:
        return []
    return [
        "Each reader's page-text score on the same sampled pages (characters, exact hard tokens "
        "in brackets; text: the pages of this run's conversations), at the page size the provider gets "
        f"and {JITTER} px larger and smaller ({JITTER // 2} px of margin added or taken on each "
        "side, the text unchanged). `unstable`: the verdict against 0.97 characters and 0.90 "
        "exact hard tokens changes with the page size (PP-OCR's detector rounds sides to 32 px); "
        "an unstable reader is shown at every size, not averaged.",
        "",
        f"| profile | reader | real page | +{JITTER} px | −{JITTER} px | ±{JITTER} px |",
        "|---|---|---|---|---|---|",
        *body,
        "",
        *weakest,
    ]


__all__ = [
    "SIZES",
    "SizeScore",
    "jitter_lines",
    "passes",
    "pooled_scores",
    "resized",
    "score",
    "text_margin",
    "verdict",
]
