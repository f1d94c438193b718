"""Each profile's default layout against its own control page: the evidence the defaults rest on.

Issue 40 item 5: a profile's default is the densest layout whose weakest *qualified* reader
reads >= 0.95 of its control page at the real page and +-4 px on both hidden texts, unless
model evidence says otherwise (:func:`snapshot.profiles.default_rule.choose_default`).

This script takes the readings that question needs, smallest sample first, with the
fastest readers (``--reader``, default Tesseract x2 and PP-OCRv6 small): for each profile
page (:data:`~snapshot.legibility.weakest.PROFILE_MODELS`) and each candidate layout (the
default and every denser layout already read at that page), the cells (page size, text,
reader) are taken lowest known reading first, each as the layout's page and its control
page (:func:`~snapshot.legibility.gate.control_layout`). A candidate is settled as soon as
a qualified reader reads one cell below the bar (no further reading can save it); only a
candidate still passing gets every cell. Profiles take turns, so each gets evidence early.
Every reading is appended to ``--cache`` (default ``reports/frontier-points.jsonl``) as it
ends; ``--until HH:MM`` (UTC) stops starting new ones.

    SNAPSHOT_CORPUS=../shared/corpus nice -n 10 python bench/defaults_evidence.py --until 08:00
    python bench/defaults_evidence.py --report        # the record from the cache only

The record (``reports/bench/defaults_evidence.json``, through ``bench/results.py``) holds,
per profile, every measured cell (layout and control characters, the relative score,
whether the reader qualified) and the rule's choice with the line it rests on. Every figure
in it is measured, beside other agents' work on 2 shared cores (the load is recorded).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import results  # noqa: E402

BENCH = "defaults_evidence"
READERS = ("tesseract-x2", "ppocrv6-small")


def _cells(pp: Any, layout: Any, readers: Sequence[str]) -> list[tuple[Any, str, str]]:
    from snapshot.legibility.corpus_text import TEXTS
    from snapshot.legibility.weakest import jittered

    return [
        (layout.with_page(size), text, reader)
        for size in jittered(pp.page)
        for text in TEXTS
        for reader in readers
    ]


def measure(until: dt.datetime | None, readers: Sequence[str], cache_path: Path) -> int:
    """Take the readings, smallest deciding sample first; returns how many pages were read."""
    from snapshot.legibility.default_evidence import candidate_layouts
    from snapshot.legibility.frontier import PointCache, measure_cached
    from snapshot.legibility.gate import QUALIFY_BAR, control_layout
    from snapshot.legibility.hardlines import HELD_OUT_SEED
    from snapshot.legibility.page_readers import load_page_reader
    from snapshot.legibility.weakest import PROFILE_MODELS, profile_pages
    from snapshot.profiles.default_rule import RELATIVE_BAR

    cache = PointCache(cache_path)
    loaded = {name: load_page_reader(name) for name in readers}
    order = {name: i for i, name in enumerate(readers)}  # cheapest first
    # per profile: its candidates' remaining cells, densest candidate first
    queues: dict[str, list[tuple[Any, list[tuple[Any, str, str]]]]] = {}
    for pp in profile_pages(PROFILE_MODELS):
        queues[pp.model] = [
            (lay, _cells(pp, lay, readers)) for lay in candidate_layouts(pp.model, cache.points())
        ]
    taken = 0

    def read(lay: Any, reader: str, text: str) -> Any:
        """One reading, from the cache or taken now (counted in ``taken``: pages read)."""
        nonlocal taken
        hit = cache.get(lay, loaded[reader], HELD_OUT_SEED, 1, 1.0, text)
        if hit is None:
            hit = measure_cached(lay, loaded[reader], cache, seed=HELD_OUT_SEED, pages=1, text=text)
            taken += 1
        return hit

    # The order hint: any reading of the cell, today's reader settings or older ones (a
    # reading under older settings orders the work; it is never the evidence).
    hint: dict[tuple[str, str, str], float] = {}
    for p in cache.points():
        if p.scale == 1.0 and p.seed == HELD_OUT_SEED:
            k = (p.layout.key, p.reader_name, p.text)
            hint[k] = min(hint.get(k, 1.0), p.char_accuracy)

    def known(cell: tuple[Any, str, str]) -> float:
        lay, text, reader = cell
        return hint.get((lay.key, reader, text), 2.0 + order[reader])

    while any(queues.values()):
        for model, queue in queues.items():
            if not queue:
                continue
            if until is not None and dt.datetime.now(dt.UTC) >= until:
                print(f"--until {until:%H:%M} UTC reached: {taken} page(s) read", file=sys.stderr)
                return taken
            cells = queue[0][1]
            cells.sort(key=known)  # the lowest known reading decides soonest
            lay, text, reader = cells.pop(0)
            started = time.process_time()
            point = read(lay, reader, text)
            control = read(control_layout(lay), reader, text)
            rel = point.char_accuracy / control.char_accuracy if control.char_accuracy else 0.0
            qualified = control.char_accuracy >= QUALIFY_BAR
            print(
                f"{model}: {lay.key} {reader} {text}: {point.char_accuracy:.3f} / control "
                f"{control.char_accuracy:.3f} = {rel:.3f}"
                f"{'' if qualified else ' (not qualified)'} [{time.process_time() - started:.0f} s CPU]",
                file=sys.stderr,
                flush=True,
            )
            if (qualified and rel < RELATIVE_BAR) or not cells:
                queue.pop(0)  # settled: below the bar, or every cell read
    # Then each default at its real page by every reader on both texts: the figure a
    # profile's readability line quotes, even where a ±4 px cell already settled it.
    from snapshot.legibility.corpus_text import TEXTS

    for text in TEXTS:  # hard lines first on every page, then the corpus
        for pp in profile_pages(PROFILE_MODELS):
            for reader in readers:
                if until is not None and dt.datetime.now(dt.UTC) >= until:
                    return taken
                read(pp.layout, reader, text)
                read(control_layout(pp.layout), reader, text)
    return taken


def report(cache_path: Path, taken: int, readers: Sequence[str]) -> dict[str, Any]:
    """The record: per profile, the measured cells and the rule's choice."""
    from snapshot.legibility.default_evidence import (
        candidate_layouts,
        profile_choice,
        relative_readings,
    )
    from snapshot.legibility.frontier import PointCache
    from snapshot.legibility.weakest import PROFILE_MODELS, profile_pages

    points = PointCache(cache_path).points()
    profiles: dict[str, Any] = {}
    qualified_cells = 0
    for pp in profile_pages(PROFILE_MODELS):
        cells = []
        for lay in candidate_layouts(pp.model, points):
            for r in relative_readings(points, lay):
                cells.append({**r.as_dict(), "layout": lay.key.rsplit(" ", 1)[0]})
                qualified_cells += r.qualified
        choice = profile_choice(pp.model, points)
        profiles[pp.model] = {
            "default": pp.layout.key,
            "choice": choice.layout,
            "kind": choice.kind,
            "rests_on": choice.rests_on,
            "cells": cells,
        }
    res = {
        "figures": {
            "pages_read": results.figure(
                taken, "pages", "full pages read this run (layouts and controls; cached ones not)"
            ),
            "qualified_cells": results.figure(
                qualified_cells,
                "cells",
                "cells with a control and a qualified reader (all profiles)",
            ),
        },
        "params": {"readers": list(readers), "cache": str(cache_path.relative_to(ROOT))},
        "profiles": profiles,
    }
    goals = {
        "every_profile_has_evidence": results.Goal(
            value=float(sum(1 for p in profiles.values() if p["cells"])),
            op=">=",
            target=float(len(profiles)),
            unit="profiles",
            source="issue 40 item 5: every default says which evidence it rests on",
        )
    }
    return results.finish(BENCH, res, goals)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reader", action="append", help=f"page reader (default {', '.join(READERS)})")
    ap.add_argument("--cache", default=str(ROOT / "reports" / "frontier-points.jsonl"))
    ap.add_argument("--until", metavar="HH:MM", help="start no new reading after this UTC time")
    ap.add_argument("--report", action="store_true", help="only write the record from the cache")
    args = ap.parse_args(argv)
    readers = tuple(args.reader or READERS)
    until = None
    if args.until:
        h, m = (int(x) for x in args.until.split(":"))
        until = dt.datetime.now(dt.UTC).replace(hour=h, minute=m, second=0, microsecond=0)
    results.begin(BENCH)
    taken = 0 if args.report else measure(until, readers, Path(args.cache))
    record = report(Path(args.cache), taken, readers)
    return 0 if record["passed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
