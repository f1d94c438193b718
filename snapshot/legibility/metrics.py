"""Reading accuracy: character accuracy (1 − CER) and exact-token accuracy.

Edit distances run on integer arrays so the same code serves characters and
whole tokens. Each DP row is computed with numpy in O(len) vector steps: the
insertion chain inside a row (``new[j] = new[j-1] + 1``) is a running minimum
of ``tmp[k] - k`` plus ``j``, so no Python loop runs over the columns.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

EditOp = Literal["equal", "sub", "ins", "del"]


@dataclass(frozen=True)
class Edit:
    """One aligned step: ``ref`` and ``hyp`` are '' for insertions and deletions."""

    op: EditOp
    ref: str
    hyp: str


def _codes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)


def _token_codes(a: Sequence[str], b: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    vocab: dict[str, int] = {}
    ia = np.array([vocab.setdefault(t, len(vocab)) for t in a], dtype=np.int64)
    ib = np.array([vocab.setdefault(t, len(vocab)) for t in b], dtype=np.int64)
    return ia, ib


def _trim(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop the common prefix and suffix: they never change the distance."""
    n = min(len(a), len(b))
    if n == 0:
        return a, b
    neq = np.flatnonzero(a[:n] != b[:n])
    start = int(neq[0]) if len(neq) else n
    a, b = a[start:], b[start:]
    n = min(len(a), len(b))
    if n == 0:
        return a, b
    neq = np.flatnonzero(a[::-1][:n] != b[::-1][:n])
    end = int(neq[0]) if len(neq) else n
    return a[: len(a) - end], b[: len(b) - end]


def _next_row(prev: np.ndarray, ch: int, b: np.ndarray, i: int) -> np.ndarray:
    """DP row i (1-based over a) from row i-1, vectorized over b."""
    idx = np.arange(len(b) + 1, dtype=np.int64)
    tmp = np.empty_like(prev)
    tmp[0] = i
    # deletion (from above) or substitution/match (from the diagonal)
    tmp[1:] = np.minimum(prev[1:] + 1, prev[:-1] + (b != ch))
    # insertion chain along the row: min over k <= j of tmp[k] + (j - k)
    return np.minimum.accumulate(tmp - idx) + idx


def _distance(a: np.ndarray, b: np.ndarray) -> int:
    a, b = _trim(a, b)
    if len(a) == 0 or len(b) == 0:
        return len(a) + len(b)
    if len(a) > len(b):  # loop over the shorter side
        a, b = b, a
    row = np.arange(len(b) + 1, dtype=np.int64)
    for i, ch in enumerate(a.tolist(), start=1):
        row = _next_row(row, ch, b, i)
    return int(row[-1])


def levenshtein(a: str, b: str) -> int:
    """Unit-cost edit distance between two strings (characters = code points)."""
    if a == b:
        return 0
    return _distance(_codes(a), _codes(b))


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
    a, b = _token_codes(rt, ht)
    return sum(1 for e in _align_codes(a, b) if e[0] == "equal")


def _align_codes(a: np.ndarray, b: np.ndarray) -> list[tuple[EditOp, int, int]]:
    """Full DP table and a backtrace; returns (op, index into a, index into b)."""
    n, m = len(a), len(b)
    table = np.empty((n + 1, m + 1), dtype=np.int64)
    table[0] = np.arange(m + 1)
    for i in range(1, n + 1):
        table[i] = _next_row(table[i - 1], int(a[i - 1]), b, i)
    ops: list[tuple[EditOp, int, int]] = []
    i, j = n, m
    while i > 0 or j > 0:
        # prefer match/substitution, then deletion, then insertion: a stable,
        # deterministic alignment that pairs misread characters when it can
        if i > 0 and j > 0 and table[i, j] == table[i - 1, j - 1] + (a[i - 1] != b[j - 1]):
            ops.append(("equal" if a[i - 1] == b[j - 1] else "sub", i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i > 0 and table[i, j] == table[i - 1, j] + 1:
            ops.append(("del", i - 1, -1))
            i -= 1
        else:
            ops.append(("ins", -1, j - 1))
            j -= 1
    ops.reverse()
    return ops


def align(ref: str, hyp: str) -> list[Edit]:
    """A minimal edit script turning ``ref`` into ``hyp``, one step per character."""
    out: list[Edit] = []
    for op, i, j in _align_codes(_codes(ref), _codes(hyp)):
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
