"""Helpers the importers share: warnings, JSON reading, sniffing, prompts, pairing.

They live apart from any one importer so that no importer imports another to
get them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.model import Message, tool_pairing

# --- record-by-record logs: capped warnings, lenient JSON reading -------------

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


def iter_json_lines(path: Path, warnings: Warnings) -> Iterator[tuple[int, Any]]:
    """``(line_number, record)`` for every parseable line of a JSONL file.

    Blank lines are ignored; malformed JSON, invalid UTF-8 and oversized lines
    are reported with file and line and the rest of the file is still read.
    """
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
    with fh:
        lineno = 0
        while True:
            raw = fh.readline(MAX_RECORD_BYTES + 1)
            if not raw:
                return
            lineno += 1
            if len(raw) > MAX_RECORD_BYTES and not raw.endswith(b"\n"):
                # Skip the rest of this line without holding it in memory.
                skipped = len(raw)
                while raw and not raw.endswith(b"\n"):
                    raw = fh.readline(MAX_RECORD_BYTES)
                    skipped += len(raw)
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
                warnings.add(f"{path}:{lineno}: malformed JSON ({exc.msg}); line skipped", "json")
                continue
            except (ValueError, RecursionError) as exc:
                # Valid JSON Python will not hold: an integer of thousands of
                # digits, nesting deeper than the parser's stack.
                reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
                warnings.add(f"{path}:{lineno}: unreadable JSON ({reason}); line skipped", "json")
                continue
            yield lineno, record


# A whole-document format (one JSON value per file) must be parsed at once;
# refuse files far beyond any real trajectory rather than exhaust memory.
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024


def read_json_document(path: Path, warnings: Warnings) -> Any:
    """Parse a file holding one JSON document, reporting bad UTF-8 and bad JSON by line."""
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise TranscriptError(
                f"{path}: {size} bytes is more than the {MAX_DOCUMENT_BYTES}-byte limit "
                "for a single JSON document"
            )
        raw = path.read_bytes()
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        warnings.add(
            f"{path}:{line}: invalid UTF-8 at byte {exc.start}; undecodable bytes "
            "replaced with U+FFFD"
        )
        text = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptError(
            f"{path}:{exc.lineno}: malformed JSON ({exc.msg} at column {exc.colno}); "
            "the file holds one JSON document, so nothing can be imported"
        ) from exc
    except RecursionError as exc:
        raise TranscriptError(f"{path}: JSON nested too deeply to import") from exc
    except ValueError as exc:  # e.g. an integer beyond Python's digit limit
        raise TranscriptError(f"{path}: unreadable JSON ({exc})") from exc


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
        except (json.JSONDecodeError, UnicodeDecodeError):
            # A first record longer than the sniff window is common (a huge
            # prompt); judge on what we have.
            continue
        if not isinstance(record, dict):
            continue  # a stray line does not decide; the other lines do
        out.append(record)
        if len(out) >= limit:
            break
    return out


def prompt_file_for(path: Path) -> Path | None:
    """The sibling file holding the first user turn of an SDK/Codex run log."""
    if "agent_log_raw" not in path.name:
        return None
    candidate = path.with_name(path.name.replace("agent_log_raw", "prompt", 1))
    return candidate if candidate.is_file() else None


def read_prompt(path: Path, warnings: Warnings) -> str | None:
    prompt = prompt_file_for(path)
    if prompt is None:
        if "agent_log_raw" in path.name:
            warnings.add(f"{path}: no sibling prompt file; the first user turn is missing")
        return None
    raw = prompt.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        warnings.add(f"{prompt}: invalid UTF-8 at byte {exc.start}; replaced with U+FFFD")
        return raw.decode("utf-8", errors="replace")


def pairing_warnings(conv_label: str, messages: Sequence[Message], warnings: Warnings) -> None:
    """Report tool results without calls and calls without results on the live path."""
    p = tool_pairing(messages)
    for call_id in p.orphan_results:
        warnings.add(f"{conv_label}: tool result {call_id!r} has no earlier call", "orphan")
    for call_id in p.unanswered_calls:
        warnings.add(f"{conv_label}: tool call {call_id!r} has no result", "unanswered")


def matches_select(values: Mapping[str, Any], select: Mapping[str, str]) -> bool:
    return all(str(values.get(k)) == v for k, v in select.items())
