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

Modules: :mod:`.records` (record types, the message being built),
:mod:`.content` (Anthropic content blocks and images), :mod:`.tree` (the
``parentUuid`` links), :mod:`.agents` (inline and split-off sub-agents),
:mod:`.session` (a session file), :mod:`.sdk` (an Agent SDK log); this module
scores a file and hands it to one of the two loaders.
"""

from __future__ import annotations

from pathlib import Path

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import head_records, str_field
from snapshot.transcript.formats.claude_code.agents import ui_record
from snapshot.transcript.formats.claude_code.content import content_blocks, decode_image
from snapshot.transcript.formats.claude_code.records import (
    CC_KEYS,
    CC_TYPES,
    NAME,
    is_sdk,
)
from snapshot.transcript.formats.claude_code.sdk import load_sdk
from snapshot.transcript.formats.claude_code.session import load_session
from snapshot.transcript.formats.qwen_code import QWEN_REFUSAL, is_qwen_code
from snapshot.transcript.model import Conversation

__all__ = ["FORMAT", "NAME", "content_blocks", "decode_image", "load", "score"]


# --- the format ------------------------------------------------------------------------


def score(path: Path, head: bytes) -> float:
    """0.95 for Claude Code records (their type and link keys) or an Agent SDK stream; else 0.

    >>> score(Path("s.jsonl"), b'{"type": "user", "uuid": "u1", "sessionId": "s"}\\n')
    0.95
    >>> score(Path("s.jsonl"), b'{"type": "thread.started"}\\n')
    0.0
    """
    return 0.95 if _recognised(path, head) else 0.0


def _recognised(path: Path, head: bytes) -> bool:
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
    if is_sdk(records):
        return True
    return any(
        str_field(r, "type") in CC_TYPES and any(k in r for k in CC_KEYS) and "session_id" not in r
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
    if is_sdk(records):
        return load_sdk(path, options)
    return load_session(path, options)


FORMAT = Format(
    name=NAME,
    description="Claude Code session JSONL (with subagent files) and Claude Agent SDK stream-json",
    score=score,
    load=load,
    # What Claude Code keeps for its own display and undo: the UI copy of a tool
    # result, file snapshots, and the messages a compaction normalised.
    unread_keys=frozenset({"toolUseResult", "snapshot", "normalizedMessages"}),
    ui_records=ui_record,
)
