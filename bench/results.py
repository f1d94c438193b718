"""One shape for every bench's results: ``reports/bench/<bench>.json``.

Each bench module ends with a ``test_goal`` that gathers what its tests measured,
calls :func:`finish` (which writes the file) and then :func:`check` (which fails the
run when a goal is missed: the file is written either way, with ``"passed": false``).
The shape is a contract the README tables (``bench/tables.py``) and the project
README read::

    {"bench": "raster_speed", "date": "2026-12-06T04:30:00Z",
     "machine": {"cpu": ..., "cores": 2, "python": "3.11.7", "platform": ...},
     "load": {"start": [1m, 5m, 15m], "end": [1m, 5m, 15m]},
     "results": {"arms": {name: {"median_s", "min_s", "mean_s", "stddev_s", "rounds"}},
                 "ratios": {name: {"value", "unit", "what"}},
                 "figures": {name: {"value", "unit", "what"}},
                 "params": {...}, "inputs": {...}},
     "goal": {name: {"value", "op", "target", "unit", "source", "passed"}},
     "passed": true, "status": "measured"}

Only stdlib: ``bench/tables.py`` and ``tests/test_bench_tables.py`` read these files
without pytest-benchmark.

>>> g = Goal(value=64.0, op=">=", target=20.0, unit="x", source="issue 1")
>>> g.passed
True
>>> record = build("demo", {"figures": {}}, {"pillow": g}, start=[0.1, 0.1, 0.1])
>>> record["passed"], record["goal"]["pillow"]["passed"], record["status"]
(True, True, 'measured')
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import platform
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Where the files go: ``$SNAPSHOT_BENCH_OUT`` or the checkout's ``reports/bench``.
OUT_ENV = "SNAPSHOT_BENCH_OUT"
#: A figure counts as taken under load when the 1-minute load average, at the start
#: or the end of its bench, was above this many runnable processes per core: then
#: other processes had a share of the cores the bench wanted (this VM is shared).
UNDER_LOAD_PER_CORE = 0.5
KEYS = ("bench", "date", "machine", "load", "results", "goal", "passed", "status")
_OPS = {
    ">=": lambda v, t: v >= t,
    "<=": lambda v, t: v <= t,
    ">": lambda v, t: v > t,
    "<": lambda v, t: v < t,
    "==": lambda v, t: v == t,
}
#: bench -> load average when its first test started (conftest's module fixture)
_STARTED: dict[str, list[float]] = {}


@dataclass(frozen=True)
class Goal:
    """A measured ``value`` against a ``target``; ``source`` says who set the goal."""

    value: float
    op: str
    target: float
    unit: str
    source: str

    @property
    def passed(self) -> bool:
        return not math.isnan(self.value) and bool(_OPS[self.op](self.value, self.target))

    def as_dict(self) -> dict[str, Any]:
        return {
            "value": _round(self.value),
            "op": self.op,
            "target": self.target,
            "unit": self.unit,
            "source": self.source,
            "passed": self.passed,
        }


def _round(x: float) -> float:
    """Four significant digits: the files stay readable and diffs small."""
    return float(f"{x:.4g}") if math.isfinite(x) else x


def figure(value: float, unit: str, what: str) -> dict[str, Any]:
    """One named figure or ratio of ``results``."""
    return {"value": _round(float(value)), "unit": unit, "what": what}


def arm(stats: Any) -> dict[str, Any]:
    """pytest-benchmark's statistics of one arm (``benchmark.stats.stats``), in seconds."""
    return {
        "median_s": _round(float(stats.median)),
        "min_s": _round(float(stats.min)),
        "mean_s": _round(float(stats.mean)),
        "stddev_s": _round(float(stats.stddev)) if stats.rounds > 1 else 0.0,
        "rounds": int(stats.rounds),
    }


def utc_now() -> str:
    """Now, UTC, to the second, as the records write it (``2026-12-06T04:30:00Z``)."""
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def load() -> list[float]:
    """The 1-, 5- and 15-minute load averages (NaN where the OS has none)."""
    if not hasattr(os, "getloadavg"):
        return [math.nan] * 3
    return [round(x, 2) for x in os.getloadavg()]


def begin(bench: str) -> None:
    """Remember the load at the bench's start (the first call for ``bench`` wins)."""
    _STARTED.setdefault(bench, load())


def machine() -> dict[str, Any]:
    """CPU model, cores, Python and platform of this machine."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count() or 1,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def under_load(record: dict[str, Any]) -> bool:
    """Whether the bench ran beside other work (see :data:`UNDER_LOAD_PER_CORE`)."""
    cores = record["machine"]["cores"] or 1
    peak = max(record["load"]["start"][0], record["load"]["end"][0])
    return bool(peak > UNDER_LOAD_PER_CORE * cores)


def build(
    bench: str,
    results: dict[str, Any],
    goals: dict[str, Goal],
    *,
    start: list[float] | None = None,
) -> dict[str, Any]:
    """The record of one run of ``bench`` (see the module's docstring for its shape)."""
    if not goals:
        raise ValueError(f"{bench}: a bench asserts at least one goal")
    return {
        "bench": bench,
        "date": utc_now(),
        "machine": machine(),
        "load": {"start": start or _STARTED.get(bench) or load(), "end": load()},
        "results": results,
        "goal": {name: goal.as_dict() for name, goal in goals.items()},
        "passed": all(goal.passed for goal in goals.values()),
        "status": "measured",
    }


def out_dir() -> Path:
    return Path(os.environ.get(OUT_ENV) or ROOT / "reports" / "bench")


def write(record: dict[str, Any]) -> Path:
    """Write ``record`` to ``<out>/<bench>.json`` (sorted keys: stable diffs)."""
    folder = out_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{record['bench']}.json"
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def finish(bench: str, results: dict[str, Any], goals: dict[str, Goal]) -> dict[str, Any]:
    """Build the record, write it, print where; :func:`check` it afterwards."""
    record = build(bench, results, goals)
    path = write(record)
    loaded = " (under load)" if under_load(record) else ""
    print(f"\n{bench}: wrote {path}; passed={record['passed']}{loaded}", file=sys.stderr)
    return record


def check(record: dict[str, Any]) -> None:
    """Fail, naming each missed goal with its figure, unless every goal passed."""
    missed = [
        f"{name}: {g['value']} {g['unit']} (goal {g['op']} {g['target']}, {g['source']})"
        for name, g in record["goal"].items()
        if not g["passed"]
    ]
    load_note = f"; load {record['load']['start'][0]} -> {record['load']['end'][0]}"
    assert not missed, f"{record['bench']}: goal missed: " + "; ".join(missed) + load_note


def bench_name(module_file: str) -> str:
    """``bench/test_raster_speed.py`` -> ``raster_speed``."""
    return Path(module_file).stem.removeprefix("test_")
