"""Pages to files: ``OUT/page-001.png, ...`` written as they are drawn, all or none.

Each page is written under a temporary name in the same folder and renamed
into place, so no reader ever sees a partial page (a full disk leaves no
0-byte page). Pages left in ``OUT`` by an earlier run (names ``page-NNN.png``
only; nothing else is touched) are removed first, so the folder holds one
rendering. After an error, the pages this run wrote are removed as well and
the error says so.

>>> import tempfile
>>> from snapshot.rendering.glyphs import load_font
>>> from snapshot.rendering.geometry import Geometry
>>> from snapshot.rendering.page import iter_pages
>>> out = Path(tempfile.mkdtemp())
>>> [f.path.name for f in write_pages(iter_pages("hi", Geometry(load_font("misc-5x8"), 10, 3)), out)]
['page-001.png']
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from snapshot.errors import InputError
from snapshot.rendering.decode import MAX_PIXELS
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.page import Page

__all__ = [
    "PAGE_NAME",
    "WrittenPage",
    "check_page_size",
    "check_readable",
    "page_name",
    "write_pages",
]

#: Threads writing page files, and the most pages handed to them and not yet written.
WRITERS = 2
WRITES_AHEAD = 8
#: The names :func:`write_pages` owns in its folder (and removes when stale).
PAGE_NAME = re.compile(r"page-\d{3,}\.png")
_PARTIAL = re.compile(r"\.page-\d{3,}\.png\.partial")


@dataclass(frozen=True)
class WrittenPage:
    """One page file: where, which page, how many characters and bytes."""

    path: Path
    number: int
    chars: int
    bytes: int


def page_name(number: int) -> str:
    """``page-001.png`` for page 1.

    >>> page_name(7), page_name(1234)
    ('page-007.png', 'page-1234.png')
    """
    return f"page-{number:03d}.png"


def check_page_size(geometry: Geometry) -> None:
    """Refuse a page larger than ``snapshot read`` accepts, before anything is drawn.

    >>> from snapshot.rendering.glyphs import load_font
    >>> check_page_size(Geometry(load_font("misc-5x8"), cols=10_000, rows=10_000))
    Traceback (most recent call last):
    ...
    snapshot.errors.InputError: a 50004x80004 page is 4,000,520,016 px, over the 64,000,000 px a page may have (what snapshot read accepts); use fewer --rows/--cols
    """
    w, h = geometry.size
    if w * h > MAX_PIXELS:
        raise InputError(
            f"a {w}x{h} page is {w * h:,} px, over the {MAX_PIXELS:,} px a page may have "
            "(what snapshot read accepts); use fewer --rows/--cols"
        )


def check_readable(page: Page) -> None:
    """Refuse a page ``snapshot read`` could not read back: too large, or at least
    half ink (the decoder takes the majority of pixels for paper)."""
    check_page_size(page.geometry)
    ink = page.ink
    if ink >= 0.5:
        raise InputError(
            f"page {page.number} would be {ink:.0%} ink (text made of block or reverse-video "
            "glyphs, such as control characters); a reader takes the majority for paper, "
            "so it is not drawn: strip those characters first"
        )


def _remove_stale(out: Path) -> None:
    for entry in os.scandir(out):
        if PAGE_NAME.fullmatch(entry.name) or _PARTIAL.fullmatch(entry.name):
            if entry.is_dir(follow_symlinks=False):
                raise InputError(
                    f"{out}: {entry.name} is a directory; remove it or use another --out"
                )
            os.unlink(entry.path)


def prepare_out(out: str | Path) -> Path:
    """Create the output folder and remove its stale ``page-NNN.png`` files; one clear
    :class:`InputError` when that fails.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()) / "pages"
    >>> prepare_out(d).is_dir()
    True
    """
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        _remove_stale(out)
    except OSError as exc:
        raise InputError(f"cannot use output directory {out}: {exc.strerror or exc}") from exc
    return out


def write_pages(pages: Iterable[Page], out: Path) -> list[WrittenPage]:
    """Write each page as soon as it is drawn; return what was written, in page order.

    Files are written on :data:`WRITERS` threads while the next pages are drawn
    (a write and a rename wait on the disk, not on the CPU, and release the
    GIL), at most :data:`WRITES_AHEAD` pages at once, so memory stays bounded.

    Raises
    ------
    InputError
        ``out`` cannot be created or written, or a page would be unreadable
        (:func:`check_readable`); pages written by this call are removed first.
    """
    out = prepare_out(out)
    written: list[WrittenPage] = []
    pending: deque[Future[WrittenPage]] = deque()
    pool = ThreadPoolExecutor(WRITERS, thread_name_prefix="snapshot-writer")
    try:
        for page in pages:
            check_readable(page)
            # the bytes only: the page's grid and pixels are freed before it is written
            pending.append(pool.submit(_write_page, out, page.number, page.png(), len(page.text)))
            while len(pending) > WRITES_AHEAD or (pending and pending[0].done()):
                written.append(pending.popleft().result())
        while pending:
            written.append(pending.popleft().result())
    except BaseException as exc:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True)  # no write still running while the pages are removed
        for future in pending:
            if not future.cancelled() and future.exception() is None:
                written.append(future.result())
        removed = _clean_up(out, written)
        if isinstance(exc, InputError) and removed:
            raise InputError(f"{exc}; removed the {removed} page(s) this run wrote") from exc
        raise
    pool.shutdown(wait=True)
    return written


def _write_page(out: Path, number: int, data: bytes, chars: int) -> WrittenPage:
    """One page under a temporary name, renamed into place (no partial file is left)."""
    path = out / page_name(number)
    partial = out / f".{path.name}.partial"
    try:
        with open(partial, "wb") as f:
            f.write(data)
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return WrittenPage(path, number, chars, len(data))


def _clean_up(out: Path, written: list[WrittenPage]) -> int:
    """Remove the pages this run wrote and any partial file it left; how many pages."""
    for entry in os.scandir(out):
        if _PARTIAL.fullmatch(entry.name):
            Path(entry.path).unlink(missing_ok=True)
    removed = 0
    for page in written:
        try:
            page.path.unlink()
            removed += 1
        except OSError:
            pass
    return removed
