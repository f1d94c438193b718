"""Seeded needles drawn from a compacted span, and recall against what a reader gets back.

Needles are exact strings a later turn might need: identifiers, hashes,
numbers, paths, error lines and case-contrast names. Recall asks, per needle,
whether it survives verbatim in what the reader has: the text left as text,
the text read back from the pages, or a summary.

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

_PATTERNS: dict[str, re.Pattern[str]] = {
    "hex": re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b"),
    "number": re.compile(r"(?<![\w.])\d{4,}(?:\.\d+)?(?![\w.])"),
    "path": re.compile(r"(?<![\w/])(?:[\w.-]+/)+[\w.-]*\w\.\w{1,5}\b"),
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
    return re.sub(r"\s+", "", text)


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
