"""A crash-safe workspace of stored conversations, one JSON file per conversation and agent.

Layout of a workspace (default ``.snapshot/`` in the working directory)::

    <ws>/<conversation id>/<agent>.json              the transcript (every message, the tip)
    <ws>/<conversation id>/<agent>.checkpoints.json  its checkpoint labels
    <ws>/<conversation id>/<agent>.lock              the writers' lock (empty)
    <ws>/<conversation id>/images/<sha256>.<ext>     copies of its path-referenced images

Guarantees, and why each exists:

- Saved only at turn boundaries. A transcript whose tip still waits for a tool
  result cannot be sent to a provider (every call must be answered), so a file
  holding one would be a resume point nobody can resume from. :meth:`Store.save`
  refuses it.
- Atomic. Each write goes to a temporary file in the same directory, is flushed
  and fsynced, renamed over the old file (rename is atomic within one file
  system) and the directory is fsynced so the rename itself is durable. A crash
  at any instant leaves either the old complete file or the new complete one.
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
  (:func:`snapshot.transcript.images.read_image`), and the file records it by
  that relative name. A loaded conversation's images may come from its own
  folder only, whatever ``source`` the file names: a hand-edited store file
  cannot make a folder outside the store trusted. An image the guard refuses
  stays a reference, is noted in the warnings, and is left out when sent.
- Checked first. :meth:`Store.check_writable` refuses a read-only or
  unwritable workspace before a command does any work.
- Safe names. Conversation ids and agent names become path components, so they
  are validated (no separators, no ``..``, no absolute paths, a plain charset,
  bounded length) before any path is built.
- Versioned. Every file carries ``schema_version``; a newer version than this
  code knows is refused (the data would be misread), an older one is migrated
  on load.

>>> import tempfile
>>> from snapshot.transcript.model import linear, TextBlock
>>> ws = Store(tempfile.mkdtemp())
>>> conv = linear("c1", [("m1", "user", [TextBlock("hi")])])
>>> _ = ws.save(conv)
>>> ws.load("c1").tip
'm1'
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import hashlib
import json
import os
import re
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO

import filelock

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.encodable import encodable_value
from snapshot.transcript.files import read_regular_file
from snapshot.transcript.model import (
    Conversation,
    ImageBlock,
    conversation_from_dict,
    conversation_head_to_dict,
    map_images,
    message_from_dict,
    message_to_dict,
)
from snapshot.transcript.spill import SpilledMessages
from snapshot.transcript.tree import Checkpoint, check_turn_boundary

SCHEMA_VERSION = 1
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


# --- file format and migrations ---------------------------------------------------


def _migrate_0_to_1(doc: dict[str, Any], agent: str) -> dict[str, Any]:
    """Version 0 (the pre-release layout) → version 1.

    Version 0 was a flat conversation record: no ``schema_version``, no
    ``agent`` (the file name said which agent), no ``tip`` (the last message
    recorded was the current one) and messages linked by ``parent_id``.
    Version 1 wraps the record under ``conversation`` and names agent and tip.
    """
    messages = []
    raw = doc.get("messages") or []
    if not isinstance(raw, list):
        raise TranscriptError("its messages are not a list")
    for m in raw:
        if not isinstance(m, Mapping):
            raise TranscriptError("a version-0 message record is not an object")
        m = dict(m)
        if "parent" not in m:
            m["parent"] = m.pop("parent_id", None)
        messages.append(m)
    conv = {k: v for k, v in doc.items() if k not in ("schema_version", "messages")}
    conv["messages"] = messages
    conv.setdefault("agent", agent)
    if "tip" not in conv:
        conv["tip"] = messages[-1].get("id") if messages else None
    return {"schema_version": 1, "conversation": conv}


# from-version → function producing the next version's document
MIGRATIONS: dict[int, Callable[[dict[str, Any], str], dict[str, Any]]] = {0: _migrate_0_to_1}


def _migrate(doc: dict[str, Any], agent: str, path: Path) -> dict[str, Any]:
    version = doc.get("schema_version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise TranscriptError(f"{path}: schema_version {version!r} is not a version number")
    if version > SCHEMA_VERSION:
        raise TranscriptError(
            f"{path}: schema_version {version} is newer than this snapshot understands "
            f"(up to {SCHEMA_VERSION}); upgrade snapshot to read it"
        )
    while version < SCHEMA_VERSION:
        try:
            doc = MIGRATIONS[version](doc, agent)
        except (TranscriptError, TypeError, AttributeError) as exc:
            raise TranscriptError(
                f"{path}: corrupted store file (cannot migrate it from schema_version "
                f"{version}: {exc})"
            ) from exc
        new_version = doc["schema_version"]
        assert new_version == version + 1, "a migration must advance one version"
        version = new_version
    return doc


# A store file beyond this is not one the store wrote (a file read whole is
# held in memory); refusing it beats exhausting memory.
MAX_STORE_FILE_BYTES = 1 << 30


def _read_bytes(path: Path) -> bytes:
    try:
        return read_regular_file(path, MAX_STORE_FILE_BYTES)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc


def _read_json(path: Path) -> dict[str, Any]:
    return _parse_json(_read_bytes(path), path)


def _parse_json(raw: bytes, path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(raw)
    except (
        ValueError,
        RecursionError,
    ) as exc:  # bad JSON, bad UTF-8, 4300+ digit ints, deep nesting
        raise TranscriptError(
            f"{path}: corrupted store file (not valid JSON: {exc}); restore it from a backup "
            "or delete it and import the conversation again"
        ) from exc
    if not isinstance(doc, dict):
        raise TranscriptError(
            f"{path}: corrupted store file (expected a JSON object, got {type(doc).__name__})"
        )
    return doc


class _NotAsWritten(Exception):
    """A store file not laid out as the store writes it: read the usual way, whole."""


#: How every file the store writes begins.
_STORE_HEAD = b'{"schema_version":'


_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class _Text:
    """A store file's JSON text, read and decoded a window at a time.

    Neither the file's bytes nor one ``str`` of it all (up to 4 bytes a
    character: one emoji is enough) is held; a window holds the value being read.
    """

    WINDOW = 1 << 22

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self._read = 0
        self._end = False
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self.buf = ""
        self.pos = 0

    def more(self) -> bool:
        """Decode the next window (at least as much again as is held); False at the end."""
        if self._end:
            return False
        chunk = self._file.read(max(self.WINDOW, len(self.buf) - self.pos))
        self._read += len(chunk)
        if self._read > MAX_STORE_FILE_BYTES:
            raise _NotAsWritten("grew past the size limit while read")
        self._end = not chunk
        decoded = self._decoder.decode(chunk, final=self._end)
        self.buf, self.pos = self.buf[self.pos :] + decoded, 0
        return True

    def next_char(self) -> str:
        """The next character past whitespace ("" at the end), not consumed."""
        while True:
            self.pos = _WHITESPACE.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf) or not self.more():
                return self.buf[self.pos : self.pos + 1]

    def take(self, char: str) -> None:
        if self.next_char() != char:
            raise _NotAsWritten(f"expected {char!r}")
        self.pos += 1

    def value(self) -> Any:
        """The next JSON value; a value cut by the window's end is read again with more."""
        self.next_char()
        while True:
            try:
                found, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError:
                if self.more():
                    continue
                raise
            if end == len(self.buf) and self.more():
                continue  # a number ("12" of "123") may go on in the next window
            self.pos = end
            return found


def _object(text: _Text, value: Callable[[str], Any]) -> dict[str, Any]:
    """The JSON object next in ``text``, each member's value read by ``value(key)``."""
    out: dict[str, Any] = {}
    text.take("{")
    if text.next_char() == "}":
        text.pos += 1
        return out
    while True:
        key = text.value()
        if not isinstance(key, str) or key in out:  # json.loads would keep the last one
            raise _NotAsWritten(f"key {key!r}")
        text.take(":")
        out[key] = value(key)
        if text.next_char() == "}":
            text.pos += 1
            return out
        text.take(",")


def _each(text: _Text, item: Callable[[Any], None]) -> None:
    """Hand each item of the JSON array next in ``text`` to ``item``, as it is read."""
    text.take("[")
    if text.next_char() == "]":
        text.pos += 1
        return
    while True:
        item(text.value())
        if text.next_char() == "]":
            text.pos += 1
            return
        text.take(",")


def _large_store_file(path: Path) -> BinaryIO | None:
    """``path`` open for reading if the store wrote it and it is large enough to spill, else None.

    Large enough: at least :data:`~snapshot.transcript.spill.SPILL_BYTES`, and
    no more than the store's limit; a regular file, opened without blocking.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError:
        return None  # reading it whole says what is wrong
    fh = os.fdopen(fd, "rb")
    try:
        st = os.fstat(fd)
        if (
            stat.S_ISREG(st.st_mode)
            and spill.SPILL_BYTES <= st.st_size <= MAX_STORE_FILE_BYTES
            and fh.read(len(_STORE_HEAD)) == _STORE_HEAD
        ):
            fh.seek(0)
            return fh
    except OSError:
        pass
    fh.close()
    return None


def _spilled_record(file: BinaryIO) -> tuple[dict[str, Any], SpilledMessages]:
    """A current store file's conversation record, its messages read one by one into a spill.

    What :func:`_parse_json`, :func:`_migrate` and :func:`encodable_value` make
    of the file, but never every message parsed at once (nor the whole text
    decoded): each record is cleaned, parsed and stored as it is read. The
    record's ``warnings`` get the note of what was replaced. Anything not as
    the store writes it (another version, a repeated key, a record that does
    not parse) raises :class:`_NotAsWritten` or the parser's error: then the
    file is read whole, which reports it as before.
    """
    text = _Text(file)
    sink = SpilledMessages()
    replaced = 0

    def message(found: Any) -> None:
        nonlocal replaced
        if not isinstance(found, Mapping):
            raise _NotAsWritten("a message record is not an object")
        clean, n = encodable_value(found)
        replaced += n
        sink.append(message_from_dict(clean))

    def conversation_member(key: str) -> Any:
        if key == "messages":
            _each(text, message)
            return None
        return text.value()

    def document_member(key: str) -> Any:
        return _object(text, conversation_member) if key == "conversation" else text.value()

    doc = _object(text, document_member)
    version = doc.get("schema_version")
    record = doc.get("conversation")
    if text.next_char() or type(version) is not int or version != SCHEMA_VERSION:
        raise _NotAsWritten("not a current store document")
    if not isinstance(record, dict) or "messages" not in record:
        raise _NotAsWritten("no conversation record with messages")
    head, n = encodable_value({k: v for k, v in record.items() if k != "messages"})
    replaced += n
    if replaced and isinstance(head.get("warnings"), list):
        head["warnings"].append(
            f"{replaced} unencodable character(s) (lone surrogates) replaced with U+FFFD "
            "when loaded"
        )
    return head, sink


def is_store_file(path: Path) -> bool:
    """Whether ``path`` is a conversation file this store wrote (not a checkpoints file)."""
    if path.suffix != ".json" or path.name.endswith(".checkpoints.json"):
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
    # The store writes compact JSON starting with its version key.
    return head.startswith(_STORE_HEAD)


def _dumps(doc: Mapping[str, Any]) -> bytes:
    # One line per message would be friendlier to diff, but images are large
    # base64 strings anyway; compact UTF-8 keeps files small and writes fast.
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _unencodable(text: str) -> int:
    """How many code points of a message's stored JSON text :func:`encodable_value` replaces."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return encodable_value(json.loads(text))[1]
    return 0


def _compact(text: str) -> bytes:
    """A message's stored JSON text (``json.dumps`` defaults) as the store writes it, cleaned."""
    record = json.loads(text)
    if _unencodable(text):
        record, _ = encodable_value(record)
    return _dumps(record)


def _document(conv: Conversation) -> Iterator[bytes]:
    """The store file of ``conv``: the bytes :func:`_dumps` gives for the whole record, in pieces.

    Messages kept on disk (:mod:`snapshot.transcript.spill`) are written one at
    a time from their stored text, in two passes (the first counts what must be
    replaced, for the warning that comes before the messages), never all parsed
    at once; messages held in memory are serialized as before.
    """
    head, replaced = encodable_value(conversation_head_to_dict(conv))
    messages: Iterable[bytes]
    if isinstance(conv.messages, SpilledMessages):
        stored = conv.messages
        replaced += sum(_unencodable(text) for text in stored.texts())
        messages = (_compact(text) for text in stored.texts())
    else:
        cleaned = [encodable_value(message_to_dict(m)) for m in conv.messages]
        replaced += sum(n for _, n in cleaned)
        messages = (_dumps(record) for record, _ in cleaned)
    if replaced:
        head["warnings"] = [
            *head["warnings"],
            f"{replaced} unencodable character(s) (lone surrogates) replaced with U+FFFD "
            "when stored",
        ]
    # The document up to the "[" of its messages, the last key of the last object.
    opened = _dumps({"schema_version": SCHEMA_VERSION, "conversation": {**head, "messages": []}})
    yield opened[: -len(b"]}}")]
    for i, data in enumerate(messages):
        yield b"," + data if i else data
    yield b"]}}"


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms that cannot open directories
        return
    try:
        os.fsync(fd)
    except OSError as exc:  # pragma: no cover - some file systems refuse; the rename is done
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _file_mode() -> int:
    # mkstemp creates 0600 files; stored transcripts get the usual 0666 & ~umask.
    # Reading the umask means setting it, so do it once, at import.
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


_FILE_MODE = _file_mode()


def make_dirs_durably(directory: Path) -> None:
    """``mkdir -p`` that fsyncs each new directory's parent, so the new entries survive a power cut."""
    missing: list[Path] = []
    d = directory
    while not d.exists():
        missing.append(d)
        if d.parent == d:
            break
        d = d.parent
    for new in reversed(missing):
        try:
            new.mkdir()
        except FileExistsError:
            continue
        except OSError as exc:
            raise TranscriptError(
                f"cannot create the workspace folder {new}: {exc.strerror or exc}; "
                "pick a workspace you can write to"
            ) from exc
        _fsync_dir(new.parent)
    if not directory.is_dir():
        raise TranscriptError(f"{directory} exists but is not a directory; pick another workspace")


def atomic_write(path: Path, data: bytes | Iterable[bytes]) -> None:
    """Replace ``path`` with ``data`` so that a crash leaves the old or the new file, never a mix.

    ``data`` is the bytes, or pieces of them written one after another.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), _FILE_MODE)
            for piece in [data] if isinstance(data, bytes) else data:
                fh.write(piece)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


# --- the store ------------------------------------------------------------------


class Store:
    """A workspace directory of stored conversations.

    ``root`` is created on first save. Methods take ``conv_id`` and ``agent``
    (default ``"main"``), both validated with :func:`validate_id`.
    """

    def __init__(self, root: str | os.PathLike[str] = DEFAULT_WORKSPACE) -> None:
        self.root = Path(root)
        # Locks this thread already holds, so save() inside update() does not
        # deadlock on its own flock (two fds of one process do conflict).
        self._held = threading.local()

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    # paths
    def conversation_dir(self, conv_id: str) -> Path:
        return self.root / validate_id(conv_id, "conversation id")

    def path_for(self, conv_id: str, agent: str = "main") -> Path:
        return self.conversation_dir(conv_id) / f"{validate_id(agent, 'agent name')}.json"

    def checkpoints_path(self, conv_id: str, agent: str = "main") -> Path:
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
        return self.path_for(conv_id, agent).is_file()

    def agents(self, conv_id: str) -> list[str]:
        """Agents stored for one conversation, sorted."""
        directory = self.conversation_dir(conv_id)
        if not directory.is_dir():
            return []
        out = []
        for p in directory.glob("*.json"):
            name = p.name[: -len(".json")]
            if name.endswith(_CHECKPOINTS_SUFFIX) or name.startswith("."):
                continue
            out.append(name)
        return sorted(out)

    def conversations(self) -> list[str]:
        """Conversation ids stored in the workspace, sorted."""
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and self.agents(p.name))

    # transcripts
    def save(self, conv: Conversation) -> Path:
        """Write ``conv`` atomically; refuses a conversation that is mid-turn."""
        path = self.path_for(conv.id, conv.agent)
        check_turn_boundary(conv)
        with self.lock(conv.id, conv.agent):
            # Images first: a crash in between leaves unused copies, never a
            # file naming a copy that is not there.
            kept = self._keep_images(conv)
            self._remove_stale_temps(path)
            # Message by message: a conversation kept on disk stays there.
            self._write(path, _document(kept))
        return path

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

    def load(self, conv_id: str, agent: str = "main") -> Conversation:
        """The stored conversation; a missing, corrupted or too-new file raises :class:`TranscriptError`.

        A file of at least :data:`~snapshot.transcript.spill.SPILL_BYTES` that
        the store wrote is read a message at a time into a
        :class:`~snapshot.transcript.spill.SpilledMessages` (neither the file
        nor every message is held at once); a smaller one, or one laid out
        otherwise, is parsed whole and held as a tuple, as an import of its size
        would be.
        """
        path = self.path_for(conv_id, agent)
        conv = None
        large = _large_store_file(path)
        if large is not None:
            # A large file the store wrote: its messages go to disk as they are read.
            try:
                with large:
                    head, messages = _spilled_record(large)
                conv = conversation_from_dict(head, folder=path.parent, messages=messages)
            except (
                _NotAsWritten,
                TranscriptError,
                ValueError,
                TypeError,
                AttributeError,
                KeyError,
                RecursionError,
                OSError,
            ):
                pass  # not as the store writes it: read whole, below, which says what is wrong
        if conv is None:
            try:
                raw = _read_bytes(path)
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
            doc = _migrate(_parse_json(raw, path), agent, path)
            del raw  # the parsed document from here on, not the file's bytes too
            conv = self._from_document(doc, path)
        if conv.id != conv_id or conv.agent != agent:
            raise TranscriptError(
                f"{path}: holds conversation {conv.id!r} agent {conv.agent!r}, not "
                f"{conv_id!r} agent {agent!r}; the file was moved or copied by hand"
            )
        return conv

    @staticmethod
    def _from_document(doc: dict[str, Any], path: Path) -> Conversation:
        """The conversation of a store file parsed whole (and migrated)."""
        record = doc.get("conversation")
        if not isinstance(record, Mapping):
            raise TranscriptError(f"{path}: corrupted store file (no conversation record)")
        # A file written by hand (or by an older snapshot) may spell lone surrogates.
        record, replaced = encodable_value(record)
        if replaced and isinstance(record.get("warnings"), list):
            record["warnings"].append(
                f"{replaced} unencodable character(s) (lone surrogates) replaced with U+FFFD "
                "when loaded"
            )
        try:
            # Its images may come from its own folder only, never from the
            # folder its ``source`` names (the file could say anything).
            return conversation_from_dict(record, folder=path.parent)
        except TranscriptError as exc:
            raise TranscriptError(f"{path}: corrupted store file ({exc})") from exc
        except (TypeError, ValueError, AttributeError) as exc:
            raise TranscriptError(f"{path}: corrupted store file ({exc!r})") from exc

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

    # checkpoints
    def load_checkpoints(self, conv_id: str, agent: str = "main") -> tuple[Checkpoint, ...]:
        path = self.checkpoints_path(conv_id, agent)
        try:
            doc = _read_json(path)
        except FileNotFoundError:
            return ()
        version = doc.get("schema_version")
        if type(version) is not int or version < 1:  # true is an int to isinstance
            raise TranscriptError(f"{path}: corrupted checkpoints file (no schema_version)")
        if version > SCHEMA_VERSION:
            raise TranscriptError(
                f"{path}: schema_version {version} is newer than this snapshot understands "
                f"(up to {SCHEMA_VERSION}); upgrade snapshot to read it"
            )
        items = doc.get("checkpoints")
        if not isinstance(items, list):
            raise TranscriptError(f"{path}: corrupted checkpoints file (no checkpoint list)")
        out = []
        for item in items:
            if (
                not isinstance(item, Mapping)
                or not isinstance(item.get("label"), str)
                or not isinstance(item.get("message"), str)
            ):
                raise TranscriptError(
                    f"{path}: corrupted checkpoints file (bad entry {item!r}); fix or delete it"
                )
            out.append(Checkpoint(label=item["label"], message=item["message"]))
        return tuple(out)

    def save_checkpoints(
        self, conv_id: str, agent: str, checkpoints: tuple[Checkpoint, ...] | list[Checkpoint]
    ) -> Path:
        path = self.checkpoints_path(conv_id, agent)
        doc = {
            "schema_version": SCHEMA_VERSION,
            "conversation": conv_id,
            "agent": agent,
            "checkpoints": [{"label": c.label, "message": c.message} for c in checkpoints],
        }
        doc, _ = encodable_value(doc)
        with self.lock(conv_id, agent):
            self._remove_stale_temps(path)
            self._write(path, _dumps(doc))
        return path

    def save_all(
        self, conv: Conversation, checkpoints: tuple[Checkpoint, ...] | list[Checkpoint]
    ) -> None:
        """Save a transcript and its checkpoints under one lock (transcript first).

        Order matters for a crash between the two writes: checkpoints that name
        messages missing from the transcript are dropped on reconcile, so the
        transcript goes first and stale labels are never trusted.
        """
        with self.lock(conv.id, conv.agent):
            self.save(conv)
            self.save_checkpoints(conv.id, conv.agent, checkpoints)
