"""Writes that survive a crash: whole-file replacement and fsynced appends.

Two ways to change a file durably, and nothing else in the package writes the
store:

- :func:`atomic_write` replaces a file whole: a temporary file in the same
  folder, flushed and fsynced, renamed over the old one (rename is atomic in
  one file system), and the folder fsynced so the rename itself lasts. A crash
  at any instant leaves the old file or the new one, never a mix.
- :func:`append_durably` adds bytes at the end of a file in one ``write`` and
  fsyncs it before returning, after cutting off whatever lies past ``end`` (the
  torn tail of a writer that crashed). A crash leaves the file as it was, or
  with part of the new bytes after it, which the reader of the file skips.

>>> import tempfile
>>> from pathlib import Path
>>> path = Path(tempfile.mkdtemp()) / "log"
>>> atomic_write(path, [b"one\\n", b"two"])
>>> append_durably(path, b"three\\n", end=4)
10
>>> path.read_bytes()
b'one\\nthree\\n'
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from snapshot.errors import TranscriptError

__all__ = ["append_durably", "atomic_write", "make_dirs_durably"]


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms that cannot open directories
        return
    try:
        os.fsync(fd)
    except OSError as exc:  # pragma: no cover - some file systems refuse; the rename is done
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _file_mode() -> int:
    # mkstemp creates 0600 files; stored transcripts get the usual 0666 & ~umask.
    # Reading the umask means setting it, so do it once, at import.
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


FILE_MODE = _file_mode()


def make_dirs_durably(directory: Path) -> None:
    """``mkdir -p`` that fsyncs each new directory's parent, so the new entries survive a power cut."""
    missing: list[Path] = []
    d = directory
    while not d.exists():
        missing.append(d)
        if d.parent == d:
            break
        d = d.parent
    for new in reversed(missing):
        try:
            new.mkdir()
        except FileExistsError:
            continue
        except OSError as exc:
            raise TranscriptError(
                f"cannot create the workspace folder {new}: {exc.strerror or exc}; "
                "pick a workspace you can write to"
            ) from exc
        _fsync_dir(new.parent)
    if not directory.is_dir():
        raise TranscriptError(f"{directory} exists but is not a directory; pick another workspace")


def atomic_write(path: Path, data: bytes | Iterable[bytes]) -> None:
    """Replace ``path`` with ``data`` so that a crash leaves the old or the new file, never a mix.

    ``data`` is the bytes, or pieces of them written one after another.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), FILE_MODE)
            for piece in [data] if isinstance(data, bytes) else data:
                fh.write(piece)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def append_durably(path: Path, data: bytes, *, end: int) -> int:
    """Write ``data`` at offset ``end`` of the existing file ``path``, fsynced; the new size.

    Bytes past ``end`` (a torn write nobody acknowledged) are cut off first.
    One ``write`` call (repeated only for what a short write left), then
    ``fdatasync``: when this returns the bytes are on disk.
    """
    fd = os.open(path, os.O_WRONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0))
    try:
        if os.fstat(fd).st_size != end:
            os.ftruncate(fd, end)
        view = memoryview(data)
        at = end
        while view:
            n = os.pwrite(fd, view, at)
            view, at = view[n:], at + n
        getattr(os, "fdatasync", os.fsync)(fd)
    finally:
        os.close(fd)
    return at
