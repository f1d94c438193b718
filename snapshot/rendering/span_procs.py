"""A text file's pages drawn, encoded and written by worker processes: ``snapshot render``
on every core.

Threads drawing pages share one GIL, and a page's Python steps (its header,
the layout's slicing, the PNG's chunks) hold it: two threads reached about 1.4
cores. Here each worker is a forked process (:func:`snapshot.rendering.parallel.process_pool`)
that inherits the :class:`~snapshot.rendering.spans.SpanPlan` (the first pass, made by
the parent) and is handed ranges of page numbers: it reads and lays out the
spans holding them, draws, encodes and writes each page file itself, and sends
back only what it wrote. Pages are the same bytes as
:class:`snapshot.rendering.page.PageStream` draws (the same layout, drawing and deflate,
one page per call), so the files do not depend on the worker count.

The folder is handled as :func:`snapshot.rendering.pagefiles.write_pages` does: stale
pages removed first, each page renamed into place, and after an error (a
worker's, a worker killed, Ctrl-C) every page of this run removed.

>>> import tempfile
>>> from snapshot.rendering.glyphs import load_font
>>> from snapshot.rendering.spans import plan_spans
>>> from snapshot.rendering.text import TextReader
>>> src = Path(tempfile.mkdtemp()) / "in.txt"
>>> _ = src.write_text("hello world\\n" * 40, encoding="utf-8")
>>> plan = plan_spans(TextReader(src), Geometry(load_font("misc-5x8"), cols=20, rows=6))
>>> [(w.path.name, w.chars) for w in write_plan_pages(plan, src.parent / "pages", workers=2)][-2:]
[('page-004.png', 100), ('page-005.png', 80)]
"""

from __future__ import annotations

from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from snapshot.errors import InputError, SnapshotError
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.page import Page, _header_grid
from snapshot.rendering.pagefiles import (
    WrittenPage,
    _clean_up,
    _write_page,
    check_readable,
    page_name,
    prepare_out,
)
from snapshot.rendering.parallel import ordered_map, process_pool
from snapshot.rendering.spans import SpanPlan
from snapshot.rendering.text import PageCells

__all__ = ["JOB_CHARS", "page_ranges", "write_plan_pages"]

#: About this many characters of pages a job: a couple of spans, so a job lays
#: out little more than its own text and the last job's wait is short.
JOB_CHARS = 2 << 20

# the worker's inherited state: the plan and the output folder (set by _start)
_WORK: list[tuple[SpanPlan, Path]] = []


def page_ranges(pages: int, per_page: int, workers: int) -> list[tuple[int, int]]:
    """Jobs ``(first, count)`` (0-based pages) covering ``pages``: about
    :data:`JOB_CHARS` characters each, and at least four jobs a worker when the
    text allows, so both cores stay busy to the end.

    >>> page_ranges(10, 1000, 2)
    [(0, 2), (2, 2), (4, 2), (6, 2), (8, 2)]
    >>> page_ranges(0, 1000, 2)
    []
    """
    each = max(1, min(-(-JOB_CHARS // per_page), -(-pages // (4 * workers))))
    return [(first, min(each, pages - first)) for first in range(0, pages, each)]


def _start(plan: SpanPlan, out: Path) -> None:
    _WORK.append((plan, out))


def _draw_pages(job: tuple[int, int]) -> list[WrittenPage]:
    """In a worker: its job, with the plan and folder it inherited."""
    return _draw_range(*_WORK[-1], job)


def _draw_range(plan: SpanPlan, out: Path, job: tuple[int, int]) -> list[WrittenPage]:
    """Pages ``first .. first + count - 1`` drawn, checked and written."""
    first, count = job
    g = plan.geometry
    written = []
    for number, cells in enumerate(plan.cells(first, count, workers=1), start=first + 1):
        page = _page(g, cells, number, plan.pages)
        check_readable(page)
        written.append(_write_page(out, number, page.png(), len(page.text)))
    return written


def _page(g: Geometry, cells: PageCells, number: int, total: int) -> Page:
    # what PageStream draws for the same cells: the header row on top, then the text
    grid, head = _header_grid(g, cells, number, total)
    return Page(number, total, g, cells.text, grid, head)


def write_plan_pages(plan: SpanPlan, out: str | Path, *, workers: int) -> list[WrittenPage]:
    """Draw and write the pages of ``plan`` as ``out/page-NNN.png`` on ``workers`` processes.

    Returns what was written, in page order.

    Raises
    ------
    InputError
        ``out`` cannot be created or written, a page would be unreadable, or the
        file changed since it was counted; this run's pages are removed first.
    SnapshotError
        A worker process stopped (killed, out of memory); pages removed likewise.
    """
    out = prepare_out(out)
    jobs = page_ranges(plan.pages, plan.geometry.chars_per_page, workers)
    workers = min(workers, len(jobs))
    written: list[WrittenPage] = []
    # one job (a short text) is drawn here: forking would cost more than it saves
    pool = process_pool(workers, _start, (plan, out)) if workers > 1 else None
    try:
        if pool is None:
            for job in jobs:
                written.extend(_draw_range(plan, out, job))
        else:
            for done in ordered_map(_draw_pages, jobs, workers=workers, executor=pool):
                written.extend(done)
    except BaseException as exc:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)  # no worker still writing
        every = [WrittenPage(out / page_name(n), n, 0, 0) for n in range(1, plan.pages + 1)]
        removed = _clean_up(out, every)
        note = f"; removed the {removed} page(s) this run wrote" if removed else ""
        if isinstance(exc, BrokenProcessPool):
            raise SnapshotError(
                f"a worker process drawing the pages of {plan.reader.label} stopped "
                f"(killed, or out of memory){note}; run again, or with --workers 1"
            ) from exc
        if isinstance(exc, InputError) and note:
            raise InputError(f"{exc}{note}") from exc
        raise
    if pool is not None:
        pool.shutdown(wait=True)
    return written
