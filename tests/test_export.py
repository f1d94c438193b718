"""Exporters: bodies obey each provider's rules for any conversation, repairs are reported."""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from snapshot.errors import TranscriptError
from snapshot.transcript.export import (
    SYNTHETIC_RESULT,
    body_image_sizes,
    export,
    export_anthropic,
    export_gemini,
    export_markdown,
    export_openai,
    export_openai_responses,
    to_anthropic,
    to_gemini,
    to_markdown,
    to_openai,
    to_openai_responses,
)
from snapshot.transcript.formats.anthropic_messages import conversation_from_body
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
    linear,
    tool_pairing,
)

ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MEDIA = {"image/png", "image/jpeg", "image/gif", "image/webp"}


def _png(width: int = 3, height: int = 2) -> bytes:
    buf = io.BytesIO()
    Image.new("L", (width, height), 255).save(buf, format="PNG")
    return buf.getvalue()


PNG = _png()


# --- provider rules, written from the providers' documented constraints -------------------


def check_anthropic(body: dict[str, Any]) -> None:
    assert isinstance(body["model"], str) and body["max_tokens"] > 0
    msgs = body["messages"]
    assert msgs, "at least one message"
    assert msgs[0]["role"] == "user"
    declared = {t["name"] for t in body.get("tools", [])}
    seen_ids: set[str] = set()
    for i, m in enumerate(msgs):
        assert m["role"] in ("user", "assistant")
        if i:
            assert m["role"] != msgs[i - 1]["role"], f"message {i}: roles must alternate"
        assert m["content"], f"message {i}: empty content"
        for b in m["content"]:
            t = b["type"]
            if t == "text":
                assert b["text"].strip(), f"message {i}: empty text block"
            elif t == "image":
                assert m["role"] == "user"
                assert b["source"]["type"] == "base64" and b["source"]["media_type"] in MEDIA
                base64.b64decode(b["source"]["data"], validate=True)
            elif t == "tool_use":
                assert m["role"] == "assistant"
                assert re.match(r"^[a-zA-Z0-9_-]+$", b["id"]) and b["id"] not in seen_ids
                seen_ids.add(b["id"])
                assert NAME_RE.match(b["name"]) and b["name"] in declared
                assert isinstance(b["input"], dict)
            elif t == "tool_result":
                assert m["role"] == "user"
                for part in b.get("content", []):
                    assert part["type"] in ("text", "image")
            elif t in ("thinking", "redacted_thinking"):
                assert m["role"] == "assistant"
                assert b.get("signature") or b.get("data")
            else:
                raise AssertionError(f"unknown block type {t}")
        calls = [b["id"] for b in m["content"] if b["type"] == "tool_use"]
        results = [b for b in m["content"] if b["type"] == "tool_result"]
        if results:
            assert i > 0 and msgs[i - 1]["role"] == "assistant"
            prev_calls = [b["id"] for b in msgs[i - 1]["content"] if b["type"] == "tool_use"]
            assert sorted(r["tool_use_id"] for r in results) == sorted(prev_calls)
            kinds = [b["type"] for b in m["content"]]
            assert kinds[: len(results)] == ["tool_result"] * len(results), "results come first"
        if calls:
            assert i + 1 < len(msgs), "every tool_use is answered"
            nxt = [b["tool_use_id"] for b in msgs[i + 1]["content"] if b["type"] == "tool_result"]
            assert sorted(nxt) == sorted(calls)
    last = msgs[-1]
    if last["role"] == "assistant" and last["content"][-1]["type"] == "text":
        assert last["content"][-1]["text"] == last["content"][-1]["text"].rstrip()


def check_openai(body: dict[str, Any]) -> None:
    msgs = body["messages"]
    declared = {t["function"]["name"] for t in body.get("tools", [])}
    seen: set[str] = set()
    i = 0
    while i < len(msgs):
        m = msgs[i]
        role = m["role"]
        assert role in ("system", "user", "assistant", "tool")
        assert role != "tool", f"message {i}: tool message not right after its assistant message"
        if role == "assistant":
            calls = m.get("tool_calls") or []
            assert m["content"] is not None or calls
            ids = []
            for c in calls:
                assert ID_RE.match(c["id"]) and c["id"] not in seen
                seen.add(c["id"])
                assert NAME_RE.match(c["function"]["name"]) and c["function"]["name"] in declared
                assert isinstance(json.loads(c["function"]["arguments"]), dict)
                ids.append(c["id"])
            answered = []
            j = i + 1
            while j < len(msgs) and msgs[j]["role"] == "tool":
                assert isinstance(msgs[j]["content"], str)
                answered.append(msgs[j]["tool_call_id"])
                j += 1
            assert sorted(answered) == sorted(ids), f"message {i}: calls and tool messages differ"
            i = j
            continue
        if role == "user" and not isinstance(m["content"], str):
            for part in m["content"]:
                assert part["type"] in ("text", "image_url")
                if part["type"] == "image_url":
                    assert part["image_url"]["url"].startswith("data:image/")
        i += 1
    assert any(m["role"] != "system" for m in msgs)


def check_responses(body: dict[str, Any]) -> None:
    items = body["input"]
    declared = {t["name"] for t in body.get("tools", [])}
    open_calls: dict[str, int] = {}
    answered: set[str] = set()
    for k, it in enumerate(items):
        if it.get("type") == "function_call":
            assert ID_RE.match(it["call_id"]) and it["call_id"] not in open_calls
            assert it["name"] in declared
            open_calls[it["call_id"]] = k
        elif it.get("type") == "function_call_output":
            assert it["call_id"] in open_calls, "output without an earlier call"
            assert it["call_id"] not in answered
            answered.add(it["call_id"])
            assert isinstance(it["output"], str)
        else:
            assert it["type"] == "message" and it["role"] in ("user", "assistant", "system")
            if it["role"] == "assistant":
                # No message between a call and its output.
                assert set(open_calls) == answered, "assistant message while calls are open"
    assert set(open_calls) == answered, "every function_call has an output"


def check_gemini(body: dict[str, Any]) -> None:
    contents = body["contents"]
    assert contents and contents[0]["role"] == "user"
    declared = {d["name"] for t in body.get("tools", []) for d in t["functionDeclarations"]}
    for i, c in enumerate(contents):
        assert c["role"] in ("user", "model") and c["parts"]
        if i:
            assert c["role"] != contents[i - 1]["role"]
        calls = [p["functionCall"] for p in c["parts"] if "functionCall" in p]
        responses = [p["functionResponse"] for p in c["parts"] if "functionResponse" in p]
        if calls:
            assert c["role"] == "model"
            assert all(fc["name"] in declared for fc in calls)
            nxt = contents[i + 1]
            got = [
                (p["functionResponse"]["id"], p["functionResponse"]["name"])
                for p in nxt["parts"]
                if "functionResponse" in p
            ]
            assert sorted(got) == sorted((fc["id"], fc["name"]) for fc in calls)
        if responses:
            assert c["role"] == "user"
            prev = [
                p["functionCall"]["id"] for p in contents[i - 1]["parts"] if "functionCall" in p
            ]
            assert sorted(r["id"] for r in responses) == sorted(prev)


# --- random conversations ---------------------------------------------------------------

CALL_IDS = ["toolu_1", "call_2", "c", "id with spaces", "x" * 60, "toolu_1"]


@st.composite
def conversations(draw: st.DrawFn) -> Conversation:
    tmp_missing = "/nonexistent/snapshot-test/missing.png"
    n = draw(st.integers(1, 14))
    messages: list[tuple[str, str, list[Block]]] = []
    issued: list[str] = []
    for i in range(n):
        kind = draw(st.sampled_from(["user", "assistant", "tool", "system", "mixed"]))
        blocks: list[Block] = []
        if kind == "assistant":
            if draw(st.booleans()):
                blocks.append(ThinkingBlock("hmm", draw(st.sampled_from([None, "sig"]))))
            if draw(st.booleans()):
                blocks.append(TextBlock(draw(st.sampled_from(["ok", "  ", "", "done "]))))
            for _ in range(draw(st.integers(0, 3))):
                cid = draw(st.sampled_from(CALL_IDS))
                issued.append(cid)
                name = draw(st.sampled_from(["ls", "bash", "mcp.tool/x"]))
                blocks.append(ToolCall(cid, name, {"n": draw(st.integers(0, 3))}))
            if draw(st.booleans()):
                blocks.append(ImageBlock("image/png", data=PNG, width=3, height=2))
        elif kind in ("tool", "mixed"):
            for _ in range(draw(st.integers(0, 3))):
                pool = [*issued, "orphan-1", "never"] if issued else ["orphan-1"]
                cid = draw(st.sampled_from(pool))
                content: list[TextBlock | ImageBlock] = [
                    TextBlock(f"out {draw(st.integers(0, 99))}")
                ]
                if draw(st.booleans()):
                    content.append(ImageBlock("image/png", data=PNG, width=3, height=2))
                blocks.append(ToolResult(cid, tuple(content), draw(st.booleans())))
            if kind == "mixed":
                blocks.insert(draw(st.integers(0, len(blocks))), TextBlock("interrupt"))
        elif kind == "user":
            blocks.append(TextBlock(draw(st.sampled_from(["hi", "", "next?"]))))
            image = draw(
                st.sampled_from(
                    [
                        None,
                        ImageBlock("image/png", data=PNG, width=3, height=2),
                        ImageBlock("image/png", path=tmp_missing),
                        ImageBlock("image/bmp", data=b"BM"),
                    ]
                )
            )
            if image is not None:
                blocks.append(image)
        else:
            blocks.append(TextBlock("system says"))
        role = "user" if kind == "mixed" else kind
        messages.append((f"m{i}", role, blocks))
    conv = linear("random", messages)  # type: ignore[arg-type]
    return conv


EXPORTERS = [
    (export_anthropic, check_anthropic),
    (export_openai, check_openai),
    (export_openai_responses, check_responses),
    (export_gemini, check_gemini),
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversations())
def test_bodies_obey_provider_rules_and_repairs_are_reported(conv: Conversation) -> None:
    pairing = tool_pairing(conv.path())
    for exporter, check in EXPORTERS:
        try:
            out = exporter(conv)
        except TranscriptError as exc:
            # Only a conversation with nothing to send may be refused.
            assert "no user or assistant content" in str(exc)
            continue
        check(out.body)
        if not pairing.ok:
            assert out.notes, f"{exporter.__name__}: repairs made without a note"
        json.dumps(out.body)  # serialisable as is
        # Nothing said is lost: every text and tool-result text is somewhere in the body.
        strings = "\n".join(_strings(out.body))
        for text in _texts_of(conv):
            assert text.rstrip() in strings, f"{exporter.__name__} lost {text!r}"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _texts_of(conv: Conversation) -> list[str]:
    out: list[str] = []
    for m in conv.path():
        for b in m.blocks:
            if isinstance(b, TextBlock) and b.text.strip():
                out.append(b.text)
            elif isinstance(b, ToolResult) and b.text().strip():
                out.append(b.text())
            elif isinstance(b, ToolCall):
                out.append(b.name.replace(".", "_").replace("/", "_"))
    return out


@settings(max_examples=100, deadline=None)
@given(conversations())
def test_markdown_never_fails_and_shows_every_text(conv: Conversation) -> None:
    md = to_markdown(conv)
    for m in conv.path():
        for b in m.blocks:
            if isinstance(b, TextBlock) and b.text.strip():
                assert b.text in md


# --- round trip: Anthropic body → import → export -------------------------------------------

_words = st.text(alphabet="abcdefghij KLMNOP.,!?é日本", min_size=1, max_size=30).map(
    lambda s: s.strip() or "x"
)


@st.composite
def anthropic_bodies(draw: st.DrawFn) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    pending: list[str] = []
    counter = 0
    for turn in range(draw(st.integers(1, 8))):
        if turn % 2 == 0:
            content: list[dict[str, Any]] = [
                {
                    "type": "tool_result",
                    "tool_use_id": cid,
                    "content": [{"type": "text", "text": draw(_words)}],
                }
                for cid in pending
            ]
            pending = []
            if not content or draw(st.booleans()):  # a turn of results alone is common
                content.append({"type": "text", "text": draw(_words)})
            messages.append({"role": "user", "content": content})
        else:
            content = [{"type": "text", "text": draw(_words)}]
            for _ in range(draw(st.integers(0, 2))):
                counter += 1
                cid = f"toolu_{counter:03d}"
                pending.append(cid)
                content.append(
                    {"type": "tool_use", "id": cid, "name": "bash", "input": {"cmd": draw(_words)}}
                )
            messages.append({"role": "assistant", "content": content})
    if pending:
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": c, "content": "ok"} for c in pending
                ],
            }
        )
    return {"model": "m", "max_tokens": 10, "system": draw(_words), "messages": messages}


def _texts(body: dict[str, Any]) -> list[tuple[str, list[str]]]:
    out = []
    for m in body["messages"]:
        texts = []
        for b in m["content"]:
            if b["type"] == "text":
                texts.append(b["text"])
            elif b["type"] == "tool_use":
                texts.append(f"call {b['id']} {json.dumps(b['input'], sort_keys=True)}")
            elif b["type"] == "tool_result":
                c = b.get("content")
                inner = c if isinstance(c, str) else "".join(p["text"] for p in c or [])
                texts.append(f"result {b['tool_use_id']} {inner}")
        out.append((m["role"], texts))
    return out


@settings(max_examples=200, deadline=None)
@given(anthropic_bodies())
def test_anthropic_round_trip_preserves_text(body: dict[str, Any]) -> None:
    conv = conversation_from_body(body, conv_id="rt")
    assert not conv.warnings
    out = export_anthropic(conv, model="m", max_tokens=10)
    assert out.notes == ()
    check_anthropic(out.body)
    assert _texts(out.body) == _texts(body)
    assert [b["text"] for b in out.body["system"]] == [body["system"]]


# --- specific repairs ---------------------------------------------------------------------------


def _conv(*messages: tuple[str, str, list[Block]]) -> Conversation:
    return linear("c", messages)  # type: ignore[arg-type]


def test_unanswered_call_gets_synthetic_error_result_with_the_call_id() -> None:
    conv = _conv(
        ("u", "user", [TextBlock("go")]),
        ("a", "assistant", [TextBlock("running"), ToolCall("toolu_9", "bash", {"c": 1})]),
    )
    out = export_anthropic(conv)
    last = out.body["messages"][-1]
    assert last["role"] == "user"
    (result,) = last["content"]
    assert result["tool_use_id"] == "toolu_9" and result["is_error"] is True
    assert result["content"][0]["text"] == SYNTHETIC_RESULT
    assert any("toolu_9" in n and "synthetic" in n for n in out.notes)
    # The same repair, the same id, for every provider.
    o = export_openai(conv)
    assert o.body["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "toolu_9",
        "content": f"[error] {SYNTHETIC_RESULT}",
    }
    assert o.notes == out.notes


def test_orphan_result_becomes_text_and_is_noted() -> None:
    conv = _conv(
        ("u", "user", [TextBlock("go")]),
        ("t", "tool", [ToolResult("ghost", (TextBlock("stale output"),))]),
        ("a", "assistant", [TextBlock("ok")]),
    )
    for exporter, check in EXPORTERS:
        out = exporter(conv)
        check(out.body)
        assert "stale output" in json.dumps(out.body)
        assert any("ghost" in n and "text" in n for n in out.notes)


def test_result_after_an_interruption_is_moved_first_and_noted() -> None:
    conv = _conv(
        ("u", "user", [TextBlock("go")]),
        ("a", "assistant", [ToolCall("t1", "bash", {})]),
        ("i", "user", [TextBlock("wait, also check X")]),
        ("r", "tool", [ToolResult("t1", (TextBlock("done"),))]),
    )
    out = export_anthropic(conv)
    check_anthropic(out.body)
    kinds = [b["type"] for b in out.body["messages"][-1]["content"]]
    assert kinds == ["tool_result", "text"]
    assert any("moved" in n for n in out.notes)
    o = export_openai(conv)
    check_openai(o.body)
    assert [m["role"] for m in o.body["messages"]] == ["user", "assistant", "tool", "user"]


def test_duplicate_and_invalid_ids_are_renamed_stably() -> None:
    conv = _conv(
        ("u", "user", [TextBlock("go")]),
        ("a1", "assistant", [ToolCall("dup", "ls", {})]),
        ("r1", "tool", [ToolResult("dup", (TextBlock("1"),))]),
        ("a2", "assistant", [ToolCall("dup", "ls", {}), ToolCall("has space", "a.b", {})]),
        (
            "r2",
            "tool",
            [ToolResult("dup", (TextBlock("2"),)), ToolResult("has space", (TextBlock("3"),))],
        ),
    )
    first = export_anthropic(conv)
    again = export_anthropic(conv)
    assert first == again  # stable: derived from the ids, not random
    check_anthropic(first.body)
    ids = [b["id"] for m in first.body["messages"] for b in m["content"] if b["type"] == "tool_use"]
    assert ids[0] == "dup" and len(set(ids)) == 3
    names = {t["name"] for t in first.body["tools"]}
    assert names == {"ls", "a_b"}
    assert sum("exported as" in n for n in first.notes) == 3  # two ids, one name


def test_images_are_inline_base64_and_unusable_ones_are_noted(tmp_path: Path) -> None:
    png_file = tmp_path / "shot.png"
    png_file.write_bytes(_png(5, 4))
    conv = _conv(
        (
            "u",
            "user",
            [TextBlock("look"), ImageBlock("image/png", path=str(png_file), width=5, height=4)],
        ),
        ("a", "assistant", [ToolCall("t1", "screenshot", {})]),
        (
            "r",
            "tool",
            [
                ToolResult(
                    "t1",
                    (
                        TextBlock("here"),
                        ImageBlock("image/png", data=PNG),
                        ImageBlock("image/png", path=str(tmp_path / "gone.png")),
                    ),
                )
            ],
        ),
    )
    # Path-referenced images are sent only from the transcript's own folder.
    conv = dataclasses.replace(conv, source=str(tmp_path / "transcript.json"))
    a = export_anthropic(conv)
    check_anthropic(a.body)
    img = a.body["messages"][0]["content"][1]
    assert base64.b64decode(img["source"]["data"]) == png_file.read_bytes()
    assert any("gone.png" in n for n in a.notes)
    o = export_openai(conv)
    check_openai(o.body)
    # Tool messages take only text: the returned image follows in a user message.
    assert o.body["messages"][-1]["role"] == "user"
    assert o.body["messages"][-1]["content"][1]["image_url"]["url"].startswith(
        "data:image/png;base64,"
    )
    assert any("user message after the tool messages" in n for n in o.notes)
    g = export_gemini(conv)
    check_gemini(g.body)
    assert any("inlineData" in p for p in g.body["contents"][-1]["parts"])
    # Two usable images, the same base64 in every provider's shape.
    r = export_openai_responses(conv)
    expected = sorted(len(base64.b64encode(b)) for b in (png_file.read_bytes(), PNG))
    for body in (a.body, o.body, r.body, g.body):
        assert sorted(body_image_sizes(body)) == expected


def test_thinking_signed_kept_for_anthropic_and_left_out_elsewhere_with_a_note() -> None:
    conv = _conv(
        ("u", "user", [TextBlock("q")]),
        (
            "a",
            "assistant",
            [ThinkingBlock("because", "sig"), ThinkingBlock("unsigned"), TextBlock("answer")],
        ),
    )
    a = export_anthropic(conv)
    kinds = [b["type"] for b in a.body["messages"][1]["content"]]
    assert kinds == ["thinking", "text"]
    assert any("without a signature" in n for n in a.notes)
    o = export_openai(conv)
    assert o.body["messages"][1]["content"] == "answer"
    assert any("thinking" in n for n in o.notes)


def test_system_messages_leading_and_later() -> None:
    conv = _conv(
        ("s", "system", [TextBlock("rules")]),
        ("u", "user", [TextBlock("hi")]),
        ("s2", "system", [TextBlock("reminder")]),
        ("a", "assistant", [TextBlock("hello")]),
    )
    a = export_anthropic(conv)
    assert a.body["system"] == [{"type": "text", "text": "rules"}]
    assert a.body["messages"][0]["content"][-1]["text"] == "[system] reminder"
    o = export_openai(conv)
    assert [m["role"] for m in o.body["messages"]] == ["system", "user", "system", "assistant"]
    r = export_openai_responses(conv)
    assert r.body["instructions"] == "rules"
    g = export_gemini(conv)
    assert g.body["systemInstruction"] == {"parts": [{"text": "rules"}]}


def test_known_tool_schemas_are_used() -> None:
    schema = {"type": "object", "properties": {"command": {"type": "string"}}}
    conv = _conv(
        ("u", "user", [TextBlock("go")]),
        ("a", "assistant", [ToolCall("t", "bash", {"command": "ls"})]),
        ("r", "tool", [ToolResult("t", (TextBlock("x"),))]),
    )
    conv = Conversation(
        conv.id,
        conv.messages,
        conv.tip,
        meta={
            "tools": [
                {
                    "type": "function",
                    "function": {"name": "bash", "description": "run", "parameters": schema},
                }
            ]
        },
    )
    assert to_anthropic(conv)["tools"] == [
        {"name": "bash", "description": "run", "input_schema": schema}
    ]
    assert to_openai(conv)["tools"][0]["function"]["parameters"] == schema
    assert to_openai_responses(conv)["tools"][0]["parameters"] == schema
    assert to_gemini(conv)["tools"][0]["functionDeclarations"][0]["name"] == "bash"


def test_nothing_to_send_is_a_clear_error() -> None:
    conv = _conv(("s", "system", [TextBlock("only rules")]))
    with pytest.raises(TranscriptError, match="no user or assistant content"):
        export_anthropic(conv)
    with pytest.raises(TranscriptError, match="unknown export target"):
        export(conv, "bard")


def test_path_starting_with_assistant_gets_a_placeholder_user_turn() -> None:
    conv = _conv(("a", "assistant", [TextBlock("resuming")]), ("u", "user", [TextBlock("ok")]))
    out = export_anthropic(conv)
    check_anthropic(out.body)
    assert any("placeholder" in n for n in out.notes)


def test_markdown_shows_calls_results_and_images() -> None:
    conv = _conv(
        (
            "u",
            "user",
            [
                TextBlock("look"),
                ImageBlock("image/png", path="/x/shot.png", width=4, height=3, origin="shot.png"),
            ],
        ),
        ("a", "assistant", [ThinkingBlock("hmm"), ToolCall("t1", "bash", {"cmd": "ls ```"})]),
        ("r", "tool", [ToolResult("t1", (TextBlock("a\nb"),), is_error=True)]),
        ("o", "tool", [ToolResult("ghost", (TextBlock("?"),))]),
    )
    out = export_markdown(conv)
    md = out.body
    assert "![shot.png (4×3)](/x/shot.png)" in md
    assert "**tool call** `bash` · `t1`" in md and "````json" in md  # fence longer than content's
    assert "**tool result** (error) for `t1`" in md
    assert "no matching call" in md and any("ghost" in n for n in out.notes)


def test_branches_export_only_the_live_path() -> None:
    m = [
        Message("u", None, "user", (TextBlock("q"),)),
        Message("a1", "u", "assistant", (TextBlock("abandoned"),)),
        Message("a2", "u", "assistant", (TextBlock("kept"),)),
    ]
    conv = Conversation("c", tuple(m), tip="a2")
    text = json.dumps(to_openai(conv))
    assert "kept" in text and "abandoned" not in text


# --- the real corpus ---------------------------------------------------------------------------


def _corpus() -> Path:
    env = os.environ.get("SNAPSHOT_CORPUS")
    root = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    if not (root / "benchmark.manifest.json").is_file():
        pytest.skip(f"corpus not found at {root} (set SNAPSHOT_CORPUS)")
    return root


CORPUS_SAMPLES = [
    (
        "openhands/evaluation__benchmarks__multi_swe_bench__examples__output.jsonl",
        {"instance_id": "ponylang__ponyc-4588"},
    ),
    ("openhands/tests__runtime__trajs__basic_gui_mode.json", {}),
    ("tau_bench/gpt-4o-airline.json", {"task_id": "3", "trial": "0"}),
    ("webvoyager/examples/taskGoogle Map--4", {}),
    ("scuba_cua/demo_bu_claude4/trajectory/sales_001_001.json", {}),
    ("scuba_cua/demo_uitars15/trajectory/sales_001_001", {}),
]


@pytest.mark.corpus
@pytest.mark.parametrize(("rel", "select"), CORPUS_SAMPLES, ids=[r for r, _ in CORPUS_SAMPLES])
def test_corpus_screenshots_all_travel(rel: str, select: dict[str, str]) -> None:
    from snapshot.transcript.formats import import_path

    (conv,) = import_path(_corpus() / rel, select=select)
    images = sum(len(m.images()) for m in conv.path())
    for exporter, _ in EXPORTERS:
        assert len(body_image_sizes(exporter(conv).body)) == images, exporter.__name__


@pytest.mark.corpus
def test_every_benchmark_conversation_exports_valid_bodies() -> None:
    """All 74 manifest conversations (every importer's), all four providers."""
    from snapshot.transcript.formats import import_path

    root = _corpus()
    entries = json.loads((root / "benchmark.manifest.json").read_text())
    assert len(entries) == 74
    for e in entries:
        select = {k: str(v) for k, v in (e.get("select") or {}).items()}
        for conv in import_path(root / e["path"], select=select):
            for exporter, check in EXPORTERS:
                try:
                    check(exporter(conv).body)
                except AssertionError as exc:
                    raise AssertionError(
                        f"{e['id']} ({conv.agent}) {exporter.__name__}: {exc}"
                    ) from exc
