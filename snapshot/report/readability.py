"""What a reader gets back from a compacted conversation, for needle recall.

Text that stayed text is read exactly. Pages are read back three ways, and
only the last is readability:

- the **round-trip check**: the project's own font-aware decoder, which knows
  the font, the grid and the filter. At native size it round-trips by
  construction; it tells whether the information survived rendering at all.
  It is never reported as recall.
- **crops given the renderer's rows**: an OCR recognizer on row crops cut at
  the renderer's own row boxes, on a seeded sample of rows (a diagnostic: no
  reader is given those boxes).
- **whole-page readers** (:mod:`snapshot.legibility.page_readers`): each gets
  the page as the provider receives it and nothing else. They read a seeded
  sample of full pages per conversation and profile; the needles are sampled
  from the text of those pages (:func:`snapshot.ladder.needles.page_battery`),
  independently of the factsheet's extractor.

Pages are decoded once per distinct PNG: identical source gives identical pages.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from snapshot.ladder.needles import CLASSES, Needle, found, page_battery
from snapshot.ladder.serialize import serialize_block
from snapshot.rendering.page import Page
from snapshot.transcript.model import Conversation, ImageBlock, Message

# Share of a page's cells the text must fill for the page to count as full.
FULL_PAGE = 0.9


def visible_text(messages: Sequence[Message]) -> str:
    """Everything a reader gets as text (images excluded; a snapshot's retained source excluded)."""
    parts: list[str] = []
    for m in messages:
        for b in m.blocks:
            if not isinstance(b, ImageBlock):
                parts.append(serialize_block(b))
    return "\n".join(parts)


# Reads the given rows of a page with a real OCR engine, one string per row
# (crops cut at the renderer's row boxes: "given the renderer's rows").
OcrRows = Callable[[Page, Sequence[int]], list[str]]


def _digest(page: Page) -> str:
    return hashlib.sha256(page.png()).hexdigest()


@dataclass
class ReadCache:
    """Round-trip decodes, row-crop reads and whole-page reads, cached by PNG digest."""

    ocr_rows: OcrRows | None = None
    page_readers: tuple[str, ...] = ()
    cache: dict[str, str] = field(default_factory=dict)
    row_cache: dict[tuple[str, int], str] = field(default_factory=dict)
    page_cache: dict[tuple[str, str], str] = field(default_factory=dict)
    # reader name -> why it gave no reading (not installed, model missing, ...)
    unavailable: dict[str, str] = field(default_factory=dict)
    # CPU seconds (process time, every thread) the whole-page readers spent reading
    cpu_s: float = 0.0

    def round_trip(self, page: Page) -> str:
        key = _digest(page)
        text = self.cache.get(key)
        if text is None:
            from snapshot.rendering.decode_exact import round_trip

            # the page's font, grid and origin are known: cells are looked up, not searched
            text = round_trip(page.pixels, page.geometry)
            self.cache[key] = text
        return text

    def crops(self, page: Page, rows: Sequence[int]) -> list[str]:
        assert self.ocr_rows is not None
        key = _digest(page)
        todo = [r for r in rows if (key, r) not in self.row_cache]
        if todo:
            for r, text in zip(todo, self.ocr_rows(page, todo), strict=True):
                self.row_cache[(key, r)] = text
        return [self.row_cache[(key, r)] for r in rows]

    def control(self, reader: str, page: Page) -> tuple[str, Page]:
        """What ``reader`` reads off ``page``'s control page
        (:func:`~snapshot.report.page_jitter.control_page`), and that control page."""
        from snapshot.report.page_jitter import control_page

        control = control_page(page)
        return self.whole_page(reader, control), control

    def whole_page(self, reader: str, page: Page, delta: int = 0, scale: float = 1.0) -> str:
        """What ``reader`` reads off the whole page (``delta`` px larger or smaller:
        :func:`snapshot.report.page_jitter.resized`; ``scale`` < 1: after the frontier's
        bicubic resample, :func:`page_pixels`); raises when it cannot read it."""
        key = (reader, _digest(page) + (f"{delta:+d}" if delta else "") + _scaled(scale))
        text = self.page_cache.get(key)
        if text is None:
            from snapshot.legibility.page_readers import load_page_reader

            loaded = load_page_reader(reader)  # loading a model is not reading: not counted
            pixels = page_pixels(page, delta, scale)
            t0 = cpu_seconds()
            text = loaded.read_page(pixels)
            self.cpu_s += cpu_seconds() - t0
            self.page_cache[key] = text
        return text


def cpu_seconds() -> float:
    """This process's CPU seconds, every thread, and its finished children's (Tesseract
    runs as a child process).

    >>> cpu_seconds() > 0
    True
    """
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _scaled(scale: float) -> str:
    return "" if scale == 1.0 else f"x{scale:g}"


def page_pixels(page: Page, delta: int = 0, scale: float = 1.0) -> np.ndarray:
    """The pixels a whole-page reader gets: the page ``delta`` px larger or smaller
    (margin added or taken), then resized by ``scale`` with the frontier's filter
    (:data:`~snapshot.readability.goal.RESAMPLE_FILTER`, bicubic), as a provider would.

    >>> from snapshot.rendering.geometry import Geometry
    >>> from snapshot.rendering.glyphs import load_font
    >>> from snapshot.rendering.page import render
    >>> page = render("id 9f8e7d6c2", Geometry(load_font("snap8x16"), 20, 2))[0]
    >>> [page_pixels(page, d, s).shape for d, s in ((0, 1.0), (4, 1.0), (0, 0.9))]
    [(36, 164), (40, 168), (32, 148)]
    """
    from snapshot.report.page_jitter import resized, text_margin

    pixels = resized(page.pixels, delta, margin=text_margin(page.geometry))
    if scale != 1.0:
        from typing import cast

        from snapshot.legibility.resample import Filter, resample
        from snapshot.readability.goal import RESAMPLE_FILTER

        pixels = resample(pixels, scale, cast(Filter, RESAMPLE_FILTER))
    return pixels


@dataclass(frozen=True)
class Recall:
    needles: int
    text: float | None  # needles found in what stayed text
    round_trip: float | None  # ... plus what the round-trip check decodes off the pages
    crops: float | None  # crops given the renderer's rows: share of the sampled rows' needles
    crop_rows: int = 0


def _share(hits: Sequence[bool]) -> float | None:
    return sum(hits) / len(hits) if hits else None


def text_recall(needles: Sequence[Needle], conv: Conversation) -> float | None:
    if not needles:
        return None
    return _share(found(needles, visible_text(conv.path())))


def pages_recall(
    needles: Sequence[Needle],
    conv: Conversation,
    pages: Sequence[Page],
    reader: ReadCache,
    *,
    ocr_sample: int = 0,
    seed: int = 0,
) -> Recall:
    """Text recall, the round-trip check, and crops given the renderer's rows.

    The crop figure reads a seeded sample of ``ocr_sample`` rows and counts
    the needles that lie within one of those rows (a diagnostic only).
    """
    if not needles:
        return Recall(0, None, None, None)
    text = visible_text(conv.path())
    text_hits = found(needles, text)
    decoded = "\n".join(reader.round_trip(p) for p in pages)
    # Needles are matched modulo whitespace, so a needle wrapped across rows or pages still counts.
    round_trip_hits = found(needles, text + "\n" + decoded)
    crop_share: float | None = None
    sampled = 0
    if reader.ocr_rows is not None and ocr_sample > 0 and pages:
        rng = random.Random(seed)
        cells = [(i, r) for i, p in enumerate(pages) for r in range(len(p.rows))]
        chosen = sorted(rng.sample(cells, min(ocr_sample, len(cells))))
        hits: list[bool] = []
        for i in sorted({i for i, _ in chosen}):
            rows = [r for j, r in chosen if j == i]
            for r, read_back in zip(rows, reader.crops(pages[i], rows), strict=True):
                truth = pages[i].rows[r]
                on_row = [n for n, h in zip(needles, found(needles, truth), strict=True) if h]
                hits.extend(found(on_row, read_back))
        sampled = len(chosen)
        crop_share = _share(hits)
    return Recall(len(needles), _share(text_hits), _share(round_trip_hits), crop_share, sampled)


# ---------------------------------------------------------------------------- whole-page readers


# A conversation this long surely has a full page in its imaged middle for every
# default profile (the largest holds ~28 k characters), so the sample drawn for
# the whole-page readers is not spent on conversations that give no needle.
READER_MIN_CHARS = 100_000


def reader_sample(
    candidates: Sequence[tuple[str, int]], n: int, *, seed: int | str
) -> tuple[str, ...]:
    """The ``n`` conversations the whole-page readers read: seeded, long ones first.

    ``candidates`` are ``(conversation id, characters)``. Conversations of at
    least :data:`READER_MIN_CHARS` are drawn first, in an order fixed by a
    stable hash of the seed and the id (the same sample in every process and
    run); shorter ones only when too few are that long. ``n`` of 0 means all.

    >>> convs = [("a", 200_000), ("b", 5_000), ("c", 150_000), ("d", 120_000)]
    >>> reader_sample(convs, 2, seed=1)
    ('c', 'd')
    >>> "b" in reader_sample(convs, 3, seed=1)  # the short one only when needed
    False
    >>> reader_sample(convs, 0, seed=1) == ("a", "b", "c", "d")
    True
    """

    def rank(item: tuple[str, int]) -> tuple[bool, str]:
        digest = hashlib.sha256(f"{seed}:readers:{item[0]}".encode()).hexdigest()
        return (item[1] < READER_MIN_CHARS, digest)

    if n <= 0 or n >= len(candidates):
        return tuple(sorted(c for c, _ in candidates))
    return tuple(sorted(c for c, _ in sorted(candidates, key=rank)[:n]))


def band_page(page: Page, rows: int) -> Page:
    """``page`` with only its top ``rows`` text rows drawn (its header kept), the rest
    blank paper: a *band*, what the quick start's readers read
    (:mod:`snapshot.report.reader_plan`). The page keeps its real size, so a reader's
    detector scales it exactly as it scales the whole page (PP-OCR raises a short side
    below 736 px: a cut strip would be read several times enlarged), and the text a band
    holds is read at the page's own scale.

    >>> from snapshot.rendering.geometry import Geometry
    >>> from snapshot.rendering.glyphs import load_font
    >>> from snapshot.rendering.page import render
    >>> page = render("x" * 200, Geometry(load_font("snap5x8"), 20, 11))[0]
    >>> band = band_page(page, 3)
    >>> band.rows == page.rows[:3], band.size == page.size
    (True, True)
    >>> len(band.text)
    60
    """
    from snapshot.rendering.page import Page

    g = page.geometry
    first = (1 if g.header else 0) + rows
    if first >= g.rows:
        return page
    grid = page.grid.copy()
    grid[first:] = 0  # the space glyph: paper
    text = "".join(page.rows[:rows])
    return Page(page.number, page.total, g, text, grid=grid, header=page.header)


def band_full(band: Page, rows: int) -> bool:
    """Whether a band's ``rows`` text rows are at least 90 % filled (a full band).

    >>> from snapshot.rendering.geometry import Geometry
    >>> from snapshot.rendering.glyphs import load_font
    >>> from snapshot.rendering.page import render
    >>> band_full(band_page(render("x" * 200, Geometry(load_font("snap5x8"), 20, 11))[0], 3), 3)
    True
    """
    return len(band.text) >= FULL_PAGE * band.geometry.cols * rows


def full_pages(pages: Sequence[Page]) -> list[int]:
    """Indices of the pages whose text fills at least 90 % of their cells.

    A half-filled last page flatters small cells (a detector separates sparse
    rows far more easily), so whole-page readers are measured on full pages.
    """
    return [i for i, p in enumerate(pages) if len(p.text) >= FULL_PAGE * p.geometry.chars_per_page]


@dataclass(frozen=True)
class WholePageRecall:
    """Whole-page readers on the sampled pages of one conversation × profile × strategy.

    ``asked`` counts the battery's needles by class; ``in_text`` those found
    in what stayed text (head, tail, factsheet); ``found[reader]`` those the
    reader read off its page (readability: the page alone), and
    ``found_or_text[reader]`` those the request holds either way (the page as
    read, or the text). A reader missing from ``found`` was not measured here
    and ``notes[reader]`` says why. ``scores[reader][size]`` is the reader's
    page-text score (:class:`~snapshot.report.page_jitter.SizeScore` as a list)
    at the real page (``"real"``), with ``jitter`` ±4 px (``"+4"``, ``"-4"``), and with
    ``resample`` the real page after the 0.9× bicubic resample (``"x0.9"``), present
    only where the reader's real-page score on this row passes natively.
    """

    pages: int
    asked: dict[str, int]
    in_text: dict[str, int]
    found: dict[str, dict[str, int]]
    notes: dict[str, str]
    found_or_text: dict[str, dict[str, int]] = field(default_factory=dict)
    scores: dict[str, dict[str, list[int | str]]] = field(default_factory=dict)
    cpu_s: float = 0.0  # the readers' CPU seconds on these pages (process time, measured)

    @property
    def needles(self) -> int:
        return sum(self.asked.values())


def _by_class(needles: Sequence[Needle], hits: Sequence[bool]) -> dict[str, int]:
    out = dict.fromkeys(CLASSES, 0)
    for n, h in zip(needles, hits, strict=True):
        out[n.kind] += int(h)
    return {k: v for k, v in out.items() if v or any(n.kind == k for n in needles)}


def whole_page_recall(
    conv: Conversation,
    pages: Sequence[Page],
    reader: ReadCache,
    *,
    seed: int | str,
    sample_pages: int,
    per_class: int,
    jitter: bool = False,
    resample: bool = False,
    eligible: Sequence[int] | None = None,
    skip: Mapping[str, str] | None = None,
) -> WholePageRecall:
    """Read a seeded sample of full pages with every whole-page reader; count needles.

    Each reading is also scored against the page's text, and each page's control (its text
    on the same page size and ink in plain 16 px DejaVu Sans Mono,
    :func:`~snapshot.report.page_jitter.control_page`) is read too: ``scores[reader]
    ["control"]``; with ``jitter`` each
    page is read again 4 px larger and smaller (:mod:`snapshot.report.page_jitter`),
    with ``resample`` again after the 0.9× bicubic resample where the reader's
    real-page score of these pages meets the :class:`~snapshot.readability.goal.Goal`
    natively (below it, the reader already fails the bar: the reading is not paid for);
    the needles are counted at the real page only.

    A needle is found when it occurs, whitespace ignored (so a needle the page
    wraps across rows counts), in the reader's text of its page; separately,
    when it occurs there or in what stayed text. A reader that cannot load, or fails on one of the pages,
    gets a note and no counts for this row: never a zero. ``eligible``: the pages a sample
    may draw (default :func:`full_pages`; bands pass those of the pages they were cut from).
    ``skip``: readers left unread here, each with the note that says why.
    """
    battery = page_battery(
        [p.text for p in pages],
        eligible=full_pages(pages) if eligible is None else list(eligible),
        seed=seed,
        pages=sample_pages,
        per_class=per_class,
        keep_empty=True,  # a page with no needle is still read for its characters
    )
    needles = [n for _i, ns in battery for n in ns]
    asked = dict.fromkeys(CLASSES, 0)
    for n in needles:
        asked[n.kind] += 1
    asked = {k: v for k, v in asked.items() if v}
    text = visible_text(conv.path())
    in_text = found(needles, text)
    notes: dict[str, str] = {}
    if not battery:
        reason = "no full page to read" if pages else "no pages"
        notes = dict.fromkeys(reader.page_readers, reason)
        return WholePageRecall(0, {}, {}, {}, notes)
    from snapshot.readability.goal import RESAMPLE_SCALE
    from snapshot.readability.scoring import page_expected_text
    from snapshot.report.page_jitter import (
        CONTROL,
        RESAMPLED,
        SIZES,
        SizeScore,
        decides,
        native,
        passes,
        score,
    )

    cpu0 = reader.cpu_s
    counts: dict[str, dict[str, int]] = {}
    either: dict[str, dict[str, int]] = {}
    scores: dict[str, dict[str, list[int | str]]] = {}
    sizes = SIZES if jitter else SIZES[:1]
    for name in reader.page_readers:
        if skip and name in skip:
            notes[name] = skip[name]
            continue
        if name in reader.unavailable:
            notes[name] = reader.unavailable[name]
            continue
        hits: list[bool] = []
        pooled = {label: SizeScore() for label, _ in sizes}
        try:
            for i, ns in battery:
                page = pages[i]
                expected = page_expected_text(page)
                for label, delta in sizes:
                    read = reader.whole_page(name, page, delta)
                    if not delta:
                        hits.extend(found(ns, read))
                    shape = page_pixels(page, delta).shape
                    pooled[label] = pooled[label].add(score(expected, read, (shape[1], shape[0])))
                read, control = reader.control(name, page)  # the same text, page and ink
                h, w = control.pixels.shape[:2]
                scored = score(page_expected_text(control), read, (w, h))
                pooled[CONTROL] = pooled.get(CONTROL, SizeScore()).add(scored)
            # the Goal's third bar, where it can decide: a qualified reader passing natively
            if resample and decides(pooled) and passes(native(pooled)):
                pooled[RESAMPLED] = SizeScore()
                for i, _ns in battery:
                    page = pages[i]
                    read = reader.whole_page(name, page, scale=RESAMPLE_SCALE)
                    shape = page_pixels(page, scale=RESAMPLE_SCALE).shape
                    scored = score(page_expected_text(page), read, (shape[1], shape[0]))
                    pooled[RESAMPLED] = pooled[RESAMPLED].add(scored)
        except Exception as exc:
            from snapshot.legibility.readers import ReaderUnavailable

            if isinstance(exc, ReaderUnavailable):
                reader.unavailable[name] = f"not measured: {exc}"
                notes[name] = reader.unavailable[name]
            else:
                detail = " ".join(str(exc).split())[:200]
                notes[name] = f"failed on a page: {type(exc).__name__}: {detail}"
            continue
        counts[name] = _by_class(needles, hits)
        either[name] = _by_class(needles, [h or t for h, t in zip(hits, in_text, strict=True)])
        scores[name] = {label: sc.as_list() for label, sc in pooled.items()}
    return WholePageRecall(
        len(battery),
        asked,
        _by_class(needles, in_text),
        counts,
        notes,
        either,
        scores,
        reader.cpu_s - cpu0,
    )


# ---------------------------------------------------------------------------- what a figure rests on


def pages_text(corpus: str | None, own_sessions: bool, band_rows: int = 0) -> str:
    """Which text the whole-page readers read in a run: the run's own compaction pages
    (with ``band_rows``, a band of each: :func:`band_page`).

    >>> pages_text("/c/benchmark.manifest.json", False), pages_text(None, True)
    ('corpus pages of this run', 'pages of your sessions in this run')
    >>> pages_text(None, False, 4)
    'a band (the top 4 text rows, the rest blank) of demo transcript pages of this run'
    """
    if own_sessions:
        text = "pages of your sessions in this run"
    else:
        text = "corpus pages of this run" if corpus else "demo transcript pages of this run"
    if band_rows:
        return f"a band (the top {band_rows} text rows, the rest blank) of {text}"
    return text


def pages_context(rows: Sequence[object], model: str, text: str) -> str:
    """What ``model``'s whole-page figures were measured on, to print beside them.

    The text, the real page size with each reader's ±4 px verdict
    (:func:`~snapshot.report.page_jitter.verdict`), the weakest reader at the real
    page (characters, then exact hard tokens), the weakest after the ×0.9 resample
    (read where a reader passes natively) and the weakest-reader verdict on these pages
    (:func:`~snapshot.report.page_jitter.profile_verdict`). ``rows`` carry
    ``reader_page_scores`` (report rows of the pages the readers read); "" when no
    reader scored a page of ``model``.

    >>> class R:
    ...     model = "m"
    ...     reader_page_scores = {
    ...         "a": {"real": [100, 0, 4, 4, "9x9"], "+4": [100, 90, 4, 0, "13x13"],
    ...               "x0.9": [100, 3, 4, 4, "8x8"]},
    ...         "b": {"real": [100, 5, 4, 3, "9x9"], "+4": [100, 5, 4, 3, "13x13"]}}
    >>> print(pages_context([R()], "m", "corpus pages of this run"))
    corpus pages of this run, 9x9 (the real page); ±4 px: a unstable, b stable; weakest reader b: 0.950 characters, 0.75 exact hard tokens; ×0.9 (where a reader passes natively): weakest a 0.970 characters; verdict: not readable: below the bar natively: b; unstable at ±4 px: a
    """
    from snapshot.report.page_jitter import (
        CONTROL,
        RESAMPLED,
        decides,
        judge,
        native,
        native_cell,
        passes,
        pooled_scores,
        profile_verdict,
        verdict,
        weakest_resampled,
    )

    pooled = {rd: s for rd, s in pooled_scores(rows, model).items() if "real" in s}
    if not pooled:
        return ""
    sizes = sorted({s["real"].size for s in pooled.values()})
    jitter = ", ".join(f"{rd} {verdict(s)}" for rd, s in sorted(pooled.items()))
    if all(verdict(s) == "one size" for s in pooled.values()):
        jitter = "not read (--no-reader-jitter)"
    deciding = {rd: s for rd, s in pooled.items() if decides(s)}
    resampled = weakest_resampled(pooled)
    if not any(RESAMPLED in s for s in pooled.values()) and any(
        passes(native(s)) for s in deciding.values()
    ):
        resampled = "not read (--no-reader-resample)"
    others = [f"{rd} {judge(s)}" for rd, s in sorted(pooled.items()) if rd not in deciding]
    weakest = "no qualified reader"
    if deciding:
        name, weak = min(deciding.items(), key=lambda kv: (native(kv[1]).char_accuracy, kv[0]))
        chars = native_cell(weak) if CONTROL in weak else f"{weak['real'].char_accuracy:.3f}"
        weakest = (
            f"weakest reader {name}: {chars} characters, "
            f"{native(weak).hard_token_accuracy:.2f} exact hard tokens"
        )
    return (
        f"{text}, {'/'.join(sizes)} (the real page); ±4 px: {jitter}; {weakest}; "
        + (f"not judging: {', '.join(others)}; " if others else "")
        + f"×0.9 (where a reader passes natively): {resampled}; verdict: "
        f"{profile_verdict(pooled)}"
    )
