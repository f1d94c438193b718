"""Rungs 1 and 2 and the cut: what they replace, what they must never touch."""

from __future__ import annotations

from hypothesis import given, settings
from ladder_helpers import agent_run, random_runs

from snapshot.ladder.cut import find_cut
from snapshot.ladder.elide import elide
from snapshot.ladder.images import drop_images
from snapshot.transcript.model import (
    Conversation,
    TextBlock,
    ToolCall,
    ToolResult,
    linear,
    tool_pairing,
)


def test_elide_replaces_old_results_and_keeps_recent_ones() -> None:
    conv = agent_run(9)  # assistant steps a0 … a8, then the final answer
    out = elide(conv, keep_steps=3)
    path = out.conversation.path()
    results = [b for m in path for b in m.tool_results()]
    elided = [r for r in results if r.text().startswith("[elided:")]
    assert out.record.changed == len(elided) > 0
    # The unit of "recent" is an assistant step: the results of a7 and a8 (and the final
    # answer, which has none) stay verbatim, user prompts between them notwithstanding.
    assert len(elided) == 7
    assert not any(r.text().startswith("[elided:") for r in results[7:])
    assert out.record.chars_removed > 0
    assert tool_pairing(path).ok


def test_elide_keeps_errors_and_referenced_results() -> None:
    conv = linear(
        "c",
        [
            ("u", "user", [TextBlock("go")]),
            ("a1", "assistant", [ToolCall("t1", "bash", {"cmd": "ls"})]),
            ("r1", "tool", [ToolResult("t1", (TextBlock("report_2024_final.csv " + "x" * 400),))]),
            ("a2", "assistant", [ToolCall("t2", "bash", {"cmd": "make"})]),
            ("r2", "tool", [ToolResult("t2", (TextBlock("boom " * 100),), is_error=True)]),
            ("a3", "assistant", [ToolCall("t3", "cat", {"path": "report_2024_final.csv"})]),
            ("r3", "tool", [ToolResult("t3", (TextBlock("y" * 400),))]),
            ("u2", "user", [TextBlock("thanks")]),
        ],
    )
    path = elide(conv, keep_steps=0).conversation.path()
    texts = {r.call_id: r.text() for m in path for r in m.tool_results()}
    assert texts["t1"].startswith("report_2024_final.csv")  # referenced by a later call
    assert texts["t2"].startswith("boom")  # an error stays
    assert texts["t3"].startswith("[elided: uneventful cat result")


def test_elide_leaves_head_and_tail_messages_identical() -> None:
    conv = agent_run(12)
    out = elide(conv, keep_steps=2).conversation.path()
    src = conv.path()
    assert out[0] == src[0]
    assert out[-3:] == src[-3:]


def test_drop_images_replaces_old_images_with_a_named_placeholder() -> None:
    conv = agent_run(6, with_images=True)
    out = drop_images(conv, keep_turns=1)
    path = out.conversation.path()
    remaining = sum(len(m.images()) for m in path)
    assert out.record.changed == 6 - remaining > 0
    placeholders = [
        b.text
        for m in path
        for r in m.tool_results()
        for b in r.content
        if isinstance(b, TextBlock) and b.text.startswith("[image dropped")
    ]
    assert any("1024x768" in p and "shot0.png" in p for p in placeholders)


@settings(max_examples=200, deadline=None)
@given(random_runs())
def test_cut_never_separates_a_call_from_its_result(conv: Conversation) -> None:
    path = conv.path()
    for keep in range(0, 4):
        head, middle, tail = find_cut(path, keep_turns=keep).split(path)
        assert head + middle + tail == list(path)
        assert tool_pairing(tail).orphan_results == ()
        # Nothing in the head or middle is answered from the tail.
        calls_before = {c.id for m in head + middle for c in m.tool_calls()}
        assert not {r.call_id for m in tail for r in m.tool_results()} & calls_before


@settings(max_examples=100, deadline=None)
@given(random_runs())
def test_free_text_rungs_keep_pairing_and_ids(conv: Conversation) -> None:
    for out in (
        elide(conv, keep_steps=1).conversation,
        drop_images(conv, keep_turns=1).conversation,
    ):
        assert [m.id for m in out.path()] == [m.id for m in conv.path()]
        assert tool_pairing(out.path()) == tool_pairing(conv.path())
