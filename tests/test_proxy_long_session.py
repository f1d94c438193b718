"""A session that does not end: 300 turns under a 60 k limit through ``snapshot proxy
--summarizer auto``, the official anthropic SDK as the client and ``fake_upstream`` (an
offline stand-in that validates every body and answers with Anthropic's real overflow
error) as the provider.

The model's table window (1 M) is far above the fake's limit, so the first request over it
is refused: the proxy learns the stated limit and recovers; from then on passes keep the
session under the threshold, the pages grow until the free rungs cannot fit, the dense
layout comes next, then a summary made by the client's own model with the client's own
key (``auto``), each of its requests within the stated limit. No rejection reaches the
client. Turns are plain prose (nothing for elide to drop), sent unstreamed, to keep the
CPU small; a longer variant is ``bench/test_proxy_wall.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")
anthropic = pytest.importorskip("anthropic")

from fake_upstream import FakeUpstream, serve_in_thread  # noqa: E402
from test_proxy_sdk import CLAUDE, KEY, wait_for_ledger  # noqa: E402

from snapshot.ladder.summary import SUMMARY_PROMPT  # noqa: E402
from snapshot.proxy.app import Proxy, ProxyConfig  # noqa: E402
from snapshot.proxy.ledger import summarize  # noqa: E402

LIMIT = 60_000
TOOLS = [
    {
        "name": f"tool_{k}",
        "description": f"Tool number {k}: " + "does one careful thing to the workspace. " * 12,
        "input_schema": {
            "type": "object",
            "properties": {
                f"arg{j}": {"type": "string", "description": "an argument"} for j in range(6)
            },
        },
    }
    for k in range(12)
]


def _words(turn: int, who: str, n: int) -> str:
    return " ".join(f"{who}{turn}w{i}" for i in range(n))


def _reply(_api: str, body: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(body.get("messages", [])[-1:])
    if SUMMARY_PROMPT in text:
        return {"text": "Summary: the user and the assistant discussed numbered notes."}
    turn = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
    return {"text": f"Noted turn {turn}: {_words(turn, 'a', 200)}."}


def run_session(tmp: Path, turns: int) -> tuple[FakeUpstream, list[dict[str, Any]]]:
    """``turns`` turns through the proxy; (the fake, the ledger records)."""
    with FakeUpstream(limit=LIMIT, reply=_reply, max_requests=4 * turns, lifetime=3600) as fake:
        proxy = Proxy(
            ProxyConfig(
                upstream=fake.url,
                store=tmp / "store",
                ledger=tmp / "ledger",
                summarizer="auto",
            ),
            log=lambda _line: None,
        )
        server = serve_in_thread(proxy.app, lifetime=3600)
        client = anthropic.Anthropic(
            api_key=KEY, base_url=f"http://127.0.0.1:{server.port}", max_retries=0, timeout=300
        )
        messages: list[dict[str, Any]] = []
        try:
            for turn in range(turns):
                messages.append(
                    {"role": "user", "content": f"Turn {turn}: {_words(turn, 'u', 200)}."}
                )
                reply = client.messages.create(
                    model=CLAUDE,
                    max_tokens=200,
                    system="You are a careful note keeper.",
                    tools=TOOLS,
                    messages=messages,
                )
                messages.append({"role": "assistant", "content": reply.content[0].text})
            records = wait_for_ledger(tmp / "ledger", turns)
        finally:
            server.stop()
    return fake, records


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FakeUpstream, Any, Path]]:
    tmp = tmp_path_factory.mktemp("long")
    fake, records = run_session(tmp, 300)
    yield fake, records, tmp


def test_three_hundred_turns_and_no_rejection_reaches_the_client(session: Any) -> None:
    fake, records, tmp = session
    assert not fake.problems, fake.problems[:3]  # every body the fake accepted is valid
    forwarded = [r for r in records if r.get("kind") is None]
    rejections = [r for r in records if r.get("kind") == "rejection"]
    assert len([r for r in forwarded if r["status"] == 200]) == 300
    assert not [r for r in rejections if r["rejection"]["reached_client"]]
    # The provider taught its limit once; no two rejections of the conversation under one
    # learned state.
    assert 1 <= len(rejections) <= 2
    states = [json.dumps(r["rejection"]["learned"], sort_keys=True) for r in rejections]
    assert len(states) == len(set(states))
    row = next(r for r in summarize(tmp / "ledger").rows if r["model"] == CLAUDE)
    assert row["rejections_to_client"] == 0 and row["requests"] == 300


def test_the_wall_is_passed_by_the_dense_layout_then_a_summary_that_fits(session: Any) -> None:
    fake, records, _tmp = session
    plans = [r["plan"] for r in records if r.get("kind") is None]
    assert any(p["layout"] == "dense" for p in plans)
    summaries = [p["summary"] for p in plans if p.get("summary")]
    assert summaries, "the session never needed a summary: make the turns longer"
    for summary in summaries:
        assert summary["usage_label"] == "measured"
        assert summary["largest_request_tokens"] <= summary["request_limit"] <= LIMIT
    # Every summary request the fake saw was the client's model, key and shape, and fit.
    asked = [a for a in fake.accepted if SUMMARY_PROMPT in json.dumps(a.body)[:2000]]
    assert asked and all(a.body["model"] == CLAUDE and a.tokens <= LIMIT for a in asked)
    # The client's own credentials went with them (the fake masks them on its record).
    assert all("***" in (a.headers.get("x-api-key"), a.headers.get("authorization")) for a in asked)
    assert all(a.headers["anthropic-version"] for a in asked)
    # Every forwarded request stayed under the stated limit by the fake's own count.
    assert all(a.tokens <= LIMIT for a in fake.accepted)


def test_most_compacted_requests_reuse_the_previous_pass(session: Any) -> None:
    _fake, records, _tmp = session
    compacted = [r["plan"] for r in records if r.get("kind") is None and r["plan"]["compacted"]]
    reusing = sum(p["reuses_previous_pass"] for p in compacted)
    assert compacted and reusing >= len(compacted) / 2, (reusing, len(compacted))
