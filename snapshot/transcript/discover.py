"""Finding transcripts on disk: files, folders, globs, and the places agents write them.

:func:`find` turns what a user names (files, folders walked recursively,
glob patterns) into :class:`Found` units: each importable file or folder log
with the format detection picked, or the reason it is skipped. A folder a
format reads as one log (an OpenHands V1 conversation, a Cline task) is one
unit and is not looked into. Subagent files are tied to their session
(:attr:`Found.session`). The walk never opens anything but regular files:
FIFOs, sockets and devices are skipped with their kind, a symlink that loops
or points nowhere is skipped with that reason, so nothing can hang it.

:func:`usual_places` lists where the supported agents write their sessions
on this machine (the ones that exist).

>>> from pathlib import Path
>>> [f.reason for f in find([Path("/no/such/place")])]
['no such file or folder']
"""

from __future__ import annotations

import glob
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from snapshot.errors import TranscriptError
from snapshot.progress import progress
from snapshot.transcript.files import is_inside
from snapshot.transcript.formats import (
    SNIFF_BYTES,
    SURE,
    Format,
    choose,
    emptiness,
    rank,
    read_head,
)

# The reason given for a file no format recognises at all.
NOT_A_TRANSCRIPT = "not a transcript format snapshot reads"

# Folders that never hold transcripts and can be huge.
_PRUNED = {".git", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache"}


@dataclass(frozen=True)
class Found:
    """One thing the walk met: an importable unit (``format`` set) or a skipped path."""

    path: Path
    format: str | None = None
    reason: str | None = None  # why it is skipped, when it is
    session: Path | None = None  # the session file a subagent belongs to

    @property
    def importable(self) -> bool:
        return self.format is not None


@dataclass(frozen=True)
class Place:
    """Where an agent writes its sessions: ``pattern`` is a glob under the home folder."""

    agent: str
    pattern: str


# The table of issue 9, second column: where each tool writes its files.
PLACES: tuple[Place, ...] = (
    Place("Claude Code", "~/.claude/projects"),
    Place("Codex CLI", "~/.codex/sessions"),
    Place("Gemini CLI", "~/.gemini/tmp/*/chats"),
    # VS Code and its forks (Code - Insiders, VSCodium, Cursor) keep globalStorage per app.
    Place("Cline", "~/.config/*/User/globalStorage/saoudrizwan.claude-dev/tasks"),
    Place("Roo Code", "~/.config/*/User/globalStorage/rooveterinaryinc.roo-cline/tasks"),
    Place(
        "Cline (macOS)",
        "~/Library/Application Support/*/User/globalStorage/saoudrizwan.claude-dev/tasks",
    ),
    Place(
        "Roo Code (macOS)",
        "~/Library/Application Support/*/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
    ),
    Place("OpenHands", "~/.openhands/conversations"),
    Place("pi", "~/.pi/agent/sessions"),
    Place("Kimi CLI", "~/.kimi/sessions"),
    Place("Continue", "~/.continue/sessions"),
    Place("SpecStory", "./.specstory/history"),
    Place("Aider", "./.aider.chat.history.md"),
    Place("opencode (Go)", "./.opencode/opencode.db"),
    Place("Crush", "./.crush/crush.db"),
)


def usual_places(home: Path | None = None, cwd: Path | None = None) -> list[tuple[Place, Path]]:
    """The :data:`PLACES` that exist here, each with the path it resolved to.

    Parameters
    ----------
    home
        What ``~`` means (default: the user's home folder).
        ``$OPENHANDS_CONVERSATIONS_DIR`` and ``$CODEX_HOME`` are honoured.
    cwd
        What ``./`` means (default: the current folder).

    Returns
    -------
    list of (Place, Path)
        Only places that exist, in the order of :data:`PLACES`.

    Examples
    --------
    >>> import tempfile
    >>> home = Path(tempfile.mkdtemp())
    >>> (home / ".pi" / "agent" / "sessions").mkdir(parents=True)
    >>> [p.agent for p, _ in usual_places(home, home)]
    ['pi']
    """
    home = home or Path.home()
    cwd = cwd or Path.cwd()
    out: list[tuple[Place, Path]] = []
    for place in PLACES:
        pattern = place.pattern
        base, rest = Path("/"), pattern
        if place.agent == "OpenHands" and os.environ.get("OPENHANDS_CONVERSATIONS_DIR"):
            base, rest = Path(os.environ["OPENHANDS_CONVERSATIONS_DIR"]), ""
        elif place.agent == "Codex CLI" and os.environ.get("CODEX_HOME"):
            base, rest = Path(os.environ["CODEX_HOME"]), "sessions"
        elif pattern.startswith("~/"):
            base, rest = home, pattern[2:]
        elif pattern.startswith("./"):
            base, rest = cwd, pattern[2:]
        # The folder part is literal (a home may hold "[" or "*"); only the table's part globs.
        full = glob.escape(str(base)) + ("/" + rest if rest else "")
        for match in sorted(glob.glob(full)):
            out.append((place, Path(match)))
    return out


def _is_glob(text: str) -> bool:
    return any(c in text for c in "*?[")


def _special_kind(mode: int) -> str | None:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        return "not a regular file"
    return None


_KIMI_SUBAGENT = re.compile(r"^(?P<parent>.+?)_[A-Za-z]+_\d+\.jsonl$")


def session_of(path: Path) -> Path | None:
    """The session file a subagent's file belongs to, when the layout says so.

    Claude Code: ``<session>/subagents/agent-<id>.jsonl`` → ``<session>.jsonl``;
    Kimi CLI: ``<id>_<name>_<n>.jsonl`` → ``<id>.jsonl`` beside it.
    """
    if path.parent.name == "subagents":
        candidate = path.parent.parent.with_suffix(".jsonl")
        if candidate.is_file():
            return candidate
    m = _KIMI_SUBAGENT.match(path.name)
    if m:
        candidate = path.with_name(m.group("parent") + ".jsonl")
        if candidate.is_file():
            return candidate
    return None


def _classify(path: Path, is_dir: bool) -> Found | None:
    """A unit for ``path`` when a format is sure of it; a reason when it is a file that none reads."""
    try:
        head = b"" if is_dir else read_head(path)
        ranked = rank(path, head)
    except TranscriptError as exc:
        return None if is_dir else Found(path, reason=str(exc))
    empty = emptiness(path, head)
    if empty:
        return Found(path, reason=f"{NOT_A_TRANSCRIPT} ({empty})")
    if is_dir:
        if ranked and ranked[0][1] >= SURE:
            try:
                return Found(path, format=choose(path, ranked).name)
            except TranscriptError:
                return None
        return None
    try:
        fmt = choose(path, ranked)
    except TranscriptError as exc:
        reason = str(exc).removeprefix(f"{path}: ")
        if not ranked:
            # A format snapshot knows but does not read says which (Qwen Code).
            known = "" if reason.startswith("not a format snapshot") else f" ({reason})"
            reason = NOT_A_TRANSCRIPT + known
        return Found(path, reason=reason)
    return Found(path, format=fmt.name, session=session_of(path))


# A folder import reads what the folder holds: a symlink leading out of it
# (to a session elsewhere, or to ~/.ssh) is listed as skipped, never followed.
OUTSIDE = "a symlink to outside the folder given; not read"


def _stays_inside(path: Path, root: Path) -> bool:
    try:
        return is_inside(path.resolve(), [root.resolve()])
    except (OSError, RuntimeError, ValueError):
        return False


def _walk(root: Path, on_path: Callable[[Path], None] | None) -> Iterator[Found]:
    """Every unit and skipped path under folder ``root``; symlinked folders are followed once."""
    seen: set[tuple[int, int]] = set()
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            st = folder.stat()
        except OSError as exc:
            yield Found(folder, reason=f"cannot be read: {exc.strerror or exc}")
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen:
            yield Found(folder, reason="a symlink loop (this folder was already walked)")
            continue
        seen.add(key)
        if folder != root:
            unit = _classify(folder, True)
            if unit is not None:
                yield unit
                continue
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            yield Found(folder, reason=f"cannot be listed: {exc.strerror or exc}")
            continue
        subfolders: list[Path] = []
        for entry in entries:
            path = Path(entry.path)
            if on_path is not None:
                on_path(path)
            try:
                mode = os.stat(path).st_mode  # follows symlinks
            except OSError as exc:
                why = "a broken symlink" if entry.is_symlink() else f"cannot be read: {exc}"
                if getattr(exc, "errno", None) == 40:  # ELOOP
                    why = "a symlink loop"
                yield Found(path, reason=why)
                continue
            special = _special_kind(mode)
            if entry.is_symlink() and not _stays_inside(path, root):
                yield Found(path, reason=OUTSIDE)
            elif special is not None:
                yield Found(path, reason=f"{special}; not read")
            elif stat.S_ISDIR(mode):
                if entry.name not in _PRUNED:
                    subfolders.append(path)
            else:
                unit = _classify(path, False)
                if unit is not None:
                    yield unit
        stack.extend(reversed(subfolders))


def find(
    targets: Sequence[str | Path], *, on_path: Callable[[Path], None] | None = None
) -> list[Found]:
    """Every unit (and every skipped path, with its reason) in ``targets``.

    Parameters
    ----------
    targets
        Files, folders (walked recursively; a folder a format reads as one log
        is one unit, not looked into) and glob patterns.
    on_path
        Called with each path the walk looks at.

    Returns
    -------
    list of Found
        Each path once: importable units with their format (subagents with
        their ``session``), and skipped paths with their ``reason``. Never
        raises for what it meets on disk.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "notes.txt").write_text("hello")
    >>> [(f.path.name, f.reason) for f in find([folder])]
    [('notes.txt', 'not a transcript format snapshot reads')]
    """
    out: list[Found] = []
    seen: set[Path] = set()

    def keep(items: Iterable[Found]) -> None:
        for f in items:
            if f.path not in seen:
                seen.add(f.path)
                out.append(f)

    for target in targets:
        text = str(target)
        paths = (
            [Path(p) for p in sorted(glob.glob(text, recursive=True))]
            if _is_glob(text)
            else [Path(text)]
        )
        if not paths:
            keep([Found(Path(text), reason="the pattern matches nothing")])
        for path in paths:
            keep(progress(_one(path, on_path), desc=f"looking in {path}", unit="path"))
    return out


def _one(path: Path, on_path: Callable[[Path], None] | None) -> Iterator[Found]:
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        yield Found(path, reason="no such file or folder")
        return
    except OSError as exc:
        yield Found(path, reason=f"cannot be read: {exc.strerror or exc}")
        return
    special = _special_kind(mode)
    if special is not None:
        yield Found(path, reason=f"{special}; not read")
    elif stat.S_ISDIR(mode):
        unit = _classify(path, True)
        if unit is not None:
            yield unit
        else:
            yield from _walk(path, on_path)
    else:
        unit = _classify(path, False)
        if unit is not None:
            yield unit


def walk_as_format(
    root: Path, fmt: Format, skipped: list[tuple[Path, str]] | None = None
) -> tuple[list[Path], list[str]]:
    """Every file or folder log under ``root`` that ``fmt`` recognises (``--format`` forced).

    Unlike :func:`find`, no scoring across formats: ``fmt.recognises`` alone
    decides. Hidden files and folders are skipped; a folder ``fmt`` reads as
    one log is one unit and is not looked into; walk order is sorted.

    Parameters
    ----------
    root : Path
        The folder to walk.
    fmt : Format
        The forced format.
    skipped : list, optional
        Filled with ``(path, reason)`` for each file ``fmt`` does not recognise
        and each hidden file or folder left out.

    Returns
    -------
    units : list of Path
        The files and folder logs ``fmt`` recognises.
    failures : list of str
        One line per file that could not be read (``PATH: cannot be read: ...``).

    Examples
    --------
    >>> import tempfile
    >>> from snapshot.transcript.formats import get_format
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "notes.txt").write_text("hello")
    >>> walk_as_format(folder, get_format("claude-code-jsonl"))
    ([], [])
    """
    units: list[Path] = []
    failures: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        if skipped is not None:
            skipped.extend(
                (here / d, "a hidden folder; not walked")
                for d in sorted(dirnames)
                if d.startswith(".")
            )
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        kept_dirs = []
        for d in dirnames:
            if (here / d).is_symlink() and not _stays_inside(here / d, root):
                failures.append(f"{here / d}: {OUTSIDE}")
            elif fmt.recognises(here / d, b""):
                units.append(here / d)  # a folder log: do not look inside
            else:
                kept_dirs.append(d)
        dirnames[:] = kept_dirs
        for name in sorted(filenames):
            if name.startswith("."):
                if skipped is not None:
                    skipped.append((here / name, "a hidden file; not read"))
                continue
            file = here / name
            if file.is_symlink() and not _stays_inside(file, root):
                failures.append(f"{file}: {OUTSIDE}")
                continue
            try:
                special = _special_kind(file.stat().st_mode)
            except OSError:
                special = None  # the open below says why it cannot be read
            if special is not None:
                # Opening a FIFO blocks until a writer comes: never opened, as find() does.
                if skipped is not None:
                    skipped.append((file, f"{special}; not read"))
                continue
            try:
                with file.open("rb") as fh:
                    head = fh.read(SNIFF_BYTES)
            except OSError as exc:
                failures.append(f"{file}: cannot be read: {exc}")
                continue
            if fmt.recognises(file, head):
                units.append(file)
            elif skipped is not None:
                skipped.append((file, f"--format {fmt.name} does not recognise it"))
    return units, failures
