"""``--mode cost``: closed tool results drawn in place, each once (Anthropic Messages).

A ``tool_result`` block whose call has been answered by at least :data:`AGE`
assistant turns is *closed*; :class:`InPlace` replaces its ``content`` (and
nothing else: ``tool_use_id``, ``is_error``, markers and the block's place stay
the client's) by a note (:data:`NOTE`, so
:func:`snapshot.proxy.fidelity.outside_span_diff` knows it), the page images of
that result's own text and one text line carrying the exact ids on them
(:mod:`snapshot.ladder.exact_ids`) and any run no font could draw. The pages are
cropped to the rows the text fills (a short result is a short page).

The id line carries, space separated and unlabelled, in page order and once each,
the exact ids on the pages that are not already text *before* the block in the
messages sent upstream, :data:`~snapshot.ladder.exact_ids.PROXY_SHARE` of them
(rounded up: the most referenced in the result, then the most recent; the rule
and its reasons are :mod:`snapshot.ladder.exact_ids`). Text before the block is
a user or assistant text, a ``tool_use`` input (name and
JSON, as written), a result left as text, or an earlier drawn result's id line
(system prompt and tool docs are not counted: ``full`` may draw them). An id that
recurs in one result, across results, or that the assistant already wrote is so
carried once, where it first stands as text. The line is decided when the result
is converted, from what precedes it then, and remembered with the conversion, so
every later request repeats it byte for byte and the cached prefix holds.

The drawing is a pure function of the result's text and the page layout, kept by
digest (:data:`KEEP` of them), so it is never redrawn; a conversion once made is
remembered per conversation (by ``tool_use_id`` and text digest) and repeated on
every later request, so the prefix the provider caches only grows and each new
conversion breaks only the short suffix after it. Whether a result is converted
is the billing model's call (:func:`snapshot.billing.prompt_cache.conversion_pays`):
its pages and id line against its text over the requests expected to read it, the
rewrite of the cached suffix after it charged once.

>>> from snapshot.ladder.target import target_for
>>> code = "\\n".join(f"    def handler_{i}(self, v):  # step {i} of 9f25a04c1" for i in range(80))
>>> body = {"messages": [
...     {"role": "user", "content": "task"},
...     {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read",
...         "input": {}}]},
...     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
...         "content": code}]},
...     {"role": "assistant", "content": "read it"},
...     {"role": "user", "content": "next"}]}
>>> imager = InPlace()
>>> done = imager.apply(body, target_for("claude-fable-5"), ("k", "main"), lambda d, s, c: True)
>>> block = done.body["messages"][2]["content"][0]
>>> block["tool_use_id"], [p["type"] for p in block["content"]]
('t1', ['text', 'image', 'text'])
>>> "9f25a04c1" in block["content"][-1]["text"], done.new
(True, ('t1',))
>>> imager.remember(("k", "main"), done)
>>> again = imager.apply(body, target_for("claude-fable-5"), ("k", "main"), lambda d, s, c: False)
>>> again.body == done.body, again.new  # remembered: repeated byte for byte, nothing new
(True, ())
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from snapshot.ladder.exact_ids import PROXY_SHARE, exact_ids, ranked
from snapshot.ladder.target import Target
from snapshot.proxy.prefix_pages import Kept, cropped, image_block
from snapshot.rendering.page import Page, render_document

__all__ = ["AGE", "MIN_TOKENS", "NOTE", "Drawn", "InPlace", "InPlaced", "is_imaged"]

#: Assistant turns after a tool result before it is closed (may be drawn).
AGE = 1
#: A result under this many text tokens stays text (a page row or two cannot pay).
MIN_TOKENS = 300
#: ... and one under this many characters is not counted at all (it cannot have them).
MIN_CHARS = MIN_TOKENS
#: Drawn results kept (the results of the conversations a proxy serves at once).
KEEP = 4096
#: Conversations whose conversions are remembered.
CONVERSATIONS = 256
#: Short on purpose: it is sent with every drawn result on every request (26 ctok tokens before).
NOTE = "[drawn on the pages below]"


def is_imaged(block: Any) -> bool:
    """Is ``block`` a ``tool_result`` whose content :class:`InPlace` drew (it opens with
    :data:`NOTE`)?

    >>> is_imaged({"type": "tool_result", "tool_use_id": "t", "content": [
    ...     {"type": "text", "text": NOTE}]})
    True
    """
    if not isinstance(block, Mapping) or block.get("type") != "tool_result":
        return False
    content = block.get("content")
    return (
        isinstance(content, list)
        and bool(content)
        and isinstance(content[0], Mapping)
        and content[0].get("type") == "text"
        and content[0].get("text") == NOTE
    )


@dataclass(frozen=True)
class Drawn:
    """One result drawn: the content that replaces it, its pages and what they cost."""

    content: list[dict[str, Any]]
    pages: tuple[Page, ...]
    text_tokens: int  # the result's own text
    tokens: int  # its pages, the note and the id line
    exact_ids: dict[str, int]


@dataclass(frozen=True)
class _Pages:
    """A result's text drawn (kept by digest): what any id line is added to."""

    pages: tuple[Page, ...]
    images: tuple[dict[str, Any], ...]
    image_tokens: int
    ids: tuple[str, ...]  # distinct exact ids on the pages, in page order
    ranked: tuple[str, ...]  # the same, most referenced first, then most recent
    kept: tuple[str, ...]  # runs no font could draw, carried as text


@dataclass(frozen=True)
class InPlaced:
    """A body with its closed tool results drawn in place."""

    body: dict[str, Any]
    drawn: dict[str, tuple[str, Drawn]]  # tool_use_id: (text digest, drawing), every one sent
    new: tuple[str, ...]  # converted by this request (the rest repeat earlier conversions)
    # tool_use_id: (text digest, ids its line carries) for every decision, new ones included
    made: Mapping[str, tuple[str, tuple[str, ...], int]] = field(default_factory=dict)

    @property
    def pages(self) -> tuple[Page, ...]:
        """The pages newly converted by this request (the canary and the page look at these)."""
        return tuple(p for i in self.new for p in self.drawn[i][1].pages)

    @property
    def page_count(self) -> int:
        return sum(len(d.pages) for _, d in self.drawn.values())

    @property
    def exact_ids(self) -> dict[str, int]:
        on = sum(d.exact_ids["on_pages"] for _, d in self.drawn.values())
        kept = sum(d.exact_ids["as_text"] for _, d in self.drawn.values())
        return {"on_pages": on, "as_text": kept}


def _result_text(block: Mapping[str, Any]) -> str | None:
    """The text of a tool result the package may draw (None: error, images, empty)."""
    if block.get("is_error") is True or not isinstance(block.get("tool_use_id"), str):
        return None
    content = block.get("content")
    if isinstance(content, str):
        return content or None
    if not isinstance(content, list) or not content:
        return None
    texts = []
    for part in content:
        if (
            not isinstance(part, Mapping)
            or part.get("type") != "text"
            or set(part)
            != {
                "type",
                "text",
            }
        ):
            return None
        texts.append(part["text"])
    return "\n".join(texts) or None


# (the digest of the text converted, the ids its line carries, ids it leaves on the pages only)
_Made = tuple[str, tuple[str, ...], int]
_DECLINED: _Made = ("", (), 0)


@functools.lru_cache(maxsize=KEEP)
def _unit_ids(text: str) -> frozenset[str]:
    """The distinct exact ids of one text the model reads (each text scanned once)."""
    return frozenset(exact_ids(text))


def _block_texts(block: Any) -> list[str]:
    """The texts of one message block as sent (what counts as an id already written)."""
    if isinstance(block, str):
        return [block]
    if not isinstance(block, Mapping):
        return []
    kind = block.get("type")
    if kind == "text":
        return [str(block.get("text", ""))]
    if kind == "tool_use":
        return [str(block.get("name", "")) + json.dumps(block.get("input"), ensure_ascii=False)]
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, str):
            return [content]
        if isinstance(content, list):
            return [str(p.get("text", "")) for p in content if isinstance(p, Mapping)]
    return []


class _Seen:
    """The exact ids already text in the messages before a point, read lazily in order."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self.ids: set[str] = set()
        self.item = 0  # items read whole

    def upto(self, i: int, blocks: Sequence[Any]) -> set[str]:
        """The ids before block ``len(blocks)`` of item ``i`` (``blocks``: its earlier ones)."""
        while self.item < i:
            item = self.items[self.item]
            if isinstance(item, Mapping):
                content = item.get("content")
                for block in content if isinstance(content, list) else [content]:
                    for t in _block_texts(block):
                        self.ids |= _unit_ids(t)
            self.item += 1
        here = set(self.ids)
        for block in blocks:
            for t in _block_texts(block):
                here |= _unit_ids(t)
        return here


class InPlace:
    """Draws closed tool results in place, each text once (thread-safe)."""

    def __init__(self) -> None:
        self._drawn: Kept[Drawn] = Kept(KEEP)
        self._pages: Kept[_Pages] = Kept(KEEP)
        # Per conversation: tool_use_id -> (the digest of the text converted, the ids its
        # line carries); ("", ()) declined.
        self._made: OrderedDict[tuple[str, str], dict[str, _Made]] = OrderedDict()
        self._counted: Kept[int] = Kept(KEEP)
        self._lock = threading.Lock()

    def apply(
        self,
        body: dict[str, Any],
        target: Target,
        key: tuple[str, str],
        pays: Callable[[Drawn, int, bool], bool],
        item_tokens: Sequence[int] = (),
        *,
        cached: int = 0,
        age: int = AGE,
    ) -> InPlaced | None:
        """``body`` with its remembered conversions repeated and each result closed for
        ``age`` assistant turns converted where ``pays(drawn, suffix_tokens, cached)``
        says so; a result it declines stays text for good (None: nothing drawn).

        ``item_tokens``: each history item's tokens as the client sent it; ``cached``:
        how many leading items the provider holds from the previous request (a break
        after item *i* rewrites those of them after *i*; an item past them is new).
        """
        if not target.vision or target.geometry is None:
            return None
        items = body.get("messages")
        if not isinstance(items, list):
            return None
        with self._lock:
            made = dict(self._made.get(key, {}))
        later = [0] * (len(items) + 1)  # assistant turns after each item
        for i in range(len(items) - 1, -1, -1):
            later[i] = later[i + 1] + int(
                isinstance(items[i], dict) and items[i].get("role") == "assistant"
            )
        tail = [0] * (len(items) + 1)  # cached tokens after each item
        for i in range(len(items) - 1, -1, -1):
            after = i + 1
            tail[i] = tail[after] + (
                item_tokens[after] if after < min(cached, len(item_tokens)) else 0
            )
        out: list[Any] = list(items)
        seen = _Seen(out)  # reads the items as sent: earlier conversions already in place
        drawn: dict[str, tuple[str, Drawn]] = {}
        new: list[str] = []
        declined: list[str] = []
        broken = False  # a new conversion earlier in this request already breaks the rest
        for i, item in enumerate(items):
            if not isinstance(item, dict) or item.get("role") != "user":
                continue
            content = item.get("content")
            if not isinstance(content, list):
                continue
            blocks: list[Any] = list(content)
            for j, block in enumerate(content):
                if not isinstance(block, dict) or block.get("type") != "tool_result":
                    continue
                text = _result_text(block)
                if text is None:
                    continue
                ident = block["tool_use_id"]
                digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
                was = made.get(ident)
                if was is not None and was[0] == digest:
                    d = self._draw(text, digest, target, was[1], was[2])
                elif was is not None or later[i] < age:
                    continue
                else:
                    # Decided once: a result declined (or too short) stays text for good.
                    made[ident] = _DECLINED
                    declined.append(ident)
                    hint = item_tokens[i] if len(content) == 1 and i < len(item_tokens) else None
                    if (
                        len(text) < MIN_CHARS
                        or self._tokens(text, digest, target, hint) < MIN_TOKENS
                    ):
                        continue
                    base = self._base(text, digest, target)
                    before = seen.upto(i, blocks[:j])
                    order = [t for t in base.ranked if t not in before]
                    kept = set(order[: math.ceil(PROXY_SHARE * len(order))])
                    carried = tuple(t for t in base.ids if t in kept)
                    left = len(order) - len(kept)
                    d = self._draw(text, digest, target, carried, left, hint)
                    if not pays(d, 0 if broken else tail[i], i < cached):
                        continue
                    declined.pop()
                    made[ident] = (digest, carried, left)
                    new.append(ident)
                    broken = True
                drawn[ident] = (digest, d)
                blocks[j] = {k: (d.content if k == "content" else v) for k, v in block.items()}
            if blocks != content:
                out[i] = {k: (blocks if k == "content" else v) for k, v in item.items()}
        if declined:
            with self._lock:
                self._made.setdefault(key, {}).update(dict.fromkeys(declined, _DECLINED))
        if not drawn:
            return None
        return InPlaced({**body, "messages": out}, drawn, tuple(new), made)

    def remember(self, key: tuple[str, str], done: InPlaced) -> None:
        """Remember ``done``'s conversions for ``key``: later requests repeat them exactly."""
        with self._lock:
            made = self._made.setdefault(key, {})
            for ident in done.new:
                made[ident] = done.made[ident]
            self._made.move_to_end(key)
            while len(self._made) > CONVERSATIONS:
                self._made.popitem(last=False)

    def _tokens(self, text: str, digest: str, target: Target, hint: int | None = None) -> int:
        """The result's text tokens (counted once per text and model; ``hint``: the tokens
        of the client's item that holds only this result, counted already, used instead)."""
        key = f"{target.model}\0{target.correction}\0{digest}"
        found = self._counted.get(key)
        if found is None:
            found = (
                hint if hint is not None else round(target.text_tokens(text) * target.correction)
            )
            self._counted.put(key, found)
        return found

    def _base(self, text: str, digest: str, target: Target) -> _Pages:
        """``text`` drawn on cropped pages, with its exact ids (drawn once per text)."""
        assert target.geometry is not None
        key = f"{target.geometry!r}\0{target.model}\0{digest}"
        found = self._pages.get(key)
        if found is not None:
            return found
        rendering = render_document(text, target.geometry, unrenderable="keep")
        pages = tuple(cropped(p) for p in rendering.pages)
        ids = exact_ids(text)
        base = _Pages(
            pages,
            tuple(image_block(page) for page in pages),
            sum(target.image_tokens(*p.size) for p in pages),
            tuple(dict.fromkeys(ids)),
            tuple(ranked(ids)),
            tuple(span.text for span in rendering.kept if span.text),
        )
        self._pages.put(key, base)
        return base

    def _draw(
        self,
        text: str,
        digest: str,
        target: Target,
        carried: tuple[str, ...],
        left: int = 0,
        hint: int | None = None,
    ) -> Drawn:
        """The result's content: the note, its pages and the line of ``carried`` ids (of the
        rest, ``left`` are on the pages only, the others already text before it) and
        undrawable runs."""
        line = " ".join(carried)
        key = f"{target.geometry!r}\0{target.model}\0{digest}\0{left}\0{line}"
        found = self._drawn.get(key)
        if found is not None:
            return found
        base = self._base(text, digest, target)

        def count(s: str) -> int:
            return round(target.text_tokens(s) * target.correction)

        tail = "\n".join(t for t in (line, *base.kept) if t)
        content: list[dict[str, Any]] = [{"type": "text", "text": NOTE}, *base.images]
        if tail:
            content.append({"type": "text", "text": tail})
        tokens = base.image_tokens + count(NOTE) + (count(tail) if tail else 0)
        # The ids on the pages that are text: carried here, or written before the block.
        n = len(base.ids)
        drawn = Drawn(
            content,
            base.pages,
            self._tokens(text, digest, target, hint),
            tokens,
            {"on_pages": n, "as_text": n - left},
        )
        self._drawn.put(key, drawn)
        return drawn
