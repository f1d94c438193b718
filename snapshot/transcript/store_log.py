"""The store's log: one append-only JSON-lines file per conversation and agent.

Every line is one record, a JSON object written compact in UTF-8 whose first
two keys are the format's version and the record's type::

    {"snapshot_store":2,"type":"conversation","id":"c1","agent":"main",...}
    {"snapshot_store":2,"type":"message","message":{"id":"m1","parent":null,...}}
    {"snapshot_store":2,"type":"tip","tip":"m1"}
    {"snapshot_store":2,"type":"checkpoints","checkpoints":[{"label":"a","message":"m1"}]}
    {"snapshot_store":2,"type":"trim","drop":["m0"]}
    {"snapshot_store":2,"type":"compaction","pass":1,...}

``conversation`` (the head: id, agent, format, source, meta, warnings; the
last one counts), ``message`` (a new message, or a later version of one with
the same id, which replaces it in place), ``tip`` (where the conversation is
now), ``checkpoints`` (the whole list of labels; the last one counts) and
``trim`` (messages removed) make the conversation; any other type is a note
kept for whoever reads it (:meth:`~snapshot.transcript.store.Store.record`).

A writer appends whole turns: the turn's message records, then a record of
another type (a tip record when nothing else ends it), in one write, fsynced.
So message records are *committed* by the next record that is not a message:
message records at the end of a log with nothing after them are an
unfinished turn (a crash mid-write) and are skipped on load, with a warning,
as is a last line without its newline. Neither harms an earlier record, and
the next write cuts them off before it appends.

>>> import tempfile
>>> from pathlib import Path
>>> from snapshot.transcript.model import Message, TextBlock
>>> path = Path(tempfile.mkdtemp()) / "main.jsonl"
>>> lines = [record_line("conversation", {"id": "c", "agent": "main"})[0],
...          message_line(Message("m1", None, "user", (TextBlock("hi"),)))[0],
...          record_line("tip", {"tip": "m1"})[0]]
>>> _ = path.write_bytes(b"".join(lines) + b'{"snapshot_store":2,"type":"mess')
>>> state = scan(path, MessageSink(spill=False))
>>> state.tip, list(state.digests), state.end < path.stat().st_size, len(state.warnings)
('m1', ['m1'], True, 1)
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from snapshot.errors import TranscriptError
from snapshot.transcript.encodable import encodable_value
from snapshot.transcript.files import require_regular_file
from snapshot.transcript.model import Message, message_from_dict, message_to_dict
from snapshot.transcript.spill import SpilledMessages
from snapshot.transcript.tree import Checkpoint

__all__ = [
    "LOG_SUFFIX",
    "LOG_VERSION",
    "STRUCTURE",
    "LogState",
    "MessageSink",
    "is_log_head",
    "message_line",
    "record_line",
    "scan",
]

#: The version every record carries (version 1 was one JSON document per conversation).
LOG_VERSION = 2
#: A log's file name is ``<agent>`` and this.
LOG_SUFFIX = ".jsonl"
#: The record types that make the conversation; any other type is a note.
STRUCTURE = frozenset({"conversation", "message", "tip", "checkpoints", "trim"})

#: A line longer than this is not a record the store wrote (a record is read whole).
MAX_RECORD_BYTES = 1 << 30

_VERSION_KEY = "snapshot_store"
_HEAD = b'{"snapshot_store":'
# How a message record begins as the store writes it: its id follows as a JSON string.
_MESSAGE_HEAD = b'{"snapshot_store":2,"type":"message","message":{"id":'
_DECODER = json.JSONDecoder()


def is_log_head(head: bytes) -> bool:
    """Whether a file beginning with ``head`` is a store log (its first record's start)."""
    return head.startswith(_HEAD)


def _dumps(record: Mapping[str, Any]) -> bytes:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def record_line(kind: str, fields: Mapping[str, Any]) -> tuple[bytes, int]:
    """The line of one record (newline included), and how many lone surrogates were replaced.

    >>> record_line("tip", {"tip": "m1"})
    (b'{"snapshot_store":2,"type":"tip","tip":"m1"}\\n', 0)
    """
    record = {_VERSION_KEY: LOG_VERSION, "type": kind, **fields}
    try:
        return _dumps(record) + b"\n", 0
    except UnicodeEncodeError:
        clean, replaced = encodable_value(record)
        return _dumps(clean) + b"\n", replaced


def message_line(message: Message) -> tuple[bytes, int]:
    """The record line of ``message`` (as :func:`record_line` gives it)."""
    return record_line("message", {"message": message_to_dict(message)})


def digest(line: bytes) -> bytes:
    """What identifies a message record's content (its line without the newline)."""
    return hashlib.blake2b(line.rstrip(b"\n"), digest_size=16).digest()


class MessageSink:
    """Where a scan puts the messages it reads: a list, or a spill for a large log.

    A later record of an id replaces the message in place; a trim removes it.
    """

    def __init__(self, spill: bool) -> None:
        self._spill = spill
        self.reset()

    def reset(self) -> None:
        """Forget every message added (a scan that starts again)."""
        self._items: list[Message] | SpilledMessages = SpilledMessages() if self._spill else []
        self._at: dict[str, int] = {}
        self._dropped: set[int] = set()
        self.replaced = 0  # lone surrogates replaced while reading

    def add(self, message: Message) -> None:
        at = self._at.get(message.id)
        if at is None:
            self._at[message.id] = len(self._items)
            self._items.append(message)
        else:
            self._items[at] = message

    def drop(self, ids: Sequence[str]) -> None:
        for message_id in ids:
            at = self._at.pop(message_id, None)
            if at is not None:
                self._dropped.add(at)

    def messages(self) -> Sequence[Message]:
        """The messages, in the order they were first recorded."""
        items = self._items
        if isinstance(items, list):
            kept = [m for i, m in enumerate(items) if i not in self._dropped]
            return tuple(kept)
        if not self._dropped:
            return items
        out = SpilledMessages()
        for i, text in enumerate(items.texts()):
            if i not in self._dropped:
                out.append_text(items.id_at(i), items.parent_id(i), text)
        items.close()
        return out


@dataclass
class LogState:
    """What a writer of a log needs to know of it, and what a reader found.

    ``digests``: each message's id (in the order first recorded) and the
    :func:`digest` of its last record. ``end``: the offset just past the last
    committed record (what the next write starts at). ``stamp``: the file's
    (inode, size, mtime) when scanned, to tell whether anyone wrote since.
    """

    head: dict[str, Any] | None = None
    tip: str | None = None
    checkpoints: tuple[Checkpoint, ...] = ()
    digests: dict[str, bytes] = field(default_factory=dict)
    end: int = 0
    stamp: tuple[int, int, int] = (0, 0, 0)
    warnings: list[str] = field(default_factory=list)
    notes: int = 0


def stamp_of(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _open_regular(path: Path) -> BinaryIO:
    """``path`` open for reading; a FIFO, device or folder is refused, never waited on or read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        os.close(fd)
        raise
    if not regular:
        os.close(fd)
        require_regular_file(path)  # raises, naming what it is
        raise TranscriptError(f"{path}: not a regular file")  # replaced in between
    return os.fdopen(fd, "rb")


def _lines(path: Path, fh: BinaryIO, limit: int | None) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of each line, the last one without its newline if torn."""
    at = 0
    while limit is None or at < limit:
        most = MAX_RECORD_BYTES + 1 if limit is None else min(MAX_RECORD_BYTES + 1, limit - at)
        line = fh.readline(most)
        if not line:
            return
        if len(line) > MAX_RECORD_BYTES:
            raise TranscriptError(
                f"{path}: a line of more than {MAX_RECORD_BYTES} bytes at byte {at}: not a "
                "record the store wrote; restore the log from a backup"
            )
        yield at, line
        at += len(line)


def _corrupted(path: Path, number: int, reason: str) -> TranscriptError:
    return TranscriptError(
        f"{path}:{number}: corrupted store log ({reason}); restore it from a backup, or "
        "delete the line and everything after it to keep what comes before"
    )


def _message_id(line: bytes) -> str | None:
    """The id of a message record as the store writes it, read without parsing the message."""
    if not line.startswith(_MESSAGE_HEAD):
        return None
    try:
        found, _ = _DECODER.raw_decode(line[len(_MESSAGE_HEAD) : len(_MESSAGE_HEAD) + 600].decode())
    except (ValueError, UnicodeDecodeError):
        return None  # an id too long to be one the store allows, or cut: parsed whole
    return found if isinstance(found, str) else None


def _parse(path: Path, number: int, line: bytes) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise _corrupted(path, number, f"not a JSON record: {exc}") from exc
    if not isinstance(record, dict):
        raise _corrupted(path, number, f"a {type(record).__name__}, not a JSON object")
    version = record.get(_VERSION_KEY)
    if type(version) is not int or version < 2 or not isinstance(record.get("type"), str):
        raise _corrupted(path, number, "no snapshot_store version and type")
    if version > LOG_VERSION:
        raise TranscriptError(
            f"{path}:{number}: store log version {version} is newer than this snapshot "
            f"understands (up to {LOG_VERSION}); upgrade snapshot to read it"
        )
    return record


def _checkpoints(path: Path, number: int, items: object) -> tuple[Checkpoint, ...]:
    if not isinstance(items, list):
        raise _corrupted(path, number, "a checkpoints record without a list")
    out = []
    for item in items:
        if (
            not isinstance(item, Mapping)
            or not isinstance(item.get("label"), str)
            or not isinstance(item.get("message"), str)
        ):
            raise _corrupted(path, number, f"bad checkpoint {item!r}")
        out.append(Checkpoint(label=item["label"], message=item["message"]))
    return tuple(out)


def _ids(path: Path, number: int, items: object) -> list[str]:
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise _corrupted(path, number, "a trim record without a list of ids")
    return items


def scan(
    path: Path,
    sink: MessageSink | None = None,
    *,
    notes: list[dict[str, Any]] | None = None,
    limit: int | None = None,
) -> LogState:
    """Read the log at ``path``: its state, its messages into ``sink``, its notes into ``notes``.

    Without a sink, message records are not parsed (their ids are read from
    where the store writes them): what a writer needs, at the cost of reading
    the bytes. A torn last line and an unfinished last turn are skipped, each
    with a warning in :attr:`LogState.warnings`. ``limit``: read only the
    bytes before it (the log's committed part, once it is known).

    Raises
    ------
    FileNotFoundError
        No log.
    TranscriptError
        A line that is not a record, or a newer version.
    """
    state = LogState()
    pending = 0  # message records since the last commit
    with _open_regular(path) as fh:
        state.stamp = stamp_of(os.fstat(fh.fileno()))
        number = 0
        for at, line in _lines(path, fh, limit):
            number += 1
            if not line.endswith(b"\n"):
                state.warnings.append(
                    f"{path}: its last line ({len(line)} bytes) was cut short by a crash while "
                    "it was written; it was skipped"
                )
                break
            message_id = None if sink is not None else _message_id(line)
            if message_id is not None:
                state.digests[message_id] = digest(line)
                pending += 1
                continue
            record = _parse(path, number, line)
            kind = record["type"]
            if kind == "message":
                raw = record.get("message")
                if not isinstance(raw, dict):
                    raise _corrupted(path, number, "a message record without a message")
                if b"\\u" in line:  # lone surrogates can only come as escapes
                    raw, replaced = encodable_value(raw)
                    if sink is not None:
                        sink.replaced += replaced
                try:
                    message = message_from_dict(raw)
                except (TranscriptError, TypeError, ValueError, AttributeError) as exc:
                    raise _corrupted(path, number, f"a malformed message: {exc}") from exc
                if sink is not None:
                    sink.add(message)
                state.digests[message.id] = digest(line)
                pending += 1
                continue
            pending = 0
            state.end = at + len(line)
            if kind == "conversation":
                head = {k: v for k, v in record.items() if k not in (_VERSION_KEY, "type")}
                if b"\\u" in line:
                    head, replaced = encodable_value(head)
                    if sink is not None:
                        sink.replaced += replaced
                state.head = head
            elif kind == "tip":
                tip = record.get("tip")
                if tip is not None and not isinstance(tip, str):
                    raise _corrupted(path, number, f"a tip that is not an id: {tip!r}")
                state.tip = tip
            elif kind == "checkpoints":
                state.checkpoints = _checkpoints(path, number, record.get("checkpoints"))
            elif kind == "trim":
                dropped = _ids(path, number, record.get("drop"))
                for message_id in dropped:
                    state.digests.pop(message_id, None)
                if sink is not None:
                    sink.drop(dropped)
            else:
                state.notes += 1
                if notes is not None:
                    notes.append(record)
    if pending:
        # An unfinished turn: read again up to the last commit, so none of it counts.
        if sink is not None:
            sink.reset()
        if notes is not None:
            notes.clear()
        again = scan(path, sink, notes=notes, limit=state.end)
        again.warnings = [
            *state.warnings,
            f"{path}: its last turn ({pending} message record(s) with no tip after them) was "
            "not finished when the writer stopped; it was skipped",
        ]
        again.stamp = state.stamp
        return again
    return state
