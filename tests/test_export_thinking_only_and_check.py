"""A thinking-only assistant turn exports as a non-empty message, and ``--check`` says
what it could not check (issue 26 items 3 and 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from formats_batch2 import HAVE_BATCH2, SKIP_REASON, sample2

from snapshot.cli import main
from snapshot.transcript.export import THINKING_LEFT_OUT, export
from snapshot.transcript.model import TextBlock, ThinkingBlock, linear
from snapshot.transcript.validate import SHAPES, export_report, openai_spec, validate


def _thinking_only():
    return linear(
        "c",
        [
            ("u1", "user", [TextBlock("look at this")]),
            ("a1", "assistant", [ThinkingBlock("hmm, nothing to say yet")]),
            ("u2", "user", [TextBlock("go on")]),
            ("a2", "assistant", [TextBlock("done")]),
        ],
    )


def test_a_thinking_only_turn_is_no_empty_assistant_message() -> None:
    body = export(_thinking_only(), "openai").body
    assistants = [m for m in body["messages"] if m["role"] == "assistant"]
    assert [m["content"] for m in assistants] == [THINKING_LEFT_OUT, "done"]
    for shape in SHAPES:
        assert validate(export(_thinking_only(), shape).body, shape).ok, shape


def test_check_catches_an_empty_assistant_message() -> None:
    body = {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": ""},
            {"role": "user", "content": "again"},
        ],
    }
    rules = [p.rule for p in validate(body, "openai").problems]
    assert rules == ["empty-turn"]
    # Empty content beside tool_calls stays valid.
    body["messages"][1] = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    }
    body["messages"].insert(2, {"role": "tool", "tool_call_id": "c1", "content": "ok"})
    body["tools"] = [{"type": "function", "function": {"name": "f", "parameters": {}}}]
    assert "empty-turn" not in [p.rule for p in validate(body, "openai").problems]


@pytest.mark.skipif(not HAVE_BATCH2, reason=SKIP_REASON)
def test_the_real_thinking_only_turn_exports_valid_to_openai() -> None:
    path = sample2("claude-code/entire-26dcd5-image.jsonl")
    assert main(["export", str(path), "--to", "openai", "--check"]) == 0


def test_check_without_the_spec_says_what_it_did_not_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def nowhere(body: object, shape: str) -> list[object]:
        raise openai_spec.SchemaUnavailable("OpenAI's OpenAPI spec was not found")

    # As in a user install: the spec lives outside the package.
    monkeypatch.setattr(openai_spec, "validate_openai", nowhere)
    done = export_report(_thinking_only(), "openai", check=True)
    assert done.ok  # the rules found nothing ...
    assert done.problems[0].startswith("OpenAI OpenAPI spec check skipped")
    # ... and the count line does not pass for a full check.
    assert done.problems[-1].endswith("NOT checked by OpenAI OpenAPI spec (see above)")
    checked = validate(export(_thinking_only(), "openai").body, "openai")
    assert checked.to_json()["not_checked_by"] == ["OpenAI OpenAPI spec"]


def test_the_validate_extra_holds_every_sdk_the_check_uses() -> None:
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    extra = " ".join(project["project"]["optional-dependencies"]["validate"])
    for sdk in ("jsonschema", "anthropic", "openai", "google-genai"):
        assert sdk in extra


def test_compact_check_without_the_spec_says_what_it_did_not_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def nowhere(body: object, shape: str) -> list[object]:
        raise openai_spec.SchemaUnavailable("OpenAI's OpenAPI spec was not found")

    monkeypatch.setattr(openai_spec, "validate_openai", nowhere)
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")
    source = tmp_path / "req.json"
    source.write_text(
        json.dumps(
            {
                "model": "m",
                "messages": [
                    {"role": "user", "content": "list the files " * 20},
                    {"role": "assistant", "content": "a.txt and b.txt " * 20},
                ],
            }
        )
    )
    argv = ["compact", str(source), "--model", "gpt-5.1", "--budget", "100000"]
    assert main([*argv, "--out", str(tmp_path / "o"), "--check", "--summarizer", "none"]) == 0
    err = capsys.readouterr().err
    assert "check: OpenAI OpenAPI spec check skipped" in err
    assert "0 problem(s); NOT checked by OpenAI OpenAPI spec (see above)" in err
