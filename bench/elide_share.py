"""Elide alone on the benchmark corpus: share of tool-result characters elided, pooled.

Run: ``python bench/elide_share.py [MANIFEST] [--baseline OLD_ELIDE_PY]`` (default
manifest: ``$SNAPSHOT_CORPUS/benchmark.manifest.json``). With ``--baseline`` (an
older ``snapshot/ladder/elide.py``, e.g. ``git show 1e38e1a:snapshot/ladder/elide.py``
saved to a file) the old rung runs on the same conversations in the same run. For every manifest conversation it
runs the elide rung as the report does (``keep_turns`` of the report's settings)
and prints, per conversation and pooled, the tool-result characters before,
those elided, and the needle recall of what stays text (the report's needles).
Measured, not modelled: the figure in docs/journal/bench-2026-11-to-12.md comes from this script.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from snapshot.ladder.elide import elide, elided_chars, tool_result_chars
from snapshot.ladder.ladder import LadderOptions
from snapshot.ladder.needles import found
from snapshot.report.matrix import Settings, needles_for
from snapshot.report.readability import visible_text
from snapshot.report.sources import corpus_sources


def _load_baseline(path: str) -> Any:
    spec = importlib.util.spec_from_file_location("baseline_elide", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.elide


def main(argv: list[str]) -> int:
    baseline = _load_baseline(argv[argv.index("--baseline") + 1]) if "--baseline" in argv else None
    args = [a for i, a in enumerate(argv) if not a.startswith("--") and argv[i - 1] != "--baseline"]
    root = Path(os.environ.get("SNAPSHOT_CORPUS", "../shared/corpus"))
    manifest = Path(args[0]) if args else root / "benchmark.manifest.json"
    settings = Settings()
    total = elided = asked = got = old_elided = old_got = 0
    rows = []
    t0 = time.time()
    for source in corpus_sources(manifest):
        conv = source.conversation
        res = elide(conv, keep_steps=LadderOptions().elide_keep_steps)
        before = tool_result_chars(conv.path())
        gone = elided_chars(res.record)
        needles = needles_for(source, settings)
        hits = sum(found(needles, visible_text(res.conversation.path())))
        total, elided, asked, got = total + before, elided + gone, asked + len(needles), got + hits
        if baseline is not None:
            old = baseline(conv, keep_turns=settings.keep_turns)
            old_elided += old.record.chars_removed
            old_got += sum(found(needles, visible_text(old.conversation.path())))
        rows.append(
            {
                "id": source.id,
                "tool_result_chars": before,
                "elided": gone,
                "needles": len(needles),
                "found": hits,
            }
        )
        print(
            f"{source.id[:60]:60} {before:>10,} {gone:>10,} {gone / max(before, 1):6.1%} "
            f"recall {hits}/{len(needles)}",
            flush=True,
        )
    print(
        json.dumps(
            {
                "conversations": len(rows),
                "tool_result_chars": total,
                "elided": elided,
                "share": elided / max(total, 1),
                "needles": asked,
                "found": got,
                "recall": got / max(asked, 1),
                "seconds": round(time.time() - t0, 1),
                "loadavg": Path("/proc/loadavg").read_text().split()[:3],
                "baseline": None
                if baseline is None
                else {
                    "elided": old_elided,
                    "share": old_elided / max(total, 1),
                    "found": old_got,
                    "recall": old_got / max(asked, 1),
                },
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
