"""Stores written before the log: one JSON document per conversation and agent (versions 0 and 1).

Until the append-only log (:mod:`snapshot.transcript.store_log`, version 2)
the store rewrote ``<agent>.json`` whole at every save, and kept checkpoint
labels beside it in ``<agent>.checkpoints.json``. Such a store is still read
as it is; the first write to a conversation migrates it into a log
(:meth:`snapshot.transcript.store.Store.save`) and removes the old files.

A document of :data:`~snapshot.transcript.spill.SPILL_BYTES` or more is read
with :class:`~snapshot.transcript.formats._json_stream.JSONDocument`, the
package's one streaming JSON reader, a message at a time into a spill; a
smaller one is parsed whole.

>>> import json, tempfile
>>> from pathlib import Path
>>> path = Path(tempfile.mkdtemp()) / "main.json"
>>> doc = {"schema_version": 1, "conversation": {"id": "c", "agent": "main", "tip": "m",
...        "messages": [{"id": "m", "parent": None, "role": "user", "blocks": []}]}}
>>> _ = path.write_text(json.dumps(doc))
>>> read_document(path, "main").tip
'm'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.encodable import encodable_value
from snapshot.transcript.files import read_regular_file
from snapshot.transcript.formats._json_stream import JSONDocument
from snapshot.transcript.model import Conversation, conversation_from_dict, message_from_dict
from snapshot.transcript.spill import SpilledMessages
from snapshot.transcript.tree import Checkpoint

__all__ = [
    "DOCUMENT_HEAD",
    "DOCUMENT_VERSION",
    "MAX_DOCUMENT_BYTES",
    "read_checkpoints",
    "read_document",
]

#: The last version of the one-document format.
DOCUMENT_VERSION = 1
#: How every document the store wrote begins.
DOCUMENT_HEAD = b'{"schema_version":'
# A document beyond this is not one the store wrote (a file read whole is held
# in memory); refusing it beats exhausting memory.
MAX_DOCUMENT_BYTES = 1 << 30


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


def _version(doc: Mapping[str, Any], path: Path) -> int:
    version = doc.get("schema_version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise TranscriptError(f"{path}: schema_version {version!r} is not a version number")
    if version > DOCUMENT_VERSION:
        raise TranscriptError(
            f"{path}: schema_version {version} is newer than this snapshot understands "
            f"(up to {DOCUMENT_VERSION}); upgrade snapshot to read it"
        )
    return version


def _migrate(doc: dict[str, Any], agent: str, path: Path) -> dict[str, Any]:
    version = _version(doc, path)
    while version < DOCUMENT_VERSION:
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


def _read_json(path: Path) -> dict[str, Any]:
    try:
        raw = read_regular_file(path, MAX_DOCUMENT_BYTES)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # bad JSON or UTF-8, 4300+ digit ints, nesting
        raise TranscriptError(
            f"{path}: corrupted store file (not valid JSON: {exc}); restore it from a backup "
            "or delete it and import the conversation again"
        ) from exc
    if not isinstance(doc, dict):
        raise TranscriptError(
            f"{path}: corrupted store file (expected a JSON object, got {type(doc).__name__})"
        )
    return doc


def _replaced_note(record: dict[str, Any], replaced: int) -> None:
    if replaced and isinstance(record.get("warnings"), list):
        record["warnings"].append(
            f"{replaced} unencodable character(s) (lone surrogates) replaced with U+FFFD "
            "when loaded"
        )


def _conversation(record: object, path: Path, **kwargs: Any) -> Conversation:
    if not isinstance(record, Mapping):
        raise TranscriptError(f"{path}: corrupted store file (no conversation record)")
    try:
        # Its images may come from its own folder only, never from the folder
        # its ``source`` names (the file could say anything).
        return conversation_from_dict(record, folder=path.parent, **kwargs)
    except TranscriptError as exc:
        raise TranscriptError(f"{path}: corrupted store file ({exc})") from exc
    except (TypeError, ValueError, AttributeError) as exc:
        raise TranscriptError(f"{path}: corrupted store file ({exc!r})") from exc


def _streamed(path: Path) -> Conversation:
    """A current-version document read a message at a time into a spill."""
    doc = JSONDocument(path, ("conversation", "messages"))
    record = doc.fields.get("conversation")
    if not doc.found or not isinstance(record, dict):
        doc.close()
        raise TranscriptError(
            f"{path}: corrupted store file (no conversation record with messages)"
        )
    _version(doc.fields, path)
    sink = SpilledMessages()
    replaced = 0
    for item in doc.items():
        if not isinstance(item, Mapping):
            raise TranscriptError(
                f"{path}: corrupted store file (a message record is not an object)"
            )
        clean, n = encodable_value(item)
        replaced += n
        try:
            sink.append(message_from_dict(clean))
        except (TranscriptError, TypeError, ValueError, AttributeError) as exc:
            raise TranscriptError(f"{path}: corrupted store file ({exc})") from exc
    # json.loads keeps the last of a repeated key; a stream has read the first.
    if doc.fields.get("conversation") is not record or "messages" in (record or {}):
        raise TranscriptError(f"{path}: corrupted store file (a repeated key)")
    head, n = encodable_value(record)
    _replaced_note(head, replaced + n)
    return _conversation(head, path, messages=sink)


def read_document(path: Path, agent: str) -> Conversation:
    """The conversation of a version-0 or -1 store file (migrated in memory, not on disk).

    Raises
    ------
    FileNotFoundError
        No such file.
    TranscriptError
        A file that is not a store document, is corrupted, or is of a newer version.
    """
    size = path.stat().st_size
    if size >= spill.SPILL_BYTES:
        with path.open("rb") as fh:
            current = fh.read(len(DOCUMENT_HEAD) + 1) == DOCUMENT_HEAD + b"1"
        if current:
            return _streamed(path)
    doc = _migrate(_read_json(path), agent, path)
    record = doc.get("conversation")
    if not isinstance(record, Mapping):
        raise TranscriptError(f"{path}: corrupted store file (no conversation record)")
    # A file written by hand (or by an older snapshot) may spell lone surrogates.
    record, replaced = encodable_value(record)
    _replaced_note(record, replaced)
    return _conversation(record, path)


def read_checkpoints(path: Path) -> tuple[Checkpoint, ...]:
    """The labels of a version-1 ``<agent>.checkpoints.json``; none when it is missing."""
    try:
        doc = _read_json(path)
    except FileNotFoundError:
        return ()
    version = doc.get("schema_version")
    if type(version) is not int or version < 1:  # true is an int to isinstance
        raise TranscriptError(f"{path}: corrupted checkpoints file (no schema_version)")
    if version > DOCUMENT_VERSION:
        raise TranscriptError(
            f"{path}: schema_version {version} is newer than this snapshot understands "
            f"(up to {DOCUMENT_VERSION}); upgrade snapshot to read it"
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
