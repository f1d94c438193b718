"""``snapshot proxy`` driven by the official SDKs (anthropic, openai, google-genai), sync and
streaming, against ``fake_upstream`` (an offline stand-in: a real aiohttp server on 127.0.0.1).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")
anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")
genai = pytest.importorskip("google.genai")

from fake_upstream import FakeUpstream, serve_in_thread  # noqa: E402
from fidelity_check import ClientBodies, FidelityReport, check_fidelity  # noqa: E402

from snapshot.proxy.app import Proxy, ProxyConfig  # noqa: E402
from snapshot.proxy.ledger import read_ledger  # noqa: E402
from snapshot.transcript.store import Store  # noqa: E402

CLAUDE, GPT, GEMINI = "claude-sonnet-5-5", "gpt-5.5", "gemini-3.5-flash-lite"
KEY = "sk-test-SECRET-0123456789"


class Running:
    def __init__(self, fake: FakeUpstream, tmp: Path, **config: Any) -> None:
        self.fake = fake
        self.store_dir = tmp / "store"
        self.ledger_dir = tmp / "ledger"
        self.logs: list[str] = []
        self.proxy = Proxy(
            ProxyConfig(
                upstream=fake.url,
                store=self.store_dir,
                ledger=self.ledger_dir,
                **config,
            ),
            log=self.logs.append,
        )
        self.server = serve_in_thread(self.proxy.app, lifetime=120)
        self.url = f"http://127.0.0.1:{self.server.port}"
        self.sent = ClientBodies()  # what the SDKs sent, for the fidelity check

    def anthropic(self) -> Any:
        return anthropic.Anthropic(
            api_key=KEY, base_url=self.url, max_retries=0, http_client=self.sent.client(timeout=60)
        )

    def openai(self) -> Any:
        return openai.OpenAI(
            api_key=KEY,
            base_url=self.url + "/v1",
            max_retries=0,
            http_client=self.sent.client(timeout=60),
        )

    def gemini(self) -> Any:
        from google.genai import types

        return genai.Client(
            api_key=KEY,
            http_options=types.HttpOptions(
                base_url=self.url, timeout=60_000, httpx_client=self.sent.client(timeout=60)
            ),
        )

    def finish(self) -> FidelityReport:
        """Stop the proxy; every request it compacted differed from the client's only in
        its span (:func:`fidelity_check.check_fidelity`)."""
        self.server.stop()
        return check_fidelity(self.fake, self.sent)

    def ledger(self, expect: int) -> list[dict[str, Any]]:
        """The ledger once it holds ``expect`` records (written just after the reply ends)."""
        return wait_for_ledger(self.ledger_dir, expect)


def wait_for_ledger(folder: Path, expect: int, seconds: float = 10.0) -> list[dict[str, Any]]:
    deadline = time.monotonic() + seconds
    while True:
        records = read_ledger(folder) if (folder / "ledger.jsonl").exists() else []
        if len(records) >= expect or time.monotonic() > deadline:
            return records
        time.sleep(0.02)


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
    with FakeUpstream() as fake:
        r = Running(fake, tmp_path)
        yield r
        r.finish()


def _no_key_anywhere(r: Running) -> None:
    """The key reached the upstream and nothing else: not the store, ledger or logs."""
    assert KEY in " ".join(r.fake.seen_auth)
    for folder in (r.store_dir, r.ledger_dir):
        for f in folder.rglob("*") if folder.exists() else []:
            if f.is_file():
                assert KEY.encode() not in f.read_bytes(), f
    assert not any(KEY in line for line in r.logs)


def test_anthropic_sync_and_stream(running: Running) -> None:
    client = running.anthropic()
    first = client.messages.create(
        model=CLAUDE,
        max_tokens=50,
        system="You are terse.",
        metadata={"user_id": "u-1"},
        messages=[{"role": "user", "content": "hello"}],
    )
    assert first.content[0].text == "ok, noted."
    with client.messages.stream(
        model=CLAUDE,
        max_tokens=50,
        system="You are terse.",
        messages=[
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": "ok, noted."},
            {"role": "user", "content": "again"},
        ],
    ) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "ok, noted." and final.usage.output_tokens == 7
    count = client.messages.count_tokens(model=CLAUDE, messages=[{"role": "user", "content": "x"}])
    assert count.input_tokens > 0
    assert not running.fake.problems
    records = running.ledger(2)
    assert [r["status"] for r in records] == [200, 200]  # count_tokens is not an API turn
    assert all(r["usage_label"] == "measured" and r["usage"]["output"] == 7 for r in records)
    assert records[0]["dollars"]["total"] > 0
    # Both requests are one conversation (same system prompt and first message), stored.
    assert records[0]["conversation"] == records[1]["conversation"]
    stored = Store(running.store_dir).load(records[0]["conversation"])
    assert [m.text() for m in stored.path()][-2:] == ["again", "ok, noted."]
    _no_key_anywhere(running)


def test_unchanged_request_goes_upstream_byte_identical(running: Running) -> None:
    import urllib.request

    raw = (
        b'{"model":"claude-sonnet-5-5",  "max_tokens":10,"x_unknown_field":{"a":[1,2]},'
        b'"thinking":{"type":"enabled","budget_tokens":1024},'
        b'"messages":[{"role":"user","content":[{"type":"text","text":"hi",'
        b'"cache_control":{"type":"ephemeral"}}]}]}'
    )
    running.fake.validate = False  # the unknown field is the point here
    req = urllib.request.Request(
        running.url + "/v1/messages",
        data=raw,
        headers={"x-api-key": KEY, "content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as reply:
        assert reply.status == 200
    assert running.fake.accepted[-1].raw == raw


def test_openai_chat_and_responses(running: Running) -> None:
    client = running.openai()
    chat = client.chat.completions.create(
        model=GPT, messages=[{"role": "user", "content": "hi"}], temperature=0.2
    )
    assert chat.choices[0].message.content == "ok, noted."
    chunks = list(
        client.chat.completions.create(
            model=GPT,
            messages=[{"role": "user", "content": "hi"}],
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "ok, noted."
    resp = client.responses.create(model=GPT, input="hi", instructions="be brief")
    assert resp.output_text == "ok, noted."
    with client.responses.stream(model=GPT, input=[{"role": "user", "content": "hi"}]) as s:
        done = s.get_final_response()
    assert done.output_text == "ok, noted."
    assert not running.fake.problems
    usage = [r["usage"] for r in running.ledger(4)]
    assert all(u is not None and u["output"] == 7 for u in usage), usage
    _no_key_anywhere(running)


def test_gemini_sync_and_stream(running: Running) -> None:
    client = running.gemini()
    reply = client.models.generate_content(model=GEMINI, contents="hello")
    assert reply.text == "ok, noted."
    text = "".join(
        c.text or "" for c in client.models.generate_content_stream(model=GEMINI, contents="hello")
    )
    assert text == "ok, noted."
    assert not running.fake.problems
    assert [r["usage"]["output"] for r in running.ledger(2)] == [7, 7]
    _no_key_anywhere(running)


def test_bad_input_gets_the_providers_error_shape(running: Running) -> None:
    import urllib.error
    import urllib.request

    def post(path: str, data: bytes) -> tuple[int, Any]:
        req = urllib.request.Request(running.url + path, data=data, headers={"x-api-key": KEY})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    # What the proxy cannot read goes upstream untouched (one log line each): the
    # provider's own 400 comes back, in its own shape.
    status, body = post("/v1/messages", b"{not json")
    assert (
        status == 400
        and body["type"] == "error"
        and body["error"]["type"] == "invalid_request_error"
    )
    status, body = post("/v1beta/models/gemini-3.5-flash-lite:generateContent", b"[1]")
    assert status == 400 and body["error"]["status"] == "INVALID_ARGUMENT"
    assert [a.raw for a in running.fake.accepted] == []
    assert len(running.fake.rejected) == 2
    assert len(running.logs) == 2 and all(
        "forwarded untouched" in line and "\n" not in line and "Traceback" not in line
        for line in running.logs
    )
    with pytest.raises(anthropic.APIStatusError) as exc:
        running.anthropic().messages.create(
            model=CLAUDE, max_tokens=5, messages=[{"role": "user", "content": "x" * 70_000_000}]
        )
    assert exc.value.status_code == 413
    assert not Store(running.store_dir).conversations()


def test_upstream_down_is_a_502_in_shape(tmp_path: Path) -> None:
    proxy = Proxy(ProxyConfig(upstream="http://127.0.0.1:9"), log=lambda _l: None)
    server = serve_in_thread(proxy.app, lifetime=60)
    try:
        client = openai.OpenAI(
            api_key=KEY, base_url=f"http://127.0.0.1:{server.port}/v1", max_retries=0
        )
        with pytest.raises(openai.APIStatusError) as exc:
            client.chat.completions.create(model=GPT, messages=[{"role": "user", "content": "hi"}])
        assert exc.value.status_code == 502
        assert KEY not in str(exc.value)
    finally:
        server.stop()


def test_other_paths_are_forwarded_unchanged(running: Running) -> None:
    models = running.openai().models.list()
    assert [m.id for m in models.data] == ["fake-model"]


UNKNOWN = "some-future-model-9"  # no table knows it


def _chat_history(turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Read every log."}]
    for t in range(turns):
        call = {
            "id": f"call_{t}",
            "type": "function",
            "function": {"name": "cat", "arguments": json.dumps({"f": f"log{t}"})},
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        result = "\n".join(f"log{t} line {i}: nothing happened" for i in range(60))
        messages.append({"role": "tool", "tool_call_id": f"call_{t}", "content": result})
    return messages


CAT = [{"type": "function", "function": {"name": "cat", "parameters": {"type": "object"}}}]


def test_an_unknown_model_goes_as_it_came_until_the_provider_states_its_limit(
    running: Running,
) -> None:
    client = running.openai()
    small = client.chat.completions.create(
        model=UNKNOWN, messages=[{"role": "user", "content": "hi"}]
    )
    assert small.choices[0].message.content == "ok, noted."
    assert running.fake.accepted[-1].raw == running.sent.bodies["0"]  # untouched
    messages = _chat_history(10)
    running.fake.limit = 4000  # the provider's window, below this history
    client.chat.completions.create(model=UNKNOWN, messages=messages, tools=CAT)
    assert [s for _a, s, _e in running.fake.rejected] == [400]  # the first rejection teaches
    assert running.proxy.planner.window(UNKNOWN) == 4000
    # The next, longer request is compacted before it goes: no second rejection.
    longer = _chat_history(12)
    client.chat.completions.create(model=UNKNOWN, messages=longer, tools=CAT)
    assert len(running.fake.rejected) == 1
    records = running.ledger(4)
    assert records[0]["plan"]["window"] is None and not records[0]["plan"]["compacted"]
    assert records[-1]["plan"]["compacted"] and records[-1]["plan"]["window"] == 4000
    assert [line.split(":")[0] for line in running.logs] == [UNKNOWN]  # the one retry, said once


def test_window_flag_works_for_a_model_no_table_knows(tmp_path: Path) -> None:
    with FakeUpstream() as fake:
        r = Running(fake, tmp_path, window=3000)
        r.openai().chat.completions.create(model=UNKNOWN, messages=_chat_history(10), tools=CAT)
        report = r.finish()
    assert report.compacted == 1 and not fake.rejected
    [record] = r.ledger(1)
    assert record["plan"]["window"] == 3000 and record["plan"]["compacted"]


def test_every_flag_a_proxy_message_names_exists() -> None:
    """Errors and log lines name only flags ``snapshot proxy`` has."""
    import argparse
    import ast
    import re

    import snapshot.proxy
    from snapshot.cli import proxy as proxy_cli

    parser = argparse.ArgumentParser()
    proxy_cli.register(parser.add_subparsers())
    [sub] = [a for a in parser._subparsers._group_actions if a.choices]  # type: ignore[union-attr]
    flags = {o for a in sub.choices["proxy"]._actions for o in a.option_strings}
    named: set[str] = set()
    for source in Path(snapshot.proxy.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                named |= set(re.findall(r"(?<![\w-])--[a-z][a-z-]*[a-z]", node.value))
    assert named and named <= flags, sorted(named - flags)


def test_placeholders_name_the_stored_conversation_and_a_reference_it_resolves(
    tmp_path: Path,
) -> None:
    import re

    from snapshot.ladder.restore import original

    messages = _chat_history(10)
    with FakeUpstream() as fake:
        r = Running(fake, tmp_path, window=3000)
        r.openai().chat.completions.create(model=GPT, messages=messages, tools=CAT)
        assert r.finish().compacted == 1
    [record] = r.ledger(1)
    sent = json.dumps(fake.accepted[-1].body)
    found = re.findall(r"ref ([\w.-]+#\d+): `snapshot show ([\w.-]+) \1`", sent)
    assert found and {conv for _ref, conv in found} == {record["conversation"]}
    stored = Store(r.store_dir).load(record["conversation"])
    by_call = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    for ref, _conv in found:
        message, block = ref.split("#")
        result = stored.get(message).blocks[int(block)]
        assert original(stored, ref) == by_call[result.call_id].encode()


def test_a_body_whose_values_a_rewrite_would_change_goes_untouched(tmp_path: Path) -> None:
    import urllib.request

    history = json.dumps(_chat_history(10))
    raw = (
        b'{"model":"gpt-5.5","temperature":0.2,"temperature":0.3,"tools":'
        + json.dumps(CAT).encode()
        + b',"messages":'
        + history.encode()
        + b"}"
    )
    with FakeUpstream() as fake:
        r = Running(fake, tmp_path, window=3000)  # over the threshold: it would be compacted
        req = urllib.request.Request(
            r.url + "/v1/chat/completions",
            data=raw,
            headers={"authorization": f"Bearer {KEY}", "content-type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=60) as reply:
            assert reply.status == 200
        r.finish()
    assert fake.accepted[-1].raw == raw
    assert len(r.logs) == 1 and "forwarded untouched" in r.logs[0]
    assert "duplicate key 'temperature'" in r.logs[0]


def test_a_refused_body_a_rewrite_would_change_is_not_retried(tmp_path: Path) -> None:
    import urllib.error
    import urllib.request

    raw = (
        b'{"model":"gpt-5.5","temperature":0.2,"temperature":0.3,"tools":'
        + json.dumps(CAT).encode()
        + b',"messages":'
        + json.dumps(_chat_history(10)).encode()
        + b"}"
    )
    with FakeUpstream(limit=3000) as fake:
        r = Running(fake, tmp_path, window=10**6)  # the provider decides
        req = urllib.request.Request(
            r.url + "/v1/chat/completions",
            data=raw,
            headers={"authorization": f"Bearer {KEY}", "content-type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as exc:
            urllib.request.urlopen(req, timeout=60)
        r.finish()
    assert exc.value.code == 400 and "not representable" in exc.value.headers["X-Snapshot-Recovery"]
    assert len(fake.rejected) == 1 and not fake.accepted  # the provider's error, not resent
