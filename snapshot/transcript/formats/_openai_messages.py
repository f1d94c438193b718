"""OpenAI chat messages → the neutral model, for every importer whose logs hold them.

OpenAI chat files, tau-bench runs (each ``traj``) and WebVoyager's
``interact_messages.json`` are all lists of chat messages: ``role`` of system,
developer, user, assistant, tool or function; content a string or typed parts
(text, ``image_url`` data URLs, refusals); assistant ``tool_calls``.

Pairing: ``tool_calls[].id`` = ``tool_call_id`` of a ``role: "tool"`` message;
the legacy ``function_call`` / ``role: "function"`` pair by position.

Kept out of the openai-chat importer so the importers that read these messages
do not import one another.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from snapshot.transcript import spill
from snapshot.transcript.formats._common import (
    image_or_note,
    image_url_of,
    list_field,
    pairing_warnings,
    parse_arguments,
    skipped_warning,
)
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)

# The format name of conversations made of these messages.
OPENAI_CHAT = "openai-chat"


# Parts that carry a tool's result as ``text`` (trajectories converted from Codex
# and Claude Code sessions keep ``role: tool`` content as ``tool_output`` parts).
RESULT_PARTS = ("tool_output", "tool_result", "function_call_output", "output")


def _content_blocks(
    content: Any,
    where: str,
    warns: list[str],
    skipped: dict[str, int],
    *,
    in_result: bool = False,
) -> list[Block]:
    """Text and image blocks of ``content``.

    ``in_result``: the content of a tool message, where any part with a string
    ``text`` (``tool_output`` and its kin) is the result the model read.

    >>> _content_blocks([{"type": "tool_output", "text": "ok"}], "f", [], {}, in_result=True)
    [TextBlock(text='ok')]
    """
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(content)] if content else []
    if isinstance(content, Mapping):
        content = [content]
    if not isinstance(content, list):
        warns.append(f"{where}: content of type {type(content).__name__} kept as text")
        return [TextBlock(str(content))]
    out: list[Block] = []
    for i, part in enumerate(content):
        if isinstance(part, str):
            out.append(TextBlock(part))
            continue
        if not isinstance(part, Mapping):
            skipped["non-object content part"] = skipped.get("non-object content part", 0) + 1
            continue
        kind = part.get("type")
        if kind in ("text", "input_text", "output_text"):
            out.append(TextBlock(str(part.get("text") or "")))
        elif kind in ("image_url", "input_image"):
            url = image_url_of(part)
            if not isinstance(url, str):
                warns.append(f"{where}: part {i}: image_url without a URL skipped")
                continue
            out.append(image_or_note(url, "inline", f"{where}: part {i}", warns))
        elif kind == "refusal":
            out.append(TextBlock(str(part.get("refusal") or "")))
        elif (kind in RESULT_PARTS or in_result) and isinstance(part.get("text"), str):
            out.append(TextBlock(part["text"]))
        elif kind in RESULT_PARTS and isinstance(part.get("output"), str):
            out.append(TextBlock(part["output"]))
        else:
            key = f"content part {kind!r}" + (" in a tool result" if in_result else "")
            skipped[key] = skipped.get(key, 0) + 1
    return out


def _without_call_parts(content: Any) -> Any:
    """``content`` without its ``tool_call`` parts (read as calls by :func:`_call_parts`)."""
    if not isinstance(content, list):
        return content
    return [p for p in content if not (isinstance(p, Mapping) and p.get("type") == "tool_call")]


def _call_parts(rec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """``{type: "tool_call"}`` content parts not already in ``tool_calls``, as tool_calls entries.

    Converted trajectories carry each call twice (``tool_calls`` and a part);
    a part whose id is in ``tool_calls`` is that call again.

    >>> rec = {"tool_calls": [{"id": "a", "function": {"name": "f"}}],
    ...        "content": [{"type": "tool_call", "id": "a"}, {"type": "tool_call", "id": "b", "name": "g"}]}
    >>> [c["id"] for c in _call_parts(rec)]
    ['b']
    """
    content = rec.get("content")
    if not isinstance(content, list):
        return []
    known = {str(c.get("id")) for c in list_field(rec, "tool_calls") if isinstance(c, Mapping)}
    out: list[Mapping[str, Any]] = []
    for part in content:
        if not isinstance(part, Mapping) or part.get("type") != "tool_call":
            continue
        call_id = part.get("id") or part.get("call_id") or part.get("tool_call_id")
        if str(call_id) in known:
            continue
        raw_fn = part.get("function")
        fn: Mapping[str, Any] = raw_fn if isinstance(raw_fn, Mapping) else {}
        out.append(
            {
                "id": call_id,
                "function": {
                    "name": fn.get("name") or part.get("name"),
                    "arguments": fn.get("arguments", part.get("arguments", part.get("input"))),
                },
            }
        )
    return out


class OpenAIMessages:
    """Neutral messages from OpenAI chat messages given one at a time, each continuing from the previous.

    :meth:`add` converts one record (``None`` for one that is not a message:
    not an object, or of an unknown role); the ``i``-th record given (every
    one counts) makes the message ``f"{id_prefix}{i}"``. :meth:`finish` adds
    the summary of what was skipped to the warnings and gives
    ``(warnings, skipped)``. Records are not kept: an importer can convert a
    file as it reads it. :func:`messages_from_openai` is the same for a list.

    Examples
    --------
    >>> conv = OpenAIMessages(where="f")
    >>> [conv.add(r) is None for r in ({"role": "user", "content": "hi"}, 3, {"role": "x"})]
    [False, True, True]
    >>> m = conv.add({"role": "assistant", "content": "hello"})
    >>> m.id, m.parent, m.text()
    ('m3', 'm0', 'hello')
    >>> warns, skipped = conv.finish()
    >>> skipped
    {'non-object message': 1, "role 'x'": 1}
    """

    def __init__(self, *, where: str, id_prefix: str = "m", warns: list[str] | None = None) -> None:
        self.where = where
        self.id_prefix = id_prefix
        self.warns: list[str] = [] if warns is None else warns
        self.skipped: dict[str, int] = {}
        self._i = 0  # records given so far
        self._parent: str | None = None
        self._pending_function: list[str] = []  # legacy function_call ids waiting for role=function

    def add(self, rec: Any) -> Message | None:
        """The message of the next record, or ``None`` when it is not one (counted in ``skipped``)."""
        i = self._i
        self._i += 1
        where, id_prefix, warns, skipped = self.where, self.id_prefix, self.warns, self.skipped
        at = f"{where}: message {i}"
        if not isinstance(rec, Mapping):
            skipped["non-object message"] = skipped.get("non-object message", 0) + 1
            warns.append(f"{at}: not a JSON object; skipped")
            return None
        role = rec.get("role")
        blocks: list[Block] = []
        meta: dict[str, Any] = {}
        nrole: Role
        if role in ("system", "developer"):
            nrole = "system"
            blocks = _content_blocks(rec.get("content"), at, warns, skipped)
            if role == "developer":
                meta["openai_role"] = "developer"
        elif role == "user":
            nrole = "user"
            blocks = _content_blocks(rec.get("content"), at, warns, skipped)
        elif role == "assistant":
            nrole = "assistant"
            reasoning = rec.get("reasoning_content") or rec.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                blocks.append(ThinkingBlock(reasoning))
            blocks.extend(
                _content_blocks(_without_call_parts(rec.get("content")), at, warns, skipped)
            )
            if isinstance(rec.get("refusal"), str) and rec["refusal"]:
                blocks.append(TextBlock(rec["refusal"]))
            for j, call in enumerate([*list_field(rec, "tool_calls"), *_call_parts(rec)]):
                if not isinstance(call, Mapping):
                    warns.append(f"{at}: tool call {j} is not an object; skipped")
                    continue
                raw_fn = call.get("function")
                fn: Mapping[str, Any] = raw_fn if isinstance(raw_fn, Mapping) else {}
                call_id = str(call.get("id") or f"{id_prefix}{i}-call{j}")
                blocks.append(
                    ToolCall(
                        id=call_id,
                        name=str(fn.get("name") or call.get("name") or "unknown"),
                        input=parse_arguments(fn.get("arguments"), f"{at} call {call_id}", warns),
                    )
                )
            legacy = rec.get("function_call")
            if isinstance(legacy, Mapping):
                call_id = f"{id_prefix}{i}-function"
                self._pending_function.append(call_id)
                blocks.append(
                    ToolCall(
                        id=call_id,
                        name=str(legacy.get("name") or "unknown"),
                        input=parse_arguments(legacy.get("arguments"), at, warns),
                    )
                )
        elif role in ("tool", "function"):
            nrole = "tool"
            if role == "tool":
                call_id = str(rec.get("tool_call_id") or "")
                if not call_id:
                    warns.append(f"{at}: tool message without tool_call_id")
                    call_id = f"{id_prefix}{i}-missing-call"
            else:  # legacy: answers the oldest open function_call by position
                pending = self._pending_function
                call_id = pending.pop(0) if pending else f"{id_prefix}{i}-orphan"
            content = _content_blocks(rec.get("content"), at, warns, skipped, in_result=True)
            result_content = tuple(b for b in content if isinstance(b, TextBlock | ImageBlock))
            blocks = [ToolResult(call_id=call_id, content=result_content)]
            if rec.get("name"):
                meta["name"] = rec["name"]
        else:
            key = f"role {role!r}"
            skipped[key] = skipped.get(key, 0) + 1
            return None
        mid = f"{id_prefix}{i}"
        message = Message(id=mid, parent=self._parent, role=nrole, blocks=tuple(blocks), meta=meta)
        self._parent = mid
        return message

    def finish(self) -> tuple[list[str], dict[str, int]]:
        """``(warnings, skipped)`` once every record was given; the warnings end with the skipped summary."""
        if self.skipped:
            self.warns.append(skipped_warning(self.where, "OpenAI chat", self.skipped))
        return self.warns, self.skipped


def messages_from_openai(
    records: Iterable[Any],
    *,
    where: str,
    id_prefix: str = "m",
    warns: list[str] | None = None,
) -> tuple[list[Message], list[str], dict[str, int]]:
    """Neutral messages (each continuing from the previous) from OpenAI chat messages.

    Returns ``(messages, warnings, skipped)`` where ``skipped`` counts what was
    not understood (unknown roles, unknown content parts) by kind.
    :class:`OpenAIMessages` converts records one at a time.

    >>> messages, warns, skipped = messages_from_openai([{"role": "user", "content": "hi"}], where="f")
    >>> [m.id for m in messages], warns, skipped
    (['m0'], [], {})
    """
    conv = OpenAIMessages(where=where, id_prefix=id_prefix, warns=warns)
    out = [m for rec in records if (m := conv.add(rec)) is not None]
    warns, skipped = conv.finish()
    return out, warns, skipped


def conversation_from_openai(
    records: Iterable[Any],
    *,
    conv_id: str,
    source: str,
    where: str,
    format_name: str = OPENAI_CHAT,
    meta: Mapping[str, Any] | None = None,
    spill_file: spill.SpillFile | None = None,
) -> Conversation:
    """One conversation of OpenAI chat messages, converted as ``records`` gives them.

    ``meta`` is read once the records are exhausted (a streamed document's
    fields after its list are known only then). With ``spill_file`` the
    messages are kept on disk, in that file.
    """
    conv = OpenAIMessages(where=where)
    messages = spill.message_sink(spill_file is not None, spill_file)
    last: str | None = None
    for rec in records:
        if (m := conv.add(rec)) is not None:
            messages.append(m)
            last = m.id
    warns, skipped = conv.finish()
    warns.extend(pairing_warnings(messages, where))
    full_meta = dict(meta or {})
    if skipped:
        full_meta["skipped"] = skipped
    return Conversation(
        id=conv_id,
        messages=spill.frozen(messages),
        tip=last,
        format=format_name,
        source=source,
        meta=full_meta,
        warnings=tuple(warns),
    )
