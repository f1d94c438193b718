"""Helpers the importers share: warnings, JSON reading, sniffing, images, pairing.

They live apart from any one importer so that no importer imports another to
get them. Two families of importers were written side by side and keep their
own conventions, so some helpers come in two kinds that only look alike:

- record-by-record logs (Claude Code, Codex, mini-swe-agent, SWE-agent) collect
  problems in a capped :class:`Warnings`, read leniently (bad UTF-8 is a
  warning, one line is at most :data:`MAX_RECORD_BYTES`) and report every
  unpaired tool call by id (:func:`add_pairing_warnings`);
- request bodies and trajectory files (OpenAI chat, Anthropic Messages,
  OpenHands, browser-use, OSWorld, WebVoyager, tau-bench) collect plain lists
  of warnings, read strictly (:func:`load_json` refuses bad UTF-8) and report
  unpaired calls as one summary line each (:func:`pairing_warnings`).

The two kinds word their warnings and errors differently, and users and tests
read those words, so they stay separate.
"""

from __future__ import annotations

import base64
import binascii
import contextvars
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.files import RefusedFileError, bounded_lines, check_inside, read_inside

# The one image-header reader and the path-checked file reader live in images.py.
from snapshot.transcript.images import (  # noqa: F401  (re-exported for the importers)
    MAX_IMAGE_PIXELS,
    ImageTooLarge,
    check_pixel_count,
    image_file_header,
    image_from_file,
    image_header,
)
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    tool_pairing,
)

# --- record-by-record logs: capped warnings, lenient JSON reading -------------

# The line of the record being imported, so an importer's crash on a
# wrong-typed field can be reported as "file:line" (formats.import_path).
current_record: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "current_record", default=None
)

# One record larger than this is skipped with a warning instead of being
# parsed: real records top out at a few MB (pasted screenshots, huge tool
# output); anything bigger is more likely a broken file than a message.
MAX_RECORD_BYTES = 32 * 1024 * 1024

# Warnings listing every instance of a problem would drown the useful ones.
MAX_WARNINGS_PER_KIND = 20


@dataclass
class Warnings:
    """Collects warnings, capping each kind so a broken file stays readable."""

    items: list[str] = field(default_factory=list)
    per_kind: Counter[str] = field(default_factory=Counter)

    def add(self, message: str, kind: str | None = None) -> None:
        key = kind or message
        self.per_kind[key] += 1
        n = self.per_kind[key]
        if n <= MAX_WARNINGS_PER_KIND:
            self.items.append(message)
        elif n == MAX_WARNINGS_PER_KIND + 1:
            self.items.append(f"(further {kind or 'similar'} warnings not shown)")

    def extend_counts(self, what: str, counts: Mapping[str, int]) -> None:
        if counts:
            detail = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
            self.items.append(f"{what} ({detail})")

    def tuple(self) -> tuple[str, ...]:
        return tuple(self.items)

    def copy(self) -> Warnings:
        """An independent copy: each conversation of a file goes on with its own."""
        return Warnings(list(self.items), self.per_kind.copy())


# Valid JSON that Python will not hold: ``ValueError`` for an integer literal
# longer than ``sys.get_int_max_str_digits()``, ``RecursionError`` for nesting
# deeper than the parser's stack. Every reader must catch both, not just
# ``JSONDecodeError`` (a subclass of ValueError, so catch that one first).
JSON_LIMIT_ERRORS = (ValueError, RecursionError)


def json_limit_reason(exc: BaseException) -> str:
    """Why valid JSON could not be read, in words (for :data:`JSON_LIMIT_ERRORS`)."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    if "integer string conversion" in str(exc):
        return f"an integer of more than {sys.get_int_max_str_digits()} digits"
    return str(exc)


def _json_limit_line(text: str, exc: BaseException) -> int | None:
    """Best guess at the line of a whole document that :data:`JSON_LIMIT_ERRORS` came from.

    The parser does not say where; the first point nested as deep as the
    recursion limit (else the deepest point), or the first over-long integer
    outside a string, is where it gave up.
    """
    at: int | None = None
    if isinstance(exc, RecursionError):
        depth = deepest = 0
        limit = sys.getrecursionlimit()
        for m in _JSON_NESTING.finditer(text):
            tok = m.group()
            if tok == "[" or tok == "{":
                depth += 1
                if depth > deepest:
                    deepest, at = depth, m.start()
                    if depth >= limit:
                        break
            elif tok == "]" or tok == "}":
                depth -= 1
    elif digits := sys.get_int_max_str_digits():
        # Not a float's fraction or exponent, which Python reads at any length.
        long_int = re.compile(rf"{_JSON_STRING}|(?<![\d.eE+])(\d{{{digits + 1}}})")
        at = next((m.start(1) for m in long_int.finditer(text) if m.group(1)), None)
    return None if at is None else text.count("\n", 0, at) + 1


_JSON_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_JSON_NESTING = re.compile(rf"{_JSON_STRING}|[\[\]{{}}]")


def json_limit_error(path: Path, text: str, exc: BaseException) -> TranscriptError:
    """The error for a whole JSON document Python will not hold, naming file and line."""
    line = _json_limit_line(text, exc)
    where = f"{path}:{line}" if line is not None else str(path)
    if isinstance(exc, RecursionError):
        return TranscriptError(f"{where}: JSON nested too deeply to import")
    return TranscriptError(f"{where}: unreadable JSON ({json_limit_reason(exc)})")


def iter_json_lines(path: Path, warnings: Warnings) -> Iterator[tuple[int, Any]]:
    """``(line_number, record)`` for every parseable line of a JSONL file.

    Blank lines are ignored; malformed JSON, invalid UTF-8 and oversized lines
    are reported with file and line and the rest of the file is still read.
    :func:`iter_jsonl` is the plain-list kind, without the size cap.
    """
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
    with fh:
        lineno = 0
        for raw, skipped in bounded_lines(fh, MAX_RECORD_BYTES):
            lineno += 1
            if raw is None:  # skipped without being held in memory
                warnings.add(
                    f"{path}:{lineno}: record of {skipped} bytes exceeds the "
                    f"{MAX_RECORD_BYTES}-byte limit; skipped",
                    "oversized",
                )
                continue
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                warnings.add(
                    f"{path}:{lineno}: invalid UTF-8 at byte {exc.start}; "
                    "undecodable bytes replaced with U+FFFD",
                    "utf8",
                )
                text = raw.decode("utf-8", errors="replace")
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                if is_partial_last_line(raw):
                    warnings.add(partial_line_warning(path, lineno), "partial")
                    return
                warnings.add(f"{path}:{lineno}: malformed JSON ({exc.msg}); line skipped", "json")
                continue
            except JSON_LIMIT_ERRORS as exc:
                reason = json_limit_reason(exc)
                warnings.add(f"{path}:{lineno}: unreadable JSON ({reason}); line skipped", "json")
                continue
            current_record.set(lineno)
            yield lineno, record


# --- files still being written ------------------------------------------------------
# An agent appends one record per line while it runs; a file read meanwhile can
# end in the middle of a record. Its complete records import; the cut one is
# reported as partial rather than as malformed.


def is_partial_last_line(raw: bytes | str) -> bool:
    """Is ``raw``, a line read whole (not cut by a size limit), an unterminated last line?

    Only the last line of a file can lack its newline.
    """
    return not (raw.endswith(b"\n") if isinstance(raw, bytes) else raw.endswith("\n"))


def partial_line_warning(path: Path, lineno: int) -> str:
    return (
        f"{path}:{lineno}: the last line is partial (the file was being written while read?); "
        "the complete records before it were imported"
    )


def iter_json_objects(
    path: Path, warnings: Warnings, what: str = "record"
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Like :func:`iter_json_lines` for logs of one object per line.

    Any other JSON value is a warning (``what`` names the line's kind) and skipped.
    """
    for lineno, record in iter_json_lines(path, warnings):
        if not isinstance(record, dict):
            warnings.add(f"{path}:{lineno}: {what} is not a JSON object; skipped", "record")
            continue
        yield lineno, record


# One JSON value larger than this (an element of a streamed list, or a field)
# is refused rather than exhaust memory (formats/_json_stream.py).
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024


def text_lines(path: Path, warnings: Warnings) -> Iterator[str]:
    """The file's lines (as ``str.splitlines`` splits the whole text), read one at a time;
    bad UTF-8 is replaced, and reported once."""
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
    offset = 0
    bad = False
    with fh:
        for raw in fh:
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                if not bad:
                    warnings.add(
                        f"{path}: invalid UTF-8 at byte {offset + exc.start}; replaced with U+FFFD"
                    )
                    bad = True
                text = raw.decode("utf-8", errors="replace")
            offset += len(raw)
            # A newline always ends a line, so splitting each is splitting the whole.
            yield from text.splitlines()


def tail_bytes(path: Path, n: int = 4096) -> bytes:
    """The last ``n`` bytes of a file (formats that put their marker at the end)."""
    try:
        with path.open("rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - n))
            return fh.read()
    except OSError:
        return b""


def head_records(head: bytes, limit: int = 5) -> list[dict[str, Any]]:
    """The first complete JSON-object lines of a sniffed head (for detection)."""
    out: list[dict[str, Any]] = []
    lines = head.split(b"\n")
    if len(lines) > 1:
        lines = lines[:-1]  # the last piece may be cut by the sniff limit
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            # A first record longer than the sniff window is common (a huge
            # prompt); judge on what we have. A line Python will not hold
            # (JSON_LIMIT_ERRORS) is the loader's to report, not detection's.
            continue
        if not isinstance(record, dict):
            continue  # a stray line does not decide; the other lines do
        out.append(record)
        if len(out) >= limit:
            break
    return out


def str_field(record: Mapping[str, Any], key: str) -> str | None:
    """``record[key]`` when it is a string, else None: a list- or object-valued ``type``
    must not reach a set or dict lookup (``unhashable type``) or a string method."""
    value = record.get(key)
    return value if isinstance(value, str) else None


def list_field(record: Mapping[str, Any], key: str) -> list[Any]:
    """``record[key]`` when it is a list, else an empty list (``"tool_calls": 5`` holds no calls)."""
    value = record.get(key)
    return value if isinstance(value, list) else []


def content_text(content: Any) -> str:
    """Chat message content → text; newer runs may use a list of typed parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return str(content)


def prompt_file_for(path: Path) -> Path | None:
    """The sibling file holding the first user turn of an SDK/Codex run log (unchecked)."""
    if "agent_log_raw" not in path.name:
        return None
    return path.with_name(path.name.replace("agent_log_raw", "prompt", 1))


def _warn(warnings: Warnings | list[str], exc: RefusedFileError) -> None:
    if isinstance(warnings, Warnings):
        warnings.add(str(exc), "refused file")
    else:
        warnings.append(str(exc))


def checked_sibling(
    sibling: Path, folder: Path, warnings: Warnings | list[str], limit: int | None = None
) -> Path | None:
    """``sibling`` when the guarded reader lets it be read from inside ``folder``.

    None when it is missing; None and a warning naming it when it is refused
    (a symlink out of the folder, not a regular file, over ``limit``). For a
    file the importer streams itself; :func:`read_sibling` reads a small one.
    """
    try:
        check_inside(sibling, folder, limit)
    except FileNotFoundError:
        return None
    except RefusedFileError as exc:
        _warn(warnings, exc)
        return None
    return sibling


def read_sibling(path: Path, sibling: Path, warnings: Warnings | list[str]) -> bytes | None:
    """``sibling``'s bytes through the guarded reader, inside ``path``'s folder.

    None when it is missing; None and a warning naming it when it is refused
    (a symlink out of the folder, not a regular file, too large).
    """
    try:
        return read_inside(sibling, path.parent)
    except FileNotFoundError:
        return None
    except RefusedFileError as exc:
        _warn(warnings, exc)
        return None


def read_prompt(path: Path, warnings: Warnings) -> str | None:
    """The run's first user turn from its sibling prompt file, if the log has one."""
    prompt = prompt_file_for(path)
    raw = None if prompt is None else read_sibling(path, prompt, warnings)
    if prompt is None or raw is None:
        if "agent_log_raw" in path.name:
            warnings.add(f"{path}: no sibling prompt file; the first user turn is missing")
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        warnings.add(f"{prompt}: invalid UTF-8 at byte {exc.start}; replaced with U+FFFD")
        return raw.decode("utf-8", errors="replace")


def put_first(head: Sequence[Message], messages: Sequence[Message]) -> Sequence[Message]:
    """``head`` (system messages, chained) then ``messages``, the first re-parented onto it.

    A request body may hold its system prompt after the messages, which are
    read one at a time before it is known; they are copied behind it one at a
    time, on disk again when they were on disk.

    >>> from snapshot.transcript.model import TextBlock
    >>> head = [Message("system", None, "system", (TextBlock("be brief"),))]
    >>> body = (Message("m0", None, "user", (TextBlock("hi"),)),)
    >>> [(m.id, m.parent) for m in put_first(head, body)]
    [('system', None), ('m0', 'system')]
    """
    if not head:
        return messages
    spilled = isinstance(messages, spill.SpilledMessages)
    out = spill.message_sink(spilled)
    for m in head:
        out.append(m)
    for k, m in enumerate(messages):
        out.append(replace(m, parent=head[-1].id) if k == 0 else m)
    return spill.frozen(out)


def add_pairing_warnings(conv_label: str, messages: Iterable[Message], warnings: Warnings) -> None:
    """Report tool results without calls and calls without results on the live path.

    One warning per id (capped per kind); :func:`pairing_warnings` is the
    summary-line kind.
    """
    p = tool_pairing(messages)
    for call_id in p.orphan_results:
        warnings.add(f"{conv_label}: tool result {call_id!r} has no earlier call", "orphan")
    for call_id in p.unanswered_calls:
        warnings.add(f"{conv_label}: tool call {call_id!r} has no result", "unanswered")


def matches_select(values: Mapping[str, Any], select: Mapping[str, str]) -> bool:
    """Does every ``--select`` KEY=VALUE equal the conversation's value (as text)?"""
    return all(str(values.get(k)) == v for k, v in select.items())


# --- request bodies and trajectory files: warning lists, strict JSON reading -----


def load_json(path: Path, inside: Path | None = None) -> Any:
    """Parse a whole JSON file; a syntax error names the file, line and column.

    Strict: bad UTF-8 is an error (for small files read whole; a session's document is
    read a piece at a time by :class:`~snapshot.transcript.formats._json_stream.JSONDocument`).
    ``inside``: a file a folder holds (not the one given) is read through the
    guarded reader, inside that folder (:class:`RefusedFileError` otherwise).
    """
    try:
        if inside is None:
            text = path.read_text(encoding="utf-8")
        else:
            text = read_inside(path, inside).decode("utf-8")
    except FileNotFoundError as exc:
        raise TranscriptError(f"{path}: no such file") from exc
    except UnicodeDecodeError as exc:
        raise TranscriptError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptError(
            f"{path}:{exc.lineno}:{exc.colno}: malformed JSON: {exc.msg}; "
            "fix the file or import another one"
        ) from exc
    except JSON_LIMIT_ERRORS as exc:
        raise json_limit_error(path, text, exc) from exc


def iter_jsonl(path: Path, warnings_out: list[str]) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every line of a JSON-lines file.

    A malformed line is reported in ``warnings_out`` (file and line) and the
    rest is still read, so one torn write does not lose a whole log. Unlike
    :func:`iter_json_lines`, lines have no size cap and bad UTF-8 is replaced
    without a warning.
    """
    try:
        fh = path.open("r", encoding="utf-8", errors="replace")
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
    with fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                current_record.set(lineno)
                yield lineno, record
            except json.JSONDecodeError as exc:
                if is_partial_last_line(line):
                    warnings_out.append(partial_line_warning(path, lineno))
                    return
                warnings_out.append(f"{path}:{lineno}: malformed JSON line skipped ({exc.msg})")
            except RecursionError:
                warnings_out.append(f"{path}:{lineno}: JSON nested too deeply; line skipped")
            except ValueError as exc:  # an integer beyond Python's digit limit
                warnings_out.append(
                    f"{path}:{lineno}: unreadable JSON line skipped ({json_limit_reason(exc)})"
                )


def head_text(head: bytes) -> str:
    return head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")


_TAU_RUNS_START = re.compile(r'^\[\s*\{\s*"(task_id|reward|info|traj|trial)"')


def starts_like_tau_runs(text: str) -> bool:
    """Does a sniffed head open a tau-bench list of runs (an object keyed like a run)?

    Shared because openai-chat also claims such files and hands them to tau-bench.
    """
    return _TAU_RUNS_START.match(text) is not None


_DATA_URL = re.compile(r"^data:([\w.+/-]*)((?:;[\w=.+-]+)*?)(;base64)?,", re.IGNORECASE)


def image_from_bytes(data: bytes, origin: str) -> ImageBlock:
    """An :class:`ImageBlock` whose media type and size come from the header.

    The header is trusted over any declared type: a PNG labelled image/jpeg
    is common in real logs and providers reject the mismatch.
    """
    media_type, width, height = image_header(data)
    return ImageBlock(media_type=media_type, data=data, width=width, height=height, origin=origin)


def image_url_of(part: Mapping[str, Any]) -> Any:
    """The URL of an OpenAI-style image part: ``image_url`` is a string or ``{"url": ...}``."""
    ref = part.get("image_url")
    return ref.get("url") if isinstance(ref, Mapping) else ref


def image_from_data_url(url: str, origin: str) -> ImageBlock:
    """Decode a ``data:image/...;base64,...`` URL; raises TranscriptError when it is not one."""
    m = _DATA_URL.match(url)
    if m is None or not m.group(3):
        raise TranscriptError(f"not a base64 data URL ({url[:40]!r}...)")
    payload = url[m.end() :]
    try:
        data = base64.b64decode(payload, validate=False)
    except (binascii.Error, ValueError) as exc:
        raise TranscriptError(f"data URL is not valid base64: {exc}") from exc
    return image_from_bytes(data, origin)


def image_or_note(url: str, origin: str, where: str, warns: list[str]) -> Block:
    """An image from a URL, or a text note (and a warning) when it cannot be kept.

    Remote URLs are not fetched (no network at import); they stay as a note.
    """
    if url.startswith("data:"):
        try:
            return image_from_data_url(url, origin)
        except TranscriptError as exc:
            warns.append(f"{where}: image dropped: {exc}")
            return TextBlock(f"[image not kept: {exc}]")
    warns.append(f"{where}: remote image URL kept as text (not fetched)")
    return TextBlock(f"[image: {url}]")


def pairing_warnings(messages: Sequence[Message], where: str) -> list[str]:
    """Warnings for tool results without calls and calls without results.

    One summary line per problem; :func:`add_pairing_warnings` is the per-id kind.
    """
    pairing = tool_pairing(messages)
    out: list[str] = []
    if pairing.orphan_results:
        ids = ", ".join(pairing.orphan_results[:5])
        out.append(
            f"{where}: {len(pairing.orphan_results)} tool result(s) without a call ({ids}); "
            "exporters turn them into text"
        )
    if pairing.unanswered_calls:
        ids = ", ".join(pairing.unanswered_calls[:5])
        out.append(
            f"{where}: {len(pairing.unanswered_calls)} tool call(s) without a result ({ids}); "
            "exporters answer them with an error result"
        )
    return out


def skipped_warning(where: str, not_what: str, skipped: Mapping[str, int]) -> str:
    """One line counting what an importer skipped by kind: ``2 × role 'x', ...``."""
    what = ", ".join(f"{n} × {k}" for k, n in sorted(skipped.items()))
    return f"{where}: skipped what is not {not_what}: {what}"


def with_file_warnings(conv: Conversation, file_warnings: Sequence[str]) -> Conversation:
    """``conv`` with a file's own warnings first: they belong to every conversation in it."""
    return replace(conv, warnings=(*file_warnings, *conv.warnings))


def parse_arguments(raw: Any, where: str, warns: list[str]) -> dict[str, Any]:
    """Tool-call arguments: a JSON object string (or already an object)."""
    if isinstance(raw, Mapping):
        return dict(raw)
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            warns.append(f"{where}: tool-call arguments are not JSON; kept as a string")
            return {"_raw_arguments": raw}
        except JSON_LIMIT_ERRORS as exc:
            reason = json_limit_reason(exc)
            warns.append(
                f"{where}: tool-call arguments are unreadable JSON ({reason}); kept as a string"
            )
            return {"_raw_arguments": raw}
        if isinstance(value, dict):
            return value
        return {"_arguments": value}
    return {"_arguments": raw}
