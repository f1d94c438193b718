"""The proxy is invisible: harness-shaped sessions through ``snapshot proxy``, driven by the
official SDKs (anthropic, openai, google-genai) against ``fake_upstream`` (an offline
stand-in), each compacted request checked against the client's with
:func:`snapshot.proxy.fidelity.outside_span_diff`.

The bodies are built by ``tests/harness_bodies.py`` in the shapes the three CLIs send
(Claude Code's ``role: "system"`` message and moving ``cache_control``; Codex's developer
messages, ``additional_tools``, encrypted reasoning, custom tool calls, item ids and
``prompt_cache_key``; Gemini CLI's signed calls), with each CLI's default model, under a
small ``--window`` so a few dozen turns cross the threshold many times.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")
anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")
genai = pytest.importorskip("google.genai")

from fake_upstream import FakeUpstream, serve_in_thread  # noqa: E402
from fidelity_check import ClientBodies, check_fidelity  # noqa: E402
from harness_bodies import BUILDERS, Session  # noqa: E402
from test_proxy_sdk import KEY, wait_for_ledger  # noqa: E402

from snapshot.proxy.app import Proxy, ProxyConfig  # noqa: E402

TURNS = 36
WINDOW = 24_000


def _send(session: Session, url: str, sent: ClientBodies) -> None:
    """One request of ``session`` through the SDK its harness speaks, read to its end."""
    body = session.body()
    if session.api == "anthropic":
        client = anthropic.Anthropic(
            api_key=KEY, base_url=url, max_retries=0, http_client=sent.client(timeout=60)
        )
        for _event in client.messages.create(**body):
            pass
    elif session.api in ("openai", "openai-responses"):
        client = openai.OpenAI(
            api_key=KEY, base_url=url + "/v1", max_retries=0, http_client=sent.client(timeout=60)
        )
        if session.api == "openai":
            client.chat.completions.create(**body)
        else:
            for _event in client.responses.create(**body):
                pass
    else:
        from google.genai import types

        client = genai.Client(
            api_key=KEY,
            http_options=types.HttpOptions(
                base_url=url, timeout=60_000, httpx_client=sent.client(timeout=60)
            ),
        )
        config = types.GenerateContentConfig(
            system_instruction=body["systemInstruction"]["parts"][0]["text"],
            tools=[
                types.Tool(
                    function_declarations=[
                        types.FunctionDeclaration(
                            name=d["name"],
                            description=d["description"],
                            parameters_json_schema=d["parametersJsonSchema"],
                        )
                        for d in body["tools"][0]["functionDeclarations"]
                    ]
                )
            ],
            temperature=1,
        )
        for _chunk in client.models.generate_content_stream(
            model=session.model, contents=body["contents"], config=config
        ):
            pass


@pytest.fixture
def pages_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The free rungs as the snapshot rung alone, so every pass draws pages."""
    import snapshot.proxy.planner as planner

    monkeypatch.setattr(planner, "FREE_RUNGS", ("snapshot",))
    yield


def _run(harness: str, tmp_path: Path) -> tuple[int, list[dict[str, Any]]]:
    make, step = BUILDERS[harness]
    session = make()
    sent = ClientBodies()
    with FakeUpstream(refuse_invalid=False, lifetime=600) as fake:
        proxy = Proxy(
            ProxyConfig(upstream=fake.url, ledger=tmp_path / "ledger", window=WINDOW),
            log=lambda _line: None,
        )
        server = serve_in_thread(proxy.app, lifetime=600)
        try:
            url = f"http://127.0.0.1:{server.port}"
            for _ in range(TURNS):
                step(session)
                _send(session, url, sent)
        finally:
            server.stop()
        report = check_fidelity(fake, sent)
        assert report.accepted == TURNS and not fake.rejected
    return report.compacted, wait_for_ledger(tmp_path / "ledger", TURNS)


@pytest.mark.parametrize("harness", sorted(BUILDERS))
def test_every_compacted_request_differs_only_in_its_span(harness: str, tmp_path: Path) -> None:
    compacted, ledger = _run(harness, tmp_path)
    assert compacted >= 5, compacted
    plans = [r["plan"] for r in ledger if r["plan"]["compacted"]]
    assert len(plans) == compacted
    # Successive requests reuse the pass while it applies (the cached prefix holds).
    assert sum(p["reused_pass"] for p in plans) >= compacted // 2


@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini-cli"])
def test_pages_replace_only_the_span(harness: str, tmp_path: Path, pages_only: None) -> None:
    compacted, ledger = _run(harness, tmp_path)
    assert compacted >= 5
    assert all("snapshot" in r["plan"]["rungs"] for r in ledger if r["plan"]["compacted"])


@pytest.mark.parametrize("harness", ["chat-agent", "claude-code", "codex"])
def test_the_diff_catches_a_whole_history_rewrite(harness: str) -> None:
    """What the proxy used to send (the exporter's whole history) fails the check where the
    history holds items the package cannot draw (system, developer, additional_tools)."""
    from snapshot.proxy.bodies import conversation_of, exported_history
    from snapshot.proxy.fidelity import outside_span_diff
    from snapshot.proxy.shapes import ANTHROPIC, GEMINI, OPENAI_CHAT, OPENAI_RESPONSES

    make, step = BUILDERS[harness]
    session = make()
    for _ in range(9):
        step(session)
    shape = {s.name: s for s in (ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES, GEMINI)}[session.api]
    body = session.body()
    rewritten = dict(body)
    rewritten[shape.history_key] = exported_history(
        shape, conversation_of(shape, body, "c"), session.model
    )
    assert outside_span_diff(body, rewritten, session.api)


@pytest.mark.parametrize("harness", sorted(BUILDERS))
def test_a_broken_body_is_planned_faithfully_or_left_alone(harness: str) -> None:
    """Seeded breakages of a harness body: the planner either keeps the rule or refuses with a
    SnapshotError (the proxy then forwards the body untouched); it never fails otherwise."""
    import random

    from body_mutations import broken

    from snapshot.errors import SnapshotError
    from snapshot.proxy.fidelity import outside_span_diff
    from snapshot.proxy.planner import Planner
    from snapshot.proxy.shapes import ANTHROPIC, GEMINI, OPENAI_CHAT, OPENAI_RESPONSES

    make, step = BUILDERS[harness]
    session = make()
    for _ in range(12):
        step(session)
    shape = {s.name: s for s in (ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES, GEMINI)}[session.api]
    rng = random.Random(38)
    planned = 0
    for n in range(30):
        body = broken(session.body(), rng)
        if not isinstance(body, dict):
            continue
        planner = Planner(window=6000)
        try:
            plan = planner.plan(shape, body, session.model, (f"c{n}", "main"), raw_bytes=10**6)
        except SnapshotError:
            continue
        planned += 1
        if plan.changed:
            assert not outside_span_diff(body, plan.body, session.api), n
    assert planned > 0
