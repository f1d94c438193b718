"""Peak memory of importing a large Claude Code session (issue 9: "bounded memory").

A session of 50 and 500 MB is built from a real Claude Code session of the
shared corpus (:mod:`claude_code_session`: its records repeated with fresh
uuid chains, in a temp dir). Each case imports it in a fresh subprocess and
reports that process's peak RSS (its own ``ru_maxrss``) and CPU time:

- ``cli``: ``snapshot import FILE --out conversations.json --json``;
- ``api``: ``snapshot.import_conversation(FILE)`` (detection, the importer,
  the text-kept check);
- ``load``: the Claude Code importer's ``load`` alone;
- ``floor``: the interpreter with ``snapshot.api`` imported, nothing read.

Sizes: ``SNAPSHOT_IMPORT_MB`` (default ``50,500``). ``test_goal`` writes
``reports/bench/import_memory.json`` and asserts bounded memory as issue 9's streaming
left it (the journal: 0.10 MB of RSS per MB of file, 2026-11-30): the command's peak
RSS grows by at most 0.2 MB per MB of file between the smallest and largest size.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import results
from claude_code_session import SAMPLE, build
from conftest import PEAK_RSS, STATS, peak_child, record, shared_dir

#: name -> figures for the summary (bytes of the input, rss, cpu, messages)
FIGURES: dict[str, dict[str, float]] = {}

SIZES = [int(x) for x in os.environ.get("SNAPSHOT_IMPORT_MB", "50,500").split(",") if x]

_MEASURE = (
    PEAK_RSS
    + """
import json, sys, time
from pathlib import Path
t = time.process_time()
kind, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
messages = 0
if kind == "cli":
    from snapshot.cli import main
    code = main(["import", src, "--out", out, "--json"])
elif kind == "api":
    import snapshot
    conv = snapshot.import_conversation(src)
    messages, code = len(conv.messages), 0
elif kind == "load":
    from snapshot.transcript.formats import ImportOptions, get_format
    convs = get_format("claude-code-jsonl").load(Path(src), ImportOptions())
    messages, code = sum(len(c.messages) for c in convs), 0
else:  # floor: what the interpreter holds before reading anything
    import snapshot.api
    code = 0
cpu = time.process_time() - t
rss = peak_rss()
print(json.dumps({"code": code, "rss": rss, "cpu": cpu, "messages": messages}), file=sys.stderr)
"""
)


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    base = shared_dir()
    if base is None or not (base / SAMPLE).is_file():
        pytest.skip(f"the Claude Code sample {SAMPLE} is not under ../shared (set SNAPSHOT_SHARED)")
    root = tmp_path_factory.mktemp("claude-code-big")
    out = {}
    for mb in SIZES:
        path = root / f"session-{mb}mb.jsonl"
        build(base / SAMPLE, path, mb)
        out[mb] = path
    return out


@pytest.mark.benchmark(group="import-memory")
@pytest.mark.parametrize("kind", ["cli", "api", "load"])
@pytest.mark.parametrize("mb", SIZES)
def test_import_peak_rss(
    benchmark: Any, sessions: dict[int, Path], tmp_path: Path, kind: str, mb: int
) -> None:
    src = sessions[mb]
    result: dict[str, float] = {}

    def run() -> None:
        result.update(peak_child(_MEASURE, kind, str(src), str(tmp_path / "conversations.json")))

    record(benchmark, f"import_rss_{kind}_{mb}", run, rounds=1, iterations=1)
    FIGURES[f"import_rss_{kind}_{mb}"] = {"bytes": src.stat().st_size, **result}


@pytest.mark.benchmark(group="import-memory")
def test_import_floor_rss(benchmark: Any, tmp_path: Path) -> None:
    result: dict[str, float] = {}

    def run() -> None:
        result.update(peak_child(_MEASURE, "floor", str(tmp_path), str(tmp_path / "unused")))

    record(benchmark, "import_rss_floor", run, rounds=1, iterations=1)
    FIGURES["import_rss_floor"] = {"bytes": 0, **result}


def summary_lines() -> list[str]:
    """One line per case: peak RSS, MB of RSS per MB of file, and growth between sizes."""
    out = []
    floor = FIGURES.get("import_rss_floor", {}).get("rss")
    if floor:
        out.append(f"import floor (snapshot.api imported): peak RSS {floor / 1e6:.0f} MB")
    for kind in ("cli", "api", "load"):
        rows = sorted(
            (f["bytes"], f["rss"], f["cpu"])
            for k, f in FIGURES.items()
            if k.startswith(f"import_rss_{kind}_")
        )
        for size, rss, cpu in rows:
            out.append(
                f"import {kind} {size / 1e6:.0f} MB Claude Code session: peak RSS "
                f"{rss / 1e6:.0f} MB ({rss / size:.2f} MB per MB of file), CPU {cpu:.1f} s"
            )
        if len(rows) >= 2:
            (s0, r0, _), (s1, r1, _) = rows[0], rows[-1]
            out.append(
                f"import {kind}: growth {(r1 - r0) / (s1 - s0):.3f} MB of RSS per MB of file"
            )
    return out


def test_goal() -> None:
    rows = sorted((f["bytes"], k) for k, f in FIGURES.items() if k.startswith("import_rss_cli_"))
    if len(rows) < 2:
        pytest.skip("the growth needs two sizes of the cli case (SNAPSHOT_IMPORT_MB)")
    (s0, k0), (s1, k1) = rows[0], rows[-1]
    growth = (FIGURES[k1]["rss"] - FIGURES[k0]["rss"]) / (s1 - s0)
    figures = {
        f"{k.removeprefix('import_rss_')}_peak_rss_mb": results.figure(
            f["rss"] / 1e6,
            "MB",
            "interpreter with snapshot.api imported"
            if k.endswith("floor")
            else f"{k.split('_')[2]} of a {f['bytes'] / 1e6:.0f} MB Claude Code session",
        )
        for k, f in sorted(FIGURES.items())
    }
    figures |= {
        f"{k.removeprefix('import_rss_')}_cpu_s": results.figure(
            f["cpu"], "s", "CPU of that process"
        )
        for k, f in sorted(FIGURES.items())
    }
    record = results.finish(
        results.bench_name(__file__),
        {
            "arms": {k: STATS[k] for k in sorted(FIGURES) if k in STATS},
            "figures": figures,
            "ratios": {
                "cli_growth_mb_per_mb": results.figure(
                    growth, "MB/MB", "peak RSS growth per MB of file, snapshot import"
                )
            },
            "params": {"sizes_mb": SIZES},
        },
        {
            "cli_growth": results.Goal(
                growth, "<=", 0.2, "MB per MB", "issue 9 (journal: 0.10 after streaming)"
            )
        },
    )
    results.check(record)
