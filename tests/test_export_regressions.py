"""Issue 12's fixes, each on the real file the issue names (``../shared/corpus/formats``)."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from snapshot.ladder.compact import CompactOptions, compact
from snapshot.ladder.ladder import FREE_RUNGS, LadderOptions, run_ladder
from snapshot.ladder.target import target_for
from snapshot.transcript.export import export
from snapshot.transcript.formats import import_path
from snapshot.transcript.model import Conversation, stats, tool_pairing
from snapshot.transcript.validate import validate
from snapshot.transcript.validate.corpus import synthetic_over_real

REPO = Path(__file__).resolve().parents[1]
_ENV = os.environ.get("SNAPSHOT_CORPUS")
CORPUS = Path(_ENV) if _ENV else REPO.parent / "shared" / "corpus"
FORMATS = CORPUS / "formats"
pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(
        not (FORMATS / "MANIFEST.json").is_file(),
        reason="format samples not found: set SNAPSHOT_CORPUS or put the corpus at ../shared/corpus",
    ),
]

ISSUE271 = "claude-agent-sdk/tielec-aiwa-issue271-impl.jsonl"
ISSUE558 = "claude-agent-sdk/tielec-aiwa-issue558-planning.jsonl"
SUBAGENTS = "claude-code/dkimuson-fe5e1c67.jsonl"


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


def _expected(rel: str) -> dict[str, Any]:
    files = json.loads((FORMATS / "MANIFEST.json").read_text(encoding="utf-8"))["files"]
    expected: dict[str, Any] = next(f for f in files if f["path"] == rel)["expected"]
    return expected


def _one(rel: str, agent: str = "main") -> Conversation:
    return next(c for c in import_path(FORMATS / rel) if c.agent == agent)


def test_assistant_first_transcript_keeps_calls_with_their_results() -> None:
    # The issue's repro: 4 synthetic error results before the fix.
    conv = _one(ISSUE271)
    assert conv.path()[0].role == "assistant"
    outcome = compact(conv, "claude-sonnet-4-5", 23792)
    assert outcome.synthetic_results == ()
    assert synthetic_over_real(conv, outcome.result.conversation) == []
    assert not any("synthetic" in n for n in outcome.notes)
    assert validate(outcome.body, "anthropic", model="claude-sonnet-4-5").ok


def test_failure_message_says_what_the_tokens_are() -> None:
    outcome = compact(_one(ISSUE271), "claude-sonnet-4-5", 2000)
    failure = outcome.result.failure or ""
    assert "images" in failure and "snapshot pages" in failure and "text" in failure


def test_image_count_overflow_images_the_oldest_part_and_says_what_was_left() -> None:
    conv = _one(ISSUE271)
    target = replace(target_for("claude-sonnet-4-5"), max_images=30)
    result = run_ladder(conv, target, 5000, options=LadderOptions(rungs=FREE_RUNGS))
    step = next(s for s in result.steps if s.rung == "snapshot")
    assert step.changed and step.data["pages"] <= 30 and step.data["left_as_text"] > 0
    assert any("stay as text" in n for n in step.notes)
    assert sum(len(m.images()) for m in result.conversation.path()) <= 30
    assert tool_pairing(result.conversation.path()).ok


def test_inline_subagents_are_each_their_own_agent() -> None:
    expected = _expected(SUBAGENTS)["sidechains"]
    convs = import_path(FORMATS / SUBAGENTS)
    side = [c for c in convs if c.agent != "main"]
    assert len(side) == expected["count"]
    assert sum(len(c.path()) for c in side) == expected["messages"]
    assert sum(stats(c.path()).tool_calls for c in side) == expected["tool_calls"]
    assert all(len(c.path()) == len(c.messages) for c in side)  # every message reachable
    chosen = import_path(FORMATS / SUBAGENTS, select={"agent": "sidechain-3"})
    assert [c.agent for c in chosen] == ["sidechain-3"]
    # Each names the main agent's Task call that started it.
    task_calls = {c.id for m in convs[0].path() for c in m.tool_calls() if c.name == "Task"}
    assert {c.meta["task_call"] for c in side} == task_calls


def test_only_adjacent_records_of_one_response_merge() -> None:
    conv = _one(ISSUE558)
    assert not conv.warnings
    assistants = [m for m in conv.path() if m.role == "assistant"]
    assert len(assistants) == 13  # 17 records, text + tool_use pairs adjacent
    assert stats(conv.path()).tool_calls == _expected(ISSUE558)["main"]["tool_calls"]
    out = export(conv, "anthropic")
    assert sum(m["role"] == "assistant" for m in out.body["messages"]) == 13
    assert not any("has no call" in n for n in out.notes)
    assert out.synthetic_results == ()


def test_litellm_log_keeps_its_response_turn() -> None:
    for rel in (
        "openai-chat/oh-sdk-litellm-telemetry-haiku-4c3a.json",
        "openai-chat/oh-sdk-litellm-telemetry-gpt4omini-f575.json",
    ):
        conv = _one(rel)
        path = conv.path()
        assert len([m for m in path if m.role != "system"]) == _expected(rel)["messages"]
        assert path[-1].role == "assistant" and path[-1].tool_calls()
        assert conv.meta["reply_from"] == "response.choices[0].message"


def test_gemini_history_keeps_its_signatures() -> None:
    rel = "gemini-content/gemini-cli-NotFollowingUserIntent.json"
    raw = json.loads((FORMATS / rel).read_text(encoding="utf-8"))
    source = [p["thoughtSignature"] for c in raw for p in c["parts"] if "functionCall" in p]
    body = export(_one(rel), "gemini").body
    sent = [
        p["thoughtSignature"] for c in body["contents"] for p in c["parts"] if "functionCall" in p
    ]
    assert sent == source
    assert validate(body, "gemini", model="gemini-3-pro-preview").ok


def test_gemini_content_counts() -> None:
    for rel in (
        "gemini-content/gemini-cli-trajectory.json",
        "gemini-content/gemini-cli-NotFollowingUserIntent.json",
    ):
        expected = _expected(rel)
        s = stats(_one(rel).path())
        assert (s.messages, s.tool_calls, s.tool_results) == (
            expected["contents"],
            expected["functionCall"],
            expected["functionResponse"],
        )


def test_responses_payload_imports_request_and_reply() -> None:
    conv = _one("openai-responses/oh-sdk-skill-probe-request_payload.json")
    assert [m.role for m in conv.path()] == ["system", "user", "assistant"]
    assert conv.path()[-1].text().strip() == "OK"


@pytest.mark.parametrize("rel", [ISSUE271, ISSUE558, SUBAGENTS])
def test_responses_export_of_the_issue_files_validates(rel: str) -> None:
    try:
        from snapshot.transcript.validate.openai_spec import spec_path

        spec_path()
    except Exception as exc:
        pytest.skip(str(exc))
    for conv in import_path(FORMATS / rel):
        body = export(conv, "openai-responses").body
        assert all(t["strict"] is False for t in body.get("tools", []))
        checked = validate(body, "openai-responses")
        assert checked.ok, checked.problems[:3]


def test_compact_for_responses_and_gemini_3_validates() -> None:
    conv = _one(ISSUE271)
    for model, api in (("gpt-5.1", "responses"), ("gemini-3-pro-preview", "chat")):
        outcome = compact(conv, model, 23792, CompactOptions(openai_api=api, check=True))
        assert outcome.validation is not None and outcome.validation["ok"], outcome.validation
        assert outcome.synthetic_results == ()
