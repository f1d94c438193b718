"""What the text-kept check costs: ``import_path`` against the importer's ``load`` alone.

Both read the same real pi session (2.4 MB, 990 messages) from
``../shared/corpus/formats``; ``import_path`` also detects the format and
measures how much of the file's text the conversations kept. The ratio prints
at the end of the run (conftest.py); ``test_goal`` writes ``reports/bench/import_speed.json``
and asserts what the bench journal measured when the check landed (7.6x the bare load at load
average 12, 2026-11-30): the checked import at most 10x the importer's ``load``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import results
from conftest import arms, record, shared_dir

from snapshot.transcript.formats import ImportOptions, get_format, import_path


def _session() -> Path:
    base = shared_dir()
    path = (
        None
        if base is None
        else base / "corpus" / "formats" / "pi" / "pi-mono-before-compaction.jsonl"
    )
    if path is None or not path.is_file():
        pytest.skip("the pi sample of ../shared/corpus/formats is not there (set SNAPSHOT_SHARED)")
    return path


@pytest.mark.benchmark(group="import")
def test_import_checked(benchmark: Any) -> None:
    path = _session()
    convs = record(benchmark, "import_checked", lambda: import_path(path))
    assert convs[0].meta["text_kept"] >= 0.9


@pytest.mark.benchmark(group="import")
def test_import_load_only(benchmark: Any) -> None:
    path = _session()
    fmt = get_format("pi")
    convs = record(benchmark, "import_load_only", lambda: fmt.load(path, ImportOptions()))
    assert len(convs[0].messages) > 900


def test_goal() -> None:
    a = arms("import_checked", "import_load_only")
    ratio = a["import_checked"]["median_s"] / a["import_load_only"]["median_s"]
    record = results.finish(
        results.bench_name(__file__),
        {
            "arms": a,
            "ratios": {
                "checked_over_load": results.figure(
                    ratio, "x", "import_path (detect + text-kept check) vs the importer's load"
                )
            },
            "inputs": {"session": "shared/corpus/formats/pi/pi-mono-before-compaction.jsonl"},
        },
        {
            "check_cost_ratio": results.Goal(
                ratio, "<=", 10, "x", "the bench journal's 7.6x when the check landed (issue 9)"
            )
        },
    )
    results.check(record)
