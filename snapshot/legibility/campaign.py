"""The real-page reading campaign: which readings to take first, at the pages providers get.

Reading a full real page takes minutes, so the campaign is ordered by what decides a
verdict (issue 25): stage 1 reads the dense layout and the Gemini and Claude defaults at
their real pages natively, by every reader on both texts; stage 2 the ×0.9 bicubic resample
where a reader passes natively (a reader below the bar natively already decides the verdict
without it); stage 3 the ±4 px pages (PP-OCR readers first: their detector rounds each side
to 32 px); stage 4 the other profiles' real pages (the default layout and the dense one):
natively, then ×0.9 where a reader passes, then ±4 px (PP-OCR readers first; several of
these pages have sides that are multiples of 32 px already); stage 5 (on request) the density
exploration: the frontier's candidate layouts (:data:`~snapshot.legibility.frontier.GRID`)
at Gemini's real page. Every native reading at a real page is preceded by its reader's
**control** reading (:func:`~snapshot.legibility.controls.control_layout`: the same text,
page size and ink in plain 16 px DejaVu Sans Mono; one per reader, page, ink and text,
so a page's layouts share it): a reading is reported relative to it. Every reading goes
through the
:class:`~snapshot.legibility.frontier.PointCache`, so a campaign stopped at any point keeps
what it read and a re-run reads only what is missing.

>>> steps = campaign_steps(stages=(1,), readers=("ppocrv6-small",), models=("gemini-3.8-flash",))
>>> [(s.layout.key, s.text, s.scale) for s in steps][:3]  # doctest: +NORMALIZE_WHITESPACE
[('dejavu-sans-mono@16 gray gap 0x0 1568x728', 'hardlines', 1.0),
 ('snap5x9v2 gray gap 0x0 1568x728', 'hardlines', 1.0),
 ('dejavu-sans-mono@16 1-bit gap 0x0 1568x728', 'hardlines', 1.0)]
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from snapshot.legibility.corpus_text import TEXTS
from snapshot.legibility.weakest import CLAIM_READERS

if TYPE_CHECKING:
    from snapshot.legibility.frontier import CandidateLayout, Point, PointCache
    from snapshot.readability.goal import Goal

#: Readers in the order the campaign reads with them (the cheaper first within a layout).
CAMPAIGN_READERS: tuple[str, ...] = CLAIM_READERS
#: Readers whose detector rounds each page side to a multiple of 32 px (read at ±4 px first).
PPOCR_READERS: tuple[str, ...] = ("ppocrv6-small", "ppocrv5", "rapidocr-v4")
#: The stages ``snapshot frontier`` takes when none is named (5, the density exploration, on
#: request).
DEFAULT_STAGES: tuple[int, ...] = (1, 2, 3, 4)
#: Stage 1 and 2 profiles: the dense layout at Gemini's page, Gemini's and Claude's defaults.
FIRST_MODELS: tuple[str, ...] = ("gemini-3.8-flash", "claude-sonnet-5-5")


def density_page(models: Sequence[str] = FIRST_MODELS) -> tuple[int, int]:
    """The real page the density exploration reads layouts at: the first model's.

    >>> density_page()
    (1568, 728)
    """
    from snapshot.legibility.weakest import profile_pages

    return profile_pages(models)[0].page


@dataclass(frozen=True)
class Step:
    """One reading to take: ``layout`` by ``reader`` on ``text`` at ``scale``; ``stage`` 1–4.
    A stage-2 step (``scale`` < 1) is taken only where the native reading passes."""

    stage: int
    layout: CandidateLayout
    reader: str
    text: str
    scale: float = 1.0


def first_layouts(models: Sequence[str] = FIRST_MODELS) -> list[CandidateLayout]:
    """Stage 1's layouts: the dense layout at the first model's page, then each model's
    default layout at its real page (de-duplicated)."""
    from snapshot.legibility.frontier import DENSE_LAYOUT
    from snapshot.legibility.weakest import profile_pages

    pp = profile_pages(models)
    out = [DENSE_LAYOUT.with_page(pp[0].page)] if pp else []
    out += [p.layout for p in pp]
    return list(dict.fromkeys(out))


def campaign_steps(
    *,
    stages: Sequence[int] = DEFAULT_STAGES,
    readers: Sequence[str] = CAMPAIGN_READERS,
    models: Sequence[str] = FIRST_MODELS,
    texts: Sequence[str] = TEXTS,
) -> list[Step]:
    """Every reading the campaign would take, highest priority first (before the cache
    and the stage-2 condition are applied). ``models`` are stages 1–3's profiles; stage 4
    reads the other profiles' defaults and the dense layout at their real pages."""
    from snapshot.legibility.frontier import DENSE_LAYOUT, GRID
    from snapshot.legibility.weakest import PROFILE_MODELS, jittered, profile_pages
    from snapshot.readability.goal import RESAMPLE_SCALE

    first = first_layouts(models)
    order = [r for r in CAMPAIGN_READERS if r in readers] + [
        r for r in readers if r not in CAMPAIGN_READERS
    ]
    by_family = [r for r in order if r in PPOCR_READERS] + [
        r for r in order if r not in PPOCR_READERS
    ]

    def jittered_steps(stage: int, layouts: Sequence[CandidateLayout]) -> list[Step]:
        """The ±4 px pages of ``layouts``, PP-OCR readers first (their detector rounds)."""
        return [
            Step(stage, lay.with_page(size), r, t)
            for r in by_family
            for lay in layouts
            for size in jittered(lay.page)[1:]
            for t in texts
        ]

    steps: list[Step] = []
    if 1 in stages:  # hard lines of every layout first: the cheaper text to be short of
        steps += [Step(1, lay, r, t) for t in texts for lay in first for r in order]
    if 2 in stages:
        steps += [Step(2, lay, r, t, RESAMPLE_SCALE) for lay in first for r in order for t in texts]
    if 3 in stages:
        steps += jittered_steps(3, first)
    if 4 in stages:
        others = profile_pages([m for m in PROFILE_MODELS if m not in models])
        layouts = [x for p in others for x in (p.layout, DENSE_LAYOUT.with_page(p.page))]
        steps += [Step(4, lay, r, t) for lay in layouts for r in order for t in texts]
        steps += [
            Step(4, lay, r, t, RESAMPLE_SCALE) for lay in layouts for r in order for t in texts
        ]
        steps += jittered_steps(4, layouts)
    if 5 in stages and first:
        page = first[0].page
        steps += [Step(5, lay.with_page(page), r, t) for lay in GRID for r in order for t in texts]
    return list(dict.fromkeys(with_controls(steps)))


def with_controls(steps: Sequence[Step]) -> list[Step]:
    """``steps`` with each native real-page reading (stages 1, 4 and 5) preceded by its
    control reading; the ±4 px readings are judged against the real page's control.

    >>> from snapshot.legibility.frontier import CandidateLayout
    >>> s = Step(1, CandidateLayout("snap5x8", page=(1568, 728)), "r", "corpus")
    >>> [x.layout.key for x in with_controls([s])]
    ['dejavu-sans-mono@16 1-bit gap 0x0 1568x728', 'snap5x8 1-bit gap 0x0 1568x728']
    """
    from snapshot.legibility.controls import control_layout

    out: list[Step] = []
    for s in steps:
        if s.scale == 1.0 and s.stage in (1, 4, 5):
            out.append(Step(s.stage, control_layout(s.layout), s.reader, s.text))
        out.append(s)
    return out


def run_campaign(
    cache: PointCache,
    steps: Sequence[Step],
    *,
    seed: int,
    pages: int = 1,
    goal: Goal | None = None,
    until: float | None = None,
    log: Callable[[str], None] = print,
) -> CampaignRun:
    """Take ``steps`` in order through ``cache`` (cached points are not read again), each
    reader loaded once; a resample step only where that reader is qualified (its control
    read) and its native reading of the layout on that text passes ``goal`` relative to
    its control. Stops before a new reading once
    ``time.time()`` passes ``until``. Unavailable readers are logged, skipped and named in
    the result."""
    from snapshot.legibility.controls import Judged, control_layout
    from snapshot.legibility.frontier import measure_cached
    from snapshot.legibility.page_readers import ReaderUnavailable, load_page_reader
    from snapshot.readability.goal import Goal

    goal = goal or Goal.relative()
    out: list[Point] = []
    missing: dict[str, str] = {}
    for step in steps:
        if step.reader in missing:
            continue
        try:
            reader = load_page_reader(step.reader)
        except ReaderUnavailable as exc:
            missing[step.reader] = str(exc)
            log(f"reader {step.reader} unavailable: {exc}")
            continue
        if step.scale != 1.0:
            native = cache.get(step.layout, reader, seed, pages, 1.0, step.text)
            control = cache.get(control_layout(step.layout), reader, seed, pages, 1.0, step.text)
            judged = Judged(native, control) if native is not None else None
            if judged is None or not judged.qualified or not goal.passes(judged.reading, None):
                continue  # unqualified, below the bar natively relative to its control, or
                # not read: the resample decides nothing
        cached = cache.get(step.layout, reader, seed, pages, step.scale, step.text) is not None
        if not cached and until is not None and time.time() >= until:
            log("deadline reached: no new reading started")
            break
        p = measure_cached(
            step.layout, reader, cache, seed=seed, pages=pages, scale=step.scale, text=step.text
        )
        out.append(p)
        if not cached:
            log(
                f"stage {step.stage} {p.layout.key} {step.reader} {step.text} x{step.scale}: "
                f"chars {p.char_accuracy:.3f} hard {p.hard_tokens_exact}/{p.hard_tokens} "
                f"({p.seconds:.0f} s, load {p.load}, {p.measured_at} UTC)"
            )
    return CampaignRun(tuple(out), missing)


@dataclass(frozen=True)
class CampaignRun:
    """What :func:`run_campaign` read (cached or new) and which readers could not load (why)."""

    points: tuple[Point, ...]
    unavailable: dict[str, str]


def adopt_face_readings(
    records: Sequence[dict[str, Any]], cache: PointCache, *, seed: int, font_of: dict[str, str]
) -> list[Point]:
    """Readings ``bench/face_confusions.py`` took of a bundled face (``font_of`` maps its
    variant names to bundled font names), put into ``cache`` as frontier points unless it
    holds them: the same page text (:func:`~snapshot.legibility.frontier.page_text`, the
    held-out ``seed``), drawing, reader and scoring as
    :func:`~snapshot.legibility.frontier.measure`, so not read twice on a shared machine.
    Each adopted point says where it came from in ``note``; its time is not recorded there,
    its load average is the one at the reading's end.
    """
    from snapshot.legibility.frontier import CandidateLayout, Point

    out = []
    for r in records:
        font = font_of.get(str(r.get("variant")))
        if font is None or r.get("pages") != 1:
            continue
        lay = CandidateLayout(font, shade="gray", page=(int(r["page"][0]), int(r["page"][1])))
        subs = sorted(
            (
                (k.split(">", 1)[0], k.split(">", 1)[1], int(n))
                for k, n in r["substitutions"].items()
            ),
            key=lambda x: (-x[2], x[0], x[1]),
        )
        g = lay.geometry()
        p = Point(
            layout=lay,
            reader=r["reader"],
            scale=1.0,
            filter=None,
            seed=seed,
            pages=1,
            chars=int(r["chars"]),
            chars_per_page=g.chars_per_page,
            chars_per_kpx=round(g.chars_per_kpx, 4),
            char_accuracy=float(r["char_accuracy"]),
            hard_tokens=int(r["hard_tokens"]),
            hard_tokens_exact=int(r["hard_tokens_exact"]),
            note="read by bench/face_confusions.py (reports/face-points.jsonl), adopted",
            seconds=float(r["seconds"]),
            text=str(r["text"]),
            confusions=tuple(subs[:24]),
            load=float(r["loadavg_end"]) if r.get("loadavg_end") else None,
        )
        key = cache.key(p.layout, p.reader, seed, 1, 1.0, p.text)
        if key not in {cache.key(q.layout, q.reader, q.seed, q.pages, q.scale, q.text)
                       for q in cache.points(every_setting=True)}:  # fmt: skip
            cache.put(p)
            out.append(p)
    return out
