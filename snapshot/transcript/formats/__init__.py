"""Importers: real agent logs in their own formats → the neutral model.

Each format is one module exposing ``FORMAT: Format``; ``--format`` skips
detection, and a forced format that reads nothing is refused.

Scoring (what an importer implements)
-------------------------------------
``Format.score(path, head) -> float``: how sure the importer is that ``path``
(a file, or a folder for formats that keep several files together) is its
format. ``head`` is up to :data:`SNIFF_BYTES` of the file (``b""`` for a
folder). The scale is shared by every importer, and each states its own:

- ``0.0``: not this format (the answer for most files);
- ``0.5``-``0.8``: the shape fits, but other formats share it (a bare list of
  chat messages);
- ``0.9``-``1.0``: a marker only this format writes (a header record with the
  format's name or version, the tool's own file name and keys).

Scores must be cheap (look at ``head``, names and a folder listing; never parse
the whole file) and should never raise (one that does scores 0). The formats
themselves, and a user's own through the ``snapshot.formats`` entry point
group, are listed by :mod:`snapshot.transcript.formats.registry`.

Detection (:func:`rank`, :func:`detect`) scores every importer on the path
and picks the best only when it is sure: at least :data:`SURE` and ahead of the
runner-up by :data:`MARGIN`. Otherwise :class:`AmbiguousFormatError` lists the
candidates with their scores so the user can pass ``--format``.

After a load, :func:`import_path` measures how much of the file's text the
conversations kept (:mod:`snapshot.transcript.coverage`). A forced format that
imports no message, keeps less than :data:`FORCED_MIN_SHARE`, or does not
recognise the file and keeps less than ``WARN_SHARE`` while detection is
sure of another format, is an error naming the format detection would pick; a
detected format keeping less than :data:`DETECTED_MIN_SHARE` without being
:data:`CERTAIN` was a wrong guess and is an error too (never "every character lost, exit 0"); any import keeping less than
:data:`~snapshot.transcript.coverage.WARN_SHARE` says so in its warnings and
in ``meta["text_kept"]``.

>>> from snapshot.transcript.formats import format_names
>>> "claude-code-jsonl" in format_names()
True
"""

from __future__ import annotations

import stat
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from snapshot.errors import TranscriptError
from snapshot.transcript.encodable import encodable_conversation
from snapshot.transcript.formats.registry import (
    ENTRY_POINT_GROUP,
    FORMAT_MODULES,
    SURE,
    Format,
    ImportOptions,
    format_names,
    formats,
    get_format,
    plugin_formats,
)
from snapshot.transcript.model import Conversation

__all__ = [
    "CERTAIN",
    "DETECTED_MIN_SHARE",
    "ENTRY_POINT_GROUP",
    "FORCED_MIN_SHARE",
    "FORMAT_MODULES",
    "MARGIN",
    "SNIFF_BYTES",
    "SURE",
    "AmbiguousFormatError",
    "Format",
    "ImportOptions",
    "WrongFormatError",
    "choose",
    "detect",
    "emptiness",
    "format_names",
    "formats",
    "get_format",
    "import_path",
    "parse_select",
    "plugin_formats",
    "rank",
    "read_head",
    "refuse_forced_folder",
]

# How much of a file detection may look at.
SNIFF_BYTES = 64 * 1024

# Detection picks a format only at SURE or above, and this far ahead of the next best.
MARGIN = 0.1
# A forced --format keeping less of the file's text than this reads the wrong format.
FORCED_MIN_SHARE = 0.5
# A detected format keeping less than this was a wrong guess (real imports keep far
# more), unless it was certain (a marker only it writes): then the loss is a warning.
DETECTED_MIN_SHARE = 0.1
CERTAIN = 0.9


class AmbiguousFormatError(TranscriptError):
    """Detection is not sure which format a file is: several fit, or none well enough."""


class WrongFormatError(TranscriptError):
    """A forced ``--format`` that reads nothing (or little) of the file."""


def read_head(path: Path) -> bytes:
    """Up to :data:`SNIFF_BYTES` of a file (``b""`` for a folder).

    Only regular files are opened: a FIFO, socket or device would block or
    never end, so it is refused.
    """
    if path.is_dir():
        return b""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
    if not stat.S_ISREG(mode):
        raise TranscriptError(f"{path}: not a regular file (a FIFO, socket or device); not read")
    try:
        with path.open("rb") as fh:
            return fh.read(SNIFF_BYTES)
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc


def emptiness(path: Path, head: bytes) -> str | None:
    """``"the file is empty (0 bytes)"`` (or holds only whitespace) for such a file, else None.

    >>> emptiness(Path("s.jsonl"), b"  \\n"), emptiness(Path("s.jsonl"), b"{}")
    ('the file is empty (only whitespace)', None)
    """
    if path.is_dir() or len(head) >= SNIFF_BYTES or head.strip():
        return None
    return "the file is empty (0 bytes)" if not head else "the file is empty (only whitespace)"


def rank(path: Path, head: bytes | None = None) -> list[tuple[Format, float]]:
    """Every format with a score above 0 for ``path``, best first.

    Parameters
    ----------
    path
        A file or folder.
    head
        Its first :data:`SNIFF_BYTES` when already read.

    Returns
    -------
    list of (Format, float)
        Best score first; ties in :func:`formats` order (built-ins first).

    Examples
    --------
    >>> import tempfile
    >>> rank(Path(tempfile.mkdtemp()))
    []
    """
    if head is None:
        head = read_head(path)
    scored = [(f, f.rate(path, head)) for f in formats()]
    order = {f.name: i for i, (f, _) in enumerate(scored)}
    return sorted(((f, s) for f, s in scored if s > 0), key=lambda fs: (-fs[1], order[fs[0].name]))


def _listing(ranked: Sequence[tuple[Format, float]]) -> str:
    return ", ".join(f"{f.name} ({s:.2f})" for f, s in ranked[:5])


def choose(path: Path, ranked: Sequence[tuple[Format, float]]) -> Format:
    """The sure pick among ranked candidates, else :class:`AmbiguousFormatError`."""
    if not ranked:
        known = _known_unsupported(path)
        if known:
            raise AmbiguousFormatError(f"{path}: {known}")
        raise AmbiguousFormatError(
            f"{path}: not a format snapshot recognises; force one with --format "
            f"({', '.join(format_names())})"
        )
    best, top = ranked[0]
    runner = ranked[1][1] if len(ranked) > 1 else 0.0
    if top < SURE:
        raise AmbiguousFormatError(
            f"{path}: no format is sure of this file (candidates: {_listing(ranked)}); "
            "pass --format NAME to read it as one of them"
        )
    if top - runner < MARGIN:
        raise AmbiguousFormatError(
            f"{path}: several formats fit this file equally well ({_listing(ranked)}); "
            "pass --format NAME to choose"
        )
    return best


def _known_unsupported(path: Path) -> str | None:
    """What a file no importer reads is, when it is a format snapshot knows but refuses."""
    from snapshot.transcript.formats._common import head_records
    from snapshot.transcript.formats.qwen_code import QWEN_REFUSAL, is_qwen_code

    try:
        head = b"" if path.is_dir() else read_head(path)
    except TranscriptError:
        return None
    if head.startswith(b"SQLite format 3\x00"):
        return (
            "an SQLite database, but not one snapshot reads (opencode's .opencode/opencode.db "
            "and Crush's .crush/crush.db are; this one's tables are not theirs, or cannot be read)"
        )
    return QWEN_REFUSAL if is_qwen_code(head_records(head)) else None


def detect(path: Path) -> Format:
    """The format of ``path`` when detection is sure (see :func:`choose`)."""
    if not path.exists():
        raise TranscriptError(f"{path}: no such file or folder")
    return choose(path, rank(path))


def parse_select(pairs: Sequence[str]) -> dict[str, str]:
    """``["task_id=3", "trial=0"]`` → ``{"task_id": "3", "trial": "0"}``."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise TranscriptError(f"--select takes KEY=VALUE, got {pair!r}")
        out[key] = value
    return out


def _sure_other(path: Path, forced: Format) -> Format | None:
    """The format detection is sure of, when it is not ``forced``."""
    try:
        ranked = [(f, sc) for f, sc in rank(path) if f.name != forced.name]
        return choose(path, ranked)
    except TranscriptError:
        return None


def _better_format(path: Path, forced: Format) -> str:
    """What to say instead of a forced format: the one detection would pick."""
    other = _sure_other(path, forced)
    if other is not None:
        return f"it looks like {other.name}: use --format {other.name} or leave --format out"
    return "no other format recognises it either"


def refuse_forced_folder(path: Path, forced: str) -> None:
    """Raise :class:`WrongFormatError` when another format reads folder ``path`` as one log.

    For a folder the forced format does not claim (the caller would otherwise
    look for files of that format inside it and find none).
    """
    fmt = get_format(forced)
    other = _sure_other(path, fmt)
    if other is not None and fmt.rate(path, b"") < SURE:
        raise WrongFormatError(
            f"{path}: --format {fmt.name} does not read this folder; {_better_format(path, fmt)}"
        )


def _check_kept(
    path: Path, fmt: Format, forced: bool, conversations: list[Conversation]
) -> list[Conversation]:
    """Refuse a forced format that reads nothing; say when an import drops text."""
    from snapshot.transcript.coverage import WARN_SHARE, measure

    messages = sum(len(c.messages) for c in conversations)
    if forced and messages == 0:
        raise WrongFormatError(
            f"{path}: --format {fmt.name} imported no messages; {_better_format(path, fmt)}"
        )
    coverage = measure(path, conversations, fmt.unread_keys, fmt.ui_records)
    if coverage is None or not coverage.judged:
        return conversations
    if forced and coverage.share < FORCED_MIN_SHARE:
        raise WrongFormatError(
            f"{path}: --format {fmt.name} kept only {coverage.share:.0%} of the file's text; "
            f"{_better_format(path, fmt)}"
        )
    if forced and coverage.share < WARN_SHARE and fmt.rate(path, read_head(path)) < SURE:
        other = _sure_other(path, fmt)
        if other is not None:  # a format that does not recognise the file, losing text
            raise WrongFormatError(
                f"{path}: --format {fmt.name} does not recognise this file and kept only "
                f"{coverage.share:.0%} of its text; {_better_format(path, fmt)}"
            )
    if (
        not forced
        and coverage.share < DETECTED_MIN_SHARE
        and fmt.rate(path, read_head(path)) < CERTAIN
    ):
        others = [(f, sc) for f, sc in rank(path) if f.name != fmt.name]
        listing = f" (other candidates: {_listing(others)})" if others else ""
        raise AmbiguousFormatError(
            f"{path}: detected as {fmt.name}, but that import kept only {coverage.share:.0%} of "
            f"the file's text: it is probably a format snapshot does not read yet{listing}"
        )
    out = []
    for c in conversations:
        meta = {**c.meta, "text_kept": coverage.share}
        if coverage.ui_only:
            meta["ui_only_chars"] = dict(coverage.ui_only)
        warns = c.warnings
        if coverage.share < WARN_SHARE:
            warns = (*warns, coverage.warning(path))
        out.append(replace(c, meta=meta, warnings=warns))
    return out


def import_path(
    path: str | Path, *, format: str | None = None, select: Mapping[str, object] | None = None
) -> list[Conversation]:
    """Every conversation in ``path``, auto-detecting the format unless given.

    Parameters
    ----------
    path
        A transcript file, or a folder a format reads as one log.
    format
        A format name to use instead of detection (``--format``).
    select
        KEY=VALUE pairs picking conversations of a multi-conversation file; a
        value that is not a string (a manifest's integer task id) is compared as text.

    Returns
    -------
    list of Conversation
        With ``meta["text_kept"]`` (share of the file's text kept) when it was
        measured, and a warning when it is below 90 %.

    Raises
    ------
    AmbiguousFormatError
        Detection is not sure (the message lists the candidates).
    WrongFormatError
        A forced format reads nothing or little of the file (the message names
        the format that would).
    TranscriptError
        No format can read the file.

    Examples
    --------
    >>> import json, tempfile
    >>> p = Path(tempfile.mkdtemp()) / "s.jsonl"
    >>> _ = p.write_text(json.dumps({"type": "session", "version": 3, "id": "s", "cwd": "/"}) + "\\n")
    >>> [c.format for c in import_path(p)]
    ['pi']
    """
    p = Path(path)
    if not p.exists():
        raise TranscriptError(f"{p}: no such file or folder")
    empty = emptiness(p, read_head(p))  # refuses a FIFO, socket or device before any load
    if empty:
        raise TranscriptError(f"{p}: {empty}; nothing to import")
    fmt = get_format(format) if format else detect(p)
    chosen = {str(k): str(v) for k, v in (select or {}).items()}
    try:
        conversations = _guarded_load(fmt, p, ImportOptions(select=chosen))
    except WrongFormatError:
        raise
    except TranscriptError as exc:
        if format and fmt.rate(p, read_head(p)) < SURE:
            raise WrongFormatError(f"{exc}; {_better_format(p, fmt)}") from exc
        raise
    _refuse_lost_results(p, fmt, conversations)
    if format:
        _refuse_lost_calls(p, fmt, conversations)
        conversations = _warn_if_forced_against(p, fmt, conversations)
    if select and not conversations:
        wanted = ", ".join(f"{k}={v}" for k, v in select.items())
        raise TranscriptError(f"{p}: no conversation matches --select {wanted}")
    if select:
        return conversations  # a chosen part of the file: its share of the text means nothing
    return _check_kept(p, fmt, bool(format), conversations)


def _refuse_lost_results(path: Path, fmt: Format, conversations: list[Conversation]) -> None:
    """Every tool result empty while the import skipped content parts: the results were in them.

    A valid export with every ``tool_result`` empty is silent loss; the error
    names the part types that were skipped so the format can be taught them.
    """
    results = [r for c in conversations for m in c.messages for r in m.tool_results()]
    if not results or any(r.text() or r.images() for r in results):
        return
    parts: dict[str, int] = {}
    for c in conversations:
        for key, n in dict(c.meta.get("skipped") or {}).items():
            if str(key).startswith("content part") and str(key).endswith("in a tool result"):
                parts[str(key)] = parts.get(str(key), 0) + int(n)
    if parts:
        listing = ", ".join(f"{k} ({n})" for k, n in sorted(parts.items()))
        raise TranscriptError(
            f"{path}: all {len(results)} tool results imported as {fmt.name} are empty, and the "
            f"import skipped {listing}: the results are probably in those parts, which "
            f"{fmt.name} does not read; nothing was imported"
        )


# Keys under which the formats snapshot reads keep structured tool calls.
_CALL_KEYS = (b'"tool_calls"', b'"tool_use"', b'"functionCall"', b'"function_call"', b'"tool_call"')


def _refuse_lost_calls(path: Path, forced: Format, conversations: list[Conversation]) -> None:
    """A forced format that reads none of the file's structured tool calls is an error.

    The text of a call's arguments is small, so the text-kept share can stay
    high while every call is dropped; here the file holds call records (a
    key of :data:`_CALL_KEYS` in its head), the format detection is sure of
    reads calls from it, and the forced one reads none.
    """
    if any(m.tool_calls() for c in conversations for m in c.messages):
        return
    head = b"" if path.is_dir() else read_head(path)
    other = _sure_other(path, forced)
    if other is None or not any(key in head for key in _CALL_KEYS):
        return
    try:
        theirs = _guarded_load(other, path, ImportOptions())
    except TranscriptError:
        return
    calls = sum(len(m.tool_calls()) for c in theirs for m in c.messages)
    if calls:
        raise WrongFormatError(
            f"{path}: --format {forced.name} read none of the {calls} tool calls in this file; "
            f"{_better_format(path, forced)}"
        )


def _warn_if_forced_against(
    path: Path, forced: Format, conversations: list[Conversation]
) -> list[Conversation]:
    """A body forced through the wrong importer loses most of itself: say so in the warnings."""
    from dataclasses import replace

    try:
        detected = detect(path)
    except TranscriptError:
        return conversations
    if detected.name == forced.name:
        return conversations
    note = (
        f"{path}: read as {forced.name} because --format said so, but it looks like "
        f"{detected.name}; what {forced.name} does not know was skipped (drop --format to "
        "detect it)"
    )
    return [replace(c, warnings=(note, *c.warnings)) for c in conversations]


# What an importer raises when a field has the wrong type (a list-valued
# ``type``, an integer ``tool_calls``): a bad file, reported as one.
_SHAPE_ERRORS = (TypeError, KeyError, AttributeError, IndexError)


def _guarded_load(fmt: Format, path: Path, options: ImportOptions) -> list[Conversation]:
    """``fmt.load``, with wrong-typed input reported as a :class:`TranscriptError`
    naming the file and record, and every conversation made encodable (U+FFFD, counted)."""
    from snapshot.transcript.formats._common import current_record

    token = current_record.set(None)
    try:
        conversations = fmt.load(path, options)
    except _SHAPE_ERRORS as exc:
        where = f"{path}:{current_record.get()}" if current_record.get() else str(path)
        kind = "a required field is missing" if isinstance(exc, KeyError) else "a wrong-typed field"
        raise TranscriptError(
            f"{where}: not a valid {fmt.name} record ({kind}: {type(exc).__name__}: {exc}); "
            "fix the record or force another format with --format"
        ) from exc
    finally:
        current_record.reset(token)
    return [encodable_conversation(c) for c in conversations]
