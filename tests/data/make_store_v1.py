"""Writes tests/data/store_v1_1e38e1a with the store of snapshot at 1e38e1a (one JSON document
per conversation and agent), for the migration test in tests/test_store_log.py.

Run with that commit's package, not this one's::

    git archive 1e38e1a snapshot | tar -x -C /tmp/main1e38
    PYTHONPATH=/tmp/main1e38 python tests/data/make_store_v1.py tests/data/store_v1_1e38e1a /tmp/src
    rm tests/data/store_v1_1e38e1a/legacy/*.lock

(/tmp/src: any folder outside the repository, for the image the store copies in.)
"""

import shutil
import sys
from pathlib import Path

import numpy as np

from snapshot.rendering.raster import to_png
from snapshot.transcript.model import (
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ToolCall,
    ToolResult,
)
from snapshot.transcript.store import Store
from snapshot.transcript.tree import Checkpoint


def main() -> None:
    # Only when run as a script: pytest --doctest-modules imports this file.
    out = Path(sys.argv[1])
    shutil.rmtree(out, ignore_errors=True)
    src = Path(sys.argv[2])
    src.mkdir(parents=True, exist_ok=True)
    (src / "shot.png").write_bytes(to_png(np.zeros((3, 4), np.uint8), (4, 3)))
    msgs = (
        Message(
            "u1",
            None,
            "user",
            (TextBlock("list the files"),),
            {"timestamp": "2026-11-30T10:00:00Z"},
        ),
        Message(
            "a1",
            "u1",
            "assistant",
            (ToolCall("call_1", "ls", {"path": "."}),),
            {"model": "claude-sonnet-4-5"},
        ),
        Message(
            "t1",
            "a1",
            "user",
            (
                ToolResult(
                    "call_1",
                    (
                        TextBlock("a.py\nb.py"),
                        ImageBlock("image/png", path=str(src / "shot.png"), origin="shot.png"),
                    ),
                ),
            ),
        ),
        Message("a2", "t1", "assistant", (TextBlock("two files, é ü 😀"),)),
        Message("b1", "u1", "assistant", (TextBlock("an abandoned branch"),)),
    )
    conv = Conversation(
        id="legacy",
        messages=msgs,
        tip="a2",
        format="claude-code",
        source=str(src / "log.jsonl"),
        meta={"title": "fixture"},
        warnings=("one warning",),
    )
    ws = Store(out)
    ws.save_all(conv, [Checkpoint("start", "u1"), Checkpoint("done", "a2")])
    sub = Conversation(
        id="legacy",
        agent="agent-a1",
        messages=(Message("s1", None, "user", (TextBlock("sub task"),)),),
        tip="s1",
    )
    ws.save(sub)
    for p in sorted(out.rglob("*")):
        print(p.relative_to(out), p.stat().st_size if p.is_file() else "")


if __name__ == "__main__":
    main()
