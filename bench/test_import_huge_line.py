"""Peak memory of importing a file with one 500 MB line (issue 28 item 4).

The importer skips a record over ``MAX_RECORD_BYTES`` (32 MiB); nothing else
may read it whole either (the text-kept check in ``coverage`` used to: 1.52 GB
peak for such a file). A Claude Code session of four ordinary records with one
user record of ``SNAPSHOT_HUGE_LINE_MB`` (default 500) MB between them is
imported with ``snapshot import FILE --out conversations.json`` in a fresh
subprocess, beside the same session without the huge line (the floor), in one
run. The bound asserted is the issue's: at most 200 MB peak RSS; ``test_goal`` writes
``reports/bench/import_huge_line.json``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import results
from conftest import PEAK_RSS, arms, peak_child, record

HUGE_MB = int(os.environ.get("SNAPSHOT_HUGE_LINE_MB", "500"))
LIMIT_BYTES = 200 * 1000 * 1000

FIGURES: dict[str, dict[str, float]] = {}

_MEASURE = (
    PEAK_RSS
    + """
import json, sys, time
t = time.process_time()
from snapshot.cli import main
code = main(["import", sys.argv[1], "--out", sys.argv[2]])
cpu = time.process_time() - t
print(json.dumps({"code": code, "rss": peak_rss(), "cpu": cpu}), file=sys.stderr)
"""
)


def _record(uuid: str, parent: str | None, role: str, text: str) -> str:
    return json.dumps(
        {
            "sessionId": "huge",
            "isSidechain": False,
            "type": role,
            "uuid": uuid,
            "parentUuid": parent,
            "message": {"role": role, "content": [{"type": "text", "text": text}]},
        }
    )


def _write_session(path: Path, huge_mb: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        fh.write(_record("u1", None, "user", "first question") + "\n")
        fh.write(_record("a1", "u1", "assistant", "first answer") + "\n")
        if huge_mb:
            head = _record("u2", "a1", "user", "")[:-4]  # up to the text's opening quote
            fh.write(head[: head.rindex('"text": "') + 9])
            chunk = "lorem ipsum " * (1 << 16)
            for _ in range(huge_mb * 1_000_000 // len(chunk)):
                fh.write(chunk)
            fh.write('"}]}}\n')
        fh.write(_record("u3", "a1", "user", "second question") + "\n")
        fh.write(_record("a3", "u3", "assistant", "second answer") + "\n")


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("huge-line")
    out = {}
    for name, mb in (("floor", 0), ("huge", HUGE_MB)):
        out[name] = root / f"{name}.jsonl"
        _write_session(out[name], mb)
    return out


@pytest.mark.benchmark(group="import-huge-line")
@pytest.mark.parametrize("name", ["floor", "huge"])
def test_import_with_one_huge_line_peak_rss(
    benchmark: Any, sessions: dict[str, Path], tmp_path: Path, name: str
) -> None:
    src = sessions[name]
    result: dict[str, float] = {}

    def run() -> None:
        result.update(peak_child(_MEASURE, str(src), str(tmp_path / "conversations.json")))

    record(benchmark, f"import_huge_line_{name}", run, rounds=1, iterations=1)
    FIGURES[name] = {"bytes": src.stat().st_size, **result}
    kept = json.loads((tmp_path / "conversations.json").read_text())
    assert kept  # the ordinary records were imported
    assert result["rss"] <= LIMIT_BYTES, f"peak RSS {result['rss'] / 1e6:.0f} MB"


def summary_lines() -> list[str]:
    out = []
    for name, f in FIGURES.items():
        out.append(
            f"import of a {f['bytes'] / 1e6:.0f} MB session ({name}): peak RSS "
            f"{f['rss'] / 1e6:.0f} MB, CPU {f['cpu']:.1f} s"
        )
    if len(FIGURES) == 2:
        ratio = FIGURES["huge"]["rss"] / FIGURES["floor"]["rss"]
        out.append(f"huge line / floor peak RSS: {ratio:.2f}x")
    return out


def test_goal() -> None:
    a = arms("import_huge_line_floor", "import_huge_line_huge")
    huge, floor = FIGURES["huge"], FIGURES["floor"]
    record = results.finish(
        results.bench_name(__file__),
        {
            "arms": a,
            "figures": {
                **{
                    f"{name}_peak_rss_mb": results.figure(
                        f["rss"] / 1e6,
                        "MB",
                        f"snapshot import of a {f['bytes'] / 1e6:.0f} MB session",
                    )
                    for name, f in FIGURES.items()
                },
                **{
                    f"{name}_cpu_s": results.figure(f["cpu"], "s", "CPU of that import")
                    for name, f in FIGURES.items()
                },
            },
            "ratios": {
                "huge_over_floor_rss": results.figure(
                    huge["rss"] / floor["rss"], "x", "peak RSS with the 500 MB line vs without"
                )
            },
            "params": {"huge_line_mb": HUGE_MB},
        },
        {
            "huge_line_peak_rss": results.Goal(
                huge["rss"] / 1e6, "<=", LIMIT_BYTES / 1e6, "MB", "issue 28 item 4"
            )
        },
    )
    results.check(record)
