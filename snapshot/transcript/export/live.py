"""What the agent had at the end of a session its harness compacted: the live context.

A harness that compacts a session keeps writing to the same file: Claude Code
a ``compact_boundary`` record then an ``isCompactSummary`` user message, Codex
a ``compacted`` record (with ``replacement_history`` since about 0.40), pi a
``compaction`` entry. The importers keep the whole history with a
``compact_boundary`` system message at each compaction, so the path from the
tip is every segment with every summary inline. The model at the end saw only
the last segment: the last summary (Codex: the replacement history) and what
came after it. That is what ``export`` and ``compact`` send by default;
``--whole-history`` keeps the whole path, stated in the output.

One rule for every harness: a *segment* is the run of path messages between
two boundaries (the boundary itself belongs to neither).

>>> from snapshot.transcript.model import Message, TextBlock, linear
>>> conv = linear("c", [("u1", "user", [TextBlock("old question")]),
...     ("b1", "system", [TextBlock("Conversation compacted")]),
...     ("s1", "user", [TextBlock("summary")]), ("u2", "user", [TextBlock("new")])])
>>> conv = conv.with_messages([m if m.id != "b1" else Message("b1", "u1", "system",
...     m.blocks, {"kind": "compact_boundary"}) for m in conv.messages], "u2")
>>> [len(s) for s in segments(conv)]
[1, 2]
>>> live = live_context(conv)
>>> [m.id for m in live.conversation.path()]
['s1', 'u2']
>>> print(live.note)  # doctest: +NORMALIZE_WHITESPACE
live context: the last of 1 compaction(s) and what followed it (2 of 4 messages,
10 of 44 characters); --whole-history sends the whole session
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from snapshot.transcript.model import Conversation, Message

__all__ = [
    "LiveContext",
    "is_boundary",
    "live_context",
    "relinked",
    "segments",
    "whole_history_note",
]


def is_boundary(m: Message) -> bool:
    """A harness's compaction marker (``meta["kind"] == "compact_boundary"``)."""
    return m.meta.get("kind") == "compact_boundary"


def segments(conv: Conversation) -> list[tuple[Message, ...]]:
    """The path cut at every compaction boundary: one tuple per segment, oldest first.

    A session never compacted is one segment; a boundary at the very start (a
    file that begins after a compaction) leaves no empty segment before it.
    """
    out: list[tuple[Message, ...]] = []
    current: list[Message] = []
    seen = False
    for m in conv.iter_path():
        if is_boundary(m):
            if current or seen:
                out.append(tuple(current))
            current, seen = [], True
            continue
        current.append(m)
    out.append(tuple(current))
    return out


def relinked(conv: Conversation, path: Sequence[Message], **meta: object) -> Conversation:
    """A conversation of exactly ``path`` (each continuing from the previous), tip at its end."""
    out: list[Message] = []
    parent: str | None = None
    for m in path:
        if m.parent != parent:
            m = Message(id=m.id, parent=parent, role=m.role, blocks=m.blocks, meta=m.meta)
        out.append(m)
        parent = m.id
    fresh = conv.with_messages(out, tip=parent)
    if meta:
        from dataclasses import replace

        fresh = replace(fresh, meta={**fresh.meta, **meta})
        fresh.__dict__.pop("_index", None)
    return fresh


@dataclass(frozen=True)
class LiveContext:
    """The conversation to send, how many compactions the session had, and what to say."""

    conversation: Conversation
    compactions: int
    note: str | None  # None when the session was never compacted


def _chars(path: Sequence[Message]) -> int:
    return sum(m.chars() for m in path)


def _kept_before(path: Sequence[Message]) -> tuple[Message, ...]:
    """The messages before the last boundary that a compaction kept (pi's ``firstKeptEntryId``).

    pi's context after a compaction is the summary, then the entries from the
    first kept one up to the compaction, then what followed.
    """
    at = max(i for i, m in enumerate(path) if is_boundary(m))
    first = path[at].meta.get("first_kept_entry")
    if not isinstance(first, str):
        return ()
    for j in range(at - 1, -1, -1):
        if is_boundary(path[j]):
            break
        if path[j].meta.get("entry_id") == first:
            return tuple(path[j:at])
    return ()


def live_context(conv: Conversation) -> LiveContext:
    """The last segment of a compacted session (the whole path of one never compacted).

    Messages a compaction kept from before its boundary (pi's first kept entry)
    follow the summary, as the harness sends them.
    """
    parts = segments(conv)
    compactions = len(parts) - 1
    if compactions == 0:
        return LiveContext(conv, 0, None)
    path = conv.path()
    last = parts[-1]
    kept = _kept_before(path)
    if kept and last and last[0].meta.get("compact_summary"):
        last = (last[0], *kept, *last[1:])
    live = relinked(conv, last, live_context=True, compactions=compactions)
    note = (
        f"live context: the last of {compactions} compaction(s) and what followed it "
        f"({len(last)} of {len(path)} messages, {_chars(last):,} of {_chars(path):,} characters); "
        "--whole-history sends the whole session"
    )
    return LiveContext(live, compactions, note)


def whole_history_note(conv: Conversation) -> str | None:
    """What ``--whole-history`` says about a compacted session (None when never compacted)."""
    compactions = len(segments(conv)) - 1
    if compactions == 0:
        return None
    return (
        f"whole history: {compactions} compaction(s) and their summaries are inline; the agent "
        "itself had only the last segment (drop --whole-history to send that)"
    )


def history_for_export(
    conv: Conversation, target: str, whole: bool
) -> tuple[Conversation, list[str]]:
    """The conversation ``export --to target`` sends, and the notes saying which history it is.

    An encrypted Codex compaction item only the Responses API reads is named as
    omitted for every other target.
    """
    live = live_context(conv)
    chosen = conv if whole else live.conversation
    line = whole_history_note(conv) if whole else live.note
    notes = [line] if line else []
    if target != "openai-responses":
        hidden = sum(1 for m in chosen.iter_path() if m.meta.get("encrypted_compaction"))
        if hidden:
            notes.append(
                f"{hidden} encrypted Codex compaction item(s) omitted: only the OpenAI Responses "
                "API reads them; a text naming each stands in its place"
            )
    return chosen, notes
