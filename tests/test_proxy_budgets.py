"""The planner against the limits a provider enforces and against its own refusals, with no
HTTP in between (``test_proxy_recovery.py`` drives the same code through the SDKs).

- An upstream body never carries more images than the provider keeps (OpenRouter: 8) nor
  more bytes than a body the provider refused for its bytes.
- Recovery cannot repeat itself: against a provider whose overflow states no numbers,
  each retry is strictly smaller than the body refused, a refused retry is never resent,
  and the learned limit falls with every rejection (no two under one learned state).
"""

from __future__ import annotations

import base64
import io
import itertools
import json
from typing import Any

from snapshot.providers.overflow import parse_overflow
from snapshot.proxy.budgets import count_images
from snapshot.proxy.planner import RECOVERY_MARGIN, Planner, RequestPlan
from snapshot.proxy.recovery import LearnedLimits
from snapshot.proxy.shapes import OPENAI_CHAT, OPENAI_RESPONSES

GPT = "gpt-5.5"
KEY = ("conv", "main")


def _png(seed: int, side: int = 48) -> str:
    import random

    from PIL import Image

    # Noise: a screenshot's bytes, not a flat colour's hundred.
    image = Image.frombytes("RGB", (side, side), random.Random(seed).randbytes(side * side * 3))
    out = io.BytesIO()
    image.save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def _screenshots(turns: int, side: int = 48) -> dict[str, Any]:
    """A chat body: each turn a tool call whose result is a screenshot (image and text)."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You drive a browser."},
        {"role": "user", "content": "Check every page of the site."},
    ]
    for t in range(turns):
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{t}",
                        "type": "function",
                        "function": {"name": "screenshot", "arguments": json.dumps({"n": t})},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"call_{t}", "content": f"page {t} shot"})
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"Screenshot of page {t}."},
                    {"type": "image_url", "image_url": {"url": _png(t, side)}},
                ],
            }
        )
    return {"model": GPT, "messages": messages}


def _plan(planner: Planner, body: dict[str, Any], *, scan: bool = True) -> RequestPlan:
    raw = json.dumps(body).encode()
    return planner.plan(OPENAI_CHAT, body, GPT, KEY, raw_bytes=len(raw), raw=raw if scan else None)


def test_openrouter_gets_at_most_eight_images() -> None:
    body = _screenshots(10)
    assert count_images(body) == 10
    planner = Planner(upstream="https://openrouter.ai/api/v1", window=10**6)
    plan = _plan(planner, body)
    assert plan.changed and "drop_images" in plan.rungs
    # The same without the bytes at hand (a library caller): the body is walked instead.
    unscanned = _plan(
        Planner(upstream="https://openrouter.ai/api/v1", window=10**6), body, scan=False
    )
    assert unscanned.data == plan.data
    assert count_images(plan.body) <= 8
    # The newest screenshot stays; the dropped ones are placeholders, their calls answered.
    last = plan.body["messages"][-1]["content"]
    assert any(part.get("type") == "image_url" for part in last)
    assert sum(m.get("role") == "tool" for m in plan.body["messages"]) == 10
    # Elsewhere the same body goes as it came: nothing over any budget.
    assert not _plan(Planner(upstream="https://api.openai.com", window=10**6), body).changed


def test_a_body_refused_for_its_bytes_is_never_sent_that_large_again() -> None:
    body = _screenshots(6, side=160)
    size = len(json.dumps(body).encode())
    limits = LearnedLimits(None)
    limits.learn("http://up", GPT, limit=None, correction=None, too_many_bytes=size * 3 // 4)
    plan = _plan(Planner(upstream="http://up", limits=limits, window=10**6), body)
    assert plan.changed and plan.data is not None
    assert len(plan.data) <= size * 3 // 4 * 0.95


def _numberless(items: list[Any], limit: int) -> dict[str, Any] | None:
    """A provider that counts JSON characters / 3 and refuses over ``limit`` with OpenAI's
    current numberless message."""
    if len(json.dumps(items)) // 3 <= limit:
        return None
    return {
        "error": {
            "message": "Your input exceeds the context window of this model. Please adjust "
            "your input and try again.",
            "type": "invalid_request_error",
            "param": "input",
            "code": "context_length_exceeded",
        }
    }


def _responses(turns: int) -> dict[str, Any]:
    items: list[Any] = [{"role": "user", "content": "Read every log."}]
    for t in range(turns):
        items.append(
            {
                "type": "function_call",
                "call_id": f"call_{t}",
                "name": "cat",
                "arguments": json.dumps({"f": f"log{t}"}),
            }
        )
        items.append(
            {
                "type": "function_call_output",
                "call_id": f"call_{t}",
                "output": "\n".join(f"log{t} line {i}: value {t * i}" for i in range(40)),
            }
        )
    items.append({"role": "user", "content": "And now?"})
    return {"model": GPT, "instructions": "You read logs.", "input": items}


def test_recovery_from_numberless_overflows_cannot_repeat_itself() -> None:
    body = _responses(16)
    limit = len(json.dumps(body["input"])) // 3 // 4  # far below: several rejections
    planner = Planner(upstream="http://up", window=10**6)
    refused: list[bytes] = []
    learned: list[int | None] = []
    attempts = 0
    while attempts < 12:
        attempts += 1  # the client (its harness) sends the same body again
        raw = json.dumps(body).encode()
        plan = planner.plan(OPENAI_RESPONSES, body, GPT, KEY, raw_bytes=len(raw))
        if plan.over_limit:
            break  # the proxy answers with the provider's last rejection: nothing sent
        data = plan.data if plan.changed and plan.data else raw
        error = _numberless(json.loads(data)["input"], limit)
        if error is None:
            break
        overflow = parse_overflow("openai", 400, error)
        assert overflow is not None and overflow.limit is None
        assert data not in refused  # never a body already refused
        refused.append(data)
        retry = planner.recover(OPENAI_RESPONSES, body, GPT, KEY, overflow, plan, refused=data)
        learned.append(planner.limits.get("http://up", GPT).limit)
        if not (retry.changed and retry.fits):
            continue  # the rejection goes back to the client
        assert retry.data is not None and retry.data != data
        # Smaller than the refused body's own count (the bound it taught) by the margin.
        assert retry.tokens_after <= (learned[-1] + 1) * (1 - RECOVERY_MARGIN)  # type: ignore[operator]
        error = _numberless(json.loads(retry.data)["input"], limit)
        if error is None:
            break
        # The retry was refused too: learned from, never resent.
        assert retry.data not in refused
        refused.append(retry.data)
        overflow = parse_overflow("openai", 400, error)
        assert overflow is not None
        planner.learn(OPENAI_RESPONSES, GPT, KEY, overflow, retry, refused=retry.data)
        learned.append(planner.limits.get("http://up", GPT).limit)
    assert attempts < 12, "the proxy kept sending bodies the provider refuses"
    # Each rejection taught a strictly smaller limit: no two under one learned state.
    assert len(learned) == len(refused) >= 2
    assert all(b is not None for b in learned)
    assert all(a > b for a, b in itertools.pairwise(learned)), learned  # type: ignore[operator]


def test_a_pass_over_the_taught_limit_is_drawn_anew_before_the_rejection_is_replayed(
    monkeypatch: Any,
) -> None:
    # bench/harness: a pass built on the previous one plus the client's newer items landed
    # over the limit the provider taught; a fresh pass under it comes before the replay.
    from dataclasses import replace

    planner = Planner(upstream="http://up", window=10**6)
    body = _responses(12)
    raw = json.dumps(body).encode()
    built_on_previous = planner.plan(OPENAI_RESPONSES, body, GPT, KEY, raw_bytes=len(raw))
    limit = built_on_previous.tokens_after - 10
    planner.limits.learn("http://up", GPT, limit=limit, correction=1.0)
    fresh = replace(built_on_previous, tokens_after=limit - 100, fits=True)
    asked: list[int] = []

    def fresh_pass(*args: Any) -> RequestPlan | None:
        asked.append(args[4])
        return fresh if len(asked) == 1 else None

    monkeypatch.setattr(planner, "_plan", lambda *a: built_on_previous)
    monkeypatch.setattr(planner, "_fresh_pass", fresh_pass)
    plan = planner.plan(OPENAI_RESPONSES, body, GPT, KEY, raw_bytes=len(raw))
    assert asked == [limit] and plan is fresh and not plan.over_limit
    # when no fresh pass fits either, the plan is not sent: the last rejection goes back
    plan = planner.plan(OPENAI_RESPONSES, body, GPT, KEY, raw_bytes=len(raw))
    assert plan.over_limit and plan.tokens_after > limit
