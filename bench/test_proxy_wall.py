"""A long session through ``snapshot proxy --summarizer auto`` under a 60 k limit, the long
variant of ``tests/test_proxy_long_session.py`` (``SNAPSHOT_TURNS`` turns, default 1000),
against ``tests/fake_upstream`` (an offline stand-in with Anthropic's real overflow error).

Writes ``reports/bench/proxy_wall.json`` (:mod:`results`, the shape every bench shares):
turns completed, rejections by the provider and those that reached the client, summaries
and their largest request against the stated limit, the share of compacted requests that
reuse the previous pass, and the CPU the run took (beside other agents: the load is
recorded). Run: ``python bench/run.py proxy_wall``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
import results

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
pytest.importorskip("aiohttp")
pytest.importorskip("anthropic")

from test_proxy_long_session import LIMIT, run_session


def test_long_session_never_ends(tmp_path: Path) -> None:
    turns = int(os.environ.get("SNAPSHOT_TURNS", "1000"))
    cpu = time.process_time()
    wall = time.monotonic()
    fake, records = run_session(tmp_path, turns)
    forwarded = [r for r in records if r.get("kind") is None]
    rejections = [r for r in records if r.get("kind") == "rejection"]
    compacted = [r["plan"] for r in forwarded if r["plan"]["compacted"]]
    summaries = [r["plan"]["summary"] for r in forwarded if r["plan"].get("summary")]
    result = {
        "turns": turns,
        "completed": sum(r["status"] == 200 for r in forwarded),
        "limit": LIMIT,
        "rejections": len(rejections),
        "rejections_to_client": sum(r["rejection"]["reached_client"] for r in rejections),
        "compacted": len(compacted),
        "reuse_share": round(
            sum(p["reuses_previous_pass"] for p in compacted) / max(1, len(compacted)), 4
        ),
        "summaries": len(summaries),
        "summary_calls": sum(s["calls"] for s in summaries),
        "largest_summary_request_tokens": max(
            (s["largest_request_tokens"] for s in summaries), default=None
        ),
        "largest_upstream_tokens_fake_count": max(a.tokens for a in fake.accepted),
        "invalid_bodies": len(fake.problems),
        "cpu_seconds": round(time.process_time() - cpu, 1),
        "wall_seconds": round(time.monotonic() - wall, 1),
        "load": Path("/proc/loadavg").read_text().split()[:3],
        "labels": {
            "counts": "rejections, turns, reuse: exact (from the ledger); tokens: the fake's "
            "own count (an offline stand-in) or the proxy's estimate",
            "timing": "measured beside other processes (see load)",
        },
    }
    RESULT.update(result)
    assert not fake.problems


RESULT: dict[str, object] = {}


def test_goal() -> None:
    if not RESULT:
        pytest.skip("not measured in this run: test_long_session_never_ends")
    r = RESULT
    figures = {
        name: results.figure(float(r[name]), unit, what)  # type: ignore[arg-type]
        for name, unit, what in (
            ("compacted", "requests", "compacted requests (exact, the ledger)"),
            ("rejections", "responses", "overflow rejections by the fake upstream (exact)"),
            ("summaries", "passes", "summary passes (exact)"),
            ("cpu_seconds", "s", "CPU of the whole run, proxy and fake in one process"),
        )
    }
    if r["largest_summary_request_tokens"] is not None:
        figures["largest_summary_request_tokens"] = results.figure(
            float(r["largest_summary_request_tokens"]),  # type: ignore[arg-type]
            "tokens",
            "largest summary request (the proxy's estimate)",
        )
    record = results.finish(
        results.bench_name(__file__),
        {"figures": figures, "params": {"turns": r["turns"], "limit": r["limit"]}, "inputs": {}},
        {
            "turns_completed": results.Goal(
                float(r["completed"]),
                ">=",
                float(r["turns"]),
                "turns",
                "issue 38 item 5",  # type: ignore[arg-type]
            ),
            "rejections_to_client": results.Goal(
                float(r["rejections_to_client"]),
                "<=",
                0,
                "rejections",
                "issue 38 item 5",  # type: ignore[arg-type]
            ),
            "reuse_share": results.Goal(
                float(r["reuse_share"]),
                ">=",
                0.5,
                "share",
                "issue 38 item 4",  # type: ignore[arg-type]
            ),
        },
    )
    results.check(record)
