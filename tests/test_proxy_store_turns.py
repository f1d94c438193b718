"""Turns stored as they happened (issue 38 item 6): realistic request sequences through
``snapshot proxy`` into its real store, against ``fake_upstream`` (an offline stand-in).

The clients here are plain HTTP, sending the bodies and headers the harnesses send
(observed shapes, ../shared/docs/harnesses-2026-12.md): Claude Code's
``metadata.user_id`` (a JSON string with ``session_id``), streaming Messages with a
``system`` list; Codex's ``session_id`` header and ``prompt_cache_key`` on Responses;
Gemini CLI's ``streamGenerateContent?alt=sse``, whose replies carry ``functionCall``
without an ``id`` and whose next request names the call by the CLI's own id.

Checked: an edited or rewound prompt and Claude Code's compaction turn are branches
beside the stored history (both kept, the tip on the new one); a restarted proxy (a
new process) keeps the old branch and the log only grows; two sessions that open
alike are both stored (two conversations with session ids, two branches of one
without); the stored Gemini conversation exports with every call answered by its
real result.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")

from fake_upstream import FakeUpstream, serve_in_thread
from proxy_process import ProxyProcess

from snapshot.proxy.app import Proxy, ProxyConfig
from snapshot.transcript.model import Conversation, tool_pairing
from snapshot.transcript.store import Store

KEY = "sk-test-SECRET-0123456789"
CLAUDE = "claude-sonnet-5-5"
SYSTEM = [
    {"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude."},
    {"type": "text", "text": "Use the tools to answer.", "cache_control": {"type": "ephemeral"}},
]
TOOLS = [
    {
        "name": "Bash",
        "description": "Run a shell command",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}},
    }
]


def _session_user_id(session: str) -> str:
    # Claude Code ≥ 2.1.78 sends metadata.user_id as a JSON string.
    return json.dumps({"device_id": "d" * 64, "account_uuid": "", "session_id": session})


def _post(url: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> bytes:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", **(headers or {})},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return bytes(answer.read())


class Scripted:
    """The fake's replies, in order: text, or a call ``(name, args[, id])``."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies: Iterator[dict[str, Any]] = iter(replies)

    def __call__(self, _api: str, _body: dict[str, Any]) -> dict[str, Any]:
        return next(self.replies)


def _proxy(fake: FakeUpstream, store: Path, ledger: Path, **config: Any) -> str:
    proxy = Proxy(
        ProxyConfig(upstream=fake.url, store=store, ledger=ledger, **config),
        log=lambda _line: None,
    )
    server = serve_in_thread(proxy.app, lifetime=120)
    return f"http://127.0.0.1:{server.port}"


def _claude_code(url: str, session: str | None) -> Callable[[list[Any]], bytes]:
    """One Claude Code request (streaming, its system list, tools, metadata) per call."""

    def send(messages: list[Any]) -> bytes:
        body: dict[str, Any] = {
            "model": CLAUDE,
            "max_tokens": 1024,
            "stream": True,
            "system": SYSTEM,
            "tools": TOOLS,
            "messages": messages,
        }
        if session is not None:
            body["metadata"] = {"user_id": _session_user_id(session)}
        headers = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
        return _post(url + "/v1/messages?beta=true", body, headers)

    return send


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def _said(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def _texts(conv: Conversation, tip: str | None = None) -> list[str]:
    return [m.text() for m in conv.path(tip) if m.role != "system"]


def _all_texts(conv: Conversation) -> set[str]:
    return {m.text() for m in conv.messages}


OPENING = [
    _user("List the files."),
    {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "ls"}}
        ],
    },
    {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "a.py\nb.py"}],
    },
    _said("Two files: a.py and b.py."),
]
OPENING_REPLIES: list[dict[str, Any]] = [
    {"call": ("Bash", {"command": "ls"}, "toolu_01")},
    {"text": "Two files: a.py and b.py."},
]


def _open(send: Callable[[list[Any]], bytes]) -> None:
    """The first two requests: a call, its result, the answer."""
    send(OPENING[:1])
    send(OPENING[:3])


def test_a_rewound_prompt_is_a_branch_and_both_are_kept(tmp_path: Path) -> None:
    replies = Scripted(
        [*OPENING_REPLIES, {"text": "a.py holds main()."}, {"text": "b.py: 3 tests."}]
    )
    with FakeUpstream(reply=replies) as fake:
        url = _proxy(fake, tmp_path / "store", tmp_path / "ledger")
        send = _claude_code(url, "54c1eb09-bc4c-4d2f-98eb-6d2ab2d5e2fe")
        _open(send)
        send([*OPENING, _user("What is in a.py?")])
        # The user rewinds (Esc Esc) and asks something else from the same point.
        send([*OPENING, _user("What is in b.py?")])
    store = Store(tmp_path / "store")
    assert store.conversations() == ["54c1eb09-bc4c-4d2f-98eb-6d2ab2d5e2fe"]
    [agent] = store.agents("54c1eb09-bc4c-4d2f-98eb-6d2ab2d5e2fe")
    conv = store.load("54c1eb09-bc4c-4d2f-98eb-6d2ab2d5e2fe", agent)
    assert _texts(conv)[-2:] == ["What is in b.py?", "b.py: 3 tests."]
    # The abandoned branch is still stored, continuing from the same message.
    [old] = [m for m in conv.messages if m.text() == "What is in a.py?"]
    [new] = [m for m in conv.messages if m.text() == "What is in b.py?"]
    assert old.parent == new.parent
    assert "a.py holds main()." in _all_texts(conv)
    assert len(conv.messages) == 1 + 4 + 2 + 2  # system, the opening, two branches of two
    assert not tool_pairing(conv.path()).unanswered_calls


def test_an_edited_first_prompt_is_a_new_root_not_an_overwrite(tmp_path: Path) -> None:
    replies = Scripted([{"text": "Hello."}, {"text": "Bonjour."}])
    with FakeUpstream(reply=replies) as fake:
        url = _proxy(fake, tmp_path / "store", tmp_path / "ledger")
        send = _claude_code(url, "s-edit")
        send([_user("Say hello.")])
        send([_user("Say hello in French.")])
    store = Store(tmp_path / "store")
    # The opening changed, so the agent (the opening's fingerprint) did too: both stored.
    agents = store.agents("s-edit")
    assert len(agents) == 2
    said = [_texts(store.load("s-edit", a)) for a in agents]
    assert sorted(said) == [["Say hello in French.", "Bonjour."], ["Say hello.", "Hello."]]


def test_claude_code_compaction_turn_is_stored_beside_the_history(tmp_path: Path) -> None:
    summary = "Summary: listed the files (a.py, b.py) and answered."
    replies = Scripted(
        [*OPENING_REPLIES, {"text": "a.py holds main()."}, {"text": summary}, {"text": "Done."}]
    )
    session = "c0a1b2c3-compact"
    with FakeUpstream(reply=replies) as fake:
        url = _proxy(fake, tmp_path / "store", tmp_path / "ledger")
        send = _claude_code(url, session)
        _open(send)
        send([*OPENING, _user("What is in a.py?")])
        # Claude Code's compaction: the same history, its last user message edited to ask
        # for a summary (the harness's own, after a "prompt is too long").
        send(
            [
                *OPENING,
                _user(
                    "What is in a.py?\n\nYour task is to create a detailed summary of the "
                    "conversation so far."
                ),
            ]
        )
        # ...and the session goes on from the summary.
        send(
            [
                _user(f"This session is being continued from a previous conversation. {summary}"),
                _said("Understood."),
                _user("Now run the tests."),
            ]
        )
    store = Store(tmp_path / "store")
    agents = store.agents(session)
    assert len(agents) == 2  # the history and its compaction; the continuation opens anew
    by_opening = {store.load(session, a).path()[1].text(): store.load(session, a) for a in agents}
    before = by_opening["List the files."]
    # The compaction turn is stored: a branch beside the turn it edited, the tip on it.
    assert _texts(before)[-1] == summary
    assert "a.py holds main()." in _all_texts(before)
    edited = [m for m in before.messages if m.text().startswith("What is in a.py?")]
    assert len(edited) == 2 and edited[0].parent == edited[1].parent
    after = next(c for t, c in by_opening.items() if t.startswith("This session"))
    assert _texts(after)[-2:] == ["Now run the tests.", "Done."]


def test_a_restarted_proxy_keeps_the_old_branch_and_only_appends(tmp_path: Path) -> None:
    store_dir, ledger = tmp_path / "store", tmp_path / "ledger"
    replies = Scripted(
        [
            *OPENING_REPLIES,
            {"text": "a.py holds main()."},
            {"text": "b.py: 3 tests."},
            {"text": "Both are Python."},
        ]
    )
    session = "0b1c2d3e-restart"
    with FakeUpstream(reply=replies) as fake:
        first = ProxyProcess(fake.url, store_dir, ledger)
        first.start()
        try:
            send = _claude_code(first.url, session)
            _open(send)
            send([*OPENING, _user("What is in a.py?")])
        finally:
            first.kill()  # kill -9: no shutdown, nothing flushed late
        [agent] = Store(store_dir).agents(session)
        log = store_dir / session / f"{agent}.jsonl"
        written = log.read_bytes()
        second = ProxyProcess(fake.url, store_dir, ledger)
        second.start()
        try:
            send = _claude_code(second.url, session)
            # After the restart the user rewinds and asks something else...
            send([*OPENING, _user("What is in b.py?")])
            # ...then goes back to the first branch and continues it.
            send(
                [
                    *OPENING,
                    _user("What is in a.py?"),
                    _said("a.py holds main()."),
                    _user("And both?"),
                ]
            )
        finally:
            second.stop()
    assert log.read_bytes().startswith(written)  # append-only across the restart
    conv = Store(store_dir).load(session, agent)
    assert _texts(conv)[-4:] == [
        "What is in a.py?",
        "a.py holds main().",
        "And both?",
        "Both are Python.",
    ]
    assert {"What is in b.py?", "b.py: 3 tests."} <= _all_texts(conv)
    assert len([m for m in conv.messages if m.text() == "What is in a.py?"]) == 1
    assert len(conv.messages) == 1 + 4 + 2 + 2 + 2


def test_two_sessions_that_open_alike_are_both_stored(tmp_path: Path) -> None:
    replies = Scripted(
        [
            *OPENING_REPLIES,
            {"text": "a.py holds main()."},
            *OPENING_REPLIES,
            {"text": "b.py: 3 tests."},
            *OPENING_REPLIES,
            {"text": "a.py holds main()."},
            *OPENING_REPLIES,
            {"text": "b.py: 3 tests."},
        ]
    )
    with FakeUpstream(reply=replies) as fake:
        url = _proxy(fake, tmp_path / "store", tmp_path / "ledger")
        # With Claude Code's session ids: two conversations.
        for session, question in (
            ("sess-one", "What is in a.py?"),
            ("sess-two", "What is in b.py?"),
        ):
            send = _claude_code(url, session)
            _open(send)
            send([*OPENING, _user(question)])
        # Without a session id (a plain SDK client): one fingerprint, two branches of it.
        for question in ("What is in a.py?", "What is in b.py?"):
            send = _claude_code(url, None)
            _open(send)
            send([*OPENING, _user(question)])
    store = Store(tmp_path / "store")
    ids = store.conversations()
    assert "sess-one" in ids and "sess-two" in ids
    for session, last in (("sess-one", "a.py holds main()."), ("sess-two", "b.py: 3 tests.")):
        [agent] = store.agents(session)
        assert _texts(store.load(session, agent))[-1] == last
    [shared] = [i for i in ids if i.startswith("fp-")]
    conv = store.load(shared)
    assert _texts(conv)[-1] == "b.py: 3 tests."
    assert {"a.py holds main().", "What is in a.py?"} <= _all_texts(conv)
    assert len(conv.messages) == 1 + 4 + 2 + 2  # the opening once, then two branches


def _codex(url: str, session: str, task: str) -> None:
    body = {
        "model": "gpt-5.5",
        "instructions": "You are Codex.",
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "<environment_context>cwd</environment_context>"}
                ],
            },
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": task}]},
        ],
        "stream": True,
        "store": False,
        "prompt_cache_key": session,
    }
    _post(url + "/v1/responses", body, {"authorization": f"Bearer {KEY}", "session_id": session})


def test_codex_sessions_are_their_own_conversations(tmp_path: Path) -> None:
    replies = Scripted([{"text": "Fixed."}, {"text": "Fixed too."}])
    with FakeUpstream(reply=replies) as fake:
        url = _proxy(fake, tmp_path / "store", tmp_path / "ledger")
        _codex(url, "019a9544-7ab1-73c1-837e-1fa681f4462b", "Fix the bug.")
        _codex(url, "019a9544-7ab1-73c1-837e-1fa681f4462c", "Fix the bug.")
    store = Store(tmp_path / "store")
    assert store.conversations() == [
        "019a9544-7ab1-73c1-837e-1fa681f4462b",
        "019a9544-7ab1-73c1-837e-1fa681f4462c",
    ]


# -- Gemini: calls without ids -------------------------------------------------------------


def _gemini_turns(link_on_call: bool) -> list[list[dict[str, Any]]]:
    """The contents Gemini CLI sends, request by request: each reply's call echoed back
    (with the CLI's id on the call too when ``link_on_call``), then its response."""
    contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": "Count the files."}]}]
    sent = [list(contents)]
    for n, command in enumerate(("ls", "ls -a", "wc -l *")):
        cli_id = f"run_shell_command-17330{n}-{n}f3a"
        call: dict[str, Any] = {"name": "run_shell_command", "args": {"command": command}}
        if link_on_call:
            call["id"] = cli_id
        # Gemini 3 wants each step's signature back (the documented placeholder stands in
        # for the one a real model signs; the fake sends none).
        signed = {"functionCall": call, "thoughtSignature": "skip_thought_signature_validator"}
        contents.append({"role": "model", "parts": [{"text": f"Running {command}."}, signed]})
        contents.append(
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": cli_id,
                            "name": "run_shell_command",
                            "response": {"output": f"result of {command}: {n + 2} files"},
                        }
                    }
                ],
            }
        )
        sent.append(list(contents))
    return sent


@pytest.mark.parametrize("link_on_call", [False, True], ids=["id-on-response", "id-on-both"])
def test_gemini_calls_without_ids_are_answered_on_export(
    tmp_path: Path, link_on_call: bool
) -> None:
    from snapshot.transcript.export import export

    commands = ("ls", "ls -a", "wc -l *")
    replies = Scripted(
        [
            *(
                {"text": f"Running {c}.", "call": ("run_shell_command", {"command": c})}
                for c in commands
            ),
            {"text": "There are 4 files."},
        ]
    )
    with FakeUpstream(reply=replies) as fake:
        url = _proxy(fake, tmp_path / "store", tmp_path / "ledger")
        for contents in _gemini_turns(link_on_call):
            body = {
                "contents": contents,
                "systemInstruction": {"parts": [{"text": "You are Gemini CLI."}]},
                "tools": [
                    {
                        "functionDeclarations": [
                            {"name": "run_shell_command", "parameters": {"type": "OBJECT"}}
                        ]
                    }
                ],
            }
            _post(
                url + "/v1beta/models/gemini-3.5-flash-lite:streamGenerateContent?alt=sse",
                body,
                {"x-goog-api-key": KEY},
            )
        if not link_on_call:  # the upstream saw the calls as the client sent them: no ids
            echoed = [
                p["functionCall"]
                for a in fake.accepted
                for c in a.body["contents"]
                for p in c["parts"]
                if "functionCall" in p
            ]
            assert echoed and all("id" not in call for call in echoed)
    store = Store(tmp_path / "store")
    [conv_id] = store.conversations()
    conv = store.load(conv_id)
    assert _texts(conv)[-1] == "There are 4 files."
    # Every stored call, not only the tip's, is answered: the reply's id-less call and the
    # next request's linked one are one message.
    pairing = tool_pairing(conv.messages)
    assert not pairing.unanswered_calls and not pairing.orphan_results
    assert len([c for m in conv.messages for c in m.tool_calls()]) == 3
    body = export(conv, "gemini").body
    calls = [p["functionCall"] for c in body["contents"] for p in c["parts"] if "functionCall" in p]
    answers = {
        p["functionResponse"]["id"]: p["functionResponse"]["response"]
        for c in body["contents"]
        for p in c["parts"]
        if "functionResponse" in p
    }
    assert [c["args"]["command"] for c in calls] == list(commands)
    for n, call in enumerate(calls):
        assert call["id"] == f"run_shell_command-17330{n}-{n}f3a"
        assert f"{n + 2} files" in json.dumps(answers[call["id"]])


# -- references -----------------------------------------------------------------------------


def _install_log(n: int) -> str:
    return "\n".join(f"added package number {k} of run {n} without problems" for k in range(60))


def test_a_placeholder_reference_names_the_stored_result(tmp_path: Path) -> None:
    """What a compacted request's placeholder cites, ``snapshot show`` finds in the store."""
    import re

    from snapshot.ladder.restore import original

    turns = 14
    replies = Scripted(
        [
            {"call": ("Bash", {"command": f"npm install pkg{n}"}, f"toolu_{n:02d}")}
            for n in range(turns)
        ]
        + [{"text": "All installed."}]
    )
    session = "5e551011-0000-4000-8000-00000000ref5"
    with FakeUpstream(reply=replies) as fake:
        url = _proxy(fake, tmp_path / "store", tmp_path / "ledger", window=6000, threshold=0.8)
        send = _claude_code(url, session)
        messages: list[Any] = [_user("Install every package.")]
        send(messages)
        for n in range(turns):
            call = {
                "type": "tool_use",
                "id": f"toolu_{n:02d}",
                "name": "Bash",
                "input": {"command": f"npm install pkg{n}"},
            }
            messages += [
                {"role": "assistant", "content": [call]},
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"toolu_{n:02d}",
                            "content": _install_log(n),
                        }
                    ],
                },
            ]
            send(messages)
        sent = [json.dumps(a.body) for a in fake.accepted]
    refs = sorted({r for text in sent for r in re.findall(r"ref (\S+?#\d+):", text)})
    assert refs, "no request was compacted with an elided result"
    store = Store(tmp_path / "store")
    [agent] = store.agents(session)
    conv = store.load(session, agent)
    for ref in refs:
        text = original(conv, ref).decode()
        assert text.startswith("added package number 0 of run "), ref
