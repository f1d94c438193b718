"""``snapshot proxy --summarizer MODEL`` against ``fake_upstream`` (an offline stand-in for the
provider): when the free rungs cannot reach the provider's stated limit, the summary rung makes
its own small request from the retained source text, never the body that overflowed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")
anthropic = pytest.importorskip("anthropic")

from fake_upstream import FakeUpstream, fake_tokens  # noqa: E402
from test_proxy_sdk import CLAUDE, KEY, Running  # noqa: E402

from snapshot.ladder.summary import SUMMARY_PROMPT  # noqa: E402
from snapshot.proxy.ledger import summarize  # noqa: E402
from snapshot.proxy.planner import Planner  # noqa: E402

# The summarizer's own key: the SDK reads it from the environment, as in production.
SUMMARY_KEY = "sk-summary-SECRET-9876543210"
SUMMARIZER = "claude-haiku-4-5"  # a smaller model with its own, larger limit
MIDDLE_MARK = "the blue-heron migration note"


def _chat(turns: int) -> list[dict[str, Any]]:
    """Plain prose turns: nothing for elide to drop, no image, so only pages or a summary shrink it."""
    out: list[dict[str, Any]] = []
    for t in range(turns):
        words = " ".join(f"w{t}x{i}" for i in range(120))
        mark = f" {MIDDLE_MARK}" if t == turns // 2 else ""
        out.append({"role": "user", "content": f"Turn {t}: please consider {words}{mark}."})
        out.append({"role": "assistant", "content": f"Noted turn {t}: {words}."})
    out.append({"role": "user", "content": "And now?"})
    return out


@pytest.fixture
def running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Running]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SUMMARY_KEY)
    with FakeUpstream() as fake:
        r = Running(fake, tmp_path, window=10**6, summarizer=SUMMARIZER)
        yield r
        r.finish()  # stops it; every compacted request differed only in its span


def _no_key_anywhere(r: Running) -> None:
    for folder in (r.store_dir, r.ledger_dir):
        for f in folder.rglob("*") if folder.exists() else []:
            if f.is_file():
                data = f.read_bytes()
                assert KEY.encode() not in data and SUMMARY_KEY.encode() not in data, f
    logs = "\n".join(r.logs)
    assert KEY not in logs and SUMMARY_KEY not in logs


def test_summary_is_its_own_small_request_from_the_retained_text(running: Running) -> None:
    messages = _chat(8)
    overflow = fake_tokens(messages)
    running.fake.limit = overflow // 3  # below what the free rungs reach: head, tail and pages
    running.fake.model_limits[SUMMARIZER] = overflow * 2  # the summarizer's own, larger window
    reply = running.anthropic().messages.create(model=CLAUDE, max_tokens=50, messages=messages)
    assert reply.content[0].text == "ok, noted."

    # Only the client's request overflowed; then the summary request, then the retry.
    [(_api, status, _error)] = running.fake.rejected
    assert status == 400
    summary_request, retried = running.fake.accepted
    body = summary_request.body
    assert body["model"] == SUMMARIZER and len(body["messages"]) == 1
    text = body["messages"][0]["content"]
    assert text.startswith(SUMMARY_PROMPT) and MIDDLE_MARK in text  # the middle's own text
    assert len(summary_request.raw) < len(json.dumps(messages))  # never the overflowing body
    assert summary_request.tokens < overflow
    assert SUMMARY_KEY in " ".join(running.fake.seen_auth)  # its key, from the environment

    # The retry fits the provider's limit and is valid (the fake validates every body).
    assert retried.body["model"] == CLAUDE and retried.tokens <= running.fake.limit
    assert not running.fake.problems

    first, record = running.ledger(2)
    assert first["status"] == 400 and record["status"] == 200
    assert record["plan"]["rungs"][-1] == "summary" and record["plan"]["fits"]
    summary = record["plan"]["summary"]
    assert summary["model"] == SUMMARIZER and summary["usage_label"] == "measured"
    assert summary["usage"]["input"] == summary_request.tokens  # the provider's own usage
    assert summary["dollars"] is not None and summary["dollars"]["total"] > 0
    rows = {r["model"]: r for r in summarize(running.ledger_dir).rows}
    assert rows[SUMMARIZER]["summary_calls"] == 1 and rows[SUMMARIZER]["requests"] == 0
    assert rows[SUMMARIZER]["measured_input"] == summary_request.tokens
    _no_key_anywhere(running)


def test_a_summary_request_the_summarizer_rejects_leaves_the_providers_error(
    running: Running,
) -> None:
    messages = _chat(8)
    running.fake.limit = fake_tokens(messages) // 3  # the summarizer's request is over it too
    with pytest.raises(anthropic.BadRequestError) as exc:
        running.anthropic().messages.create(model=CLAUDE, max_tokens=50, messages=messages)
    tried = exc.value.response.headers["X-Snapshot-Recovery"]
    assert "live summary failed" in tried and SUMMARY_KEY not in tried
    assert len(running.fake.rejected) == 2 and not running.fake.accepted
    _no_key_anywhere(running)


def test_the_summarizer_sdk_is_pointed_at_the_proxys_upstream() -> None:
    url = "http://127.0.0.1:9"
    assert Planner(upstream=url, summarizer=CLAUDE)._summarizer_url() == url
    assert Planner(upstream=url, summarizer="gpt-5.5")._summarizer_url() == url + "/v1"
    assert Planner(upstream=url + "/v1", summarizer="gpt-5.5")._summarizer_url() == url + "/v1"


def test_ahead_of_the_wall_the_summary_also_makes_its_own_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SUMMARY_KEY)
    messages = _chat(8)
    with FakeUpstream() as fake:
        # A window whose threshold the free rungs (head, tail and pages) cannot get under.
        r = Running(fake, tmp_path, window=3300, summarizer=SUMMARIZER)
        try:
            r.anthropic().messages.create(model=CLAUDE, max_tokens=50, messages=messages)
        finally:
            report = r.finish()
        assert report.compacted == 1
    assert not fake.rejected and not fake.problems
    # --window applies to every model, the summarizer's too: the middle is summarized in
    # several requests, each within that window, each carrying the summary so far.
    *summary_requests, forwarded = fake.accepted
    assert len(summary_requests) > 1
    assert all(s.body["model"] == SUMMARIZER and s.tokens <= 3300 for s in summary_requests)
    assert any(MIDDLE_MARK in s.body["messages"][0]["content"] for s in summary_requests)
    assert all(len(s.raw) < len(json.dumps(messages)) for s in summary_requests)
    assert forwarded.body["model"] == CLAUDE and MIDDLE_MARK not in json.dumps(forwarded.body)
    [record] = r.ledger(1)
    assert record["plan"]["rungs"][-1] == "summary" and record["plan"]["fits"]
    summary = record["plan"]["summary"]
    assert summary["calls"] == len(summary_requests) and summary["request_limit"] == 3300
    assert summary["largest_request_tokens"] <= 3300
    assert summary["usage"]["input"] == sum(s.tokens for s in summary_requests)
    _no_key_anywhere(r)
