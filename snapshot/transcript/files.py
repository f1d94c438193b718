"""Reading input files that anyone could have made: regular files only, never a hang.

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

import os
import stat
from pathlib import Path

from snapshot.errors import TranscriptError


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
