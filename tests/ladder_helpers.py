"""Builders of conversations for the ladder tests: real shapes, made up small."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import strategies as st

from snapshot.transcript.model import (
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ToolCall,
    ToolResult,
    linear,
)

WORDS = ["build", "test", "src/app/main.py", "ok", "error", "commit", "a1b2c3d4e5", "userId"]


def agent_run(turns: int, *, result_chars: int = 600, with_images: bool = False) -> Conversation:
    """A task, then ``turns`` rounds of assistant call → tool result, then a final answer."""
    msgs: list[tuple[str, str, list]] = [
        (
            "u0",
            "user",
            [TextBlock("Fix the failing test in src/app/main.py. Do not touch the API.")],
        )
    ]
    for i in range(turns):
        msgs.append(
            (
                f"a{i}",
                "assistant",
                [TextBlock(f"step {i}"), ToolCall(f"call{i:04d}", "bash", {"cmd": f"run {i}"})],
            )
        )
        content: tuple = (TextBlock(f"line {i} " + "x" * result_chars),)
        if with_images:
            content = (
                *content,
                ImageBlock(
                    "image/png", b"\x89PNG fake", width=1024, height=768, origin=f"shot{i}.png"
                ),
            )
        msgs.append((f"r{i}", "tool", [ToolResult(f"call{i:04d}", content)]))
        if i % 3 == 2:
            msgs.append((f"u{i + 1}", "user", [TextBlock(f"continue with part {i}")]))
    msgs.append(("done", "assistant", [TextBlock("All tests pass now.")]))
    return linear("run", msgs)  # type: ignore[arg-type]


@st.composite
def random_runs(draw: st.DrawFn) -> Conversation:
    """Random linear agent runs: user turns, assistant calls (0-3 per message), results."""
    msgs: list[Message] = []
    parent: str | None = None
    n = 0

    def add(role: str, blocks: tuple) -> None:
        nonlocal parent, n
        mid = f"m{n}"
        n += 1
        msgs.append(Message(mid, parent, role, blocks))  # type: ignore[arg-type]
        parent = mid

    add("user", (TextBlock("task: " + draw(st.sampled_from(WORDS))),))
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["user", "assistant", "calls"]))
        if kind == "user":
            add("user", (TextBlock(draw(st.sampled_from(WORDS))),))
        elif kind == "assistant":
            add("assistant", (TextBlock(draw(st.sampled_from(WORDS)) * draw(st.integers(1, 50))),))
        else:
            k = draw(st.integers(1, 3))
            ids = [f"c{n}-{j}" for j in range(k)]
            add("assistant", tuple(ToolCall(i, "bash", {"cmd": "ls"}) for i in ids))
            for i in ids:
                add(
                    "tool",
                    (
                        ToolResult(
                            i, (TextBlock("r" * draw(st.integers(0, 800))),), draw(st.booleans())
                        ),
                    ),
                )
    return Conversation(id="rand", messages=tuple(msgs), tip=parent)


# The real corpus (read-only): SNAPSHOT_CORPUS, else ../shared/corpus beside the checkout.
CORPUS = Path(
    os.environ.get("SNAPSHOT_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus")
)
SPOTTER = CORPUS / "claude_code_spotter/4d5611e5-241a-462a-8d15-5122611a9569"
# Issue 22's repro: a Claude Code subagent run, and the 294-message session it belongs to.
REPRO = SPOTTER / "subagents/agent-a2898e3.jsonl"
SESSION = SPOTTER.with_suffix(".jsonl")
needs_repro = pytest.mark.skipif(
    not REPRO.is_file(), reason=f"corpus conversation not found: {REPRO} (set SNAPSHOT_CORPUS)"
)
