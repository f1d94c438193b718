"""Exact ids kept as text: the tokens on a page a model cannot be trusted to read back.

A reader that misreads one glyph of a hash, a UUID, a long number or
``src/app.py:412`` gets a different id that still looks right, and nothing
downstream notices. So every such token on the pages is also carried as text,
in one compact line beside them (issue 41 item 3).

- :func:`exact_ids`: which tokens, in page order. The one definition:
  :func:`snapshot.readability.scoring.hard_token_spans` (the tokens the
  readability scores count as hard) narrowed to those a model must reproduce
  byte for byte and extended to line references: UUIDs; hex runs of ≥ 7
  characters with a digit (git hashes, digests, request ids); numbers with a
  run of ≥ 5 digits (a thousands-grouped number whole, ``1,516,925``; a list
  like ``11655,11656`` as its parts; times and versions are not ids); file paths followed by a line number (``path:12``, ``path:12:5``,
  ``path#L12``); and the UUIDs and hex runs inside any other path. Plain paths,
  short numbers and words stay on the pages only, and so do the message and
  call ids of the role lines (``[assistant #9f8e7d6c]``,
  :mod:`snapshot.ladder.serialize`) and the elide rung's placeholder lines
  (``[elided: ...; ref ...]``): the package's markers, not the conversation's.
- :func:`select`: the documented rule. Every id when the index fits the
  budget (counted by the target's own text counter); otherwise the most
  referenced first and, among equals, the most recent (last seen nearest the
  end of the pages), until the budget is spent.
- :func:`ranked`: that order (most referenced, then most recent) for any budget
  counted otherwise: the proxy's in-place drawing (below) keeps a share of them.
- :func:`index_text`: the chosen ids, deduplicated, on one line in the order
  they first appear on the pages, so two passes over the same span give the
  same bytes and a later span only appends (the cached prefix holds).
- :func:`coverage`: ``(kept, total)``, distinct ids on the pages and how many
  of them the index (or any text given) carries.

An id needs carrying only where it is not already text the model reads: the
proxy's in-place drawing (:mod:`snapshot.proxy.inplace`) writes, beside each
drawn tool result, only the ids on its pages that do not already stand as text
*before* it in the request (a message, a ``tool_use`` input, a result left as
text, an earlier result's id line), once each, space separated and unlabelled,
decided when the result is drawn so later requests repeat the line byte for
byte. Its budget is a share of those ids (:data:`PROXY_SHARE`, 95 %, rounded up,
so a result with fewer than 20 of them keeps all): the top of :func:`ranked`,
written in page order; the ids it leaves are on the pages only. Why a budget at
all: an id costs up to 27 ctok tokens (a UUID), and on the recorded Claude Code
session of ``bench/test_cost_vs_pxpipe.py`` the id lines were half of every
request cost mode sent. Each result's kept and total ids are counted and shown
(the ledger's and the page's ``exact_ids``). The bench's coverage
(``bench/cost_counting.py``) counts an id on pages as kept when it is present as
text anywhere in the request, by this same :func:`exact_ids` (97 % of them on
that session).

>>> pages = "commit 9f8e7d6c2 broke src/app.py:41; see 9f8e7d6c2 and run 123456"
>>> index = exact_index(pages, 100, lambda s: len(s) // 4)
>>> index
'Exact ids on the pages: 9f8e7d6c2 src/app.py:41 123456'
>>> coverage(pages, index)
(3, 3)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence

from snapshot.readability.scoring import hard_token_spans

INDEX_HEADER = "Exact ids on the pages:"
#: The share of a drawn tool result's ids not yet text that its id line carries (the rest,
#: ranked lowest by :func:`ranked`, stay on the pages only): issue 41's goal is >= 95 %.
PROXY_SHARE = 0.95
LONG_NUMBER_DIGITS = 5
# A line (and column) reference right after a path: ``:12``, ``:12:5``, ``#L12``, ``#L12-L30``.
_LINE_REF = re.compile(r":\d+(?::\d+)?(?![\w/])|#L\d+(?:-L?\d+)?\b")
_KEPT_KINDS = {"uuid", "hex"}
# A serialized role line's own id: ``[user #id]``, ``[tool call bash #id]``, ``[tool result #id]``.
_ROLE_LINE_ID = re.compile(r"^(\[[a-z][\w .-]*?) #[^\s\]]+\]$", re.MULTILINE)
_ELIDED_LINE = re.compile(r"^\[elided: [^\n]*\]$", re.MULTILINE)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_DIGIT_RUN = re.compile(rf"\d{{{LONG_NUMBER_DIGITS},}}")


def exact_ids(text: str) -> list[str]:
    """Every exact id in ``text``, in order, repeats included.

    >>> exact_ids("at snapshot/ladder/cut.py:88:4 and cut.py, id 550e8400-e29b-41d4-a716-446655440000")
    ['snapshot/ladder/cut.py:88:4', '550e8400-e29b-41d4-a716-446655440000']
    >>> exact_ids("2026 has 1,516,925 tokens; /tmp/run-9f25a04c/out.txt line 12")
    ['1,516,925', '9f25a04c']
    >>> exact_ids("the defaced facade")
    []
    >>> exact_ids("[tool result #a1b2c3d4e5f6]\\ncommit 9f25a04")
    ['9f25a04']
    >>> exact_ids("[elided: uneventful bash result, 500 chars; ref 36b2607815a1527c#0: ...]")
    []
    """
    return list(_exact_ids(text))


# The rung scans a middle for its index and again for its coverage (about 0.13 s CPU for
# 500 k characters each): the last scans are kept.
@functools.lru_cache(maxsize=2)
def _exact_ids(text: str) -> tuple[str, ...]:
    text = _ELIDED_LINE.sub("[elided]", _ROLE_LINE_ID.sub(r"\1]", text))
    out: list[str] = []
    for kind, start, end in hard_token_spans(text):
        tok = text[start:end]
        if kind in _KEPT_KINDS:
            out.append(tok)
        elif kind == "number":
            out.extend(_long_numbers(tok))
        elif kind == "path":
            line = _LINE_REF.match(text, end)
            if line:
                out.append(tok + line.group(0))
            else:  # a hash or UUID inside a plain path is still an id
                inner = tok.replace("/", " ")
                out.extend(inner[s:e] for k, s, e in hard_token_spans(inner) if k in _KEPT_KINDS)
    return tuple(out)


def _long_numbers(tok: str) -> list[str]:
    """The long numbers in one number token: itself when grouped in thousands, else its runs.

    >>> _long_numbers("1,516,925"), _long_numbers("11655,11656,9241"), _long_numbers("21:58:53.605")
    (['1,516,925'], ['11655', '11656'], [])
    """
    if _THOUSANDS.fullmatch(tok):
        return [tok] if sum(c.isdigit() for c in tok) >= LONG_NUMBER_DIGITS else []
    return _DIGIT_RUN.findall(tok)


def select(text: str, budget: int, count: Callable[[str], int]) -> list[str]:
    """The ids of ``text`` an index of at most ``budget`` tokens carries, in page order.

    All of them when they fit; otherwise the most referenced first, ties to the
    most recent, each while it still fits. ``count`` is the target's text counter.

    >>> text = "a1b2c3d4e5 then f0e1d2c3b4 then a1b2c3d4e5 then 9999999999"
    >>> select(text, 100, len)
    ['a1b2c3d4e5', 'f0e1d2c3b4', '9999999999']
    >>> select(text, len(INDEX_HEADER) + 22, len)  # room for two: the repeated one, then the latest
    ['a1b2c3d4e5', '9999999999']
    """
    found = exact_ids(text)
    if not found or budget <= 0:
        return []
    ordered = list(dict.fromkeys(found))
    if count(_line(ordered)) <= budget:
        return ordered
    first = {t: i for i, t in enumerate(ordered)}
    ranked_ = ranked(found)
    chosen: list[str] = []
    used = count(INDEX_HEADER)
    for tok in ranked_:
        cost = count(" " + tok)
        if used + cost <= budget:
            chosen.append(tok)
            used += cost
    chosen.sort(key=first.__getitem__)
    # Per-id counts may undercount the joined line by a token at a seam: drop the
    # lowest-ranked ids until the line itself fits.
    rank = {t: i for i, t in enumerate(ranked_)}
    while chosen and count(_line(chosen)) > budget:
        chosen.remove(max(chosen, key=rank.__getitem__))
    return chosen


def ranked(found: Sequence[str]) -> list[str]:
    """The distinct ids of ``found`` (ids in page order, repeats included): the most
    referenced first and, among equals, the most recent (last seen nearest the end).

    >>> ranked(["a1b2c3d4e5", "f0e1d2c3b4", "a1b2c3d4e5", "9999999999"])
    ['a1b2c3d4e5', '9999999999', 'f0e1d2c3b4']
    """
    last: dict[str, int] = {}
    refs: dict[str, int] = {}
    for i, tok in enumerate(found):
        last[tok] = i
        refs[tok] = refs.get(tok, 0) + 1
    return sorted(last, key=lambda t: (-refs[t], -last[t]))


def _line(ids: Iterable[str]) -> str:
    return " ".join([INDEX_HEADER, *ids])


def index_text(ids: Iterable[str]) -> str:
    """The index as the model reads it: one line, ``""`` when there is nothing to carry.

    >>> index_text(["9f8e7d6c2", "src/app.py:41"])
    'Exact ids on the pages: 9f8e7d6c2 src/app.py:41'
    >>> index_text([])
    ''
    """
    ids = list(dict.fromkeys(ids))
    return _line(ids) if ids else ""


def exact_index(text: str, budget: int, count: Callable[[str], int]) -> str:
    """:func:`index_text` of :func:`select`: the index line for the pages' ``text``.

    >>> exact_index("no ids here", 100, len)
    ''
    """
    return index_text(select(text, budget, count))


def coverage(pages_text: str, index: str) -> tuple[int, int]:
    """``(kept, total)``: distinct exact ids on the pages, and how many ``index`` carries.

    An id counts as kept when it stands in ``index`` as a whole
    whitespace-separated token (the index line, a factsheet, any text beside the pages).

    >>> coverage("ids 9f8e7d6c2 and 1a2b3c4d5e", "Exact ids on the pages: 9f8e7d6c2")
    (1, 2)
    >>> coverage("no ids", "")
    (0, 0)
    """
    on_pages = set(exact_ids(pages_text))
    as_text = set(index.split())
    return len(on_pages & as_text), len(on_pages)
