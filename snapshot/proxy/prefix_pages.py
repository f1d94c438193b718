"""The system prompt's long text and the tool descriptions, drawn on pages (``--policy full``).

Anthropic Messages: every system text block of at least :data:`MIN_SYSTEM_CHARS`
characters and every tool description of at least :data:`MIN_DESCRIPTION_CHARS`
is drawn on pages; in its place the body keeps a short pointer (the block's
other keys, a ``cache_control`` marker above all, stay as they were). Tool
names and ``input_schema`` are never touched, so function calling is unchanged.
The pages go in one user message inserted before the client's first turn
(:func:`insert_at`; :data:`HEADER` opens it, so :func:`snapshot.proxy.fidelity.outside_span_diff`
knows it from the body alone); after the pages, one text block carries every
exact id on them (:mod:`snapshot.ladder.exact_ids`) and any run no font
could draw. Each page is cut to the rows its text fills (:func:`cropped`): a
last page holding a few rows is billed by its area, not as a whole page (on a
recorded Claude Code session, ~1.1 k tokens a request).

Pages stay put: the message is drawn once per text (kept by the digest of the
text and the page layout, :data:`KEEP` of them), so while the system prompt and
tools are unchanged it is the same bytes request after request and the
provider's cache of it holds; the draw is not repeated (CPU).

>>> from snapshot.ladder.target import target_for
>>> body = {"model": "claude-fable-5", "system": [{"type": "text", "text": "Rules. " * 400,
...     "cache_control": {"type": "ephemeral"}}], "tools": [{"name": "Bash",
...     "description": "Run a command in a shell. " * 20, "input_schema": {"type": "object"}}],
...     "messages": [{"role": "user", "content": "hi"}]}
>>> imager = PrefixImager()
>>> done = imager.apply(body, target_for("claude-fable-5"))
>>> done.body["tools"][0]["input_schema"] == body["tools"][0]["input_schema"]
True
>>> done.body["system"][0]["cache_control"], len(done.pages) >= 1
({'type': 'ephemeral'}, True)
>>> imager.apply(body, target_for("claude-fable-5")).item == done.item  # the same bytes
True
"""

from __future__ import annotations

import base64
import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from snapshot.ladder.exact_ids import coverage, exact_index
from snapshot.ladder.target import Target
from snapshot.rendering.page import Page, render_document

__all__ = [
    "HEADER",
    "MIN_DESCRIPTION_CHARS",
    "MIN_SYSTEM_CHARS",
    "Imaged",
    "Kept",
    "PrefixImager",
    "cropped",
    "image_block",
    "insert_at",
    "is_prefix_pages",
]

MIN_SYSTEM_CHARS = 2000
MIN_DESCRIPTION_CHARS = 200
#: Drawn prefixes kept (system prompts × layouts a proxy serves at once).
KEEP = 8
_V = TypeVar("_V")
# Short on purpose: these are sent on every request (79 + 38 + 21 a tool ctok tokens before).
HEADER = (
    "[snapshot proxy: the pages below hold the system prompt's long sections and the tools' "
    "full descriptions, as plain text.]"
)
_SYSTEM_POINTER = "[System prompt section {n}: on the opening pages.]"
_TOOL_POINTER = "{name}: see the opening pages."


class Kept(Generic[_V]):
    """The last ``size`` values drawn or counted, by key (thread-safe): what is drawn once
    is never drawn again while it is kept.

    >>> kept: Kept[int] = Kept(2)
    >>> kept.put("a", 1); kept.put("b", 2); kept.get("a"); kept.put("c", 3)
    1
    >>> kept.get("b") is None, kept.get("a")
    (True, 1)
    """

    def __init__(self, size: int) -> None:
        self._values: OrderedDict[str, _V] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key: str) -> _V | None:
        with self._lock:
            found = self._values.get(key)
            if found is not None:
                self._values.move_to_end(key)
            return found

    def put(self, key: str, value: _V) -> None:
        with self._lock:
            self._values[key] = value
            while len(self._values) > self._size:
                self._values.popitem(last=False)


def image_block(page: Page) -> dict[str, Any]:
    """An Anthropic ``image`` block holding ``page`` as an inline PNG.

    >>> from snapshot.rendering.glyphs import load_font
    >>> from snapshot.rendering.geometry import Geometry
    >>> from snapshot.rendering.page import render
    >>> image_block(render("hi", Geometry(load_font("snap5x8"), 20, 4))[0])["source"]["media_type"]
    'image/png'
    """
    data = base64.b64encode(page.png()).decode("ascii")
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


def cropped(page: Page) -> Page:
    """``page`` cut to the rows its text fills (the header row kept): a short last page
    is a short image, billed by its area.

    >>> from snapshot.ladder.target import target_for
    >>> page = render_document("one line", target_for("claude-fable-5").geometry).pages[0]
    >>> cropped(page).size[1] < page.size[1], cropped(page).text == page.text
    (True, True)
    """
    g = page.geometry
    used = page.used_rows + (1 if g.header else 0)
    if used >= g.rows:
        return page
    small = replace(g, rows=used, page_size=None)
    return Page(page.number, page.total, small, page.text, page.grid[:used], page.header)


def insert_at(history: list[Any]) -> int:
    """Where the pages message goes: after the leading ``role: system`` items (Claude Code's
    environment message stays first), before the client's first turn.

    >>> insert_at([{"role": "system", "content": "<env>"}, {"role": "user", "content": "hi"}])
    1
    """
    n = 0
    while n < len(history) and isinstance(history[n], dict) and history[n].get("role") == "system":
        n += 1
    return n


def is_prefix_pages(item: Any) -> bool:
    """Is ``item`` the pages message :class:`PrefixImager` inserts (it opens with :data:`HEADER`)?

    >>> is_prefix_pages({"role": "user", "content": [{"type": "text", "text": HEADER}]})
    True
    """
    if not isinstance(item, dict) or item.get("role") != "user":
        return False
    content = item.get("content")
    if not isinstance(content, list) or not content or not isinstance(content[0], dict):
        return False
    return content[0].get("type") == "text" and content[0].get("text") == HEADER


@dataclass(frozen=True)
class Imaged:
    """A body with its prefix drawn: the pages message, its pages and what it holds."""

    body: dict[str, Any]
    item: dict[str, Any]
    pages: tuple[Page, ...]
    source: str  # the text on the pages
    system_blocks: int  # system blocks replaced by a pointer
    tool_descriptions: int  # tool descriptions replaced by a pointer
    exact_ids: dict[str, int]


@dataclass(frozen=True)
class _Drawn:
    item: dict[str, Any]
    pages: tuple[Page, ...]
    exact_ids: dict[str, int]


class PrefixImager:
    """Draws system/tool prefixes, each text once (thread-safe)."""

    def __init__(self) -> None:
        self._drawn: Kept[_Drawn] = Kept(KEEP)

    def apply(self, body: dict[str, Any], target: Target) -> Imaged | None:
        """``body`` (Anthropic Messages) with its long system text and tool descriptions on
        pages; None when there is nothing long enough or the model reads no pages."""
        if not target.vision or target.geometry is None:
            return None
        sections: list[str] = []
        new = dict(body)
        system = body.get("system")
        replaced = 0
        if isinstance(system, str) and len(system) >= MIN_SYSTEM_CHARS:
            sections.append(system)
            new["system"] = _SYSTEM_POINTER.format(n=1)
            replaced = 1
        elif isinstance(system, list):
            blocks = []
            for block in system:
                text = block.get("text") if isinstance(block, dict) else None
                if (
                    block.get("type") == "text"
                    and isinstance(text, str)
                    and len(text) >= (MIN_SYSTEM_CHARS)
                ):
                    sections.append(text)
                    replaced += 1
                    block = {**block, "text": _SYSTEM_POINTER.format(n=replaced)}
                blocks.append(block)
            if replaced:
                new["system"] = blocks
        described = []
        tools = body.get("tools")
        if isinstance(tools, list):
            out_tools = []
            for tool in tools:
                desc = tool.get("description") if isinstance(tool, dict) else None
                name = tool.get("name") if isinstance(tool, dict) else None
                if (
                    isinstance(desc, str)
                    and isinstance(name, str)
                    and len(desc) >= (MIN_DESCRIPTION_CHARS)
                ):
                    described.append(f"## Tool {name}\n{desc}")
                    tool = {**tool, "description": _TOOL_POINTER.format(name=name)}
                out_tools.append(tool)
            if described:
                new["tools"] = out_tools
        if not sections and not described:
            return None
        parts = [f"# System prompt section {i}\n{s}" for i, s in enumerate(sections, start=1)]
        if described:
            parts.append("# Tool descriptions\n" + "\n\n".join(described))
        source = "\n\n".join(parts)
        drawn = self._draw(source, target)
        history = body.get("messages")
        items = history if isinstance(history, list) else []
        at = insert_at(items)
        new["messages"] = [*items[:at], drawn.item, *items[at:]]
        return Imaged(
            new, drawn.item, drawn.pages, source, replaced, len(described), drawn.exact_ids
        )

    def _draw(self, source: str, target: Target) -> _Drawn:
        assert target.geometry is not None
        key = hashlib.sha256(f"{target.geometry!r}\0{source}".encode()).hexdigest()
        found = self._drawn.get(key)
        if found is not None:
            return found
        rendering = render_document(source, target.geometry, unrenderable="keep")
        pages = tuple(cropped(p) for p in rendering.pages)
        content: list[dict[str, Any]] = [{"type": "text", "text": HEADER}]
        content.extend(image_block(page) for page in pages)

        def count(text: str) -> int:
            return round(target.text_tokens(text) * target.correction)

        # Every exact id on the pages as text: the budget is the whole source's tokens, so
        # all of them fit (the documented rule of snapshot.ladder.exact_ids).
        index = exact_index(source, count(source), count)
        kept = [span.text for span in rendering.kept]
        tail = "\n".join(t for t in (index, *kept) if t)
        if tail:
            content.append({"type": "text", "text": tail})
        as_text, on_pages = coverage(source, index)
        drawn = _Drawn(
            {"role": "user", "content": content},
            pages,
            {"on_pages": on_pages, "as_text": as_text},
        )
        self._drawn.put(key, drawn)
        return drawn
