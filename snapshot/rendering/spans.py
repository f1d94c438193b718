"""Flow pages of a text file laid out on the workers: byte spans cut after newlines.

After a newline every step before drawing starts afresh: UTF-8 decoding (byte
0x0A is never inside a multi-byte sequence), normalization (tabs expand from
column 0; CRLF pairs, trailing spaces and NFC end there) and, in flow mode, the
cells (one cell per character). So a file cut after newlines can be decoded,
normalized and looked up span by span on worker threads, and the spans give
exactly the normalized text and the cells of the whole: page ``k`` is cells
``[k * P, (k + 1) * P)`` (``P`` cells a page). The main thread reads nothing:
a first pass counts each span's characters (plain ASCII by
byte scans alone) for the page count every header states, the second lays the
spans out again from the file and hands on pages.

:func:`plan_spans` says ``None`` where a character is not one cell in order
(lines mode, wide glyphs, kept runs), where an escape sequence may run over a
newline, for stdin, and for a line longer than :data:`LONGEST_LINE`: those texts
take :class:`snapshot.rendering.text.LayoutStream`, which gives the same pages.

>>> import tempfile
>>> from snapshot.rendering.glyphs import load_font
>>> from snapshot.rendering.text import TextReader
>>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
...     _ = f.write("hello  \\nworld\\n")
>>> plan = plan_spans(TextReader(f.name), Geometry(load_font("misc-5x8"), cols=4, rows=3))
>>> plan.pages, plan.chars, [cells.text for cells in plan.cells()]
(2, 12, ['hello\\nwo', 'rld\\n'])
"""

from __future__ import annotations

import bisect
import itertools
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from snapshot.errors import InputError
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import REPLACEMENT, SPACE
from snapshot.rendering.parallel import ordered_map, process_pool
from snapshot.rendering.text import (
    _NOT_CONTROL,
    PageCells,
    TextReader,
    _strip_trailing_spaces,
    decode_bytes,
    normalize,
)

__all__ = ["SPAN_BYTES", "SpanPlan", "plan_spans"]

#: Bytes a span is cut from (at the last newline in them).
SPAN_BYTES = 1 << 20
#: A line longer than this gives no cut in reach: the text is laid out as one stream.
LONGEST_LINE = 16 << 20


@dataclass(frozen=True)
class _Span:
    start: int  # byte offset in the file
    end: int
    chars: int  # normalized characters (= cells)
    plain: bool  # ASCII without control bytes but LF: normalizing only strips trailing spaces
    stripped: int = 0  # trailing spaces a plain span loses


@dataclass
class _Survey:
    """What the first pass found in one span (``None`` from :func:`_survey`: not one-for-one)."""

    chars: int
    plain: bool
    counts: dict[str, int] = field(default_factory=dict)
    replaced: dict[str, int] = field(default_factory=dict)
    invalid_utf8: int = 0
    nfc_changed: bool = False


_COUNTS = ("crlf", "tabs", "ansi", "zero_width", "controls", "trailing_spaces")


class _Lookup:
    """Character -> atlas index for one geometry: plain ASCII through a byte table."""

    def __init__(self, geometry: Geometry, keep: bool) -> None:
        self.font = geometry.font
        self.keep = keep
        idx, atlas = self.font.lookup(np.arange(128, dtype=np.uint32))
        drawn = idx >= 0
        narrow = not np.take(atlas.wide, idx[drawn]).any()
        # plain bytes translate straight to uint8 indices when every ASCII index fits
        self.table: bytes | None = None
        if narrow and int(idx.max()) < 256:
            self.table = bytes(np.where(drawn, idx, REPLACEMENT).astype(np.uint8)) + bytes(128)
        self.bad_ascii = [bytes([c]) for c in np.flatnonzero(~drawn).tolist()]

    def indices(self, text: str) -> tuple[np.ndarray, np.ndarray, bool]:
        """Atlas indices (undrawable: -2), the code points, and whether any glyph is wide."""
        cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
        idx, atlas = self.font.lookup(cps)
        wide = bool(atlas.wide.any()) and bool(
            (np.take(atlas.wide, idx, mode="clip") & (idx >= 0)).any()
        )
        return idx, cps, wide


def _trailing_spaces(data: bytes) -> int:
    """Spaces :func:`snapshot.rendering.text.normalize` strips from plain ASCII (before each
    newline and at the end), counted without building the stripped bytes."""
    n = len(data) - len(data.rstrip(b" "))
    i = data.find(b" \n")
    while i != -1:
        j = i
        while j > 0 and data[j - 1] == 0x20:
            j -= 1
        n += i + 1 - j
        i = data.find(b" \n", i + 2)
    return n


def _survey(data: bytes, look: _Lookup) -> _Survey | None:
    """First pass over one span: its normalized length and what normalizing changed."""
    if b"\x1b" in data:
        return None  # an escape string may run over the newline a span ends at
    if look.table is not None and data.isascii() and not data.translate(None, _NOT_CONTROL):
        stripped = _trailing_spaces(data)
        out = _Survey(len(data) - stripped, True, {"trailing_spaces": stripped})
        for byte in look.bad_ascii:
            if byte in data:
                if look.keep:
                    return None
                out.replaced[byte.decode()] = data.count(byte)
        return out
    text, invalid = decode_bytes(data)
    norm = normalize(text)
    idx, cps, wide = look.indices(norm.text)
    if wide:
        return None
    out = _Survey(
        len(norm.text), False, {n: getattr(norm, n) for n in _COUNTS}, {}, invalid, norm.nfc_changed
    )
    bad = idx < 0
    if bad.any():
        if look.keep:
            return None
        chars, counts = np.unique(cps[bad], return_counts=True)
        out.replaced = {chr(c): k for c, k in zip(chars.tolist(), counts.tolist(), strict=True)}
    return out


@dataclass
class SpanPlan:
    """A text file cut into spans and counted: everything a page stream must know
    before drawing (:func:`plan_spans`), and the pages' cells (:meth:`cells`)."""

    reader: TextReader
    geometry: Geometry
    workers: int
    spans: list[_Span]
    chars: int
    replaced: dict[str, int]
    counts: dict[str, int]
    nfc_changed: bool
    lookup: _Lookup
    stamp: tuple[int, int, int] = (0, 0, 0)  # the file's inode, size and mtime when counted

    @property
    def pages(self) -> int:
        """Pages of the text (each header states it)."""
        return -(-self.chars // self.geometry.chars_per_page)

    def _lay(self, job: tuple[int, _Span]) -> tuple[np.ndarray, str]:
        """Second pass over one span, on a worker: its atlas indices and normalized text."""
        fd, span = job
        data = os.pread(fd, span.end - span.start, span.start)
        text = ""
        if span.plain and self.lookup.table is not None and data.isascii():
            if span.stripped:
                data = _strip_trailing_spaces(data)
            text = data.decode("ascii")
            idx = np.frombuffer(data.translate(self.lookup.table), np.uint8)
        else:
            text = normalize(decode_bytes(data)[0]).text
            idx, _, _ = self.lookup.indices(text)
            idx[idx < 0] = REPLACEMENT
        if len(text) != span.chars:
            raise InputError(f"{self.reader.label} changed while it was drawn; render it again")
        return idx, text

    @property
    def _starts(self) -> list[int]:
        """Each span's first character in the normalized text."""
        return list(itertools.accumulate((s.chars for s in self.spans[:-1]), initial=0))

    def cells(
        self, first: int = 0, count: int | None = None, *, workers: int | None = None
    ) -> Iterator[PageCells]:
        """The cells of pages ``first .. first + count - 1`` (0-based; default: all), in order.

        Only the spans holding those pages' characters are laid out, on
        ``workers`` threads (default :attr:`workers`): a worker process drawing a
        range of pages (:mod:`snapshot.rendering.span_procs`) reads its own part of the file.
        """
        g = self.geometry
        per = g.chars_per_page
        last = self.pages if count is None else min(self.pages, first + count)
        if first >= last:
            return
        begin = first * per
        starts = self._starts
        lo = bisect.bisect_right(starts, begin) - 1
        hi = bisect.bisect_left(starts, min(last * per, self.chars))
        try:
            fd = os.open(self.reader.path, os.O_RDONLY)
        except OSError as exc:
            raise InputError(f"cannot read {self.reader.label}: {exc.strerror or exc}") from exc
        laid = None
        try:
            if _stamp(os.fstat(fd)) != self.stamp:
                raise InputError(f"{self.reader.label} changed while it was drawn; render it again")
            jobs = ((fd, span) for span in self.spans[lo:hi])
            laid = ordered_map(self._lay, jobs, workers=workers or self.workers)
            yield from _cut_pages(g, laid, begin, begin - starts[lo], last - first)
        finally:
            if laid is not None:
                laid.close()  # no thread still reads the descriptor when it is closed
            os.close(fd)


def _cut_pages(
    g: Geometry, laid: Iterable[tuple[np.ndarray, str]], start: int, skip: int, pages: int
) -> Iterator[PageCells]:
    """At most ``pages`` pages of the laid-out spans ``laid``, the first starting at
    cell ``skip`` of the first span (character ``start`` of the text); a short last
    page is padded."""
    per = g.chars_per_page
    parts: list[np.ndarray] = []
    texts: list[str] = []
    have = made = 0
    for idx, text in laid:
        pos, n = skip, len(idx)
        skip = 0
        while pos < n:
            take = min(per - have, n - pos)
            parts.append(idx[pos : pos + take])
            texts.append(text[pos : pos + take])
            have += take
            pos += take
            if have == per:
                yield _page(g, parts, texts, start)
                made += 1
                if made == pages:
                    return
                start += per
                parts, texts, have = [], [], 0
    if have:
        yield _page(g, parts, texts, start)


def _page(g: Geometry, parts: list[np.ndarray], texts: list[str], start: int) -> PageCells:
    flat = parts[0] if len(parts) == 1 else np.concatenate(parts)
    per = g.chars_per_page
    if len(flat) < per:  # the last page: blank cells after the text, as the layout pads
        flat = np.concatenate([flat, np.full(per - len(flat), SPACE, flat.dtype)])
    text = texts[0] if len(texts) == 1 else "".join(texts)
    grid = flat.reshape(g.text_rows, g.cols)
    return PageCells(grid, (start, start + len(text)), False, text)


def _cut_after(fd: int, at: int, size: int) -> int | None:
    """Offset just past the first newline at or after ``at`` (``size`` if none
    before the end); None when no newline comes within :data:`LONGEST_LINE`."""
    pos = at
    while pos < size:
        chunk = os.pread(fd, min(1 << 16, size - pos), pos)
        if not chunk:
            break  # shorter than it was: the second pass says the file changed
        i = chunk.find(b"\n")
        if i >= 0:
            return pos + i + 1
        pos += len(chunk)
        if pos - at > LONGEST_LINE:
            return None
    return size


class _Surveyor:
    """The first pass over span ``i`` of an open file: its byte range and what
    :func:`_survey` found, or ``None`` (a line too long to cut, or not one cell a
    character). Threads call it; forked workers inherit it (:func:`_survey_forked`)."""

    def __init__(self, fd: int, size: int, look: _Lookup) -> None:
        self.fd, self.size, self.look = fd, size, look

    def __call__(self, i: int) -> tuple[int, int, _Survey] | None:
        fd, size = self.fd, self.size
        start = _cut_after(fd, i * SPAN_BYTES, size) if i else 0
        end = _cut_after(fd, (i + 1) * SPAN_BYTES, size)
        if start is None or end is None:
            return None  # a line too long to cut: one stream
        data = os.pread(fd, end - start, start) if end > start else b""
        found = _survey(data, self.look) if data else _Survey(0, True)
        return None if found is None else (start, end, found)


# a forked survey worker's surveyor, inherited from the parent (see process_pool)
_FORKED: list[_Surveyor] = []


def _keep_surveyor(surveyor: _Surveyor) -> None:
    _FORKED.append(surveyor)


def _survey_forked(i: int) -> tuple[int, int, _Survey] | None:
    return _FORKED[-1](i)


def plan_spans(
    reader: TextReader,
    geometry: Geometry,
    *,
    unrenderable: str = "replace",
    workers: int = 1,
    processes: bool = False,
) -> SpanPlan | None:
    """Cut a text file into spans and count them (the first pass), or ``None`` where
    its pages must come from :class:`snapshot.rendering.text.LayoutStream` (see the module).

    Span ``i`` runs from just past the first newline at or after ``i *``
    :data:`SPAN_BYTES` to just past the first one at or after ``(i + 1) *``
    :data:`SPAN_BYTES`: each worker finds its own ends, so the main thread reads
    nothing. The workers are threads, or with ``processes`` forked processes
    (:func:`snapshot.rendering.parallel.process_pool`: the survey holds the GIL, and a
    process-drawn render should not wait for it on one core). Sets
    ``reader.invalid_utf8`` and ``reader.bytes_read`` as reading the file would;
    raises :class:`InputError` for an unreadable file.
    """
    if not geometry.flow or reader.path == "-":
        return None
    look = _Lookup(geometry, unrenderable == "keep")
    try:
        fd = os.open(reader.path, os.O_RDONLY)
    except OSError as exc:
        raise InputError(f"cannot read {reader.label}: {exc.strerror or exc}") from exc
    pool = None
    try:
        st = os.fstat(fd)
        size = st.st_size
        if reader.max_bytes is not None and size > reader.max_bytes:
            raise InputError(reader._over_limit(size))
        surveyor = _Surveyor(fd, size, look)
        jobs = range(-(-size // SPAN_BYTES))
        if processes and workers > 1 and len(jobs) > 1:
            pool = process_pool(workers, _keep_surveyor, (surveyor,))
        survey = _survey_forked if pool is not None else surveyor
        spans: list[_Span] = []
        replaced: dict[str, int] = {}
        counts = dict.fromkeys(_COUNTS, 0)
        nfc = False
        chars = invalid = 0
        for result in ordered_map(survey, jobs, workers=workers, executor=pool):
            if result is None:
                return None
            start, end, found = result
            if end > start:
                stripped = found.counts["trailing_spaces"] if found.plain else 0
                spans.append(_Span(start, end, found.chars, found.plain, stripped))
            chars += found.chars
            invalid += found.invalid_utf8
            nfc = nfc or found.nfc_changed
            for name, n in found.counts.items():
                counts[name] += n
            for ch, n in found.replaced.items():
                replaced[ch] = replaced.get(ch, 0) + n
    except OSError as exc:
        raise InputError(f"cannot read {reader.label}: {exc.strerror or exc}") from exc
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)  # before the descriptor is closed
        os.close(fd)
    reader.invalid_utf8, reader.bytes_read = invalid, size
    return SpanPlan(
        reader, geometry, workers, spans, chars, replaced, counts, nfc, look, _stamp(st)
    )


def _stamp(st: os.stat_result) -> tuple[int, int, int]:
    return st.st_ino, st.st_size, st.st_mtime_ns
