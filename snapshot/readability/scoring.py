"""Reading accuracy: character accuracy (1 − CER), exact-token accuracy, whole-page scores
(:func:`score_page`) and intervals.

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
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

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


# ---------------------------------------------------------------------------- scoring


@dataclass(frozen=True)
class PageScore:
    """A whole page read back: character accuracy and exact hard tokens."""

    char_accuracy: float
    hard_tokens: int
    hard_tokens_exact: int

    @property
    def hard_token_accuracy(self) -> float | None:
        """Share of hard tokens read exactly; ``None`` when the page has none."""
        return self.hard_tokens_exact / self.hard_tokens if self.hard_tokens else None


# Order matters: a UUID is not also five hex runs, a path keeps its hex inside it.
_HARD = re.compile(
    r"(?P<uuid>\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b)"
    # A path starts only where a run of path characters starts, its segments taken
    # whole (possessive): linear on a megabyte of dots (issue 28).
    r"|(?P<path>(?<![\w/.~-])(?:~|\.{1,2})?(?:/?[\w.-]++)?(?:/[\w.-]++)+/?)"
    r"|(?P<hex>\b(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{7,}\b)"
    r"|(?P<number>(?<![\w.])\d+(?:[.,:]\d+)*(?![\w]))"
)
_MIN_NUMBER = 3  # shorter numbers turn up in any text by chance
_MIN_PATH = 4
# Every hard token holds a digit, a "/" or a "-" and no whitespace, and nothing either side of
# whitespace changes a match (each lookaround and \b sees a non-word, non-path character there):
# so only the whitespace-delimited runs holding one are scanned, the same matches at half the
# CPU on tool output (words and prose skipped). Linear: the lookahead runs once per run start.
_CANDIDATE_RUN = re.compile(r"(?<!\S)(?=\S*[\d/-])\S+")


def hard_tokens(text: str) -> list[str]:
    """The tokens a misread glyph silently changes: hex ≥ 7, UUIDs, numbers, paths.

    Numbers count from 3 characters (``1.5``, ``404``), paths from 4 and with
    a ``/``; hex runs need a digit (so ``defaced`` is a word, not a hash).

    >>> hard_tokens("commit 9f8e7d6c2 in src/app.py at 12:30, 7 files")
    ['9f8e7d6c2', 'src/app.py', '12:30']
    """
    return [text[start:end] for _, start, end in hard_token_spans(text)]


def hard_token_spans(text: str) -> list[tuple[str, int, int]]:
    """:func:`hard_tokens` with each token's kind (uuid, path, hex, number) and span.

    >>> hard_token_spans("see 9f8e7d6c2 and src/app.py")
    [('hex', 4, 13), ('path', 18, 28)]
    """
    out: list[tuple[str, int, int]] = []
    for run in _CANDIDATE_RUN.finditer(text):
        # pos/endpos, not a slice: the lookbehinds still see the whitespace before the run.
        for m in _HARD.finditer(text, run.start(), run.end()):
            kind = m.lastgroup or ""
            tok = m.group(0)
            if kind == "number" and len(tok) < _MIN_NUMBER:
                continue
            if kind == "path" and (len(tok) < _MIN_PATH or "/" not in tok):
                continue
            out.append((kind, m.start(), m.end()))
    return out


def page_expected_text(page: Any) -> str:
    """What a :class:`snapshot.rendering.page.Page` shows, as :func:`score_page` expects it.

    The header row first (when the page has one), then each text row. In flow
    mode a row may hold line-break marker cells; they are drawn glyphs, not
    text, so each stands as a space (spacing is not scored).
    """
    rows = [r.rstrip("\n").replace("\n", " ") for r in page.rows]
    head = [page.header] if page.geometry.header else []
    return "\n".join([*head, *rows])


_SPACES = re.compile(r"[ \t\u00a0]+")


def canonical(text: str) -> str:
    """Page text for comparison: runs of spaces as one, no blank or padded lines.

    >>> canonical("a   b \\n\\n  c")
    'a b\\nc'
    """
    lines = (_SPACES.sub(" ", ln).strip() for ln in text.split("\n"))
    return "\n".join(ln for ln in lines if ln)


def score_page(expected: str, read: str) -> PageScore:
    """Compare what a page holds with what a whole-page reader returned.

    Character accuracy is ``1 − d / len(expected)`` (clipped at 0), where
    ``d`` is rapidfuzz's Levenshtein distance between the two whole page
    texts, each canonicalized the same way: runs of spaces become one space,
    lines are stripped and blank lines dropped, line breaks stay ``"\\n"``.
    Spacing is layout, not content (a detector returns words or runs without
    their padding), while a line break read in the wrong place costs one edit,
    so lines are aligned by the edit distance itself, in reading order.
    Hard tokens (:func:`hard_tokens` of the expected text) count as exact when
    they occur verbatim in the read text (multiset: a token expected twice must
    be found twice; occurrences are counted without overlap).

    >>> score_page("a  b\\n\\nc", "a b\\nc").char_accuracy
    1.0
    """
    from rapidfuzz.distance import Levenshtein

    ref, hyp = canonical(expected), canonical(read)
    if ref:
        acc = max(0.0, 1.0 - Levenshtein.distance(ref, hyp) / len(ref))
    else:
        acc = 1.0 if not hyp else 0.0
    wanted = Counter(hard_tokens(expected))
    exact = sum(min(n, read.count(tok)) for tok, n in wanted.items())
    return PageScore(acc, sum(wanted.values()), exact)
