"""The Markdown transcript ``snapshot export --to markdown`` writes, read back.

Layout (see :func:`snapshot.transcript.export.export_markdown`): a ``# id``
title, then per message a ``## role · id`` heading (``· kind`` when it has
one) and its blocks: text as is, ``> **thinking**`` quotes,
``**tool call** `name` · `id``` followed by a fenced JSON block, and
``**tool result** (error) for `id``` followed by a fenced block of its text.
Images are lines describing them (Markdown holds no image bytes), so they come
back as those lines of text (after a tool result, as text after it); everything
else comes back as it went out. A text line that is itself a ``## role · id``
heading starts a new message: Markdown has no escape for it.

>>> import tempfile, pathlib
>>> from snapshot.transcript.export import export_markdown
>>> from snapshot.transcript.model import linear, TextBlock, ToolCall, ToolResult
>>> conv = linear("c", [("u", "user", [TextBlock("list")]),
...                     ("a", "assistant", [ToolCall("t1", "ls", {"p": "."})]),
...                     ("r", "tool", [ToolResult("t1", (TextBlock("a.txt"),))])])
>>> p = pathlib.Path(tempfile.mkdtemp()) / "c.md"
>>> _ = p.write_text(export_markdown(conv).body)
>>> again = load(p, ImportOptions())[0]
>>> export_markdown(again).body == export_markdown(conv).body
True
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import head_text, pairing_warnings
from snapshot.transcript.model import (
    Block,
    Conversation,
    Message,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)

NAME = "snapshot-markdown"

_TITLE = re.compile(r"^# (?P<id>.+?)(?: \((?P<agent>[^()]+)\))?$")
_SOURCE = re.compile(r"^\*(?P<format>[^*]+)\*(?: from `(?P<source>.*)`)?$")
_HEADING = re.compile(
    r"^## (?P<role>system|user|assistant|tool) · (?P<id>[^·]+?)(?: · (?P<kind>.+))?$"
)
_CALL = re.compile(r"^\*\*tool call\*\* `(?P<name>[^`]*)` · `(?P<id>[^`]*)`$")
_RESULT = re.compile(
    r"^\*\*tool result\*\*(?P<error> \(error\))? for `(?P<id>[^`]*)`(?: — no matching call)?$"
)
_ROLES: dict[str, Role] = {
    "system": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
}
_FENCE = re.compile(r"^(?P<ticks>`{3,})(?P<lang>\w*)$")


def _fenced(lines: list[str], i: int) -> tuple[str, int] | None:
    """The text of the fenced block opening at ``lines[i]``, and the index after it."""
    m = _FENCE.match(lines[i]) if i < len(lines) else None
    if m is None:
        return None
    ticks = m.group("ticks")
    for j in range(i + 1, len(lines)):
        if lines[j] == ticks:
            return "\n".join(lines[i + 1 : j]), j + 1
    return None


def _blocks(lines: list[str], where: str, warns: list[str]) -> list[Block]:
    """A message body: structured blocks where their markers are, text between them."""
    blocks: list[Block] = []
    text: list[str] = []

    def flush(before_block: bool = True) -> None:
        # One empty line opens each block; one more closes text that a block follows.
        if text and text[0] == "":
            text.pop(0)
        if before_block and text and text[-1] == "":
            text.pop()
        if text:
            blocks.append(TextBlock("\n".join(text)))
        text.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        call, result = _CALL.match(line), _RESULT.match(line)
        fenced = _fenced(lines, i + 1) if (call or result) else None
        if call and fenced is not None:
            flush()
            try:
                args = json.loads(fenced[0])
            except ValueError:
                warns.append(f"{where}: tool call {call.group('id')} arguments are not JSON")
                args = {"arguments": fenced[0]}
            blocks.append(ToolCall(call.group("id"), call.group("name"), args))
            i = fenced[1]
        elif result and fenced is not None:
            flush()
            body = (TextBlock(fenced[0]),)
            blocks.append(ToolResult(result.group("id"), body, bool(result.group("error"))))
            i = fenced[1]
        elif line == "> **thinking**" and (i == 0 or lines[i - 1] == ""):
            flush()
            quoted: list[str] = []
            i += 1
            while i < len(lines) and lines[i].startswith("> "):
                quoted.append(lines[i][2:])
                i += 1
            # The export quotes text.splitlines(): a last empty line stands for a newline.
            thought = "\n".join(quoted) + ("\n" if quoted and quoted[-1] == "" else "")
            blocks.append(ThinkingBlock("" if thought == "(redacted)" else thought))
        else:
            text.append(line)
            i += 1
    flush(before_block=False)
    return blocks


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: a folder; snapshot-markdown imports one .md file")
    if options.select:
        raise TranscriptError(f"{path}: holds one conversation; --select is for files holding many")
    try:
        lines = path.read_bytes().decode("utf-8").split("\n")  # keep \r inside texts
    except (OSError, UnicodeDecodeError) as exc:
        raise TranscriptError(f"{path}: cannot be read as UTF-8 text: {exc}") from exc
    title = _TITLE.match(lines[0]) if lines else None
    if title is None:
        raise TranscriptError(f"{path}: no '# id' title; not a snapshot Markdown transcript")
    meta: dict[str, Any] = {}
    fmt, source = "", ""
    if len(lines) > 1 and (m := _SOURCE.match(lines[1])):
        fmt, source = m.group("format"), m.group("source") or ""
    heads = [(i, m) for i, line in enumerate(lines) if (m := _HEADING.match(line))]
    warns: list[str] = []
    messages: list[Message] = []
    parent: str | None = None
    for n, (i, head) in enumerate(heads):
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        mid = head.group("id")
        where = f"{path}:{i + 1}"
        m_meta = {"kind": head.group("kind")} if head.group("kind") else {}
        body = lines[i + 1 : end]
        if body and body[-1] == "":
            body = body[:-1]  # the empty line before the next heading (or the final newline)
        blocks = _blocks(body, where, warns)
        role: Role = _ROLES[head.group("role")]
        messages.append(Message(mid, parent, role, tuple(blocks), m_meta))
        parent = mid
    if not messages:
        raise TranscriptError(f"{path}: no '## role · id' messages found")
    # The format and source lines name the conversation the Markdown was made from;
    # kept as they are, so exporting the import writes the same Markdown again.
    meta["markdown_file"] = str(path)
    return [
        Conversation(
            id=title.group("id"),
            messages=tuple(messages),
            tip=parent,
            agent=title.group("agent") or "main",
            format="" if fmt == "conversation" else fmt,
            source=source,
            meta=meta,
            warnings=tuple(warns + pairing_warnings(messages, str(path))),
        )
    ]


def score(path: Path, head: bytes) -> float:
    """0.6 for a ``# id`` title followed by ``## role · id`` headings; else 0.

    >>> score(Path("c.md"), "# c\\n\\n## user · u1\\n\\nhi\\n".encode())
    0.6
    """
    if path.is_dir():
        return 0.0
    lines = head_text(head).split("\n", 40)
    ours = bool(lines and _TITLE.match(lines[0])) and any(_HEADING.match(x) for x in lines[1:40])
    return 0.6 if ours else 0.0


FORMAT = Format(
    name=NAME,
    description="the Markdown transcript snapshot export --to markdown writes",
    score=score,
    load=load,
)
