"""A scripted agent loop through ``snapshot proxy``: 62 turns of growing tool results cross
the threshold several times (several passes), then meet a reactive overflow.

The client is the official OpenAI SDK; the upstream is ``fake_upstream`` (an offline
stand-in that validates every body it accepts). Checked: every accepted request is
valid; no turn is lost from what the model sees (each turn's marker is in the
request's text or on its pages, read back by the package's round-trip decoder); pages
of one pass are byte-identical request after request; the store holds every turn and
the ledger every request; the overflow is recovered once, without a model call.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")
openai = pytest.importorskip("openai")

from fake_upstream import FakeUpstream, serve_in_thread  # noqa: E402
from fidelity_check import ClientBodies, check_fidelity  # noqa: E402
from test_proxy_sdk import KEY, wait_for_ledger  # noqa: E402

from snapshot.proxy.app import Proxy, ProxyConfig  # noqa: E402
from snapshot.transcript.store import Store  # noqa: E402

GPT = "gpt-5.5"
TURNS = 62
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


_calls = itertools.count()


def _reply(_api: str, body: dict[str, Any]) -> dict[str, Any]:
    n = next(_calls)
    return {"call": ("read_file", {"path": f"/src/next{n}.py"}, f"call_{n:03d}")}


def _result(turn: int) -> str:
    lines = [
        f"# mod{turn}.py: line {i} of the module, value {turn * 31 + i}" for i in range(8 + turn)
    ]
    return "\n".join(lines)


def tool_turn(call_id: str, turn: int) -> list[dict[str, Any]]:
    """The assistant's read_file call of ``turn`` and its result (the loop's next two messages)."""
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": "read_file", "arguments": json.dumps({"path": f"/src/mod{turn}.py"})},
    }
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": _result(turn)},
    ]


def _page_texts(body: dict[str, Any], tmp: Path) -> list[str]:
    from snapshot.rendering.decode import read_page_file

    texts = []
    for m in body["messages"]:
        for part in m.get("content") if isinstance(m.get("content"), list) else []:
            url = (part.get("image_url") or {}).get("url", "") if isinstance(part, dict) else ""
            if url.startswith("data:image/png;base64,"):
                page = tmp / f"p{len(texts)}.png"
                page.write_bytes(base64.b64decode(url.split(",", 1)[1]))
                texts.append(read_page_file(page))
    return texts


def _images(body: dict[str, Any]) -> list[str]:
    return re.findall(r"data:image/png;base64,[A-Za-z0-9+/=]+", json.dumps(body))


def test_sixty_turns_several_passes_then_a_reactive_overflow(tmp_path: Path) -> None:
    with FakeUpstream(limit=10**7, reply=_reply, max_requests=200) as fake:
        proxy = Proxy(
            ProxyConfig(
                upstream=fake.url,
                store=tmp_path / "store",
                ledger=tmp_path / "ledger",
                window=9000,
                threshold=0.8,
            ),
            log=lambda _line: None,
        )
        server = serve_in_thread(proxy.app, lifetime=240)
        recorded = ClientBodies()
        client = openai.OpenAI(
            api_key=KEY,
            base_url=f"http://127.0.0.1:{server.port}/v1",
            max_retries=0,
            http_client=recorded.client(timeout=120),
        )
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": "You are a coding agent. Read files until done."},
            {"role": "user", "content": "Audit every module under /src."},
        ]
        sent = 0
        try:
            for turn in range(TURNS):
                if turn == TURNS - 1:
                    # The provider's own count says the request is too long: a reactive overflow.
                    fake.limit = fake.accepted[-1].tokens + 600
                streaming = turn % 3 == 0
                kwargs: dict[str, Any] = {"model": GPT, "messages": messages, "tools": TOOLS}
                if streaming:
                    chunks = list(
                        client.chat.completions.create(
                            **kwargs, stream=True, stream_options={"include_usage": True}
                        )
                    )
                    call = next(
                        c.choices[0].delta.tool_calls[0]
                        for c in chunks
                        if c.choices and c.choices[0].delta.tool_calls
                    )
                    call_id = call.id
                else:
                    done = client.chat.completions.create(**kwargs)
                    call_id = done.choices[0].message.tool_calls[0].id
                sent += 1
                messages += tool_turn(call_id, turn)
            records = wait_for_ledger(tmp_path / "ledger", sent + 1)
        finally:
            server.stop()

    assert not fake.problems, fake.problems[:3]
    # The ledger has every request: each turn, plus the attempt the provider rejected.
    assert len(records) == sent + 1
    rejected = [r for r in records if r.get("kind") == "rejection"]
    assert len(rejected) == 1 and rejected[0]["recovery_tried"] == "retried once compacted"
    assert rejected[0]["status"] == 400 and not rejected[0]["rejection"]["reached_client"]
    records = [r for r in records if r.get("kind") != "rejection"]
    retried = records[-1]
    assert (
        retried["status"] == 200 and retried["recovered_from"]["kind"] == "context_length_exceeded"
    )
    assert len(fake.rejected) == 1
    # Several passes: requests compacted by a new pass, and requests reusing one.
    compacted = [r for r in records if r["plan"]["compacted"]]
    passes = [r for r in compacted if not r["plan"]["reused_pass"]]
    assert len(passes) >= 3, [r["plan"]["tokens_before"] for r in passes]
    assert sum(r["plan"]["reused_pass"] for r in compacted) >= 5
    # Most compacted requests keep the previous pass's prefix (pages or items) byte for byte.
    reusing = sum(r["plan"]["reuses_previous_pass"] for r in compacted)
    assert reusing >= len(compacted) / 2, (reusing, len(compacted))
    assert all(r["plan"]["tokens_after"]["label"] == "exact" for r in compacted)
    assert all(r["usage"] and r["usage_label"] == "measured" for r in records if r["status"] == 200)

    # Outside its span every compacted request is the client's, item for item.
    sent_compacted = [r for r in compacted if r["status"] == 200]  # a refused one never arrived
    assert check_fidelity(fake, recorded).compacted == len(sent_compacted)

    # Within a pass the compacted prefix is byte-identical: the provider's cache prefix holds.
    accepted = fake.accepted
    reused_hits = [
        a.cached
        for a, r in zip(accepted[1:], records[1:], strict=False)
        if r["plan"]["reused_pass"]
    ]
    assert reused_hits and all(hit > 0 for hit in reused_hits)
    ok = [r for r in records if r["status"] == 200]
    assert len(ok) == len(accepted)
    same_pass = 0
    for (before, after), rec in zip(itertools.pairwise(accepted), ok[1:], strict=True):
        if rec["plan"]["reused_pass"] and _images(before.body):
            assert _images(after.body) == _images(before.body)
            same_pass += 1
    assert same_pass >= 2
    # The cache-prefix stability against the fake: its cached share of each request's tokens.
    reused = [
        (a.cached, a.tokens) for a, r in zip(accepted, ok, strict=True) if r["plan"]["reused_pass"]
    ]
    fresh = [
        (a.cached, a.tokens)
        for a, r in zip(accepted[1:], ok[1:], strict=True)
        if not r["plan"]["compacted"]
    ]
    share = sum(c for c, _ in reused) / sum(t for _, t in reused)
    print(
        f"\ncache prefix (fake upstream, offline stand-in): {len(reused)} requests reusing a pass, "
        f"{share:.1%} of their tokens cached; {len(fresh)} uncompacted requests, "
        f"{sum(c for c, _ in fresh) / max(1, sum(t for _, t in fresh)):.1%}; "
        f"{len(passes)} passes; load {Path('/proc/loadavg').read_text().split()[:3]}"
    )

    # No turn is lost from what the model sees: every marker is in the text or on a page.
    with tempfile.TemporaryDirectory() as d:
        for index, req in enumerate(accepted):
            if index not in (0, len(accepted) - 1) and index % 20 != 0:
                continue
            pages = _page_texts(req.body, Path(d))
            seen = json.dumps(req.body) + "".join(pages).replace("\n", "")
            turns = sum(1 for m in req.body["messages"] if m.get("role") == "tool")
            for k in range(min(turns, TURNS - 1)):
                assert f"mod{k}.py" in seen, (index, k)

    # The store holds every turn: all 62 tool calls and results and the last reply.
    [conv_id] = {r["conversation"] for r in records}
    stored = Store(tmp_path / "store").load(conv_id)
    answered = [c for m in stored.path() for c in m.tool_calls()]
    assert len(answered) == TURNS - 1  # the tip stays at the turn boundary
    every = [c for m in stored.messages for c in m.tool_calls()]
    assert len(every) == TURNS  # the last reply's call is stored, awaiting its result
    assert (tmp_path / "store" / "proxy-limits.json").is_file()
