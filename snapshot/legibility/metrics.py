"""Reading accuracy: character accuracy (1 − CER), exact-token accuracy, and intervals.

One edit distance for the whole project: rapidfuzz's Levenshtein (unit costs,
code points), over characters and over whole tokens alike (rapidfuzz takes
sequences of hashables). Alignments for the confusion tables come from
rapidfuzz's opcodes, with one tie-break on top (see :func:`align`).

>>> levenshtein("kitten", "sitting")
3
>>> [round(x, 3) for x in wilson_interval(45, 50)]
[0.786, 0.957]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from rapidfuzz.distance import Levenshtein

EditOp = Literal["equal", "sub", "ins", "del"]


@dataclass(frozen=True)
class Edit:
    """One aligned step: ``ref`` and ``hyp`` are '' for insertions and deletions."""

    op: EditOp
    ref: str
    hyp: str


def levenshtein(a: str | Sequence[str], b: str | Sequence[str]) -> int:
    """Unit-cost edit distance between two strings (code points) or token lists."""
    if a == b:
        return 0
    return int(Levenshtein.distance(a, b))


def char_accuracy(ref: str, hyp: str) -> float:
    """1 − CER, clipped at 0; an empty reference scores 1 only for an empty reading."""
    if not ref:
        return 1.0 if not hyp else 0.0
    return max(0.0, 1.0 - levenshtein(ref, hyp) / len(ref))


def token_accuracy(ref: str, hyp: str) -> float:
    """Share of the reference's whitespace tokens read exactly, in order.

    Tokens are aligned by edit distance over whole tokens, so one misread
    character costs its token and nothing else.
    """
    rt, ht = ref.split(), hyp.split()
    if not rt:
        return 1.0 if not ht else 0.0
    return _token_matches(rt, ht) / len(rt)


def _token_matches(rt: Sequence[str], ht: Sequence[str]) -> int:
    return sum(1 for op, _i, _j in _align_seq(rt, ht) if op == "equal")


def _align_seq(a: Sequence[str], b: Sequence[str]) -> list[tuple[EditOp, int, int]]:
    """A minimal edit script as (op, index into a, index into b), one step per item.

    rapidfuzz resolves ties its own way: a swap of two glyphs ("0O" read as
    "O0") comes back as insert, match, delete. An equally short script pairs
    them as two substitutions, which is what a confusion table should count,
    so that one pattern (and its mirror) is rewritten; the cost never changes.
    """
    steps: list[tuple[EditOp, int, int]] = []
    for op in Levenshtein.opcodes(a, b):
        tag, i1, i2, j1, j2 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
        if tag == "equal":
            steps.extend(("equal", i1 + k, j1 + k) for k in range(i2 - i1))
        elif tag == "replace":
            steps.extend(("sub", i1 + k, j1 + k) for k in range(i2 - i1))
        elif tag == "delete":
            steps.extend(("del", i, -1) for i in range(i1, i2))
        else:
            steps.extend(("ins", -1, j) for j in range(j1, j2))
    out: list[tuple[EditOp, int, int]] = []
    k = 0
    while k < len(steps):
        window = steps[k : k + 3]
        ops = tuple(op for op, _i, _j in window)
        if ops == ("ins", "equal", "del"):
            # ref "cY" -> hyp "Xc": sub c->X, sub Y->c
            (_, _, jx), (_, ic, jc), (_, iy, _) = window
            out += [("sub", ic, jx), ("sub", iy, jc)]
            k += 3
        elif ops == ("del", "equal", "ins"):
            # ref "Yc" -> hyp "cX": sub Y->c, sub c->X
            (_, iy, _), (_, ic, jc), (_, _, jx) = window
            out += [("sub", iy, jc), ("sub", ic, jx)]
            k += 3
        else:
            out.append(steps[k])
            k += 1
    for n, (kind, i, j) in enumerate(out):
        if kind == "sub" and a[i] == b[j]:
            out[n] = ("equal", i, j)
    return out


def align(ref: str, hyp: str) -> list[Edit]:
    """A minimal edit script turning ``ref`` into ``hyp``, one step per character.

    >>> [(e.op, e.ref, e.hyp) for e in align("0O", "O0")]
    [('sub', '0', 'O'), ('sub', 'O', '0')]
    """
    out: list[Edit] = []
    for op, i, j in _align_seq(ref, hyp):
        out.append(Edit(op, ref[i] if i >= 0 else "", hyp[j] if j >= 0 else ""))
    return out


def substitutions(pairs: Iterable[tuple[str, str]]) -> Counter[tuple[str, str]]:
    """Count (true char, read char) substitutions over (reference, reading) pairs."""
    counts: Counter[tuple[str, str]] = Counter()
    for ref, hyp in pairs:
        if ref == hyp:
            continue
        for e in align(ref, hyp):
            if e.op == "sub":
                counts[(e.ref, e.hyp)] += 1
    return counts


@dataclass(frozen=True)
class Score:
    """Totals over a set of lines; accuracies are micro-averages (long lines weigh more)."""

    chars: int
    char_errors: int
    tokens: int
    tokens_exact: int
    lines: int
    lines_exact: int

    @property
    def char_accuracy(self) -> float:
        if self.chars == 0:
            return 1.0
        return max(0.0, 1.0 - self.char_errors / self.chars)

    @property
    def token_accuracy(self) -> float:
        return 1.0 if self.tokens == 0 else self.tokens_exact / self.tokens

    def __add__(self, other: Score) -> Score:
        return Score(
            self.chars + other.chars,
            self.char_errors + other.char_errors,
            self.tokens + other.tokens,
            self.tokens_exact + other.tokens_exact,
            self.lines + other.lines,
            self.lines_exact + other.lines_exact,
        )


EMPTY_SCORE = Score(0, 0, 0, 0, 0, 0)


def score_line(ref: str, hyp: str) -> Score:
    """Score one reading; errors are capped at the reference length (a line scores >= 0)."""
    errors = min(levenshtein(ref, hyp), len(ref))
    rt, ht = ref.split(), hyp.split()
    exact = len(rt) if ref == hyp else (_token_matches(rt, ht) if rt and ht else 0)
    return Score(len(ref), errors, len(rt), exact, 1, int(ref == hyp))


def score_lines(refs: Sequence[str], hyps: Sequence[str]) -> Score:
    """Score aligned lists of lines (a missing reading counts as empty)."""
    total = EMPTY_SCORE
    for i, ref in enumerate(refs):
        total = total + score_line(ref, hyps[i] if i < len(hyps) else "")
    return total


def wilson_interval(successes: int, trials: int, *, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a share (95 % by default); (0, 1) for no trials.

    Parameters
    ----------
    successes, trials
        Needles found and needles asked, say.
    z
        The normal quantile (1.959964 for a two-sided 95 % interval).

    Returns
    -------
    tuple[float, float]
        Lower and upper bound, within [0, 1].

    >>> lo, hi = wilson_interval(16, 16)
    >>> round(lo, 3), hi
    (0.806, 1.0)
    """
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be in [0, {trials}], got {successes}")
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == trials else min(1.0, centre + half)
    return (lo, hi)
