"""Claude Code session JSONL → one conversation per agent (see the package docstring)."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import ImportOptions
from snapshot.transcript.formats._common import (
    Warnings,
    add_pairing_warnings,
    iter_json_objects,
    matches_select,
    str_field,
)
from snapshot.transcript.formats.claude_code.agents import (
    agent_from_path,
    agent_meta,
    has_agent_file,
    inline_agent_record,
    session_from_path,
    split_agents,
    task_calls,
    with_task,
)
from snapshot.transcript.formats.claude_code.content import content_blocks
from snapshot.transcript.formats.claude_code.records import (
    CC_TYPES,
    MESSAGE_TYPES,
    NAME,
    Draft,
    api_meta,
    queued_prompt,
    record_kind,
    seen_label,
)
from snapshot.transcript.formats.claude_code.tree import UNRESOLVED, Tree
from snapshot.transcript.model import (
    Conversation,
    Message,
    TextBlock,
    ToolResult,
)

# Drafts kept open (in memory, able to absorb another record of their API
# message) behind the newest one; older ones go to the messages (on disk for
# a large file). A record of an API message already written rewrites it.
OPEN_DRAFTS = 64


def load_session(path: Path, options: ImportOptions) -> list[Conversation]:
    warnings = Warnings()
    skipped: Counter[str] = Counter()
    tree = Tree()
    # Messages in file order: the finished ones in ``done`` (a spill for a large
    # file), the newest still open in ``window``.
    spilled = path.stat().st_size >= spill.SPILL_BYTES
    done = spill.message_sink(spilled)
    window: deque[Draft] = deque()
    by_api_id: dict[str, Draft | int] = {}  # an open draft, or the position in ``done``
    last_id: str | None = None
    n_messages = n_sidechain = 0
    session_id: str | None = None
    agent_id: str | None = None
    any_sidechain = False
    recognised = 0
    titles: list[str] = []
    outside: list[str] = []  # the first record continuing from outside the file
    n_outside = 0

    def add(d: Draft, inline: bool = False) -> None:
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

    def reopen(api_id: str) -> tuple[Draft, int | None]:
        """The draft of an API message, and its position when it was already written."""
        target = by_api_id[api_id]
        if isinstance(target, Draft):
            return target, None
        return Draft.of(done[target]), target

    def place(ref: str | None) -> str | None:
        """The message a new record continues from.

        A parent that is not in the file (a subagent's context lives in the
        main session; a compacted session's pre-compaction tip can be pruned)
        is replaced by the previous message in file order, so nothing read
        from this file falls off the path; the count is reported.
        """
        nonlocal n_outside
        found = tree.attach(ref)
        if found is UNRESOLVED and ref is not None:
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
            inner = inline_agent_record(rec, inline_tail)
            if inner is not None and has_agent_file(path, inner["agentId"], agent_files):
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
                Draft(
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

        if kind in CC_TYPES:
            recognised += 1
        if kind == "summary" and isinstance(rec.get("summary"), str):
            titles.append(rec["summary"])
        queued = queued_prompt(rec)
        if queued is not None:
            # What the user typed mid-turn (or a task's notification): the model
            # received it as a user message, at this point of the chain.
            mid = uuid or f"line-{lineno}"
            pid = place(parent)
            qmeta = {"timestamp": rec.get("timestamp"), **queued[1]}
            if rec.get("isSidechain"):
                qmeta["sidechain"] = True
            add(Draft(mid, "user", pid, [TextBlock(queued[0])], qmeta, lineno), inline)
            tree.add(mid, "user", pid, False)
            continue
        if kind not in MESSAGE_TYPES:
            skipped[record_kind(rec)] += 1
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
        m: dict[str, Any] = {"timestamp": rec.get("timestamp"), **api_meta(msg, api_id)}
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
        d = Draft(mid, kind, pid, blocks, m, lineno, api_id if isinstance(api_id, str) else None)
        if isinstance(api_id, str):
            by_api_id[api_id] = d  # before add(), which may already write it
        add(d, inline)
        tree.add(mid, kind, pid, any(isinstance(b, ToolResult) for b in blocks))
    finish(0)

    warnings.extend_counts(
        "skipped non-message records", {seen_label(k): n for k, n in skipped.items()}
    )
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
    conv_id = session_id or session_from_path(path)
    meta = {**agent_meta(path, warnings), **({"titles": titles} if titles else {})}
    groups: dict[str, Sequence[Message]]
    if 0 < n_sidechain < n_messages:
        # Older Claude Code wrote Task sidechains into the session file itself:
        # each agent becomes its own conversation, as a subagent file would.
        groups = split_agents(done, spilled)
        warnings.add(
            f"{path}: main and sidechain records in one file; split into "
            f"{len(groups)} conversations"
        )
    else:
        agent = agent_id or agent_from_path(path) or ("sidechain" if any_sidechain else "main")
        groups = {agent: spill.frozen(done)}

    out: list[Conversation] = []
    tasks = task_calls(groups.get("main", ()))
    for agent, group in groups.items():
        w = warnings.copy()
        conv = Conversation(
            id=conv_id,
            messages=group,
            tip=group[-1].id if group else None,
            agent=agent,
            format=NAME,
            source=str(path),
            meta=with_task(meta, agent, group, tasks),
        )
        try:
            add_pairing_warnings(f"{path}", conv.iter_path(), w)
        except TranscriptError as exc:  # a parent cycle in a hand-edited file
            raise TranscriptError(f"{path}: {exc}") from exc
        conv = replace(conv, warnings=w.tuple())
        if matches_select({"id": conv_id, "session_id": conv_id, "agent": agent}, options.select):
            out.append(conv)
    return out
