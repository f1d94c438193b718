"""Request bodies ↔ conversations, keeping every item the proxy does not compact.

:func:`conversation_of` reads a whole body with the package's importer of its
shape (``anthropic-messages``, ``openai-chat``, ``openai-responses``,
``gemini-content``): what the store keeps. :func:`request_conversation` is the
planner's reading of the same body, built so that every message knows which of
the client's items it stands for: the history is cut into *units* (an item, or
the items the importer joins into one turn), each imported alone (and cached by
its JSON), so a compacted conversation maps back onto the client's own items.

:func:`splice` writes a compacted conversation back into the *original* body
under the one fidelity rule (:mod:`snapshot.proxy.fidelity`): only one span of
the history is replaced by the exporter's items for what stands in it now;
every other item is the client's own JSON object, untouched (``cache_control``,
ids, ``status``, ``encrypted_content``, unknown fields and all), and so is every
other top-level field (``system``, ``instructions``, ``tools``, ``metadata``,
``prompt_cache_key``...). The verbatim head (every item before the first
assistant/model output) is never in the span; an item inside the span the
package cannot draw (a system or developer message, an unknown item type) is
never given to the ladder and stays in the body verbatim, right after what
replaced the items around it.

>>> from snapshot.proxy.shapes import ANTHROPIC
>>> body = {"model": "m", "temperature": 0.2, "metadata": {"user_id": "u"},
...         "messages": [{"role": "user", "content": [
...             {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]},
...             {"role": "system", "content": "<env>"}]}
>>> conv = request_conversation(ANTHROPIC, body, "c")
>>> spliced = splice(ANTHROPIC, body, conv, conv)
>>> spliced.body is body, spliced.replaced
(True, (2, 2))
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.proxy.fidelity import drawable, head_end, is_output
from snapshot.proxy.shapes import Shape
from snapshot.transcript.model import Conversation, ImageBlock, Message, TextBlock, ToolResult

#: ``Conversation.meta`` key of a request conversation: message id → the client items
#: ``[start, end)`` it stands for (the head's one message: the whole head).
ITEM_SPANS = "request_item_spans"
#: ``Conversation.meta`` key: where the verbatim head ends in the client's items.
HEAD_END = "request_head_end"


def conversation_of(shape: Shape, body: dict[str, Any], conv_id: str) -> Conversation:
    """The neutral conversation of a request body, by the package's importer for its shape."""
    if shape.name == "anthropic":
        from snapshot.transcript.formats.anthropic_messages import conversation_from_body

        return conversation_from_body(body, conv_id=conv_id, source="proxy request")
    if shape.name == "openai":
        from snapshot.transcript.formats.openai_chat import conversation_from_openai

        items = shape.history(body)
        if items is None:
            raise TranscriptError("request body without a 'messages' list")
        return conversation_from_openai(
            items, conv_id=conv_id, source="proxy request", where="request body"
        )
    # Responses and Gemini bodies are read by importers that stream a file.
    from snapshot.transcript.formats import ImportOptions, get_format

    fd, name = tempfile.mkstemp(prefix="snapshot-proxy-", suffix=".json")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(json.dumps(body, ensure_ascii=False).encode("utf-8"))
        [conv] = get_format(shape.import_as).load(Path(name), ImportOptions())
    finally:
        os.unlink(name)
    return replace(conv, id=conv_id, source="proxy request")


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


_SURROGATE_WHY = "a string no UTF-8 can hold (a lone surrogate escape)"


def representable(raw: bytes) -> str | None:
    """Why re-serializing ``raw`` could change a value the client sent (None: it cannot).

    The proxy re-writes a body it compacts from the parsed JSON: a duplicate key
    (JSON keeps both, a parse only the last), ``NaN``/``Infinity`` (not JSON) or a
    number a float cannot hold would come out different, so such a body goes
    upstream untouched instead.

    >>> representable(b'{"a": 1, "b": [1.5, "x"]}') is None
    True
    >>> representable(b'{"a": 1, "a": 2}')
    "duplicate key 'a'"
    >>> representable(b'{"t": 1e400}')
    "number '1e400' does not survive a round trip"
    >>> representable(b'{"t": "\\\\ud800"}')
    'a string no UTF-8 can hold (a lone surrogate escape)'
    """
    try:
        _checked_loads(raw)
    except UnicodeEncodeError:
        return _SURROGATE_WHY
    except ValueError as exc:
        return str(exc)
    return None


def parse_checked(raw: bytes) -> tuple[Any, str | None]:
    """``json.loads(raw)`` and :func:`representable`'s answer, from one parse where the body
    is representable (``--mode cost`` re-writes most requests: each body is read once, not
    twice); a ValueError when ``raw`` is not JSON at all.

    >>> parse_checked(b'{"a": [1.5, "x"]}')
    ({'a': [1.5, 'x']}, None)
    >>> parse_checked(b'{"a": 1, "a": 2}')
    ({'a': 2}, "duplicate key 'a'")
    """
    try:
        return _checked_loads(raw), None
    except UnicodeEncodeError:
        why = _SURROGATE_WHY
    except ValueError as exc:
        why = str(exc)
    return json.loads(raw), why


def _checked_loads(raw: bytes) -> Any:
    """``raw`` parsed as ``json.loads`` parses it, raising ValueError (or
    UnicodeEncodeError) where re-serializing it could change a value."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(items)
        if len(out) != len(items):  # the loop only where a key repeats (it runs per object)
            seen: set[str] = set()
            for key, _ in items:
                if key in seen:
                    raise ValueError(f"duplicate key {key!r}")
                seen.add(key)
        return out

    def number(text: str) -> float:
        value = float(text)
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"number {text!r} does not survive a round trip")
        return value

    def constant(text: str) -> Any:
        raise ValueError(f"{text} is not JSON")

    parsed = json.loads(raw, object_pairs_hook=pairs, parse_float=number, parse_constant=constant)
    # A lone surrogate can only come from a \\uD8xx-\\uDFxx escape: without one, no
    # string of the body needs the (whole-body) encoding check.
    if _SURROGATE_ESCAPE.search(raw):
        json.dumps(parsed, ensure_ascii=False).encode("utf-8")
    return parsed


# -- units: the client's items the importer reads as one turn --------------------------


def _joins_turn(shape: Shape, previous: Any, item: Any) -> bool:
    """Does ``item`` belong to the unit ``previous`` is in (the importer joins them)?"""
    if shape.name == "openai-responses":
        # Reasoning, calls and assistant text of one step are one assistant turn.
        return is_output(shape.name, previous) and is_output(shape.name, item)
    if shape.name == "gemini":
        # A call without an id takes the id of the response that answers it.
        parts = item.get("parts") if isinstance(item, Mapping) else None
        return (
            isinstance(parts, list)
            and bool(parts)
            and item.get("role", "user") == "user"
            and all(isinstance(p, Mapping) and "functionResponse" in p for p in parts)
        )
    return False


def units(shape: Shape, items: Sequence[Any]) -> list[tuple[int, int]]:
    """The client's items cut into units ``[start, end)``: one item, or a turn the
    importer joins (Responses: the items of one assistant step; Gemini: a model
    turn and the responses that answer its calls). An item the package cannot
    draw is a unit of its own.

    >>> from snapshot.proxy.shapes import OPENAI_RESPONSES
    >>> units(OPENAI_RESPONSES, [{"role": "user", "content": "t"},
    ...     {"type": "reasoning", "summary": []},
    ...     {"type": "function_call", "call_id": "c", "name": "ls", "arguments": "{}"},
    ...     {"type": "function_call_output", "call_id": "c", "output": "a"}])
    [(0, 1), (1, 3), (3, 4)]
    """
    out: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(items) + 1):
        if i == len(items):
            out.append((start, i))
            break
        prev, item = items[i - 1], items[i]
        joined = (
            _joins_turn(shape, prev, item)
            and drawable(shape.name, prev)
            and drawable(shape.name, item)
            and (shape.name != "gemini" or items[start].get("role") == "model")
        )
        if not joined:
            out.append((start, i))
            start = i
    return out


_CACHE: OrderedDict[str, tuple[Message, ...]] = OrderedDict()
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 50_000


def _imported(shape: Shape, items: Sequence[Any]) -> tuple[Message, ...]:
    """The messages the package's importer reads from ``items`` alone (cached by their JSON)."""
    text = json.dumps([shape.name, list(items)], ensure_ascii=False, sort_keys=True)
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()
    with _CACHE_LOCK:
        found = _CACHE.get(key)
        if found is not None:
            _CACHE.move_to_end(key)
            return found
    try:
        conv = conversation_of(shape, {"model": "m", shape.history_key: list(items)}, "unit")
        messages = tuple(conv.path())
    except TranscriptError:
        messages = ()
    with _CACHE_LOCK:
        _CACHE[key] = messages
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return messages


def _system_text(shape: Shape, body: Mapping[str, Any]) -> str:
    """The top-level system prompt's text (``system``, ``instructions``, ``systemInstruction``)."""
    value: Any = None
    if shape.name == "anthropic":
        value = body.get("system")
    elif shape.name == "openai-responses":
        value = body.get("instructions")
    elif shape.name == "gemini":
        found = body.get("systemInstruction") or body.get("system_instruction")
        value = found.get("parts") if isinstance(found, Mapping) else found
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(
            str(p.get("text")) for p in value if isinstance(p, Mapping) and p.get("text")
        )
    return ""


def request_conversation(
    shape: Shape, body: dict[str, Any], conv_id: str, stored: Conversation | None = None
) -> Conversation:
    """The planner's conversation of a request body: each message knows its client items.

    Its path: the top-level system prompt, the head's system-like items, the
    head's user turns as one message (the ladder keeps its head verbatim, and the
    client's head is every item before the first output), then one message or
    more per drawable unit. Units the package cannot draw after the head are left
    out (the ladder never draws them; :func:`splice` keeps them verbatim).
    ``meta[ITEM_SPANS]`` maps each message id to the items it stands for. The ids
    are the store's where the two readings agree (``stored``: the store's reading of
    ``body``, by default :func:`conversation_of`'s), so a placeholder's reference
    names a stored message.

    >>> from snapshot.proxy.shapes import OPENAI_RESPONSES
    >>> body = {"model": "gpt-6.2-sol", "input": [
    ...     {"type": "message", "role": "developer", "content": "rules"},
    ...     {"role": "user", "content": "<environment_context>"},
    ...     {"role": "user", "content": "the task"},
    ...     {"type": "function_call", "call_id": "c", "name": "ls", "arguments": "{}"},
    ...     {"type": "function_call_output", "call_id": "c", "output": "a.txt"}]}
    >>> conv = request_conversation(OPENAI_RESPONSES, body, "c")
    >>> [(m.role, m.text()) for m in conv.path()][:2]
    [('system', 'rules'), ('user', '<environment_context>\\nthe task')]
    >>> [conv.meta[ITEM_SPANS][m.id] for m in conv.path()[1:]]
    [(0, 3), (3, 4), (4, 5)]
    """
    items = shape.history(body)
    if items is None:
        raise TranscriptError(f"request body without a {shape.history_key!r} list")
    head = head_end(shape.name, items)
    head_system: list[Message] = []
    head_user: list[Message] = []
    drawn: list[tuple[tuple[int, int], Message]] = []
    for start, end in units(shape, items):
        unit = items[start:end]
        ok = start < head or all(drawable(shape.name, item) for item in unit)
        messages = _imported(shape, unit) if ok else ()
        if start < head:
            if not messages:
                # Counted as what it is, kept verbatim (the head is never replaced).
                text = json.dumps(unit, ensure_ascii=False)
                messages = (Message(f"h{start}", None, "system", (TextBlock(text),)),)
            for m in messages:
                (head_system if m.role == "system" else head_user).append(m)
            continue
        for k, m in enumerate(messages):
            drawn.append(((start, end), replace(m, id=f"i{start}.{k}")))
    ids = _store_ids(shape, body, conv_id, head_user, [m for _, m in drawn], stored)
    path: list[Message] = []
    spans: dict[str, tuple[int, int]] = {}
    system = _system_text(shape, body)
    if system:
        path.append(Message("system", None, "system", (TextBlock(system),)))
    for n, m in enumerate(head_system):
        path.append(replace(m, id=f"hs{n}"))
    if head_user:
        first = ids.get(id(head_user[0]), "head")
        blocks = tuple(b for m in head_user for b in m.blocks)
        path.append(Message(first, None, "user", blocks, dict(head_user[0].meta)))
        spans[first] = (0, head)
    for span, m in drawn:
        mid = ids.get(id(m), m.id)
        path.append(replace(m, id=mid))
        spans[mid] = span
    linked: list[Message] = []
    parent: str | None = None
    for m in path:
        linked.append(replace(m, parent=parent))
        parent = m.id
    if not linked:
        raise TranscriptError("request body without a message the package reads")
    return Conversation(
        id=conv_id,
        messages=tuple(linked),
        tip=parent,
        format=shape.import_as,
        source="proxy request",
        meta={ITEM_SPANS: spans, HEAD_END: head},
    )


def _store_ids(
    shape: Shape,
    body: dict[str, Any],
    conv_id: str,
    head_user: list[Message],
    drawn: list[Message],
    stored: Conversation | None,
) -> dict[int, str]:
    """The store's id of each message (by object identity), where the whole-body reading
    has the same non-system messages in the same order; else none (unit ids stay)."""
    mine = [*head_user, *drawn]
    try:
        read = stored if stored is not None else conversation_of(shape, body, conv_id)
    except TranscriptError:
        return {}
    whole = [m for m in read.path() if m.role != "system"]
    if len(whole) != len(mine) or any(
        a.blocks != b.blocks for a, b in zip(whole, mine, strict=True)
    ):
        return {}
    taken: set[str] = set()
    out: dict[int, str] = {}
    for a, b in zip(whole, mine, strict=True):
        if a.id in taken:
            return {}
        taken.add(a.id)
        out[id(b)] = a.id
    return out


# -- splicing ------------------------------------------------------------------------


def exported_history(shape: Shape, conv: Conversation, model: str | None) -> list[Any]:
    """The history list the package's exporter writes for ``conv`` in ``shape``."""
    from snapshot.transcript.export import export

    body = export(conv, shape.export_as, model=model).body
    items = body.get(shape.history_key) if isinstance(body, dict) else None
    return list(items) if isinstance(items, list) else []


@dataclass(frozen=True)
class Spliced:
    """The body to send, and which of the original's history items were replaced."""

    body: dict[str, Any]
    replaced: tuple[int, int]  # [start, end) of the original items replaced
    items: tuple[Any, ...]  # what stands for them


def _same(a: Message, b: Message) -> bool:
    return a.id == b.id and a.role == b.role and a.blocks == b.blocks


def splice(
    shape: Shape,
    original: dict[str, Any],
    before: Conversation,
    after: Conversation,
    model: str | None = None,
) -> Spliced:
    """``original`` with only the span of history ``after`` changed replaced.

    ``before`` is :func:`request_conversation` of ``original``; ``after`` what the
    ladder made of it (unchanged messages keep their ids and blocks). Within the
    span, a unit the ladder left alone is the client's items verbatim; one it
    changed in place (an elided result, a dropped image) is the client's items
    with just that content replaced (:func:`patch_unit`); the messages it removed
    are gone and what it added (pages, a summary) is the exporter's. Nothing
    before the first drawn unit (the system prompt, the head) is ever touched.
    """
    items = shape.history(original) or []
    if ITEM_SPANS not in before.meta:
        raise TranscriptError("splice needs the request_conversation of the original body")
    spans: Mapping[str, tuple[int, int]] = before.meta[ITEM_SPANS]
    head = int(before.meta.get(HEAD_END, 0))
    b, a = list(before.path()), list(after.path())
    front = 0
    while front < min(len(a), len(b)) and _same(a[front], b[front]):
        front += 1
    back = 0
    while back < min(len(a), len(b)) - front and _same(a[-1 - back], b[-1 - back]):
        back += 1
    first_drawn = next(
        (i for i, m in enumerate(b) if m.id in spans and spans[m.id][0] >= head), len(b)
    )
    lo = max(front, first_drawn)
    hi = max(len(b) - back, lo)
    middle = a[lo : len(a) - (len(b) - hi)]
    if lo == hi and not middle:
        return Spliced(original, (len(items), len(items)), ())
    # Whole units: widen to the first and last message of the units touched.
    while first_drawn < lo < len(b) and spans[b[lo - 1].id] == spans[b[lo].id]:
        lo -= 1
    while lo < hi < len(b) and spans[b[hi].id] == spans[b[hi - 1].id]:
        hi += 1
    middle = a[lo : len(a) - (len(b) - hi)]
    start = spans[b[lo].id][0] if lo < len(b) else len(items)
    end = spans[b[hi - 1].id][1] if hi > lo else start
    by_unit: dict[tuple[int, int], list[Message]] = {}
    for m in b[lo:hi]:
        by_unit.setdefault(spans[m.id], []).append(m)
    now = {m.id: m for m in middle}
    out: list[Any] = []
    added: list[Message] = []
    covered = {i for unit in by_unit for i in range(*unit)}
    loose = [i for i in range(start, end) if i not in covered]  # not drawable: verbatim

    def flush(upto: int) -> None:
        if added:
            linked = [
                replace(m, parent=added[k - 1].id if k else None) for k, m in enumerate(added)
            ]
            new = exported_history(shape, after.with_messages(linked, linked[-1].id), model)
            previous = out[-1] if out else (items[start - 1] if start > 0 else None)
            following = (
                items[loose[0]]
                if loose and loose[0] < upto
                else (items[min(upto, end)] if min(upto, end) < len(items) else None)
            )
            out.extend(_alternating(shape, previous, new, following))
            added.clear()
        while loose and loose[0] < upto:
            out.append(items[loose.pop(0)])

    done: set[tuple[int, int]] = set()
    for m in middle:
        unit = spans.get(m.id) if m.id in spans and any(x.id == m.id for x in b[lo:hi]) else None
        if unit is None:
            added.append(m)
            continue
        if unit in done:
            continue
        done.add(unit)
        flush(unit[0])
        olds = by_unit[unit]
        news = [now.get(x.id) for x in olds]
        client = items[unit[0] : unit[1]]
        if all(n is not None and _same(n, o) for n, o in zip(news, olds, strict=True)):
            out.extend(client)
        elif any(n is None for n in news):
            out.extend(client)  # partly drawn (never by the ladder's cut): kept whole
        else:
            patched = patch_unit(shape, client, olds, [n for n in news if n is not None])
            out.extend(client if patched is None else patched)
    flush(end + 1)
    replacement = tuple(out)
    if list(replacement) == items[start:end]:
        return Spliced(original, (len(items), len(items)), ())
    body = dict(original)
    body[shape.history_key] = [*items[:start], *replacement, *items[end:]]
    return Spliced(body, (start, end), replacement)


#: Gemini's turns must alternate (a 400 otherwise): added pages next to a client's user
#: turn get a short model turn between them rather than being merged into the client's item.
GEMINI_BRIDGE = "(The earlier steps of this session follow on the pages below.)"
GEMINI_BRIDGE_AFTER = "(The pages above hold the earlier steps; the session goes on below.)"


def _role(item: Any) -> str | None:
    return str(item.get("role", "user")) if isinstance(item, Mapping) else None


def _alternating(shape: Shape, previous: Any, new: list[Any], following: Any) -> list[Any]:
    """``new`` with a model turn on the side where Gemini would see two user turns in a row."""
    if shape.name != "gemini" or not new:
        return new
    out = list(new)
    if _role(out[0]) == "user" and _role(previous) == "user":
        out.insert(0, {"role": "model", "parts": [{"text": GEMINI_BRIDGE}]})
    if _role(out[-1]) == "user" and _role(following) == "user":
        out.append({"role": "model", "parts": [{"text": GEMINI_BRIDGE_AFTER}]})
    return out


# -- in-place changes: an elided result, a dropped image ------------------------------


def _result_text(result: ToolResult) -> str | None:
    """The new content of an elided result as text (None: it still holds an image)."""
    if any(not isinstance(c, TextBlock) for c in result.content):
        return None
    return "\n".join(c.text for c in result.content if isinstance(c, TextBlock))


def _changes(
    olds: Sequence[Message], news: Sequence[Message]
) -> tuple[list[str | None], list[str | None]] | None:
    """Per result and per image of the unit, in order: the new text, or None (unchanged).

    None when the ladder changed anything else (the unit then stays the client's)."""
    results: list[str | None] = []
    images: list[str | None] = []
    for old, new in zip(olds, news, strict=False):
        if len(old.blocks) != len(new.blocks):
            return None
        for x, y in zip(old.blocks, new.blocks, strict=True):
            if isinstance(x, ToolResult):
                if not isinstance(y, ToolResult) or y.call_id != x.call_id:
                    return None
                text = None if y == x else _result_text(y)
                if y != x and text is None:
                    return None
                results.append(text)
            elif isinstance(x, ImageBlock):
                if isinstance(y, TextBlock):
                    images.append(y.text)
                elif y == x:
                    images.append(None)
                else:
                    return None
            elif x != y:
                return None
    return results, images


def patch_unit(
    shape: Shape, client: Sequence[Any], olds: Sequence[Message], news: Sequence[Message]
) -> list[Any] | None:
    """The client's items of one unit with only the results and images the ladder
    replaced changed (copies; every other key kept). None when the change is not
    one the items can take in place.

    >>> from snapshot.proxy.shapes import OPENAI_RESPONSES
    >>> item = {"type": "custom_tool_call_output", "call_id": "c", "output": "long"}
    >>> old = Message("m", None, "tool", (ToolResult("c", (TextBlock("long"),)),))
    >>> new = replace(old, blocks=(ToolResult("c", (TextBlock("[elided]"),)),))
    >>> patch_unit(OPENAI_RESPONSES, [item], [old], [new])
    [{'type': 'custom_tool_call_output', 'call_id': 'c', 'output': '[elided]'}]
    """
    found = _changes(olds, news)
    if found is None:
        return None
    results, images = iter(found[0]), iter(found[1])
    counts = [0, 0]
    out = [_patch_item(shape.name, copy.deepcopy(item), results, images, counts) for item in client]
    if counts != [len(found[0]), len(found[1])]:
        return None  # the items hold other results or images than the messages: leave them
    return out


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _patch_item(api: str, item: Any, results: Any, images: Any, counts: list[int]) -> Any:
    """One client item with its results and images (in order) replaced where given."""
    if not isinstance(item, dict):
        return item

    def result(container: dict[str, Any], field: str, wrap: Any) -> None:
        counts[0] += 1
        text = next(results, None)
        if text is not None:
            container[field] = wrap(text)

    def image(parts: list[Any], j: int, kind: str) -> None:
        counts[1] += 1
        text = next(images, None)
        if text is not None:
            kept = (
                {"cache_control": parts[j]["cache_control"]} if "cache_control" in parts[j] else {}
            )
            parts[j] = {"type": kind, "text": text, **kept}

    if api == "anthropic":
        content = _list(item.get("content"))
        for j, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "tool_result":
                result(block, "content", lambda t: t)
            elif kind == "image":
                image(content, j, "text")
    elif api == "openai":
        if item.get("role") == "tool":
            result(item, "content", lambda t: t)
        content = _list(item.get("content"))
        for j, part in enumerate(content):
            if isinstance(part, dict) and part.get("type") == "image_url":
                image(content, j, "text")
    elif api == "openai-responses":
        if item.get("type") in ("function_call_output", "custom_tool_call_output"):
            result(item, "output", lambda t: t)
        content = _list(item.get("content") if item.get("type", "message") == "message" else None)
        for j, part in enumerate(content):
            if isinstance(part, dict) and part.get("type") == "input_image":
                image(content, j, "input_text")
    else:
        parts = _list(item.get("parts"))
        for j, part in enumerate(parts):
            if not isinstance(part, dict):
                continue
            if isinstance(part.get("functionResponse"), dict):
                result(part["functionResponse"], "response", lambda t: {"output": t})
            elif isinstance(part.get("inlineData"), dict):
                counts[1] += 1
                text = next(images, None)
                if text is not None:
                    parts[j] = {"text": text}
    return item


def undrawable_items(shape: Shape, body: dict[str, Any]) -> list[Any]:
    """The history's items after its head that no drawable unit holds: what
    :func:`request_conversation` leaves out and :func:`splice` keeps verbatim, so that a
    count of the body can add them.

    >>> from snapshot.proxy.shapes import shape_for
    >>> shape = shape_for("POST", "/v1/messages")
    >>> body = {"messages": [
    ...     {"role": "user", "content": "task"},
    ...     {"role": "assistant", "content": "ok"},
    ...     {"role": "system", "content": "<system-reminder>files changed</system-reminder>"},
    ...     {"role": "user", "content": "go on"}]}
    >>> undrawable_items(shape, body)
    [{'role': 'system', 'content': '<system-reminder>files changed</system-reminder>'}]
    """
    items = body.get(shape.history_key)
    if not isinstance(items, list):
        return []
    head = head_end(shape.name, items)
    kept: list[Any] = []
    for start, end in units(shape, items):
        unit = items[start:end]
        if start >= head and not all(drawable(shape.name, item) for item in unit):
            kept.extend(unit)
    return kept
