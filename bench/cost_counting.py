"""How the cost bench counts an Anthropic Messages body, the same way for every arm.

- **Tokens** (:func:`count_body`): the body cut into *blocks* in the order the prompt cache
  reads them (each tool definition, each system block, each content block of each message);
  a block's text counted by the package's counter for the model (``count_text_tokens``: ctok
  for Claude, a reconstruction of Claude's own count), an image by Anthropic's published rule
  (w·h/750 after fitting the long edge into 1568 px: ``snapshot.billing.schemes.AnthropicArea``).
  The API's per-message framing is not
  counted (the same few tokens a message in every arm).
- **Prompt cache** (:class:`PrefixCache`), a model, labelled so: per conversation, the longest
  run of leading blocks equal to the previous request's of the same conversation is a cache
  *read*, the rest a cache *write*; cache-weighted tokens = 0.1 x read + 1.25 x write
  (Anthropic's 5-minute cache prices relative to input). Blocks compare as JSON with
  ``cache_control`` removed (Claude Code moves its marker to the newest message every
  request; the marker is not content). It is the best case for every arm alike: as if a
  breakpoint closed every block, no minimum cacheable length, no expiry.
- **Exact-id coverage** (:func:`id_coverage`): the exact ids (``snapshot.ladder.exact_ids``:
  hex runs of >= 7 characters, UUIDs, digests, long numbers, ``path:line``) of every client
  text the upstream body no longer carries verbatim; of those, the ones still present
  somewhere in the upstream body's text are *kept*; the others are on pages only when the
  upstream body carries images the client's did not, else *dropped*.

>>> body = {"model": "claude-fable-5", "system": "You are terse.",
...         "messages": [{"role": "user", "content": "commit 9f8e7d6c2a is bad"}]}
>>> [b.tokens > 0 for b in count_body(body, "claude-fable-5")]
[True, True]
>>> cache = PrefixCache()
>>> first = cache.add("conv", count_body(body, "claude-fable-5"))
>>> second = cache.add("conv", count_body(body, "claude-fable-5"))
>>> first.read, second.write, second.read == first.write
(0, 0, True)
>>> id_coverage(body, {**body, "messages": [{"role": "user", "content": "commit 9f8e7d6c2a"}]})
IdCoverage(off_text=1, kept=1, on_pages=0, dropped=0)
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from snapshot.billing.schemes import AnthropicArea
from snapshot.errors import TranscriptError
from snapshot.ladder.exact_ids import exact_ids
from snapshot.profiles import count_text_tokens
from snapshot.transcript.image_header import image_header

CACHE_READ = 0.1
CACHE_WRITE = 1.25
_AREA = AnthropicArea()
_HEADER_B64 = 1 << 16  # base64 characters decoded for an image's header (48 KiB)


@dataclass(frozen=True)
class Block:
    """One cacheable block of a body: its key (JSON without cache markers) and its tokens."""

    key: str
    tokens: int
    image: bool = False


def image_tokens(width: int, height: int) -> int:
    """Anthropic's published rule, the package's :class:`AnthropicArea`: w·h/750 after fitting
    the long edge into 1568 px.

    >>> image_tokens(1568, 728), image_tokens(3136, 1456)
    (1522, 1522)
    """
    return int(_AREA.tokens(width, height))


def png_size(data: str) -> tuple[int, int]:
    """Width and height of a base64 image by the package's one header reader (0, 0: none)."""
    try:
        _, width, height = image_header(base64.b64decode(data[:_HEADER_B64], validate=False))
    except (ValueError, TranscriptError):
        return 0, 0
    return width, height


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _key(value: Any) -> str:
    raw = json.dumps(_strip(value), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(raw.encode()).hexdigest()


@functools.lru_cache(maxsize=65536)
def text_tokens(model: str, text: str) -> int:
    """The package's text count for ``model`` (cached: history repeats every request)."""
    return count_text_tokens(model, text).tokens if text else 0


def _texts(block: Any) -> Iterator[tuple[str, int]]:
    """(text, image tokens) pieces of one block, images as ("", tokens)."""
    if isinstance(block, str):
        yield block, 0
        return
    if not isinstance(block, dict):
        yield json.dumps(block, ensure_ascii=False), 0
        return
    kind = block.get("type")
    if kind == "text":
        yield str(block.get("text", "")), 0
    elif kind == "image":
        source = block.get("source") or {}
        w, h = png_size(str(source.get("data", "")))
        yield "", image_tokens(w, h) if w and h else 0
    elif kind == "tool_use":
        yield str(block.get("name", "")) + json.dumps(block.get("input"), ensure_ascii=False), 0
    elif kind == "tool_result":
        content = block.get("content")
        for part in content if isinstance(content, list) else [content or ""]:
            yield from _texts(part)
    elif kind == "thinking":
        yield str(block.get("thinking", "")), 0
    elif kind == "redacted_thinking":
        yield "", 0
    elif "name" in block and ("input_schema" in block or "description" in block):  # a tool
        schema = json.dumps(block.get("input_schema"), ensure_ascii=False)
        yield f"{block.get('name', '')}\n{block.get('description', '')}\n{schema}", 0
    else:
        yield json.dumps(block, ensure_ascii=False), 0


def blocks_of(body: dict[str, Any]) -> Iterator[Any]:
    """The body's blocks in prompt-cache order: tools, system, then each message's content."""
    yield from body.get("tools") or []
    system = body.get("system")
    yield from system if isinstance(system, list) else [system] if system else []
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else message
        if isinstance(content, list):
            for part in content:
                yield {"role": message.get("role"), "part": part}
        else:
            yield {
                "role": message.get("role") if isinstance(message, dict) else None,
                "part": content,
            }


def image_tokens_of(body: dict[str, Any]) -> int:
    """The tokens of ``body``'s images alone (w·h/750), the text beside them left out.

    >>> image_tokens_of({"messages": [{"role": "user", "content": "hi"}]})
    0
    """
    total = 0
    for block in blocks_of(body):
        inner = block["part"] if isinstance(block, dict) and "part" in block else block
        total += sum(img for _, img in _texts(inner))
    return total


def count_body(body: dict[str, Any], model: str) -> list[Block]:
    """Every block of ``body`` with its tokens (text by the package's counter, images w·h/750)."""
    out = []
    for block in blocks_of(body):
        inner = block["part"] if isinstance(block, dict) and "part" in block else block
        pieces = list(_texts(inner))
        tokens = sum(text_tokens(model, t) + img for t, img in pieces)
        out.append(Block(_key(block), tokens, image=any(img for _, img in pieces)))
    return out


@dataclass(frozen=True)
class CacheSplit:
    """One request under the prefix-cache model."""

    read: int
    write: int

    @property
    def total(self) -> int:
        return self.read + self.write

    @property
    def weighted(self) -> float:
        return CACHE_READ * self.read + CACHE_WRITE * self.write


class PrefixCache:
    """The prefix-cache model: per conversation, the blocks shared with its previous request
    from the front are read from the cache, the rest written (see the module's docstring)."""

    def __init__(self) -> None:
        self._last: dict[str, list[str]] = {}

    def add(self, conversation: str, blocks: list[Block]) -> CacheSplit:
        previous = self._last.get(conversation, [])
        shared = 0
        for old, new in zip(previous, blocks, strict=False):
            if old != new.key:
                break
            shared += 1
        self._last[conversation] = [b.key for b in blocks]
        read = sum(b.tokens for b in blocks[:shared])
        return CacheSplit(read, sum(b.tokens for b in blocks[shared:]))


def conversation_key(body: dict[str, Any]) -> str:
    """Which conversation a client body belongs to: its model and its first message.

    >>> a = {"model": "m", "messages": [{"role": "user", "content": "go"}]}
    >>> conversation_key(a) == conversation_key({**a, "system": "x"})
    True
    """
    messages = body.get("messages") or [None]
    return f"{body.get('model')}/{_key(messages[0])[:16]}"


def text_units(body: dict[str, Any]) -> list[str]:
    """Every text the model reads in ``body``: system, tool descriptions, message texts, tool
    inputs and results (images and signatures left out)."""
    units: list[str] = []
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("description"):
            units.append(str(tool["description"]))
    for block in blocks_of(body):
        if isinstance(block, dict) and "part" in block:
            inner = block["part"]
        elif isinstance(block, dict) and "name" in block and "input_schema" in block:
            continue  # a tool: its description is above
        else:
            inner = block
        units += [t for t, _ in _texts(inner) if t]
    return units


def count_images(body: dict[str, Any]) -> int:
    return sum(1 for b in blocks_of(body) for _, img in _texts(_inner(b)) if img)


def _inner(block: Any) -> Any:
    return block["part"] if isinstance(block, dict) and "part" in block else block


@dataclass(frozen=True)
class IdCoverage:
    """Distinct exact ids in the client texts the upstream body no longer carries verbatim."""

    off_text: int  # ids in those texts
    kept: int  # of them, still present as text somewhere upstream
    on_pages: int  # not as text, the upstream body carrying new images
    dropped: int  # not as text and no new images: gone (cleared, elided)


def moved_texts(client: dict[str, Any], upstream: dict[str, Any]) -> list[str]:
    """The client's texts the upstream body does not carry verbatim (drawn, cleared, elided).

    >>> moved_texts({"system": "a", "messages": []}, {"system": "b", "messages": []})
    ['a']
    """
    kept_units = set(text_units(upstream))
    return [u for u in text_units(client) if u not in kept_units]


def id_coverage(client: dict[str, Any], upstream: dict[str, Any]) -> IdCoverage:
    """The exact-id coverage of one request (see the module's docstring)."""
    kept_units = set(text_units(upstream))
    moved = moved_texts(client, upstream)
    ids = {i for u in moved for i in exact_ids(u)}
    if not ids:
        return IdCoverage(0, 0, 0, 0)
    text = "\n".join(kept_units)
    kept = {i for i in ids if i in text}
    lost = len(ids) - len(kept)
    paged = count_images(upstream) > count_images(client)
    return IdCoverage(len(ids), len(kept), lost if paged else 0, 0 if paged else lost)
