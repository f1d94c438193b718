"""Reading input files that anyone could have made: regular files only, never a hang.

A transcript also names other files (a run's ``prompt.txt``, a session's
``.meta.json``, a folder's event files, its images): those are read only
through :func:`read_inside` / :func:`open_inside` / :func:`check_inside`,
which resolve the path and refuse (:class:`RefusedFileError`) anything outside
the transcript's own folder (or the store's), anything but a regular file and
anything over a size limit. An archive keeps symlinks, so a ``prompt.txt``
pointing at ``~/.ssh/id_rsa`` must not become the first user turn.

A FIFO blocks ``open`` until a writer appears, ``/dev/zero`` never ends and a
socket cannot be read at all; a transcript, store file or image named by a
transcript is none of those. These functions refuse anything but a regular
file (after following symlinks) with an error naming the file and its kind,
and open with ``O_NONBLOCK`` so the check itself cannot hang on a FIFO.

>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> p = os.path.join(d, "a.txt")
>>> _ = open(p, "w").write("hi")
>>> read_regular_file(p)
b'hi'
>>> try:
...     require_regular_file(d)
... except TranscriptError as exc:
...     print(str(exc).removeprefix(d))
 is a folder, not a file; give a regular file
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from snapshot.errors import TranscriptError

# A file a transcript names beside it (prompt, metadata, one event) is small;
# the transcript itself is streamed and has no such limit.
MAX_SIBLING_BYTES = 64 * 1024 * 1024


class RefusedFileError(TranscriptError):
    """A file named by a transcript (or listed in its folder) that is not read.

    Outside the trusted folders, not a regular file, or over the size limit.
    Importers turn it into a warning naming the file and skip it; the
    message names the path as the transcript gave it, never the target of a
    symlink (which may be private).
    """

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(f"{path}: {reason}; not read")
        self.path = str(path)
        self.reason = reason


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _refusal(path: str | os.PathLike[str], mode: int) -> TranscriptError:
    return TranscriptError(f"{path} is {_kind(mode)}, not a file; give a regular file")


def require_regular_file(path: str | os.PathLike[str]) -> os.stat_result:
    """The file's ``stat`` (symlinks followed); raises unless it is a regular file.

    Parameters
    ----------
    path : path
        The file about to be read.

    Returns
    -------
    os.stat_result

    Raises
    ------
    TranscriptError
        Missing, unreadable, or a folder, FIFO, socket or device.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise TranscriptError(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        raise TranscriptError(f"{path}: cannot be read: {getattr(exc, 'strerror', exc)}") from exc
    if not stat.S_ISREG(st.st_mode):
        raise _refusal(path, st.st_mode)
    return st


def read_regular_file(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of a regular file, at most ``limit`` of them.

    Parameters
    ----------
    path : path
        The file to read.
    limit : int, optional
        Refuse a file larger than this many bytes (``None``: no limit).

    Returns
    -------
    bytes

    Raises
    ------
    TranscriptError
        Not a regular file, unreadable, or over ``limit``.
    FileNotFoundError
        When the file does not exist (callers often treat that case apart).
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise _refusal(path, st.st_mode)
    with os.fdopen(fd, "rb") as fh:
        if limit is not None and st.st_size > limit:
            raise TranscriptError(
                f"{path}: {st.st_size:,} bytes is more than the {limit:,}-byte limit"
            )
        try:
            data = fh.read() if limit is None else fh.read(limit + 1)
        except OSError as exc:
            raise TranscriptError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    if limit is not None and len(data) > limit:
        raise TranscriptError(f"{path}: more than the {limit:,}-byte limit")
    return data


def is_regular_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a regular file (symlinks followed); never raises, never blocks."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def is_inside(path: Path, roots: list[Path]) -> bool:
    """Whether ``path`` (already resolved) lies inside one of the resolved ``roots``."""
    return any(path == r or r in path.parents for r in roots)


def trusted_roots(roots: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """``roots`` resolved; the file system root and the home folder are dropped.

    A recorded source of ``/`` or ``~`` would otherwise trust everything.

    >>> [str(p) for p in trusted_roots(["/", "/tmp/../tmp"])]
    ['/tmp']
    """
    out = []
    for r in roots:
        try:
            p = Path(r).resolve()
        except (OSError, RuntimeError, ValueError):
            continue
        if p == Path(p.anchor) or p == Path.home().resolve():
            continue
        out.append(p)
    return out


def _as_roots(roots: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[Path]:
    # The caller names the folder (the one given, or the transcript's own); a
    # path a record chooses is checked against trusted_roots instead.
    if isinstance(roots, (str, os.PathLike)):
        roots = [roots]
    out = []
    for r in roots:
        with contextlib.suppress(OSError, RuntimeError, ValueError):
            out.append(Path(r).resolve())
    return out


def check_inside(
    path: str | os.PathLike[str],
    roots: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    limit: int | None = MAX_SIBLING_BYTES,
) -> Path:
    """``path`` resolved, once checked to be a regular file inside one of ``roots``.

    The one gate for a file a transcript names or its folder lists; read it
    with :func:`read_inside` or :func:`open_inside`, which call this.

    Parameters
    ----------
    path : path
        As the transcript (or the folder listing) gives it; symlinks allowed
        as long as they end inside ``roots``.
    roots : path or iterable of paths
        The transcript's own folder (and the store's); for a path a record
        chooses (an image), pass :func:`trusted_roots`, which never trusts
        ``/`` or the home folder whole.
    limit : int, optional
        Refuse a file larger than this many bytes (``None``: no limit, for a
        file that is streamed).

    Returns
    -------
    Path
        The resolved path (no symlink left in it).

    Raises
    ------
    FileNotFoundError
        Nothing there (callers usually treat a missing sibling apart).
    RefusedFileError
        Outside ``roots``, not a regular file, over ``limit`` or unreadable.

    Examples
    --------
    >>> import tempfile, os
    >>> run = tempfile.mkdtemp(); elsewhere = tempfile.mkdtemp()
    >>> _ = open(os.path.join(elsewhere, "id_rsa"), "w").write("SECRET")
    >>> os.symlink(os.path.join(elsewhere, "id_rsa"), os.path.join(run, "prompt.txt"))
    >>> try:
    ...     read_inside(os.path.join(run, "prompt.txt"), run)
    ... except RefusedFileError as exc:
    ...     print(exc.reason)
    outside the transcript's folder (a symlink out)
    >>> _ = open(os.path.join(run, "notes.txt"), "w").write("hi")
    >>> read_inside(os.path.join(run, "notes.txt"), run)
    b'hi'
    """
    try:
        real = Path(path).resolve()
    except (OSError, RuntimeError, ValueError) as exc:
        raise RefusedFileError(path, f"cannot be resolved ({exc})") from exc
    if not is_inside(real, _as_roots(roots)):
        link = os.path.islink(path) or real != Path(os.path.abspath(path))
        why = " (a symlink out)" if link else ""
        raise RefusedFileError(path, f"outside the transcript's folder{why}")
    try:
        st = os.stat(real)
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:
        raise RefusedFileError(path, f"cannot be read ({getattr(exc, 'strerror', exc)})") from exc
    if not stat.S_ISREG(st.st_mode):
        raise RefusedFileError(path, f"{_kind(st.st_mode)}, not a regular file")
    if limit is not None and st.st_size > limit:
        raise RefusedFileError(path, f"{st.st_size:,} bytes, over the {limit:,}-byte limit")
    return real


def open_inside(
    path: str | os.PathLike[str],
    roots: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    limit: int | None = None,
) -> BinaryIO:
    """A binary file handle on ``path`` once :func:`check_inside` passes it (for streaming).

    Opened without following a symlink swapped in after the check, and
    without blocking.

    Raises
    ------
    FileNotFoundError, RefusedFileError
        As :func:`check_inside`.
    """
    real = check_inside(path, roots, limit)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(real, flags | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise RefusedFileError(path, f"cannot be read ({exc.strerror or exc})") from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise RefusedFileError(path, "not a regular file")
    return os.fdopen(fd, "rb")


def read_inside(
    path: str | os.PathLike[str],
    roots: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    limit: int = MAX_SIBLING_BYTES,
) -> bytes:
    """The bytes of ``path`` once :func:`check_inside` passes it, at most ``limit``.

    Raises
    ------
    FileNotFoundError, RefusedFileError
        As :func:`check_inside` (a file that grows past ``limit`` while read too).
    """
    with open_inside(path, roots, limit) as fh:
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise RefusedFileError(path, f"cannot be read ({exc.strerror or exc})") from exc
    if len(data) > limit:
        raise RefusedFileError(path, f"over the {limit:,}-byte limit")
    return data


def bounded_lines(fh: BinaryIO, limit: int) -> Iterator[tuple[bytes | None, int]]:
    """``(line, length)`` for each line of ``fh``; ``None`` for a line over ``limit`` bytes.

    A line over the limit is read past a piece at a time and never held
    whole, so memory is bounded by ``limit``, not by the longest line.

    >>> import io
    >>> [(line, n) for line, n in bounded_lines(io.BytesIO(b"ab\\n" + b"x" * 9 + b"\\ncd"), 4)]
    [(b'ab\\n', 3), (None, 10), (b'cd', 2)]
    """
    while True:
        raw = fh.readline(limit + 1)
        if not raw:
            return
        if len(raw) > limit and not raw.endswith(b"\n"):
            length = len(raw)
            while raw and not raw.endswith(b"\n"):
                raw = fh.readline(limit)
                length += len(raw)
            yield None, length
            continue
        yield raw, len(raw)
