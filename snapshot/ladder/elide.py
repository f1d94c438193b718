"""Rung 1, elision: old, uneventful tool results become a one-line placeholder with a reference.

The unit of "recent" is an assistant step (an assistant message), not a user
prompt: an agent run has one prompt and hundreds of steps. The results answering
the last ``keep_steps`` steps stay. An older result stays when it is an error,
holds an image, is short, or a later step refers to it: a later assistant message
or tool call names an identifier that first appeared in that result (a path, a
file name, a hash, an id, a name with a digit, an underscore or an inner capital).
An identifier the result only repeats (its own call's path, a name seen before)
is no reference to it. A result whose call is repeated later with the same
arguments is superseded and elided even when referenced: the later result holds
the same reading, fresher. Free: no model call.

Every placeholder carries a reference (``MESSAGE#BLOCK``) that
``snapshot show CONV REF`` turns back into the original text.

Identifiers are found without regular expressions that can backtrack: the text
is split on a fixed set of delimiter characters (one linear pass), and each
piece is classified by string methods, so a megabyte run of letters costs one
scan (issue 28).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence

from snapshot.ladder.record import RungRecord, StrategyResult, linear_copy
from snapshot.transcript.model import (
    Conversation,
    Message,
    TextBlock,
    ToolResult,
    block_chars,
)

# Characters that end an identifier: whitespace, quotes, brackets, separators.
_DELIMITERS = " \t\r\n\f\v\"'`()[]{}<>,;|=*!?&^~$%+\\@"
_SPLIT = str.maketrans(dict.fromkeys(_DELIMITERS, " "))
_TRAILING = ".:-/#"
_MIN_TOKEN = 6
_MAX_TOKEN = 200  # longer pieces are data (base64, minified code), not names a step repeats
_HEX = frozenset("0123456789abcdef")


def is_identifier(token: str) -> bool:
    """Is ``token`` (already split and stripped) a name a later step could refer to?

    Paths, file names with an extension, hex hashes and ids with a digit, an
    underscore or an inner capital; never a plain word, whatever follows it.

    >>> [t for t in ["output", "src/app/main.py", "main.py", "9f8e7d6c2", "userId",
    ...              "build_all", "v2-final", "Because", "2024", "e.g"] if is_identifier(t)]
    ['src/app/main.py', 'main.py', '9f8e7d6c2', 'userId', 'build_all', 'v2-final']
    """
    if len(token) < 4 or len(token) > _MAX_TOKEN or not any(c.isalpha() for c in token):
        return False
    if "/" in token:
        return any(part[:1].isalnum() for part in token.split("/"))
    stem, dot, ext = token.rpartition(".")
    if dot and 1 <= len(ext) <= 6 and ext.isalnum() and len(stem) >= 2 and stem[-1:].isalnum():
        return any(c.isalpha() for c in ext)
    if len(token) < _MIN_TOKEN:
        return False
    if len(token) >= 7 and set(token.lower()) <= _HEX:
        return True  # has a letter (checked above); digits or not, a hash-like run
    if any(c.isdigit() for c in token) or "_" in token:
        return True
    return any(c.isupper() for c in token[1:]) and any(c.islower() for c in token)


def identifiers(text: str) -> set[str]:
    """The identifiers in ``text``: one linear split, then :func:`is_identifier` per piece.

    >>> sorted(identifiers("Wrote output. See src/app/main.py: KeyError in userId (9f8e7d6c2)."))
    ['9f8e7d6c2', 'KeyError', 'src/app/main.py', 'userId']
    """
    found: set[str] = set()
    for piece in text.translate(_SPLIT).split():
        token = piece.strip(_TRAILING)
        if token.startswith("./"):
            token = token[2:]
        if is_identifier(token):
            found.add(token)
    return found


@functools.lru_cache(maxsize=4096)
def _identifiers_in(text: str) -> frozenset[str]:
    """:func:`identifiers`, once per text: the report elides one conversation for each
    profile and again inside each ladder, and the texts are the same every time."""
    return frozenset(identifiers(text))


def forget_texts() -> None:
    """Drop the identifiers kept per text (the report calls it after each conversation)."""
    _identifiers_in.cache_clear()


def _step_text(message: Message) -> Iterable[str]:
    """What a message says that can refer back: an assistant's words and calls, a user's prompt."""
    if message.role == "assistant":
        yield message.text()
        for call in message.tool_calls():
            yield call.arguments_json()
    elif message.role == "user" and not message.tool_results():
        yield message.text()


def step_start(path: Sequence[Message], keep_steps: int) -> int:
    """Index of the ``keep_steps``-th last assistant message (len(path) when 0 or none).

    >>> from snapshot.transcript.model import Message
    >>> role = {"u": "user", "a": "assistant"}
    >>> msgs = [Message(str(i), None, role[r], ()) for i, r in enumerate("uauaua")]
    >>> step_start(msgs, 2), step_start(msgs, 0), step_start(msgs, 9)
    (3, 6, 0)
    """
    if keep_steps <= 0:
        return len(path)
    steps = [i for i, m in enumerate(path) if m.role == "assistant"]
    return steps[-keep_steps] if len(steps) >= keep_steps else 0


def reference(message: Message, index: int) -> str:
    """The reference of block ``index`` of ``message`` that ``snapshot show`` resolves."""
    return f"{message.id}#{index}"


def placeholder(tool: str, result: ToolResult, ref: str = "", conv_id: str = "CONV") -> TextBlock:
    """The text standing for an elided result: what it was, and how to get it back
    (``snapshot show`` with the conversation's own id and the block's reference)."""
    text = result.text()
    back = f"; ref {ref}: `snapshot show {conv_id} {ref}`" if ref else ""
    return TextBlock(
        f"[elided: uneventful {tool} result, {len(text):,} chars, "
        f"{text.count(chr(10)) + 1 if text else 0} lines{back}]"
    )


def tool_result_chars(path: Sequence[Message]) -> int:
    """Characters of every tool result on ``path`` (the denominator of the elided share)."""
    return sum(block_chars(b) for m in path for b in m.blocks if isinstance(b, ToolResult))


def elided_chars(record: RungRecord) -> int:
    """Tool-result characters an elide record took out of the request (placeholders netted)."""
    return int(record.data.get("elided_chars", record.chars_removed))


def _call_keys(path: Sequence[Message]) -> dict[str, str]:
    """Call id → its tool name and arguments, the key that says two calls read the same thing."""
    keys: dict[str, str] = {}
    for m in path:
        for c in m.tool_calls():
            keys[c.id] = c.name + "\0" + json.dumps(c.input, sort_keys=True, default=str)
    return keys


def _referenced(path: Sequence[Message], keys: dict[str, str]) -> set[tuple[int, int]]:
    """(message, block) of every result whose own new identifiers a later step names.

    A result repeating an earlier call inherits what that call's results introduced
    (the later reading is the one a reference leans on).
    """
    # Forward: what each result newly introduces (not seen in anything before it).
    seen: set[str] = set()
    by_call: dict[str, set[str]] = {}
    introduced: dict[tuple[int, int], frozenset[str]] = {}
    for i, m in enumerate(path):
        for text in _step_text(m):
            seen |= _identifiers_in(text)
        for j, block in enumerate(m.blocks):
            if isinstance(block, ToolResult):
                own = _identifiers_in(block.text())
                key = keys.get(block.call_id, block.call_id)
                new = (own - seen) | (own & by_call.get(key, set()))
                introduced[(i, j)] = new
                by_call.setdefault(key, set()).update(new)
                seen |= own
    # Backward: one set of everything later steps name.
    later: set[str] = set()
    referenced: set[tuple[int, int]] = set()
    for i in range(len(path) - 1, -1, -1):
        for j, block in enumerate(path[i].blocks):
            if isinstance(block, ToolResult) and introduced[(i, j)] & later:
                referenced.add((i, j))
        for text in _step_text(path[i]):
            later |= _identifiers_in(text)
    return referenced


def _superseded(path: Sequence[Message], keys: dict[str, str]) -> set[str]:
    """Call ids whose exact call (tool and arguments) is made again later."""
    last: dict[str, str] = {}
    for m in path:
        for c in m.tool_calls():
            last[keys[c.id]] = c.id
    return {cid for cid, key in keys.items() if last[key] != cid}


def elide(
    conv: Conversation,
    *,
    keep_steps: int = 2,
    min_chars: int = 200,
) -> StrategyResult:
    """Replace old, uneventful tool results on the conversation's path.

    ``keep_steps``: the results of the last that many assistant steps stay.

    >>> from snapshot.transcript.model import linear, TextBlock, ToolCall, ToolResult
    >>> conv = linear("c", [
    ...     ("u1", "user", [TextBlock("list files")]),
    ...     ("a1", "assistant", [ToolCall("t1", "bash", {"cmd": "ls"})]),
    ...     ("r1", "tool", [ToolResult("t1", (TextBlock("x" * 500),))]),
    ...     ("a2", "assistant", [TextBlock("done")]),
    ... ])
    >>> out = elide(conv, keep_steps=0)
    >>> out.conversation.path()[2].blocks[0].content[0].text
    '[elided: uneventful bash result, 500 chars, 1 lines; ref r1#0: `snapshot show c r1#0`]'
    >>> out.record.data["elided_chars"], out.record.data["tool_result_chars"]
    (414, 500)
    """
    path = conv.path()
    keep_from = step_start(path, keep_steps)
    tool_names = {c.id: c.name for m in path for c in m.tool_calls()}
    keys = _call_keys(path)
    referenced = _referenced(path, keys)
    superseded = _superseded(path, keys)

    out: list[Message] = []
    changed = removed = repeats = 0
    notes: list[str] = []
    for i, m in enumerate(path):
        if i >= keep_from or m.role not in ("tool", "user"):
            out.append(m)
            continue
        blocks = list(m.blocks)
        touched = False
        for j, block in enumerate(blocks):
            if (
                not isinstance(block, ToolResult)
                or block.is_error
                or block.images()
                or block_chars(block) < min_chars
                or ((i, j) in referenced and block.call_id not in superseded)
            ):
                continue
            tool = tool_names.get(block.call_id, "tool")
            new = ToolResult(
                block.call_id, (placeholder(tool, block, reference(m, j), conv.id),), is_error=False
            )
            removed += block_chars(block) - block_chars(new)
            repeats += block.call_id in superseded
            blocks[j] = new
            changed += 1
            touched = True
            notes.append(f"{tool} result #{block.call_id[-8:]}: {block_chars(block):,} chars")
        out.append(
            Message(id=m.id, parent=m.parent, role=m.role, blocks=tuple(blocks), meta=m.meta)
            if touched
            else m
        )
    record = RungRecord(
        "elide",
        changed=changed,
        chars_removed=removed,
        notes=tuple(notes),
        data={
            "elided_chars": removed,
            "tool_result_chars": tool_result_chars(path),
            "superseded": repeats,
        },
    )
    return StrategyResult(linear_copy(conv, out), record)
