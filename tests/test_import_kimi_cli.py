"""Kimi CLI context JSONL importer, on the real contexts in ../shared/corpus/formats."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from format_samples import (
    SKIP,
    assert_exports,
    assert_linked,
    imported,
    load_as,
    near,
    sample,
    samples,
    truncated_copy,
)

from snapshot.transcript.formats import kimi_cli
from snapshot.transcript.model import ThinkingBlock

FMT = kimi_cli.NAME
pytestmark = SKIP


@pytest.mark.parametrize("entry", samples("kimi-cli"))
def test_context_counts_match_the_manifest(entry: str) -> None:
    path, expected = sample(entry)
    (conv,) = imported(path, FMT)
    roles = Counter(m.role for m in conv.path())
    assert near(sum(roles.values()), expected["messages"])
    for role in ("user", "assistant", "tool"):
        assert near(roles[role], expected[role]), (role, roles)
    assert near(sum(len(m.tool_calls()) for m in conv.path()), expected["tool_calls"])
    assert near(sum(len(m.tool_results()) for m in conv.path()), expected["tool_results"])
    books = conv.meta["bookkeeping_records"]
    assert books["_checkpoint"] == expected["_checkpoint"]
    assert books["_usage"] == expected["_usage"]
    assert_linked(conv)
    assert_exports(conv)


def test_subagent_file_is_its_own_agent_of_the_parent_session() -> None:
    (main,) = imported(sample("kimi-cli/kimi-sklearn-26323-d8447fa8.jsonl")[0], FMT)
    (sub,) = imported(sample("kimi-cli/kimi-sklearn-26323-d8447fa8_read_1.jsonl")[0], FMT)
    assert sub.id == main.id and (main.agent, sub.agent) == ("main", "read_1")


def test_think_parts_become_thinking(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    records = [
        {"role": "_checkpoint", "id": 0},
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "think", "think": "ponder"}, {"type": "text", "text": "hello"}],
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (conv,) = load_as(path, FMT)
    blocks = conv.path()[-1].blocks
    assert isinstance(blocks[0], ThinkingBlock) and blocks[0].text == "ponder"
    assert conv.path()[-1].text() == "hello"


def test_partial_last_line(tmp_path: Path) -> None:
    path, _ = sample("kimi-cli/kimi-sklearn-26323-531d195b.jsonl")
    (full,) = load_as(path, FMT)
    (conv,) = load_as(truncated_copy(path, tmp_path), FMT)
    assert 0 < len(conv.messages) < len(full.messages)
    assert any("the last line is partial" in w for w in conv.warnings)


def test_plain_chat_jsonl_is_not_claimed(tmp_path: Path) -> None:
    head = b'{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "yo"}\n'
    assert kimi_cli.score(tmp_path / "x.jsonl", head) == 0.0
