"""Where a snapshot cuts: verbatim head, imaged middle, verbatim tail.

The head is the task and its constraints (system messages and the first user
turn). The tail is the last turns, where the work is now. The cut never
separates a tool call from its result: the tail never starts with a result
whose call would be imaged, and the middle never ends with an open call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from snapshot.ladder.record import recent_start, turn_starts
from snapshot.transcript.model import Message


@dataclass(frozen=True)
class Cut:
    head_end: int  # path[:head_end] is the head
    tail_start: int  # path[tail_start:] is the tail

    def split(self, path: Sequence[Message]) -> tuple[list[Message], list[Message], list[Message]]:
        return (
            list(path[: self.head_end]),
            list(path[self.head_end : self.tail_start]),
            list(path[self.tail_start :]),
        )


def head_end(path: Sequence[Message]) -> int:
    """Index just past the first user turn (and the assistant's first reply to it, if any)."""
    starts = turn_starts(path)
    if not starts:
        return min(1, len(path))
    end = starts[0] + 1
    # A first message that is a snapshot of an earlier pass is part of the middle, not the head.
    while end < len(path) and path[end].role == "system" and not path[end].meta.get("kind"):
        end += 1
    return end


def _calls_before(path: Sequence[Message], index: int) -> set[str]:
    return {c.id for m in path[:index] for c in m.tool_calls()}


def safe_tail_start(path: Sequence[Message], start: int, floor: int) -> int:
    """Move ``start`` earlier until no tool result in the tail answers a call before it."""
    start = max(start, floor)
    while start > floor:
        before = _calls_before(path, start)
        tail_results = {r.call_id for m in path[start:] for r in m.tool_results()}
        if not (tail_results & before):
            break
        start -= 1
    return start


def find_cut(path: Sequence[Message], *, keep_turns: int, tail_share: float | None = None) -> Cut:
    """The head/middle/tail split.

    The tail holds the last ``keep_turns`` turns; with ``tail_share`` it is also
    cut back to at most that share of the path's characters (agent runs have few
    user turns, so "the last two turns" can be most of the session). The last
    exchange always stays.
    """
    head = head_end(path)
    start = recent_start(path, keep_turns)
    if tail_share is not None and len(path) > 2:
        sizes = [m.chars() for m in path]
        allowed = tail_share * sum(sizes)
        suffix = sum(sizes[start:])
        while start < len(path) - 2 and suffix > allowed:
            suffix -= sizes[start]
            start += 1
    tail = safe_tail_start(path, start, head)
    return Cut(head_end=head, tail_start=max(tail, head))
