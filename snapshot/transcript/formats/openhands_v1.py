"""OpenHands V1 (software-agent-sdk, OpenHands CLI) conversation folders → the neutral model.

The agent SDK persists one conversation as a folder,
``~/.openhands/conversations/<id>/``: ``base_state.json`` (the agent's settings
and the run's state) and ``events/event-<5-digit index>-<uuid>.json``, one
event per file. The CLI's recorded trajectories keep the event files flat in
the folder, without ``base_state.json``; both import.

Every event has a ``kind``; what the model saw, following each event's own
``to_llm_message``:

- ``SystemPromptEvent`` → system message (``system_prompt`` and its
  ``dynamic_context``); the tool schemas go to ``meta["tools"]``.
- ``MessageEvent`` → a user or assistant message from ``llm_message``
  (text and image parts, ``thinking_blocks`` or ``reasoning_content`` as
  thinking, ``extended_content`` appended as text).
- ``ActionEvent`` → an assistant message: its thinking, its ``thought`` text
  and a tool call (``tool_call_id``, ``tool_name``, the call's JSON
  ``arguments``). Actions sharing one ``llm_response_id`` are one message
  (parallel tool calls).
- ``ObservationEvent`` → a tool result for the action it names
  (``action_id`` = the action's ``id``; its ``tool_call_id`` is the call's id);
  ``UserRejectObservation`` and ``AgentErrorEvent`` are error results.
- ``CondensationSummaryEvent`` → user text marked ``compact_summary``;
  ``Condensation`` → a ``compact_boundary`` system message (and its summary).
- State updates, pauses and condensation requests are bookkeeping the model
  never sees: skipped, counted in ``meta["skipped"]`` and a warning.

Sub-agents, as the SDK writes them (OpenHands/software-agent-sdk, read at
``openhands-tools/openhands/tools/task/manager.py``,
``openhands-tools/openhands/tools/delegate/impl.py`` and
``openhands-sdk/openhands/sdk/conversation/impl/local_conversation.py``):

- ``task`` calls (``TaskToolSet``): each task runs as its own conversation,
  persisted when the parent is in ``<parent folder>/subagents/<conversation id
  hex>/`` (``base_state.json`` + ``events/``; a parent without persistence puts
  them in a temporary folder removed at close). Each such folder imports as its
  own conversation: the parent's id, ``agent`` = the folder name,
  ``meta["parent_conversation"]``, and ``meta["task_call"]`` = the parent's call
  that started it. Neither the ``TaskAction`` nor the ``TaskObservation``
  (``task_id`` such as ``task_00000001``, ``subagent``, ``status``) names the
  folder, so the link is made the way the SDK starts a task: the sub-agent's
  first user message is the call's ``prompt``. A task call with no such folder,
  and a folder no call matches, is reported in the warnings.
- ``delegate`` calls (``DelegateTool``, the one the OpenHands CLI offers):
  spawned sub-agents are ``LocalConversation`` objects created without a
  ``persistence_dir``, so nothing of them is written to disk; the only trace is
  the combined result text in the ``DelegateObservation``. There is nothing to
  link: each ``delegate`` call is named in the warnings (and counted in
  ``meta["unlinked_delegations"]``) as having sub-agents whose transcripts are
  not on disk. None of the samples in ``../shared/corpus/formats`` calls either
  tool (the CLI samples only offer ``DelegateTool`` in their tool list).

>>> from snapshot.transcript.formats.openhands_v1 import FORMAT
>>> FORMAT.name
'openhands-v1'
"""

from __future__ import annotations

import contextlib
import os
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.files import RefusedFileError, open_inside
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    image_or_note,
    load_json,
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

NAME = "openhands-v1"

EVENT_FILE = re.compile(r"^event-(\d+)-[0-9a-fA-F-]+\.json$")

# Where TaskToolSet persists a sub-agent's conversation, inside its parent's folder.
SUBAGENTS_DIR = "subagents"
# Tool names (the tool classes' names without "Tool", snake case) that start sub-agents.
TASK_TOOLS = frozenset({"task"})
DELEGATE_TOOLS = frozenset({"delegate"})

# Events the SDK keeps for itself: never part of what the model is sent.
_BOOKKEEPING = {
    "ConversationStateUpdateEvent",
    "PauseEvent",
    "CondensationRequest",
    "ConversationErrorEvent",
    "TokenEvent",
    "StreamingDeltaEvent",
}


def _event_listing(folder: Path) -> tuple[Path, list[str], int]:
    """Where a folder's event files are, their names in index order, and their total bytes.

    Only the names are sorted (the events are read one at a time after); the
    bytes decide whether the conversation's messages spill to disk.
    """
    where = folder / "events" if (folder / "events").is_dir() else folder
    keyed: list[tuple[int, str]] = []
    total = 0
    try:
        with os.scandir(where) as entries:
            for entry in entries:
                match = EVENT_FILE.match(entry.name)
                if match is None:
                    continue
                keyed.append((int(match.group(1)), entry.name))
                with contextlib.suppress(OSError):  # an unreadable file is reported when read
                    total += entry.stat(follow_symlinks=False).st_size
    except OSError:
        return where, [], 0
    keyed.sort(key=lambda k: k[0])  # stable: equal indexes stay in directory order, as before
    return where, [name for _, name in keyed], total


def event_files(folder: Path) -> list[Path]:
    """The event files of a conversation folder, in index order."""
    where, names, _ = _event_listing(folder)
    return [where / name for name in names]


def _texts(parts: Any) -> list[str]:
    """The text of a list of SDK ``TextContent`` parts (or one string)."""
    if isinstance(parts, str):
        return [parts]
    if isinstance(parts, Mapping):
        parts = [parts]
    if not isinstance(parts, list):
        return []
    return [str(p.get("text")) for p in parts if isinstance(p, Mapping) and p.get("text")]


def _list(value: Any) -> list[Any]:
    """``value`` when it is a list, else nothing (a hostile file may put anything there)."""
    return value if isinstance(value, list) else []


def _thinking(ev: Mapping[str, Any]) -> list[Block]:
    out: list[Block] = []
    for tb in _list(ev.get("thinking_blocks")):
        if not isinstance(tb, Mapping):
            continue
        if tb.get("type") == "redacted_thinking":
            out.append(ThinkingBlock("", str(tb.get("data") or "")))
        else:
            out.append(ThinkingBlock(str(tb.get("thinking") or ""), tb.get("signature")))
    reasoning = ev.get("reasoning_content")
    if not out and isinstance(reasoning, str) and reasoning:
        out.append(ThinkingBlock(reasoning))
    return out


class _Builder:
    """Messages of one folder, as its events are read.

    The newest message stays here (``_pending``) until the next one comes, so
    parallel tool calls join it without rewriting a stored message; the ones
    before it go to ``messages``, a list or (a large folder) a spill on disk.
    Call :meth:`finish` before reading ``messages``. What the end of the import
    needs of every message is kept as each is stored, so a spill is not parsed
    back: its tool calls and results without their content (for the pairing
    check) and its sub-agent calls.
    """

    def __init__(self, where: str, spill_file: spill.SpillFile | None = None) -> None:
        self.where = where
        self.messages = spill.message_sink(spill_file is not None, spill_file)
        self._pending: Message | None = None
        self._count = 0  # messages so far, the pending one included
        self._recent: deque[str] = deque(maxlen=3)  # ids of the newest three messages
        self.last: str | None = None  # the newest message's id: the tip
        self.warns: list[str] = []
        self.skipped: dict[str, int] = {}
        self.meta: dict[str, Any] = {}
        self.call_of_action: dict[str, str] = {}
        self._last_response: str | None = None
        self.tool_ids: list[ToolCall | ToolResult] = []  # in order, arguments and content dropped
        self.subagent_calls: list[ToolCall] = []  # task and delegate calls, whole

    def skip(self, kind: str) -> None:
        self.skipped[kind] = self.skipped.get(kind, 0) + 1

    def add(self, mid: str, role: Role, blocks: Sequence[Block], meta: dict[str, Any]) -> None:
        if mid in self._recent:
            mid = f"{mid}-{self._count}"
        self.finish()
        self._pending = Message(mid, self.last, role, tuple(blocks), meta)
        self._count += 1
        self._recent.append(mid)
        self.last = mid
        self._last_response = None

    def finish(self) -> None:
        """Store the pending message: ``messages`` then holds every message so far."""
        m = self._pending
        if m is None:
            return
        self.messages.append(m)
        self._pending = None
        for block in m.blocks:
            if isinstance(block, ToolCall):
                self.tool_ids.append(ToolCall(block.id, block.name, {}))
                if block.name in TASK_TOOLS or block.name in DELEGATE_TOOLS:
                    self.subagent_calls.append(block)
            elif isinstance(block, ToolResult):
                self.tool_ids.append(ToolResult(block.call_id, (), block.is_error))

    def pairing_warnings(self) -> list[str]:
        """:func:`pairing_warnings` of the messages, from the kept ids alone."""
        # One stand-in message holding every call and result in order: the pairing
        # check reads only their ids, in order, whatever message holds them.
        ids = Message("", None, "tool", tuple(self.tool_ids))
        return pairing_warnings([ids], self.where)

    def content(self, parts: Any, at: str) -> list[TextBlock | ImageBlock]:
        out: list[TextBlock | ImageBlock] = []
        if isinstance(parts, str):
            return [TextBlock(parts)] if parts else []
        for part in parts if isinstance(parts, list) else ():
            if not isinstance(part, Mapping):
                continue
            if part.get("type") == "image":
                for url in _list(part.get("image_urls")):
                    if isinstance(url, str):
                        block = image_or_note(url, "inline", at, self.warns)
                        if isinstance(block, TextBlock | ImageBlock):
                            out.append(block)
            elif part.get("text"):
                out.append(TextBlock(str(part["text"])))
        return out

    def event(self, ev: Any, at: str) -> None:
        if not isinstance(ev, Mapping):
            self.skip("non-object event")
            return
        kind = str(ev.get("kind") or "")
        eid = str(ev.get("id") or at)
        meta: dict[str, Any] = {"event_id": eid, "kind_v1": kind}
        if ev.get("timestamp"):
            meta["timestamp"] = ev["timestamp"]
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, ev, eid, meta, at)
        elif kind in _BOOKKEEPING:
            self.skip(kind)
        else:
            self.skip(kind or "event without kind")
            self.warns.append(f"{at}: unknown event kind {kind!r}; skipped")

    def system(self, ev: Mapping[str, Any], eid: str, meta: dict[str, Any], at: str) -> None:
        text = "\n\n".join([*_texts(ev.get("system_prompt")), *_texts(ev.get("dynamic_context"))])
        if isinstance(ev.get("tools"), list):
            self.meta["tools"] = ev["tools"]
        self.add(eid, "system", [TextBlock(text)], meta)

    def message(self, ev: Mapping[str, Any], eid: str, meta: dict[str, Any], at: str) -> None:
        msg = ev.get("llm_message")
        if not isinstance(msg, Mapping):
            self.skip("MessageEvent without llm_message")
            return
        roles: dict[Any, Role] = {"user": "user", "assistant": "assistant", "system": "system"}
        role = roles.get(
            str(msg.get("role")), "user" if ev.get("source") == "user" else "assistant"
        )
        blocks: list[Block] = [*_thinking(msg)]
        blocks.extend(self.content(msg.get("content"), at))
        for text in _texts(ev.get("extended_content")):
            blocks.append(TextBlock(text))
        if _list(ev.get("activated_skills")):
            meta["activated_skills"] = list(ev["activated_skills"])
        self.add(eid, role, blocks, meta)

    def action(self, ev: Mapping[str, Any], eid: str, meta: dict[str, Any], at: str) -> None:
        call_id = str(ev.get("tool_call_id") or f"oh-{eid}")
        raw = ev.get("tool_call")
        name = str(ev.get("tool_name") or "")
        args: dict[str, Any]
        if isinstance(raw, Mapping) and "arguments" in raw:
            name = name or str(raw.get("name") or "")
            args = parse_arguments(raw.get("arguments"), f"{at} call {call_id}", self.warns)
        else:
            action = ev.get("action")
            args = (
                {k: v for k, v in action.items() if k != "kind"}
                if isinstance(action, Mapping)
                else {}
            )
        call = ToolCall(call_id, name or "unknown", args)
        self.call_of_action[eid] = call_id
        response = ev.get("llm_response_id")
        last = self._pending
        if (
            isinstance(response, str)
            and last is not None
            and last.role == "assistant"
            and self._last_response == response
        ):
            # One model response with several tool calls: one assistant message.
            self._pending = Message(
                last.id, last.parent, "assistant", (*last.blocks, call), last.meta
            )
            return
        blocks: list[Block] = [*_thinking(ev)]
        blocks.extend(TextBlock(t) for t in _texts(ev.get("thought")))
        blocks.append(call)
        if isinstance(response, str):
            meta["llm_response_id"] = response
        self.add(eid, "assistant", blocks, meta)
        self._last_response = response if isinstance(response, str) else None

    def observation(self, ev: Mapping[str, Any], eid: str, meta: dict[str, Any], at: str) -> None:
        kind = str(ev.get("kind"))
        call_id = self.call_of_action.get(str(ev.get("action_id")))
        if call_id is None and ev.get("tool_call_id"):
            call_id = str(ev["tool_call_id"])  # linked by id only: reported if orphaned
        is_error = kind != "ObservationEvent"
        content: list[TextBlock | ImageBlock]
        if kind == "UserRejectObservation":
            reason = ev.get("rejection_reason") or "User rejected the action"
            content = [TextBlock(f"Action rejected: {reason}")]
        elif kind == "AgentErrorEvent":
            content = [TextBlock(str(ev.get("error") or ""))]
        else:
            obs = ev.get("observation") if isinstance(ev.get("observation"), Mapping) else {}
            assert isinstance(obs, Mapping)
            is_error = bool(obs.get("is_error"))
            content = self.content(obs.get("content"), at)
            md = obs.get("metadata") if isinstance(obs.get("metadata"), Mapping) else {}
            assert isinstance(md, Mapping)
            # What the terminal tool wraps around a command's output.
            if isinstance(md.get("prefix"), str) and md["prefix"]:
                content.insert(0, TextBlock(md["prefix"]))
            if isinstance(md.get("suffix"), str) and md["suffix"]:
                content.append(TextBlock(md["suffix"]))
            content.extend(TextBlock(t) for t in _texts(ev.get("extended_content")))
        if call_id is None:
            meta["kind"] = "observation"
            self.add(eid, "user", content or [TextBlock("")], meta)
            return
        self.add(eid, "tool", [ToolResult(call_id, tuple(content), is_error)], meta)

    def summary(self, ev: Mapping[str, Any], eid: str, meta: dict[str, Any], at: str) -> None:
        meta["compact_summary"] = True
        self.add(eid, "user", [TextBlock(str(ev.get("summary") or ""))], meta)

    def condensation(self, ev: Mapping[str, Any], eid: str, meta: dict[str, Any], at: str) -> None:
        forgotten = ev.get("forgotten_event_ids") or []
        n = len(forgotten) if isinstance(forgotten, list) else 0
        self.add(
            eid,
            "system",
            [TextBlock(f"Conversation condensed: {n} earlier events forgotten")],
            {**meta, "kind": "compact_boundary", "forgotten_events": n},
        )
        if isinstance(ev.get("summary"), str) and ev["summary"]:
            self.add(
                f"{eid}-summary",
                "user",
                [TextBlock(ev["summary"])],
                {"event_id": eid, "compact_summary": True},
            )


_HANDLERS = {
    "SystemPromptEvent": _Builder.system,
    "MessageEvent": _Builder.message,
    "ActionEvent": _Builder.action,
    "ObservationEvent": _Builder.observation,
    "UserRejectObservation": _Builder.observation,
    "AgentErrorEvent": _Builder.observation,
    "CondensationSummaryEvent": _Builder.summary,
    "Condensation": _Builder.condensation,
}


def _base_meta(folder: Path, warns: list[str]) -> dict[str, Any]:
    """What is worth keeping from ``base_state.json`` (never the API key)."""
    path = folder / "base_state.json"
    if not path.is_file():
        return {}
    try:
        state = load_json(path, inside=folder)
    except TranscriptError as exc:
        warns.append(f"{exc}; the conversation's settings are missing")
        return {}
    if not isinstance(state, Mapping):
        return {}
    meta: dict[str, Any] = {"conversation_id": state.get("id")}
    agent = state.get("agent") if isinstance(state.get("agent"), Mapping) else {}
    assert isinstance(agent, Mapping)
    llm = agent.get("llm") if isinstance(agent.get("llm"), Mapping) else {}
    assert isinstance(llm, Mapping)
    if llm.get("model"):
        meta["model"] = llm["model"]
    workspace = state.get("workspace")
    if isinstance(workspace, Mapping) and workspace.get("working_dir"):
        meta["working_dir"] = workspace["working_dir"]
    if state.get("execution_status"):
        meta["execution_status"] = state["execution_status"]
    return meta


def _read_folder(path: Path, spills: list[spill.SpillFile]) -> tuple[_Builder, dict[str, Any]]:
    """The messages, warnings and metadata of one conversation folder.

    ``spills``: the one spill file of this import, once a folder needs it.
    """
    where, names, size = _event_listing(path)
    if not names:
        raise TranscriptError(f"{path}: no event-NNNNN-<id>.json files; not an OpenHands V1 folder")
    # A large conversation keeps its messages on disk as they are read (spill.py),
    # every large sub-agent folder in the same file.
    if size >= spill.SPILL_BYTES and not spills:
        spills.append(spill.SpillFile())
    builder = _Builder(str(path), spills[0] if size >= spill.SPILL_BYTES else None)
    meta = _base_meta(path, builder.warns)
    for i, name in enumerate(names):
        f = where / name
        try:
            ev = load_json(f, inside=path)
        except TranscriptError as exc:
            if i == len(names) - 1 and not isinstance(
                exc, RefusedFileError
            ):  # the SDK writes one file per event, the last one maybe now
                builder.warns.append(
                    f"{f}: the last event file is partial (the conversation was still running?); "
                    "the events before it were imported"
                )
            else:
                builder.warns.append(f"{exc}; event skipped")
            builder.skip("unreadable event file")
            continue
        builder.event(ev, str(f))
        del ev  # not held while the next file is parsed
    builder.finish()
    if builder.skipped:
        meta["skipped"] = dict(builder.skipped)
        builder.warns.append(skipped_warning(str(path), "an event the model sees", builder.skipped))
    builder.warns.extend(builder.pairing_warnings())
    meta.update(builder.meta)
    return builder, meta


def _conversation(
    path: Path, builder: _Builder, meta: dict[str, Any], conv_id: str, agent: str
) -> Conversation:
    return Conversation(
        id=conv_id,
        messages=spill.frozen(builder.messages),
        tip=builder.last,
        agent=agent,
        format=NAME,
        source=str(path),
        meta=meta,
        warnings=tuple(builder.warns),
    )


def _subagent_folders(path: Path) -> list[Path]:
    """``subagents/<conversation id hex>/`` folders that hold events (TaskToolSet's)."""
    where = path / SUBAGENTS_DIR
    if not where.is_dir() or where.is_symlink():
        return []
    try:
        return sorted(
            d for d in where.iterdir() if d.is_dir() and not d.is_symlink() and event_files(d)
        )
    except OSError:
        return []


def _first_user_text(messages: Sequence[Message]) -> str:
    for m in messages:
        if m.role == "user":
            return m.text().strip()
    return ""


def _delegations(
    path: Path, calls: Iterable[ToolCall], subs: Mapping[str, Sequence[Message]]
) -> tuple[dict[str, str], list[str]]:
    """Which sub-conversation each task call started, and a warning per call not linked.

    ``calls``: the parent's tool calls in order (those of other tools are ignored).

    A ``task`` call (TaskToolSet) is linked to the sub-conversation whose first
    user message is the call's ``prompt`` (the SDK sends the prompt as that
    message; neither the action nor the observation names the sub-conversation's
    folder). A ``delegate`` call (DelegateTool) is never linked: its sub-agents
    are not written to disk.
    """
    by_prompt: dict[str, str] = {}
    for agent, messages in subs.items():
        by_prompt.setdefault(_first_user_text(messages), agent)
    linked: dict[str, str] = {}
    warns: list[str] = []
    for call in calls:
        if call.name in TASK_TOOLS and isinstance(call.input.get("prompt"), str):
            started = by_prompt.pop(call.input["prompt"].strip(), "")
            if started:
                linked[started] = call.id
            else:
                warns.append(
                    f"{path}: {call.name} call {call.id}: no sub-conversation under "
                    f"{SUBAGENTS_DIR}/ starts with its prompt (a parent without "
                    "persistence keeps its sub-agents in a temporary folder, removed at "
                    "close); only the call's result is imported"
                )
        elif call.name in DELEGATE_TOOLS and call.input.get("command") == "delegate":
            tasks = call.input.get("tasks")
            names = ", ".join(map(str, tasks)) if isinstance(tasks, Mapping) else "?"
            warns.append(
                f"{path}: {call.name} call {call.id} (sub-agents {names}): DelegateTool runs "
                "its sub-agents without a persistence folder, so their transcripts are not "
                "on disk; only the combined result in its observation is imported"
            )
    return linked, warns


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if options.select:
        raise TranscriptError(
            f"{path}: an OpenHands V1 folder holds one conversation; drop --select"
        )
    if not path.is_dir():
        raise TranscriptError(
            f"{path}: openhands-v1 imports a conversation folder (base_state.json + events/), "
            "not one file; give the folder"
        )
    spills: list[spill.SpillFile] = []
    builder, meta = _read_folder(path, spills)
    conv_id = str(meta.get("conversation_id") or path.name)
    subs = {d.name: _read_folder(d, spills) for d in _subagent_folders(path)}
    linked, unlinked = _delegations(
        path, builder.subagent_calls, {k: b.messages for k, (b, _) in subs.items()}
    )
    builder.warns.extend(unlinked)
    if unlinked:
        meta["unlinked_delegations"] = len(unlinked)
    out = [_conversation(path, builder, meta, conv_id, "main")]
    for agent, (sub, sub_meta) in subs.items():
        sub_meta = {**sub_meta, "parent_conversation": conv_id}
        if agent in linked:
            sub_meta["task_call"] = linked[agent]
        else:
            sub.warns.append(
                f"{path / SUBAGENTS_DIR / agent}: no task call of the parent has this "
                "sub-conversation's first message as its prompt; imported unlinked"
            )
        out.append(_conversation(path / SUBAGENTS_DIR / agent, sub, sub_meta, conv_id, agent))
    return out


def score(path: Path, head: bytes) -> float:
    if not path.is_dir():
        return 0.0
    files = event_files(path)
    if not files:
        return 0.0
    try:
        with open_inside(files[0], path) as fh:
            first = fh.read(4096)
    except (OSError, TranscriptError):
        return 0.0
    looks = b'"kind"' in first or b'"source"' in first
    if (path / "base_state.json").is_file() and (path / "events").is_dir():
        return 1.0 if looks else 0.8
    return 0.95 if looks else 0.0


FORMAT = Format(
    name=NAME,
    description="OpenHands V1 / agent-sdk conversation folder: base_state.json + events/*.json",
    load=load,
    score=score,
    # A critic model's verdict on a turn: shown in the UI, never sent to the agent's model;
    # the tool definitions a system prompt event carries are declarations, not conversation.
    unread_keys=frozenset({"critic_result", "tools"}),
)
