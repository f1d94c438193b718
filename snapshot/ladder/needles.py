"""Seeded needles drawn from a compacted span, and recall against what a reader gets back.

Needles are exact strings a later turn might need. Recall asks, per needle,
whether it survives verbatim in what the reader has: the text left as text,
the text read back from the pages, or a summary.

Two samplers live here, on purpose kept apart:

- :func:`sample_needles` is the measurement: a seeded sample of *spans of the
  source* by class (hex, UUID, path, number, error line, identifier, prose
  phrase), found by splitting the text into whitespace tokens and lines and
  classifying each one. It shares no pattern with the factsheet, so the
  factsheet's recall is measured on needles it was not built from.
- :func:`candidates` is the factsheet's own extractor (``ladder.sheets``), and
  :func:`draw_needles` the older sampler built on it (kept for callers).

Matching (:func:`found`) ignores all whitespace on both sides: a needle that a
page wraps across rows (or a reader returns as two lines, or with its inner
spaces collapsed) still counts; every other character must be exact.

>>> needles = draw_needles("commit 9f8e7d6c2 touched src/app/main.py: KeyError: 'userId'", seed=1)
>>> sorted({n.kind for n in needles})
['error', 'hex', 'name', 'path']
>>> recall(needles, "the fix is in src/app/main.py")
0.2
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

KINDS = ("hex", "number", "path", "error", "name")
# The classes of the independent sample (sample_needles).
CLASSES = ("hex", "uuid", "path", "number", "error", "identifier", "phrase")

_PATTERNS: dict[str, re.Pattern[str]] = {
    "hex": re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b"),
    "number": re.compile(r"(?<![\w.])\d{4,}(?:\.\d+)?(?![\w.])"),
    # Starts only where a run of path characters starts, and each segment is taken
    # whole (possessive): linear on a megabyte of dots (issue 28), same matches.
    "path": re.compile(r"(?<![\w/.-])(?:[\w.-]++/)+[\w.-]*\w\.\w{1,5}\b"),
    "error": re.compile(r"^.*\b(?:\w*Error|Exception|FAILED|fatal|panic)\b.*$", re.MULTILINE),
    # camelCase / PascalCase with an inner capital: the names models swap case on.
    "name": re.compile(r"\b(?:[A-Za-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z]{2,}[a-z][A-Za-z0-9]*)\b"),
}
_MAX_ERROR_LINE = 100


@dataclass(frozen=True)
class Needle:
    kind: str
    text: str


def candidates(text: str) -> dict[str, list[str]]:
    """Every distinct candidate per kind, in order of first appearance."""
    out: dict[str, list[str]] = {}
    for kind, pattern in _PATTERNS.items():
        seen: dict[str, None] = {}
        for match in pattern.finditer(text):
            s = match.group(0).strip()
            if kind == "error":
                s = s[:_MAX_ERROR_LINE].strip()
            if len(s) >= 4:
                seen.setdefault(s, None)
        out[kind] = list(seen)
    return out


def draw_needles(text: str, *, seed: int, per_kind: int = 4) -> list[Needle]:
    """Up to ``per_kind`` needles of each kind, drawn reproducibly from ``text``."""
    rng = random.Random(seed)
    needles: list[Needle] = []
    for kind, found in candidates(text).items():
        picked = found if len(found) <= per_kind else rng.sample(found, per_kind)
        needles.extend(Needle(kind, s) for s in picked)
    return needles


def _squash(text: str) -> str:
    # Pages reflow text and normalization expands tabs: compare modulo whitespace.
    # str.split() splits on exactly the characters ``\s`` matches, ~3x faster than re.sub.
    return "".join(text.split())


def found(needles: Sequence[Needle], haystack: str) -> list[bool]:
    squashed = _squash(haystack)
    return [_squash(n.text) in squashed for n in needles]


def recall(needles: Sequence[Needle], haystack: str) -> float:
    """Share of needles found verbatim (modulo whitespace) in ``haystack``; 1.0 when none."""
    if not needles:
        return 1.0
    hits = found(needles, haystack)
    return sum(hits) / len(hits)


def recall_by_kind(needles: Sequence[Needle], haystack: str) -> dict[str, float]:
    hits = found(needles, haystack)
    out: dict[str, float] = {}
    for kind in KINDS:
        mine = [h for n, h in zip(needles, hits, strict=True) if n.kind == kind]
        if mine:
            out[kind] = sum(mine) / len(mine)
    return out


def combined(parts: Iterable[str]) -> str:
    return "\n".join(parts)


# ---------------------------------------------------------------------------- independent sample

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# Used with fullmatch; the lookbehinds (true at a token's start) and possessive runs
# keep them linear under search too (issue 28: no regex rescans a run from every start).
_HEX = re.compile(r"(?<![0-9a-fA-F])(?:0x)?(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{7,}")
_PATHLIKE = re.compile(
    r"(?<![\w.~@%+/:-])(?:[A-Za-z][A-Za-z0-9+.-]*+://)?[\w.~@%+-]*+(?:/[\w.~@%+-]*+)+"
)
_NUMBER = re.compile(r"[-+]?\d[\d,._:]*\d")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
_ERROR_WORD = re.compile(
    r"\b(?:[A-Z]\w*(?:Error|Exception)|Traceback|FAILED|FAIL|ERROR|Errno|fatal|panic|error)\b"
)
_LEAD = "\"'`([{<"
_TRAIL = "\"'`,;:.!?)]}>"
_PHRASE_WORDS = 5
_MAX_ERROR = 120
_MIN_LEN = 4


def _classify(token: str) -> str | None:
    """The class of one trimmed whitespace token, or None for a plain word or noise."""
    if len(token) < _MIN_LEN:
        return None
    if _UUID.fullmatch(token):
        return "uuid"
    if _HEX.fullmatch(token):
        return "hex"
    if "/" in token and _PATHLIKE.fullmatch(token) and sum(1 for p in token.split("/") if p) >= 2:
        return "path"
    if _NUMBER.fullmatch(token) and sum(c.isdigit() for c in token) >= 3:
        return "number"
    if _IDENT.fullmatch(token) and (
        "_" in token
        or "." in token
        or any(c.isdigit() for c in token)
        or re.search(r"[a-z][A-Z]", token)
        or re.fullmatch(r"[A-Z]{2,}[a-z]\w*", token)
    ):
        return "identifier"
    return None


def _pieces(raw: str) -> list[str]:
    """A token and, for ``key=value`` / ``key:value`` shapes, its parts."""
    token = raw.lstrip(_LEAD).rstrip(_TRAIL)
    parts = [p.lstrip(_LEAD).rstrip(_TRAIL) for p in re.split(r"[=:,]", token)]
    parts = [p for p in parts if p]
    return [token, *parts] if len(parts) > 1 else [token]


def spans_by_class(text: str) -> dict[str, list[str]]:
    """Every distinct span of each class in ``text``, in order of first appearance.

    Only printable ASCII spans are kept (what every reader's alphabet holds).

    >>> spans = spans_by_class("see src/app.py: 9f8e7d6c2 failed\\nValueError: bad size 1024")
    >>> spans["path"], spans["hex"], spans["number"], spans["error"]
    (['src/app.py'], ['9f8e7d6c2'], ['1024'], ['ValueError: bad size 1024'])
    """
    out: dict[str, dict[str, None]] = {c: {} for c in CLASSES}
    for line in text.split("\n"):
        stripped = " ".join(line.split())
        if not stripped.isascii() or not stripped.isprintable():
            stripped = "".join(ch for ch in stripped if ch.isascii() and ch.isprintable())
        if _ERROR_WORD.search(stripped) and len(stripped) >= 12:
            cut = stripped[:_MAX_ERROR]
            if len(stripped) > _MAX_ERROR and " " in cut:
                cut = cut[: cut.rindex(" ")]
            out["error"].setdefault(cut.strip(), None)
        words: list[str] = []
        for raw in line.split():
            if not (raw.isascii() and raw.isprintable()):
                words = []
                continue
            for piece in _pieces(raw):
                kind = _classify(piece)
                if kind is not None:
                    out[kind].setdefault(piece, None)
                    break
            # a phrase is verbatim: bare words only, punctuation ends it
            if _WORD.fullmatch(raw):
                words.append(raw)
                if len(words) >= _PHRASE_WORDS:
                    phrase = " ".join(words[-_PHRASE_WORDS:])
                    if len(phrase) >= 20:
                        out["phrase"].setdefault(phrase, None)
            else:
                words = []
    return {c: list(v) for c, v in out.items()}


def sample_needles(text: str, *, seed: int | str, per_class: int = 3) -> list[Needle]:
    """Up to ``per_class`` distinct spans of each class, a seeded uniform sample.

    Each class draws from its own generator (seeded by ``seed`` and the class),
    so adding text of one class never moves the sample of another.

    >>> [(n.kind, n.text) for n in sample_needles("run 7f3a9c2e1d FAILED: src/x/y.py", seed=1)]
    [('hex', '7f3a9c2e1d'), ('path', 'src/x/y.py'), ('error', 'run 7f3a9c2e1d FAILED: src/x/y.py')]
    """
    needles: list[Needle] = []
    for kind, spans in spans_by_class(text).items():
        rng = random.Random(f"{seed}:{kind}")
        picked = spans if len(spans) <= per_class else rng.sample(spans, per_class)
        needles.extend(Needle(kind, s) for s in picked)
    return needles


def page_battery(
    page_texts: Sequence[str],
    *,
    eligible: Sequence[int] | None = None,
    seed: int | str,
    pages: int,
    per_class: int = 3,
    keep_empty: bool = False,
) -> list[tuple[int, list[Needle]]]:
    """A seeded sample of ``pages`` pages and, on each, a needle sample of its own text.

    ``eligible`` restricts the pages that may be drawn (the report passes the
    full ones). Returns ``(page index, needles)`` in page order, pages without
    any needle left out (kept, with no needles, with ``keep_empty``: their text is still
    read for readability). The needles of one page are
    :func:`sample_needles` of that page's text, seeded by ``seed`` and the
    page index, so every reader is asked about the same spans.

    >>> texts = ["id 9f8e7d6c2 in src/a/b.py", "nothing here", "total 123456 rows"]
    >>> [(i, [n.text for n in ns]) for i, ns in page_battery(texts, seed=3, pages=3)]
    [(0, ['9f8e7d6c2', 'src/a/b.py']), (2, ['123456'])]
    """
    pool = list(range(len(page_texts))) if eligible is None else sorted(set(eligible))
    rng = random.Random(f"{seed}:pages")
    chosen = sorted(pool if len(pool) <= pages else rng.sample(pool, pages))
    out: list[tuple[int, list[Needle]]] = []
    for i in chosen:
        needles = sample_needles(page_texts[i], seed=f"{seed}:{i}", per_class=per_class)
        if needles or keep_empty:
            out.append((i, needles))
    return out
