"""Every regex of the package on 1 MB adversarial strings, within a fixed budget (issue 28 item 2).

A regex with overlapping quantifiers over an unbounded run (``[\\w./-]*[\\d/_.]``
on a run of letters) backtracks quadratically: 64 KB took 81 s of CPU and 1 MB
would take hours. Every compiled pattern held by a module of ``snapshot``
(module globals, and dicts or tuples of them) is run with ``search``,
``finditer`` (to the end) and ``match`` on 1 MB strings made of one short unit
repeated: single characters of every class, pairs that alternate classes, the
pattern's own literal pieces, and units Hypothesis draws from the pattern's
characters. Python's ``re`` counts no steps, so the budget is CPU time against
a linear floor measured on the same string in the same run: at most
:data:`BUDGET_FACTOR` times the CPU of one ``str.count`` pass plus
:data:`BUDGET_FLOOR_S`, and an alarm stops a case at :data:`CASE_LIMIT_S` (the
matcher checks for signals). A linear pattern stays far inside; a quadratic one
on 1 MB is thousands of times over.

``SNAPSHOT_REGEX_MB`` (default 1) sets the size; ``SNAPSHOT_REGEX_EXAMPLES``
(default 8) the Hypothesis units per pattern. Run nice'd:
``nice -n 19 python bench/run.py regex_linear``. ``test_goal`` writes
``reports/bench/regex_linear.json``: every pattern checked, and the worst case's CPU
as a share of its budget (goal: at most 1, issue 28 item 2).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import signal
import time
from collections.abc import Iterator
from typing import Any

import pytest
import results
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import snapshot

SIZE = int(float(os.environ.get("SNAPSHOT_REGEX_MB", "1")) * 1_000_000)
EXAMPLES = int(os.environ.get("SNAPSHOT_REGEX_EXAMPLES", "8"))
BUDGET_FACTOR = 2000
BUDGET_FLOOR_S = 2.0
CASE_LIMIT_S = 60

UNITS = [
    *"aA0 \n\t/.-_<>`#*{}[]\"'\\:=,;|~@%+é",
    "a/", "a.", "0,", "a ", "aA", "0a", "a\n", "a-", "/a", "0.", "a:", "a b", "ab/",
    "x=", "a_b.", "0x0", "a'", "a0", "a1.", "Error ", "a\n\n", "<!--", "-->", "```", "**",
]  # fmt: skip


def _collect(obj: Any, where: str, out: dict[tuple[Any, int], str], depth: int = 0) -> None:
    if isinstance(obj, re.Pattern):
        out.setdefault((obj.pattern, obj.flags), where)
    elif depth < 2 and isinstance(obj, dict):
        for k, v in obj.items():
            _collect(v, f"{where}[{k!r}]", out, depth + 1)
    elif depth < 2 and isinstance(obj, (tuple, list)):
        for i, v in enumerate(obj):
            _collect(v, f"{where}[{i}]", out, depth + 1)


def all_patterns() -> dict[str, re.Pattern[str]]:
    """``{module:name: pattern}`` for every text pattern a module of snapshot holds."""
    found: dict[tuple[Any, int], str] = {}
    for info in pkgutil.walk_packages(snapshot.__path__, "snapshot."):
        if info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except Exception:  # an optional extra not installed: its patterns are not reachable
            continue
        for name, value in vars(module).items():
            _collect(value, f"{info.name}:{name}", found)
    return {
        where: re.compile(p, f)
        for (p, f), where in sorted(found.items(), key=lambda x: x[1])
        if isinstance(p, str)
    }


PATTERNS = all_patterns()


def _literals(pattern: str) -> list[str]:
    return re.findall(r"[^\\\[\]()*+?{}|^$.]{2,}", pattern)[:6]


def _units(pattern: str) -> Iterator[str]:
    yield from UNITS
    for lit in _literals(pattern):
        yield lit
        yield from (lit + tail for tail in ("a", " ", "\n", "0"))


#: pattern location -> the largest share of its budget a case of it spent; cases run
WORST: dict[str, float] = {}
CASES = [0]


class _OverBudget(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _OverBudget


def _cost(rx: re.Pattern[str], text: str) -> float:
    start = time.process_time()
    rx.search(text)
    for _ in rx.finditer(text):
        pass
    rx.match(text)
    return time.process_time() - start


def check(rx: re.Pattern[str], unit: str) -> str | None:
    """Why ``rx`` on ``unit`` repeated to SIZE is over budget, or None."""
    text = (unit * (SIZE // len(unit) + 1))[:SIZE]
    start = time.process_time()
    text.count(unit[0])
    floor = time.process_time() - start
    budget = BUDGET_FLOOR_S + BUDGET_FACTOR * floor
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_LIMIT_S)
    CASES[0] += 1
    try:
        spent = _cost(rx, text)
    except _OverBudget:
        WORST[rx.pattern] = max(WORST.get(rx.pattern, 0.0), CASE_LIMIT_S / budget)
        return f"{unit!r}: stopped after {CASE_LIMIT_S} s"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    WORST[rx.pattern] = max(WORST.get(rx.pattern, 0.0), spent / budget)
    return f"{unit!r}: {spent:.2f} s CPU, budget {budget:.2f} s" if spent > budget else None


@pytest.mark.parametrize("where", list(PATTERNS))
def test_every_pattern_is_linear_on_adversarial_megabytes(where: str) -> None:
    rx = PATTERNS[where]
    for unit in _units(rx.pattern):
        why = check(rx, unit)
        assert why is None, f"{where} {rx.pattern!r}: {why}"


@pytest.mark.parametrize("where", list(PATTERNS))
@settings(
    max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
@given(data=st.data())
def test_every_pattern_is_linear_on_drawn_units(where: str, data: st.DataObject) -> None:
    rx = PATTERNS[where]
    alphabet = sorted(set(re.sub(r"\\.", "", rx.pattern)) | set("a0 ./-\n"))
    unit = data.draw(st.text(alphabet=alphabet, min_size=1, max_size=6), label="unit")
    why = check(rx, unit)
    assert why is None, f"{where} {rx.pattern!r}: {why}"


def test_goal() -> None:
    """Every pattern was checked, and none spent more than its budget."""
    unchecked = sorted({rx.pattern for rx in PATTERNS.values()} - set(WORST))
    if len(unchecked) == len({rx.pattern for rx in PATTERNS.values()}):
        pytest.skip("no pattern was checked in this run")
    worst = max(WORST.items(), key=lambda kv: kv[1])
    record = results.finish(
        results.bench_name(__file__),
        {
            "figures": {
                "patterns": results.figure(len(PATTERNS), "patterns", "compiled patterns found"),
                "cases": results.figure(CASES[0], "cases", "pattern x 1 MB string runs"),
                "worst_share_of_budget": results.figure(
                    worst[1], "x", f"the slowest case's CPU over its budget ({worst[0][:60]!r})"
                ),
            },
            "params": {
                "mb": SIZE / 1e6,
                "hypothesis_examples": EXAMPLES,
                "budget": f"{BUDGET_FLOOR_S} s + {BUDGET_FACTOR}x one str.count pass",
            },
        },
        {
            "every_pattern_checked": results.Goal(
                len(unchecked), "==", 0, "patterns unchecked", "issue 28 item 2"
            ),
            "worst_share_of_budget": results.Goal(
                worst[1], "<=", 1, "x", "issue 28 item 2 (linear on 1 MB adversarial strings)"
            ),
        },
    )
    results.check(record)
