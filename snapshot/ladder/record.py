"""What a rung did: the value objects every strategy returns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from snapshot.transcript.model import Conversation, Message


@dataclass(frozen=True)
class RungRecord:
    """A record of one strategy applied once.

    ``changed``: how many items (results, images, messages) it replaced;
    ``chars_removed``: source characters no longer sent as text;
    ``notes``: one human-readable line per change worth reading;
    ``data``: JSON-ready facts specific to the rung (pages, profile, ...).
    """

    rung: str
    changed: int = 0
    chars_removed: int = 0
    notes: tuple[str, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "rung": self.rung,
            "changed": self.changed,
            "chars_removed": self.chars_removed,
            "notes": list(self.notes),
            **dict(self.data),
        }


@dataclass(frozen=True)
class StrategyResult:
    """A strategy's output conversation, its record, and any pages it drew (for reading back)."""

    conversation: Conversation
    record: RungRecord
    pages: tuple[Any, ...] = ()


def linear_copy(source: Conversation, path: Sequence[Message]) -> Conversation:
    """A conversation holding exactly ``path`` (re-linked in order), tip at its end.

    Unchanged messages keep their ids and blocks, so the head and the tail of a
    compacted conversation are byte-identical to the source.
    """
    from snapshot.transcript.export.live import relinked

    return relinked(source, path)


def turn_starts(path: Sequence[Message]) -> list[int]:
    """Indexes of messages that open a turn: a user message carrying text, not tool results.

    A snapshot or summary an earlier pass wrote is history, not a user's prompt.
    """
    return [
        i
        for i, m in enumerate(path)
        if m.role == "user"
        and not m.tool_results()
        and not m.meta.get("compact_summary")
        and not m.meta.get("kind")
    ]


def recent_start(path: Sequence[Message], keep_turns: int) -> int:
    """Index where the last ``keep_turns`` turns begin (len(path) when keep_turns is 0).

    Transcripts with few user turns (agent runs where the only user message is
    the task) fall back to keeping the last ``2 * keep_turns`` messages.
    """
    if keep_turns <= 0:
        return len(path)
    starts = turn_starts(path)
    if len(starts) > keep_turns:
        return starts[-keep_turns]
    return max(0, len(path) - 2 * keep_turns)
