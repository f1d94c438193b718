"""The session tree: branch, fork, checkpoints, rewind, resume trimming and retry.

Pure functions over :class:`~snapshot.transcript.model.Conversation`; nothing
here touches the disk (:mod:`snapshot.transcript.store` does).

- **Branch** moves the tip and changes nothing else: the abandoned path stays
  in ``messages`` and switching back is another branch.
- **Fork** makes a *new* conversation from one path, with fresh message and
  tool-call ids, so neither conversation can ever show the other's later
  messages (pi's ``/fork`` as opposed to its in-file ``/tree``).
- **Checkpoints** label messages that end a clean turn (no tool call still
  waiting); **rewind** moves the tip back to one and keeps a short extract of
  what was explored on the path it leaves.
- **Resume trimming** keeps the newest messages that fit a token budget and
  cuts only where no kept tool result loses its call (the orphan
  ``tool_result`` that makes providers answer 400 forever). Checkpoints whose
  message was cut are dropped and reported, never moved to a neighbour: a
  label that silently points somewhere else is worse than no label.
- **Retry** says whether there is something to retry, and why not.

>>> from snapshot.transcript.model import linear, TextBlock
>>> conv = linear("c", [("m1", "user", [TextBlock("hi")]), ("m2", "assistant", [TextBlock("yo")])])
>>> branch(conv, "m1").tip
'm1'
>>> retry_point(None).status
'not_loaded'
"""

from __future__ import annotations

import hashlib
import json
import math
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from snapshot.errors import TranscriptError
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
    block_chars,
    tool_pairing,
)
from snapshot.transcript.spill import SpilledMessages, frozen, message_sink

# --- turn boundaries ---------------------------------------------------------------


def open_calls(conv: Conversation, tip: str | None = None) -> tuple[ToolCall, ...]:
    """Tool calls on the path to ``tip`` (default: the conversation's tip) still waiting for a result.

    The path is read one message at a time (for messages kept on disk, never
    all parsed at once), a second time only when some call is waiting.
    """
    waiting = set(tool_pairing(conv.iter_path(tip)).unanswered_calls)
    if not waiting:
        return ()
    return tuple(
        b
        for m in conv.iter_path(tip)
        for b in m.blocks
        if isinstance(b, ToolCall) and b.id in waiting
    )


def is_turn_boundary(conv: Conversation, message_id: str | None = None) -> bool:
    return not open_calls(conv, message_id)


def check_turn_boundary(conv: Conversation, tip: str | None = None) -> None:
    """Raise :class:`TranscriptError` unless every tool call on the path to ``tip`` is answered."""
    waiting = open_calls(conv, tip)
    if waiting:
        at = conv.tip if tip is None else tip
        calls = ", ".join(f"{c.id} ({c.name})" for c in waiting[:5])
        more = f" and {len(waiting) - 5} more" if len(waiting) > 5 else ""
        raise TranscriptError(
            f"conversation {conv.id!r} (agent {conv.agent!r}) is mid-turn at {at!r}: "
            f"tool call {calls}{more} has no result yet; save after the results arrive, "
            "or move the tip to a message whose tool calls are answered"
        )


# --- identity -------------------------------------------------------------------


def content_id(parent: str | None, message: Message, *, call_ids: bool = True) -> str:
    """The id of ``message`` by what it is: its parent's id, its role and its content.

    A message that makes tool calls with ids of their producer (the model's
    ``tool_use.id``, ``call_id``) is known by those ids, not its text: a client
    that echoes the reply back edited (arguments rewritten, a block trimmed)
    still continues *that* message. With ``call_ids=False`` (Gemini, whose
    calls may carry no id until the client names them in its next request),
    the calls count by name and arguments only, so the request that links
    them names the same message as the reply did. ``meta`` never counts.

    >>> from snapshot.transcript.model import TextBlock
    >>> hi = Message("m0", None, "user", (TextBlock("hi"),))
    >>> content_id(None, hi) == content_id(None, Message("x", None, "user", (TextBlock("hi"),)))
    True
    >>> content_id(None, hi) == content_id("other", hi)
    False
    >>> len(content_id(None, hi))
    16
    """
    from snapshot.transcript.model import block_to_dict

    calls = [b.id for b in message.blocks if isinstance(b, ToolCall)]
    if calls and call_ids:
        what: object = ["calls", calls]
    else:
        blocks = [block_to_dict(b) for b in message.blocks]
        if not call_ids:
            for d in blocks:
                if d["type"] == "tool_call":
                    d["id"] = ""
        what = ["content", blocks]
    text = json.dumps([parent, message.role, what], sort_keys=True, ensure_ascii=False)
    # 64 bits: no two messages of one conversation meet. No role prefix: a placeholder's
    # reference (``<id>#<block>``) is text the model reads, paid for on every request.
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def keyed_by_content(
    conv: Conversation,
    *,
    call_ids: bool = True,
    previous: tuple[Sequence[Message], Sequence[Message]] | None = None,
) -> Conversation:
    """``conv`` with every message renamed by :func:`content_id` (parents and tip follow).

    An importer numbers a request's messages by position, so the n-th message
    of one request and of the next are "the same" whatever they hold. Keyed by
    content, a resent message keeps its id and a changed one (an edited
    prompt, a rewind, a compaction summary, another session that opened
    alike) gets a new one: stored beside the old, a branch, never over it.
    Messages that come out identical (same parent, role and content) are one.

    ``previous``: an earlier call's messages and what they became. The longest
    run of equal messages at the front is not hashed again, and keeps the very
    objects returned then (so a store that saw them skips them unread): a
    live recorder's turn costs the turn, not the conversation.

    >>> from snapshot.transcript.model import linear, TextBlock
    >>> a = linear("c", [("m0", "user", [TextBlock("hi")]), ("m1", "assistant", [TextBlock("yo")])])
    >>> b = linear("c", [("m0", "user", [TextBlock("hi")]), ("m1", "assistant", [TextBlock("no")])])
    >>> ka, kb = keyed_by_content(a), keyed_by_content(b)
    >>> ka.messages[0].id == kb.messages[0].id, ka.tip == kb.tip, ka.tip == ka.messages[1].id
    (True, False, True)
    """
    renamed: dict[str, str] = {}
    out: list[Message] = []
    seen: set[str] = set()
    pending = list(conv.messages)
    if previous is not None:
        before, became = previous
        same = 0
        for old, now in zip(before, pending, strict=False):
            if old != now:
                break
            same += 1
        # ``became`` lines up with ``before`` when that call merged nothing and kept the
        # order (an importer's linear history always does); checked as it goes.
        if len(became) == len(before):
            for old, kept in zip(before[:same], became, strict=False):
                parent = renamed.get(old.parent) if old.parent is not None else None
                if kept.role != old.role or kept.parent != parent or kept.id in seen:
                    renamed, out, seen = {}, [], set()
                    break
                renamed[old.id] = kept.id
                seen.add(kept.id)
                out.append(kept)
            pending = pending[len(out) :]
    while pending:
        waiting: list[Message] = []
        for m in pending:
            if m.parent is not None and m.parent not in renamed:
                waiting.append(m)
                continue
            parent = renamed.get(m.parent) if m.parent is not None else None
            new = content_id(parent, m, call_ids=call_ids)
            renamed[m.id] = new
            if new not in seen:
                seen.add(new)
                out.append(replace(m, id=new, parent=parent))
        if len(waiting) == len(pending):
            raise TranscriptError(
                f"conversation {conv.id!r}: message {waiting[0].id!r} continues from "
                f"{waiting[0].parent!r}, which it does not hold"
            )
        pending = waiting
    tip = renamed.get(conv.tip) if conv.tip is not None else None
    return conv.with_messages(out, tip)


# --- branch ---------------------------------------------------------------------


def branch(conv: Conversation, to: str) -> Conversation:
    """The same conversation with its tip at ``to``; every message, abandoned or not, stays."""
    conv.get(to)  # a clear error for an unknown id
    # dataclasses.replace keeps the very same messages tuple: nothing but the tip changes.
    return replace(conv, tip=to)


# --- fork -----------------------------------------------------------------------


def _fresh(new_conv: str, kind: str, old: str, salt: int) -> str:
    digest = hashlib.sha256(f"{new_conv}\0{kind}\0{old}\0{salt}".encode()).hexdigest()[:16]
    return f"call_{digest}" if kind == "call" else f"m{digest}"


def _source_ids(conv: Conversation) -> set[str]:
    ids = {m.id for m in conv.messages}
    for m in conv.messages:
        for b in m.blocks:
            if isinstance(b, ToolCall):
                ids.add(b.id)
            elif isinstance(b, ToolResult):
                ids.add(b.call_id)
    return ids


def _remap_block(block: Block, calls: Mapping[str, str]) -> Block:
    if isinstance(block, ToolCall):
        return replace(block, id=calls[block.id])
    if isinstance(block, ToolResult):
        return replace(block, call_id=calls[block.call_id])
    return block


def fork(
    conv: Conversation,
    new_id: str,
    *,
    at: str | None = None,
    agent: str | None = None,
) -> Conversation:
    """A new conversation ``new_id`` holding a copy of the path to ``at`` (default: the tip).

    Message ids and tool-call ids are fresh (derived deterministically from
    ``new_id`` and the old id, and checked against every id of the source), so
    the fork shares no id with its source. Abandoned branches are not copied.
    """
    if new_id == conv.id:
        raise TranscriptError(
            f"a fork needs a new conversation id; {new_id!r} is the source's own id"
        )
    target = conv.tip if at is None else at
    if target is not None:
        conv.get(target)

    # The path is read twice, a message at a time: a spilled source forks into a spill.
    def path() -> Iterator[Message]:
        return conv.iter_path(target) if target is not None else iter(())

    path_ids = conv.path_ids(target) if target is not None else []
    taken = _source_ids(conv)
    old_calls: list[str] = []
    for m in path():
        for b in m.blocks:
            if isinstance(b, ToolCall):
                old_calls.append(b.id)
            elif isinstance(b, ToolResult):
                old_calls.append(b.call_id)
    for salt in range(100):
        msg_map = {mid: _fresh(new_id, "msg", mid, salt) for mid in path_ids}
        call_map = {c: _fresh(new_id, "call", c, salt) for c in dict.fromkeys(old_calls)}
        fresh = [*msg_map.values(), *call_map.values()]
        if len(set(fresh)) == len(fresh) and not taken.intersection(fresh):
            break
    else:  # pragma: no cover - needs 100 sha256 collisions in a row
        raise TranscriptError(f"could not make fresh ids for fork {new_id!r}")
    sink = message_sink(isinstance(conv.messages, SpilledMessages))
    for m in path():
        sink.append(
            Message(
                id=msg_map[m.id],
                parent=None if m.parent is None else msg_map[m.parent],
                role=m.role,
                blocks=tuple(_remap_block(b, call_map) for b in m.blocks),
                meta=dict(m.meta),
            )
        )
    meta = dict(conv.meta)
    meta.pop("rewinds", None)  # the source's history of rewinds names the source's ids
    meta["forked_from"] = {"conversation": conv.id, "agent": conv.agent, "at": target}
    return Conversation(
        id=new_id,
        messages=frozen(sink),
        tip=msg_map[target] if target is not None else None,
        agent=conv.agent if agent is None else agent,
        format=conv.format,
        source=conv.source,
        meta=meta,
        warnings=conv.warnings,
        image_folders=conv.image_folders,  # its images are still where the source's are
    )


# --- checkpoints -------------------------------------------------------------------


@dataclass(frozen=True)
class Checkpoint:
    """A label on a message that ends a clean turn (every tool call before it answered)."""

    label: str
    message: str


@dataclass(frozen=True)
class DroppedCheckpoint:
    checkpoint: Checkpoint
    reason: str


@dataclass(frozen=True)
class CheckpointReport:
    """Checkpoints kept (exactly as they were) and those dropped, with the reason for each."""

    kept: tuple[Checkpoint, ...]
    dropped: tuple[DroppedCheckpoint, ...] = ()


def validate_label(label: object) -> str:
    """Labels live inside JSON, not in file names, but must be printable one-liners."""
    if not isinstance(label, str) or not label.strip():
        raise TranscriptError("a checkpoint label must be a non-empty string")
    if len(label) > 200:
        raise TranscriptError(f"checkpoint label is {len(label)} characters; at most 200")
    if any(ch in label for ch in "\n\r\t\x00"):
        raise TranscriptError(f"checkpoint label {label!r} must be one line without tabs")
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in label):
        # An escape sequence in a label would drive the terminal of whoever lists it.
        raise TranscriptError(
            f"checkpoint label {label!r} holds a control character; use printable text"
        )
    return label


def find_checkpoint(checkpoints: Iterable[Checkpoint], label: str) -> Checkpoint:
    items = tuple(checkpoints)
    for c in items:
        if c.label == label:
            return c
    known = ", ".join(repr(c.label) for c in items) or "none"
    raise TranscriptError(f"no checkpoint labelled {label!r}; checkpoints: {known}")


def add_checkpoint(
    conv: Conversation,
    checkpoints: Sequence[Checkpoint],
    label: str,
    at: str | None = None,
) -> tuple[Checkpoint, ...]:
    """``checkpoints`` plus ``label`` on ``at`` (default: the tip), which must end a clean turn."""
    validate_label(label)
    target = conv.tip if at is None else at
    if target is None:
        raise TranscriptError(f"conversation {conv.id!r} has no messages to put a checkpoint on")
    conv.get(target)
    waiting = open_calls(conv, target)
    if waiting:
        raise TranscriptError(
            f"{target!r} is mid-turn (tool call {waiting[0].id} ({waiting[0].name}) has no "
            "result before it); put the checkpoint on a message after the results arrive"
        )
    for c in checkpoints:
        if c.label == label:
            raise TranscriptError(
                f"checkpoint {label!r} already exists (on {c.message!r}); choose another label"
            )
    return (*checkpoints, Checkpoint(label=label, message=target))


def reconcile_checkpoints(
    conv: Conversation,
    checkpoints: Iterable[Checkpoint],
    *,
    why: str = "is not in the conversation",
) -> CheckpointReport:
    """Keep checkpoints whose message exists in ``conv``; drop (never move) the rest."""
    kept: list[Checkpoint] = []
    dropped: list[DroppedCheckpoint] = []
    for c in checkpoints:
        if c.message in conv.index:
            kept.append(c)
        else:
            dropped.append(DroppedCheckpoint(c, f"its message {c.message!r} {why}"))
    return CheckpointReport(tuple(kept), tuple(dropped))


# --- rewind ------------------------------------------------------------------------

EXTRACT_CHARS = 600
MAX_REWINDS_KEPT = 20


@dataclass(frozen=True)
class Rewind:
    conversation: Conversation
    checkpoint: Checkpoint
    abandoned: tuple[str, ...]  # ids of the messages left behind, oldest first
    extract: str


def _snippet(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def explored_extract(messages: Sequence[Message], limit: int = EXTRACT_CHARS) -> str:
    """A short, deterministic account of a stretch of conversation: prompts, tools, last words.

    No model call: the point is to remember *that* something was tried on the
    abandoned path, cheaply and reproducibly.
    """
    if not messages:
        return "nothing was explored beyond the checkpoint"
    tools: Counter[str] = Counter()
    errors = 0
    prompts: list[str] = []
    last_said = ""
    for m in messages:
        for b in m.blocks:
            if isinstance(b, ToolCall):
                tools[b.name] += 1
            elif isinstance(b, ToolResult) and b.is_error:
                errors += 1
        if m.role == "user" and not m.tool_results() and m.text().strip():
            prompts.append(m.text())
        if m.role == "assistant" and m.text().strip():
            last_said = m.text()
    parts = [f"{len(messages)} message{'s' if len(messages) != 1 else ''}"]
    if prompts:
        parts.append("prompts: " + "; ".join(repr(_snippet(p, 80)) for p in prompts[:3]))
    if tools:
        listed = ", ".join(f"{n}×{k}" if k > 1 else n for n, k in tools.most_common(6))
        parts.append(f"tools: {listed}" + (f" ({errors} failed)" if errors else ""))
    if last_said:
        parts.append(f"last assistant text: {_snippet(last_said, 160)!r}")
    return _snippet("explored " + "; ".join(parts), limit)


def rewind(conv: Conversation, checkpoints: Iterable[Checkpoint], label: str) -> Rewind:
    """Move the tip to checkpoint ``label``, recording an extract of the path left behind.

    The abandoned messages stay in the tree (as with :func:`branch`); the
    extract goes into ``meta["rewinds"]`` (newest last, at most
    :data:`MAX_REWINDS_KEPT`) so a later reader knows what was already tried.
    """
    cp = find_checkpoint(checkpoints, label)
    if cp.message not in conv.index:
        raise TranscriptError(
            f"checkpoint {label!r} points at {cp.message!r}, which is no longer in conversation "
            f"{conv.id!r} (trimmed away?); delete the checkpoint or pick another"
        )
    old_path = conv.path_ids() if conv.tip is not None else []
    target_ids = set(conv.path_ids(cp.message))
    # Messages after the common ancestor of the old tip and the checkpoint (only
    # those parsed, for messages kept on disk).
    abandoned = tuple(conv.get(mid) for mid in old_path if mid not in target_ids)
    extract = explored_extract(abandoned)
    meta = dict(conv.meta)
    history = [
        *list(meta.get("rewinds") or ()),
        {
            "label": label,
            "from": conv.tip,
            "to": cp.message,
            "abandoned": len(abandoned),
            "extract": extract,
        },
    ]
    meta["rewinds"] = history[-MAX_REWINDS_KEPT:]
    new = replace(conv, tip=cp.message, meta=meta)
    return Rewind(new, cp, tuple(m.id for m in abandoned), extract)


# --- resume trimming --------------------------------------------------------------

# pi's convention: an image costs about as much as 4800 characters (1200 tokens).
IMAGE_TOKEN_ESTIMATE = 1200


def estimate_tokens(message: Message) -> int:
    """Default estimate: ceil(characters / 4) of text, plus :data:`IMAGE_TOKEN_ESTIMATE` per image.

    Deliberately rough and conservative (it over-counts dense English); pass
    a better function to :func:`trim_for_resume` when one is available.
    """
    return math.ceil(message.chars() / 4) + IMAGE_TOKEN_ESTIMATE * len(message.images())


@dataclass(frozen=True)
class Trim:
    """The result of :func:`trim_for_resume`.

    ``conversation``: the kept path (leading system messages, then the newest
    messages), re-rooted at the cut. ``dropped``: ids of every message not
    kept (on the old path or on abandoned branches). ``over_budget``: even the
    smallest valid tail did not fit. ``checkpoints``: kept and dropped labels.
    """

    conversation: Conversation
    dropped: tuple[str, ...]
    tokens: int
    budget: int
    over_budget: bool
    checkpoints: CheckpointReport


def valid_cuts(path: Sequence[Message], start: int = 0) -> list[bool]:
    """``ok[i]``: may the kept tail begin at ``path[i]`` (for ``i >= start``)?

    A cut at ``i`` is invalid when some tool result at or after ``i`` answers a
    call in ``path[start:i]``: that result would arrive with no call before it.
    Each such pair forbids every cut in (call position, result position].
    """
    n = len(path)
    diff = [0] * (n + 1)
    last_call: dict[str, int] = {}
    for pos in range(start, n):
        for b in path[pos].blocks:
            if isinstance(b, ToolCall):
                last_call[b.id] = pos
            elif isinstance(b, ToolResult):
                c = last_call.get(b.call_id)
                if c is not None and c < pos:
                    diff[c + 1] += 1
                    diff[pos + 1] -= 1
    ok = [False] * n
    running = 0
    for i in range(n):
        running += diff[i]
        ok[i] = i >= start and running == 0
    return ok


def trim_for_resume(
    conv: Conversation,
    budget: int,
    *,
    estimate: Callable[[Message], int] = estimate_tokens,
    checkpoints: Iterable[Checkpoint] = (),
) -> Trim:
    """Keep the newest messages of the live path that fit ``budget`` tokens.

    Leading system messages are always kept (and counted). The cut is the
    earliest valid one whose tail fits; when none fits, the latest valid one
    (the smallest tail that can be sent) with ``over_budget`` set. A turn is
    never split. Checkpoints on messages that were cut are dropped and
    reported, never moved.
    """
    if budget < 0:
        raise TranscriptError(f"a token budget cannot be negative (got {budget})")
    path = conv.path() if conv.tip is not None else ()
    pinned = 0
    while pinned < len(path) and path[pinned].role == "system":
        pinned += 1
    costs = [max(0, int(estimate(m))) for m in path]
    pinned_cost = sum(costs[:pinned])
    ok = valid_cuts(path, pinned)
    # suffix[i] = cost of path[i:]
    suffix = [0] * (len(path) + 1)
    for i in range(len(path) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + costs[i]
    cut = None
    for i in range(pinned, len(path)):
        if ok[i] and pinned_cost + suffix[i] <= budget:
            cut = i
            break
    over = False
    if cut is None:
        candidates = [i for i in range(pinned, len(path)) if ok[i]]
        cut = candidates[-1] if candidates else len(path)
        over = pinned_cost + suffix[cut] > budget
    kept = list(path[:pinned])
    tail = list(path[cut:])
    if tail:
        new_parent = kept[-1].id if kept else None
        if tail[0].parent != new_parent:
            tail[0] = replace(tail[0], parent=new_parent)
    kept.extend(tail)
    kept_ids = {m.id for m in kept}
    dropped = tuple(m.id for m in conv.messages if m.id not in kept_ids)
    tokens = pinned_cost + suffix[cut]
    if not dropped:
        trimmed = conv
    else:
        meta = dict(conv.meta)
        meta["resume_trim"] = {
            "budget": budget,
            "tokens": tokens,
            "dropped": len(dropped),
            "first_kept": tail[0].id if tail else None,
        }
        trimmed = replace(conv.with_messages(kept, conv.tip), meta=meta)
    report = reconcile_checkpoints(trimmed, checkpoints, why="was trimmed away")
    return Trim(trimmed, dropped, tokens, budget, over, report)


# --- retry -------------------------------------------------------------------------

RetryStatus = Literal["ready", "nothing", "not_loaded"]


@dataclass(frozen=True)
class RetryPoint:
    """Where a retry would restart: the user prompt whose reply is regenerated.

    ``status`` is ``"ready"`` (``message`` names the prompt), ``"nothing"``
    (a conversation is loaded but has no prompt to retry) or ``"not_loaded"``
    (there is no conversation at all); ``reason`` says which in words.
    """

    status: RetryStatus
    message: str | None
    reason: str

    @property
    def ready(self) -> bool:
        return self.status == "ready"


def _is_prompt(m: Message) -> bool:
    return (
        m.role == "user"
        and not m.tool_results()
        and any(isinstance(b, TextBlock | ImageBlock) for b in m.blocks)
    )


def retry_point(conv: Conversation | None) -> RetryPoint:
    if conv is None:
        return RetryPoint("not_loaded", None, "no conversation is loaded; load or import one first")
    if conv.tip is None:
        return RetryPoint("nothing", None, f"conversation {conv.id!r} is empty: nothing to retry")
    path = conv.path()
    for pos in range(len(path) - 1, -1, -1):
        m = path[pos]
        if _is_prompt(m):
            after = len(path) - 1 - pos
            if after == 0:
                why = f"prompt {m.id!r} has no reply yet; retrying sends it again"
            else:
                why = (
                    f"retry regenerates the reply to prompt {m.id!r}; the {after} message"
                    f"{'s' if after != 1 else ''} after it stay as an abandoned branch"
                )
            return RetryPoint("ready", m.id, why)
    return RetryPoint(
        "nothing",
        None,
        f"conversation {conv.id!r} has no user prompt on its path: nothing to retry",
    )


def retry(conv: Conversation | None) -> Conversation:
    """Branch back to the retry point, or raise saying why there is none."""
    point = retry_point(conv)
    if not point.ready or conv is None or point.message is None:
        raise TranscriptError(point.reason)
    return branch(conv, point.message)


# --- context breakdown ----------------------------------------------------------


@dataclass(frozen=True)
class ContextShare:
    """Where the characters of one path go, by kind; images counted separately."""

    chars: Mapping[str, int]
    images: tuple[tuple[str, ImageBlock], ...]  # (kind it sits in, image)


CONTEXT_KINDS = ("system", "user", "assistant", "thinking", "tool calls", "tool results")


def context_share(messages: Iterable[Message]) -> ContextShare:
    """Characters by kind: system, user, assistant, thinking, tool calls, tool results."""
    chars: dict[str, int] = dict.fromkeys(CONTEXT_KINDS, 0)
    images: list[tuple[str, ImageBlock]] = []
    for m in messages:
        base = (
            "system" if m.role == "system" else ("assistant" if m.role == "assistant" else "user")
        )
        for b in m.blocks:
            if isinstance(b, ToolResult):
                chars["tool results"] += block_chars(b)
                images.extend(("tool results", img) for img in b.images())
            elif isinstance(b, ToolCall):
                chars["tool calls"] += block_chars(b)
            elif isinstance(b, ThinkingBlock):
                chars["thinking"] += block_chars(b)
            elif isinstance(b, ImageBlock):
                images.append((base, b))
            else:
                kind = "tool results" if m.role == "tool" else base
                chars[kind] += block_chars(b)
    return ContextShare(chars, tuple(images))
