"""OpenHands event streams: trajectory JSON files and evaluation ``output.jsonl`` files.

A trajectory is a list of events; each is an *action* (``"action": "run"``, ...)
or an *observation* (``"observation": "run"``, ...) with an ``id`` and a
``source`` (user, agent, environment). An observation names the action it
answers through ``cause`` (= the action's ``id``); function-calling runs also
carry ``tool_call_metadata`` with the model's own ``tool_call_id`` and the raw
``model_response``, which is used for the call's real arguments and the
assistant text when present.

An ``output.jsonl`` holds one evaluated instance per line with its
``history``; all are imported unless ``--select instance_id=...`` (or any other
scalar key of the line, or ``line=N``) picks some.

What becomes what, following OpenHands' own prompt building:

- ``system`` action → system message; ``message`` → user or assistant text.
- other agent actions (run, read, edit, think, finish, browse, ...) → an
  assistant message with the thought as text and a tool call; actions that
  share one ``model_response`` are one assistant message.
- an observation whose ``cause`` is such an action → a ``tool`` message with
  the result (``error`` observations flagged as errors).
- the workspace ``recall`` observation → user text (the environment adds it;
  the ``recall`` action itself is bookkeeping the model never sees, skipped).
- an observation with no matching action (an error after a malformed call)
  → user text, as OpenHands sends it.
- agent-state changes and "No observation" placeholders are skipped, counted
  in ``meta["skipped"]``.

Older logs (no ``id``/``source``: flattened ``{"action": ...}`` dicts or
``[action, observation]`` pairs) pair each observation with the preceding
action by position.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    head_text,
    image_or_note,
    iter_jsonl,
    pairing_warnings,
    parse_arguments,
    with_file_warnings,
)
from snapshot.transcript.formats._json_stream import JSONDocument
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    Role,
    TextBlock,
    ToolCall,
    ToolResult,
)

_T = TypeVar("_T")

NAME = "openhands-events"

# Events that carry nothing the model saw.
_SKIP_OBSERVATIONS = {"agent_state_changed", "null", "user_rejected", "agent_condensation"}
_SKIP_ACTIONS = {"change_agent_state", "recall", "null", "condensation", "condensation_request"}
# Keys of an action's args that are bookkeeping, not the call's input.
_ARG_NOISE = {
    "thought",
    "blocking",
    "is_static",
    "cwd",
    "hidden",
    "confirmation_state",
    "security_risk",
    "impl_source",
    "translated_ipython_code",
    "include_extra",
    "kernel_init_code",
    "is_input",
    "wait_for_response",
    "image_urls",
}


class _Builder:
    """Turns a list of events into messages, tracking the links between them."""

    def __init__(self, where: str, spilled: bool = False) -> None:
        self.where = where
        # A long log keeps its messages on disk (spill.py); the newest waits here, where
        # more tool calls of its model response may still join it.
        self.messages = spill.message_sink(spilled)
        self._last: Message | None = None
        self.made = 0  # messages made, the waiting one included
        self.warns: list[str] = []
        self.skipped: dict[str, int] = {}
        self.call_of_event: dict[Any, str] = {}  # action event id -> tool call id
        self.meta: dict[str, Any] = {}
        self._response_of_last: str | None = None  # model_response id of the last message
        self._ids: set[str] = set()

    def skip(self, kind: str) -> None:
        self.skipped[kind] = self.skipped.get(kind, 0) + 1

    def add(self, mid: str, role: Role, blocks: Sequence[Block], meta: Mapping[str, Any]) -> None:
        parent = self._last.id if self._last is not None else None
        if mid in self._ids:  # a log that repeats event ids: message ids must stay unique
            mid = f"{mid}-{self.made}"
        self._ids.add(mid)
        if self._last is not None:
            self.messages.append(self._last)
        self._last = Message(mid, parent, role, tuple(blocks), dict(meta))
        self.made += 1
        self._response_of_last = None

    def finish(self) -> Sequence[Message]:
        """Every message, the waiting one stored too."""
        if self._last is not None:
            self.messages.append(self._last)
            self._last = None
        return spill.frozen(self.messages)

    # -- events with ids (current format) ------------------------------------

    def event(self, index: int, ev: Any) -> None:
        at = f"{self.where}: event {index}"
        if not isinstance(ev, Mapping):
            self.skip("non-object event")
            self.warns.append(f"{at}: not a JSON object; skipped")
            return
        eid = ev.get("id", index)
        meta: dict[str, Any] = {"event_id": eid}
        if ev.get("timestamp"):
            meta["timestamp"] = ev["timestamp"]
        if "action" in ev:
            self.action(at, eid, ev, meta)
        elif "observation" in ev:
            self.observation(at, eid, ev, meta)
        else:
            self.skip("event without action or observation")
            self.warns.append(f"{at}: neither an action nor an observation; skipped")

    def action(self, at: str, eid: Any, ev: Mapping[str, Any], meta: dict[str, Any]) -> None:
        kind = str(ev.get("action"))
        args = ev.get("args") if isinstance(ev.get("args"), Mapping) else {}
        assert isinstance(args, Mapping)
        source = ev.get("source")
        meta["action"] = kind
        if kind in _SKIP_ACTIONS:
            self.skip(f"action {kind}")
            return
        if kind == "system":
            if isinstance(args.get("tools"), list):
                self.meta["tools"] = args["tools"]
            self.add(
                f"e{eid}",
                "system",
                [TextBlock(str(args.get("content") or ev.get("message") or ""))],
                meta,
            )
            return
        if kind == "message":
            text = args.get("content")
            if not isinstance(text, str):
                text = str(ev.get("message") or "")
            blocks: list[Block] = [TextBlock(text)] if text else []
            for url in args.get("image_urls") or ():
                if isinstance(url, str):
                    blocks.append(image_or_note(url, "inline", at, self.warns))
            role: Role = "user" if source in ("user", None) else "assistant"
            self.add(f"e{eid}", role, blocks, meta)
            return
        self.tool_action(at, eid, kind, ev, args, meta)

    def tool_action(
        self,
        at: str,
        eid: Any,
        kind: str,
        ev: Mapping[str, Any],
        args: Mapping[str, Any],
        meta: dict[str, Any],
    ) -> None:
        tcm = ev.get("tool_call_metadata")
        call_id: str
        name = kind
        call_input: dict[str, Any] = {k: v for k, v in args.items() if k not in _ARG_NOISE}
        text = str(args.get("thought") or "")
        response_id: str | None = None
        if isinstance(tcm, Mapping) and tcm.get("tool_call_id"):
            call_id = str(tcm["tool_call_id"])
            name = str(tcm.get("function_name") or kind)
            response = tcm.get("model_response")
            if isinstance(response, Mapping):
                response_id = str(response.get("id") or "") or None
                message = _response_message(response)
                if message is not None:
                    content = message.get("content")
                    if isinstance(content, str):
                        text = content
                    for call in message.get("tool_calls") or ():
                        if isinstance(call, Mapping) and str(call.get("id")) == call_id:
                            fn = call.get("function")
                            if isinstance(fn, Mapping):
                                call_input = parse_arguments(
                                    fn.get("arguments"), f"{at} call {call_id}", self.warns
                                )
        else:
            call_id = f"oh-{eid}"
            if kind == "finish" and not text:
                text = str(args.get("final_thought") or "")
        self.call_of_event[eid] = call_id
        call = ToolCall(id=call_id, name=name, input=call_input)
        last = self._last
        if (
            response_id is not None
            and last is not None
            and last.role == "assistant"
            and self._response_of_last == response_id
        ):
            # One model response with several tool calls: one assistant message.
            self._last = Message(last.id, last.parent, "assistant", (*last.blocks, call), last.meta)
            self._response_of_last = response_id
            return
        blocks: list[Block] = [TextBlock(text)] if text else []
        blocks.append(call)
        self.add(f"e{eid}", "assistant", blocks, meta)
        self._response_of_last = response_id

    def observation(self, at: str, eid: Any, ev: Mapping[str, Any], meta: dict[str, Any]) -> None:
        kind = str(ev.get("observation"))
        meta["observation"] = kind
        if kind in _SKIP_OBSERVATIONS:
            self.skip(f"observation {kind}")
            return
        extras = ev.get("extras") if isinstance(ev.get("extras"), Mapping) else {}
        assert isinstance(extras, Mapping)
        text = ev.get("content")
        if not isinstance(text, str):
            text = str(ev.get("message") or "")
        if kind == "recall":
            meta["kind"] = "recall"
            self.add(f"e{eid}", "user", [TextBlock(_recall_text(text, extras))], meta)
            return
        suffix = (
            extras.get("metadata", {}).get("suffix")
            if isinstance(extras.get("metadata"), Mapping)
            else None
        )
        if isinstance(suffix, str) and suffix:
            text += suffix  # what OpenHands appends before sending a command's output
        content: list[TextBlock | ImageBlock] = [TextBlock(text)] if text else []
        shot = extras.get("screenshot")
        if isinstance(shot, str) and shot:
            block = image_or_note(
                shot if shot.startswith("data:") else f"data:image/png;base64,{shot}",
                "screenshot",
                at,
                self.warns,
            )
            if isinstance(block, TextBlock | ImageBlock):
                content.append(block)
        call_id = self.call_of_event.get(ev.get("cause"))
        tcm = ev.get("tool_call_metadata")
        if call_id is None and isinstance(tcm, Mapping) and tcm.get("tool_call_id"):
            call_id = str(tcm["tool_call_id"])  # linked by id only: reported if orphaned
        if call_id is None:
            # No action to answer: OpenHands shows such observations as user text.
            meta["kind"] = "observation"
            self.add(f"e{eid}", "user", content or [TextBlock("")], meta)
            return
        result = ToolResult(call_id=call_id, content=tuple(content), is_error=kind == "error")
        self.add(f"e{eid}", "tool", [result], meta)

    # -- older logs without ids -----------------------------------------------

    def positional(self, events: Iterable[Any]) -> None:
        open_call: str | None = None
        seen_message = False
        for index, ev in enumerate(events):
            at = f"{self.where}: event {index}"
            if not isinstance(ev, Mapping):
                self.skip("non-object event")
                continue
            meta: dict[str, Any] = {"event_index": index}
            if "action" in ev:
                kind = str(ev["action"])
                meta["action"] = kind
                if kind in _SKIP_ACTIONS:
                    self.skip(f"action {kind}")
                    continue
                args = ev.get("args") if isinstance(ev.get("args"), Mapping) else ev
                assert isinstance(args, Mapping)
                if kind == "message":
                    text = str(args.get("content") or "")
                    role: Role = "assistant" if seen_message else "user"
                    seen_message = True
                    self.add(f"e{index}", role, [TextBlock(text)] if text else [], meta)
                    continue
                call_id = f"oh-{index}"
                call_input = {
                    k: v
                    for k, v in args.items()
                    if k not in _ARG_NOISE
                    and k not in ("action", "action_risk", "keep_prompt", "is_confirmed")
                }
                thought = str(args.get("thought") or "")
                blocks: list[Block] = [TextBlock(thought)] if thought else []
                blocks.append(ToolCall(call_id, kind, call_input))
                self.add(f"e{index}", "assistant", blocks, meta)
                open_call = call_id
            elif "observation" in ev:
                kind = str(ev["observation"])
                meta["observation"] = kind
                if kind in _SKIP_OBSERVATIONS:
                    self.skip(f"observation {kind}")
                    continue
                text = str(ev.get("content") or "")
                content = (TextBlock(text),) if text else ()
                if open_call is None:
                    meta["kind"] = "observation"
                    self.add(f"e{index}", "user", [TextBlock(text)], meta)
                    continue
                self.add(
                    f"e{index}", "tool", [ToolResult(open_call, content, kind == "error")], meta
                )
                open_call = None
            else:
                self.skip("event without action or observation")
                self.warns.append(f"{at}: neither an action nor an observation; skipped")

    def conversation(self, conv_id: str, source: str, meta: Mapping[str, Any]) -> Conversation:
        tip = self._last.id if self._last is not None else None
        messages = self.finish()
        self.warns.extend(pairing_warnings(messages, self.where))
        full = {**self.meta, **meta}
        if self.skipped:
            full["skipped"] = dict(self.skipped)
        return Conversation(
            id=conv_id,
            messages=messages,
            tip=tip,
            format=NAME,
            source=source,
            meta=full,
            warnings=tuple(self.warns),
        )


def _response_message(response: Mapping[str, Any]) -> Mapping[str, Any] | None:
    choices = response.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        message = choices[0].get("message")
        if isinstance(message, Mapping):
            return message
    return None


def _recall_text(content: str, extras: Mapping[str, Any]) -> str:
    """The workspace context a recall adds: its content plus what it retrieved."""
    parts = [content] if content else []
    for key in ("repo_instructions", "additional_agent_instructions"):
        value = extras.get(key)
        if isinstance(value, str) and value.strip():
            parts.append(value)
    for item in extras.get("microagent_knowledge") or ():
        if isinstance(item, Mapping) and item.get("content"):
            parts.append(f"<{item.get('name', 'microagent')}>\n{item['content']}")
    return "\n\n".join(parts)


def _flatten(history: Iterable[Any]) -> Iterator[Any]:
    """Old logs store ``[action, observation]`` pairs; newer ones a flat list."""
    for item in history:
        if isinstance(item, list):
            yield from item
        else:
            yield item


def _has_ids(events: Iterable[Any]) -> bool:
    return any(
        isinstance(e, Mapping) and "id" in e and ("source" in e or "cause" in e) for e in events
    )


def conversation_from_events(
    events: Callable[[], Iterable[Any]],
    *,
    conv_id: str,
    source: str,
    where: str,
    meta: Callable[[], Mapping[str, Any]],
    spilled: bool = False,
) -> Conversation:
    """The events' conversation. ``events`` gives them anew each call: they are read
    twice, once to tell the two layouts apart and once to convert; ``meta`` is asked
    for once they are read (a streamed document's fields after them are known then)."""
    builder = _Builder(where, spilled)
    has_ids = _has_ids(_flatten(events()))
    flat = _flatten(events())
    if has_ids:
        for index, ev in enumerate(flat):
            builder.event(index, ev)
    else:
        builder.positional(flat)
    if builder.made == 0:
        builder.warns.append(f"{where}: no events with content")
    return builder.conversation(conv_id, source, meta())


def _scalar(value: Any) -> str | None:
    if isinstance(value, str | int | float | bool) or value is None:
        return str(value)
    return None


def _line_meta(record: Mapping[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for key, value in record.items():
        if key == "history":
            continue
        if _scalar(value) is not None and len(str(value)) <= 200:
            meta[key] = value
    return meta


def _given(value: _T) -> Callable[[], _T]:
    """``value``, each time it is asked for (an instance held in memory, read twice)."""
    return lambda: value


def _load_jsonl(path: Path, options: ImportOptions) -> list[Conversation]:
    warns: list[str] = []
    out: list[Conversation] = []
    lines = 0
    for lineno, record in iter_jsonl(path, warns):
        lines += 1
        where = f"{path}:{lineno}"
        if not isinstance(record, Mapping) or not isinstance(record.get("history"), list):
            warns.append(f"{where}: not an OpenHands instance (no 'history' list); skipped")
            continue
        if options.select and not all(
            (str(lineno) == want if key == "line" else _scalar(record.get(key)) == want)
            for key, want in options.select.items()
        ):
            continue
        instance = record.get("instance_id")
        conv_id = str(instance) if instance else f"{path.stem}#{lineno}"
        meta = {"line": lineno, **_line_meta(record)}
        history = record["history"]
        conv = conversation_from_events(
            _given(history),
            conv_id=conv_id,
            source=str(path),
            where=where,
            meta=_given(meta),
        )
        out.append(conv)
    if not out and not options.select:
        detail = f" ({'; '.join(warns[:3])})" if warns else ""
        raise TranscriptError(f"{path}: no OpenHands instances found{detail}")
    if warns:
        # File-level problems (malformed lines) belong to every conversation read from it.
        out = [with_file_warnings(c, warns) for c in out]
    return out


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: a folder; openhands-events imports a .json or .jsonl file")
    if path.suffix == ".jsonl":
        return _load_jsonl(path, options)
    try:
        return _load_document(path, options)
    except TranscriptError as exc:
        if "Extra data" in str(exc):  # JSON lines under another name
            return _load_jsonl(path, options)
        raise


def _load_document(path: Path, options: ImportOptions) -> list[Conversation]:
    """A ``.json`` log: a list of events, or an object with a ``history`` list, read
    one event at a time (twice: the layout is told apart first)."""
    doc = JSONDocument(path, "history")
    if doc.shape == "object" and not doc.found:
        raise TranscriptError(f"{path}: an object without a 'history' list of events")
    if doc.shape == "other":
        raise TranscriptError(f"{path}: expected a list of OpenHands events")
    doc.close()
    reading = doc

    def events() -> Iterator[Any]:
        nonlocal reading
        reading = JSONDocument(path, "history")
        return reading.items()

    def meta() -> dict[str, Any]:
        # The fields of the read that converted (the last one), complete by now.
        return _line_meta(reading.fields) if doc.shape == "object" else {}

    conv = conversation_from_events(
        events,
        conv_id=path.stem,
        source=str(path),
        where=str(path),
        meta=meta,
        spilled=path.stat().st_size >= spill.SPILL_BYTES,
    )
    file_meta = meta()
    if options.select and not all(
        _scalar(file_meta.get(k)) == v for k, v in options.select.items()
    ):
        return []
    return [conv]


_EVENT_KEYS = re.compile(r'"(action|observation)"\s*:\s*"')


def score(path: Path, head: bytes) -> float:
    """0.85 for a list of events (or an object's ``history``) with action/observation keys.

    >>> score(Path("t.json"), b'[{"id": 0, "source": "user", "action": "message"}]')
    0.85
    """
    if path.is_dir():
        return 0.0
    text = head_text(head)
    ours = False
    if text.startswith("["):
        ours = '"source"' in text and _EVENT_KEYS.search(text) is not None
    elif text.startswith("{"):
        ours = '"history"' in text and _EVENT_KEYS.search(text) is not None
    return 0.85 if ours else 0.0


FORMAT = Format(
    name=NAME,
    description="OpenHands event stream: trajectory JSON or output.jsonl (select instance_id)",
    score=score,
    load=load,
)
