"""The report's whole-page readers at the real page and ±4 px (issue 25 item 1).

A PP-OCR detector rounds each page side to a multiple of 32 px, and a page
whose sides already are can give it a blank map: one reader's verdict then
flips with a 4 px change of page size. The report reads each sampled page as
the provider gets it and again 4 px larger and 4 px smaller (half on each side:
margin added in the page's paper, or taken from its margins, so the text and
the needles stay the same), scores each reading against the page's text
(:func:`~snapshot.readability.scoring.score_page`: characters, exact hard
tokens) and marks a reader *unstable* for a profile when its verdict against
the :class:`~snapshot.readability.goal.Goal` differs between the sizes. An
unstable reader is shown at every size, never averaged.

Each sampled page also has a **control** (:data:`CONTROL`): the page's own text on the
same page size and ink in plain 16 px DejaVu Sans Mono
(:func:`~snapshot.legibility.controls.control_layout`), read by the same reader. A reader
whose control reaches :data:`~snapshot.legibility.controls.QUALIFY_BAR` judges by the
page's score relative to its control; one below it is shown, labelled, and never decides.
(Rows of runs before controls carry none: their readers are judged absolute, labelled.)

Where a reader passes natively at the real page, the report also reads that
page after the 0.9× bicubic resample (:data:`RESAMPLED`, the frontier's
``RESAMPLE_SCALE`` and filter): the Goal's third bar. A reader below the bar
natively decides the verdict without it, so that reading is not paid for.

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

from snapshot.legibility.weakest import JITTER
from snapshot.readability.scoring import Score

if TYPE_CHECKING:
    from snapshot.readability.goal import Goal, Reading
    from snapshot.rendering.page import Page

#: The page sizes read, by label: as the provider gets it, larger, smaller.
SIZES: tuple[tuple[str, int], ...] = (("real", 0), (f"+{JITTER}", JITTER), (f"-{JITTER}", -JITTER))
#: The label of the real page read after the 0.9× bicubic resample (only where the reader
#: passes natively on that row's pages).
RESAMPLED = "x0.9"
#: The label of the control page read beside each sampled page (:func:`control_page`).
CONTROL = "control"


def control_page(page: Page) -> Page:
    """The control of ``page``: its text (as much as fits) on the same page size, shade and
    ink in plain 16 px DejaVu Sans Mono (:func:`~snapshot.legibility.controls.control_layout`).

    >>> from snapshot.rendering.geometry import Geometry
    >>> from snapshot.rendering.glyphs import load_font
    >>> from snapshot.rendering.page import render
    >>> page = render("id 9f8e7d6c2", Geometry.fit(load_font("snap5x8"), 200, 60, flow=False))[0]
    >>> c = control_page(page)
    >>> c.geometry.size == page.geometry.size, c.text == page.text, c.geometry.font.name
    (True, True, 'dejavu-sans-mono')
    """
    from snapshot.legibility.controls import control_layout
    from snapshot.legibility.frontier import CandidateLayout
    from snapshot.rendering.page import render

    g = page.geometry
    lay = CandidateLayout(g.font.name, None, g.shade, g.row_gap, g.col_gap, g.size, g.ink)
    return render(page.text, control_layout(lay).geometry())[0]


def judge(by_size: Mapping[str, SizeScore]) -> str:
    """``qualified``, ``unqualified (control X < bar)``, or ``no control read``.

    >>> ok, low = SizeScore.from_list([100, 1, 10, 10, ""]), SizeScore.from_list([100, 30, 1, 1, ""])
    >>> judge({"real": low, CONTROL: ok}), judge({"real": ok, CONTROL: low}), judge({"real": ok})
    ('qualified', 'unqualified (control 0.700 < 0.93)', 'no control read')
    """
    from snapshot.legibility.controls import QUALIFY_BAR

    c = by_size.get(CONTROL)
    if c is None:
        return "no control read"
    if c.char_accuracy < QUALIFY_BAR:
        return f"unqualified (control {c.char_accuracy:.3f} < {QUALIFY_BAR})"
    return "qualified"


def decides(by_size: Mapping[str, SizeScore]) -> bool:
    """Whether this reader judges: qualified on its control, or (rows of runs before
    controls) none read."""
    return not judge(by_size).startswith("unqualified")


def native(by_size: Mapping[str, SizeScore], label: str = "real") -> Reading:
    """The reading at ``label`` relative to the control where one was read, else absolute.

    >>> a, c = SizeScore.from_list([100, 10, 10, 8, ""]), SizeScore.from_list([100, 4, 10, 10, ""])
    >>> r = native({"real": a, CONTROL: c}); round(r.char_accuracy, 4), r.hard_token_accuracy
    (0.9375, 0.8)
    """
    from snapshot.legibility.controls import Relative

    s = by_size[label]
    c = by_size.get(CONTROL)
    if c is None or c.char_accuracy <= 0:
        return s
    hard = s.hard_token_accuracy / c.hard_token_accuracy if c.hard_token_accuracy else 0.0
    return Relative(s.char_accuracy / c.char_accuracy, hard)


def native_cell(by_size: Mapping[str, SizeScore]) -> str:
    """The real page's characters, relative to the control with the absolute beside it.

    >>> a, c = SizeScore.from_list([100, 10, 10, 8, ""]), SizeScore.from_list([100, 4, 10, 10, ""])
    >>> native_cell({"real": a, CONTROL: c}), native_cell({"real": a})
    ('0.938 of control (0.900 absolute)', '0.900 absolute, no control read')
    """
    s = by_size["real"]
    if CONTROL not in by_size:
        return f"{s.char_accuracy:.3f} absolute, no control read"
    return f"{native(by_size).char_accuracy:.3f} of control ({s.char_accuracy:.3f} absolute)"


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
    from snapshot.readability.scoring import score_page

    s = score_page(expected, read)
    n = len(expected)
    errors = round((1.0 - s.char_accuracy) * n)
    tally = Score(n, errors, s.hard_tokens, s.hard_tokens_exact, 1, int(errors == 0))
    return SizeScore(tally, f"{size[0]}x{size[1]}")


def goal_of(by_size: Mapping[str, SizeScore], goal: Goal | None = None) -> Goal:
    """``goal`` if given, else the bar of what :func:`native` returns: relative to the
    control where one was read (``Goal.relative()``), absolute otherwise (``Goal()``).

    >>> ok = SizeScore.from_list([100, 1, 10, 10, ""])
    >>> goal_of({"real": ok, CONTROL: ok}).char_accuracy, goal_of({"real": ok}).char_accuracy
    (0.95, 0.97)
    """
    from snapshot.readability.goal import Goal

    if goal is not None:
        return goal
    return Goal.relative() if CONTROL in by_size else Goal()


def passes(s: Reading, goal: Goal | None = None) -> bool:
    """The native verdict against ``goal`` (default: the absolute
    :class:`~snapshot.readability.goal.Goal`)."""
    from snapshot.readability.goal import Goal

    g = goal or Goal()
    return s.char_accuracy >= g.char_accuracy and s.hard_token_accuracy >= g.hard_tokens


def verdict(by_size: Mapping[str, SizeScore], goal: Goal | None = None) -> str:
    """``stable`` / ``unstable`` across the sizes read; ``one size`` when only one was.
    The ×0.9 reading (:data:`RESAMPLED`) is no page size: it has its own bar.

    >>> good, bad = SizeScore.from_list([100, 1, 10, 10, ""]), SizeScore.from_list([100, 100, 10, 0, ""])
    >>> verdict({"real": bad, "+4": good}), verdict({"real": good, "+4": good})
    ('unstable', 'stable')
    >>> verdict({"real": good, RESAMPLED: bad})
    'one size'
    """
    sized = [native(by_size, label) for label in by_size if label in _SIZE_LABELS]
    if len(sized) < 2:
        return "one size"
    g = goal_of(by_size, goal)
    return "stable" if len({passes(s, g) for s in sized}) == 1 else "unstable"


_SIZE_LABELS = frozenset(label for label, _ in SIZES)


def resampled_rows(rows: Sequence[object], model: str, reader: str) -> tuple[int, int]:
    """(rows of ``model`` whose pages ``reader`` read after the ×0.9 resample, rows it read
    at the real page): the resample is read only on rows that pass natively.

    >>> class R:
    ...     model = "m"
    ...     reader_page_scores = {"a": {"real": [1, 0, 0, 0, ""], "x0.9": [1, 0, 0, 0, ""]}}
    >>> resampled_rows([R(), R()], "m", "a"), resampled_rows([R()], "m", "b")
    ((2, 2), (0, 0))
    """
    mine = [
        s
        for r in rows
        if getattr(r, "model", None) == model
        and (s := getattr(r, "reader_page_scores", {}).get(reader))
        and "real" in s
    ]
    return sum(RESAMPLED in s for s in mine), len(mine)


def profile_verdict(pooled: Mapping[str, Mapping[str, SizeScore]], goal: Goal | None = None) -> str:
    """The weakest-reader verdict on one profile's pages: ``readable`` only when every reader
    that read the real page meets ``goal`` natively (characters and exact hard tokens), was
    read after the ×0.9 resample at ≥ the goal's resampled bar, and is stable at ±4 px (when
    read). Otherwise ``not readable`` and why, each reader named; an unstable reader is
    reported, never averaged.

    >>> ok = SizeScore.from_list([100, 1, 10, 10, "9x9"])
    >>> low = SizeScore.from_list([100, 20, 10, 10, "8x8"])
    >>> profile_verdict({"a": {"real": ok, "+4": ok, "x0.9": ok}})
    'readable on these pages by every reader (a)'
    >>> profile_verdict({"a": {"real": ok, "+4": low, "x0.9": low}, "b": {"real": low}})
    'not readable: below the bar natively: b; ×0.9 below 0.90 characters: a; unstable at ±4 px: a'
    >>> profile_verdict({"a": {"real": ok}})
    'not readable: ×0.9 not read: a; ±4 px not read'
    """
    read = {rd: s for rd, s in sorted(pooled.items()) if "real" in s}
    real = {rd: s for rd, s in read.items() if decides(s)}
    unqualified = [rd for rd in read if rd not in real]
    if not read:
        return "not measured"
    if not real:
        return f"not readable: no qualified reader (unqualified: {', '.join(unqualified)})"
    below = [rd for rd, s in real.items() if not passes(native(s), goal_of(s, goal))]
    passing = [rd for rd in real if rd not in below]
    no_res = [rd for rd in passing if RESAMPLED not in real[rd]]
    res_low = [
        rd
        for rd in passing
        if RESAMPLED in real[rd]
        and real[rd][RESAMPLED].char_accuracy < goal_of(real[rd], goal).resampled_char_accuracy
    ]
    unstable = [rd for rd, s in real.items() if verdict(s, goal) == "unstable"]
    jittered = any(verdict(s, goal) != "one size" for s in real.values())
    gaps = []
    if below:
        gaps.append(f"below the bar natively: {', '.join(below)}")
    if res_low:
        bar = goal_of({}, goal).resampled_char_accuracy  # absolute: no control at ×0.9
        gaps.append(f"×0.9 below {bar:.2f} characters: {', '.join(res_low)}")
    if no_res:
        gaps.append(f"×0.9 not read: {', '.join(no_res)}")
    if unstable:
        gaps.append(f"unstable at ±{JITTER} px: {', '.join(unstable)}")
    if not jittered:
        gaps.append(f"±{JITTER} px not read")
    aside = f" (unqualified, not deciding: {', '.join(unqualified)})" if unqualified else ""
    if gaps:
        return "not readable: " + "; ".join(gaps) + aside
    return f"readable on these pages by every reader ({', '.join(real)}){aside}"


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
    | m | a | 1.000 (1.00) 9x9 | 0.100 (0.00) 13x13 | – | unstable | not read (0 of 1 rows) |
    | m | b | 0.950 (1.00) 9x9 | – | – | one size | – (below natively) |
    <BLANKLINE>
    - m: weakest reader at the real page: b, 0.950 characters (hard tokens: a 1.00); ×0.9: not read; unstable: a; verdict: not readable: below the bar natively: b; ×0.9 not read: a; unstable at ±4 px: a
    """
    body: list[str] = []
    weakest: list[str] = []
    for m in models:
        pooled = pooled_scores(rows, m)
        if not pooled:
            continue
        real = {rd: s["real"] for rd, s in pooled.items() if "real" in s}
        unstable = [
            rd for rd, s in sorted(pooled.items()) if verdict(s) == "unstable" and decides(s)
        ]
        for reader, by_size in sorted(pooled.items()):
            cells = [
                f"{s.char_accuracy:.3f} ({s.hard_token_accuracy:.2f}) {s.size}"
                if (s := by_size.get(label))
                else "–"
                for label, _ in SIZES
            ]
            who = reader if CONTROL not in by_size else f"{reader} ({judge(by_size)})"
            body.append(
                f"| {m} | {who} | " + " | ".join(cells) + f" | {verdict(by_size)} | "
                f"{_resampled_cell(rows, m, reader, by_size)} |"
            )
        deciding = {rd: s for rd, s in pooled.items() if "real" in s and decides(s)}
        if real and deciding:
            wc = min(deciding.items(), key=lambda kv: (native(kv[1]).char_accuracy, kv[0]))
            wh = min(deciding.items(), key=lambda kv: (native(kv[1]).hard_token_accuracy, kv[0]))
            controls = [f"{rd} {judge(s)}" for rd, s in sorted(pooled.items()) if CONTROL in s]
            weakest.append(
                f"- {m}: weakest reader at the real page: {wc[0]}, "
                + (
                    f"{native_cell(wc[1])} characters"
                    if CONTROL in wc[1]
                    else f"{wc[1]['real'].char_accuracy:.3f} characters"
                )
                + f" (hard tokens: {wh[0]} {native(wh[1]).hard_token_accuracy:.2f}); "
                + (f"controls: {', '.join(controls)}; " if controls else "")
                + f"×0.9: {weakest_resampled(pooled)}"
                + (f"; unstable: {', '.join(unstable)}" if unstable else "")
                + f"; verdict: {profile_verdict(pooled)}"
            )
    if not body:
        return []
    return [
        "Each reader's page-text score on the same sampled pages (characters, exact hard tokens "
        "in brackets; text: the pages of this run's conversations), at the page size the provider gets "
        f"and {JITTER} px larger and smaller ({JITTER // 2} px of margin added or taken on each "
        "side, the text unchanged). `unstable`: the verdict against 0.97 characters and 0.90 "
        "exact hard tokens changes with the page size (PP-OCR's detector rounds sides to 32 px); "
        "an unstable reader is shown at every size, not averaged. ×0.9: the real page after a "
        "0.9× bicubic resample (characters), read only on the rows whose pages the reader reads "
        "at the bar natively (a reader below it decides the verdict without it). The verdict: "
        "every reader at ≥ 0.97 characters and ≥ 0.90 exact hard tokens natively, ≥ 0.90 "
        "characters after ×0.9, stable at ±4 px, on this run's pages only. Each reader also "
        "reads a control of each sampled page (its text on the same page size and ink in "
        "DejaVu Sans Mono 16 px): a reader judges by its score relative to its control where "
        "that control reaches 0.93 characters (qualified); an unqualified reader is shown, "
        "labelled, and never decides.",
        "",
        f"| profile | reader | real page | +{JITTER} px | −{JITTER} px | ±{JITTER} px | ×0.9 |",
        "|---|---|---|---|---|---|---|",
        *body,
        "",
        *weakest,
    ]


def _resampled_cell(
    rows: Sequence[object], model: str, reader: str, by_size: Mapping[str, SizeScore]
) -> str:
    real = by_size.get("real")
    if real is None:
        return "–"
    k, n = resampled_rows(rows, model, reader)
    s = by_size.get(RESAMPLED)
    if s is None:
        return f"not read (0 of {n} rows)" if passes(native(by_size)) else "– (below natively)"
    return f"{s.char_accuracy:.3f} {s.size} ({k} of {n} rows)"


def weakest_resampled(pooled: Mapping[str, Mapping[str, SizeScore]]) -> str:
    """The lowest ×0.9 character accuracy and its reader, or why there is none.

    >>> a = SizeScore.from_list([100, 5, 1, 1, "9x9"])
    >>> weakest_resampled({"r": {"real": a, "x0.9": a}, "s": {"real": a}})
    'weakest r 0.950 characters'
    >>> weakest_resampled({"s": {"real": SizeScore.from_list([100, 50, 1, 1, ""])}})
    'not read: no reader reaches the bar natively'
    """
    res = {rd: s[RESAMPLED] for rd, s in pooled.items() if RESAMPLED in s}
    if res:
        rd, s = min(res.items(), key=lambda kv: (kv[1].char_accuracy, kv[0]))
        return f"weakest {rd} {s.char_accuracy:.3f} characters"
    if not any(passes(native(s)) for s in pooled.values() if "real" in s and decides(s)):
        return "not read: no reader reaches the bar natively"
    return "not read"


__all__ = [
    "CONTROL",
    "RESAMPLED",
    "SIZES",
    "SizeScore",
    "control_page",
    "decides",
    "jitter_lines",
    "judge",
    "native",
    "native_cell",
    "passes",
    "pooled_scores",
    "profile_verdict",
    "resampled_rows",
    "resized",
    "score",
    "text_margin",
    "verdict",
    "weakest_resampled",
]
