"""Importers: real agent logs in their own formats → the neutral model.

Each format is one module exposing ``FORMAT: Format``. Detection asks each
format, in the order of :data:`FORMAT_MODULES`, whether it recognises the
path (a file, or a folder for formats that keep screenshots beside the log);
``--format`` skips detection.

>>> from snapshot.transcript.formats import format_names
>>> "claude-code-jsonl" in format_names()
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from snapshot.errors import TranscriptError
from snapshot.transcript.model import Conversation

# Order matters for detection: more specific formats first.
FORMAT_MODULES: tuple[str, ...] = (
    "snapshot.transcript.formats.claude_code",
    "snapshot.transcript.formats.codex_exec",
    "snapshot.transcript.formats.mini_swe_agent",
    "snapshot.transcript.formats.swe_agent",
    "snapshot.transcript.formats.openhands",
    "snapshot.transcript.formats.webvoyager",
    "snapshot.transcript.formats.browser_use",
    "snapshot.transcript.formats.osworld",
    "snapshot.transcript.formats.tau_bench",
    # Before the chat formats: their lists of role objects look alike at a glance.
    "snapshot.transcript.formats.gemini_content",
    "snapshot.transcript.formats.openai_responses",
    "snapshot.transcript.formats.snapshot_markdown",
    "snapshot.transcript.formats.anthropic_messages",
    "snapshot.transcript.formats.openai_chat",
)

# How much of a file detection may look at.
SNIFF_BYTES = 64 * 1024


@dataclass(frozen=True)
class ImportOptions:
    """``select``: KEY=VALUE pairs picking conversations from a multi-conversation file."""

    select: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Format:
    """One importable format.

    ``sniff(path, head)``: does this path look like this format? ``head`` is up
    to :data:`SNIFF_BYTES` of the file (empty for a folder).
    ``load(path, options)``: every conversation in the path (after ``select``).
    Problems that leave the rest usable (a malformed line, an unknown record
    type) go into ``Conversation.warnings`` naming file and line; problems that
    leave nothing usable raise :class:`TranscriptError`.
    """

    name: str
    description: str
    sniff: Callable[[Path, bytes], bool]
    load: Callable[[Path, ImportOptions], list[Conversation]]


def _modules() -> list[Format]:
    formats: list[Format] = []
    for name in FORMAT_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # not written yet; any other missing import is a bug
                continue
            raise
        formats.append(module.FORMAT)
    return formats


def formats() -> list[Format]:
    return _modules()


def format_names() -> list[str]:
    return [f.name for f in _modules()]


def get_format(name: str) -> Format:
    for f in _modules():
        if f.name == name:
            return f
    raise TranscriptError(f"unknown format {name!r}; known formats: {', '.join(format_names())}")


def _head(path: Path) -> bytes:
    if path.is_dir():
        return b""
    with path.open("rb") as fh:
        return fh.read(SNIFF_BYTES)


def detect(path: Path) -> Format:
    if not path.exists():
        raise TranscriptError(f"{path}: no such file or folder")
    head = _head(path)
    for f in _modules():
        if f.sniff(path, head):
            return f
    raise TranscriptError(
        f"{path}: not a format snapshot recognises; force one with --format "
        f"({', '.join(format_names())})"
    )


def parse_select(pairs: Sequence[str]) -> dict[str, str]:
    """``["task_id=3", "trial=0"]`` → ``{"task_id": "3", "trial": "0"}``."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise TranscriptError(f"--select takes KEY=VALUE, got {pair!r}")
        out[key] = value
    return out


def import_path(
    path: str | Path, *, format: str | None = None, select: Mapping[str, str] | None = None
) -> list[Conversation]:
    """Every conversation in ``path``, auto-detecting the format unless given."""
    p = Path(path)
    fmt = get_format(format) if format else detect(p)
    conversations = fmt.load(p, ImportOptions(select=dict(select or {})))
    if select and not conversations:
        wanted = ", ".join(f"{k}={v}" for k, v in select.items())
        raise TranscriptError(f"{p}: no conversation matches --select {wanted}")
    return conversations
