"""The proxy's pieces without a server: splicing keeps every field, identity, the listen
address rule, the ledger report command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snapshot.cli import main
from snapshot.errors import InputError
from snapshot.ladder.ladder import FREE_RUNGS, LadderOptions, run_ladder
from snapshot.ladder.target import target_for
from snapshot.proxy.bodies import request_conversation, splice
from snapshot.proxy.errors import ProxyError
from snapshot.proxy.identity import identify
from snapshot.proxy.ledger import Ledger
from snapshot.proxy.shapes import ANTHROPIC, GEMINI


def _anthropic_body(turns: int) -> dict:
    messages: list[dict] = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "start", "cache_control": {"type": "ephemeral"}}],
        }
    ]
    for t in range(turns):
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": f"toolu_{t}", "name": "cat", "input": {"f": t}}
                ],
            }
        )
        result = "\n".join(f"row {i} of file {t}: all quiet" for i in range(80))
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"toolu_{t}", "content": result}
                ],
            }
        )
    messages[-1]["content"].append(
        {"type": "text", "text": "next?", "cache_control": {"type": "ephemeral"}, "x_future": 1}
    )
    return {
        "model": "claude-sonnet-5-5",
        "max_tokens": 1000,
        "stream": True,
        "temperature": 0.4,
        "metadata": {"user_id": "u"},
        "thinking": {"type": "enabled", "budget_tokens": 2000},
        "system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
        "tools": [{"name": "cat", "input_schema": {"type": "object"}}],
        "x_unknown": {"k": [1]},
        "messages": messages,
    }


def test_splice_keeps_every_field_and_untouched_items() -> None:
    body = _anthropic_body(6)
    conv = request_conversation(ANTHROPIC, body, "c")
    result = run_ladder(
        conv, target_for("claude-sonnet-5-5"), 1500, options=LadderOptions(rungs=FREE_RUNGS)
    )
    assert "elide" in result.rungs_taken
    spliced = splice(ANTHROPIC, body, conv, result.conversation, "claude-sonnet-5-5")
    out = spliced.body
    for key in (
        "model",
        "max_tokens",
        "stream",
        "temperature",
        "metadata",
        "thinking",
        "system",
        "tools",
        "x_unknown",
    ):
        assert out[key] == body[key], key
    front, end = spliced.replaced
    assert 0 < front < end <= len(body["messages"])
    assert out["messages"][:front] == body["messages"][:front]  # cache_control on the first stays
    tail = len(body["messages"]) - end
    assert out["messages"][len(out["messages"]) - tail :] == body["messages"][end:]
    assert out["messages"][-1]["content"][-1]["x_future"] == 1
    assert len(json.dumps(out)) < len(json.dumps(body))


def test_identity_rule() -> None:
    body = _anthropic_body(1)
    later = _anthropic_body(3)
    later["messages"][0]["content"][0].pop("cache_control")  # clients move the markers
    assert identify(ANTHROPIC, body, {}) == identify(ANTHROPIC, later, {})
    sub = dict(body, system="You are a sub-agent that searches.")
    assert identify(ANTHROPIC, sub, {})[0] != identify(ANTHROPIC, body, {})[0]
    named = {"X-Snapshot-Conversation": "run-7/searcher"}
    assert identify(ANTHROPIC, body, named) == ("run-7", "searcher")
    gem = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    assert identify(GEMINI, gem, {})[0].startswith("fp-")
    with pytest.raises(
        ProxyError, match=r"X-Snapshot-Conversation: conversation id '\.\.' is a path traversal"
    ):
        identify(ANTHROPIC, body, {"X-Snapshot-Conversation": "../etc/x"})


def test_listen_needs_a_flag_off_loopback(capsys: pytest.CaptureFixture[str]) -> None:
    from snapshot.cli.proxy import listen_address

    assert listen_address("127.0.0.1:8787", False) == ("127.0.0.1", 8787)
    with pytest.raises(InputError, match="--allow-remote"):
        listen_address("0.0.0.0:8787", False)
    assert listen_address("0.0.0.0:9000", True) == ("0.0.0.0", 9000)
    assert "warning" in capsys.readouterr().err
    with pytest.raises(InputError, match="HOST:PORT"):
        listen_address("8787", False)


def test_report_ledger(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger = Ledger(tmp_path / "ledger")
    for compacted in (False, True):
        ledger.write(
            {
                "model": "claude-sonnet-5-5",
                "status": 200,
                "plan": {
                    "compacted": compacted,
                    "tokens_before": {"tokens": 5000, "label": "reconstructed"},
                    "tokens_after": {
                        "tokens": 2000 if compacted else 5000,
                        "label": "reconstructed",
                    },
                },
                "usage": {"input": 1800, "cache_read": 100, "cache_write": 0, "output": 50},
                "dollars": {"total": 0.006},
            }
        )
    # A rejection the proxy recovered, then the retry that reuses nothing, then a request
    # that reuses its pass: rejections are counted apart from forwarded requests.
    ledger.write(
        {
            "kind": "rejection",
            "model": "claude-sonnet-5-5",
            "status": 400,
            "plan": {"compacted": False},
            "rejection": {"kind": "invalid_request_error", "reached_client": False},
        }
    )
    ledger.write(
        {
            "model": "claude-sonnet-5-5",
            "status": 200,
            "plan": {
                "compacted": True,
                "reuses_previous_pass": True,
                "tokens_before": {"tokens": 5000, "label": "reconstructed"},
                "tokens_after": {"tokens": 2000, "label": "reconstructed"},
            },
            "usage": {"input": 100, "cache_read": 1800, "cache_write": 0, "output": 50},
            "dollars": {"total": 0.001},
        }
    )
    assert (
        main(["report", "--ledger", str(tmp_path / "ledger"), "--out", str(tmp_path / "out")]) == 0
    )
    text = (tmp_path / "out" / "LEDGER.md").read_text()
    assert (
        "| claude-sonnet-5-5 | 3 | 1 | 0 | 0 | 2 | 50% | 6,000 | reconstructed | 3,700 "
        "| 2,000 | 150 | 0.0130 |" in text
    )
    assert "3 forwarded requests; 1 rejected by the provider as too large, 0 of them" in text
    assert text in capsys.readouterr().out
    assert main(["report", "--ledger", str(tmp_path / "none"), "--out", str(tmp_path / "o2")]) == 2
