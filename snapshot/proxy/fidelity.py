"""The fidelity rule: outside the span it compacts, the upstream body is the client's.

A proxy is invisible. The body it sends upstream is the client's body with one
contiguous span of the history replaced (pages, placeholders, elided results);
every other field and every item outside that span is the client's JSON, byte
for byte, whatever the package understands of it. This module says which items
the package can draw (:func:`drawable`), where the verbatim head ends
(:func:`head_end`: every item before the first assistant/model output) and
checks a pair of bodies against the rule (:func:`outside_span_diff`).

The span of a pair is read from the bodies alone: the longest run of items the
two share at the front and at the back (compared as serialized JSON, so a
re-ordered key is a difference) bounds it. Outside it nothing may differ; the
head must lie wholly before it; inside it every item the package cannot draw
must still be in the upstream body verbatim; and no ``cache_control`` marker
may appear in what replaced the span (a client's markers are never moved or
multiplied).

``--mode cost`` with ``--policy full`` also images a *prefix* (Anthropic
Messages, :mod:`snapshot.proxy.prefix_pages`): an upstream history that opens
with the pages message (its :data:`~snapshot.proxy.prefix_pages.HEADER`) the
client did not send may differ from the client's in the text of system blocks
and in tool descriptions only; every other key of every system block and tool
(names, ``input_schema``, markers) and their number and order stay the
client's, the pages message carries no marker, and the rest of the history is
checked as above.

``--mode cost`` also draws closed tool results *in place*
(:mod:`snapshot.proxy.inplace`): a ``tool_result`` block whose content opens with
its :data:`~snapshot.proxy.inplace.NOTE` is checked against the client's block
of the same ``tool_use_id`` (every key but ``content`` the same, in order, no
marker in what was drawn) and then put back as the client's; drawing in place
is then the whole change to the history (every item, restored, is the client's),
and the fields are compared as above.

>>> client = {"model": "m", "system": "s", "messages": [
...     {"role": "user", "content": "task"},
...     {"role": "assistant", "content": "step 1"},
...     {"role": "system", "content": "<env>"},
...     {"role": "user", "content": "result 1"},
...     {"role": "assistant", "content": "step 2"}]}
>>> good = {**client, "messages": [client["messages"][0],
...     {"role": "user", "content": "[pages]"}, client["messages"][2],
...     client["messages"][4]]}
>>> outside_span_diff(client, good, "anthropic")
[]
>>> bad = {**good, "system": "other", "messages": [client["messages"][0],
...     {"role": "user", "content": [{"type": "text", "text": "[pages]",
...      "cache_control": {"type": "ephemeral"}}]}, client["messages"][4]]}
>>> for line in outside_span_diff(client, bad, "anthropic"):
...     print(line)
system: changed
messages[2]: an item the package cannot draw (role 'system') was dropped from the span
messages: the replacement adds a cache_control marker (1 in the span's place)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

#: The history key of each API (the name the ledger and :class:`~snapshot.proxy.shapes.Shape` use).
HISTORY_KEYS = {
    "anthropic": "messages",
    "openai": "messages",
    "openai-responses": "input",
    "gemini": "contents",
}

_ANTHROPIC_BLOCKS = frozenset(
    {"text", "image", "tool_use", "tool_result", "thinking", "redacted_thinking"}
)
_CHAT_PARTS = frozenset({"text", "image_url"})
_RESPONSES_PARTS = frozenset({"input_text", "output_text", "text", "input_image", "refusal"})
# Items of the Responses API the package draws (reasoning: its summary; the encrypted
# content is the provider's own state of a turn the span no longer holds).
_RESPONSES_ITEMS = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "reasoning",
    }
)
# Responses items the model produces: the first of them ends the verbatim head.
_RESPONSES_OUTPUTS = frozenset(
    {
        "reasoning",
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "computer_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
    }
)
_GEMINI_PARTS = frozenset({"text", "inlineData", "functionCall", "functionResponse"})
_GEMINI_PART_EXTRAS = frozenset({"thought", "thoughtSignature"})


def _tag(value: Any) -> str | None:
    """A type or role tag as the sets compare it (a malformed one: None, never a crash)."""
    return value if isinstance(value, str) else None


def _history(body: Any, api: str) -> list[Any]:
    items = body.get(HISTORY_KEYS[api]) if isinstance(body, Mapping) else None
    return items if isinstance(items, list) else []


def is_output(api: str, item: Any) -> bool:
    """Is ``item`` an assistant/model output (the first one ends the verbatim head)?

    >>> is_output("openai-responses", {"type": "reasoning", "encrypted_content": "x"})
    True
    >>> is_output("gemini", {"role": "user", "parts": [{"text": "hi"}]})
    False
    """
    if not isinstance(item, Mapping):
        return False
    if api == "gemini":
        return item.get("role") == "model"
    if api == "openai-responses":
        kind = item.get("type", "message")
        return _tag(kind) in _RESPONSES_OUTPUTS or (
            kind == "message" and item.get("role") == "assistant"
        )
    return item.get("role") == "assistant"


def head_end(api: str, items: list[Any]) -> int:
    """Index just past the verbatim head: every item before the first assistant/model output.

    >>> head_end("openai-responses", [{"type": "message", "role": "developer", "content": "d"},
    ...     {"role": "user", "content": "<environment_context>"}, {"role": "user", "content": "task"},
    ...     {"type": "reasoning", "summary": []}])
    3
    """
    return next((i for i, item in enumerate(items) if is_output(api, item)), len(items))


def why_not_drawable(api: str, item: Any) -> str | None:
    """Why the package cannot draw ``item`` (None: it can).

    Drawing means the package's importer reads all the item says that a model
    reads: system and developer messages, unknown roles, item and block types
    are not drawn, wherever they stand.

    >>> why_not_drawable("anthropic", {"role": "system", "content": "<env>"})
    "role 'system'"
    >>> why_not_drawable("openai-responses", {"type": "additional_tools", "tools": []})
    "type 'additional_tools'"
    >>> why_not_drawable("openai-responses", {"type": "reasoning", "encrypted_content": "x",
    ...     "summary": [{"type": "summary_text", "text": "plan"}]}) is None
    True
    """
    if not isinstance(item, Mapping):
        return "not an object"
    if api == "anthropic":
        return _anthropic(item)
    if api == "openai":
        return _chat(item)
    if api == "openai-responses":
        return _responses(item)
    return _gemini(item)


def drawable(api: str, item: Any) -> bool:
    """Can the package draw ``item`` (see :func:`why_not_drawable`)?

    >>> drawable("openai", {"role": "developer", "content": "rules"})
    False
    """
    return why_not_drawable(api, item) is None


def _anthropic(item: Mapping[str, Any]) -> str | None:
    if item.get("role") not in ("user", "assistant"):
        return f"role {item.get('role')!r}"
    content = item.get("content")
    if isinstance(content, str):
        return None
    if not isinstance(content, list):
        return "content neither text nor blocks"
    for block in content:
        kind = block.get("type") if isinstance(block, Mapping) else None
        if _tag(kind) not in _ANTHROPIC_BLOCKS:
            return f"block {kind!r}"
        if kind == "image" and (block.get("source") or {}).get("type") != "base64":
            return "image not inline"
        if kind == "tool_result" and isinstance(block.get("content"), list):
            for part in block["content"]:
                inner = part.get("type") if isinstance(part, Mapping) else None
                if inner not in ("text", "image"):
                    return f"tool_result part {inner!r}"
    return None


def _chat(item: Mapping[str, Any]) -> str | None:
    if item.get("role") not in ("user", "assistant", "tool"):
        return f"role {item.get('role')!r}"
    content = item.get("content")
    if content is None or isinstance(content, str):
        return None
    if not isinstance(content, list):
        return "content neither text nor parts"
    for part in content:
        kind = part.get("type") if isinstance(part, Mapping) else None
        if _tag(kind) not in _CHAT_PARTS:
            return f"part {kind!r}"
    return None


def _responses(item: Mapping[str, Any]) -> str | None:
    kind = item.get("type", "message")
    if _tag(kind) not in _RESPONSES_ITEMS:
        return f"type {kind!r}"
    if kind == "message":
        if item.get("role") not in ("user", "assistant"):
            return f"role {item.get('role')!r}"
        content = item.get("content")
        if isinstance(content, list):
            for part in content:
                inner = part.get("type") if isinstance(part, Mapping) else None
                if _tag(inner) not in _RESPONSES_PARTS:
                    return f"part {inner!r}"
    return None


def _gemini(item: Mapping[str, Any]) -> str | None:
    if item.get("role", "user") not in ("user", "model"):
        return f"role {item.get('role')!r}"
    parts = item.get("parts")
    if not isinstance(parts, list):
        return "no parts"
    for part in parts:
        if not isinstance(part, Mapping):
            return "a part not an object"
        keys = set(part) - _GEMINI_PART_EXTRAS
        if len(keys) != 1 or not keys <= _GEMINI_PARTS:
            return "part " + "/".join(sorted(keys))
    return None


def _text(value: Any) -> str:
    """The JSON the proxy writes for a value (key order kept: a re-ordered key differs)."""
    return json.dumps(value, ensure_ascii=False)


def _markers(value: Any) -> int:
    """``cache_control`` markers anywhere in ``value``."""
    if isinstance(value, Mapping):
        return int("cache_control" in value) + sum(_markers(v) for v in value.values())
    if isinstance(value, list):
        return sum(_markers(v) for v in value)
    return 0


_PREFIX_FIELDS = ("system", "tools")


def _imaged_prefix(
    client_body: Mapping[str, Any], upstream_body: Mapping[str, Any], api: str
) -> int | None:
    """Where the upstream history holds prefix pages the client did not send (None: nowhere)."""
    from snapshot.proxy.prefix_pages import insert_at, is_prefix_pages

    if api != "anthropic":
        return None
    theirs = _history(upstream_body, api)
    ours = _history(client_body, api)
    at = insert_at(ours)
    if at >= len(theirs) or not is_prefix_pages(theirs[at]):
        return None
    return None if at < len(ours) and is_prefix_pages(ours[at]) else at


def _prefix_diff(
    client_body: Mapping[str, Any], upstream_body: Mapping[str, Any], at: int
) -> list[str]:
    """What differs in the system prompt and tools beyond block texts and tool descriptions."""
    out: list[str] = []
    first = _history(upstream_body, "anthropic")[at]
    if _markers(first):
        out.append(f"messages[{at}]: the prefix pages carry a cache_control marker")
    for field, free in (("system", "text"), ("tools", "description")):
        ours, theirs = client_body.get(field), upstream_body.get(field)
        if (field in client_body) != (field in upstream_body):
            out.append(f"{field}: {'dropped' if field in client_body else 'added'}")
        elif isinstance(ours, str) and isinstance(theirs, str) and field == "system":
            continue
        elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
            for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
                if not isinstance(a, Mapping) or not isinstance(b, Mapping):
                    if _text(a) != _text(b):
                        out.append(f"{field}[{i}]: changed")
                    continue
                rest_a = {k: v for k, v in a.items() if k != free}
                rest_b = {k: v for k, v in b.items() if k != free}
                if _text(rest_a) != _text(rest_b) or list(a) != list(b):
                    out.append(f"{field}[{i}]: changed beyond its {free}")
        elif _text(ours) != _text(theirs):
            out.append(f"{field}: changed")
    return out


def _restore_imaged(ours: list[Any], theirs: list[Any]) -> tuple[list[Any] | None, list[str]]:
    """``theirs`` with each tool result drawn in place (:mod:`snapshot.proxy.inplace`) put
    back as the client sent it, and what was wrong with any of them (None: none drawn).

    A drawn block may differ from the client's block with its ``tool_use_id`` in its
    ``content`` only, and only where the client's content was text the package draws;
    every other key and their order are checked here, the block's place by the caller's
    diff once it is restored. Its content carries no ``cache_control`` marker."""
    from snapshot.proxy.inplace import is_imaged

    if not any(
        is_imaged(b)
        for item in theirs
        if isinstance(item, Mapping) and isinstance(item.get("content"), list)
        for b in item["content"]
    ):
        return None, []
    client_blocks: dict[str, Mapping[str, Any]] = {}
    for item in ours:
        content = item.get("content") if isinstance(item, Mapping) else None
        for b in content if isinstance(content, list) else []:
            if isinstance(b, Mapping) and b.get("type") == "tool_result":
                client_blocks.setdefault(str(b.get("tool_use_id")), b)
    problems: list[str] = []
    out: list[Any] = []
    for i, item in enumerate(theirs):
        content = item.get("content") if isinstance(item, Mapping) else None
        if not isinstance(content, list) or not any(is_imaged(b) for b in content):
            out.append(item)
            continue
        blocks = []
        for j, b in enumerate(content):
            if not is_imaged(b):
                blocks.append(b)
                continue
            where = f"messages[{i}].content[{j}]"
            theirs_id = b.get("tool_use_id")
            mine = client_blocks.get(str(theirs_id))
            if mine is None:
                problems.append(f"{where}: a drawn tool result the client did not send")
                blocks.append(b)
                continue
            if _markers(b.get("content")):
                problems.append(f"{where}: a drawn tool result carries a cache_control marker")
            rest_mine = {k: v for k, v in mine.items() if k != "content"}
            rest_theirs = {k: v for k, v in b.items() if k != "content"}
            if is_imaged(mine) or list(mine) != list(b) or _text(rest_mine) != _text(rest_theirs):
                problems.append(f"{where}: drawn beyond its content")
            blocks.append(mine)
        out.append({k: (blocks if k == "content" else v) for k, v in item.items()})
    return out, problems


def outside_span_diff(client_body: Any, upstream_body: Any, api: str) -> list[str]:
    """What differs between the two bodies outside the compacted span (empty: only the span).

    ``api`` is ``anthropic``, ``openai`` (chat), ``openai-responses`` or
    ``gemini``. Each entry names the path and what changed (see the module
    docstring for the rule and an example).
    """
    key = HISTORY_KEYS[api]
    out: list[str] = []
    if not isinstance(client_body, Mapping) or not isinstance(upstream_body, Mapping):
        return ["$: a body is not a JSON object"]
    prefix = _imaged_prefix(client_body, upstream_body, api)
    if prefix is not None:
        out.extend(_prefix_diff(client_body, upstream_body, prefix))
        theirs = _history(upstream_body, api)
        upstream_body = {**upstream_body, key: [*theirs[:prefix], *theirs[prefix + 1 :]]}
    if api == "anthropic":
        restored, problems = _restore_imaged(
            _history(client_body, api), _history(upstream_body, api)
        )
        out.extend(problems)
        if restored is not None:
            upstream_body = {**upstream_body, key: restored}
            # Drawing in place is the whole change to the history: no span besides it.
            ours_items = _history(client_body, api)
            if len(ours_items) != len(restored):
                out.append(
                    f"{key}: {len(restored)} items beside results drawn in place, "
                    f"the client sent {len(ours_items)}"
                )
            else:
                out.extend(
                    f"{key}[{i}]: changed beyond the results drawn in place"
                    for i, (a, b) in enumerate(zip(ours_items, restored, strict=True))
                    if _text(a) != _text(b)
                )
    for field in dict.fromkeys([*client_body, *upstream_body]):
        if field == key or (prefix is not None and field in _PREFIX_FIELDS):
            continue
        if field not in upstream_body:
            out.append(f"{field}: dropped")
        elif field not in client_body:
            out.append(f"{field}: added")
        elif _text(client_body[field]) != _text(upstream_body[field]):
            out.append(f"{field}: changed")
    if list(client_body) != list(upstream_body) and not out:
        out.append("$: top-level fields re-ordered")
    ours = [_text(i) for i in _history(client_body, api)]
    theirs = [_text(i) for i in _history(upstream_body, api)]
    front = 0
    while front < min(len(ours), len(theirs)) and ours[front] == theirs[front]:
        front += 1
    back = 0
    while (
        back < min(len(ours), len(theirs)) - front
        and ours[len(ours) - 1 - back] == theirs[len(theirs) - 1 - back]
    ):
        back += 1
    if front == len(ours) == len(theirs):
        return out
    client_items = _history(client_body, api)
    head = head_end(api, client_items)
    if front < head:
        out.append(f"{key}[{front}]: inside the verbatim head (it ends at {head}) but changed")
    replacement = theirs[front : len(theirs) - back]
    kept = set(replacement)
    for i in range(front, len(ours) - back):
        why = why_not_drawable(api, client_items[i])
        if why is not None and ours[i] not in kept:
            out.append(
                f"{key}[{i}]: an item the package cannot draw ({why}) was dropped from the span"
            )
    client_json = set(ours)
    upstream_items = _history(upstream_body, api)[front : len(theirs) - back]
    added = sum(_markers(i) for i in upstream_items if _text(i) not in client_json)
    if added:
        out.append(
            f"{key}: the replacement adds a cache_control marker ({added} in the span's place)"
        )
    return out
