"""The validator accepts what the three agent CLIs send and the providers accept, and still
names real errors beside it.

The bodies are cut down from what the harness suite recorded (Claude Code 2.1.332, Codex
CLI 0.171.0, Gemini CLI 0.61.0; ``bench/harness``): Claude Code's ``role: "system"``
messages, beta fields and JSON-Schema tool inputs; Codex's reasoning items with
``content: null``, message ids, custom tool call status and ``client_metadata``; Gemini
CLI's loop check (its history's calls, no tools declared).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from snapshot.transcript.validate import validate
from snapshot.transcript.validate.openai_spec import SchemaUnavailable, spec_path

try:
    spec_path()
    SPEC = True
except SchemaUnavailable:
    SPEC = False
needs_spec = pytest.mark.skipif(
    not SPEC, reason="OpenAI's OpenAPI spec not found (../shared/specs/openai-openapi)"
)


def _claude_code() -> dict[str, Any]:
    return {
        "model": "claude-opus-5-5",
        "max_tokens": 32000,
        "system": [{"type": "text", "text": "You are Claude Code."}],
        "tools": [
            {
                "name": "Bash",
                "description": "Run a command",
                "input_schema": {
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object",
                    "properties": {"command": {"type": "string"}},
                    "required": ["command"],
                    "additionalProperties": False,
                },
            }
        ],
        "thinking": {"type": "adaptive", "display": "omitted"},
        "context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]},
        "output_config": {"effort": "medium"},
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Read the parts."}]},
            {
                "role": "system",
                "content": [{"type": "text", "text": "# Environment"}],
                "output_config": {"effort": "medium"},
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "Bash",
                        "input": {"command": "ls"},
                    }
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}],
            },
            {"role": "system", "content": "Keep the user updated."},
        ],
    }


def _problems(body: Any, shape: str, **kwargs: Any) -> list[str]:
    return [str(p) for p in validate(body, shape, **kwargs).problems]


def test_claude_code_bodies_validate_as_beta_requests() -> None:
    assert _problems(_claude_code(), "anthropic", beta=True) == []
    # Without the beta header its beta fields are unknown to the API.
    found = _problems(_claude_code(), "anthropic")
    assert any("context_management" in p for p in found), found


def test_anthropic_still_refuses_a_misplaced_system_message_and_unknown_fields() -> None:
    body = _claude_code()
    body["messages"].insert(3, {"role": "system", "content": "after the assistant"})
    assert any("role-order" in p for p in _problems(body, "anthropic", beta=True))
    body = _claude_code()
    body["tools"][0]["bogus"] = 1
    assert any("tools[0].bogus" in p for p in _problems(body, "anthropic", beta=True))
    body = _claude_code()
    body["tools"][0]["input_schema"] = "not an object"
    assert _problems(body, "anthropic", beta=True)


def _codex() -> dict[str, Any]:
    return {
        "model": "gpt-6.2-sol",
        "store": False,
        "prompt_cache_key": "019a",
        "client_metadata": {"session_id": "019a", "turn_id": "01b"},
        "input": [
            {
                "type": "message",
                "id": "msg_01",
                "role": "developer",
                "content": [{"type": "input_text", "text": "You are Codex."}],
            },
            {
                "type": "message",
                "id": "msg_02",
                "role": "user",
                "content": [{"type": "input_text", "text": "Read the parts."}],
            },
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [],
                "content": None,
                "encrypted_content": "enc-1",
            },
            {
                "type": "custom_tool_call",
                "id": "ctc_1",
                "status": "completed",
                "call_id": "call_1",
                "name": "exec",
                "input": "await tools.exec_command({cmd: 'ls'})",
            },
            {"type": "custom_tool_call_output", "call_id": "call_1", "output": "a.txt"},
        ],
    }


@needs_spec
def test_codex_bodies_validate() -> None:
    assert _problems(_codex(), "openai-responses") == []


@needs_spec
def test_openai_still_refuses_what_no_client_sends() -> None:
    for where, change in (
        (3, {"bogus": 1}),  # an unknown field on a call item
        (2, {"content": 5}),  # reasoning content neither a list nor null
        (0, {"id": 7}),  # a message id that is not a string
        (3, {"status": "done"}),  # a status outside the enum
    ):
        body = copy.deepcopy(_codex())
        body["input"][where].update(change)
        assert _problems(body, "openai-responses"), change
    body = copy.deepcopy(_codex())
    body["client_metadata"] = {"n": 1}
    assert _problems(body, "openai-responses")


def _gemini_loop_check() -> dict[str, Any]:
    call = {"functionCall": {"id": "c1", "name": "run_shell_command", "args": {"command": "ls"}}}
    return {
        "contents": [
            {"role": "user", "parts": [{"text": "Recent conversation history:"}]},
            {"role": "model", "parts": [call]},
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "c1",
                            "name": "run_shell_command",
                            "response": {"output": "a.txt"},
                        }
                    }
                ],
            },
            {"role": "model", "parts": [{"text": "Read a.txt."}]},
            {"role": "user", "parts": [{"text": "Is the conversation stuck in a loop?"}]},
        ],
        "systemInstruction": {"role": "user", "parts": [{"text": "You check for loops."}]},
        "generationConfig": {"responseMimeType": "application/json"},
    }


def test_gemini_calls_need_no_declared_tools() -> None:
    assert _problems(_gemini_loop_check(), "gemini", model="gemini-3-flash-preview") == []


def test_gemini_still_refuses_two_user_turns_in_a_row() -> None:
    body = _gemini_loop_check()
    body["contents"].append({"role": "user", "parts": [{"text": "again"}]})
    assert any("two user turns" in p for p in _problems(body, "gemini"))
