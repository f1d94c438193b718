"""Kimi CLI context JSONL (``~/.kimi/sessions/<md5 of work dir>/<session id>.jsonl``) → the neutral model.

Each line is one message of the agent's context in OpenAI chat style (Kimi's
``kosong`` message type): ``role`` user, assistant, tool or system;
``content`` a string or typed parts (``text``, ``think`` → thinking,
``image_url`` → images); ``assistant.tool_calls[].id`` = ``tool.tool_call_id``.
Between them Kimi writes bookkeeping records whose role starts with an
underscore: ``{"role": "_checkpoint", "id": n}`` (the points ``/undo`` and
D-Mail can return to) and ``{"role": "_usage", "token_count": n}``. They are
not messages; they are counted into ``meta``.

Records are converted as they are read; a file of
:data:`~snapshot.transcript.spill.SPILL_BYTES` or more keeps its messages on
disk (:mod:`snapshot.transcript.spill`).

A subagent's context is its own file beside its parent's, named
``<parent id>_<subagent name>_<n>.jsonl`` with no link inside the files: it
imports as a conversation with the parent's id and ``agent`` =
``<subagent name>_<n>``. Newer versions keep ``<session id>/context.jsonl``;
the folder name is then the id.

>>> from snapshot.transcript.formats import kimi_cli
>>> kimi_cli.score(Path("s.jsonl"), b'{"role": "_checkpoint", "id": 0}\\n{"role": "user", "content": "hi"}\\n')
1.0
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.files import check_inside
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    Warnings,
    add_pairing_warnings,
    head_records,
    iter_json_objects,
    matches_select,
)
from snapshot.transcript.formats._openai_messages import OpenAIMessages
from snapshot.transcript.model import Conversation

NAME = "kimi-cli-jsonl"

_MESSAGE_ROLES = {"system", "user", "assistant", "tool"}
_SUBAGENT_STEM = re.compile(r"^(?P<parent>.+?)_(?P<agent>[A-Za-z][\w-]*_\d+)$")


def _with_thinking(rec: Mapping[str, Any]) -> dict[str, Any]:
    """An assistant record with its ``think`` parts moved to ``reasoning_content``.

    The shared OpenAI reader keeps ``reasoning_content`` as thinking; Kimi
    writes reasoning as ``{"type": "think", "think": ...}`` content parts.
    """
    out = dict(rec)
    content = rec.get("content")
    if rec.get("role") != "assistant" or not isinstance(content, list):
        return out
    thoughts = [
        str(p.get("think") or "")
        for p in content
        if isinstance(p, Mapping) and p.get("type") == "think"
    ]
    if thoughts:
        out["content"] = [
            p for p in content if not (isinstance(p, Mapping) and p.get("type") == "think")
        ]
        out["reasoning_content"] = "\n\n".join(t for t in thoughts if t)
    return out


def session_and_agent(path: Path) -> tuple[str, str]:
    """``(conversation id, agent)`` from a context file's name.

    >>> session_and_agent(Path("d8447fa8_read_1.jsonl"))
    ('d8447fa8', 'read_1')
    >>> session_and_agent(Path("abc/context.jsonl"))
    ('abc', 'main')
    """
    if path.name == "context.jsonl":
        return path.parent.name, "main"
    m = _SUBAGENT_STEM.match(path.stem)
    if m:
        return m.group("parent"), m.group("agent")
    return path.stem, "main"


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    """Every conversation in ``path`` that ``options.select`` keeps.

    Parameters
    ----------
    path
        A context ``.jsonl`` file, or a ``<session id>/`` folder holding ``context.jsonl``.
    options
        ``select`` matches ``id``/``session_id`` and ``agent``.

    Returns
    -------
    list[Conversation]
        One conversation: the main agent or a subagent. Problems that leave the rest usable are in its ``warnings``.

    Raises
    ------
    TranscriptError
        When the path cannot be read or holds nothing of this format.
    """
    if path.is_dir():
        context = path / "context.jsonl"
        if not context.is_file():
            raise TranscriptError(f"{path}: is a folder; give one Kimi CLI context .jsonl file")
        check_inside(context, path, None)  # not a symlink out of the folder
        path = context
    warnings = Warnings()
    # Each message record is converted as it is read; a large file keeps its
    # messages on disk (spill.py).
    where = str(path)
    converter = OpenAIMessages(where=where)
    messages = spill.message_sink(path.stat().st_size >= spill.SPILL_BYTES)
    last_id: str | None = None  # the tip, without reading a spilled message back
    n_records = 0
    bookkeeping: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    last_tokens: int | None = None
    for _lineno, rec in iter_json_objects(path, warnings, "context record"):
        role = rec.get("role")
        if role in _MESSAGE_ROLES:
            n_records += 1
            message = converter.add(_with_thinking(rec))
            if message is not None:
                messages.append(message)
                last_id = message.id
        elif isinstance(role, str) and role.startswith("_"):
            bookkeeping[role] += 1
            if role == "_usage" and isinstance(rec.get("token_count"), int):
                last_tokens = rec["token_count"]
        else:
            skipped[f"role {role!r}"] += 1
    if not n_records and not bookkeeping:
        raise TranscriptError(
            f"{path}: no Kimi CLI context records found; is this a ~/.kimi/sessions "
            "context file? (force another format with --format)"
        )
    warnings.extend_counts(
        f"{path}: skipped Kimi's bookkeeping records (undo checkpoints, token counts)",
        bookkeeping,
    )
    warnings.extend_counts(f"{path}: skipped records that are not messages", skipped)
    notes, _ = converter.finish()
    for note in notes:
        warnings.add(note)
    add_pairing_warnings(where, messages, warnings)
    conv_id, agent = session_and_agent(path)
    meta: dict[str, Any] = {"bookkeeping_records": dict(bookkeeping)}
    if last_tokens is not None:
        meta["context_tokens"] = last_tokens
    conv = Conversation(
        id=conv_id,
        messages=spill.frozen(messages),
        tip=last_id,
        agent=agent,
        format=NAME,
        source=str(path),
        meta=meta,
        warnings=warnings.tuple(),
    )
    if not matches_select({"id": conv_id, "session_id": conv_id, "agent": agent}, options.select):
        return []
    return [conv]


def score(path: Path, head: bytes) -> float:
    """How sure the head of ``path`` is a Kimi CLI context file (0.0 to 1.0).

    Kimi's underscore roles (``_checkpoint``, ``_usage``) among chat roles are
    its signature; plain chat messages alone are left to the OpenAI reader.

    Parameters
    ----------
    path
        The file or folder being detected.
    head
        Up to ``SNIFF_BYTES`` of the file (empty for a folder).

    Returns
    -------
    float
        0.0 when it is not this format; 0.5 or more (what detection and a
        forced walk accept) when it is, 1.0 when the format's own signature is there.
    """
    if path.is_dir():
        return 1.0 if (path / "context.jsonl").is_file() else 0.0
    records = head_records(head, limit=8)
    if not records or not all(isinstance(r.get("role"), str) for r in records):
        return 0.0
    roles = {r["role"] for r in records}
    if any(role not in _MESSAGE_ROLES and not role.startswith("_") for role in roles):
        return 0.0
    return 1.0 if roles & {"_checkpoint", "_usage"} else 0.0


FORMAT = Format(
    name=NAME,
    description="Kimi CLI context JSONL (~/.kimi/sessions; subagents as <id>_<name>_<n>.jsonl)",
    score=score,
    load=load,
)
