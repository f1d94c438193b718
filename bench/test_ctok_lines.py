"""Claude text tokens line by line (``snapshot.billing.ctok_lines``) against ``ctok.token_count``.

Every distinct serialized message of every conversation of the benchmark corpus
(``../shared/corpus/benchmark.manifest.json``; what the report counts for a
Claude profile) is counted both ways for each ctok family the profiles use;
the counts must be equal, text for text. The two timings (CPU seconds, one
round each, one after the other in one run) give the ratio.

Run: ``python bench/run.py ctok_lines --benchmark-timer time.process_time -s`` (the
[claude] extra). ``test_goal`` writes ``reports/bench/ctok_lines.json`` and asserts
issue 29 item 2's reason for counting line by line: equal counts, in less CPU than
``ctok.token_count`` of the whole text (ratio > 1) for every version.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
import results
from conftest import STATS, record, shared_dir

MANIFEST = (shared_dir() or Path("../shared")) / "corpus" / "benchmark.manifest.json"
#: version -> {"whole": cpu s, "lines": cpu s, "texts": n, "chars": n, "load": ...}
FIGURES: dict[str, dict[str, float]] = {}


def _texts() -> list[str]:
    if not MANIFEST.is_file():
        pytest.skip(f"the benchmark corpus is absent: {MANIFEST}")
    from snapshot.ladder.serialize import serialize_message
    from snapshot.report.sources import corpus_sources

    seen: dict[str, None] = {}
    for source in corpus_sources(MANIFEST):
        for message in source.conversation.path():
            seen.setdefault(serialize_message(message))
    return list(seen)


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return _texts()


@pytest.mark.benchmark(group="ctok_lines")
@pytest.mark.parametrize("version", ["4.8", "4.7", "3.0"])
def test_same_counts(benchmark: Any, texts: list[str], version: str) -> None:
    import ctok

    from snapshot.billing.ctok_lines import content_tokens
    from snapshot.billing.text_tokens import _ctok_overhead

    frame = _ctok_overhead(version)
    load = os.getloadavg()[0]
    t0 = time.process_time()
    whole = [int(ctok.token_count(t, version)) - frame for t in texts]
    t1 = time.process_time()

    def lines() -> list[int | None]:
        return [content_tokens(t, version) for t in texts]

    split = record(benchmark, f"ctok_lines_v{version}", lines, rounds=1, iterations=1)
    t2 = time.process_time()
    differ = [
        (t[:80], w, s) for t, w, s in zip(texts, whole, split, strict=True) if s not in (None, w)
    ]
    assert not differ, f"{len(differ)} texts counted differently, e.g. {differ[:3]}"
    FIGURES[version] = {
        "whole": t1 - t0,
        "lines": t2 - t1,
        "texts": len(texts),
        "chars": sum(map(len, texts)),
        "split": sum(s is not None for s in split),
        "load": load,
        "load_end": os.getloadavg()[0],
    }


def summary_lines() -> list[str]:
    """The ratios, for the run's closing summary."""
    out = []
    for version, f in FIGURES.items():
        out.append(
            f"ctok v{version}: {int(f['texts'])} distinct corpus messages ({f['chars'] / 1e6:.1f} M chars,"
            f" {int(f['split'])} split), equal counts; ctok.token_count {f['whole']:.1f} CPU s,"
            f" line by line {f['lines']:.1f} CPU s: {f['whole'] / max(f['lines'], 1e-9):.2f}x"
            f" (load {f['load']:.1f} -> {f['load_end']:.1f})"
        )
    return out


def test_goal() -> None:
    if not FIGURES:
        pytest.skip("no ctok version was measured in this run")
    ratios = {
        f"v{v}_whole_over_lines": results.figure(
            f["whole"] / max(f["lines"], 1e-9), "x", "CPU: ctok.token_count vs line by line"
        )
        for v, f in FIGURES.items()
    }
    figures = {
        f"v{v}_{k}_cpu_s": results.figure(f[k], "s", f"CPU, {k}")
        for v, f in FIGURES.items()
        for k in ("whole", "lines")
    }
    first = next(iter(FIGURES.values()))
    figures["texts"] = results.figure(first["texts"], "texts", "distinct corpus messages")
    figures["chars"] = results.figure(first["chars"], "chars", "their characters")
    record = results.finish(
        results.bench_name(__file__),
        {
            "arms": {k: v for k, v in STATS.items() if k.startswith("ctok_lines_")},
            "ratios": ratios,
            "figures": figures,
        },
        {
            f"v{v}_faster": results.Goal(
                f["whole"] / max(f["lines"], 1e-9),
                ">",
                1,
                "x",
                "issue 29 item 2 (equal counts asserted)",
            )
            for v, f in FIGURES.items()
        },
    )
    results.check(record)
