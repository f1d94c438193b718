"""Where a snapshot cuts: verbatim head, imaged middle, verbatim tail.

The head is the task and its constraints (system messages and the first user
turn). The tail is the last turns, where the work is now. The cut never
separates a tool call from its result: the tail never starts with a result
whose call would be imaged, and the middle never ends with an open call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from snapshot.ladder.record import recent_start
from snapshot.transcript.model import Message, TextBlock

# A message is split for imaging only when it is at least this long (a shorter
# one that fills the tail is the tail's business, not the pages').
SPLIT_MIN_CHARS = 20_000


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
    """Index just past the head: leading system messages and the first user turn.

    A path that does not open with a user turn (a ``codex exec --json`` log, an
    Agent SDK stream without its prompt file, a resumed run) has no task to
    keep verbatim: its head is the leading system messages alone, so its first
    assistant turn and that turn's results go to the middle together. A
    snapshot or summary of an earlier pass is never the head's user turn.
    Whatever the head holds, it never ends with a call whose result lies after it.

    >>> from snapshot.transcript.model import Message, TextBlock, ToolCall, ToolResult
    >>> a = Message("a", None, "assistant", (ToolCall("t", "ls"),))
    >>> r = Message("r", "a", "user", (ToolResult("t"),))
    >>> u = Message("u", "r", "user", (TextBlock("next"),))
    >>> head_end([a, r, u])
    0
    """
    floor = 0
    while floor < len(path) and path[floor].role == "system" and not path[floor].meta.get("kind"):
        floor += 1
    if floor == len(path) or not _opens_turn(path[floor]):
        return floor
    end = floor + 1
    while end < len(path) and path[end].role == "system" and not path[end].meta.get("kind"):
        end += 1
    while end > floor and _open_across(path, end):
        end -= 1
    return end


def _opens_turn(message: Message) -> bool:
    return (
        message.role == "user"
        and not message.tool_results()
        and not message.meta.get("compact_summary")
        and not message.meta.get("kind")
    )


def _open_across(path: Sequence[Message], index: int) -> bool:
    """Does a call before ``index`` have its result at or after it?"""
    before = _calls_before(path, index)
    return any(r.call_id in before for m in path[index:] for r in m.tool_results())


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
        # The last exchange stays; of a reply split by split_oversized, its verbatim part.
        last = len(path) - (1 if path[-1].meta.get("split_from") == path[-1].id else 2)
        while start < last and suffix > allowed:
            suffix -= sizes[start]
            start += 1
    tail = safe_tail_start(path, start, head)
    return Cut(head_end=head, tail_start=max(tail, head))


def split_oversized(path: Sequence[Message], *, tail_share: float | None) -> list[Message]:
    """``path`` with each text-only message too large for the verbatim tail cut in parts.

    The last exchange always stays verbatim (:func:`find_cut`), so one reply
    longer than the whole tail may hold (``tail_share`` of the path's
    characters, and at least :data:`SPLIT_MIN_CHARS`) would leave nothing to
    image. Such a message outside the head becomes consecutive parts of
    :data:`SPLIT_MIN_CHARS` each, cut at line breaks where there are some (fine
    enough for the pages to take as many as fit): the leading
    ones (ids ``<id>~pages1``, ``<id>~pages2``, ...) for the middle to image as
    many as the pages allow, the last keeping the message's id and role
    (``meta["split_from"]`` on every part). Messages with tool calls, results
    or images are never split.

    >>> from snapshot.transcript.model import linear
    >>> conv = linear("c", [("u", "user", [TextBlock("task")]),
    ...                     ("a", "assistant", [TextBlock("x" * 50_000)])])
    >>> [(m.id, m.chars()) for m in split_oversized(conv.path(), tail_share=0.2)]
    [('u', 4), ('a~pages1', 20000), ('a~pages2', 20000), ('a', 10000)]
    """
    if tail_share is None:
        return list(path)
    sizes = [m.chars() for m in path]
    limit = max(SPLIT_MIN_CHARS, tail_share * sum(sizes))
    head = head_end(path)
    out: list[Message] = []
    for i, m in enumerate(path):
        text_only = m.blocks and all(isinstance(b, TextBlock) for b in m.blocks)
        if i < head or sizes[i] <= limit or not text_only or m.role == "system":
            out.append(m)
            continue
        text = "\n\n".join(b.text for b in m.blocks if isinstance(b, TextBlock))
        cuts = _line_cuts(text, SPLIT_MIN_CHARS)
        meta = {**m.meta, "split_from": m.id}
        parent = m.parent
        for n, (a, b) in enumerate(pairwise([0, *cuts, len(text)]), start=1):
            last = b == len(text)
            # The last part keeps the id, so whatever continued from the message still does.
            mid = m.id if last else f"{m.id}~pages{n}"
            out.append(replace(m, id=mid, parent=parent, blocks=(TextBlock(text[a:b]),), meta=meta))
            parent = mid
    return out


def _line_cuts(text: str, part: int) -> list[int]:
    """Offsets cutting ``text`` into parts of about ``part`` characters, at line breaks near there."""
    cuts: list[int] = []
    at = part
    while at < len(text):
        line = text.rfind("\n", at - part // 10, at)
        cut = line + 1 if line > (cuts[-1] if cuts else 0) else at
        cuts.append(cut)
        at = cut + part
    return cuts
