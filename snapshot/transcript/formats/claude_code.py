"""Claude Code session JSONL and Claude Agent SDK stream-json → the neutral model.

Claude Code (``~/.claude/projects/<project>/<session>.jsonl``)
    One JSON record per line. ``user`` and ``assistant`` records carry an API
    ``message``; one API response is split over several ``assistant`` records
    that share ``message.id`` (one content block each), and since Claude Code
    2.1 the results of parallel tool calls are written *between* those
    records. We merge every record of one API message into one
    :class:`Message` (what the model actually produced) and re-chain the
    interleaved results behind it, so the path from the tip stays linear.

    ``parentUuid`` gives the tree; records we do not keep (``progress``,
    ``file-history-snapshot``, ``attachment``, hook ``system`` records, ...)
    are transparent: a message whose parent is a skipped record continues
    from that record's nearest kept ancestor. Skipped records are counted by
    type in the warnings.

    The ``{"type":"system","subtype":"compact_boundary"}`` record is kept as a
    system message with ``meta["kind"] = "compact_boundary"``. Its
    ``parentUuid`` is null (the compacted session restarts from the summary);
    we link it to ``logicalParentUuid`` instead, so the path from the tip is
    the whole session — pre-compaction history, boundary, real summary, rest —
    and a reader wanting only what the model saw after compaction cuts at the
    boundary. The user record with ``isCompactSummary: true`` keeps
    ``meta["compact_summary"] = True``.

    A parent that is not in the file (a subagent's or compaction agent's
    context lives in the main session; a pruned pre-compaction tip) is
    replaced by the previous message in file order, and counted in a warning.
    Rewinds and edits stay branches of the tree; the tip is the last message
    written. Message ids are the ``uuid`` of the message's first record.

    Subagent files (``<session>/subagents/agent-<id>.jsonl``, and the older
    ``<project>/agent-<id>.jsonl``) import as their own conversation with the
    session's id and ``agent`` set to the agent id; sidechain records found
    inside a session file are split off the same way.

Claude Agent SDK stream-json (``agent_log_raw.txt``)
    The same API messages without ``uuid``/``parentUuid`` links: a linear
    stream of ``system``/``init``, ``assistant``, ``user``, ``result`` records.
    The first user turn is not in the log but in the sibling prompt file
    (``…agent_log_raw…`` → ``…prompt…``). Records with a ``parent_tool_use_id``
    belong to a subagent and become their own conversation (``agent`` = that
    tool-use id). After a ``compact_boundary`` the synthetic user message
    holding the summary is marked ``compact_summary``.

Both read the file line by line; a line is never longer than
:data:`~snapshot.transcript.formats._common.MAX_RECORD_BYTES` in memory. A
Claude Code file of :data:`~snapshot.transcript.spill.SPILL_BYTES` or more
keeps its messages on disk (:mod:`snapshot.transcript.spill`) as it reads:
only the newest :data:`OPEN_DRAFTS` stay open to absorb further records of
their API message, and a record of one already written rewrites it there. An
Agent SDK log of that size does the same per agent, with one draft open per
agent (only the adjacent record of an API response merges into it).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    ImageTooLarge,
    Warnings,
    add_pairing_warnings,
    head_records,
    image_header,
    iter_json_objects,
    matches_select,
    read_prompt,
    read_sibling,
    str_field,
)
from snapshot.transcript.formats.qwen_code import QWEN_REFUSAL, is_qwen_code
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

NAME = "claude-code-jsonl"


# --- images in Anthropic content blocks -------------------------------------------


def decode_image(
    b64: Any, declared: str | None, origin: str, where: str, warnings: Warnings
) -> ImageBlock | TextBlock:
    """A base64 image → ImageBlock; anything that is not an image → a visible placeholder.

    The placeholder keeps the spot in the transcript (a reader sees an image
    was there) and the warning says why it was dropped.
    """
    if not isinstance(b64, str):
        warnings.add(f"{where}: image without base64 data; replaced by a placeholder", "image")
        return TextBlock("[image omitted: no data]")
    try:
        data = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        try:
            # Some writers wrap lines or drop padding; be lenient before giving up.
            data = base64.b64decode(re.sub(r"\s+", "", b64) + "==", validate=False)
        except (binascii.Error, ValueError):
            warnings.add(f"{where}: image data is not valid base64; dropped", "image")
            return TextBlock("[image omitted: data is not valid base64]")
    try:
        media, width, height = image_header(data)  # the one header reader (images.py)
    except ImageTooLarge as exc:
        warnings.add(f"{where}: {exc}; dropped", "image")
        return TextBlock(f"[image omitted: {exc}]")
    except TranscriptError:
        warnings.add(
            f"{where}: image data ({len(data)} bytes, declared {declared or 'no type'}) "
            "is not a PNG, JPEG, GIF or WebP image; dropped",
            "image",
        )
        return TextBlock(f"[image omitted: {len(data)} bytes that are not an image]")
    if declared and declared != media:
        warnings.add(f"{where}: image declared {declared} but is {media}; using {media}", "image")
    return ImageBlock(media_type=media, data=data, width=width, height=height, origin=origin)


# --- Anthropic content blocks → model blocks -------------------------------------


def _tool_result_content(
    content: Any, where: str, warnings: Warnings
) -> tuple[TextBlock | ImageBlock, ...]:
    if content is None:
        return ()
    if isinstance(content, str):
        return (TextBlock(content),)
    if not isinstance(content, list):
        return (TextBlock(json.dumps(content, ensure_ascii=False)),)
    out: list[TextBlock | ImageBlock] = []
    for item in content:
        if not isinstance(item, dict):
            out.append(TextBlock(str(item)))
            continue
        kind = item.get("type")
        if kind == "text":
            out.append(TextBlock(str(item.get("text", ""))))
        elif kind == "image":
            out.append(_image_block(item, "tool_result", where, warnings))
        elif kind == "tool_reference":
            # Tool-search results name a tool the model may now call.
            out.append(TextBlock(str(item.get("tool_name", ""))))
        else:
            warnings.add(f"{where}: tool result part {kind!r} kept as JSON text", "part")
            out.append(TextBlock(json.dumps(item, ensure_ascii=False)))
    return tuple(out)


def _image_block(
    item: Mapping[str, Any], origin: str, where: str, warnings: Warnings
) -> ImageBlock | TextBlock:
    source = item.get("source")
    if not isinstance(source, dict):
        warnings.add(f"{where}: image block without a source; replaced by a placeholder", "image")
        return TextBlock("[image omitted: no source]")
    if source.get("type") == "base64":
        return decode_image(source.get("data"), source.get("media_type"), origin, where, warnings)
    if source.get("type") == "url":
        # Not a file and never fetched (no network): the placeholder keeps the URL.
        warnings.add(f"{where}: image given by URL is not fetched; kept as a placeholder", "image")
        return TextBlock(f"[image at {source.get('url')}]")
    warnings.add(
        f"{where}: image source {source.get('type')!r} not supported; placeholder", "image"
    )
    return TextBlock(f"[image omitted: {source.get('type')} source]")


def content_blocks(content: Any, where: str, warnings: Warnings) -> list[Block]:
    """Anthropic Messages content (a string or a list of blocks) → model blocks."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(content)]
    if not isinstance(content, list):
        warnings.add(f"{where}: message content of type {type(content).__name__}; kept as text")
        return [TextBlock(json.dumps(content, ensure_ascii=False))]
    out: list[Block] = []
    for item in content:
        if isinstance(item, str):
            out.append(TextBlock(item))
            continue
        if not isinstance(item, dict):
            warnings.add(f"{where}: content item {item!r:.40} is not an object; skipped", "item")
            continue
        kind = item.get("type")
        if kind == "text":
            out.append(TextBlock(str(item.get("text", ""))))
        elif kind == "thinking":
            out.append(ThinkingBlock(str(item.get("thinking", "")), item.get("signature")))
        elif kind == "redacted_thinking":
            out.append(ThinkingBlock("", item.get("data")))
        elif kind in ("tool_use", "server_tool_use"):
            raw_input = item.get("input")
            tool_input = raw_input if isinstance(raw_input, dict) else {"input": raw_input}
            out.append(ToolCall(str(item.get("id", "")), str(item.get("name", "")), tool_input))
        elif kind == "tool_result" or (isinstance(kind, str) and kind.endswith("_tool_result")):
            call_id = str(item.get("tool_use_id", ""))
            parts = _tool_result_content(item.get("content"), where, warnings)
            out.append(ToolResult(call_id, parts, bool(item.get("is_error", False))))
        elif kind == "image":
            out.append(_image_block(item, "inline", where, warnings))
        else:
            # Never drop content silently: keep it readable and say so.
            warnings.add(f"{where}: content block {kind!r} kept as JSON text", "block")
            out.append(TextBlock(json.dumps(item, ensure_ascii=False)))
    return out


# --- Claude Code session JSONL -------------------------------------------------------

# Records that become messages; every other type is skipped and counted
# (compact boundaries excepted, see the module docstring).
_MESSAGE_TYPES = ("user", "assistant")
_CC_KEYS = ("parentUuid", "sessionId", "uuid", "leafUuid", "messageId")
_CC_TYPES = {
    "user",
    "assistant",
    "system",
    "summary",
    "file-history-snapshot",
    "progress",
    "attachment",
    "queue-operation",
    "permission-mode",
    "last-prompt",
}
_SDK_TYPES = {"system", "assistant", "user", "result", "stream_event"}

_UNRESOLVED = object()


@dataclass
class _Draft:
    """A message being assembled from one or more records."""

    id: str
    role: Role
    parent: str | None
    blocks: list[Block]
    meta: dict[str, Any]
    line: int
    api_id: str | None = None

    @classmethod
    def of(cls, m: Message) -> _Draft:
        """A message already built, open again to absorb a late record of its API message."""
        return cls(m.id, m.role, m.parent, list(m.blocks), dict(m.meta), 0)

    def message(self) -> Message:
        return Message(self.id, self.parent, self.role, tuple(self.blocks), self.meta)

    def absorb(self, blocks: list[Block], msg: Mapping[str, Any]) -> None:
        """Take in another record of the same API message: its blocks, the latest usage."""
        self.blocks.extend(blocks)
        if isinstance(msg.get("usage"), dict):
            self.meta["usage"] = msg["usage"]


def _record_kind(rec: Mapping[str, Any]) -> str:
    """How a skipped record is counted: its type, with its subtype (or progress kind) when it has one."""
    kind = str_field(rec, "type")
    data = rec.get("data")
    if kind == "progress" and isinstance(data, dict) and isinstance(data.get("type"), str):
        return f"progress/{data['type']}"
    return str(kind) if rec.get("subtype") is None else f"{kind}/{rec['subtype']}"


def _has_agent_file(session: Path, agent: str, seen: dict[str, bool]) -> bool:
    """Is the sub-agent's own transcript beside the session file (``<session>/subagents/``
    or, older, ``agent-<id>.jsonl`` in the project folder)? Cached in ``seen``."""
    if agent not in seen:
        name = f"agent-{agent}.jsonl"
        seen[agent] = (session.with_suffix("") / "subagents" / name).is_file() or (
            session.parent / name
        ).is_file()
    return seen[agent]


def _inline_agent_record(
    rec: Mapping[str, Any], previous: Mapping[str, str]
) -> dict[str, Any] | None:
    """The sub-agent record a Claude Code 2.1 ``progress``/``agent_progress`` record carries.

    Claude Code 2.1 writes each record of a Task sub-agent into the session
    file as ``data.message`` of a progress record (``data.agentId`` names the
    agent). The inner record has no ``parentUuid``: it continues from the
    previous record of the same agent (``previous``: agent id → last inner
    uuid). ``None`` for any other progress record (hooks, bash output).

    >>> rec = {"type": "progress", "data": {"type": "agent_progress", "agentId": "a1",
    ...        "message": {"type": "user", "uuid": "u2", "message": {"role": "user", "content": "hi"}}}}
    >>> inner = _inline_agent_record(rec, {"a1": "u1"})
    >>> inner["parentUuid"], inner["agentId"], inner["isSidechain"]
    ('u1', 'a1', True)
    """
    data = rec.get("data")
    if not isinstance(data, dict) or data.get("type") != "agent_progress":
        return None
    inner, agent = data.get("message"), data.get("agentId")
    if not isinstance(inner, dict) or not isinstance(agent, str):
        return None
    if inner.get("type") not in _MESSAGE_TYPES or not isinstance(inner.get("uuid"), str):
        return None
    return {
        **inner,
        "parentUuid": previous.get(agent),
        "isSidechain": True,
        "agentId": agent,
        "sessionId": rec.get("sessionId"),
    }


def _api_meta(msg: Mapping[str, Any], api_id: Any) -> dict[str, Any]:
    """What a message keeps of the API message it carries: id, model, usage."""
    m: dict[str, Any] = {}
    if api_id:
        m["api_id"] = api_id
    if msg.get("model"):
        m["model"] = msg["model"]
    if isinstance(msg.get("usage"), dict):
        m["usage"] = msg["usage"]
    return m


class _Tree:
    """Resolves ``parentUuid`` links to kept messages while the file is read.

    Skipped records and the continuation records of a merged API message are
    transparent: a link to one of them means a link to its own parent. The
    results of one assistant message's tool calls all point at that message
    (at the record holding their call), i.e. they are siblings in the raw
    tree; we chain them one after the other in file order instead (the
    message's *group*), and whatever continues from any member of the group
    continues from its last member, so the live path holds every result.
    """

    def __init__(self) -> None:
        # uuids of kept messages (message id = uuid), each mapped to itself so
        # that links to it can share the one string
        self.kept: dict[str, str] = {}
        self.through: dict[str, str | None] = {}  # transparent uuid -> parentUuid (resolved)
        self.group_of: dict[str, str] = {}  # message id -> assistant message id
        self.tail: dict[str, str] = {}  # assistant message id -> last member

    def known(self, ref: str) -> bool:
        return ref in self.kept or ref in self.through

    def resolve(self, ref: str | None) -> str | object | None:
        seen: set[str] = set()
        while ref is not None:
            if ref in self.kept:
                return self.kept[ref]
            if ref in seen:
                return None  # a cycle of transparent records: treat as a root
            if ref not in self.through:
                return _UNRESOLVED
            seen.add(ref)
            ref = self.through[ref]
        return None

    def skip(self, uuid: str, parent: str | None) -> None:
        """Make ``uuid`` transparent: a link to it is a link to ``parent``.

        Stored resolved when ``parent`` already resolves (to a kept message, or
        a root): the answer cannot change later (a uuid is recorded once), and
        the kept message's own id string is shared instead of a copy per
        record, which matters for the hundreds of thousands of ``progress``
        records of a large session.
        """
        found = self.resolve(parent)
        self.through[uuid] = found if found is None or isinstance(found, str) else parent

    def attach(self, ref: str | None) -> str | object | None:
        """The message a new message continues from (the tail of a group)."""
        found = self.resolve(ref)
        if isinstance(found, str) and found in self.group_of:
            return self.tail[self.group_of[found]]
        return found

    def add(self, mid: str, role: Role, parent: str | None, has_results: bool) -> None:
        self.kept[mid] = mid
        if role == "assistant":
            self.group_of[mid] = mid
            self.tail[mid] = mid
        elif has_results and parent is not None and parent in self.group_of:
            group = self.group_of[parent]
            self.group_of[mid] = group
            self.tail[group] = mid


def _agent_from_path(path: Path) -> str | None:
    if path.stem.startswith("agent-"):
        return path.stem[len("agent-") :]
    return None


# Drafts kept open (in memory, able to absorb another record of their API
# message) behind the newest one; older ones go to the messages (on disk for
# a large file). A record of an API message already written rewrites it.
OPEN_DRAFTS = 64


def _load_claude_code(path: Path, options: ImportOptions) -> list[Conversation]:
    warnings = Warnings()
    skipped: Counter[str] = Counter()
    tree = _Tree()
    # Messages in file order: the finished ones in ``done`` (a spill for a large
    # file), the newest still open in ``window``.
    spilled = path.stat().st_size >= spill.SPILL_BYTES
    done = spill.message_sink(spilled)
    window: deque[_Draft] = deque()
    by_api_id: dict[str, _Draft | int] = {}  # an open draft, or the position in ``done``
    last_id: str | None = None
    n_messages = n_sidechain = 0
    session_id: str | None = None
    agent_id: str | None = None
    any_sidechain = False
    recognised = 0
    titles: list[str] = []
    outside: list[str] = []  # the first record continuing from outside the file
    n_outside = 0

    def add(d: _Draft, inline: bool = False) -> None:
        nonlocal last_id, n_messages, n_sidechain
        window.append(d)
        if not inline:  # a main record continuing from outside the file never joins a sub-agent
            last_id = d.id
        n_messages += 1
        n_sidechain += bool(d.meta.get("sidechain"))
        finish(OPEN_DRAFTS)

    def finish(keep: int) -> None:
        while len(window) > keep:
            d = window.popleft()
            if d.api_id is not None and by_api_id.get(d.api_id) is d:
                by_api_id[d.api_id] = len(done)
            done.append(d.message())

    def reopen(api_id: str) -> tuple[_Draft, int | None]:
        """The draft of an API message, and its position when it was already written."""
        target = by_api_id[api_id]
        if isinstance(target, _Draft):
            return target, None
        return _Draft.of(done[target]), target

    def place(ref: str | None) -> str | None:
        """The message a new record continues from.

        A parent that is not in the file (a subagent's context lives in the
        main session; a compacted session's pre-compaction tip can be pruned)
        is replaced by the previous message in file order, so nothing read
        from this file falls off the path; the count is reported.
        """
        nonlocal n_outside
        found = tree.attach(ref)
        if found is _UNRESOLVED and ref is not None:
            n_outside += 1
            if not outside:
                outside.append(ref)
            found = tree.attach(last_id) if last_id is not None else None
        return found if isinstance(found, str) else None

    inline_tail: dict[str, str] = {}  # inline sub-agent id -> its last record's uuid
    agent_files: dict[str, bool] = {}  # inline sub-agent id -> has its own file
    for lineno, rec in iter_json_objects(path, warnings):
        where = f"{path}:{lineno}"
        inline = False
        if str_field(rec, "type") == "progress":
            inner = _inline_agent_record(rec, inline_tail)
            if inner is not None and _has_agent_file(path, inner["agentId"], agent_files):
                inner = None  # its own file is the whole transcript: import that, once
                skipped["progress/agent_progress (the agent's own file is beside)"] += 1
            if inner is not None:
                # The progress record itself is transparent on the main path;
                # the sub-agent record it carries is read as a sidechain record.
                recognised += 1
                if isinstance(rec.get("uuid"), str):
                    outer_parent = rec.get("parentUuid")
                    tree.skip(rec["uuid"], outer_parent if isinstance(outer_parent, str) else None)
                inline_tail[inner["agentId"]] = inner["uuid"]
                rec, inline = inner, True
        kind: Any = str_field(rec, "type")  # a role once matched below
        uuid = rec.get("uuid") if isinstance(rec.get("uuid"), str) else None
        parent = rec.get("parentUuid") if isinstance(rec.get("parentUuid"), str) else None
        if session_id is None and isinstance(rec.get("sessionId"), str):
            session_id = rec["sessionId"]
        if agent_id is None and isinstance(rec.get("agentId"), str) and rec.get("isSidechain"):
            agent_id = rec["agentId"]
        if rec.get("isSidechain"):
            any_sidechain = True
        if uuid is not None and tree.known(uuid):
            # Resumed sessions can repeat records; the first copy wins.
            skipped["duplicate uuid"] += 1
            continue

        if kind == "system" and rec.get("subtype") == "compact_boundary":
            cm = rec.get("compactMetadata") or {}
            logical = rec.get("logicalParentUuid")
            mid = uuid or f"line-{lineno}"
            ref = parent if parent is not None else logical
            pid = place(ref)
            add(
                _Draft(
                    id=mid,
                    role="system",
                    parent=pid,
                    blocks=[TextBlock(str(rec.get("content") or "Conversation compacted"))],
                    meta={
                        "kind": "compact_boundary",
                        "trigger": cm.get("trigger"),
                        "pre_tokens": cm.get("preTokens"),
                        "timestamp": rec.get("timestamp"),
                        "logical_parent": logical,
                    },
                    line=lineno,
                )
            )
            tree.add(mid, "system", pid, False)
            continue

        if kind in _CC_TYPES:
            recognised += 1
        if kind == "summary" and isinstance(rec.get("summary"), str):
            titles.append(rec["summary"])
        if kind not in _MESSAGE_TYPES:
            skipped[_record_kind(rec)] += 1
            if uuid is not None:
                tree.skip(uuid, parent)
            continue

        msg = rec.get("message")
        if not isinstance(msg, dict):
            warnings.add(f"{where}: {kind} record without a message object; skipped", "record")
            if uuid is not None:
                tree.skip(uuid, parent)
            continue
        blocks = content_blocks(msg.get("content"), where, warnings)
        api_id = msg.get("id") if kind == "assistant" else None

        if isinstance(api_id, str) and api_id in by_api_id:
            # Another block of an API message already started: merge it, and
            # make this record transparent.
            target, written = reopen(api_id)
            target.absorb(blocks, msg)
            if msg.get("stop_reason"):
                target.meta["stop_reason"] = msg["stop_reason"]
            if written is not None:
                done[written] = target.message()
            if uuid is not None:
                tree.skip(uuid, parent)
            continue

        mid = uuid or f"line-{lineno}"
        m: dict[str, Any] = {"timestamp": rec.get("timestamp"), **_api_meta(msg, api_id)}
        if msg.get("stop_reason"):
            m["stop_reason"] = msg["stop_reason"]
        if rec.get("isMeta"):
            m["is_meta"] = True
        if rec.get("isCompactSummary"):
            m["compact_summary"] = True
        if rec.get("isSidechain"):
            m["sidechain"] = True
            if isinstance(rec.get("agentId"), str):
                m["agent_id"] = rec["agentId"]
        pid = place(parent)
        d = _Draft(mid, kind, pid, blocks, m, lineno, api_id if isinstance(api_id, str) else None)
        if isinstance(api_id, str):
            by_api_id[api_id] = d  # before add(), which may already write it
        add(d, inline)
        tree.add(mid, kind, pid, any(isinstance(b, ToolResult) for b in blocks))
    finish(0)

    warnings.extend_counts("skipped non-message records", skipped)
    if not recognised:
        raise TranscriptError(
            f"{path}: no Claude Code records found; is this a Claude Code session file? "
            "(force another format with --format)"
        )
    if not n_messages:
        # Real session files can hold only a title or a file snapshot.
        warnings.add(f"{path}: no user or assistant messages; the conversation is empty")

    if outside:
        warnings.add(
            f"{path}: {n_outside} records continue from records not in this file "
            f"(first: {outside[0]!r}); each linked to the message before it"
        )
    conv_id = session_id or _session_from_path(path)
    meta = {**_agent_meta(path, warnings), **({"titles": titles} if titles else {})}
    groups: dict[str, Sequence[Message]]
    if 0 < n_sidechain < n_messages:
        # Older Claude Code wrote Task sidechains into the session file itself:
        # each agent becomes its own conversation, as a subagent file would.
        groups = _split_agents(done, spilled)
        warnings.add(
            f"{path}: main and sidechain records in one file; split into "
            f"{len(groups)} conversations"
        )
    else:
        agent = agent_id or _agent_from_path(path) or ("sidechain" if any_sidechain else "main")
        groups = {agent: spill.frozen(done)}

    out: list[Conversation] = []
    tasks = _task_calls(groups.get("main", ()))
    for agent, group in groups.items():
        w = warnings.copy()
        conv = Conversation(
            id=conv_id,
            messages=group,
            tip=group[-1].id if group else None,
            agent=agent,
            format=NAME,
            source=str(path),
            meta=_with_task(meta, agent, group, tasks),
        )
        try:
            add_pairing_warnings(f"{path}", conv.iter_path(), w)
        except TranscriptError as exc:  # a parent cycle in a hand-edited file
            raise TranscriptError(f"{path}: {exc}") from exc
        conv = replace(conv, warnings=w.tuple())
        if matches_select({"id": conv_id, "session_id": conv_id, "agent": agent}, options.select):
            out.append(conv)
    return out


def _split_agents(messages: Sequence[Message], spilled: bool) -> dict[str, Sequence[Message]]:
    """The messages of a session file holding main and sidechain records, one sequence per agent.

    ``"main"`` first, then each subagent in file order. Newer files name each
    subagent (``agentId``); Claude Code 1.0.x wrote every Task subagent inline
    with no id, each starting a new root (``parentUuid: null``). Such a root
    opens a new agent (``sidechain-1``, ``sidechain-2``, ... in file order) and
    each later message joins the agent of the message it continues from, so
    every subagent is its own transcript, selectable with ``--agent``. A link
    into another agent's part of the file starts a new root. One pass: every
    parent is an earlier message of the file.
    """
    agent_of: dict[str, str] = {}
    ids: dict[str, set[str]] = {}
    file = spill.SpillFile() if spilled else None  # one for all: 1.0.x files hold many agents
    sinks: dict[str, list[Message] | spill.SpilledMessages] = {
        "main": spill.message_sink(spilled, file)
    }
    unnamed = 0
    for x in messages:
        agent = "main"
        if x.meta.get("sidechain"):
            named = x.meta.get("agent_id")
            if isinstance(named, str):
                agent = named
            elif x.parent is not None and x.parent in agent_of:
                agent = agent_of[x.parent]
            else:
                unnamed += 1
                agent = f"sidechain-{unnamed}"
            agent_of[x.id] = agent
        own = ids.setdefault(agent, set())
        if x.parent is not None and x.parent not in own:
            x = replace(x, parent=None)
        own.add(x.id)
        if agent not in sinks:
            sinks[agent] = spill.message_sink(spilled, file)
        sinks[agent].append(x)
    return {agent: spill.frozen(sink) for agent, sink in sinks.items()}


def _task_calls(main: Sequence[Message]) -> dict[str, str]:
    """The main agent's Task calls: the prompt each gave its subagent → the call id."""
    out: dict[str, str] = {}
    for m in main:
        for call in m.tool_calls():
            prompt = call.input.get("prompt")
            if call.name == "Task" and isinstance(prompt, str):
                out.setdefault(prompt.strip(), call.id)
    return out


def _with_task(
    meta: Mapping[str, Any], agent: str, group: Sequence[Message], tasks: Mapping[str, str]
) -> Mapping[str, Any]:
    """``meta`` plus ``task_call``: the main agent's call that started this subagent, if found."""
    if agent == "main" or not group:
        return meta
    call = tasks.get(group[0].text().strip())
    return {**meta, "task_call": call} if call else meta


def _session_from_path(path: Path) -> str:
    # <session>/subagents/agent-x.jsonl → <session>
    if path.parent.name == "subagents":
        return path.parent.parent.name
    return path.stem


def _agent_meta(path: Path, warnings: Warnings) -> dict[str, Any]:
    """Facts from the ``agent-<id>.meta.json`` written beside newer subagent files."""
    raw = read_sibling(path, path.with_name(path.stem + ".meta.json"), warnings)
    if raw is None:
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return {}
    return {"agent_meta": data} if isinstance(data, dict) else {}


# --- Claude Agent SDK stream-json ----------------------------------------------------


def _is_sdk(records: Sequence[Mapping[str, Any]]) -> bool:
    return any(
        str_field(r, "type") in _SDK_TYPES
        and "session_id" in r
        and ("parent_tool_use_id" in r or r.get("subtype") == "init")
        for r in records
    )


class _SdkStream:
    """One agent's messages of an Agent SDK log, written as they are read.

    Only the newest draft stays open: the next record of its API response
    (one content block each, adjacent in the stream) merges into it. Every
    other message is finished, in a list or on disk (:mod:`~snapshot.transcript.spill`).
    """

    def __init__(self, file: spill.SpillFile | None) -> None:
        self.file = file  # the one file every agent's spill shares; None: held in a list
        self.messages: list[Message] | spill.SpilledMessages | None = None  # made by the first
        self.open: _Draft | None = None
        self.tip: str | None = None  # the id of the last message finished
        self.seen: set[str] = set()

    def add(self, d: _Draft) -> None:
        """Open ``d`` (``d.api_id``: what may merge into it), finishing the one open before."""
        self.finish()
        self.open = d

    def merging(self, api_id: Any) -> _Draft | None:
        """The open draft when a record of API message ``api_id`` continues it."""
        d = self.open
        return d if d is not None and isinstance(api_id, str) and d.api_id == api_id else None

    def finish(self) -> None:
        """Write the open draft, chained after the previous message; a repeated id gets its line."""
        d, self.open = self.open, None
        if d is None:
            return
        mid = d.id if d.id not in self.seen else f"{d.id}-{d.line}"
        self.seen.add(mid)
        if self.messages is None:
            self.messages = spill.message_sink(self.file is not None, self.file)
        self.messages.append(Message(mid, self.tip, d.role, tuple(d.blocks), d.meta))
        self.tip = mid


def _load_sdk(path: Path, options: ImportOptions) -> list[Conversation]:
    warnings = Warnings()
    skipped: Counter[str] = Counter()
    session_id: str | None = None
    meta: dict[str, Any] = {}
    # One stream per agent: "main" and each subagent's parent tool-use id, in
    # the order first seen; a large file keeps its messages on disk, one file
    # for all (a log can hold thousands of subagents).
    file = spill.SpillFile() if path.stat().st_size >= spill.SPILL_BYTES else None
    streams: dict[str, _SdkStream] = {"main": _SdkStream(file)}
    summary_pending: dict[str, bool] = {}

    prompt = read_prompt(path, warnings)
    if prompt is not None:
        streams["main"].add(
            _Draft("prompt", "user", None, [TextBlock(prompt)], {"source": "prompt file"}, 0)
        )

    for lineno, rec in iter_json_objects(path, warnings):
        where = f"{path}:{lineno}"
        kind: Any = str_field(rec, "type")  # a role once matched below
        if session_id is None and isinstance(rec.get("session_id"), str):
            session_id = rec["session_id"]
        agent = rec.get("parent_tool_use_id") or "main"
        if not isinstance(agent, str):
            agent = "main"
        stream = streams.get(agent)
        if stream is None:
            stream = streams[agent] = _SdkStream(file)
        raw_uuid = rec.get("uuid")
        mid = raw_uuid if isinstance(raw_uuid, str) else f"line-{lineno}"

        if kind == "system" and rec.get("subtype") == "init":
            for key in ("model", "cwd", "tools", "claude_code_version", "permissionMode"):
                if key in rec:
                    meta[key] = rec[key]
            continue
        if kind == "system" and rec.get("subtype") == "compact_boundary":
            cm = rec.get("compact_metadata") or rec.get("compactMetadata") or {}
            stream.add(
                _Draft(
                    mid,
                    "system",
                    None,
                    [TextBlock("Conversation compacted")],
                    {
                        "kind": "compact_boundary",
                        "trigger": cm.get("trigger"),
                        "pre_tokens": cm.get("pre_tokens", cm.get("preTokens")),
                    },
                    lineno,
                )
            )
            summary_pending[agent] = True
            continue
        if kind == "result":
            for key in (
                "subtype",
                "is_error",
                "duration_ms",
                "num_turns",
                "total_cost_usd",
                "usage",
            ):
                if key in rec:
                    meta[f"result_{key}" if key == "subtype" else key] = rec[key]
            continue
        if kind not in _MESSAGE_TYPES:
            skipped[_record_kind(rec)] += 1
            continue
        msg = rec.get("message")
        if not isinstance(msg, dict):
            warnings.add(f"{where}: {kind} record without a message object; skipped", "record")
            continue
        blocks = content_blocks(msg.get("content"), where, warnings)
        api_id = msg.get("id") if kind == "assistant" else None
        target = stream.merging(api_id)
        if target is not None:
            # The next record of the same API response (one content block each).
            # Only an adjacent one: redacted logs give every response the same id.
            target.absorb(blocks, msg)
            continue
        m = _api_meta(msg, api_id)
        if kind == "user" and summary_pending.pop(agent, False):
            # The SDK marks the post-compaction summary only as synthetic.
            m["compact_summary"] = True
        if rec.get("isSynthetic"):
            m["synthetic"] = True
        stream.add(
            _Draft(mid, kind, None, blocks, m, lineno, api_id if isinstance(api_id, str) else None)
        )

    warnings.extend_counts("skipped non-message records", skipped)
    conv_id = session_id or path.stem
    out: list[Conversation] = []
    for agent, stream in streams.items():
        stream.finish()
        if stream.messages is None:
            continue
        messages = spill.frozen(stream.messages)
        w = warnings.copy()
        add_pairing_warnings(f"{path} ({agent})", messages, w)
        conv = Conversation(
            id=conv_id,
            messages=messages,
            tip=stream.tip,
            agent=agent,
            format=NAME,
            source=str(path),
            meta={**meta, "variant": "agent-sdk-stream-json"},
            warnings=w.tuple(),
        )
        if matches_select({"id": conv_id, "session_id": conv_id, "agent": agent}, options.select):
            out.append(conv)
    if not any(c.messages for c in out) and not options.select:
        raise TranscriptError(f"{path}: no messages found in this Agent SDK log")
    return out


# --- the format ------------------------------------------------------------------------


def sniff(path: Path, head: bytes) -> bool:
    if path.is_dir():
        return False
    records = head_records(head)
    if is_qwen_code(records):
        return False
    if not records:
        # A first record longer than the sniff window (a huge pasted prompt):
        # Claude Code writes its link keys before the message, so look there.
        first = head.lstrip()[:4096]
        return first.startswith(b"{") and b'"parentUuid"' in first and b'"sessionId"' in first
    if _is_sdk(records):
        return True
    return any(
        str_field(r, "type") in _CC_TYPES
        and any(k in r for k in _CC_KEYS)
        and "session_id" not in r
        for r in records
    )


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(
            f"{path}: is a folder; give one Claude Code session file "
            "(or import the folder to import every file in it)"
        )
    with path.open("rb") as fh:
        head = fh.read(256 * 1024)
    records = head_records(head, limit=20)
    if is_qwen_code(records):
        raise TranscriptError(f"{path}: {QWEN_REFUSAL}")
    if _is_sdk(records):
        return _load_sdk(path, options)
    return _load_claude_code(path, options)


FORMAT = Format(
    name=NAME,
    description="Claude Code session JSONL (with subagent files) and Claude Agent SDK stream-json",
    sniff=sniff,
    load=load,
)
