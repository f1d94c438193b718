"""Sub-agents: the records Claude Code 2.1 writes inline, sidechains split off a session
file, subagent files beside it, and the main agent's Task call that started each.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from snapshot.transcript import spill
from snapshot.transcript.formats._common import (
    Warnings,
    read_sibling,
)
from snapshot.transcript.formats.claude_code.records import (
    MESSAGE_TYPES,
    UI_ONLY_KINDS,
    record_kind,
)
from snapshot.transcript.model import (
    Message,
)


def has_agent_file(session: Path, agent: str, seen: dict[str, bool]) -> bool:
    """Is the sub-agent's own transcript beside the session file (``<session>/subagents/``
    or, older, ``agent-<id>.jsonl`` in the project folder)? Cached in ``seen``."""
    if agent not in seen:
        name = f"agent-{agent}.jsonl"
        seen[agent] = (session.with_suffix("") / "subagents" / name).is_file() or (
            session.parent / name
        ).is_file()
    return seen[agent]


def inline_agent_record(
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
    >>> inner = inline_agent_record(rec, {"a1": "u1"})
    >>> inner["parentUuid"], inner["agentId"], inner["isSidechain"]
    ('u1', 'a1', True)
    """
    data = rec.get("data")
    if not isinstance(data, dict) or data.get("type") != "agent_progress":
        return None
    inner, agent = data.get("message"), data.get("agentId")
    if not isinstance(inner, dict) or not isinstance(agent, str):
        return None
    if inner.get("type") not in MESSAGE_TYPES or not isinstance(inner.get("uuid"), str):
        return None
    return {
        **inner,
        "parentUuid": previous.get(agent),
        "isSidechain": True,
        "agentId": agent,
        "sessionId": rec.get("sessionId"),
    }


def agent_from_path(path: Path) -> str | None:
    if path.stem.startswith("agent-"):
        return path.stem[len("agent-") :]
    return None


def split_agents(messages: Sequence[Message], spilled: bool) -> dict[str, Sequence[Message]]:
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


def task_calls(main: Sequence[Message]) -> dict[str, str]:
    """The main agent's Task calls: the prompt each gave its subagent → the call id."""
    out: dict[str, str] = {}
    for m in main:
        for call in m.tool_calls():
            prompt = call.input.get("prompt")
            if call.name == "Task" and isinstance(prompt, str):
                out.setdefault(prompt.strip(), call.id)
    return out


def with_task(
    meta: Mapping[str, Any], agent: str, group: Sequence[Message], tasks: Mapping[str, str]
) -> Mapping[str, Any]:
    """``meta`` plus ``task_call``: the main agent's call that started this subagent, if found."""
    if agent == "main" or not group:
        return meta
    call = tasks.get(group[0].text().strip())
    return {**meta, "task_call": call} if call else meta


def session_from_path(path: Path) -> str:
    # <session>/subagents/agent-x.jsonl → <session>
    if path.parent.name == "subagents":
        return path.parent.parent.name
    return path.stem


def agent_meta(path: Path, warnings: Warnings) -> dict[str, Any]:
    """Facts from the ``agent-<id>.meta.json`` written beside newer subagent files."""
    raw = read_sibling(path, path.with_name(path.stem + ".meta.json"), warnings)
    if raw is None:
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return {}
    return {"agent_meta": data} if isinstance(data, dict) else {}


def ui_record(path: Path, rec: Any) -> str | None:
    """A label for a record of ``path`` the model never saw, or whose text another file
    holds (the text-kept measure counts it apart).

    Progress streams (an inline sub-agent's records only when the agent's own
    file is beside, imported from there), file snapshots, titles, the prompt
    queue's bookkeeping, and ``system`` records other than a compaction boundary.

    >>> ui_record(Path("s.jsonl"), {"type": "progress", "data": {"type": "bash_progress"}})
    'progress/bash_progress'
    >>> ui_record(Path("s.jsonl"), {"type": "progress", "data": {"type": "agent_progress"}}) is None
    True
    """
    if not isinstance(rec, Mapping):
        return None
    kind = record_kind(rec)
    if kind == "progress/agent_progress":
        agent = rec["data"].get("agentId")
        beside = isinstance(agent, str) and has_agent_file(path, agent, {})
        return "sub-agent records (in the agent's own file)" if beside else None
    if kind == "system/compact_boundary":
        return None
    if kind.startswith("attachment") or kind in MESSAGE_TYPES:
        return None
    return kind if any(kind == k or kind.startswith(f"{k}/") for k in UI_ONLY_KINDS) else None
