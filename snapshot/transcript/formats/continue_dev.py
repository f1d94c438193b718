"""Continue.dev sessions (``~/.continue/sessions/<sessionId>.json``) → the neutral model.

A session is ``{"sessionId", "title", "workspaceDirectory", "history": [...]}``;
each history item is ``{"message", "contextItems", "editorState", ...}``:

- ``message`` is a chat message: ``role`` user, assistant, system, thinking or
  tool; ``content`` a string or a list of ``text`` / ``imageUrl`` parts;
  assistant ``toolCalls`` (``{id, function: {name, arguments}}``), tool
  messages ``toolCallId``.
- ``contextItems`` are the files and snippets the user attached (``@file``):
  Continue sends their ``content`` to the model before the message text, so
  they become text blocks ahead of it.
- ``reasoning`` (on the item) and ``thinking`` messages become thinking.
- ``toolCallState(s)`` holds a call's ``output`` (context items) when no tool
  message carries it: that output becomes the call's result.
- ``editorState`` (the editor's rich-text copy of the message) and
  ``promptLogs`` (the rendered prompt, repeating everything) are not read.

``~/.continue/sessions/sessions.json`` is the index of sessions, not a
session: it is refused with that reason.

>>> from snapshot.transcript.formats.continue_dev import FORMAT
>>> FORMAT.name
'continue'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    head_text,
    image_or_note,
    pairing_warnings,
    parse_arguments,
    skipped_warning,
)
from snapshot.transcript.formats._json_stream import JSONDocument
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

NAME = "continue"

_ROLES: dict[str, Role] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "tool": "tool",
}


def _list(value: Any) -> list[Any]:
    """``value`` when it is a list, else nothing (a hostile file may put anything there)."""
    return value if isinstance(value, list) else []


class _Builder:
    def __init__(self, where: str, spilled: bool) -> None:
        self.where = where
        # A long session keeps its messages on disk (spill.py).
        self.messages = spill.message_sink(spilled)
        self.ids: set[str] = set()
        self.last: str | None = None
        self.warns: list[str] = []
        self.skipped: dict[str, int] = {}
        self.answered: set[str] = set()
        # The last assistant item's calls and the outputs its tool-call state holds.
        self._outputs: dict[str, Mapping[str, Any]] = {}
        self._calls: list[str] = []
        self._owner = ""

    def skip(self, kind: str) -> None:
        self.skipped[kind] = self.skipped.get(kind, 0) + 1

    def add(self, mid: str, role: Role, blocks: list[Block], meta: dict[str, Any]) -> None:
        if mid in self.ids:
            mid = f"{mid}-{len(self.messages)}"
        self.messages.append(Message(mid, self.last, role, tuple(blocks), meta))
        self.ids.add(mid)
        self.last = mid

    def parts(self, content: Any, at: str) -> list[TextBlock | ImageBlock]:
        if isinstance(content, str):
            return [TextBlock(content)] if content else []
        out: list[TextBlock | ImageBlock] = []
        for part in content if isinstance(content, list) else ():
            if not isinstance(part, Mapping):
                continue
            if part.get("type") == "text":
                out.append(TextBlock(str(part.get("text") or "")))
            elif part.get("type") == "imageUrl":
                ref = part.get("imageUrl")
                url = ref.get("url") if isinstance(ref, Mapping) else ref
                if isinstance(url, str):
                    block = image_or_note(url, "inline", at, self.warns)
                    if isinstance(block, TextBlock | ImageBlock):
                        out.append(block)
            else:
                self.skip(f"content part {part.get('type')!r}")
        return out

    def item(self, index: int, item: Any) -> None:
        at = f"{self.where}: history {index}"
        if not isinstance(item, Mapping) or not isinstance(item.get("message"), Mapping):
            self.skip("history item without a message")
            return
        msg = item["message"]
        mid = str(msg.get("id") or f"h{index}")
        raw_role = str(msg.get("role"))
        meta: dict[str, Any] = {"history_index": index}
        if raw_role == "thinking":
            text = msg.get("content")
            self.add(mid, "assistant", [ThinkingBlock(str(text or ""), msg.get("signature"))], meta)
            return
        role = _ROLES.get(raw_role)
        if role is None:
            self.skip(f"role {raw_role!r}")
            return
        if role == "tool":
            call_id = str(msg.get("toolCallId") or f"{mid}-missing")
            self.answered.add(call_id)
            result = ToolResult(call_id, tuple(self.parts(msg.get("content"), at)))
            self.add(mid, "tool", [result], meta)
            return
        blocks: list[Block] = []
        reasoning = item.get("reasoning")
        if isinstance(reasoning, Mapping) and reasoning.get("text"):
            blocks.append(ThinkingBlock(str(reasoning["text"])))
        if role == "user":
            for ctx in _list(item.get("contextItems")):
                if isinstance(ctx, Mapping) and ctx.get("content"):
                    blocks.append(TextBlock(str(ctx["content"])))
            names = [
                str(c.get("description") or c.get("name"))
                for c in _list(item.get("contextItems"))
                if isinstance(c, Mapping)
            ]
            if names:
                meta["context_items"] = names
        blocks.extend(self.parts(msg.get("content"), at))
        calls: list[ToolCall] = []
        for j, call in enumerate(_list(msg.get("toolCalls"))):
            if not isinstance(call, Mapping):
                continue
            fn = call.get("function") if isinstance(call.get("function"), Mapping) else {}
            assert isinstance(fn, Mapping)
            calls.append(
                ToolCall(
                    str(call.get("id") or f"{mid}-call{j}"),
                    str(fn.get("name") or "unknown"),
                    parse_arguments(fn.get("arguments"), f"{at} call {j}", self.warns),
                )
            )
        blocks.extend(calls)
        self.add(mid, role, blocks, meta)
        self.pending_outputs(item, calls, mid)

    def pending_outputs(self, item: Mapping[str, Any], calls: list[ToolCall], mid: str) -> None:
        """Outputs kept only in the item's tool-call state become the calls' results."""
        states = item.get("toolCallStates")
        if not isinstance(states, list):
            states = (
                [item["toolCallState"]] if isinstance(item.get("toolCallState"), Mapping) else []
            )
        self._outputs = {
            str(s.get("toolCallId")): s
            for s in states
            if isinstance(s, Mapping) and isinstance(s.get("output"), list)
        }
        self._calls = [c.id for c in calls]
        self._owner = mid

    def flush_outputs(self) -> None:
        for call_id in self._calls:
            state = self._outputs.get(call_id)
            if state is None or call_id in self.answered:
                continue
            texts = [
                TextBlock(str(o.get("content")))
                for o in _list(state.get("output"))
                if isinstance(o, Mapping) and o.get("content")
            ]
            error = state.get("status") in ("errored", "canceled")
            self.answered.add(call_id)
            self.add(
                f"{self._owner}-{call_id}", "tool", [ToolResult(call_id, tuple(texts), error)], {}
            )
        self._calls = []


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: a folder; continue imports one session .json file")
    if options.select:
        raise TranscriptError(f"{path}: a Continue session holds one conversation; drop --select")
    # One document, mostly the history list: read one item at a time.
    doc = JSONDocument(path, "history")
    if doc.shape != "object" or not doc.found:
        doc.close()
        if doc.shape == "array" and path.name == "sessions.json":
            raise TranscriptError(
                f"{path}: Continue's index of sessions, not a session; import the "
                "<sessionId>.json files beside it"
            )
        raise TranscriptError(f"{path}: expected a Continue session with a 'history' list")
    builder = _Builder(str(path), path.stat().st_size >= spill.SPILL_BYTES)
    for index, item in enumerate(doc.items()):
        # A tool message in the next item answers the calls; only then use the stored output.
        message = item.get("message") if isinstance(item, Mapping) else None
        if isinstance(message, Mapping) and message.get("role") != "tool":
            builder.flush_outputs()
        builder.item(index, item)
    builder.flush_outputs()
    data = doc.fields
    meta: dict[str, Any] = {
        k: data[k] for k in ("sessionId", "title", "workspaceDirectory", "dateCreated") if k in data
    }
    if builder.skipped:
        meta["skipped"] = dict(builder.skipped)
        builder.warns.append(skipped_warning(str(path), "a chat message", builder.skipped))
    builder.warns.extend(pairing_warnings(builder.messages, str(path)))
    msgs = builder.messages
    return [
        Conversation(
            id=str(data.get("sessionId") or path.stem),
            messages=spill.frozen(msgs),
            tip=builder.last,
            format=NAME,
            source=str(path),
            meta=meta,
            warnings=tuple(builder.warns),
        )
    ]


_SESSION_KEYS = re.compile(r'"(sessionId|workspaceDirectory)"\s*:')


def score(path: Path, head: bytes) -> float:
    if path.is_dir():
        return 0.0
    text = head_text(head)
    if not text.startswith("{"):
        return 0.0
    keys = {m.group(1) for m in _SESSION_KEYS.finditer(text)}
    has_history = '"history"' in text
    if keys == {"sessionId", "workspaceDirectory"} and has_history:
        return 0.98
    if keys and has_history and ('"contextItems"' in text or '"editorState"' in text):
        return 0.9
    return 0.0


FORMAT = Format(
    name=NAME,
    description="Continue.dev session JSON (~/.continue/sessions/<id>.json)",
    load=load,
    score=score,
    unread_keys=frozenset({"editorState", "promptLogs"}),
)
