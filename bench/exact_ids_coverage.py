"""Exact-id coverage of the snapshot rung on real sessions (issue 41 item 3), per file.

Run: ``python bench/exact_ids_coverage.py [--out reports/exact_ids.json] [FILE ...]``
(files relative to ``$SNAPSHOT_CORPUS``, default ``../shared/corpus``; default
files: the ones listed below). Each session's longest conversation goes to half
its tokens for ``claude-sonnet-4-6`` twice: through the proxy's free rungs
(elide, drop images, snapshot), as one window-mode pass does, and through the
snapshot rung alone (no elide: every tool result on the pages, the budget's
hardest case); the figures are the snapshot
rung's own record: distinct exact ids on the pages and how many the text beside
them keeps, under the default budget (``SheetOptions.exact_ids_share``), and the
tokens the index line costs. Measured (the rung run on the real text), not modelled.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from snapshot.ladder.exact_ids import INDEX_HEADER
from snapshot.ladder.ladder import FREE_RUNGS, LadderOptions, run_ladder
from snapshot.ladder.sheets import SheetOptions, is_snapshot
from snapshot.ladder.target import target_for
from snapshot.transcript.formats import import_path
from snapshot.transcript.model import TextBlock

MODEL = "claude-sonnet-4-6"
FILES = [
    "claude_code_spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
    "claude_code_spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
    "claude_code_log_real/-Users-dain-workspace-claude-code-log-sample/37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl",
    "claude_code_log_real/-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl",
    "swe_agent/demonstrations__ctf__crypto__BabyTimeCapsule.traj",
]


ARMS = {"free_rungs": FREE_RUNGS, "snapshot_only": ("drop_images", "snapshot")}


def measure(path: Path, rungs: tuple[str, ...]) -> dict[str, Any]:
    target = target_for(MODEL)
    conv = max(import_path(path), key=lambda c: len(c.path()))
    before = target.tokens(conv.path())
    result = run_ladder(conv, target, before // 2, options=LadderOptions(rungs=rungs))
    row: dict[str, Any] = {"file": path.name, "tokens_before": before, "label": "measured"}
    for step in result.steps:
        if step.rung == "snapshot" and "exact_ids" in step.data:
            row.update(
                exact_ids=step.data["exact_ids"],
                pages=step.data["pages"],
                page_tokens=step.data["page_tokens"],
                text_tokens=step.data["text_tokens"],
            )
    snaps = [m for m in result.conversation.path() if is_snapshot(m)]
    index = [
        b.text
        for m in snaps
        for b in m.blocks
        if isinstance(b, TextBlock) and b.text.startswith(INDEX_HEADER)
    ]
    row["index_tokens"] = sum(target.text_tokens(t) for t in index)
    return row


def main(argv: list[str]) -> int:
    out = Path(argv[argv.index("--out") + 1]) if "--out" in argv else None
    names = [a for i, a in enumerate(argv) if a != "--out" and (i == 0 or argv[i - 1] != "--out")]
    corpus = Path(
        os.environ.get("SNAPSHOT_CORPUS", Path(__file__).resolve().parents[2] / "shared/corpus")
    )
    rows = []
    for name in names or FILES:
        path = corpus / name
        if not path.is_file():
            print(f"{path}: not found (set SNAPSHOT_CORPUS)", file=sys.stderr)
            return 2
        for arm, rungs in ARMS.items():
            row = measure(path, rungs)
            row.update(file=name, arm=arm)
            rows.append(row)
            ids = row.get("exact_ids") or {}
            print(
                f"{name} [{arm}]: {ids.get('as_text', 0)} of {ids.get('on_pages', 0)} exact ids "
                f"on the pages kept as text, index {row['index_tokens']:,} tokens beside "
                f"{row.get('page_tokens', 0):,} page tokens (measured)"
            )
    pooled = {}
    for arm in ARMS:
        kept = sum((r.get("exact_ids") or {}).get("as_text", 0) for r in rows if r["arm"] == arm)
        total = sum((r.get("exact_ids") or {}).get("on_pages", 0) for r in rows if r["arm"] == arm)
        pooled[arm] = {"as_text": kept, "on_pages": total, "label": "measured"}
        print(f"pooled [{arm}]: {kept} of {total} ({kept / max(total, 1):.1%}) (measured)")
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        result = {
            "model": MODEL,
            "exact_ids_share": SheetOptions().exact_ids_share,
            "rows": rows,
            "pooled": pooled,
        }
        out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
