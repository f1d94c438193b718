"""What the report's whole-page readers read by default, and what that costs in reader CPU.

``snapshot report`` reads, per profile, a seeded sample of real pages and their controls
(:func:`~snapshot.report.page_jitter.control_page`) with the *fast* readers — the two
whose full default page costs least (Tesseract ×2 ~9 s on snap8x16, ~16.5 s on snap5x8;
PP-OCRv6 small ~16 s; measured per page under load, issue 40) — and its control costs
as much again. Its plan is fixed before a page is drawn, so its cost is known by
construction (:meth:`ReaderPlan.cpu_estimate`), not by timing a run:

- the **quick start** (the demo transcripts): one seeded conversation, one *band* of
  :data:`QUICK_BAND_ROWS` text rows per profile (the top rows of a full page at the
  page's real width) and its control, real size only, within :data:`QUICK_BUDGET_S`;
  every output says "band";
- the **corpus benchmark**: :data:`CORPUS_CONVERSATIONS` seeded conversations, one full
  page per profile, with its control, at ±4 px and after the 0.9× resample where a reader
  passes natively, within :data:`CORPUS_BUDGET_S`.

``--all-readers`` reads the same sample with every reader the package knows (the slow ones
too, past the budget); readers named with ``--page-readers`` read whole pages of every
conversation at ±4 px (the benchmark's full reading, issues 14 and 25). A reader that is not
installed is named and skipped, never a zero.

>>> plan = default_plan(corpus=False)
>>> plan.readers, plan.band_rows, plan.unit
(('tesseract-x2', 'ppocrv6-small'), 4, 'band')
>>> default_plan(corpus=True).unit
'page'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from snapshot.report.matrix import Settings

#: The fast readers: what the default run reads with.
FAST_READERS: tuple[str, ...] = ("tesseract-x2", "ppocrv6-small")

#: Reader CPU seconds for one full default page, by reader and font (``"*"``: any font);
#: measured one page at a time on this 2-core machine under load (issue 40, main
#: 0b92b2b–855afcb); estimates of what a plan costs, never a reported figure.
PAGE_CPU_S: dict[str, dict[str, float]] = {
    "tesseract-x2": {"snap8x16": 9.0, "snap5x8": 16.5, "*": 16.5},
    "ppocrv6-small": {"*": 17.7},
    "rapidocr-v4": {"*": 59.8},
    "ppocrv5": {"*": 70.0},
    "easyocr-en": {"*": 45.8},
}

#: What one reading of a band costs whatever its rows (the detector's pass over the
#: whole page, Tesseract's ×2 upscale), measured on this machine under load (load 3.4):
#: Tesseract ×2 ~0.96 s on a 6-row snap8x16 band of 1540², PP-OCRv6 small ~3.2 s.
BAND_FIXED_S: dict[str, float] = {"tesseract-x2": 0.8, "ppocrv6-small": 2.8}

#: The quick start's reader CPU budget (issue 40 item 3), and its band's height in text rows.
QUICK_BUDGET_S = 15.0
QUICK_BAND_ROWS = 4
#: The corpus benchmark's default reader CPU budget, and how many conversations it reads.
CORPUS_BUDGET_S = 900.0
CORPUS_CONVERSATIONS = 1

#: Characters the benchmark measures per CPU second (~55 k/s per worker, corpus run of
#: 2026-12-06): what one reader second weighs in the progress line's ETA (an estimate).
ETA_CHARS_PER_S = 50_000

#: An environment variable naming the default ``--page-readers`` (e.g. ``none``: the test
#: suite sets it so that no test starts a heavy reader unless it asks for one).
READERS_ENV = "SNAPSHOT_PAGE_READERS"


@dataclass(frozen=True)
class ReaderPlan:
    """Which readers read what in one report.

    ``band_rows`` of 0 reads whole pages; otherwise the top ``band_rows`` text rows of
    each sampled full page at its real width (a *band*). ``pages`` per conversation and
    profile, ``conversations`` sampled (0: every one), ``jitter`` ±4 px, ``resample``
    the 0.9× bicubic reading where a reader passes natively.

    >>> ReaderPlan(("tesseract-x2",), band_rows=6).readings_per_page
    2
    >>> ReaderPlan(("tesseract-x2",), jitter=True, resample=True).readings_per_page
    5
    """

    readers: tuple[str, ...]
    band_rows: int = 0
    pages: int = 1
    conversations: int = 1
    jitter: bool = False
    resample: bool = False
    # (reader, profile) pairs left unread to stay inside the budget (named in every output)
    skip: tuple[tuple[str, str], ...] = ()

    @property
    def unit(self) -> str:
        """What a reader reads: ``"band"`` or ``"page"``."""
        return "band" if self.band_rows else "page"

    @property
    def readings_per_page(self) -> int:
        """Readings of one sampled page: the page (3 sizes with jitter), its control, and
        at most one resampled reading."""
        return (3 if self.jitter else 1) + 1 + int(self.resample)

    def reading_s(self, reader: str, geometry: object) -> float:
        """Reader CPU seconds of one reading of one sampled page (or band) at ``geometry``,
        from :data:`PAGE_CPU_S` (a band: :data:`BAND_FIXED_S` plus its share of the page).

        >>> from snapshot.ladder.target import target_for
        >>> g = target_for("gemini-3.8-flash").geometry
        >>> round(ReaderPlan(("tesseract-x2",), band_rows=9).reading_s("tesseract-x2", g), 2)
        2.47
        """
        font = str(getattr(getattr(geometry, "font", None), "name", ""))
        costs = PAGE_CPU_S.get(reader, {"*": max(PAGE_CPU_S["ppocrv5"].values())})
        page = costs.get(font, costs["*"])
        if not self.band_rows:
            return page
        rows = int(getattr(geometry, "text_rows", 1)) or 1
        fixed = BAND_FIXED_S.get(reader, page / 4)
        return min(page, fixed + page * self.band_rows / rows)

    def cpu_estimate(self, profiles: Sequence[tuple[str, object]]) -> float:
        """Reader CPU seconds this plan costs at most over ``(profile, geometry)`` pairs.

        >>> from snapshot.ladder.target import target_for
        >>> g = target_for("gemini-3.8-flash").geometry
        >>> round(ReaderPlan(("tesseract-x2",), band_rows=9).cpu_estimate([("m", g)]), 1)
        4.9
        """
        total = 0.0
        for model, g in profiles:
            for reader in self.readers:
                if (reader, model) not in self.skip:
                    total += self.reading_s(reader, g) * self.readings_per_page * self.pages
        return total * max(1, self.conversations)

    def within(self, profiles: Sequence[tuple[str, object]], budget: float) -> ReaderPlan:
        """This plan with the (reader, profile) pairs that do not fit ``budget`` skipped:
        every profile's cheapest reader first, then the next reader profile by profile.

        >>> from snapshot.ladder.target import target_for
        >>> ps = [(m, target_for(m).geometry) for m in ("claude-sonnet-5-5", "gemini-3.8-flash")]
        >>> ReaderPlan(FAST_READERS, band_rows=4).within(ps, 13.0).skip
        (('ppocrv6-small', 'gemini-3.8-flash'),)
        """
        per = self.readings_per_page * self.pages * max(1, self.conversations)
        pairs = [(r, m, self.reading_s(r, g) * per) for r in self.readers for m, g in profiles]
        spent, skip = 0.0, []
        for reader, model, cost in pairs:  # readers in order (cheapest first), then profiles
            if spent + cost <= budget:
                spent += cost
            else:
                skip.append((reader, model))
        from dataclasses import replace

        return replace(self, skip=tuple(skip))

    def describe(self) -> str:
        """One line for the progress output and REPORT.md.

        >>> print(ReaderPlan(FAST_READERS, band_rows=6, skip=(("ppocrv6-small", "m"),)).describe())
        tesseract-x2, ppocrv6-small read 1 band of 6 text rows (and its control) per profile of 1 seeded conversation; ppocrv6-small not on m (over the budget)
        """
        what = f"band of {self.band_rows} text rows" if self.band_rows else "full page"
        n = f"1 {what}" if self.pages == 1 else f"{self.pages} × {what}"
        conv = (
            "every conversation"
            if self.conversations == 0
            else f"{self.conversations} seeded conversation{'s' if self.conversations > 1 else ''}"
        )
        extra = ", ±4 px" if self.jitter else ""
        left = "".join(f"; {r} not on {m} (over the budget)" for r, m in self.skip)
        return (
            f"{', '.join(self.readers)} read {n} (and its control{extra}) per profile of "
            f"{conv}{left}"
        )


def default_plan(*, corpus: bool, all_readers: bool = False) -> ReaderPlan:
    """The default run's plan: the quick start's band, or the corpus benchmark's pages.

    >>> default_plan(corpus=True, all_readers=True).readers[-1]
    'easyocr-en'
    """
    readers = FAST_READERS
    if all_readers:
        from snapshot.legibility.page_readers import page_reader_names

        readers = page_reader_names()
    if corpus:
        return ReaderPlan(readers, conversations=CORPUS_CONVERSATIONS, jitter=True, resample=True)
    return ReaderPlan(readers, band_rows=QUICK_BAND_ROWS)


def default_spec() -> str:
    """The ``--page-readers`` a run gets when it gives none: ``default`` (the plan
    above), or what :data:`READERS_ENV` says."""
    return os.environ.get(READERS_ENV, "").strip() or "default"


def plan_of(settings: Settings) -> ReaderPlan:
    """The plan a run's settings carry (what results.json records).

    >>> from snapshot.report.matrix import Settings
    >>> plan_of(Settings(page_readers=("tesseract-x2",), reader_band_rows=6)).unit
    'band'
    """
    return ReaderPlan(
        tuple(settings.page_readers),
        band_rows=settings.reader_band_rows,
        pages=settings.reader_pages,
        conversations=settings.reader_conversations,
        jitter=settings.reader_jitter,
        resample=settings.reader_resample,
        skip=tuple(tuple(x.split("@", 1)) for x in settings.reader_skip),  # type: ignore[misc]
    )


def reader_settings(
    settings: Settings,
    *,
    readers: str | None,
    corpus: bool,
    models: Sequence[str] = (),
    pages: int | None = None,
    band_rows: int | None = None,
    conversations: int | None = None,
    jitter: bool | None = None,
    resample: bool | None = None,
) -> Settings:
    """``settings`` with the readers and their sample: :func:`default_plan`, each of its
    fields replaced by the one given (``None``: the plan's). ``readers`` is the
    ``--page-readers`` spec (``None``: :func:`default_spec`; ``"none"`` reads no page).
    The default readers stay inside the budget (:data:`QUICK_BUDGET_S`, or
    :data:`CORPUS_BUDGET_S` with a corpus) over ``models``: (reader, profile) pairs past it
    are skipped, and named (``settings.reader_skip``).

    >>> from snapshot.report.matrix import Settings
    >>> s = reader_settings(Settings(), readers="default", corpus=False, models=["gpt-6.1-sol"])
    >>> s.page_readers, s.reader_band_rows, s.reader_conversations, s.reader_strategies
    (('tesseract-x2', 'ppocrv6-small'), 4, 1, ('snapshot',))
    >>> reader_settings(Settings(), readers="none", corpus=True).page_readers
    ()
    >>> s = reader_settings(Settings(), readers="ppocrv5", corpus=False, jitter=False)
    >>> s.reader_jitter, s.reader_resample, s.reader_conversations, s.reader_band_rows
    (False, True, 0, 0)
    """
    from dataclasses import replace

    spec = default_spec() if readers is None else readers.strip()
    if spec in ("none", ""):
        return replace(settings, page_readers=())
    if spec in ("default", "all"):  # the plan, inside its budget unless every reader is asked
        plan = default_plan(corpus=corpus, all_readers=spec == "all")
    else:  # readers named: whole pages of every conversation, ±4 px and ×0.9 (issue 14, 25)
        from snapshot.legibility.page_readers import parse_reader_names

        plan = ReaderPlan(parse_reader_names(spec), conversations=0, jitter=True, resample=True)
    plan = replace(
        plan,
        band_rows=plan.band_rows if band_rows is None else band_rows,
        pages=plan.pages if pages is None else pages,
        conversations=plan.conversations if conversations is None else conversations,
        jitter=plan.jitter if jitter is None else jitter,
        resample=plan.resample if resample is None else resample,
    )
    if spec == "default":
        plan = plan.within(profile_geometries(models), budget_of(corpus=corpus))
    return replace(
        settings,
        page_readers=plan.readers,
        reader_band_rows=plan.band_rows,
        reader_pages=plan.pages,
        reader_conversations=plan.conversations,
        reader_jitter=plan.jitter,
        reader_resample=plan.resample,
        reader_skip=tuple(f"{r}@{m}" for r, m in plan.skip),
        # the README's column reads the snapshot strategy's pages: the plan reads those only
        reader_strategies=("snapshot",)
        if spec in ("default", "all")
        else settings.reader_strategies,
    )


def budget_of(*, corpus: bool) -> float:
    """The default plan's reader CPU budget.

    >>> budget_of(corpus=False)
    15.0
    """
    return CORPUS_BUDGET_S if corpus else QUICK_BUDGET_S


def profile_geometries(models: Sequence[str]) -> list[tuple[str, object]]:
    """``(profile, page geometry)`` of each vision profile.

    >>> [m for m, _ in profile_geometries(["gemini-3.8-flash"])]
    ['gemini-3.8-flash']
    """
    from snapshot.ladder.target import target_for

    targets = [(m, target_for(m, fallback=True).geometry) for m in models]
    return [(m, g) for m, g in targets if g is not None]
