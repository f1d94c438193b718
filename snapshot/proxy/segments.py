"""A request body as a provider's prompt cache sees it: segments in reading order.

The provider reads the tool definitions, then the system prompt, then the
history items, and caches prefixes of that run. :func:`segments` cuts a body
into those segments, each a digest of its JSON and its tokens: text counted by
the model's own counter (exact, reconstruction or estimate: the target's label),
each PNG image by the provider's billing rule at its size (read from the PNG
header, never decoded). Counts are kept by digest, so an unchanged segment is
counted once per model however many requests carry it. A segment's text is
counted as the model reads it: each string of at least :data:`LEAF_CHARS`
characters on its own, unescaped (the counter keeps each distinct text's count,
so a tool result's text, or the exact-id line drawn beside its pages and
counted when it was priced, is counted once however many segments and requests
hold it), plus the JSON around them with those strings emptied.

``cached_through`` is where the provider's cache ends: Anthropic caches
through the client's last ``cache_control`` marker (or everything with a
top-level one), nothing without one; OpenAI and Gemini cache prefixes
implicitly.

>>> from snapshot.ladder.target import target_for
>>> body = {"model": "m", "system": "be brief", "tools": [{"name": "t", "input_schema": {}}],
...     "messages": [{"role": "user", "content": [{"type": "text", "text": "hi",
...                   "cache_control": {"type": "ephemeral"}}]}]}
>>> cut = segments(body, "anthropic", target_for("claude-opus-5"), Counts())
>>> [d.split(":")[0] for d, _ in cut.parts], cut.cached_through
(['tools', 'system', 'item'], 3)
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import struct
import threading
from dataclasses import dataclass
from typing import Any

from snapshot.ladder.target import Target
from snapshot.proxy.fidelity import HISTORY_KEYS

__all__ = ["Counts", "Cut", "Memo", "png_size", "segments"]

# A base64 PNG payload: counted by its own rule, not as text.
_BASE64 = re.compile(r"(?:data:image/png;base64,)?(iVBORw0KGgo[A-Za-z0-9+/=]{20,})")
#: Strings at least this long are counted on their own (shorter ones stay in the JSON).
LEAF_CHARS = 64
_SYSTEM = ("system", "instructions", "systemInstruction", "system_instruction")
_NOT_READ = frozenset({"model", "stream", "stream_options", "metadata", "max_tokens"})


def png_size(b64: str) -> tuple[int, int] | None:
    """(width, height) from a base64 PNG's header (None: not a PNG).

    >>> png_size(base64.b64encode(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(8) + struct.pack(">II", 7, 3)).decode())
    (7, 3)
    """
    try:
        head = base64.b64decode(b64[:32] + "=" * (-len(b64[:32]) % 4))
    except ValueError:
        return None
    if len(head) < 24 or not head.startswith(b"\x89PNG"):
        return None
    width, height = struct.unpack(">II", head[16:24])
    return int(width), int(height)


class Counts:
    """Token counts by (model, correction, digest), shared by the requests of a proxy; and
    the digests of long strings, so a string every request carries (a tool result, a page's
    base64) is hashed, not re-serialised, to know its segment again."""

    def __init__(self, limit: int = 200_000, leaf_chars: int = 64 << 20) -> None:
        self._counts: dict[tuple[str, float, str], int] = {}
        self._limit = limit
        self._leaves: dict[str, str] = {}
        self._leaf_chars = 0
        self._leaf_limit = leaf_chars
        self._lock = threading.Lock()

    def get(self, target: Target, digest: str, value: Any) -> int:
        key = (target.model, target.correction, digest)
        with self._lock:
            found = self._counts.get(key)
        if found is not None:
            return found
        tokens = _tokens(target, value)
        with self._lock:
            if len(self._counts) > self._limit:
                self._counts.clear()
            self._counts[key] = tokens
        return tokens

    def leaf(self, text: str) -> str:
        """A digest of one long string (kept: the dict's lookup hashes it, far cheaper
        than escaping it into JSON again)."""
        with self._lock:
            found = self._leaves.get(text)
        if found is None:
            found = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
            with self._lock:
                if self._leaf_chars > self._leaf_limit:
                    self._leaves.clear()
                    self._leaf_chars = 0
                self._leaves[text] = found
                self._leaf_chars += len(text)
        return found


def _tokens(target: Target, value: Any) -> int:
    """``value``'s tokens: its images by their rule, its long strings each on its own (as
    the model reads them, unescaped), the JSON around them with those strings emptied.

    >>> from snapshot.ladder.target import target_for
    >>> t = target_for("claude-opus-5")
    >>> text = "the same long tool result, line after line\\n" * 20
    >>> _tokens(t, {"content": text}) == _tokens(t, {"content": ""}) + _tokens(t, text)
    True
    """
    images = 0
    leaves: list[str] = []

    def strip(v: Any) -> Any:
        nonlocal images
        if isinstance(v, str):
            if len(v) < LEAF_CHARS:
                return v
            match = _BASE64.fullmatch(v)
            if match is not None:
                size = png_size(match.group(1))
                if size is not None:
                    images += target.image_tokens(*size) if target.vision else 0
                    return ""
            leaves.append(v)
            return ""
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items()}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v

    rest = strip(value)
    if rest != "":  # "": the value was one long string (or one image) itself
        leaves.append(json.dumps(rest, ensure_ascii=False, separators=(",", ":")))
    text = sum(target.text_tokens(t) for t in leaves)
    return images + round(text * target.correction)


@dataclass(frozen=True)
class Cut:
    """A body's segments ((digest, tokens) in reading order) and where its cache ends."""

    parts: tuple[tuple[str, int], ...]
    cached_through: int | None  # segments [0, n) cached; None: not cached at all

    @property
    def tokens(self) -> int:
        return sum(t for _, t in self.parts)

    @property
    def digests(self) -> tuple[str, ...]:
        return tuple(d for d, _ in self.parts)


def _unmarked(value: Any) -> Any:
    """``value`` without its ``cache_control`` keys.

    >>> _unmarked([{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}])
    [{'type': 'text', 'text': 'hi'}]
    """
    if isinstance(value, dict):
        return {k: _unmarked(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_unmarked(v) for v in value]
    return value


def _leaf_digests(value: Any, counts: Counts) -> Any:
    """``value`` with each string of at least :data:`LEAF_CHARS` characters replaced by a
    marked digest of it (NUL and 40 hex digits: no text a client would write).

    >>> _leaf_digests({"a": "x" * 64, "b": "y"}, Counts())["a"][:1] == "\\0"
    True
    """
    if isinstance(value, str):
        return "\0" + counts.leaf(value) if len(value) >= LEAF_CHARS else value
    if isinstance(value, dict):
        return {k: _leaf_digests(v, counts) for k, v in value.items()}
    if isinstance(value, list):
        return [_leaf_digests(v, counts) for v in value]
    return value


def _digest(kind: str, text: str) -> str:
    return kind + ":" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]


#: Segments already cut in this request, by the identity of the objects they hold (the
#: candidate bodies of one request share most of their items): (objects, digest, tokens,
#: marked). The objects are kept so their ids cannot be reused while the memo stands.
Memo = dict[tuple[Any, ...], tuple[Any, str, int, bool]]


def segments(
    body: dict[str, Any], api: str, target: Target, counts: Counts, memo: Memo | None = None
) -> Cut:
    """``body`` cut as the provider's cache reads it (see the module docstring); ``memo``
    (one per request) skips the segments an earlier cut of the request already made."""
    history_key = HISTORY_KEYS[api]
    parts: list[tuple[str, int]] = []
    marked: list[int] = []
    seen: Memo = {} if memo is None else memo

    def add(kind: str, value: Any) -> None:
        values = tuple(value.values()) if kind == "tools" else (value,)
        key = (kind, *(id(v) for v in values))
        found = seen.get(key)
        if found is None:
            # The digest: the JSON with each long string replaced by its own digest.
            text = json.dumps(
                _leaf_digests(value, counts), ensure_ascii=False, separators=(",", ":")
            )
            digest = _digest(kind, text)
            marker = '"cache_control"' in text
            # Counted without the client's cache markers (not content: Claude Code moves its
            # marker to the newest message every request, and the item it left would else be
            # counted again, ~40 % of cost mode's CPU on a recorded session).
            bare = _unmarked(value) if marker else value
            bare_digest = (
                _digest(
                    kind,
                    json.dumps(
                        _leaf_digests(bare, counts), ensure_ascii=False, separators=(",", ":")
                    ),
                )
                if marker
                else digest
            )
            counted = counts.get(target, bare_digest, bare)
            found = (values, digest, counted, marker)
            seen[key] = found
        parts.append((found[1], found[2]))
        if found[3]:
            marked.append(len(parts))

    rest = {
        k: v
        for k, v in body.items()
        if k not in _SYSTEM and k != history_key and k not in _NOT_READ
    }
    if rest:
        add("tools", rest)
    for key in _SYSTEM:
        if key in body:
            add("system", body[key])
    items = body.get(history_key)
    for item in items if isinstance(items, list) else []:
        add("item", item)
    if api != "anthropic":
        return Cut(tuple(parts), len(parts))
    if "cache_control" in body:  # automatic caching: the whole prompt
        return Cut(tuple(parts), len(parts))
    return Cut(tuple(parts), marked[-1] if marked else None)
