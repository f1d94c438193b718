"""The long fuzz run (issue 28 item 6): every importer and command on mutated real samples.

The bounded suite in ``tests/test_fuzz_hostile_inputs.py`` runs a few cases per
format; this runs ``SNAPSHOT_FUZZ_EXAMPLES`` (default 150) per format with
huge strings of ``SNAPSHOT_FUZZ_HUGE`` characters (default 2,000,000), and on
every case the commands a user runs on a file: ``import --json --out``,
``export --to`` each target, ``tree``, and ``compact`` (no summary call).
Each case has ``SNAPSHOT_FUZZ_CASE_S`` seconds (default 120) before it counts
as a hang. A traceback (an exception other than a SnapshotError escaping a
library call, or escaping ``snapshot.cli.main``) or a hang fails the case;
Hypothesis then shrinks it to the smallest input that still fails.

Run nice'd: ``nice -n 19 python bench/run.py fuzz_long``. ``test_goal`` writes
``reports/bench/fuzz_long.json`` and asserts issue 28 item 6: 0 tracebacks, 0 hangs
(a format whose case failed counts, whatever Hypothesis shrank it to).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import results
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fuzz_inputs import bounded, check_case, main_file, mutate, seeds, small_copy

from snapshot import cli

SEEDS = seeds()
EXAMPLES = int(os.environ.get("SNAPSHOT_FUZZ_EXAMPLES", "150"))
HUGE = int(os.environ.get("SNAPSHOT_FUZZ_HUGE", "2000000"))
CASE_S = int(os.environ.get("SNAPSHOT_FUZZ_CASE_S", "120"))
CASES: dict[str, int] = {}
#: formats with a failing case (a traceback or a hang)
FAILED: set[str] = set()


def _commands(case: Path, work: Path) -> list[list[str]]:
    c = str(case)
    out = [["import", c, "--json", "--out", str(work / "conversations.json")], ["tree", c]]
    out += [
        ["export", c, "--to", target]
        for target in ("anthropic", "openai", "openai-responses", "gemini", "markdown")
    ]
    compact = ["--model", "gpt-5.1", "--budget", "2000", "--summarizer", "none"]
    out.append(["compact", c, *compact, "--out", str(work / "compact")])
    return out


@pytest.mark.skipif(not SEEDS, reason="format samples not found (set SNAPSHOT_CORPUS)")
@pytest.mark.parametrize("folder", sorted(SEEDS) or ["none"])
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(data=st.data())
def test_long_fuzz_every_importer_and_command(
    folder: str,
    data: st.DataObject,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")
    fmt, src = SEEDS[folder]
    work = tmp_path_factory.mktemp("long")
    case = small_copy(src, work / src.name)
    target = main_file(case)
    target.write_bytes(mutate(target.read_bytes(), data, huge=HUGE))
    CASES[folder] = CASES.get(folder, 0) + 1
    try:
        with bounded(CASE_S):
            check_case(case, fmt)
            check_case(case, None)
            for argv in _commands(case, work):
                code = cli.main(argv)
                capsys.readouterr()
                assert code in (0, 1, 2), (argv, code)
    except BaseException:
        FAILED.add(folder)
        raise


def summary_lines() -> list[str]:
    total = sum(CASES.values())
    return [f"long fuzz: {total} cases over {len(CASES)} formats, each with every command"]


def test_goal() -> None:
    if not CASES:
        pytest.skip("no fuzz case ran")
    record = results.finish(
        results.bench_name(__file__),
        {
            "figures": {
                "cases": results.figure(
                    sum(CASES.values()), "cases", "mutated samples, every command"
                ),
                "formats": results.figure(len(CASES), "formats", "one real sample each"),
            },
            "params": {
                "examples": EXAMPLES,
                "huge_chars": HUGE,
                "case_s": CASE_S,
                "failed": sorted(FAILED),
            },
        },
        {"formats_failed": results.Goal(len(FAILED), "==", 0, "formats", "issue 28 item 6")},
    )
    results.check(record)
