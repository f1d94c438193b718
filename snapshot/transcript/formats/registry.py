"""The importers snapshot knows: its own, and any a package adds through an entry point.

Every importer is one :class:`Format`: a ``name``, a ``score(path, head) ->
float`` saying how sure it is that ``path`` is its format (see
:mod:`snapshot.transcript.formats` for the scale), and a ``load(path,
options)`` returning the conversations. Built-in importers are the modules of
:data:`FORMAT_MODULES`, each exposing ``FORMAT``.

Your own format
---------------
A package adds an importer by naming its ``Format`` (or a module exposing
``FORMAT``) in the :data:`ENTRY_POINT_GROUP` entry point group of its
``pyproject.toml``::

    [project.entry-points."snapshot.formats"]
    myfmt = "mypkg.myfmt:FORMAT"

with ``mypkg/myfmt.py``::

    from pathlib import Path
    from snapshot.transcript.formats import Format, ImportOptions
    from snapshot.transcript.model import Conversation, TextBlock, linear

    def score(path: Path, head: bytes) -> float:
        return 1.0 if head.startswith(b"MYFMT 1\\n") else 0.0

    def load(path: Path, options: ImportOptions) -> list[Conversation]:
        lines = path.read_text(encoding="utf-8").splitlines()[1:]
        turns = [(f"m{i}", ("user", "assistant")[i % 2], [TextBlock(t)])
                 for i, t in enumerate(lines)]
        return [linear(path.stem, turns, format="my-format", source=str(path))]

    FORMAT = Format("my-format", "My tool's log", score=score, load=load)

(``docs/format-plugins.md`` walks through it.) Once the package is
installed, ``snapshot import`` detects such files and
``--format my-format`` forces it. The group is read once, the first time a
format is looked up. A plugin that cannot be imported, does not name a
``Format``, or takes a name already used is left out with one line on
standard error naming it and the problem; the built-in formats still work. A
plugin's ``load`` that fails with anything but a :class:`TranscriptError` is
reported the same way, as one line naming the file and the plugin.

>>> import sys, tempfile, textwrap
>>> from pathlib import Path
>>> site = Path(tempfile.mkdtemp())
>>> _ = (site / "myfmt.py").write_text(textwrap.dedent('''
...     from snapshot.transcript.formats import Format
...     FORMAT = Format("my-format", "My tool's log",
...                     score=lambda path, head: float(head.startswith(b"MYFMT")),
...                     load=lambda path, options: [])
... '''))
>>> info = site / "myfmt-1.0.dist-info"
>>> info.mkdir()
>>> _ = (info / "METADATA").write_text("Metadata-Version: 2.1\\nName: myfmt\\nVersion: 1.0\\n")
>>> _ = (info / "entry_points.txt").write_text("[snapshot.formats]\\nmyfmt = myfmt:FORMAT\\n")
>>> sys.path.insert(0, str(site))
>>> [f.name for f in plugin_formats()]
['my-format']
>>> sys.path.remove(str(site))
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.model import Conversation

# Every built-in importer. The order breaks ties between equal scores.
FORMAT_MODULES: tuple[str, ...] = (
    "snapshot.transcript.formats.claude_code",
    "snapshot.transcript.formats.codex_exec",
    "snapshot.transcript.formats.mini_swe_agent",
    "snapshot.transcript.formats.swe_agent",
    "snapshot.transcript.formats.openhands",
    "snapshot.transcript.formats.openhands_v1",
    "snapshot.transcript.formats.pi",
    "snapshot.transcript.formats.continue_dev",
    "snapshot.transcript.formats.webvoyager",
    "snapshot.transcript.formats.browser_use",
    "snapshot.transcript.formats.osworld",
    "snapshot.transcript.formats.tau_bench",
    "snapshot.transcript.formats.codex_rollout",
    "snapshot.transcript.formats.gemini_cli",
    "snapshot.transcript.formats.gemini_stream",
    "snapshot.transcript.formats.antigravity",
    "snapshot.transcript.formats.cline_roo",
    "snapshot.transcript.formats.kimi_cli",
    "snapshot.transcript.formats.aider_md",
    "snapshot.transcript.formats.specstory_md",
    "snapshot.transcript.formats.cursor_md",
    # SQLite stores, recognised by their schema (never by a JSON head).
    "snapshot.transcript.formats.opencode_db",
    "snapshot.transcript.formats.crush_db",
    "snapshot.transcript.formats.cline_ui",
    "snapshot.transcript.formats.gemini_content",
    "snapshot.transcript.formats.openai_responses",
    "snapshot.transcript.formats.snapshot_markdown",
    "snapshot.transcript.formats.anthropic_messages",
    "snapshot.transcript.formats.openai_chat",
)

# The entry point group a package names its own formats in (after the built-ins).
ENTRY_POINT_GROUP = "snapshot.formats"

# A score at or above this says "this is my format": detection needs it to pick
# one, and a forced walk (``--format`` on a folder) takes the files that reach it.
SURE = 0.5


@dataclass(frozen=True)
class ImportOptions:
    """``select``: KEY=VALUE pairs picking conversations from a multi-conversation file."""

    select: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Format:
    """One importable format.

    ``score(path, head)``: how sure, from 0 to 1, that ``path`` (a file, or a
    folder for formats that keep several files together) is this format;
    ``head`` is up to :data:`~snapshot.transcript.formats.SNIFF_BYTES` of the
    file (``b""`` for a folder). Cheap (the head, names, a folder listing).
    ``load(path, options)``: every conversation in the path (after ``select``).
    Problems that leave the rest usable (a malformed line, an unknown record
    type) go into ``Conversation.warnings`` naming file and line; problems that
    leave nothing usable raise :class:`TranscriptError`.
    ``unread_keys``: JSON keys whose values the tool keeps for itself and the
    model never saw; the text-kept measure leaves them out.
    ``ui_records(path, record)``: a label when a top-level record of ``path``
    (a JSON line, a document's list item) is the tool's own (a progress stream, the UI's copy
    of an event), else None; the text-kept measure counts such records apart.

    >>> fmt = Format("x", "demo", score=lambda p, h: 2.0, load=lambda p, o: [])
    >>> fmt.rate(Path("a.log"), b""), fmt.recognises(Path("a.log"), b"")
    (1.0, True)
    """

    name: str
    description: str
    score: Callable[[Path, bytes], float]
    load: Callable[[Path, ImportOptions], list[Conversation]]
    unread_keys: frozenset[str] = frozenset()
    ui_records: Callable[[Path, Any], str | None] | None = None

    def rate(self, path: Path, head: bytes) -> float:
        """This format's score for ``path``, within 0..1; an importer that raises scores 0."""
        try:
            return max(0.0, min(1.0, float(self.score(path, head))))
        except Exception:  # one importer's guess about a hostile head must
            return 0.0  # never stop detection (it scores 0; its own load reports the file)

    def recognises(self, path: Path, head: bytes) -> bool:
        """Does this format claim ``path`` (a score of :data:`SURE` or more)?"""
        return self.rate(path, head) >= SURE


def _format_of(obj: object) -> Format | None:
    """The Format an entry point names: the object itself, or a module's ``FORMAT``."""
    if isinstance(obj, Format):
        return obj
    found = getattr(obj, "FORMAT", None)
    return found if isinstance(found, Format) else None


def _warn(line: str) -> None:
    print(f"snapshot: warning: {line}", file=sys.stderr)


def plugin_formats(
    taken: Iterable[str] = (), report: Callable[[str], None] = _warn
) -> list[Format]:
    """The formats installed packages declare in :data:`ENTRY_POINT_GROUP`, in name order.

    Parameters
    ----------
    taken
        Format names already in use (the built-ins): a plugin reusing one is left out.
    report
        Called with one line per plugin left out (default: a warning on standard error).

    Returns
    -------
    list of Format
        One per working plugin (see the module docstring for a worked example).

    Examples
    --------
    >>> lines = []
    >>> all(isinstance(f, Format) for f in plugin_formats(format_names(), lines.append))
    True
    """
    used = set(taken)
    out: list[Format] = []
    points: list[EntryPoint] = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name)
    for point in points:
        what = f"format plugin {point.name!r} ({point.value})"
        try:
            obj = point.load()
        except Exception as exc:  # a third party's import error must not stop snapshot
            report(f"{what} cannot be loaded: {type(exc).__name__}: {exc}; left out")
            continue
        fmt = _format_of(obj)
        if fmt is None:
            report(
                f"{what} names a {type(obj).__name__}, not a snapshot.transcript.formats.Format "
                "(or a module exposing FORMAT); left out"
            )
        elif fmt.name in used:
            report(f"{what} uses the format name {fmt.name!r}, already taken; left out")
        else:
            used.add(fmt.name)
            out.append(replace(fmt, load=_reported(what, fmt.load)))
    return out


def _reported(
    what: str, load: Callable[[Path, ImportOptions], list[Conversation]]
) -> Callable[[Path, ImportOptions], list[Conversation]]:
    """A plugin's ``load`` whose unexpected errors become one :class:`TranscriptError` line."""

    def guarded(path: Path, options: ImportOptions) -> list[Conversation]:
        try:
            return load(path, options)
        except TranscriptError:
            raise
        except Exception as exc:  # a third party's bug: name it instead of a traceback
            raise TranscriptError(f"{path}: {what} failed: {type(exc).__name__}: {exc}") from exc

    return guarded


@functools.cache
def _registry() -> tuple[Format, ...]:
    """Built-in formats, then plugins; imported once, on first use."""
    builtin = [importlib.import_module(name).FORMAT for name in FORMAT_MODULES]
    return (*builtin, *plugin_formats(f.name for f in builtin))


def formats() -> list[Format]:
    """Every format, built-in ones first (their order breaks ties in detection).

    >>> formats()[0].name
    'claude-code-jsonl'
    """
    return list(_registry())


def format_names() -> list[str]:
    """The names ``--format`` takes.

    >>> "pi" in format_names()
    True
    """
    return [f.name for f in _registry()]


def get_format(name: str) -> Format:
    """The format called ``name``; an unknown name is a :class:`TranscriptError` listing the known.

    >>> get_format("pi").name
    'pi'
    """
    for f in _registry():
        if f.name == name:
            return f
    raise TranscriptError(f"unknown format {name!r}; known formats: {', '.join(format_names())}")
