"""Exporters: a conversation's live path → provider request bodies, or Markdown.

Every body is one a provider accepts as is:

- every tool call is answered, right after the assistant turn that made it
  (Anthropic: ``tool_result`` blocks first in the next user message; OpenAI
  chat: ``role: tool`` messages right after the assistant's ``tool_calls``;
  Responses: ``function_call_output`` items; Gemini: ``functionResponse``
  parts in the next user turn);
- no result without its call; roles in the order the provider wants
  (Anthropic and Gemini: alternating, consecutive same-role turns merged).

Real logs break these rules (a run killed mid-call, a result logged after the
user interrupted, ids another provider would reject), so the exporter repairs
them the way the providers require and says so: a call without a result gets
a synthetic error result carrying the call's own id; a result without a call
becomes a text note; an id or tool name outside the provider's character set
is replaced by a stable derived one. Each repair is one line in
:attr:`Export.notes`; nothing is changed silently.

Gemini 3 refuses a function call of the current turn without a
``thoughtSignature``: a signature the source recorded (a Gemini history) is
sent back unchanged, and a call Gemini did not make carries the dummy value
Google documents for that case (noted). Responses function tools carry the
``strict`` flag the API requires, and earlier assistant text goes as an input
message.

Images go as base64 blocks (Anthropic), data URLs (OpenAI) or inline data
(Gemini); an image whose file is missing or whose type a provider does not
take becomes a text note (and a note).

>>> from snapshot.transcript.model import linear, TextBlock, ToolCall
>>> conv = linear("c", [("u", "user", [TextBlock("hi")]),
...                     ("a", "assistant", [ToolCall("t1", "ls", {})])])
>>> out = export_anthropic(conv)
>>> [m["role"] for m in out.body["messages"]]
['user', 'assistant', 'user']
>>> out.notes
('a: tool call t1 (ls) has no result; answered with a synthetic error result',)
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from snapshot.errors import TranscriptError
from snapshot.transcript.images import ImageRefused, image_roots, read_image
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)
from snapshot.transcript.validate.rules import GEMINI_SIGNATURE_SENTINEL

# Placeholders for the body's model field; the caller names the real model.
DEFAULT_MODEL = {
    "anthropic": "claude-sonnet-4-5",
    "openai": "gpt-4o",
    "openai-responses": "gpt-4o",
}
DEFAULT_MAX_TOKENS = 4096

SYNTHETIC_RESULT = "[no result was recorded for this tool call; added on export]"

# What an assistant turn that held only thinking says where the target has no
# field for thinking (an empty assistant message is refused).
THINKING_LEFT_OUT = "[thinking not included]"

# Message meta key: {call id: Gemini thoughtSignature} as the source recorded them.
THOUGHT_SIGNATURES = "thought_signatures"

# Media types all three providers take for images.
IMAGE_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})

# Ids and names every provider accepts: Anthropic's tool_use id charset, OpenAI's
# 40-character limit on tool_call ids, and the common 64-character function-name rule.
_ID_OK = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_NAME_OK = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

TARGETS = ("anthropic", "openai", "openai-responses", "gemini", "markdown")


@dataclass(frozen=True)
class Export:
    """An exported body (a dict for request bodies, a str for Markdown) and its repair notes."""

    body: Any
    notes: tuple[str, ...] = ()
    # Exported ids of the calls answered by a synthetic error result (the log has none).
    synthetic_results: tuple[str, ...] = ()


# --- the plan: the path cut into assistant turns and the windows answering them ---------


@dataclass
class _Assistant:
    blocks: list[Block]
    ids: list[str]


@dataclass
class _Window:
    """What the user/tool/system side says between two assistant turns.

    ``results``: one per tool call of the preceding assistant turn, in call
    order (synthetic where the log has none). ``items``: the rest, in order,
    as ``(role, blocks)`` with role ``user`` or ``system``.
    """

    results: list[ToolResult] = field(default_factory=list)
    items: list[tuple[Literal["user", "system"], list[Block]]] = field(default_factory=list)

    def empty(self) -> bool:
        return not self.results and not any(blocks for _, blocks in self.items)


@dataclass
class _Plan:
    system: list[str]
    turns: list[_Assistant | _Window]
    notes: list[str]
    tool_names: dict[str, None]  # exported names, first-use order
    call_names: dict[str, str]  # exported call id -> exported tool name
    # exported call id -> the Gemini thoughtSignature the source recorded for it
    signatures: dict[str, str] = field(default_factory=dict)
    synthetic: list[str] = field(default_factory=list)


def _nonempty(block: Block) -> bool:
    return not isinstance(block, TextBlock) or bool(block.text.strip())


class _Planner:
    def __init__(self, conv: Conversation) -> None:
        self.conv = conv
        self.notes: list[str] = []
        self.used_ids: set[str] = set()
        self.name_map: dict[str, str] = {}
        self.tool_names: dict[str, None] = {}
        self.call_names: dict[str, str] = {}
        self.signatures: dict[str, str] = {}
        self.synthetic: list[str] = []
        self.dropped_empty = 0

    def export_id(self, orig: str, where: str) -> str:
        new = orig
        if not _ID_OK.match(orig) or orig in self.used_ids:
            n = 0
            while True:
                digest = hashlib.sha1(f"{orig}|{n}".encode()).hexdigest()[:24]
                new = f"call_{digest}"
                if new not in self.used_ids:
                    break
                n += 1
            why = (
                "is used twice"
                if orig in self.used_ids
                else "has characters or a length providers reject"
            )
            self.notes.append(f"{where}: tool call id {orig!r} {why}; exported as {new}")
        self.used_ids.add(new)
        return new

    def export_name(self, name: str) -> str:
        if name in self.name_map:
            return self.name_map[name]
        new = name
        if not _NAME_OK.match(name):
            new = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "tool"
            self.notes.append(
                f"tool name {name!r} is not a valid function name; exported as {new!r}"
            )
        self.name_map[name] = new
        self.tool_names[new] = None
        return new

    def plan(self) -> _Plan:
        path = self.conv.path()
        system: list[str] = []
        turns: list[_Assistant | _Window] = []
        window = _Window()
        turns.append(window)
        # orig call id -> exported ids still waiting for a result (FIFO for duplicates)
        open_calls: dict[str, list[str]] = {}
        call_order: list[str] = []
        answered: dict[str, ToolResult] = {}
        last_assistant: _Assistant | None = None
        reordered = False
        start = 0
        while start < len(path) and path[start].role == "system":
            for b in path[start].blocks:
                if isinstance(b, TextBlock) and b.text.strip():
                    system.append(b.text)
                elif _nonempty(b):
                    self.notes.append(
                        f"{path[start].id}: a {type(b).__name__} in a system message cannot be "
                        "exported there; left out"
                    )
            start += 1

        def close_window() -> None:
            nonlocal reordered
            if last_assistant is None:
                return
            for cid in call_order:
                result = answered.get(cid)
                if result is None:
                    name = self.call_names.get(cid, "?")
                    self.notes.append(
                        f"{last_assistant.ids[-1]}: tool call {cid} ({name}) has no result; "
                        "answered with a synthetic error result"
                    )
                    result = ToolResult(cid, (TextBlock(SYNTHETIC_RESULT),), is_error=True)
                    self.synthetic.append(cid)
                window.results.append(result)
            reordered = False

        for msg in path[start:]:
            if msg.role == "assistant":
                blocks = self.assistant_blocks(msg)
                if not blocks:
                    self.notes.append(f"{msg.id}: assistant message with no content left out")
                    continue
                if (
                    last_assistant is not None
                    and turns[-1] is window
                    and window.empty()
                    and not answered
                ):
                    # Nothing was said since the previous assistant turn: it is the same
                    # turn (a response logged in pieces); its calls stay open.
                    turns.pop()
                    target = last_assistant
                else:
                    close_window()
                    target = _Assistant([], [])
                    turns.append(target)
                    open_calls, call_order, answered = {}, [], {}
                signed = msg.meta.get(THOUGHT_SIGNATURES)
                for b in blocks:
                    if isinstance(b, ToolCall):
                        new = self.export_id(b.id, msg.id)
                        name = self.export_name(b.name)
                        self.call_names[new] = name
                        if isinstance(signed, Mapping) and isinstance(signed.get(b.id), str):
                            self.signatures[new] = signed[b.id]
                        open_calls.setdefault(b.id, []).append(new)
                        call_order.append(new)
                        b = ToolCall(new, name, dict(b.input))
                    target.blocks.append(b)
                target.ids.append(msg.id)
                last_assistant = target
                window = _Window()
                turns.append(window)
                continue
            role: Literal["user", "system"] = "system" if msg.role == "system" else "user"
            item: list[Block] = []
            for b in msg.blocks:
                if isinstance(b, ToolResult):
                    waiting = open_calls.get(b.call_id)
                    if waiting:
                        cid = waiting.pop(0)
                        answered[cid] = ToolResult(cid, b.content, b.is_error)
                        if (window.items or item) and not reordered:
                            reordered = True
                            self.notes.append(
                                f"{msg.id}: tool results moved before other content of the turn "
                                "(providers want results first)"
                            )
                        continue
                    self.notes.append(
                        f"{msg.id}: tool result for {b.call_id} has no call in the preceding "
                        "assistant turn; exported as text"
                    )
                    item.extend(_orphan_blocks(b))
                elif isinstance(b, ThinkingBlock):
                    self.notes.append(
                        f"{msg.id}: thinking in a {msg.role} message exported as text"
                    )
                    item.append(TextBlock(b.text))
                elif isinstance(b, ToolCall):
                    self.notes.append(
                        f"{msg.id}: tool call {b.id} in a {msg.role} message cannot be sent as a "
                        "call; exported as text"
                    )
                    item.append(TextBlock(f"[tool call {b.name}: {b.arguments_json()}]"))
                elif _nonempty(b):
                    item.append(b)
                else:
                    self.dropped_empty += 1
            if item:
                window.items.append((role, item))
        close_window()
        if self.dropped_empty:
            self.notes.append(f"{self.dropped_empty} empty text block(s) left out")
        return _Plan(
            system,
            turns,
            self.notes,
            self.tool_names,
            self.call_names,
            self.signatures,
            self.synthetic,
        )

    def assistant_blocks(self, msg: Message) -> list[Block]:
        out: list[Block] = []
        for b in msg.blocks:
            if isinstance(b, ToolResult):
                self.notes.append(
                    f"{msg.id}: tool result for {b.call_id} inside an assistant message; "
                    "exported as text"
                )
                out.extend(_orphan_blocks(b))
            elif _nonempty(b):
                out.append(b)
            else:
                self.dropped_empty += 1
        return out


def _orphan_blocks(result: ToolResult) -> list[Block]:
    label = "error result" if result.is_error else "result"
    out: list[Block] = [TextBlock(f"[tool {label} for call {result.call_id}]\n{result.text()}")]
    out.extend(result.images())
    return out


def _plan(conv: Conversation) -> _Plan:
    from snapshot.transcript.rewind_notes import with_rewind_notes

    return _Planner(with_rewind_notes(conv)).plan()


def _tool_schemas(conv: Conversation) -> dict[str, tuple[str, dict[str, Any]]]:
    """Known tool definitions (name → description, JSON schema) from the conversation's meta."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    tools = conv.meta.get("tools")
    if not isinstance(tools, list):
        return out
    for t in tools:
        if not isinstance(t, Mapping):
            continue
        fn = t.get("function") if isinstance(t.get("function"), Mapping) else t
        assert isinstance(fn, Mapping)
        name = fn.get("name")
        schema = fn.get("parameters") or fn.get("input_schema")
        if isinstance(name, str) and isinstance(schema, Mapping) and schema.get("type") == "object":
            out[name] = (str(fn.get("description") or ""), dict(schema))
    return out


def _tool_definitions(
    conv: Conversation, names: Iterable[str]
) -> list[tuple[str, str, dict[str, Any]]]:
    """``(name, description, schema)`` for each exported tool name, in the order given.

    A tool the conversation's meta does not define gets a bare object schema
    (a fresh one each, so no two tools of a body share a dict).
    """
    known = _tool_schemas(conv)
    out: list[tuple[str, str, dict[str, Any]]] = []
    for name in names:
        description, schema = known.get(name) or (
            "Recovered from the transcript; the original definition was not recorded.",
            {"type": "object"},
        )
        out.append((name, description, schema))
    return out


def _nothing_to_export(conv: Conversation) -> TranscriptError:
    return TranscriptError(f"conversation {conv.id!r} has no user or assistant content to export")


def _add_turn(
    turns: list[dict[str, Any]], role: str, key: str, parts: list[dict[str, Any]]
) -> None:
    """Append a turn, or extend the last one if it has the same role.

    For the APIs that want user and assistant turns to alternate (Anthropic,
    Gemini); ``key`` is where a turn keeps its parts there.
    """
    if not parts:
        return
    if turns and turns[-1]["role"] == role:
        turns[-1][key].extend(parts)
    else:
        turns.append({"role": role, key: parts})


def _images_after_results(
    results: Sequence[ToolResult], after: str, notes: list[str]
) -> list[Block]:
    """The images tool results returned, to follow the results in a user message.

    For the OpenAI APIs, whose tool results take only text; each result with
    images gets a note saying they were moved ``after`` the results.
    """
    returned: list[Block] = []
    for r in results:
        if r.images():
            notes.append(
                f"result {r.call_id}: {len(r.images())} image(s) sent in a user message after {after}"
            )
            returned.append(TextBlock(f"[images returned by tool call {r.call_id}]"))
            returned.extend(r.images())
    return returned


class _Images:
    """Loads image bytes for export, turning unusable images into notes."""

    def __init__(self, notes: list[str], conv: Conversation) -> None:
        self.notes = notes
        self.roots, self.refused = image_roots(conv), dict[int, str]()  # only from its folder

    def payload(self, img: ImageBlock, where: str) -> tuple[str, str] | None:
        """``(media type, base64)`` or None (a note was added)."""
        if img.media_type not in IMAGE_MEDIA_TYPES:
            self.notes.append(
                f"{where}: image of type {img.media_type} left out (providers take png, jpeg, gif, webp)"
            )
            return None
        try:
            data = read_image(img, self.roots)
        except ImageRefused as exc:
            self.notes.append(f"{where}: image left out: {exc}")
            self.refused[id(img)] = exc.reason
            return None
        return img.media_type, base64.b64encode(data).decode("ascii")

    def placeholder(self, img: ImageBlock) -> str:
        # The file's name only: a local folder path says nothing to the model and
        # is the user's own (``/home/me/...``), not something to send a provider.
        raw = img.origin or img.path or "image"
        name = re.split(r"[\\/]", raw.rstrip("/\\"))[-1] or "image"
        why = f": {self.refused[id(img)]}" if id(img) in self.refused else ""
        return f"[image {name} not included{why}]"

    def in_assistant(self, img: ImageBlock, turn_id: str) -> str:
        """The text an image in an assistant turn becomes (noted): only Gemini takes one there."""
        self.notes.append(f"{turn_id}: image in an assistant message sent as a text note")
        return self.placeholder(img)


# --- Anthropic Messages -----------------------------------------------------------


def export_anthropic(
    conv: Conversation, *, model: str | None = None, max_tokens: int = DEFAULT_MAX_TOKENS
) -> Export:
    """An Anthropic Messages API request body for the conversation's path."""
    plan = _plan(conv)
    notes = plan.notes
    images = _Images(notes, conv)
    messages: list[dict[str, Any]] = []
    unsigned = 0

    def image_block(img: ImageBlock, where: str) -> dict[str, Any]:
        p = images.payload(img, where)
        if p is None:
            return {"type": "text", "text": images.placeholder(img)}
        return {"type": "image", "source": {"type": "base64", "media_type": p[0], "data": p[1]}}

    system_items = 0
    for turn in plan.turns:
        if isinstance(turn, _Window):
            content: list[dict[str, Any]] = []
            for r in turn.results:
                block: dict[str, Any] = {"type": "tool_result", "tool_use_id": r.call_id}
                parts: list[dict[str, Any]] = []
                for c in r.content:
                    if isinstance(c, TextBlock):
                        if c.text.strip():
                            parts.append({"type": "text", "text": c.text})
                    else:
                        parts.append(image_block(c, f"result {r.call_id}"))
                if parts:
                    block["content"] = parts
                if r.is_error:
                    block["is_error"] = True
                content.append(block)
            for role, blocks in turn.items:
                prefix = ""
                if role == "system":
                    system_items += 1
                    prefix = "[system] "
                for b in blocks:
                    if isinstance(b, TextBlock):
                        content.append({"type": "text", "text": prefix + b.text})
                    elif isinstance(b, ImageBlock):
                        content.append(image_block(b, "user message"))
            _add_turn(messages, "user", "content", content)
        else:
            content = []
            for b in turn.blocks:
                if isinstance(b, ThinkingBlock):
                    if b.signature and not b.text:
                        content.append({"type": "redacted_thinking", "data": b.signature})
                    elif b.signature:
                        content.append(
                            {"type": "thinking", "thinking": b.text, "signature": b.signature}
                        )
                    else:
                        unsigned += 1
                elif isinstance(b, TextBlock):
                    content.append({"type": "text", "text": b.text})
                elif isinstance(b, ToolCall):
                    content.append(
                        {"type": "tool_use", "id": b.id, "name": b.name, "input": dict(b.input)}
                    )
                elif isinstance(b, ImageBlock):
                    content.append({"type": "text", "text": images.in_assistant(b, turn.ids[0])})
            if not content:
                content = [{"type": "text", "text": THINKING_LEFT_OUT}]
            _add_turn(messages, "assistant", "content", content)
    if unsigned:
        notes.append(
            f"{unsigned} thinking block(s) without a signature left out "
            "(Anthropic accepts only its own signed thinking)"
        )
    if system_items:
        notes.append(f"{system_items} system message(s) after the start sent as user text")
    if not messages:
        raise _nothing_to_export(conv)
    if messages[0]["role"] != "user":
        notes.append("the path starts with an assistant turn; a placeholder user turn was added")
        messages.insert(0, {"role": "user", "content": [{"type": "text", "text": "(continued)"}]})
    last = messages[-1]
    if last["role"] == "assistant" and last["content"][-1].get("type") == "text":
        # The API rejects a final assistant turn that ends in whitespace.
        last["content"][-1]["text"] = last["content"][-1]["text"].rstrip() or "(empty)"
    body: dict[str, Any] = {
        "model": model or DEFAULT_MODEL["anthropic"],
        "max_tokens": max_tokens,
    }
    if plan.system:
        body["system"] = [{"type": "text", "text": t} for t in plan.system]
    body["messages"] = messages
    if plan.tool_names:
        body["tools"] = [
            {"name": n, "description": d, "input_schema": s}
            for n, d, s in _tool_definitions(conv, plan.tool_names)
        ]
    return Export(body, tuple(notes), tuple(plan.synthetic))


def to_anthropic(conv: Conversation, **kwargs: Any) -> dict[str, Any]:
    body: dict[str, Any] = export_anthropic(conv, **kwargs).body
    return body


# --- OpenAI chat completions ---------------------------------------------------------


def _data_url(p: tuple[str, str]) -> str:
    return f"data:{p[0]};base64,{p[1]}"


def _joined_text(blocks: Sequence[Block]) -> str:
    return "\n\n".join(b.text for b in blocks if isinstance(b, TextBlock))


def _result_text(r: ToolResult) -> str:
    text = r.text()
    return f"[error] {text}" if r.is_error else text


def export_openai(conv: Conversation, *, model: str | None = None) -> Export:
    """An OpenAI chat-completions request body for the conversation's path.

    Tool results become ``role: tool`` messages right after the assistant
    message with ``tool_calls``; the chat API has no error flag, so an error
    result's text starts with ``[error]``. Tool messages take only text, so
    images a tool returned follow in a user message (noted).
    """
    plan = _plan(conv)
    notes = plan.notes
    images = _Images(notes, conv)
    messages: list[dict[str, Any]] = []
    thinking = 0
    if plan.system:
        messages.append({"role": "system", "content": "\n\n".join(plan.system)})

    def user_content(blocks: Sequence[Block], where: str) -> str | list[dict[str, Any]]:
        if all(isinstance(b, TextBlock) for b in blocks):
            return _joined_text(blocks)
        parts: list[dict[str, Any]] = []
        for b in blocks:
            if isinstance(b, TextBlock):
                parts.append({"type": "text", "text": b.text})
            elif isinstance(b, ImageBlock):
                p = images.payload(b, where)
                if p is None:
                    parts.append({"type": "text", "text": images.placeholder(b)})
                else:
                    parts.append({"type": "image_url", "image_url": {"url": _data_url(p)}})
        return parts

    for turn in plan.turns:
        if isinstance(turn, _Window):
            for r in turn.results:
                messages.append(
                    {"role": "tool", "tool_call_id": r.call_id, "content": _result_text(r)}
                )
            returned = _images_after_results(
                turn.results, "the tool messages (tool messages take only text)", notes
            )
            if returned:
                messages.append({"role": "user", "content": user_content(returned, "tool images")})
            for role, blocks in turn.items:
                if role == "system":
                    messages.append({"role": "system", "content": _joined_text(blocks)})
                else:
                    messages.append(
                        {"role": "user", "content": user_content(blocks, "user message")}
                    )
        else:
            texts: list[str] = []
            calls: list[dict[str, Any]] = []
            for b in turn.blocks:
                if isinstance(b, TextBlock):
                    texts.append(b.text)
                elif isinstance(b, ThinkingBlock):
                    thinking += 1
                elif isinstance(b, ToolCall):
                    calls.append(
                        {
                            "id": b.id,
                            "type": "function",
                            "function": {
                                "name": b.name,
                                "arguments": json.dumps(dict(b.input), ensure_ascii=False),
                            },
                        }
                    )
                elif isinstance(b, ImageBlock):
                    texts.append(images.in_assistant(b, turn.ids[0]))
            if not texts and not calls:
                # A turn that held only thinking: chat has no field for it, and an
                # empty assistant message is refused; the same stand-in the
                # Anthropic and Gemini exporters write keeps the turn order.
                texts.append(THINKING_LEFT_OUT)
            msg: dict[str, Any] = {
                "role": "assistant",
                "content": "\n\n".join(texts) if texts else None,
            }
            if calls:
                msg["tool_calls"] = calls
            messages.append(msg)
    if thinking:
        notes.append(
            f"{thinking} thinking block(s) left out (chat completions has no field for them)"
        )
    if not any(m["role"] != "system" for m in messages):
        raise _nothing_to_export(conv)
    body: dict[str, Any] = {"model": model or DEFAULT_MODEL["openai"], "messages": messages}
    if plan.tool_names:
        body["tools"] = [
            {"type": "function", "function": {"name": n, "description": d, "parameters": s}}
            for n, d, s in _tool_definitions(conv, plan.tool_names)
        ]
    return Export(body, tuple(notes), tuple(plan.synthetic))


def to_openai(conv: Conversation, **kwargs: Any) -> dict[str, Any]:
    body: dict[str, Any] = export_openai(conv, **kwargs).body
    return body


# --- OpenAI Responses ----------------------------------------------------------------


def export_openai_responses(conv: Conversation, *, model: str | None = None) -> Export:
    """An OpenAI Responses API request body (``input`` items) for the conversation's path."""
    plan = _plan(conv)
    notes = plan.notes
    images = _Images(notes, conv)
    items: list[dict[str, Any]] = []
    thinking = 0

    def content(blocks: Sequence[Block], where: str) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for b in blocks:
            if isinstance(b, TextBlock):
                parts.append({"type": "input_text", "text": b.text})
            elif isinstance(b, ImageBlock):
                p = images.payload(b, where)
                if p is None:
                    parts.append({"type": "input_text", "text": images.placeholder(b)})
                else:
                    parts.append(
                        {"type": "input_image", "image_url": _data_url(p), "detail": "auto"}
                    )
        return parts

    for turn in plan.turns:
        if isinstance(turn, _Window):
            for r in turn.results:
                items.append(
                    {
                        "type": "function_call_output",
                        "call_id": r.call_id,
                        "output": _result_text(r),
                    }
                )
            returned = _images_after_results(turn.results, "the function outputs", notes)
            if returned:
                items.append(
                    {"type": "message", "role": "user", "content": content(returned, "tool images")}
                )
            for role, blocks in turn.items:
                items.append(
                    {"type": "message", "role": role, "content": content(blocks, "user message")}
                )
        else:
            # The turn's text first, then its calls: nothing may come between a
            # call and its output, and the outputs follow the turn.
            texts: list[str] = []
            calls: list[dict[str, Any]] = []
            for b in turn.blocks:
                if isinstance(b, TextBlock):
                    texts.append(b.text)
                elif isinstance(b, ImageBlock):
                    texts.append(images.in_assistant(b, turn.ids[0]))
                elif isinstance(b, ThinkingBlock):
                    thinking += 1
                elif isinstance(b, ToolCall):
                    calls.append(
                        {
                            "type": "function_call",
                            "call_id": b.id,
                            "name": b.name,
                            "arguments": json.dumps(dict(b.input), ensure_ascii=False),
                        }
                    )
            if texts:
                items.append(_responses_assistant("\n\n".join(texts)))
            items.extend(calls)
    if thinking:
        notes.append(f"{thinking} thinking block(s) left out (reasoning items need provider ids)")
    if not items:
        raise _nothing_to_export(conv)
    body: dict[str, Any] = {"model": model or DEFAULT_MODEL["openai-responses"]}
    if plan.system:
        body["instructions"] = "\n\n".join(plan.system)
    body["input"] = items
    if plan.tool_names:
        body["tools"] = [
            # strict is required; True would demand a closed schema the history's
            # recovered definitions do not have.
            {"type": "function", "name": n, "description": d, "parameters": s, "strict": False}
            for n, d, s in _tool_definitions(conv, plan.tool_names)
        ]
    return Export(body, tuple(notes), tuple(plan.synthetic))


def _responses_assistant(text: str) -> dict[str, Any]:
    # An input item, not an output message (that one needs the id, status and
    # annotations only the API itself assigns).
    return {"type": "message", "role": "assistant", "content": text}


def to_openai_responses(conv: Conversation, **kwargs: Any) -> dict[str, Any]:
    body: dict[str, Any] = export_openai_responses(conv, **kwargs).body
    return body


# --- Gemini generateContent ------------------------------------------------------------


def export_gemini(conv: Conversation) -> Export:
    """A Gemini ``generateContent`` request body for the conversation's path.

    Function declarations carry no parameter schema: Gemini takes only an
    OpenAPI subset, and the history's calls do not need one to be sent.
    """
    plan = _plan(conv)
    notes = plan.notes
    images = _Images(notes, conv)
    contents: list[dict[str, Any]] = []
    thinking = 0
    sentinels = 0

    def inline(img: ImageBlock, where: str) -> dict[str, Any]:
        p = images.payload(img, where)
        if p is None:
            return {"text": images.placeholder(img)}
        return {"inlineData": {"mimeType": p[0], "data": p[1]}}

    for turn in plan.turns:
        if isinstance(turn, _Window):
            parts: list[dict[str, Any]] = []
            extra: list[dict[str, Any]] = []
            for r in turn.results:
                key = "error" if r.is_error else "output"
                parts.append(
                    {
                        "functionResponse": {
                            "id": r.call_id,
                            "name": plan.call_names.get(r.call_id, "tool"),
                            "response": {key: r.text()},
                        }
                    }
                )
                extra.extend(inline(img, f"result {r.call_id}") for img in r.images())
            parts.extend(extra)
            for role, blocks in turn.items:
                prefix = "[system] " if role == "system" else ""
                for b in blocks:
                    if isinstance(b, TextBlock):
                        parts.append({"text": prefix + b.text})
                    elif isinstance(b, ImageBlock):
                        parts.append(inline(b, "user message"))
            _add_turn(contents, "user", "parts", parts)
        else:
            parts = []
            first_call = True
            for b in turn.blocks:
                if isinstance(b, TextBlock):
                    parts.append({"text": b.text})
                elif isinstance(b, ThinkingBlock):
                    thinking += 1
                elif isinstance(b, ToolCall):
                    part: dict[str, Any] = {
                        "functionCall": {"id": b.id, "name": b.name, "args": dict(b.input)}
                    }
                    signature = plan.signatures.get(b.id)
                    if signature is None and first_call:
                        # Gemini 3 refuses an unsigned call in the current turn; a call
                        # it did not make gets the sentinel Google documents for that.
                        signature = GEMINI_SIGNATURE_SENTINEL
                        sentinels += 1
                    if signature is not None:
                        part["thoughtSignature"] = signature
                    first_call = False
                    parts.append(part)
                elif isinstance(b, ImageBlock):
                    parts.append(inline(b, turn.ids[0]))
            _add_turn(contents, "model", "parts", parts or [{"text": THINKING_LEFT_OUT}])
    if thinking:
        notes.append(
            f"{thinking} thinking block(s) left out (Gemini thought signatures are its own)"
        )
    if sentinels:
        notes.append(
            f"{sentinels} model turn(s) with function calls Gemini did not sign carry the "
            f"documented {GEMINI_SIGNATURE_SENTINEL!r} signature"
        )
    if not contents:
        raise _nothing_to_export(conv)
    if contents[0]["role"] != "user":
        notes.append("the path starts with a model turn; a placeholder user turn was added")
        contents.insert(0, {"role": "user", "parts": [{"text": "(continued)"}]})
    body: dict[str, Any] = {"contents": contents}
    if plan.system:
        body["systemInstruction"] = {"parts": [{"text": t} for t in plan.system]}
    if plan.tool_names:
        body["tools"] = [
            {
                "functionDeclarations": [
                    {"name": n, "description": d}
                    for n, d, _ in _tool_definitions(conv, plan.tool_names)
                ]
            }
        ]
    return Export(body, tuple(notes), tuple(plan.synthetic))


def to_gemini(conv: Conversation) -> dict[str, Any]:
    body: dict[str, Any] = export_gemini(conv).body
    return body


# --- Markdown ------------------------------------------------------------------------------


def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text}\n{ticks}"


def _image_line(img: ImageBlock) -> str:
    size = f"{img.width}×{img.height}" if img.width and img.height else "size unknown"
    if img.path:
        return f"![{img.origin or 'image'} ({size})]({img.path})"
    return f"*[image {img.origin or 'inline'}: {img.media_type}, {size}, {img.size} bytes]*"


def export_markdown(conv: Conversation) -> Export:
    """A readable Markdown transcript of the path: roles, text, calls, results, images."""
    from snapshot.transcript.rewind_notes import with_rewind_notes

    path = with_rewind_notes(conv).path()
    lines = [f"# {conv.id}" + (f" ({conv.agent})" if conv.agent != "main" else "")]
    if conv.format or conv.source:
        lines.append(
            f"*{conv.format or 'conversation'}*" + (f" from `{conv.source}`" if conv.source else "")
        )
    notes: list[str] = []
    seen_calls: set[str] = set()
    for msg in path:
        head = f"## {msg.role} · {msg.id}"
        kind = msg.meta.get("kind") if isinstance(msg.meta, Mapping) else None
        if kind:
            head += f" · {kind}"
        lines += ["", head]
        for b in msg.blocks:
            lines.append("")
            if isinstance(b, TextBlock):
                lines.append(b.text)
            elif isinstance(b, ThinkingBlock):
                quoted = "\n".join("> " + line for line in (b.text or "(redacted)").splitlines())
                lines.append(f"> **thinking**\n{quoted}")
            elif isinstance(b, ToolCall):
                seen_calls.add(b.id)
                args = json.dumps(dict(b.input), ensure_ascii=False, indent=2)
                lines.append(f"**tool call** `{b.name}` · `{b.id}`")
                lines.append(_fence(args, "json"))
            elif isinstance(b, ToolResult):
                flag = " (error)" if b.is_error else ""
                orphan = "" if b.call_id in seen_calls else " — no matching call"
                if orphan:
                    notes.append(f"{msg.id}: result for {b.call_id} has no call on the path")
                lines.append(f"**tool result**{flag} for `{b.call_id}`{orphan}")
                lines.append(_fence(b.text()))
                lines.extend(_image_line(img) for img in b.images())
            elif isinstance(b, ImageBlock):
                lines.append(_image_line(b))
    return Export("\n".join(lines) + "\n", tuple(notes))


def to_markdown(conv: Conversation) -> str:
    text: str = export_markdown(conv).body
    return text


def body_image_sizes(body: Any) -> list[int]:
    """Base64 length of every image a request body carries (any provider's shape).

    For checking a body against a route's limits (images per request, bytes
    per image) before it is sent.
    """
    sizes: list[int] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            source = value.get("source")
            if value.get("type") == "image" and isinstance(source, dict):
                sizes.append(len(str(source.get("data") or "")))
                return
            url = value.get("image_url")
            if isinstance(url, dict):
                url = url.get("url")
            if value.get("type") in ("image_url", "input_image") and isinstance(url, str):
                sizes.append(len(url.partition(",")[2]))
                return
            inline = value.get("inlineData")
            if isinstance(inline, dict):
                sizes.append(len(str(inline.get("data") or "")))
                return
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(body)
    return sizes


def export(conv: Conversation, target: str, *, model: str | None = None) -> Export:
    """Export to one of :data:`TARGETS`."""
    if target == "anthropic":
        return export_anthropic(conv, model=model)
    if target == "openai":
        return export_openai(conv, model=model)
    if target == "openai-responses":
        return export_openai_responses(conv, model=model)
    if target == "gemini":
        return export_gemini(conv)
    if target == "markdown":
        return export_markdown(conv)
    raise TranscriptError(f"unknown export target {target!r}; choose one of {', '.join(TARGETS)}")
