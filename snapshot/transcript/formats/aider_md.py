"""Aider chat history (``.aider.chat.history.md`` in the repository root) → the neutral model.

Aider appends to one Markdown file for every run in the repository, so a file
holds many sessions, each opened by ``# aider chat started at <time>``.
Within a session, Aider's ``InputOutput`` writes three kinds of lines:

- the user's input, every line prefixed ``#### `` (a run of such lines is one
  user message; ``/add`` and other commands are input too);
- Aider's own output (start-up banner, token and cost lines, ``Applied edit
  to …``, ``Commit …``, errors) as ``> `` blockquote lines. The model never
  saw them, but they say what the edits did, so each run is kept as a user
  message marked ``meta["aider_output"]``;
- the model's reply, as plain Markdown. Reasoning of local models arrives
  wrapped in ``<thinking-content-…>`` tags and becomes a thinking block.

There are no structured tool calls: edits are SEARCH/REPLACE or whole-file
blocks inside the reply, and stay text. ``> `` lines inside a fenced code block
of a reply are the reply's, not Aider's.

Each session is its own conversation, ``id`` ``<file name>#<n>`` (1-based),
selectable with ``--select session=N``; sessions holding neither a user
message nor a reply (start-up failures) are skipped and counted.

>>> from snapshot.transcript.formats import aider_md
>>> aider_md.score(Path(".aider.chat.history.md"), b"\\n# aider chat started at 2025-07-15 11:38:37\\n")
1.0
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.files import check_inside
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import Warnings, head_text, matches_select
from snapshot.transcript.model import Block, Conversation, Message, Role, TextBlock, ThinkingBlock

NAME = "aider-chat-md"

_SESSION = re.compile(r"^# aider chat started at (.*?)\s*$")
_THINKING = re.compile(r"<(thinking-content-[0-9a-f]+|think|thinking)>(.*?)(?:</\1>|$)", re.DOTALL)
_VERSION = re.compile(r"^Aider v(\S+)")
_MODEL = re.compile(r"^(Main|Weak|Editor) model: (\S+)(?: with (\S+) edit format)?")
_FENCE = re.compile(r"^\s*(```|~~~)")

Kind = Literal["user", "output", "reply"]


class _Session:
    """One session, its messages made run by run as the file is read (on disk when large)."""

    def __init__(self, number: int, started: str | None, file: spill.SpillFile | None) -> None:
        self.number = number
        self.started = started
        self.messages = spill.message_sink(file is not None, file)
        self.last: str | None = None
        self.runs = 0
        self.kind: Kind | None = None  # the run being read
        self.lines: list[str] = []
        self.has_text = False  # any non-blank line (a preamble without one is no session)
        self.spoke = False
        self.meta: dict[str, Any] = {"session": number, "sessions_in_file": 0}
        if started:
            self.meta["started_at"] = started
        self.models: dict[str, str] = {}

    def add(self, kind: Kind, line: str) -> None:
        self.has_text = self.has_text or bool(line.strip())
        if self.kind != kind:
            self.finish_run()
            self.kind = kind
        self.lines.append(line)

    def finish_run(self) -> None:
        """The run read so far as a message (none when it is blank)."""
        if self.kind is None:
            return
        kind, lines = self.kind, self.lines
        n, self.runs = self.runs, self.runs + 1
        self.kind, self.lines = None, []
        text = "\n".join(lines).strip("\n")
        if not text.strip():
            return
        role: Role
        blocks: list[Block]
        msg_meta: dict[str, Any] = {}
        if kind == "user":
            role, blocks = "user", [TextBlock(text)]
            self.spoke = True
        elif kind == "reply":
            role, blocks = "assistant", _reply_blocks(text)
            self.spoke = True
        else:
            role, blocks = "user", [TextBlock(text)]
            msg_meta["aider_output"] = True
            for line in lines:
                if v := _VERSION.match(line):
                    self.meta.setdefault("aider_version", v.group(1))
                elif mm := _MODEL.match(line):
                    self.models[mm.group(1).lower()] = mm.group(2)
                    if mm.group(3) and mm.group(1) == "Main":
                        self.meta["edit_format"] = mm.group(3)
        mid = f"s{self.number}-r{n}"
        self.messages.append(Message(mid, self.last, role, tuple(blocks), msg_meta))
        self.last = mid

    def conversation(self, path: Path) -> Conversation | None:
        """The session, once read, as a conversation; None when nobody spoke."""
        self.finish_run()
        if not self.spoke:
            return None
        if self.models:
            self.meta["models"] = self.models
        return Conversation(
            id=f"{path.name}#{self.number}",
            messages=spill.frozen(self.messages),
            tip=self.last,
            format=NAME,
            source=str(path),
            meta=self.meta,
        )


def _lines(path: Path, warnings: Warnings) -> Iterator[str]:
    """The file's lines, streamed; bad UTF-8 is replaced and reported once."""
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
    with fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                warnings.add(
                    f"{path}:{lineno}: invalid UTF-8 at byte {exc.start}; replaced with U+FFFD",
                    "utf8",
                )
                line = raw.decode("utf-8", errors="replace")
            yield line.rstrip("\r\n")


def _sessions(path: Path, warnings: Warnings) -> tuple[list[Conversation], int, bool]:
    """The sessions that hold a conversation, how many sessions there are, and
    whether any had its start line. Each is converted as soon as the next starts."""
    # A large history keeps its messages on disk, every session's in one file.
    file = spill.SpillFile() if path.stat().st_size >= spill.SPILL_BYTES else None
    s = _Session(0, None, file)
    convs: list[Conversation] = []
    count, started = 0, False
    in_fence = False

    def close(session: _Session) -> None:
        nonlocal count
        if session.number == 0 and not session.has_text:
            return  # no preamble: not a session
        count += 1
        if (conv := session.conversation(path)) is not None:
            convs.append(conv)

    for line in _lines(path, warnings):
        m = _SESSION.match(line)
        if m and not in_fence:
            close(s)
            s = _Session(s.number + 1, m.group(1), file)
            started = True
            continue
        if (line.startswith("#### ") or line == "####") and not in_fence:
            s.add("user", line[5:].removesuffix("  "))
        elif (line.startswith("> ") or line == ">") and not in_fence:
            s.add("output", line[2:].removesuffix("  "))
        else:
            if _FENCE.match(line):
                in_fence = not in_fence
            s.add("reply", line)
        if s.kind != "reply":
            in_fence = False  # a fence never spans a user or output line
    close(s)
    return convs, count, started


def _reply_blocks(text: str) -> list[Block]:
    out: list[Block] = []
    pos = 0
    for m in _THINKING.finditer(text):
        if text[pos : m.start()].strip():
            out.append(TextBlock(text[pos : m.start()].strip("\n")))
        if m.group(2).strip():
            out.append(ThinkingBlock(m.group(2).strip("\n")))
        pos = m.end()
    if text[pos:].strip():
        out.append(TextBlock(text[pos:].strip("\n")))
    return out


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    """Every conversation in ``path`` that ``options.select`` keeps.

    Parameters
    ----------
    path
        An ``.aider.chat.history.md`` file, or the folder holding one.
    options
        ``select`` matches ``id`` and ``session`` (1-based).

    Returns
    -------
    list[Conversation]
        One conversation per session that holds user input or a reply. Problems that leave the rest usable are in its ``warnings``.

    Raises
    ------
    TranscriptError
        When the path cannot be read or holds nothing of this format.
    """
    if path.is_dir():
        candidate = path / ".aider.chat.history.md"
        if not candidate.is_file():
            raise TranscriptError(f"{path}: is a folder; give its .aider.chat.history.md")
        check_inside(candidate, path, None)  # not a symlink out of the folder
        path = candidate
    warnings = Warnings()
    convs, sessions, started = _sessions(path, warnings)
    if not started:
        raise TranscriptError(
            f"{path}: no Aider chat found (no '# aider chat started at' line); "
            "force another format with --format"
        )
    notes = warnings.tuple()
    silent = sessions - len(convs)
    if silent:
        notes += (
            f"{path}: {silent} of {sessions} sessions skipped: they hold only Aider's "
            "own output (start-up messages or errors), no user input and no reply",
        )
    # Known only once the whole file is read.
    convs = [
        replace(c, meta={**c.meta, "sessions_in_file": sessions}, warnings=notes) for c in convs
    ]
    if not convs:
        raise TranscriptError(f"{path}: {sessions} Aider sessions, none with user input or a reply")
    return [
        c
        for c in convs
        if matches_select({"id": c.id, "session": c.meta.get("session")}, options.select)
    ]


def score(path: Path, head: bytes) -> float:
    """How sure ``path`` is an Aider chat history (0.0 to 1.0).

    Aider opens every session with ``# aider chat started at``; its file name
    alone is as sure.

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
        # The history sits in a project's root: claiming the folder would make
        # the whole project one log. The file itself is detected instead.
        return 0.0
    if path.name.endswith(".aider.chat.history.md"):
        return 1.0
    text = head_text(head)
    if _SESSION.match(text.split("\n", 1)[0]):
        return 1.0
    if "\n#### " in text and "\n> Tokens: " in text:
        return 0.7  # a fragment without its session line
    return 0.0


def ui_record(path: Path, line: Any) -> str | None:
    """A label for a line the model never saw: a session's header, Aider's own ``> `` output.

    >>> ui_record(Path("h.md"), "> Applied edit to a.py")
    "Aider's own output"
    """
    if not isinstance(line, str):
        return None
    if _SESSION.match(line.rstrip("\n")):
        return "session headers"
    return "Aider's own output" if line.startswith(">") else None


FORMAT = Format(
    name=NAME,
    description="Aider .aider.chat.history.md (one conversation per session; no tool calls)",
    score=score,
    load=load,
    ui_records=ui_record,
)
