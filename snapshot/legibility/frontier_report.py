"""``reports/frontier.md`` and ``frontier.png``: readings at the pages providers get, judged
by the weakest reader.

:func:`frontier_report` takes the readings the campaign
(:mod:`snapshot.legibility.campaign`) still lacks, in priority order, through the
:class:`~snapshot.legibility.frontier.PointCache`, then writes only figures measured at a
default profile's real page size or ±4 px of it, each naming its reader and text: the
weakest reader per layout (:mod:`snapshot.legibility.weakest`), the stability table, the
readings still missing, and the density of the layouts read at Gemini's real page.
Readings at pages no provider gets (the old 784×728 sample page) stay in the cache and are
not shown.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snapshot.legibility.campaign import (
    CAMPAIGN_READERS,
    DEFAULT_STAGES,
    FIRST_MODELS,
    campaign_steps,
    density_page,
    run_campaign,
)
from snapshot.legibility.controls import QUALIFY_BAR, is_control
from snapshot.legibility.corpus_text import TEXTS
from snapshot.legibility.frontier import (
    DENSE_LAYOUT,
    GRID,
    CandidateLayout,
    Point,
    PointCache,
    frontier_table,
)
from snapshot.legibility.hardlines import HELD_OUT_SEED
from snapshot.legibility.weakest import CLAIM_READERS
from snapshot.readability.goal import RESAMPLE_FILTER, RESAMPLE_SCALE, Goal

#: Profiles whose billing the density table prices (the report's three).
FRONTIER_MODELS: tuple[str, ...] = ("claude-sonnet-5-5", "gpt-6.1-sol", "gemini-3.8-flash")
#: The whole-page readers ``snapshot frontier`` reads with when none is named: every one.
FRONTIER_READERS: tuple[str, ...] = CAMPAIGN_READERS


@dataclass(frozen=True)
class FrontierReport:
    """What :func:`frontier_report` measured and wrote."""

    points: tuple[Point, ...]
    unavailable: tuple[str, ...]  # readers that could not run or have no readings, and why
    table: Path
    plot: Path


def _describe_readers(points: Sequence[Point]) -> list[str]:
    seen: dict[str, dict[str, Any]] = {}
    for p in points:
        seen.setdefault(p.reader_name, p.reader)
    return [
        f"- `{n}`: version {r.get('version')}, model sha256 `{r.get('model_sha256')}`"
        for n, r in sorted(seen.items())
    ]


def real_page_sizes() -> set[tuple[int, int]]:
    """Every default profile's real page and its ±4 px pages: the only sizes shown.

    >>> (1568, 728) in real_page_sizes() and (784, 728) not in real_page_sizes()
    True
    """
    from snapshot.legibility.weakest import jittered, profile_pages

    return {size for p in profile_pages() for size in jittered(p.page)}


def frontier_report(
    readers: Sequence[str] | None = None,
    *,
    cache_path: str | os.PathLike[str] | None = None,
    out_dir: str | os.PathLike[str] = "reports",
    seed: int = HELD_OUT_SEED,
    pages: int = 1,
    stages: Sequence[int] | None = None,
    texts: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    measure_missing: bool = True,
    target: Goal | None = None,
    until: float | None = None,
    log: Callable[[str], None] = lambda line: None,
) -> FrontierReport:
    """Take the campaign's missing readings (``stages`` of
    :func:`~snapshot.legibility.campaign.campaign_steps` for ``readers`` on ``texts``,
    ``models`` first; none with ``measure_missing=False``; none started after ``until``,
    epoch seconds), then write ``frontier.md`` and ``frontier.png`` into ``out_dir`` from
    every cached reading of ``readers`` at a real page size.

    A reader that is not installed is named in the notes and left out: a missing cell,
    never a zero. ``readers`` None (or empty) means :data:`FRONTIER_READERS`; ``stages``,
    ``texts`` and ``models`` None (or empty) the campaign's defaults (stages 1-4, both texts,
    Gemini then Claude).
    """
    from snapshot.legibility.frontier_plot import plot_frontier

    readers = tuple(readers or FRONTIER_READERS)
    stages, texts, models = stages or DEFAULT_STAGES, texts or TEXTS, models or FIRST_MODELS
    target = target or Goal.relative()
    cache = PointCache(cache_path)
    unavailable: list[str] = []
    if measure_missing:
        steps = campaign_steps(stages=stages, readers=readers, models=models, texts=texts)
        run = run_campaign(cache, steps, seed=seed, pages=pages, goal=target, until=until, log=log)
        unavailable += [f"reader {name}: {why}" for name, why in run.unavailable.items()]
    sizes = real_page_sizes()
    every = [
        p
        for p in cache.points()
        if p.reader_name in readers
        and p.seed == seed
        and p.pages == pages
        and p.layout.page in sizes
    ]
    measured = {p.reader_name for p in every}
    for name in readers:
        if name not in measured and not any(u.startswith(f"reader {name}:") for u in unavailable):
            unavailable.append(f"reader {name}: no measured points (not run here)")
    page = density_page(models)
    at_density_page = [p for p in every if p.layout.page == page]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    w, h = page
    plot = plot_frontier(
        [p for p in at_density_page if p.text == "hardlines"],
        out / "frontier.png",
        target=target,
        title=f"layouts read at Gemini's real page {w}x{h}, text: hardlines (black rings: "
        "today's defaults)",
    )
    lines = _report_lines(every, at_density_page, page, seed=seed, pages=pages, target=target)
    if unavailable:
        lines += ["", "Not measured here:", *(f"- {u}" for u in unavailable)]
    table = out / "frontier.md"
    table.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return FrontierReport(tuple(every), tuple(unavailable), table, plot)


def _readings(n: int) -> str:
    return f"{n} reading" if n == 1 else f"{n} readings"


def unread_candidates(
    points: Sequence[Point], page: tuple[int, int], readers: Sequence[str]
) -> dict[str, int]:
    """Per reader, the native readings of the candidate layouts (``GRID``) at ``page`` on
    both texts that no point holds yet: what ``snapshot frontier --stage 5`` would still take.

    >>> unread_candidates([], (1568, 728), ["r1"]) == {"r1": len(GRID) * len(TEXTS)}
    True
    """
    have = {(q.layout.key, q.reader_name, q.text) for q in points if q.scale == 1.0}
    out = {
        r: sum((lay.with_page(page).key, r, t) not in have for lay in GRID for t in TEXTS)
        for r in readers
    }
    return {r: n for r, n in out.items() if n}


def _report_lines(
    every: Sequence[Point],
    at_density_page: Sequence[Point],
    page: tuple[int, int],
    *,
    seed: int,
    pages: int,
    target: Goal,
) -> list[str]:
    """frontier.md: the weakest reader, the ±4 px table, what is missing, the density table."""
    from snapshot.legibility.controls import CONTROL_FONT, CONTROL_SIZE
    from snapshot.legibility.corpus_text import describe_text
    from snapshot.legibility.weakest import (
        JITTER,
        MIN_QUALIFIED,
        profile_pages,
        stability_table,
        unmeasured,
        weakest_table,
    )

    lines = [
        "# Readability at the pages providers get (measured)",
        "",
        "Every figure below is measured (`snapshot frontier`, over the cached readings in "
        "`frontier-points.jsonl`) at a default profile's real page size or 4 px larger or "
        "smaller, and names its reader and its text: **hardlines** = "
        f"{describe_text('hardlines', seed)}, transcript-like lines from "
        "`snapshot.legibility.hardlines.full_page_rows`, which `snapshot tune` never uses "
        "(it tunes on seed 1); **corpus** = "
        f"{describe_text('corpus', seed)}, real agent-transcript text from the benchmark "
        "corpus as the snapshot rung draws it (`snapshot.legibility.corpus_text`), which no "
        f"tuning step reads. {pages} full page(s) per reading, every row filled edge to edge, "
        "read by independent whole-page readers that get the page and nothing else "
        "(`snapshot.legibility.page_readers`), scored by `score_page` (character accuracy "
        "over the whole page text; exact hard tokens: hex ≥ 7, UUIDs, numbers, paths). "
        f"×{RESAMPLE_SCALE} = the page downscaled with a {RESAMPLE_FILTER} filter before "
        f"reading, taken only where the reader passes natively (a reader below the bar "
        f"natively decides the verdict without it). Target: ≥ {target.char_accuracy} "
        f"characters and ≥ {target.hard_tokens} exact hard tokens native, ≥ "
        f"{target.resampled_char_accuracy} characters after ×{RESAMPLE_SCALE}. Each reading "
        "records when it ended (UTC) and the machine's 1-minute load average then (a shared "
        "2-core machine). Readings of pages no provider gets (the earlier 784×728 sample "
        "page) stay in the cache and are not shown. `snap5x9` rows are the dense layout's "
        "face before `snap5x9v2` (kept unchanged for stored pages); the dense layout now "
        f"draws `{DENSE_LAYOUT.font} {DENSE_LAYOUT.shade}`.",
        "",
        "Readers:",
        *_describe_readers(every),
        "",
        "## The weakest reader at the profiles' real pages",
        "",
        "Every reading has a **control**: the same reader, settings, text, page size and "
        f"ink, drawn in plain {CONTROL_FONT} at {CONTROL_SIZE} px "
        "(`snapshot.legibility.controls`). A reader is *qualified* at a page when it reads "
        f"its control at ≥ {QUALIFY_BAR} of the characters; native figures are the layout's "
        "accuracy **relative to that control** (what a reader cannot read even in clean large "
        "text is the reader's, not the layout's), the absolute figure beside it; ×0.9 figures "
        "are absolute (no control is read resampled); a ±4 px reading without a control of "
        "its own is judged against the real page's. A layout is *readable* only when every "
        f"whole-page reader ({', '.join(CLAIM_READERS)}) read it and its control, at least "
        f"{MIN_QUALIFIED} of them qualify on each text, the weakest qualified reader meets "
        "the target on both texts at the real page size, and no qualified reader's verdict "
        f"flips when the page grows or shrinks by {JITTER} px. Unqualified readers are shown, "
        "labelled, and never decide. Each weakest figure names the reader and the text; "
        "'readers measured' are those with a native reading at the real page.",
        "",
    ]
    pp = profile_pages()
    real_layouts: list[tuple[str, CandidateLayout]] = []
    for p in pp:
        styles = {
            q.layout.style for q in every if q.layout.page == p.page and not is_control(q.layout)
        }
        for style in sorted(styles, key=str):
            lay = next(q.layout for q in every if q.layout.style == style).with_page(p.page)
            if lay not in [x for _, x in real_layouts]:
                real_layouts.append((p.model, lay))
    w, h = page
    lines += [
        weakest_table(every, real_layouts, target, required=CLAIM_READERS),
        f"## Page-size stability: each profile's real page and ±{JITTER} px",
        "",
        "Native character accuracy relative to the reader's control (absolute characters, "
        "exact hard tokens) per reader and text at the real page, "
        f"{JITTER} px larger and {JITTER} px smaller on both sides, beside the control read at "
        "the real page. PP-OCR's detector rounds "
        "each side to a multiple of 32 px: a page whose sides already are is not resampled, "
        "and a dense page that is not resampled can give a blank detector map (0 boxes, "
        "0.000). `unstable` = the verdict changes with the page size; such a reader is "
        "reported, not averaged.",
        "",
        stability_table(every, pp, target),
        "### Not measured yet",
        "",
        "Native readings each profile's default layout and the dense layout still lack at the "
        f"real page (reader on text; `(control)`: its control page), how many at ±{JITTER} px (readers: "
        f"{', '.join(CLAIM_READERS)}), and the ×0.9 readings still missing where a reader "
        "passes natively. A claim about a layout listed here rests only on the "
        "readers that did measure it, named above.",
        "",
        *(
            [f"- {line}" for line in missing]
            if (missing := unmeasured(every, pp, (DENSE_LAYOUT,), CLAIM_READERS))
            else ["None: every one of them is measured."]
        ),
        "",
        f"## Density at Gemini's real page ({w}×{h})",
        "",
        "Each layout read at this one page, one row per reader: density is the cell pitch "
        "(1000 / pitch area); chars/token is one full page priced by each profile's billing "
        "scheme. (✓) meets the target for that one reader only; whether a layout is "
        "readable is the weakest reader's verdict above. `*` today's defaults, `F` on that "
        "reader's native frontier. `frontier.png` draws the hard-lines rows.",
        "",
        (
            f"Candidate layouts not yet read here: {_readings(sum(unread.values()))} ("
            + ", ".join(f"{r} {n}" for r, n in unread.items())
            + "); `snapshot frontier --stage 5` takes them."
            if (unread := unread_candidates(every, page, CLAIM_READERS))
            else f"Every candidate layout is read here by all {len(CLAIM_READERS)} readers "
            "on both texts."
        ),
        "",
    ]
    for text in TEXTS:
        rows = [p for p in at_density_page if p.text == text]
        if rows:
            lines += [
                f"Text: {text}",
                "",
                frontier_table(rows, models=FRONTIER_MODELS, target=target, text=text),
            ]
    return lines


__all__ = [
    "FRONTIER_MODELS",
    "FRONTIER_READERS",
    "FrontierReport",
    "frontier_report",
    "real_page_sizes",
    "unread_candidates",
]
