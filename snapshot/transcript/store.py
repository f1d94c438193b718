"""A crash-safe workspace of stored conversations: one append-only log per conversation and agent.

Layout of a workspace (default ``.snapshot/`` in the working directory)::

    <ws>/<conversation id>/<agent>.jsonl             the log (messages, tip, checkpoints, notes)
    <ws>/<conversation id>/<agent>.lock              the writers' lock (empty)
    <ws>/<conversation id>/images/<sha256>.<ext>     copies of its path-referenced images

The log's records are described in :mod:`snapshot.transcript.store_log`.
Stores written before it (``<agent>.json`` and ``<agent>.checkpoints.json``,
:mod:`snapshot.transcript.store_legacy`) are read as they are and migrated
into a log by the first write.

Guarantees, and why each exists:

- Appended, not rewritten. Recording a turn appends its records to the log
  (:meth:`Store.append`; :meth:`Store.save`, which appends what differs
  from what is stored; :meth:`Store.extend`, the same without trimming what
  the new conversation leaves out, for the proxy's turns), so a save costs
  the turn, not the conversation. A log is rewritten only offline
  (:meth:`Store.compact`), atomically.
- Saved only at turn boundaries. A transcript whose tip still waits for a tool
  result cannot be sent to a provider (every call must be answered), so a log
  ending at one would be a resume point nobody can resume from. :meth:`Store.save`
  and :meth:`Store.append` refuse it.
- Durable, and whole turns only. A turn's records go in one write, fsynced
  before the call returns. A crash mid-write leaves a torn last line or an
  unfinished turn, which loading skips with a warning and the next write cuts
  off; an earlier record is never touched.
- Serialized. Writers of one conversation/agent take an exclusive lock on the
  lock file (``filelock``, so the package imports and locks on Windows too);
  :meth:`Store.update` holds it across load-modify-save so two writers cannot
  each drop the other's turn. A lock path that is a symlink, a folder or
  anything but a plain file is refused rather than followed.
- Encodable. Text that cannot be written as UTF-8 (lone surrogates from a
  truncated emoji) is replaced by U+FFFD and counted in the conversation's
  warnings before it is written, so every stored conversation can be read,
  written and exported again.
- Self-contained images. An image a transcript references by path is copied
  into the conversation's ``images/`` folder when it is saved (named by its
  SHA-256, so agents and saves share one copy), through the image guard
  (:func:`snapshot.transcript.images.read_image`), and the log records it by
  that relative name. A loaded conversation's images may come from its own
  folder only, whatever ``source`` the log names: a hand-edited log cannot
  make a folder outside the store trusted. An image the guard refuses stays a
  reference, is noted in the warnings, and is left out when sent.
- Kept on disk when large. A log of :data:`~snapshot.transcript.spill.SPILL_BYTES`
  or more loads into a :class:`~snapshot.transcript.spill.SpilledMessages`,
  read a line at a time: memory holds one record, never the file.
- Checked first. :meth:`Store.check_writable` refuses a read-only or
  unwritable workspace before a command does any work.
- Safe names. Conversation ids and agent names become path components, so they
  are validated (no separators, no ``..``, no absolute paths, a plain charset,
  bounded length) before any path is built.
- Versioned. Every record carries its format's version; a newer one than this
  code knows is refused (the data would be misread).

>>> import tempfile
>>> from snapshot.transcript.model import Message, linear, TextBlock
>>> ws = Store(tempfile.mkdtemp())
>>> conv = linear("c1", [("m1", "user", [TextBlock("hi")])])
>>> _ = ws.save(conv)
>>> ws.append("c1", [Message("m2", "m1", "assistant", (TextBlock("hello"),))])
>>> ws.load("c1").tip
'm2'
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import filelock

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.durable import append_durably, atomic_write, make_dirs_durably
from snapshot.transcript.model import (
    Conversation,
    ImageBlock,
    Message,
    conversation_from_dict,
    conversation_head_to_dict,
    map_images,
    tool_pairing,
)
from snapshot.transcript.spill import SpilledMessages
from snapshot.transcript.store_legacy import (
    DOCUMENT_HEAD,
    read_checkpoints,
    read_document,
)
from snapshot.transcript.store_log import (
    LOG_SUFFIX,
    LOG_VERSION,
    STRUCTURE,
    LogState,
    MessageSink,
    digest,
    is_log_head,
    message_line,
    record_line,
    scan,
    stamp_of,
)
from snapshot.transcript.tree import Checkpoint, check_turn_boundary

__all__ = [
    "DEFAULT_WORKSPACE",
    "SCHEMA_VERSION",
    "Store",
    "atomic_write",
    "is_store_file",
    "make_dirs_durably",
    "safe_id",
    "validate_id",
]

#: The version of the store's format (its log records); 1 was one JSON document per conversation.
SCHEMA_VERSION = LOG_VERSION
DEFAULT_WORKSPACE = ".snapshot"
# A writer holds the lock for one load-modify-save (seconds at most); waiting
# longer means a stuck process, which is reported rather than waited on forever.
LOCK_TIMEOUT_S = 300.0

# Ids become directory and file names: letters, digits, '.', '_', '-'; starting
# with a letter or digit (so never '.', '..' or a hidden file), at most 128 chars.
_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
MAX_ID_LENGTH = 128
_CHECKPOINTS_SUFFIX = ".checkpoints"
#: The folder, inside a conversation's folder, holding copies of its images.
IMAGES_FOLDER = "images"
_IMAGE_SUFFIX = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
}


def validate_id(value: object, what: str = "conversation id") -> str:
    """Return ``value`` if it is safe as one path component, else raise :class:`TranscriptError`."""
    if not isinstance(value, str) or not value:
        raise TranscriptError(f"{what} must be a non-empty string, got {value!r}")
    if "/" in value or "\\" in value or os.sep in value or "\x00" in value:
        raise TranscriptError(
            f"{what} {value!r} contains a path separator; use letters, digits, '.', '_' or '-'"
        )
    if value in (".", ".."):
        raise TranscriptError(f"{what} {value!r} is a path traversal; use a plain name")
    if len(value) > MAX_ID_LENGTH:
        raise TranscriptError(
            f"{what} is {len(value)} characters long; at most {MAX_ID_LENGTH} are allowed"
        )
    if not _ID_RE.fullmatch(value):
        raise TranscriptError(
            f"{what} {value!r} is not a safe file name: start with a letter or digit and "
            "use only letters, digits, '.', '_' and '-'"
        )
    if value.endswith(_CHECKPOINTS_SUFFIX) or value.endswith(".lock"):
        raise TranscriptError(f"{what} {value!r} ends with a suffix the store reserves")
    return value


def safe_id(value: str) -> str:
    """A store-safe id derived from any string (same string in, same id out).

    Used when an imported conversation's own id cannot be a file name (it holds
    a '/', spaces, or is very long): unsafe characters become '_' and a short
    hash of the original keeps distinct ids distinct.
    """
    try:
        return validate_id(value)
    except TranscriptError:
        pass
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", value).strip("._-")
    cleaned = re.sub(r"\.{2,}", ".", cleaned)[:100].rstrip("._-") or "conv"
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return validate_id(f"{cleaned}-{digest}")


# --- the store ------------------------------------------------------------------


def is_store_file(path: Path) -> bool:
    """Whether ``path`` is a conversation this store wrote: a log, or an older store document.

    >>> import tempfile
    >>> ws = Store(tempfile.mkdtemp())
    >>> from snapshot.transcript.model import linear
    >>> is_store_file(ws.save(linear("c", [("m", "user", [])])))
    True
    """
    if path.suffix not in (LOG_SUFFIX, ".json") or path.name.endswith(".checkpoints.json"):
        return False
    try:
        st = path.stat()
    except (OSError, ValueError):
        return False
    if not stat.S_ISREG(st.st_mode):
        return False
    try:
        with path.open("rb") as fh:
            head = fh.read(64)
    except OSError:
        return False
    if path.suffix == LOG_SUFFIX:
        return is_log_head(head)
    return head.startswith(DOCUMENT_HEAD)


def read_log(path: Path) -> Conversation:
    """The conversation of the log at ``path``, wherever it lies (its images: its own folder).

    Raises
    ------
    FileNotFoundError
        No such file.
    TranscriptError
        Not a log, or a corrupted one.
    """
    return _from_log(path, path.stat().st_size, None)[0]


def _from_log(path: Path, size: int, live: Any) -> tuple[Conversation, LogState]:
    sink = MessageSink(spill=size >= spill.SPILL_BYTES)
    state = scan(path, sink)
    if state.head is None:
        raise TranscriptError(
            f"{path}: corrupted store log (no conversation record); restore it from a backup "
            "or delete it and import the conversation again"
        )
    record = dict(state.head)
    warnings = record.get("warnings")
    if not isinstance(warnings, list):
        raise TranscriptError(f"{path}: corrupted store log (its warnings are not a list)")
    record["warnings"] = [*warnings, *state.warnings]
    if sink.replaced:
        record["warnings"].append(
            f"{sink.replaced} unencodable character(s) (lone surrogates) replaced with U+FFFD "
            "when loaded"
        )
    record["tip"] = state.tip
    messages = sink.messages()
    try:
        conv = conversation_from_dict(record, folder=path.parent, messages=messages)
    except TranscriptError as exc:
        raise TranscriptError(f"{path}: corrupted store log ({exc})") from exc
    except (TypeError, ValueError, AttributeError) as exc:
        raise TranscriptError(f"{path}: corrupted store log ({exc!r})") from exc
    if live is not None and isinstance(conv.messages, tuple):
        for m in conv.messages:
            if not m.images():  # an image message is a new object each save (its path rooted)
                live[m.id] = m
    return conv, state


def _unanswered(batch: Mapping[str, Message], tip: str) -> list[str]:
    """Tool calls on the appended part of the path to ``tip`` that it leaves unanswered."""
    segment: list[Message] = []
    node: str | None = tip
    while node is not None and node in batch:
        segment.append(batch[node])
        node = batch[node].parent
        if len(segment) > len(batch):
            break  # a parent cycle inside the batch; refused by the caller
    segment.reverse()
    calls = {c.id: c.name for m in segment for c in m.tool_calls()}
    return [f"{cid} ({calls.get(cid, '?')})" for cid in tool_pairing(segment).unanswered_calls]


def _head_record(conv: Conversation) -> dict[str, Any]:
    head = conversation_head_to_dict(conv)
    del head["tip"]
    return head


_REPLACED_NOTE = "unencodable character(s) (lone surrogates) replaced with U+FFFD when stored"


class Store:
    """A workspace directory of stored conversations.

    ``root`` is created on first save. Methods take ``conv_id`` and ``agent``
    (default ``"main"``), both validated with :func:`validate_id`.

    One object may serve many calls (a live agent keeps one): it remembers,
    per log, what it last read or wrote (the ids and a digest of each message,
    the tip, the checkpoints) and trusts that while the file is unchanged
    (same inode, size and modification time), so :meth:`append` reads nothing.

    >>> import tempfile
    >>> from snapshot.transcript.model import Message, TextBlock, linear
    >>> store = Store(tempfile.mkdtemp())
    >>> conv = linear("c1", [("m1", "user", [TextBlock("hi")])])
    >>> store.save(conv).name
    'main.jsonl'
    >>> _ = store.append("c1", [Message("m2", "m1", "assistant", (TextBlock("hello"),))])
    >>> loaded = store.load("c1")
    >>> loaded.tip, [m.role for m in loaded.path()], store.agents("c1")
    ('m2', ['user', 'assistant'], ['main'])
    """

    def __init__(self, root: str | os.PathLike[str] = DEFAULT_WORKSPACE) -> None:
        self.root = Path(root)
        # Locks this thread already holds, so save() inside update() does not
        # deadlock on its own flock (two fds of one process do conflict).
        self._held = threading.local()
        self._states: dict[tuple[str, str], LogState] = {}
        # Messages as last loaded or saved, by id: a save skips re-encoding an unchanged one.
        self._live: dict[tuple[str, str], weakref.WeakValueDictionary[str, Message]] = {}

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    # paths
    def conversation_dir(self, conv_id: str) -> Path:
        return self.root / validate_id(conv_id, "conversation id")

    def path_for(self, conv_id: str, agent: str = "main") -> Path:
        """The log of one conversation and agent."""
        return self.conversation_dir(conv_id) / f"{validate_id(agent, 'agent name')}{LOG_SUFFIX}"

    def document_path(self, conv_id: str, agent: str = "main") -> Path:
        """Where a store written before the log kept the conversation (``<agent>.json``)."""
        return self.conversation_dir(conv_id) / f"{validate_id(agent, 'agent name')}.json"

    def checkpoints_path(self, conv_id: str, agent: str = "main") -> Path:
        """Where a store written before the log kept the checkpoint labels."""
        return (
            self.conversation_dir(conv_id)
            / f"{validate_id(agent, 'agent name')}{_CHECKPOINTS_SUFFIX}.json"
        )

    def _lock_path(self, conv_id: str, agent: str) -> Path:
        return self.conversation_dir(conv_id) / f"{validate_id(agent, 'agent name')}.lock"

    # locking
    def _checked_lock_path(self, conv_id: str, agent: str) -> Path:
        lock_path = self._lock_path(conv_id, agent)
        try:
            st = os.lstat(lock_path)
        except FileNotFoundError:
            return lock_path
        except OSError as exc:
            raise TranscriptError(f"{lock_path}: cannot be used as a lock: {exc.strerror}") from exc
        if not stat.S_ISREG(st.st_mode):
            what = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a plain file"
            raise TranscriptError(
                f"{lock_path} is {what}; the store's lock must be a plain file it created: "
                "remove it and try again"
            )
        return lock_path

    @contextlib.contextmanager
    def lock(self, conv_id: str, agent: str = "main") -> Iterator[None]:
        """Hold the exclusive writer lock of one conversation/agent (re-entrant in one thread)."""
        lock_path = self._lock_path(conv_id, agent)
        held: dict[Path, int] = self._held.__dict__.setdefault("paths", {})
        if held.get(lock_path):
            held[lock_path] += 1
            try:
                yield
            finally:
                held[lock_path] -= 1
            return
        make_dirs_durably(lock_path.parent)
        self._checked_lock_path(conv_id, agent)
        flock = filelock.FileLock(str(lock_path), timeout=LOCK_TIMEOUT_S)
        try:
            flock.acquire()
        except filelock.Timeout:
            raise TranscriptError(
                f"{lock_path}: another snapshot command has held this conversation's lock for "
                f"{LOCK_TIMEOUT_S:.0f} s; wait for it to finish and try again"
            ) from None
        except OSError as exc:
            raise TranscriptError(
                f"{lock_path}: cannot take the store's lock ({exc.strerror or exc}); "
                "pick a workspace you can write to"
            ) from exc
        try:
            held[lock_path] = 1
            try:
                yield
            finally:
                held.pop(lock_path, None)
        finally:
            flock.release()

    def check_writable(self) -> None:
        """Raise :class:`TranscriptError` now if saving into this workspace would fail.

        The workspace, or the nearest folder above it that exists, must be a
        folder this process may write into (a read-only mount counts as not).
        """
        d = self.root
        while not d.exists() and d.parent != d:
            d = d.parent
        if not d.is_dir():
            raise TranscriptError(f"{d} is not a folder; pick another workspace (--workspace)")
        if not os.access(d, os.W_OK | os.X_OK):
            raise TranscriptError(
                f"{d} cannot be written (read-only or not yours); nothing was changed; "
                "pick a workspace you can write to (--workspace)"
            )

    # listing
    def exists(self, conv_id: str, agent: str = "main") -> bool:
        return (
            self.path_for(conv_id, agent).is_file() or self.document_path(conv_id, agent).is_file()
        )

    def agents(self, conv_id: str) -> list[str]:
        """Agents stored for one conversation, sorted."""
        directory = self.conversation_dir(conv_id)
        if not directory.is_dir():
            return []
        out = set()
        for p in directory.iterdir():
            name, suffix = p.stem, p.suffix
            if suffix not in (LOG_SUFFIX, ".json") or name.startswith("."):
                continue
            if name.endswith(_CHECKPOINTS_SUFFIX):
                continue
            out.add(name)
        return sorted(out)

    def conversations(self) -> list[str]:
        """Conversation ids stored in the workspace, sorted."""
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and self.agents(p.name))

    # reading
    def load(self, conv_id: str, agent: str = "main") -> Conversation:
        """The stored conversation; a missing, corrupted or too-new log raises :class:`TranscriptError`.

        A log of at least :data:`~snapshot.transcript.spill.SPILL_BYTES` is read
        a line at a time into a :class:`~snapshot.transcript.spill.SpilledMessages`;
        a smaller one into a tuple. A torn last line or an unfinished last turn
        is skipped and named in the conversation's warnings.
        """
        path = self.path_for(conv_id, agent)
        key = (conv_id, agent)
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            conv = self._load_document(conv_id, agent)
        else:
            live: weakref.WeakValueDictionary[str, Message] = weakref.WeakValueDictionary()
            conv, state = _from_log(path, size, live)
            self._states[key], self._live[key] = state, live
        if conv.id != conv_id or conv.agent != agent:
            where = path if path.exists() else self.document_path(conv_id, agent)
            raise TranscriptError(
                f"{where}: holds conversation {conv.id!r} agent {conv.agent!r}, not "
                f"{conv_id!r} agent {agent!r}; the file was moved or copied by hand"
            )
        return conv

    def _load_document(self, conv_id: str, agent: str) -> Conversation:
        try:
            return read_document(self.document_path(conv_id, agent), agent)
        except FileNotFoundError:
            stored = self.agents(conv_id)
            hint = (
                f"; stored agents of {conv_id!r}: {', '.join(stored)}"
                if stored
                else f"; import it first (workspace {self.root})"
            )
            raise TranscriptError(
                f"no stored conversation {conv_id!r} for agent {agent!r}{hint}"
            ) from None

    def load_checkpoints(self, conv_id: str, agent: str = "main") -> tuple[Checkpoint, ...]:
        """The checkpoint labels of a stored conversation (none when it has none)."""
        path = self.path_for(conv_id, agent)
        try:
            st = path.stat()
        except FileNotFoundError:
            return read_checkpoints(self.checkpoints_path(conv_id, agent))
        cached = self._states.get((conv_id, agent))
        if cached is not None and cached.stamp == stamp_of(st):
            return cached.checkpoints
        return scan(path).checkpoints

    def records(
        self, conv_id: str, agent: str = "main", kind: str | None = None
    ) -> list[dict[str, Any]]:
        """The notes recorded with :meth:`record` (of type ``kind``, or all), in order.

        Each is the record as written, with its ``type`` and ``snapshot_store`` version.
        """
        path = self.path_for(conv_id, agent)
        if not path.is_file():
            return []
        notes: list[dict[str, Any]] = []
        scan(path, notes=notes)
        return [n for n in notes if kind is None or n.get("type") == kind]

    # writing
    def _state(self, conv_id: str, agent: str) -> LogState | None:
        """What the log holds now (under the lock): from memory while the file is unchanged.

        A conversation stored before the log is migrated into one first. ``None``: no log.
        """
        path = self.path_for(conv_id, agent)
        key = (conv_id, agent)
        self._remove_stale_temps(path)
        try:
            st = path.stat()
        except FileNotFoundError:
            if not self.document_path(conv_id, agent).is_file():
                return None
            self._migrate(conv_id, agent)
            st = path.stat()
        cached = self._states.get(key)
        if cached is not None and cached.stamp == stamp_of(st):
            return cached
        state = scan(path)
        if state.head is None:
            raise TranscriptError(
                f"{path}: corrupted store log (no conversation record); restore it from a "
                "backup or delete it and import the conversation again"
            )
        self._states[key] = state
        self._live.pop(key, None)
        return state

    def _migrate(self, conv_id: str, agent: str) -> None:
        """Rewrite a conversation stored as one document into a log, then remove the document."""
        document = self.document_path(conv_id, agent)
        conv = read_document(document, agent)
        if conv.id != conv_id or conv.agent != agent:
            raise TranscriptError(
                f"{document}: holds conversation {conv.id!r} agent {conv.agent!r}, not "
                f"{conv_id!r} agent {agent!r}; the file was moved or copied by hand"
            )
        checkpoints = read_checkpoints(self.checkpoints_path(conv_id, agent))
        self._write_whole(self._keep_images(conv), checkpoints)
        # The log is durable: the documents go (a crash before this leaves both; the log wins).
        for old in (document, self.checkpoints_path(conv_id, agent)):
            with contextlib.suppress(FileNotFoundError):
                old.unlink()

    def _write_whole(
        self,
        conv: Conversation,
        checkpoints: Sequence[Checkpoint],
        notes: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        """Write ``conv``'s log anew, atomically (a new conversation, a migration, a compaction)."""
        path = self.path_for(conv.id, conv.agent)
        make_dirs_durably(path.parent)
        self._remove_stale_temps(path)
        head = _head_record(conv)
        replaced = 0

        def lines() -> Iterator[bytes]:
            nonlocal replaced
            yield self._line("conversation", head)
            if isinstance(conv.messages, SpilledMessages):
                for text in conv.messages.texts():
                    line, n = record_line("message", {"message": json.loads(text)})
                    replaced += n
                    yield line
            else:
                for m in conv.messages:
                    line, n = message_line(m)
                    replaced += n
                    yield line
            if replaced:
                warned = {**head, "warnings": [*head["warnings"], f"{replaced} {_REPLACED_NOTE}"]}
                yield self._line("conversation", warned)
            yield self._line("tip", {"tip": conv.tip})
            if checkpoints:
                yield self._line("checkpoints", {"checkpoints": _labels(checkpoints)})
            for note in notes:
                fields = {k: v for k, v in note.items() if k not in ("snapshot_store", "type")}
                yield self._line(str(note["type"]), fields)

        self._write(path, lines())
        self._states.pop((conv.id, conv.agent), None)

    @staticmethod
    def _line(kind: str, fields: Mapping[str, Any]) -> bytes:
        return record_line(kind, fields)[0]

    def _append_lines(self, conv_id: str, agent: str, state: LogState, data: bytes) -> None:
        path = self.path_for(conv_id, agent)
        try:
            state.end = append_durably(path, data, end=state.end)
            state.stamp = stamp_of(path.stat())
        except OSError as exc:
            self._states.pop((conv_id, agent), None)
            raise TranscriptError(
                f"{path}: cannot be written ({exc.strerror or exc}); every turn stored before is "
                "intact; free some space or fix the folder's permissions and save again"
            ) from exc

    def append(
        self,
        conv_id: str,
        messages: Sequence[Message],
        *,
        agent: str = "main",
        tip: str | None = None,
    ) -> None:
        """Append ``messages`` and a tip (default: the last of them) to the log as one turn.

        The messages are new (an id already stored is refused), each continues
        from a stored message or an earlier one of ``messages``, and the tip
        must not leave a tool call made in this turn unanswered. One write,
        fsynced before this returns, under the conversation's lock; the log is
        created if missing. Reads nothing of the log while this object knows it
        unchanged: the cost is the turn's, not the conversation's. Images
        referenced by path must lie in the conversation's folder (a live agent
        sends its images inline); any other is kept as a reference and noted.

        Examples
        --------
        >>> import tempfile
        >>> from snapshot.transcript.model import TextBlock
        >>> ws = Store(tempfile.mkdtemp())
        >>> ws.append("c", [Message("u1", None, "user", (TextBlock("hi"),)),
        ...                 Message("a1", "u1", "assistant", (TextBlock("hello"),))])
        >>> ws.append("c", [], tip="u1")  # a branch: only the tip moves
        >>> ws.load("c").tip, len(ws.load("c").messages)
        ('u1', 2)
        """
        validate_id(conv_id)
        validate_id(agent, "agent name")
        with self.lock(conv_id, agent):
            state = self._state(conv_id, agent)
            known: Mapping[str, bytes] = state.digests if state is not None else {}
            batch: dict[str, Message] = {}
            for m in messages:
                if m.id in known or m.id in batch:
                    raise TranscriptError(
                        f"conversation {conv_id!r} (agent {agent!r}) already holds message "
                        f"{m.id!r}; append takes new messages only (save changes a stored one)"
                    )
                if m.parent is not None and m.parent not in known and m.parent not in batch:
                    raise TranscriptError(
                        f"message {m.id!r} continues from {m.parent!r}, which conversation "
                        f"{conv_id!r} (agent {agent!r}) does not hold"
                    )
                batch[m.id] = m
            new_tip = tip if tip is not None else (messages[-1].id if messages else None)
            if new_tip is None:
                raise TranscriptError("append: give messages, or the tip to move to")
            if new_tip not in known and new_tip not in batch:
                raise TranscriptError(
                    f"conversation {conv_id!r} (agent {agent!r}) has no message {new_tip!r}"
                )
            waiting = _unanswered(batch, new_tip)
            if waiting:
                raise TranscriptError(
                    f"conversation {conv_id!r} (agent {agent!r}) would be mid-turn at "
                    f"{new_tip!r}: tool call {', '.join(waiting[:5])} has no result yet; "
                    "append the turn once its results arrive"
                )
            folder = self.conversation_dir(conv_id)
            turn = Conversation(
                id=conv_id,
                agent=agent,
                messages=tuple(messages),
                tip=None,
                image_folders=(str(folder),),
            )
            kept = self._keep_images(turn) if any(m.images() for m in messages) else turn
            if state is None:
                conv = replace(kept, tip=new_tip)
                self._write_whole(conv, ())
                return
            lines, ids, replaced = [], [], 0
            for m in kept.messages:
                line, n = message_line(m)
                lines.append(line)
                ids.append((m.id, digest(line)))
                replaced += n
            head = state.head or {}
            warnings = [*head.get("warnings", []), *kept.warnings]
            if replaced:
                warnings.append(f"{replaced} {_REPLACED_NOTE}")
            new_head = None
            if warnings != head.get("warnings", []):
                new_head = {**head, "warnings": warnings}
                lines.append(self._line("conversation", new_head))
            lines.append(self._line("tip", {"tip": new_tip}))
            self._append_lines(conv_id, agent, state, b"".join(lines))
            state.digests.update(ids)
            state.tip = new_tip
            if new_head is not None:
                state.head = new_head

    def record(self, conv_id: str, record: Mapping[str, Any], *, agent: str = "main") -> None:
        """Append a note to a stored conversation's log: ``record["type"]`` says what it is.

        For what happened to the conversation that is not a message: a
        compaction pass (``{"type": "compaction", "pass": 1, "rungs": [...],
        "pages": 3, "tokens": 5120}``), say. Any JSON object whose type is not
        one the store uses itself; it is written as given, fsynced, and read
        back with :meth:`records`. It does not change what :meth:`load` gives.

        >>> import tempfile
        >>> from snapshot.transcript.model import linear
        >>> ws = Store(tempfile.mkdtemp())
        >>> _ = ws.save(linear("c", [("m", "user", [])]))
        >>> ws.record("c", {"type": "compaction", "pass": 1, "pages": 3})
        >>> [(r["type"], r["pages"]) for r in ws.records("c")]
        [('compaction', 3)]
        """
        kind = record.get("type")
        if not isinstance(kind, str) or not kind or kind in STRUCTURE:
            raise TranscriptError(
                f"a note's type must be a string other than {', '.join(sorted(STRUCTURE))}, "
                f"not {kind!r}"
            )
        fields = {k: v for k, v in record.items() if k not in ("type", "snapshot_store")}
        with self.lock(conv_id, agent):
            state = self._state(conv_id, agent)
            if state is None:
                raise TranscriptError(
                    f"no stored conversation {conv_id!r} for agent {agent!r} to record a note in"
                )
            self._append_lines(conv_id, agent, state, self._line(kind, fields))
            state.notes += 1

    def save(self, conv: Conversation) -> Path:
        """Store ``conv``: append what differs from the log (new or changed messages, trims,
        the head, the tip); a new conversation gets a log of its own. Refuses one that is mid-turn.
        """
        path = self.path_for(conv.id, conv.agent)
        check_turn_boundary(conv)
        with self.lock(conv.id, conv.agent):
            self._save(conv, None)
        return path

    def extend(self, conv: Conversation) -> Path:
        """Store ``conv`` beside what the log holds: nothing stored is trimmed.

        For a live recorder whose messages are keyed by their content
        (:func:`~snapshot.transcript.tree.keyed_by_content`): a message not
        stored is appended, one stored under the same id with another record
        (the client linked its tool calls to the ids it chose, say) gets that
        record appended after the first, and every stored message the request
        no longer carries (the branch it left, a rewound turn, another
        session's) stays. The head and the tip move to ``conv``'s. One write,
        fsynced; refuses a ``conv`` that is mid-turn, like :meth:`save`.

        >>> import tempfile
        >>> from snapshot.transcript.model import linear, TextBlock
        >>> ws = Store(tempfile.mkdtemp())
        >>> _ = ws.extend(linear("c", [("u1", "user", [TextBlock("hi")])]))
        >>> _ = ws.extend(linear("c", [("u2", "user", [TextBlock("hello")])]))
        >>> sorted(m.id for m in ws.load("c").messages), ws.load("c").tip
        (['u1', 'u2'], 'u2')
        """
        path = self.path_for(conv.id, conv.agent)
        check_turn_boundary(conv)
        with self.lock(conv.id, conv.agent):
            self._save(conv, None, trim=False)
        return path

    def _save(
        self, conv: Conversation, checkpoints: Sequence[Checkpoint] | None, *, trim: bool = True
    ) -> None:
        key = (conv.id, conv.agent)
        # Images first: a crash in between leaves unused copies, never a
        # log naming a copy that is not there.
        kept = self._keep_images(conv)
        state = self._state(conv.id, conv.agent)
        if state is None:
            self._write_whole(kept, checkpoints or ())
            return
        live = self._live.get(key)
        lines: list[bytes] = []
        changed: dict[str, bytes] = {}
        replaced = 0
        present: set[str] = set()
        if isinstance(kept.messages, SpilledMessages):
            spilled = kept.messages
            for i, text in enumerate(spilled.texts()):
                mid = spilled.id_at(i)
                present.add(mid)
                line, n = record_line("message", {"message": json.loads(text)})
                found = digest(line)
                if state.digests.get(mid) != found:
                    lines.append(line)
                    changed[mid] = found
                    replaced += n
        else:
            for m in kept.messages:
                present.add(m.id)
                if live is not None and live.get(m.id) is m and m.id in state.digests:
                    continue
                line, n = message_line(m)
                found = digest(line)
                if state.digests.get(m.id) != found:
                    lines.append(line)
                    changed[m.id] = found
                    replaced += n
        dropped = [mid for mid in state.digests if mid not in present] if trim else []
        head = _head_record(kept)
        if replaced:
            head["warnings"] = [*head["warnings"], f"{replaced} {_REPLACED_NOTE}"]
        if head != state.head:
            lines.append(self._line("conversation", head))
        if dropped:
            lines.append(self._line("trim", {"drop": dropped}))
        labels = None if checkpoints is None else tuple(checkpoints)
        if labels is not None and labels != state.checkpoints:
            lines.append(self._line("checkpoints", {"checkpoints": _labels(labels)}))
        if lines or kept.tip != state.tip:
            lines.append(self._line("tip", {"tip": kept.tip}))
        if not lines:
            return
        self._append_lines(conv.id, conv.agent, state, b"".join(lines))
        for mid in dropped:
            del state.digests[mid]
        state.digests.update(changed)
        state.head, state.tip = head, kept.tip
        if labels is not None:
            state.checkpoints = labels
        if isinstance(kept.messages, tuple):
            fresh = self._live.setdefault(key, weakref.WeakValueDictionary())
            for m in kept.messages:
                fresh[m.id] = m

    def _keep_images(self, conv: Conversation) -> Conversation:
        """``conv`` as its file records it: every path-referenced image a copy in its folder.

        An image already in the conversation's folder is recorded by its
        relative name; any other goes through the guard (from the folders
        :func:`~snapshot.transcript.images.image_roots` trusts for ``conv``)
        and is copied in; one the guard refuses keeps its path and gets a
        warning (once), and is left out whenever the conversation is sent.
        """
        from snapshot.transcript.files import is_inside
        from snapshot.transcript.images import ImageRefused, image_roots, read_image

        folder = self.conversation_dir(conv.id)
        home = folder.resolve()
        roots = image_roots(conv)
        warnings = list(conv.warnings)

        def keep(img: ImageBlock) -> ImageBlock:
            if img.data is not None or img.path is None:
                return img
            try:
                real = Path(img.path).resolve()
            except (OSError, RuntimeError, ValueError):
                real = None
            if real is not None and is_inside(real, [home]) and real != home:
                return replace(img, path=real.relative_to(home).as_posix())
            try:
                data = read_image(img, roots)
            except ImageRefused as exc:
                said = f"{img.path}: image not stored"
                if not any(w.startswith(said) for w in warnings):
                    warnings.append(f"{said} ({exc.reason}); it is left out when sent")
                return img
            name = (
                f"{IMAGES_FOLDER}/{hashlib.sha256(data).hexdigest()}{_IMAGE_SUFFIX[img.media_type]}"
            )
            self._write_image(folder / name, data)
            return replace(img, path=name)

        kept = map_images(conv, keep)
        return replace(kept, warnings=tuple(warnings))

    def _write_image(self, target: Path, data: bytes) -> None:
        """Write one content-addressed copy unless an intact one is there already."""
        images = target.parent
        if images.is_symlink() or (images.exists() and not images.is_dir()):
            raise TranscriptError(
                f"{images}: is not a plain folder; remove it so the store can keep images there"
            )
        make_dirs_durably(images)
        try:
            st = os.lstat(target)
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISREG(st.st_mode) and st.st_size == len(data):
            try:
                if hashlib.sha256(target.read_bytes()).digest() == hashlib.sha256(data).digest():
                    return
            except OSError:
                pass  # unreadable: written again below
        self._write(target, data)

    @staticmethod
    def _write(path: Path, data: bytes | Iterable[bytes]) -> None:
        try:
            atomic_write(path, data)
        except OSError as exc:
            raise TranscriptError(
                f"{path}: cannot be written ({exc.strerror or exc}); the previous version is "
                "intact; free some space or fix the folder's permissions and save again"
            ) from exc

    def update(
        self,
        conv_id: str,
        agent: str,
        change: Callable[[Conversation], Conversation],
    ) -> Conversation:
        """Load, apply ``change`` and save, holding the lock throughout; returns the saved conversation."""
        with self.lock(conv_id, agent):
            new = change(self.load(conv_id, agent))
            if new.id != conv_id or new.agent != agent:
                raise TranscriptError("update() must not change the conversation id or agent")
            self.save(new)
            return new

    def _remove_stale_temps(self, path: Path) -> None:
        # A writer killed between mkstemp and rename leaves its temp file; we
        # hold the lock, so no live writer of this file owns one now.
        for stale in path.parent.glob(f".{path.name}.*.tmp"):
            with contextlib.suppress(OSError):
                stale.unlink()

    def save_checkpoints(
        self, conv_id: str, agent: str, checkpoints: tuple[Checkpoint, ...] | list[Checkpoint]
    ) -> Path:
        """Record the checkpoint labels of a stored conversation (the whole list)."""
        path = self.path_for(conv_id, agent)
        with self.lock(conv_id, agent):
            state = self._state(conv_id, agent)
            if state is None:
                raise TranscriptError(
                    f"no stored conversation {conv_id!r} for agent {agent!r} to label; save it first"
                )
            labels = tuple(checkpoints)
            if labels != state.checkpoints:
                line = self._line("checkpoints", {"checkpoints": _labels(labels)})
                self._append_lines(conv_id, agent, state, line)
                state.checkpoints = labels
        return path

    def save_all(
        self, conv: Conversation, checkpoints: tuple[Checkpoint, ...] | list[Checkpoint]
    ) -> None:
        """Save a transcript and its checkpoints in one write, under one lock."""
        check_turn_boundary(conv)
        with self.lock(conv.id, conv.agent):
            self._save(conv, tuple(checkpoints))

    def compact(self, conv_id: str, agent: str = "main") -> tuple[int, int]:
        """Rewrite a log with one record per message, the tip, the labels and the notes.

        Offline housekeeping: replaced versions of a message, trimmed messages,
        tip moves and repeated heads go; what :meth:`load`,
        :meth:`load_checkpoints` and :meth:`records` give stays the same. The
        new log replaces the old atomically, under the lock. A conversation
        stored before the log is migrated. Returns the log's size before and after.

        >>> import tempfile
        >>> from snapshot.transcript.model import linear
        >>> ws = Store(tempfile.mkdtemp())
        >>> _ = ws.save(linear("c", [("m", "user", []), ("n", "user", [])]))
        >>> ws.append("c", [], tip="m"); ws.append("c", [], tip="n")
        >>> before, after = ws.compact("c")
        >>> after < before, ws.load("c").tip
        (True, 'n')
        """
        path = self.path_for(conv_id, agent)
        with self.lock(conv_id, agent):
            if self._state(conv_id, agent) is None:
                raise TranscriptError(f"no stored conversation {conv_id!r} for agent {agent!r}")
            before = path.stat().st_size
            conv = self.load(conv_id, agent)
            checkpoints = self.load_checkpoints(conv_id, agent)
            notes = self.records(conv_id, agent)
            self._write_whole(self._keep_images(conv), checkpoints, notes)
            return before, path.stat().st_size

    def compact_agents(self, conv_id: str, agent: str | None = None) -> list[tuple[str, int, int]]:
        """:meth:`compact` each agent of a conversation (or only ``agent``): (agent, before, after).

        >>> import tempfile
        >>> from snapshot.transcript.model import linear
        >>> ws = Store(tempfile.mkdtemp())
        >>> _ = ws.save(linear("c", [("m", "user", [])]))
        >>> [a for a, _, _ in ws.compact_agents("c")]
        ['main']
        """
        agents = self.agents(conv_id) if agent is None else [agent]
        if not agents:
            raise TranscriptError(
                f"no conversation {conv_id!r} is stored in {self.root}; give a stored id"
            )
        return [(a, *self.compact(conv_id, a)) for a in agents]


def _labels(checkpoints: Iterable[Checkpoint]) -> list[dict[str, str]]:
    return [{"label": c.label, "message": c.message} for c in checkpoints]
