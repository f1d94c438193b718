"""The small fixture of the cost bench's counting (``bench/cost_counting.py``), built here.

:func:`requests` returns three client requests of one tiny Claude-Code-shaped conversation
(the newest message carries the ``cache_control`` marker, which moves every request, as
Claude Code's does) and, for each, what an arm sent upstream: the first two unchanged, the
third with its first tool result drawn on a 1568 x 728 page (a real PNG, blank) beside an
index line that keeps two of its three exact ids as text. ``tests/data/cost_bench/requests.json``
is what :func:`write` makes (``tests/test_cost_counting.py`` checks it is).

Run: ``python tests/cost_bench_builders.py`` rewrites the committed file.
"""

from __future__ import annotations

import base64
import copy
import io
import json
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).resolve().parent / "data" / "cost_bench" / "requests.json"
MODEL = "claude-fable-5"
RESULT_1 = (
    "commit 9f8e7d6c2a41 touched src/payments/settle.py:84\n"
    "request_id=550e8400-e29b-41d4-a716-446655440000 amount_minor=1,516,925"
)
RESULT_2 = "no match in src/payments/retry.py"
INDEX = "Exact ids on the pages: 9f8e7d6c2a41 src/payments/settle.py:84"


def _png(width: int, height: int) -> str:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("1", (width, height), 1).save(buf, format="PNG", optimize=True)
    return base64.b64encode(buf.getvalue()).decode()


def _marked(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with the cache marker on the newest block only (as Claude Code sends)."""
    out = copy.deepcopy(messages)
    last = out[-1]["content"][-1]
    last["cache_control"] = {"type": "ephemeral"}
    return out


def requests() -> list[dict[str, Any]]:
    """Three ``{"client": body, "upstream": body}`` pairs (see the module's docstring)."""
    base = {
        "model": MODEL,
        "max_tokens": 1024,
        "system": [{"type": "text", "text": "You investigate payment incidents tersely."}],
        "tools": [
            {
                "name": "Bash",
                "description": "Run a shell command.",
                "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}},
            }
        ],
    }
    history: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Why did batch 80a661c2 settle twice?"}],
        }
    ]
    turns = []
    for n, (command, result) in enumerate(
        (("git log -n 1 --stat", RESULT_1), ("grep -n retry src/", RESULT_2)), 1
    ):
        turns.append({**base, "messages": _marked(history)})
        history += [
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"toolu_0{n}",
                        "name": "Bash",
                        "input": {"command": command},
                    }
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"toolu_0{n}", "content": result}
                ],
            },
        ]
    turns.append({**base, "messages": _marked(history)})
    paged: dict[str, Any] = copy.deepcopy(turns[2])
    page = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": _png(1568, 728)},
    }
    paged["messages"][2]["content"] = [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_01",
            "content": [page, {"type": "text", "text": INDEX}],
        }
    ]
    return [
        {"client": turns[0], "upstream": turns[0]},
        {"client": turns[1], "upstream": turns[1]},
        {"client": turns[2], "upstream": paged},
    ]


def write(path: Path = FIXTURE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(requests(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    print(write())
