"""Properties over random conversations of every shape (assistant-first, tool-first,
duplicate and invalid ids, unanswered calls, orphan results, several agents):

- every export validates (the providers' schemas where present, the documented rules always);
- ``compact`` never answers a real call with a synthetic result.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from PIL import Image

from snapshot.errors import TranscriptError
from snapshot.ladder.compact import CompactOptions, compact
from snapshot.ladder.target import target_for
from snapshot.transcript.export import export
from snapshot.transcript.formats import import_path
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
    stats,
)
from snapshot.transcript.validate import SHAPES, validate
from snapshot.transcript.validate.corpus import synthetic_over_real


def _png() -> bytes:
    buf = io.BytesIO()
    Image.new("L", (5, 3), 128).save(buf, format="PNG")
    return buf.getvalue()


PNG = _png()
IDS = ["t1", "t2", "toolu_01A", "call 3!", "x" * 50, "dup"]
NAMES = ["ls", "read_file", "Bash", "mcp__fs__read", "bad name!"]
WORDS = st.text(alphabet="abcdefghij klmnop\n{}()_./0123456789", min_size=0, max_size=400)


@st.composite
def conversations(draw: Any) -> Conversation:
    """A random path: any role may come first; results may answer, miss or invent calls."""
    steps = draw(st.lists(st.sampled_from(["user", "assistant", "tool", "system"]), max_size=14))
    messages: list[Message] = []
    open_calls: list[str] = []
    for i, kind in enumerate(steps):
        blocks: list[Block] = []
        role = kind
        if kind in ("user", "system"):
            blocks.append(TextBlock(draw(WORDS)))
            if kind == "user" and draw(st.booleans()):
                blocks.append(ImageBlock("image/png", data=PNG, width=5, height=3))
        elif kind == "assistant":
            if draw(st.booleans()):
                blocks.append(ThinkingBlock(draw(WORDS), draw(st.sampled_from([None, "sig"]))))
            if draw(st.booleans()):
                blocks.append(TextBlock(draw(WORDS)))
            open_calls = []
            for _ in range(draw(st.integers(0, 3))):
                cid = draw(st.sampled_from(IDS))
                blocks.append(ToolCall(cid, draw(st.sampled_from(NAMES)), {"arg": draw(WORDS)}))
                open_calls.append(cid)
        else:
            answered = (
                draw(st.lists(st.sampled_from(open_calls), unique=True)) if open_calls else []
            )
            ids = answered + draw(st.lists(st.sampled_from(IDS), max_size=1))  # maybe an orphan
            for cid in ids:
                blocks.append(ToolResult(cid, (TextBlock(draw(WORDS)),), draw(st.booleans())))
            role = draw(st.sampled_from(["tool", "user"]))
        messages.append(Message(f"m{i}", f"m{i - 1}" if i else None, role, tuple(blocks)))  # type: ignore[arg-type]
    if not any(m.role in ("user", "assistant") and m.blocks for m in messages):
        messages.append(
            Message(
                f"m{len(messages)}",
                messages[-1].id if messages else None,
                "user",
                (TextBlock("go on"),),
            )
        )
    return Conversation("prop", tuple(messages), messages[-1].id)


def _has_content(conv: Conversation) -> bool:
    for m in conv.path():
        for b in m.blocks:
            if m.role != "system" and (not isinstance(b, TextBlock) or b.text.strip()):
                return True
    return False


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversations())
def test_every_export_validates(conv: Conversation) -> None:
    if not _has_content(conv):
        return
    for shape in SHAPES:
        try:
            body = export(conv, shape).body
        except TranscriptError as exc:  # nothing but unsendable thinking: a clear refusal
            assert "no user or assistant content" in str(exc)
            continue
        checked = validate(body, shape)
        assert checked.ok, (shape, [str(p) for p in checked.problems])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversations(), st.sampled_from(["claude-sonnet-4-5", "gpt-5.1", "gemini-3-pro-preview"]))
def test_compact_never_answers_a_real_call_with_a_synthetic_result(
    conv: Conversation, model: str
) -> None:
    if not _has_content(conv):
        return
    budget = max(1, target_for(model).tokens(conv.path()) // 3)
    try:
        outcome = compact(conv, model, budget, CompactOptions(keep_turns=1))
        source = export(conv, outcome.api)
    except TranscriptError as exc:
        assert "no user or assistant content" in str(exc)
        return
    assert synthetic_over_real(conv, outcome.result.conversation) == []
    # Repairs of truly missing results: no more than the source itself needs, each named.
    assert len(outcome.synthetic_results) <= len(source.synthetic_results)
    assert all(any(cid in n for n in outcome.notes) for cid in outcome.synthetic_results)
    checked = validate(outcome.body, outcome.api, model=outcome.target.model)
    assert checked.ok, [str(p) for p in checked.problems]


def _claude_code_lines(agents: list[list[str]]) -> list[dict[str, Any]]:
    """A Claude Code 1.0.x session: a main thread, then each inline Task subagent as a new root."""
    lines: list[dict[str, Any]] = []
    for a, texts in enumerate(agents):
        parent = None
        for j, text in enumerate(texts):
            uuid = f"{a}-{j}"
            role = "user" if j % 2 == 0 else "assistant"
            # Whitespace-only text is dropped on import (the APIs refuse it), which
            # would change the message count this test is about.
            text = text if text.strip() else "."
            message: dict[str, Any] = {"role": role, "content": text}
            if role == "assistant":
                message = {
                    "role": role,
                    "id": f"msg_{uuid}",
                    "content": [{"type": "text", "text": text}],
                }
            lines.append(
                {
                    "type": role,
                    "uuid": uuid,
                    "parentUuid": parent,
                    "isSidechain": a > 0,
                    "sessionId": "s",
                    "message": message,
                }
            )
            parent = uuid
    return lines


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(WORDS, min_size=1, max_size=5), min_size=2, max_size=6))
@example([[""], [" "]])  # found by Hypothesis: a whitespace-only sub-agent prompt
def test_many_inline_agents_import_as_separate_transcripts(
    tmp_path_factory: Any, agents: list[list[str]]
) -> None:
    path: Path = tmp_path_factory.mktemp("cc") / "session.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in _claude_code_lines(agents)), encoding="utf-8")
    convs = import_path(path)
    assert [c.agent for c in convs] == ["main", *(f"sidechain-{i}" for i in range(1, len(agents)))]
    assert [stats(c.path()).messages for c in convs] == [len(t) for t in agents]
    for conv in convs:
        for shape in SHAPES:
            assert validate(export(conv, shape).body, shape).ok
