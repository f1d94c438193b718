"""Import what a user names (a log, a folder log, or a folder of logs), with per-file failures.

The ``snapshot import`` command's library. :func:`import_conversations` reads
``path`` into :class:`~snapshot.transcript.model.Conversation` objects: a file
or a folder a format reads as one log through
:func:`~snapshot.transcript.formats.import_path` (any problem is fatal), a
folder of logs file by file (a file that fails is recorded in
:attr:`ImportReport.failures`, not fatal). :func:`summary_row` is the record
each conversation gets in the summary; :func:`write_conversations` saves them
as one JSON document (``--out``), atomically.

>>> from importlib import resources
>>> demo = resources.files("snapshot.demo") / "transcripts"
>>> report = import_conversations(Path(str(demo)))
>>> sorted(c.id for c in report.conversations), report.failures
(['demo-browse', 'demo-coding', 'demo-support'], [])
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from snapshot.errors import SnapshotError, TranscriptError
from snapshot.progress import progress
from snapshot.transcript.discover import NOT_A_TRANSCRIPT, find, walk_as_format
from snapshot.transcript.formats import (
    Format,
    ImportOptions,
    formats,
    get_format,
    import_path,
    parse_select,
    refuse_forced_folder,
)
from snapshot.transcript.model import Conversation, conversation_head_to_dict, stats
from snapshot.transcript.spill import message_texts

__all__ = [
    "OUT_FORMAT",
    "OUT_VERSION",
    "ImportReport",
    "import_conversations",
    "summary_row",
    "write_conversations",
]

#: Name and version of the document :func:`write_conversations` writes; bump on a layout change.
OUT_FORMAT = "snapshot-conversations"
OUT_VERSION = 1


@dataclass(frozen=True)
class ImportReport:
    """The conversations an import found, one line per file of a folder that failed,
    and each file of a folder left out (``(path, reason)``: no format reads it, ...)."""

    conversations: list[Conversation]
    failures: list[str] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)

    @property
    def rows(self) -> list[dict[str, Any]]:
        """:func:`summary_row` of each conversation."""
        return [summary_row(c) for c in self.conversations]


def _claimed_folder(path: Path, format_name: str | None) -> bool:
    """Is this folder itself one log (a format that keeps files together)?"""
    candidates = [get_format(format_name)] if format_name else formats()
    return any(f.recognises(path, b"") for f in candidates)


def _import_folder(
    root: Path,
    format_name: str | None,
    select: dict[str, str],
    failures: list[str],
    skipped: list[tuple[Path, str]],
) -> list[Conversation]:
    """Every conversation under ``root``; a file that fails is reported, not fatal, and a
    file no format reads is named in ``skipped`` with the reason."""
    units: list[tuple[Path, Format]] = []
    if format_name is None:
        # Detection as everywhere else: scored, sure or reported (snapshot.transcript.discover).
        for found in find([root]):
            if found.format is not None:
                units.append((found.path, get_format(found.format)))
            elif found.reason is not None and found.reason.startswith(NOT_A_TRANSCRIPT):
                skipped.append((found.path, found.reason))
            else:
                failures.append(f"{found.path}: {found.reason}")
    else:
        fmt = get_format(format_name)
        paths, unreadable = walk_as_format(root, fmt, skipped)
        failures.extend(unreadable)
        units = [(p, fmt) for p in paths]
    options = ImportOptions(select=select)
    out: list[Conversation] = []
    for unit, unit_format in progress(units, desc="import", unit="file"):
        try:
            out.extend(unit_format.load(unit, options))
        except SnapshotError as exc:
            failures.append(str(exc))
    return out


def import_conversations(
    path: str | Path,
    *,
    format: str | None = None,
    select: Sequence[str] = (),
    out: str | Path | None = None,
) -> ImportReport:
    """Every conversation in ``path``: a log file, a folder log, or a folder of logs.

    Parameters
    ----------
    path : str or Path
        What to import.
    format : str, optional
        A format name to use instead of detection.
    select : sequence of str
        ``KEY=VALUE`` pairs: keep only conversations whose KEY equals VALUE.
    out : str or Path, optional
        Also save the conversations there (:func:`write_conversations`).

    Returns
    -------
    ImportReport
        The conversations, the files of a folder that failed (one line each), and
        the files of a folder that were left out, each with the reason.

    Raises
    ------
    TranscriptError
        An unknown format, a missing path, a folder with nothing importable, a
        file holding no conversations, a file that fails to import, or ``out``
        that cannot be written.

    Examples
    --------
    >>> import_conversations("/no/such/log.jsonl")
    Traceback (most recent call last):
    ...
    snapshot.errors.TranscriptError: /no/such/log.jsonl: no such file or folder
    """
    path = Path(path)
    wanted = parse_select(select)
    if format is not None:
        get_format(format)  # an unknown name fails before any reading
    if not path.exists():
        raise TranscriptError(f"{path}: no such file or folder")
    failures: list[str] = []
    skipped: list[tuple[Path, str]] = []
    if path.is_dir() and format is not None and not _claimed_folder(path, format):
        refuse_forced_folder(path, format)  # the folder is one log of another format
    if path.is_dir() and not _claimed_folder(path, format):
        conversations = _import_folder(path, format, wanted, failures, skipped)
        if not conversations:
            detail = f" ({len(failures)} files failed; first: {failures[0]})" if failures else ""
            if skipped and not failures:
                detail = f" ({len(skipped)} files skipped; first: {skipped[0][0]}: {skipped[0][1]})"
            matching = " matching --select" if wanted else ""
            raise TranscriptError(
                f"{path}: no importable conversations{matching} in this folder{detail}"
            )
    else:
        conversations = import_path(path, format=format, select=wanted)
        if not conversations:
            raise TranscriptError(f"{path}: holds no conversations")
    if out:
        write_conversations(Path(out), conversations)
    return ImportReport(conversations, failures, skipped)


def summary_row(conv: Conversation) -> dict[str, Any]:
    """The summary record of one imported conversation (``snapshot import --json``).

    Parameters
    ----------
    conv : Conversation
        An imported conversation.

    Returns
    -------
    dict
        ``id``, ``format``, ``messages``, ``tool_calls``, ``images``, ``chars``,
        ``warnings``, then ``agent``, ``source``, ``tool_results``,
        ``tool_result_chars``, ``path_messages``, ``compact_boundaries`` and
        ``text_kept`` (share of the file's model-visible text kept; ``None``: not measured)
        and ``ui_only_chars`` (the UI-only text left out of it, by kind).

    Examples
    --------
    >>> from importlib import resources
    >>> demo = resources.files("snapshot.demo") / "transcripts" / "demo-coding.json"
    >>> row = summary_row(import_path(Path(str(demo)))[0])
    >>> row["id"], row["messages"], row["tool_calls"], row["text_kept"]
    ('demo-coding', 35, 14, 1.0)
    """
    s = stats(conv.messages)
    return {
        "id": conv.id,
        "format": conv.format,
        "messages": s.messages,
        "tool_calls": s.tool_calls,
        "images": s.images,
        "chars": s.chars,
        "warnings": list(conv.warnings),
        # Beyond the fixed keys above:
        "agent": conv.agent,
        "source": conv.source,
        "tool_results": s.tool_results,
        "tool_result_chars": s.tool_result_chars,
        "path_messages": len(conv.path_ids()) if conv.tip is not None else 0,
        "compact_boundaries": sum(
            1 for m in conv.messages if m.meta.get("kind") == "compact_boundary"
        ),
        # Share of the file's model-visible text the import kept (None: not measured),
        # and the UI-only text left out of that share, by kind.
        "text_kept": conv.meta.get("text_kept"),
        "ui_only_chars": dict(conv.meta.get("ui_only_chars") or {}),
    }


def write_conversations(target: Path, conversations: Sequence[Conversation]) -> None:
    """Save ``conversations`` as one JSON document, atomically.

    A crash leaves either the old file or the complete new one; the new file
    gets the mode a plain ``open`` would give it (or the old file's).

    Parameters
    ----------
    target : Path
        The file to write; its folder must exist.
    conversations : sequence of Conversation
        What to save (``{"format": OUT_FORMAT, "version": OUT_VERSION, "conversations": [...]}``).

    Raises
    ------
    TranscriptError
        The folder does not exist or the file cannot be written.

    Examples
    --------
    >>> import tempfile
    >>> from importlib import resources
    >>> demo = resources.files("snapshot.demo") / "transcripts" / "demo-coding.json"
    >>> target = Path(tempfile.mkdtemp()) / "convs.json"
    >>> write_conversations(target, import_path(Path(str(demo))))
    >>> doc = json.loads(target.read_text())
    >>> doc["format"], doc["version"], [c["id"] for c in doc["conversations"]]
    ('snapshot-conversations', 1, ['demo-coding'])
    """
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise TranscriptError(f"--out {target}: folder {parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            _dump(fh, conversations)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp makes the file private; give it the mode a plain open would.
        os.chmod(tmp, _plain_file_mode(target))
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise TranscriptError(f"--out {target}: cannot write: {exc}") from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _dump(fh: TextIO, conversations: Sequence[Conversation]) -> None:
    """Write the document ``json.dump(doc, fh, ensure_ascii=False)`` would, one message at a time.

    Never the whole document in memory: a conversation kept on disk
    (:mod:`snapshot.transcript.spill`) is copied from its stored text.
    """

    def opened(record: dict[str, Any], key: str) -> str:
        # The record's JSON text up to the "[" of its last key, which is ``key`` (an empty list).
        text = json.dumps({**record, key: []}, ensure_ascii=False)
        return text[: -len("]}")]

    fh.write(opened({"format": OUT_FORMAT, "version": OUT_VERSION}, "conversations"))
    for i, conv in enumerate(conversations):
        if i:
            fh.write(", ")
        fh.write(opened(conversation_head_to_dict(conv), "messages"))
        for j, text in enumerate(message_texts(conv.messages)):
            if j:
                fh.write(", ")
            fh.write(text)
        fh.write("]}")
    fh.write("]}")


def _plain_file_mode(target: Path) -> int:
    if target.exists():
        return target.stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
