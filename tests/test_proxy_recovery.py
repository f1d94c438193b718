"""Reactive recovery through ``snapshot proxy`` with each provider's real overflow error, the
SDKs as clients and ``fake_upstream`` (an offline stand-in) as the provider."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")
anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")
genai = pytest.importorskip("google.genai")

from fake_upstream import FakeUpstream, fake_tokens  # noqa: E402
from test_proxy_sdk import CLAUDE, GEMINI, GPT, Running, wait_for_ledger  # noqa: E402

from snapshot.providers.overflow import parse_overflow  # noqa: E402
from snapshot.proxy.recovery import LearnedLimits  # noqa: E402


def _tool_history(turns: int, *, gemini: bool = False) -> list[dict[str, Any]]:
    """A user task, then ``turns`` tool calls with long, uneventful results (elide's work)."""
    out: list[dict[str, Any]] = []
    if gemini:
        out.append({"role": "user", "parts": [{"text": "Check the logs."}]})
    else:
        out.append({"role": "user", "content": "Check the logs."})
    for t in range(turns):
        result = "\n".join(f"log{t} entry {i}: nothing happened" for i in range(60))
        if gemini:
            out.append(
                {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {"name": "cat", "args": {"f": f"log{t}"}},
                            "thoughtSignature": f"c2ln{t:04d}",  # Gemini 3 signs its calls
                        }
                    ],
                }
            )
            out.append(
                {
                    "role": "user",
                    "parts": [
                        {"functionResponse": {"name": "cat", "response": {"output": result}}}
                    ],
                }
            )
        else:
            out.append(
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": f"toolu_{t:02d}",
                            "name": "cat",
                            "input": {"f": f"log{t}"},
                        }
                    ],
                }
            )
            out.append(
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": f"toolu_{t:02d}", "content": result}
                    ],
                }
            )
    if gemini:
        # Gemini's turns alternate: the question rides in the last results' turn.
        out[-1]["parts"].append({"text": "And now?"})
    else:
        out[-1]["content"].append({"type": "text", "text": "And now?"})
    return out


TOOLS = [
    {
        "name": "cat",
        "description": "read a log",
        "input_schema": {"type": "object", "properties": {"f": {"type": "string"}}},
    }
]


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
    with FakeUpstream() as fake:
        r = Running(fake, tmp_path, window=10**6)  # no proactive compaction: the provider decides
        yield r
        r.finish()  # stops it; every compacted request differed only in its span


def test_anthropic_prompt_too_long_is_recovered_once(running: Running) -> None:
    messages = _tool_history(8)
    running.fake.limit = fake_tokens(messages) * 2 // 3
    reply = running.anthropic().messages.create(
        model=CLAUDE, max_tokens=50, tools=TOOLS, messages=messages
    )
    assert reply.content[0].text == "ok, noted."
    [(_api, status, error)] = running.fake.rejected
    assert status == 400 and "prompt is too long" in error["error"]["message"]
    assert not running.fake.problems
    first, retried = running.ledger(2)
    assert first["status"] == 400 and retried["status"] == 200
    assert retried["recovered_from"]["limit"] == running.fake.limit
    assert "elide" in retried["plan"]["rungs"]
    learned = LearnedLimits(running.store_dir / "proxy-limits.json").get(running.fake.url, CLAUDE)
    assert learned.limit == running.fake.limit and learned.correction != 1.0
    # The next request plans with what was learned: no second rejection.
    running.anthropic().messages.create(model=CLAUDE, max_tokens=50, tools=TOOLS, messages=messages)
    assert len(running.fake.rejected) == 1


def test_anthropic_413_request_too_large(running: Running) -> None:
    messages = _tool_history(8)
    running.fake.byte_limit = len(json.dumps(messages)) // 2
    reply = running.anthropic().messages.create(
        model=CLAUDE, max_tokens=50, tools=TOOLS, messages=messages
    )
    assert reply.content[0].text == "ok, noted."
    assert [s for _a, s, _e in running.fake.rejected] == [413]
    assert running.ledger(2)[-1]["recovered_from"]["kind"] == "request_too_large"


def test_gemini_input_token_count_exceeds(running: Running) -> None:
    contents = _tool_history(8, gemini=True)
    running.fake.limit = fake_tokens(contents) * 2 // 3
    client = running.gemini()  # held: a collected genai client closes its transport
    from google.genai import types

    cat = types.FunctionDeclaration(
        name="cat",
        description="read a log",
        parameters_json_schema={"type": "object", "properties": {"f": {"type": "string"}}},
    )
    config = types.GenerateContentConfig(tools=[types.Tool(function_declarations=[cat])])
    reply = client.models.generate_content(model=GEMINI, contents=contents, config=config)
    assert reply.text == "ok, noted."
    assert [s for _a, s, _e in running.fake.rejected] == [400]
    assert not running.fake.problems


def test_when_free_rungs_cannot_fit_the_providers_error_goes_back_unchanged(
    running: Running,
) -> None:
    messages = _tool_history(8)
    running.fake.limit = 50  # below the verbatim head and tail
    with pytest.raises(anthropic.BadRequestError) as exc:
        running.anthropic().messages.create(
            model=CLAUDE, max_tokens=50, tools=TOOLS, messages=messages
        )
    [(_api, _status, error)] = running.fake.rejected
    assert exc.value.body == error  # the provider's own body, unchanged
    tried = exc.value.response.headers["X-Snapshot-Recovery"]
    assert "free rungs" in tried and "not retried" in tried
    assert wait_for_ledger(running.ledger_dir, 1)[0]["recovery_tried"] == tried
    assert not running.fake.accepted


def _responses_input(turns: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [{"role": "user", "content": "Check the logs."}]
    for t in range(turns):
        result = "\n".join(f"log{t} entry {i}: nothing happened" for i in range(60))
        items.append(
            {"type": "function_call", "call_id": f"call_{t}", "name": "cat", "arguments": "{}"}
        )
        items.append({"type": "function_call_output", "call_id": f"call_{t}", "output": result})
    items.append({"role": "user", "content": "And now?"})
    return items


RESPONSES_TOOLS = [
    {
        "type": "function",
        "name": "cat",
        "description": "read a log",
        "parameters": {"type": "object", "properties": {}},
        "strict": False,
    }
]


def test_openai_numberless_overflow_teaches_an_upper_bound(running: Running) -> None:
    items = _responses_input(8)
    running.fake.limit = fake_tokens(items) * 2 // 3
    client = running.openai()
    reply = client.responses.create(model=GPT, input=items, tools=RESPONSES_TOOLS)
    assert reply.output_text == "ok, noted."
    [(_api, status, error)] = running.fake.rejected
    assert status == 400 and "Your input exceeds the context window" in error["error"]["message"]
    rejection, retried = running.ledger(2)
    assert rejection["kind"] == "rejection" and not rejection["rejection"]["reached_client"]
    bound = rejection["rejection"]["learned"]["limit"]
    assert bound is not None and bound < rejection["plan"]["tokens_after"]["tokens"]
    assert retried["recovered_from"]["limit"] is None  # nothing stated: the body's count taught
    assert retried["plan"]["tokens_after"]["tokens"] <= bound
    # The next request plans with what was learned: no second rejection.
    client.responses.create(model=GPT, input=items, tools=RESPONSES_TOOLS)
    assert len(running.fake.rejected) == 1
    assert not running.fake.problems


def test_a_refused_retry_is_never_resent(running: Running) -> None:
    items = _responses_input(8)
    running.fake.limit = fake_tokens(items) // 8  # below what one recovery reaches
    client = running.openai()
    rejected_per_request = []
    for _attempt in range(4):  # a harness that sends the same request again
        before = len(running.fake.rejected)
        with pytest.raises(openai.BadRequestError) as exc:
            client.responses.create(model=GPT, input=items, tools=RESPONSES_TOOLS)
        assert exc.value.body == running.fake.rejected[-1][2]["error"]  # the provider's own
        rejected_per_request.append(len(running.fake.rejected) - before)
        assert "X-Snapshot-Recovery" in exc.value.response.headers
    # The first request: refused, retried once, the retry refused and not resent. Later
    # ones: at most one rejection each, or none (the provider's rejection answered again).
    assert rejected_per_request[0] == 2 and all(n <= 1 for n in rejected_per_request[1:])
    assert rejected_per_request[-1] == 0
    records = [r for r in running.ledger(6) if r.get("kind") == "rejection"]
    upstream = [r for r in records if not r["rejection"]["replayed"]]
    assert len(upstream) == len(running.fake.rejected)
    states = [json.dumps(r["rejection"]["learned"], sort_keys=True) for r in upstream]
    assert len(states) == len(set(states))  # never two rejections under one learned state
    assert all(r["rejection"]["reached_client"] for r in records[1:])
    assert not running.fake.accepted


@pytest.mark.parametrize(
    ("provider", "status", "body", "counted", "limit"),
    [
        (
            "anthropic",
            413,
            {
                "type": "error",
                "error": {
                    "type": "request_too_large",
                    "message": "Request exceeds the maximum allowed number of bytes.",
                },
            },
            None,
            None,
        ),
        (
            "openai",
            400,
            {
                "error": {
                    "code": "context_length_exceeded",
                    "type": "invalid_request_error",
                    "message": "This model's maximum context length is 128000 tokens. However, you requested 130500 tokens (129000 in the messages, 1500 in the completion).",
                }
            },
            129000,
            128000,
        ),
        (
            "openai",
            400,
            {
                "error": {
                    "code": "context_length_exceeded",
                    "message": "Your input exceeds the context window of this model.",
                }
            },
            None,
            None,
        ),
        (
            "google",
            400,
            {
                "error": {
                    "code": 400,
                    "status": "INVALID_ARGUMENT",
                    "message": "The input token count (1,048,600) exceeds the maximum number of tokens allowed (1,048,576).",
                }
            },
            1048600,
            1048576,
        ),
    ],
)
def test_parse_overflow(
    provider: str, status: int, body: Any, counted: int | None, limit: int | None
) -> None:
    found = parse_overflow(provider, status, body)
    assert found is not None and (found.counted, found.limit) == (counted, limit)


def test_other_errors_are_not_overflows() -> None:
    assert (
        parse_overflow(
            "anthropic",
            400,
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "messages: roles must alternate",
                },
            },
        )
        is None
    )
    assert (
        parse_overflow(
            "google",
            429,
            {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "quota"}},
        )
        is None
    )


def test_an_error_body_too_large_to_pass_whole_is_replaced_saying_so(running: Running) -> None:
    """Issue 39: never a truncated body the client would misread."""
    from snapshot.proxy.app import MAX_ERROR_BYTES

    messages = _tool_history(8)
    running.fake.limit = 50
    running.fake.pad_errors = MAX_ERROR_BYTES + 10
    with pytest.raises(anthropic.BadRequestError) as exc:
        running.anthropic().messages.create(
            model=CLAUDE, max_tokens=50, tools=TOOLS, messages=messages
        )
    body = exc.value.body
    assert isinstance(body, dict) and body["type"] == "error"
    assert "too large to pass whole" in body["error"]["message"]
    assert wait_for_ledger(running.ledger_dir, 1)[0]["recovery_tried"] == "error body too large"
