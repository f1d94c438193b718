"""Every family's default page against its readers' own control pages: the evidence the
defaults rest on (issue 40 item 5 and the first half of its done-when).

Issue 40's done-when: for every default profile's real page, at least two *qualified*
readers (control page >= 0.93 of the characters), each reading the layout at >= 0.95 of
its own control on both hidden texts, at the real page and ±4 px. A profile's default is
the densest layout that passes, unless model evidence says otherwise
(:func:`snapshot.profiles.default_rule.choose_default`).

Which pages: every vision family's default page
(:func:`snapshot.legibility.default_evidence.family_defaults`: one model stands for its
family; families drawing the same layout on the same page share the readings). A *cell*
is one page size (real, +4 px, -4 px) and one hidden text; a reader is tried on a cell
control page first, and reads the layout only where its control qualifies. The work is
taken in this order, each step over every family before the next step starts:

1. each family's default: every cell gets two qualified readers (readers tried in
   ``--reader`` order, cheapest first), families taking turns cell by cell;
2. the same cells get a third, then a fourth qualified reader, so the weakest qualified
   reader is found;
3. then the denser layouts already read at a family's page (a candidate is settled as
   soon as a qualified reader reads one cell below the bar).

``--jobs N`` reads N pages at once (processes; the readers are single-threaded). Every
reading is appended to ``--cache`` (default ``reports/frontier-points.jsonl``) as it ends;
``--until HH:MM`` (UTC) starts no new reading after that time.

    SNAPSHOT_CORPUS=../shared/corpus nice -n 10 python bench/defaults_evidence.py --jobs 2 --until 11:38
    python bench/defaults_evidence.py --report        # the record from the cache only

The record (``reports/bench/defaults_evidence.json``, through ``bench/results.py``) holds,
per family, its model, page and layout, every measured cell (layout and control
characters, the relative score, whether the reader qualified), the readers' verdict and
the default rule's choice; its goal is the done-when's first half. Every figure in it is
measured, beside other agents' work on 2 shared cores (the load is recorded). OCR readers
are proxies for models: a family passing here rests on readers, not on the model.
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import results  # noqa: E402

BENCH = "defaults_evidence"
#: Every installed reader, cheapest per page first (``bench/test_reader_speed.py``).
READERS = ("tesseract-x2", "ppocrv6-small", "rapidocr-v4", "ppocrv5")

#: One page reading: the layout (or its control page), the reader, the hidden text.
Task = tuple[Any, str, str]


def _cells(layout: Any) -> list[tuple[Any, str]]:
    """The layout at its real page and ±4 px, each on both hidden texts: real page first."""
    from snapshot.profiles.default_rule import HIDDEN_TEXTS, jittered

    return [
        (layout.with_page(size), text) for size in jittered(layout.page) for text in HIDDEN_TEXTS
    ]


class Planner:
    """Which reading to take next, from what the cache holds and what is being read.

    ``units`` are the layouts to read, in groups taken in order (the family defaults,
    then the denser candidates); within a group, a cell needs ``tier`` qualified readers
    before any cell of the group gets ``tier + 1``."""

    def __init__(
        self,
        groups: Sequence[Sequence[Any]],
        readers: Sequence[str],
        lookup: Callable[[Any, str, str], Any],
        *,
        settle: Sequence[bool] = (),
    ) -> None:
        self.groups = [list(dict.fromkeys(g)) for g in groups]  # a shared layout read once
        self.readers = list(readers)
        self.lookup = lookup  # (layout, reader, text) -> Point | None
        self.settle = list(settle) or [False] * len(self.groups)

    def _state(self, lay: Any, reader: str, text: str, busy: set[Task]) -> str:
        """``qualified`` (both read, control qualifies), ``unqualified``, ``busy`` (a reading
        of this reader on this cell is being taken), ``layout`` (its control qualifies, the
        layout is still to read) or ``fresh``."""
        from snapshot.legibility.controls import QUALIFY_BAR, control_layout

        ctl = control_layout(lay)
        if (ctl, reader, text) in busy or (lay, reader, text) in busy:
            return "busy"
        c = self.lookup(ctl, reader, text)
        if c is None:
            return "fresh"
        if c.char_accuracy < QUALIFY_BAR:
            return "unqualified"
        return "qualified" if self.lookup(lay, reader, text) is not None else "layout"

    def _below(self, layout: Any) -> bool:
        """Some qualified reader reads a cell of ``layout`` below the bar (settled)."""
        from snapshot.legibility.controls import QUALIFY_BAR, control_layout
        from snapshot.profiles.default_rule import RELATIVE_BAR

        for lay, text in _cells(layout):
            for reader in self.readers:
                c = self.lookup(control_layout(lay), reader, text)
                p = self.lookup(lay, reader, text)
                if (
                    c is not None
                    and p is not None
                    and c.char_accuracy >= QUALIFY_BAR
                    and p.char_accuracy < RELATIVE_BAR * c.char_accuracy
                ):
                    return True
        return False

    def tasks(self, busy: set[Task]) -> Iterator[Task]:
        """The readings still owed, most wanted first (none of them in ``busy``)."""
        from snapshot.legibility.controls import control_layout

        for group, settle in zip(self.groups, self.settle, strict=True):
            live = [u for u in group if not (settle and self._below(u))]
            for tier in range(2, len(self.readers) + 1):
                for index in range(6):  # cell by cell, every layout of the group in turn
                    for unit in live:
                        lay, text = _cells(unit)[index]
                        states = {r: self._state(lay, r, text, busy) for r in self.readers}
                        # readers in order until the cell has ``tier`` (a reader whose
                        # control is read and qualifies still counts only when its turn comes)
                        have = sum(s in ("qualified", "busy") for s in states.values())
                        for reader in self.readers:
                            if have >= tier:
                                break
                            if states[reader] == "layout":  # its control qualified: half read
                                have += 1
                                yield (lay, reader, text)
                            elif states[reader] == "fresh":
                                have += 1
                                yield (control_layout(lay), reader, text)

    def next(self, busy: set[Task]) -> Task | None:
        return next(self.tasks(busy), None)


def _read(task: Task) -> tuple[dict[str, Any], float]:
    """One page reading in a worker process: the point (as a dict) and its CPU seconds."""
    from snapshot.legibility.frontier import measure
    from snapshot.legibility.hardlines import HELD_OUT_SEED
    from snapshot.legibility.page_readers import load_page_reader

    def cpu() -> float:  # this process and the engines it runs (Tesseract is a subprocess)
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system

    layout, reader, text = task
    started = cpu()
    point = measure(layout, load_page_reader(reader), seed=HELD_OUT_SEED, pages=1, text=text)
    return point.as_dict(), cpu() - started


def measure_all(
    until: dt.datetime | None, readers: Sequence[str], cache_path: Path, jobs: int
) -> int:
    """Take the readings the planner asks for until none is owed or ``until``; returns how
    many pages were read."""
    from snapshot.legibility.default_evidence import candidate_layouts, family_defaults
    from snapshot.legibility.frontier import Point, PointCache
    from snapshot.legibility.hardlines import HELD_OUT_SEED
    from snapshot.legibility.page_readers import load_page_reader

    cache = PointCache(cache_path)
    loaded = {name: load_page_reader(name) for name in readers}  # the cache keys need them

    def lookup(lay: Any, reader: str, text: str) -> Any:
        return cache.get(lay, loaded[reader], HELD_OUT_SEED, 1, 1.0, text)

    fams = family_defaults()
    defaults = [f.layout for f in fams]
    denser = [
        lay for f in fams for lay in candidate_layouts(f.model, cache.points()) if lay != f.layout
    ]
    planner = Planner([defaults, denser], readers, lookup, settle=[False, True])
    taken = 0
    busy: dict[Future[tuple[dict[str, Any], float]], Task] = {}

    def done(task: Task, point: dict[str, Any], cpu: float) -> None:
        nonlocal taken
        cache.put(Point.from_dict(point))
        taken += 1
        lay, reader, text = task
        print(
            f"{lay.key} {reader} {text}: {point['char_accuracy']:.3f} [{cpu:.0f} s CPU]",
            file=sys.stderr,
            flush=True,
        )

    def late() -> bool:
        return until is not None and dt.datetime.now(dt.UTC) >= until

    if jobs <= 1:
        while not late() and (task := planner.next(set())) is not None:
            done(task, *_read(task))
        return taken
    # spawned, not forked: the parent holds loaded ONNX sessions (their threads do not fork)
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        while True:
            while len(busy) < jobs and not late():
                task = planner.next(set(busy.values()))
                if task is None:
                    break
                busy[pool.submit(_read, task)] = task
            if not busy:
                break
            finished, _ = wait(busy, return_when=FIRST_COMPLETED)
            for fut in finished:
                done(busy.pop(fut), *fut.result())
    if late():
        print(f"--until {until:%H:%M} UTC reached: {taken} page(s) read", file=sys.stderr)
    return taken


def owed(until_tier: int, readers: Sequence[str], cache_path: Path) -> list[tuple[str, int, Task]]:
    """The readings the family defaults still owe up to ``until_tier`` qualified readers
    per cell, as the planner would take them were every control to qualify: (group, tier,
    reading). What ``--plan`` prints, with a CPU estimate, before a run."""
    from snapshot.legibility.default_evidence import family_defaults
    from snapshot.legibility.frontier import PointCache
    from snapshot.legibility.hardlines import HELD_OUT_SEED
    from snapshot.legibility.page_readers import load_page_reader

    cache = PointCache(cache_path)
    loaded = {name: load_page_reader(name) for name in readers}
    assumed: dict[Task, Any] = {}

    class _Qualified:
        char_accuracy = 1.0

    def lookup(lay: Any, reader: str, text: str) -> Any:
        if (lay, reader, text) in assumed:
            return assumed[(lay, reader, text)]
        return cache.get(lay, loaded[reader], HELD_OUT_SEED, 1, 1.0, text)

    out = []
    for tier in range(2, until_tier + 1):
        planner = Planner([[f.layout for f in family_defaults()]], readers[:tier], lookup)
        while (task := planner.next(set())) is not None:
            assumed[task] = _Qualified()
            out.append(("defaults", tier, task))
    return out


def _estimate_cpu(task: Task) -> float:
    """A reading's CPU seconds, estimated: the measured full-page figure of its reader
    (``snapshot.report.reader_plan.PAGE_CPU_S``, snap8x16 on 1540x1540) scaled by area."""
    from snapshot.report.reader_plan import PAGE_CPU_S

    lay, reader, _ = task
    per = PAGE_CPU_S.get(reader, {})
    w, h = lay.page
    return per.get(lay.font, per.get("*", 60.0)) * (w * h) / (1540 * 1540)


def family_record(fam: Any, points: Sequence[Any]) -> dict[str, Any]:
    """One family: its page, every measured cell of its default, the readers' verdict
    (the done-when) and the default rule's choice."""
    from snapshot.legibility.controls import QUALIFY_BAR, control_layout
    from snapshot.legibility.default_evidence import profile_choice, relative_readings, style_of
    from snapshot.legibility.hardlines import HELD_OUT_SEED
    from snapshot.profiles.default_rule import readers_outcome

    readings = relative_readings(points, fam.layout)
    outcome = readers_outcome(style_of(fam.layout), readings, fam.layout.page)
    judged = sorted({r.reader for r in readings if r.qualified})
    # readers whose control page is below the bar at a cell: shown, never deciding
    unqualified = sorted(
        f"{p.reader_name} on {p.text} at {p.layout.page[0]}x{p.layout.page[1]}: control "
        f"{p.char_accuracy:.3f}"
        for lay, text in _cells(fam.layout)
        for p in points
        if p.layout == control_layout(lay)
        and p.text == text
        and p.seed == HELD_OUT_SEED
        and p.scale == 1.0
        and p.char_accuracy < QUALIFY_BAR
    )
    return {
        "model": fam.model,
        "page": list(fam.layout.page),
        "layout": style_of(fam.layout),
        "readers_verdict": outcome.verdict,
        "readers_line": outcome.line,
        "readers_short": outcome.short,
        "qualified_readers": judged,
        "unqualified": unqualified,
        "weakest_relative": outcome.weakest,
        "cells": [r.as_dict() for r in readings],
        "default_rule": profile_choice(fam.model, points).as_dict(),
    }


def _span(values: Any) -> str:
    """``lo-hi`` of the non-empty strings given (sorted as text), or "unknown"."""
    got = sorted(v for v in values if v)
    return f"{got[0]} to {got[-1]}" if got else "unknown"


def report(cache_path: Path, taken: int, readers: Sequence[str], jobs: int) -> dict[str, Any]:
    """The record: per family, its default page's cells, verdict and the rule's choice."""
    from snapshot.legibility.default_evidence import family_defaults
    from snapshot.legibility.frontier import PointCache
    from snapshot.profiles.default_rule import MIN_READERS, RELATIVE_BAR

    points = PointCache(cache_path).points()
    families = {f.family: family_record(f, points) for f in family_defaults()}
    passing = [f for f, r in families.items() if r["readers_verdict"] == "pass"]
    res = {
        "figures": {
            "pages_read": results.figure(
                taken, "pages", "full pages read this run (layouts and controls; cached ones not)"
            ),
            # the readings behind the verdicts were taken in earlier runs: their own times
            # and loads, not this run's (a --report run reads none)
            "readings_measured": results.figure(
                len(points),
                "readings",
                "cached readings at current reader settings: measured "
                + _span(p.measured_at for p in points)
                + ", 1-minute load "
                + _span(f"{p.load:.1f}" for p in points if p.load is not None),
            ),
            "qualified_cells": results.figure(
                sum(c["qualified"] for r in families.values() for c in r["cells"]),
                "cells",
                "readings of a family default beside a qualified control (all families)",
            ),
        },
        "params": {
            "readers": list(readers),
            "jobs": jobs,
            "cache": str(cache_path.relative_to(ROOT))
            if cache_path.is_relative_to(ROOT)
            else str(cache_path),
            "labels": "measured; OCR readers are proxies for models",
        },
        "families": families,
    }
    goals = {
        "families_whose_default_two_qualified_readers_pass": results.Goal(
            value=float(len(passing)),
            op=">=",
            target=float(len(families)),
            unit="families",
            source=(
                f"issue 40 done-when: every family's default page has >= {MIN_READERS} "
                f"qualified readers on every cell (real page and ±4 px, both hidden texts), "
                f"each >= {RELATIVE_BAR} of its own control"
            ),
        )
    }
    for family, r in families.items():
        print(f"{family} ({r['model']}, {r['layout']} {r['page'][0]}x{r['page'][1]}): "
              f"{r['readers_verdict']}: {r['readers_line']}", file=sys.stderr)  # fmt: skip
    return results.finish(BENCH, res, goals)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reader", action="append", help=f"page reader (default {', '.join(READERS)})")
    ap.add_argument("--cache", default=str(ROOT / "reports" / "frontier-points.jsonl"))
    ap.add_argument("--until", metavar="HH:MM", help="start no new reading after this UTC time")
    ap.add_argument("--jobs", type=int, default=1, help="pages read at once (processes)")
    ap.add_argument("--report", action="store_true", help="only write the record from the cache")
    ap.add_argument(
        "--plan", action="store_true", help="print the readings owed and their CPU, estimated"
    )
    args = ap.parse_args(argv)
    readers = tuple(args.reader or READERS)
    if args.plan:
        from collections import Counter

        rows = owed(len(readers), readers, Path(args.cache).resolve())
        pages: Counter[tuple[int, str]] = Counter()
        cpu: dict[tuple[int, str], float] = {}
        for _, tier, task in rows:
            pages[(tier, task[1])] += 1
            cpu[(tier, task[1])] = cpu.get((tier, task[1]), 0.0) + _estimate_cpu(task)
        for key in sorted(pages):
            print(f"defaults, reader #{key[0]} per cell, {key[1]}: {pages[key]} pages, "
                  f"~{cpu[key]:.0f} s CPU (estimated)")  # fmt: skip
        print(f"all: {sum(pages.values())} pages, ~{sum(cpu.values()):.0f} s CPU (estimated)")
        return 0
    until = None
    if args.until:
        h, m = (int(x) for x in args.until.split(":"))
        until = dt.datetime.now(dt.UTC).replace(hour=h, minute=m, second=0, microsecond=0)
    results.begin(BENCH)
    cache = Path(args.cache).resolve()
    taken = 0 if args.report else measure_all(until, readers, cache, max(1, args.jobs))
    record = report(cache, taken, readers, max(1, args.jobs))
    return 0 if record["passed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
