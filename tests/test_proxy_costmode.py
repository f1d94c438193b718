"""``snapshot proxy --mode cost|window|off`` and ``--policy``: driven by the official SDKs
against ``fake_upstream`` (an offline stand-in: a real aiohttp server on 127.0.0.1).

Claude Code-shaped Anthropic Messages first (a long system prompt in cached blocks,
tools with long descriptions and JSON schemas, tool calls and results, the cache
marker on the newest message); then OpenAI Chat. Every changed body passes the
fidelity diff (:func:`fidelity_check.check_fidelity`).
"""

from __future__ import annotations

import base64
import itertools
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")
anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")

from fake_upstream import FakeUpstream  # noqa: E402
from fidelity_check import check_fidelity  # noqa: E402
from test_proxy_sdk import Running  # noqa: E402  (a proxy in front of the fake, SDK bodies kept)

from snapshot.ladder.target import target_for  # noqa: E402
from snapshot.proxy.costmode import CostMode  # noqa: E402
from snapshot.proxy.counterfactual import Counterfactual  # noqa: E402
from snapshot.proxy.fidelity import outside_span_diff  # noqa: E402
from snapshot.proxy.inplace import InPlace, is_imaged  # noqa: E402
from snapshot.proxy.ledger import summarize  # noqa: E402
from snapshot.proxy.planner import Planner  # noqa: E402
from snapshot.proxy.prefix_pages import HEADER, PrefixImager, is_prefix_pages  # noqa: E402
from snapshot.proxy.shapes import shape_for  # noqa: E402

FULL = "claude-fable-5"  # its layout's verdict rests on model evidence: full by default
SAFE = "claude-sonnet-4-6"  # family reads measured, its layout unconfirmed: safe
SYSTEM = [
    {"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude."},
    {
        "type": "text",
        "text": "\n".join(
            f"Rule {i}: follow the repository's conventions in section {i}; never rewrite "
            f"history; run the tests before you commit (see CONTRIBUTING.md, item {i})."
            for i in range(120)
        ),
        "cache_control": {"type": "ephemeral"},
    },
]
TOOLS = [
    {
        "name": name,
        "description": f"{name}: "
        + " ".join(
            f"Use {name} for step {i} of the task; it reports what it did and where."
            for i in range(25)
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "what to run"},
                "path": {"type": "string"},
            },
            "required": ["command"],
        },
    }
    for name in ("Bash", "Read", "Edit", "Write", "Glob", "Grep")
]


def tool_result(turn: int, lines: int = 60) -> str:
    """A tool result of a few KB: code the agent read (ids only where code has them)."""
    return "\n".join(
        f"    def handler_{turn}_{i}(self, value):  # scales the value for step {turn}"
        for i in range(lines)
    )


def claude_code_messages(turns: int, lines: int = 60) -> list[dict[str, Any]]:
    """A Claude Code-shaped history of ``turns`` tool calls, the marker on the newest."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "TASK: list every handler."}]}
    ]
    for n in range(1, turns + 1):
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"Reading module {n}."},
                    {
                        "type": "tool_use",
                        "id": f"toolu_{n:04d}",
                        "name": "Read",
                        "input": {"command": "read", "path": f"src/mod{n}.py"},
                    },
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"toolu_{n:04d}",
                        "content": tool_result(n, lines),
                    }
                ],
            }
        )
    messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return messages


@pytest.fixture
def fake() -> Iterator[FakeUpstream]:
    with FakeUpstream(limit=10**7) as f:
        yield f


def _ask(client: Any, model: str, turns: int) -> None:
    reply = client.messages.create(
        model=model,
        max_tokens=100,
        system=SYSTEM,
        tools=TOOLS,
        messages=claude_code_messages(turns),
    )
    assert reply.content[0].text == "ok, noted."


def _images(body: dict[str, Any]) -> list[str]:
    return [
        block["source"]["data"]
        for item in body["messages"]
        for block in (item["content"] if isinstance(item["content"], list) else [])
        if block.get("type") == "image"
    ]


def test_cost_full_images_system_and_tools_byte_identical(
    fake: FakeUpstream, tmp_path: Path
) -> None:
    run = Running(fake, tmp_path, mode="cost")
    client = run.anthropic()
    for turns in (1, 2, 3):
        _ask(client, FULL, turns)
    run.server.stop()
    report = check_fidelity(fake, run.sent)  # the structural diff: empty outside what is imaged
    assert report.compacted == 3 and not fake.problems
    bodies = [a.body for a in fake.accepted]
    pages = [next(i for i in b["messages"] if is_prefix_pages(i)) for b in bodies]
    # The system/tool pages are the same bytes on every request while their text is.
    assert json.dumps(pages[0]) == json.dumps(pages[1]) == json.dumps(pages[2])
    assert pages[0]["content"][0]["text"] == HEADER
    for body in bodies:
        # Function calling unchanged: names and schemas are the client's, in order.
        assert [t["name"] for t in body["tools"]] == [t["name"] for t in TOOLS]
        assert [t["input_schema"] for t in body["tools"]] == [t["input_schema"] for t in TOOLS]
        assert body["system"][1]["cache_control"] == {"type": "ephemeral"}
        assert len(body["system"][1]["text"]) < 200 and body["system"][0] == SYSTEM[0]
    records = run.ledger(3)
    for rec in records:
        assert rec["mode"] == "cost" and rec["cost_mode"]["policy"] == "full"
        assert rec["cost_mode"]["chosen"].startswith("prefix")
        cf = rec["counterfactual"]
        assert cf["sent"]["tokens"] < cf["client_text"]["tokens"]
        assert cf["label"]["dollars"] == "modelled" and cf["dollars_saved"] > 0
        exact = rec["plan"]["exact_ids"]
        assert exact["as_text"] >= 0.95 * exact["on_pages"]
    # Drawn once: later requests reuse every page sent before (what the ledger's reuse
    # share counts) and add only the newest tool result's (full: drawn as it arrives).
    assert not records[0]["plan"]["reused_pass"]
    for before, after in itertools.pairwise(records):
        assert after["plan"]["pages_reused"] == before["plan"]["pages"]
        assert after["plan"]["pages"] > before["plan"]["pages"]
    # From the second request on, the pages are in the provider's cache (modelled).
    assert records[0]["counterfactual"]["cache_prefix_share"] == 0
    assert records[2]["counterfactual"]["cache_prefix_share"] > 0.3
    summary = summarize(run.ledger_dir)
    assert summary.rows[0]["counterfactual_requests"] == 3
    markdown = summary.markdown()  # LEDGER.md / `snapshot ledger`
    assert "As sent and as the client's text would have cost" in markdown
    assert f"| {FULL} | 3 |" in markdown.split("### As sent")[1]


def _tool_results(body: dict[str, Any]) -> dict[str, str]:
    """Each tool result's content as JSON, by ``tool_use_id``."""
    return {
        block["tool_use_id"]: json.dumps(block["content"])
        for item in body["messages"]
        for block in (item["content"] if isinstance(item["content"], list) else [])
        if block.get("type") == "tool_result"
    }


def test_tool_results_drawn_in_place_once_the_prefix_only_grows(
    fake: FakeUpstream, tmp_path: Path
) -> None:
    run = Running(fake, tmp_path, mode="cost", policy="safe")
    client = run.anthropic()
    for turns in range(2, 14):
        _ask(client, FULL, turns)
    run.server.stop()
    report = check_fidelity(fake, run.sent)  # drawn results recognised, the rest byte for byte
    assert report.compacted >= 10
    records = run.ledger(12)
    chosen = [r["cost_mode"]["chosen"] for r in records]
    assert "inplace" in chosen and "prefix" not in " ".join(chosen)  # safe: results only
    bodies = [a.body for a in fake.accepted]
    for earlier, later in itertools.pairwise(bodies):
        # A result drawn once is sent the same bytes on every later request; a result
        # is never drawn back to text.
        before, after = _tool_results(earlier), _tool_results(later)
        for ident, content in before.items():
            if is_imaged({"type": "tool_result", "content": json.loads(content)}):
                assert after[ident] == content, ident
        # The prefix only grows: every item of the earlier request before its newest
        # drawn result's conversion point is sent again, byte for byte, in order.
        e, lt = earlier["messages"], later["messages"]
        shared = next((i for i, (a, b) in enumerate(zip(e, lt, strict=False)) if a != b), len(e))
        assert shared >= len(e) - 2, (shared, len(e))
    for accepted in fake.accepted:
        body = accepted.body
        sent = json.loads(run.sent.bodies[accepted.headers["x-test-client-request"]])
        assert body["system"] == SYSTEM and body["tools"] == TOOLS  # safe: both stay text
        # The newest turns (the open call's result, the cache marker) are the client's.
        assert body["messages"][-2:] == sent["messages"][-2:]
        # Pairs stay native: the same tool_use ids, in the same places.
        assert list(_tool_results(body)) == list(_tool_results(sent))
    drawn = [r for r in records if r["plan"]["pages"]]
    for rec in drawn:
        exact = rec["plan"]["exact_ids"]
        assert exact["as_text"] >= 0.95 * exact["on_pages"]
    # From the third request on most of the prompt is read from the cache (modelled).
    assert all(r["counterfactual"]["cache_prefix_share"] > 0.5 for r in records[2:])


def test_fidelity_knows_results_drawn_in_place() -> None:
    client = _claude_code_body(6)
    done = InPlace().apply(client, target_for(FULL), ("k", "main"), lambda d, s, c: True)
    assert done is not None and len(done.new) == 5  # the newest result is still open
    assert outside_span_diff(client, done.body, "anthropic") == []
    # Anything beside the drawn content is still checked byte for byte.
    error = json.loads(json.dumps(done.body))
    error["messages"][2]["content"][0]["is_error"] = True
    assert outside_span_diff(client, error, "anthropic") == [
        "messages[2].content[0]: drawn beyond its content"
    ]
    marker = json.loads(json.dumps(done.body))
    marker["messages"][2]["content"][0]["content"][1]["cache_control"] = {"type": "ephemeral"}
    assert "carries a cache_control marker" in outside_span_diff(client, marker, "anthropic")[0]
    stranger = json.loads(json.dumps(done.body))
    stranger["messages"][2]["content"][0]["tool_use_id"] = "toolu_9999"
    assert "the client did not send" in outside_span_diff(client, stranger, "anthropic")[0]
    text = json.loads(json.dumps(done.body))
    text["messages"][1]["content"][0]["text"] = "Reading another module."
    assert outside_span_diff(client, text, "anthropic") == [
        "messages[1]: changed beyond the results drawn in place"
    ]
    # The pages: PNGs of the result's own text, cropped to it, its exact ids beside them.
    block = done.body["messages"][2]["content"][0]
    png = base64.b64decode(block["content"][1]["source"]["data"])
    assert png.startswith(b"\x89PNG") and done.exact_ids["as_text"] == done.exact_ids["on_pages"]
    assert done.drawn["toolu_0001"][1].pages[0].size[1] < target_for(FULL).geometry.size[1]


def test_id_line_carries_only_ids_not_already_text_before_it() -> None:
    """An id already written before a drawn result (the assistant's tool input, an earlier
    result's id line, a repeat in the same result) is not carried again; the line is
    decided when the result is drawn and repeated byte for byte afterwards."""
    log = "\n".join(f"step {i}: build 9f25a04c1e then deploy d41d8cd98f00 ok" for i in range(60))
    second = log.replace("d41d8cd98f00", "a1b2c3d4e5f6a7b8")

    def call(n: int, command: str) -> dict[str, Any]:
        return {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}",
                "name": "Bash", "input": {"command": command}}]}  # fmt: skip

    def result(n: int, text: str) -> dict[str, Any]:
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}",
                "content": text}]}  # fmt: skip

    body = {"messages": [
        {"role": "user", "content": "deploy"}, call(1, "deploy 9f25a04c1e"), result(1, log),
        call(2, "again"), result(2, second),
        {"role": "assistant", "content": "done"}, {"role": "user", "content": "thanks"}]}  # fmt: skip
    imager = InPlace()
    done = imager.apply(body, target_for(FULL), ("k", "main"), lambda d, s, c: True)
    assert done is not None and done.new == ("t1", "t2")
    lines = [done.body["messages"][i]["content"][0]["content"][-1]["text"] for i in (2, 4)]
    assert lines == ["d41d8cd98f00", "a1b2c3d4e5f6a7b8"]  # each id once, where first needed
    assert done.exact_ids["as_text"] == done.exact_ids["on_pages"]
    imager.remember(("k", "main"), done)
    again = imager.apply(body, target_for(FULL), ("k", "main"), lambda d, s, c: False)
    assert again is not None and again.body == done.body and again.new == ()


def test_off_passes_everything_byte_for_byte(fake: FakeUpstream, tmp_path: Path) -> None:
    run = Running(fake, tmp_path, mode="off")
    client = run.anthropic()
    for turns in (1, 6):
        _ask(client, FULL, turns)
    run.server.stop()
    assert check_fidelity(fake, run.sent).compacted == 0
    assert all(a.raw == run.sent.bodies[a.headers["x-test-client-request"]] for a in fake.accepted)
    assert not (run.ledger_dir / "ledger.jsonl").exists()


def test_model_without_evidence_passes_through(fake: FakeUpstream, tmp_path: Path) -> None:
    run = Running(fake, tmp_path, mode="cost", window=200_000)
    client = run.openai()
    messages: list[dict[str, Any]] = [{"role": "system", "content": "rules " * 2000}]
    for n in range(12):
        messages += [
            {"role": "user", "content": f"step {n}: " + tool_result(n)},
            {"role": "assistant", "content": f"done {n}"},
        ]
    messages.append({"role": "user", "content": "next"})
    client.chat.completions.create(model="acme-vision-9", messages=messages)
    run.server.stop()
    assert check_fidelity(fake, run.sent).compacted == 0  # as it came
    [rec] = run.ledger(1)
    assert rec["cost_mode"]["policy"] == "pass"
    assert "no table knows this model" in rec["cost_mode"]["why"]
    assert rec["counterfactual"]["tokens_saved"] == 0


def test_window_mode_records_the_counterfactual(fake: FakeUpstream, tmp_path: Path) -> None:
    run = Running(fake, tmp_path)  # --mode window, the default: today's behaviour
    _ask(run.anthropic(), FULL, 2)
    run.server.stop()
    assert check_fidelity(fake, run.sent).compacted == 0
    [rec] = run.ledger(1)
    assert rec["mode"] == "window" and "cost_mode" not in rec
    assert (
        rec["counterfactual"]["tokens_saved"] == 0 and rec["counterfactual"]["dollars"]["total"] > 0
    )
    assert run.proxy.page.html().count("modelled") >= 1


def _claude_code_body(turns: int, lines: int = 60) -> dict[str, Any]:
    return {
        "model": FULL,
        "max_tokens": 100,
        "system": SYSTEM,
        "tools": TOOLS,
        "messages": claude_code_messages(turns, lines),
    }


def test_billing_refuses_to_image_when_warm_text_is_cheaper() -> None:
    shape = shape_for("POST", "/v1/messages")
    assert shape is not None
    target = target_for(FULL)
    window = Planner(window=10**6)
    key = ("c-warm", "main")
    cost = CostMode(Counterfactual(), window=10**6)
    # Short tool results: the candidates are the text and the system/tool pages.
    body = _claude_code_body(20, lines=2)
    raw = json.dumps(body).encode()
    # The conversation's previous request went as text and is in the provider's cache.
    cost.book.record(key, "anthropic", target, body, body)
    later = _claude_code_body(21, lines=2)
    later_raw = json.dumps(later).encode()
    as_is = window.plan(shape, later, FULL, key, raw_bytes=len(later_raw), raw=later_raw)
    plan, extra = cost.plan(shape, later, FULL, key, later_raw, target, as_is)
    record = extra["cost_mode"]
    assert record["chosen"] == "text" and not plan.changed, record
    priced = record["candidates_dollars"]
    assert priced["prefix"] > priced["text"]  # imaging would break the warm text prefix
    assert extra["counterfactual"]["cache_prefix_share"] > 0.8  # the text prefix stays read
    # The same body, cold (a new conversation): pages are cheaper, and chosen.
    cold = ("c-cold", "main")
    plan, extra = cost.plan(shape, body, FULL, cold, raw, target, as_is)
    assert extra["cost_mode"]["chosen"] != "text" and plan.changed


def test_fidelity_knows_the_imaged_prefix() -> None:
    client = _claude_code_body(2)
    imaged = PrefixImager().apply(client, target_for(FULL))
    assert imaged is not None and imaged.system_blocks == 1 and imaged.tool_descriptions == 6
    assert outside_span_diff(client, imaged.body, "anthropic") == []
    renamed = json.loads(json.dumps(imaged.body))
    renamed["tools"][0]["name"] = "Shell"
    assert outside_span_diff(client, renamed, "anthropic") == [
        "tools[0]: changed beyond its description"
    ]
    schema = json.loads(json.dumps(imaged.body))
    schema["tools"][2]["input_schema"]["required"] = []
    assert outside_span_diff(client, schema, "anthropic") == [
        "tools[2]: changed beyond its description"
    ]
    marker = json.loads(json.dumps(imaged.body))
    marker["messages"][0]["content"][1]["cache_control"] = {"type": "ephemeral"}
    assert (
        "the prefix pages carry a cache_control marker"
        in outside_span_diff(client, marker, "anthropic")[0]
    )
    # Without the pages message, a changed description is a change.
    bare = {**imaged.body, "messages": client["messages"]}
    assert "tools: changed" in outside_span_diff(client, bare, "anthropic")
    # The pages: PNGs of the text, the exact ids beside them as text.
    png = base64.b64decode(imaged.item["content"][1]["source"]["data"])
    assert (
        png.startswith(b"\x89PNG") and imaged.exact_ids["as_text"] == imaged.exact_ids["on_pages"]
    )


def test_policy_needs_cost_mode() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "snapshot",
            "proxy",
            "--upstream",
            "http://127.0.0.1:9",
            "--policy",
            "safe",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--policy safe is for --mode cost" in done.stderr and "Traceback" not in done.stderr


def test_profiles_say_which_policy_and_why() -> None:
    from snapshot.profiles.options import profile_records

    [full] = profile_records(FULL)
    [safe] = profile_records(SAFE)
    assert full["cost_mode"]["policy"] == "full" and "model evidence" in full["cost_mode"]["why"]
    assert safe["cost_mode"]["policy"] == "safe" and safe["cost_mode"]["why"].startswith("thin")


READ = {
    "type": "function",
    "function": {
        "name": "read",
        "description": "Read module n.",
        "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}},
    },
}


def test_openai_chat_history_on_pages_system_stays_text(fake: FakeUpstream, tmp_path: Path) -> None:
    run = Running(fake, tmp_path, mode="cost")
    client = run.openai()
    system = {"role": "system", "content": "rules " * 800}
    messages: list[dict[str, Any]] = [system, {"role": "user", "content": "TASK: read them all"}]
    for n in range(1, 17):
        messages += [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{n:03d}",
                        "type": "function",
                        "function": {"name": "read", "arguments": json.dumps({"n": n})},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": f"call_{n:03d}", "content": tool_result(n)},
        ]
        if n >= 15:  # a resumed session: its first request through the proxy is cold
            client.chat.completions.create(model="gpt-5.5", messages=messages, tools=[READ])
    run.server.stop()
    assert check_fidelity(fake, run.sent).compacted >= 1 and not fake.problems
    first, second = run.ledger(2)
    assert first["cost_mode"]["policy"] == "safe"  # thin evidence: history only
    assert first["cost_mode"]["chosen"] == "history"  # cold: the pages are cheaper
    # Warm, the bill is priced again: whatever it sends, it is the cheaper candidate.
    priced = second["cost_mode"]["candidates_dollars"]
    assert priced[second["cost_mode"]["chosen"]] == min(priced.values())
    for accepted in fake.accepted:
        assert accepted.body["messages"][0] == system
        assert accepted.body["messages"][-1]["role"] == "tool"  # the newest result stays text
    assert second["cache_prefix_share"]["modelled"] > 0
    assert second["cache_prefix_share"]["measured"] is not None


def test_canary_records_amend_the_policy(tmp_path: Path) -> None:
    from snapshot.proxy.canary import layout_key
    from snapshot.proxy.evidence import SCHEMA

    def canaries(model: str, accuracy: float, n: int) -> list[str]:
        rec = {
            "schema": SCHEMA,
            "model": model,
            "reader": model + "-20261201",
            "layout": layout_key(target_for(model).geometry),
            "chars_per_kpx": 20.0,
            "chars": 1200,
            "char_accuracy": accuracy,
            "hard_tokens": 10,
            "hard_tokens_exact": 10,
        }
        return [json.dumps(rec)] * n

    evidence = tmp_path / "evidence.jsonl"
    evidence.write_text("\n".join([*canaries(SAFE, 0.995, 6), *canaries(FULL, 0.80, 6)]) + "\n")
    cost = CostMode(Counterfactual(), evidence=evidence)
    upgraded = cost.policy(SAFE, target_for(SAFE))
    assert upgraded.policy == "full" and upgraded.why.startswith("your canaries: 6 of 6")
    downgraded = cost.policy(FULL, target_for(FULL))
    assert downgraded.policy == "safe" and "only 0 of 6" in downgraded.why
    # what a canary measured is said wherever it is used: a band, not the page as sent
    assert all("band crops, not the whole page as sent" in p.why for p in (upgraded, downgraded))
    # Without records, the profile's evidence alone.
    assert CostMode(Counterfactual()).policy(SAFE, target_for(SAFE)).policy == "safe"


@pytest.mark.parametrize(
    ("harness", "model"),
    [("codex", "gpt-6.2-sol"), ("gemini-cli", "gemini-3.5-flash"), ("claude-code", FULL)],
)
def test_each_harness_cold_history_on_pages_fidelity_holds(harness: str, model: str) -> None:
    """Codex (Responses), Gemini CLI and Claude Code bodies as the CLIs shape them: a
    resumed session's cold first request gets history pages; the diff stays empty."""
    from harness_bodies import BUILDERS

    make, step = BUILDERS[harness]
    session = make(model)
    for _ in range(24):
        step(session)
    body = session.body()
    raw = session.raw()
    shape = shape_for(
        "POST",
        f"/v1beta/models/{model}:generateContent"
        if session.api == "gemini"
        else {"anthropic": "/v1/messages", "openai-responses": "/v1/responses"}[session.api],
    )
    assert shape is not None
    target = target_for(model)
    as_is = Planner().plan(shape, body, model, ("k", "main"), raw_bytes=len(raw), raw=raw)
    plan, extra = CostMode(Counterfactual()).plan(
        shape, body, model, ("k", "main"), raw, target, as_is
    )
    assert extra["cost_mode"]["chosen"] != "text" and plan.changed, extra["cost_mode"]
    # Claude Code (Anthropic Messages): closed tool results drawn in place; the others: pages.
    drawn = "inplace" if session.api == "anthropic" else "history"
    assert drawn in extra["cost_mode"]["chosen"]
    assert outside_span_diff(body, plan.body, session.api) == []
    assert (
        extra["counterfactual"]["sent"]["tokens"] < extra["counterfactual"]["client_text"]["tokens"]
    )


def test_cost_mode_forwards_a_body_a_rewrite_would_change_untouched(
    fake: FakeUpstream, tmp_path: Path
) -> None:
    # cost mode parses each body once with representable()'s checks: a body it would draw
    # pages into, but with a key written twice (a re-write keeps only the last), goes as it came.
    import urllib.request

    body = {
        "model": FULL,
        "max_tokens": 100,
        "system": SYSTEM,
        "tools": TOOLS,
        "messages": claude_code_messages(2),
    }
    raw = json.dumps(body).replace('"max_tokens": 100', '"max_tokens": 90, "max_tokens": 100')
    assert raw.count('"max_tokens"') == 2
    run = Running(fake, tmp_path, mode="cost")
    req = urllib.request.Request(
        run.url + "/v1/messages",
        data=raw.encode(),
        headers={"x-api-key": "sk-ant-dup", "content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=60) as reply:
        assert reply.status == 200
    run.server.stop()
    assert [a.raw for a in fake.accepted] == [raw.encode()]
    assert any("not representable (duplicate key 'max_tokens')" in line for line in run.logs)
    # The same body with the key once is drawn on: the check above is not vacuous.
    with FakeUpstream(limit=10**7) as clean:
        again = Running(clean, tmp_path / "clean", mode="cost")
        req = urllib.request.Request(
            again.url + "/v1/messages",
            data=json.dumps(body).encode(),
            headers={"x-api-key": "sk-ant-dup", "content-type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=60):
            pass
        again.server.stop()
        assert clean.accepted[0].raw != json.dumps(body).encode()


def test_parse_checked_is_json_loads_and_representable() -> None:
    from snapshot.proxy.bodies import parse_checked, representable

    for raw in (
        b'{"a": [1.5, "x", {"b": null}]}',
        b'{"a": 1, "a": 2}',
        b'{"t": 1e400}',
        b'{"t": NaN}',
        b'{"t": "x \\uDC00"}',
        b'{"t": "\\ud83d\\ude00 ok"}',
    ):
        assert parse_checked(raw) == (json.loads(raw), representable(raw)), raw
    with pytest.raises(ValueError):
        parse_checked(b'{"a": ')
