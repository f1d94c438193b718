"""The live summarizer against a local fake server: the request it sends, the summary it returns.

No network: the server listens on 127.0.0.1 and answers like the provider.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest
from ladder_helpers import agent_run

from snapshot.errors import SnapshotError
from snapshot.ladder.ladder import run_ladder
from snapshot.ladder.summary import LiveSummarizer
from snapshot.ladder.target import target_for

SUMMARY = "Goal: fix the failing test. Done: steps 0-7. Next: run the suite. Key id: call0007."


class _Handler(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
        if self.path.endswith("/messages"):
            reply: dict[str, Any] = {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [{"type": "text", "text": SUMMARY}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 20},
            }
        else:
            reply = {
                "id": "c1",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": SUMMARY},
                    }
                ],
            }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.requests = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


def test_anthropic_summary_is_one_call_with_the_span(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    conv = agent_run(12)
    target = target_for("claude-sonnet-4-5")
    summarizer = LiveSummarizer("claude-sonnet-4-5", base_url=server, timeout=10)
    result = run_ladder(conv, target, 600, summarizer=summarizer)
    assert result.summary is not None and result.summary.source == "model"
    assert result.model_calls == 1 and len(_Handler.requests) == 1
    sent = _Handler.requests[0]["body"]
    assert sent["model"] == "claude-sonnet-4-5"
    prompt = sent["messages"][0]["content"]
    assert "step 5" in prompt and "Summarize" in prompt
    texts = [b.text for m in result.conversation.path() for b in m.blocks if hasattr(b, "text")]
    assert any(SUMMARY in t for t in texts)


def test_openai_summary(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    summary = LiveSummarizer("gpt-5.1", base_url=server + "/v1", timeout=10).summarize(
        agent_run(3), agent_run(3).path()[1:4]
    )
    assert summary.text == SUMMARY and summary.source == "model"
    assert summary.model == "gpt-5.1"
    assert _Handler.requests[0]["path"].endswith("/chat/completions")
    sent = _Handler.requests[0]["body"]
    assert sent["model"] == "gpt-5.1"
    assert [m["role"] for m in sent["messages"]] == ["user"]
    assert sent["messages"][0]["content"].startswith("Summarize")


def test_no_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(SnapshotError, match="ANTHROPIC_API_KEY"):
        LiveSummarizer("claude-sonnet-4-5").summarize(agent_run(1), agent_run(1).path())
