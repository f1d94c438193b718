"""Claude Code 2.1 writes Task sub-agents inline as ``progress``/``agent_progress`` records.

Each such sub-agent is its own conversation (``agent`` = its ``agentId``,
``task_call`` = the main agent's Task call), with every tool call answered, and
the import keeps at least 90 % of the file's text (it kept 62-67 % when these
records were skipped). Real samples from ../shared/corpus/formats-2026-12.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from formats_batch2 import BATCH2, needs_batch2, sample2

from snapshot.transcript.formats import import_path
from snapshot.transcript.formats.claude_code.agents import inline_agent_record
from snapshot.transcript.model import tool_pairing

pytestmark = needs_batch2

INLINE = ["claude-code/entire-51a265-4MB.jsonl", "claude-code/entire-ada817-images.jsonl"]


def _hand_count(path: Path) -> dict[str, tuple[int, int]]:
    """Per inline agent: (tool_use blocks, tool_result blocks), counted from the raw records."""
    out: dict[str, tuple[int, int]] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            data = rec.get("data") or {}
            if rec.get("type") != "progress" or data.get("type") != "agent_progress":
                continue
            content = data["message"]["message"]["content"]
            blocks = content if isinstance(content, list) else []
            calls, results = out.get(data["agentId"], (0, 0))
            out[data["agentId"]] = (
                calls + sum(b.get("type") == "tool_use" for b in blocks),
                results + sum(b.get("type") == "tool_result" for b in blocks),
            )
    return out


@pytest.mark.parametrize("relative", INLINE)
def test_inline_sub_agents_become_their_own_conversations(relative: str) -> None:
    path = sample2(relative)
    convs = import_path(path)
    by_agent = {c.agent: c for c in convs}
    expected = _hand_count(path)
    assert set(by_agent) == {"main", *expected}
    for agent, (calls, results) in expected.items():
        conv = by_agent[agent]
        live = conv.path()
        assert sum(len(m.tool_calls()) for m in live) == calls
        pairing = tool_pairing(live)
        assert not pairing.orphan_results and not pairing.unanswered_calls
        assert sum(len(m.tool_results()) for m in live) == results
        assert str(conv.meta.get("task_call", "")).startswith("toolu_")
    for conv in convs:
        assert conv.meta["text_kept"] >= 0.9, (conv.agent, conv.meta["text_kept"])


def test_other_progress_records_are_counted_by_kind() -> None:
    path = sample2("claude-code/entire-ada817-images.jsonl")
    (main, *_) = import_path(path, select={"agent": "main"})
    skipped = next(w for w in main.warnings if w.startswith("skipped non-message records"))
    assert "progress/bash_progress (UI only): 43" in skipped
    assert "progress/hook_progress (UI only): 55" in skipped


def test_a_hook_progress_record_carries_no_agent() -> None:
    assert inline_agent_record({"type": "progress", "data": {"type": "hook_progress"}}, {}) is None


def test_an_inline_agent_whose_own_file_is_beside_is_imported_once() -> None:
    """Claude Code 2.1 also writes <session>/subagents/agent-<id>.jsonl: that file is the agent."""
    session = BATCH2.parent / "claude_code_spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    if not session.is_file():
        pytest.skip(f"{session} not found (the benchmark corpus beside the repository)")
    assert (session.with_suffix("") / "subagents" / "agent-a2898e3.jsonl").is_file()
    (main,) = import_path(session)
    assert main.agent == "main"
    skipped = next(w for w in main.warnings if w.startswith("skipped non-message records"))
    assert "progress/agent_progress (the agent's own file is beside)" in skipped
