"""Cursor "Export chat" Markdown (``cursor_<title>.md``, saved where the user chooses) → the neutral model.

Cursor's export is a title line ``# <title>``, a line
``_Exported on <date> from Cursor (<version>)_``, and then the turns, each
opened by a line ``**User**`` or ``**Cursor**`` and closed by a ``---`` line.
Tool calls are not exported: only the text of each turn is, so the importer
says so in its warnings. Role lines inside fenced code are text.

>>> from snapshot.transcript.formats import cursor_md
>>> cursor_md.score(Path("c.md"), b"# T\\n_Exported on 8/4/2025 at 10:24:12 MDT from Cursor (1.3.9)_\\n")
1.0
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import Warnings, head_text, matches_select, text_lines
from snapshot.transcript.model import Conversation, Message, Role, TextBlock

NAME = "cursor-export-md"

_EXPORTED = re.compile(r"^_Exported on (.+?) from Cursor \(([^)]*)\)_\s*$", re.MULTILINE)
_ROLE = re.compile(r"^\*\*(User|Cursor)\*\*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_ROLES: dict[str, Role] = {"User": "user", "Cursor": "assistant"}


def _head(path: Path, chars: int) -> str:
    """The first ``chars`` characters of the file (bad UTF-8 replaced)."""
    try:
        with path.open("rb") as fh:
            raw = fh.read(4 * chars + 4)  # a character is at most 4 bytes
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
    return raw.decode("utf-8", errors="replace")[:chars]


def _strip_separator(lines: list[str]) -> str:
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and lines[-1].strip() == "---":
        lines.pop()
    return "\n".join(lines).strip("\n")


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    """Every conversation in ``path`` that ``options.select`` keeps.

    Parameters
    ----------
    path
        One Cursor chat export (``.md``).
    options
        ``select`` matches ``id`` (the file name without ``.md``).

    Returns
    -------
    list[Conversation]
        One conversation. Problems that leave the rest usable are in its ``warnings``.

    Raises
    ------
    TranscriptError
        When the path cannot be read or holds nothing of this format.
    """
    if path.is_dir():
        raise TranscriptError(f"{path}: is a folder; give one Cursor chat export (.md)")
    warnings = Warnings()
    meta: dict[str, Any] = {}
    if m := _EXPORTED.search(_head(path, 4096)):
        meta.update(exported=m.group(1), cursor_version=m.group(2))
    # A long chat keeps its messages on disk (spill.py); each turn is made once read.
    messages = spill.message_sink(path.stat().st_size >= spill.SPILL_BYTES)
    first: list[str] = []
    turn: tuple[Role, list[str]] | None = None
    empty = 0

    def finish() -> None:
        nonlocal empty
        if turn is not None:
            n = len(messages)
            body = _strip_separator(turn[1])
            parent = f"m{n - 1}" if n else None
            messages.append(Message(f"m{n}", parent, turn[0], (TextBlock(body),) if body else ()))
            empty += not body

    in_fence = False
    for line in text_lines(path, warnings):
        if len(first) < 5:
            first.append(line)
        m = None if in_fence else _ROLE.match(line)
        if m:
            finish()
            turn = (_ROLES[m.group(1)], [])
            continue
        if _FENCE.match(line):
            in_fence = not in_fence
        if turn is not None:
            turn[1].append(line)
    finish()
    if not messages:
        raise TranscriptError(
            f"{path}: no **User** / **Cursor** turns; is this a Cursor chat export? "
            "(force another format with --format)"
        )
    title = next((ln[2:].strip() for ln in first if ln.startswith("# ")), None)
    if title:
        meta["title"] = title
    if empty:
        warnings.add(f"{path}: {empty} turns have no text")
    warnings.add(
        f"{path}: Cursor exports leave tool calls out; only the text of each turn was imported"
    )
    conv = Conversation(
        id=path.stem,
        messages=spill.frozen(messages),
        tip=f"m{len(messages) - 1}",
        format=NAME,
        source=str(path),
        meta=meta,
        warnings=warnings.tuple(),
    )
    if not matches_select({"id": conv.id}, options.select):
        return []
    return [conv]


def score(path: Path, head: bytes) -> float:
    """How sure ``path`` is a Cursor chat export (0.0 to 1.0).

    The ``_Exported on … from Cursor (…)_`` line near the top is Cursor's own.

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
        return 0.0
    text = head_text(head)
    if _EXPORTED.search(text[:2048]):
        return 1.0
    if re.search(r"^\*\*User\*\*\s*$", text, re.MULTILINE) and re.search(
        r"^\*\*Cursor\*\*\s*$", text, re.MULTILINE
    ):
        return 0.7
    return 0.0


FORMAT = Format(
    name=NAME,
    description="Cursor 'Export chat' Markdown (text turns only; tool calls are not exported)",
    score=score,
    load=load,
)
