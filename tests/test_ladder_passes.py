"""Compaction pass after pass (issue 22 items 1-4): pages survive, are stable, and are honest.

- A later pass never drops snapshot pages for placeholders; it redraws them from
  their retained source text, and the request's pages plus its verbatim text hold
  every message of the source (the project's round-trip decoder proves it).
- The same span with the same profile gives byte-identical pages on every pass.
- No summary without text enters a request; recovery plans to the provider's
  stated limit, and ``fits`` is never true beside "provider still rejects".
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from ladder_helpers import REPRO, agent_run, needs_repro

from snapshot.ladder.compact import CompactOptions, compact
from snapshot.ladder.ladder import FREE_RUNGS, LadderOptions, Rejection, recover, run_ladder
from snapshot.ladder.provider import SimulatedProvider
from snapshot.ladder.serialize import serialize_message
from snapshot.ladder.sheets import SheetOptions, is_snapshot, segments_of
from snapshot.ladder.target import Target, target_for
from snapshot.rendering.decode import load_png, read
from snapshot.rendering.text import normalize
from snapshot.transcript.model import (
    Conversation,
    Message,
    TextBlock,
    ToolCall,
    ToolResult,
    linear,
)

MODEL = "claude-sonnet-4-6"
# Images and snapshot pages are kept; nothing is elided, so every character must survive.
NO_ELIDE = LadderOptions(rungs=("drop_images", "snapshot"))
WORDS = [
    "build",
    "test",
    "src/app/main.py",
    "ok",
    "error",
    "commit",
    "a1b2c3d4e5",
    "userId",
    "the",
    "value",
    "of",
    "for",
    "in",
    "parse",
    "token",
    "8080",
    "config.yaml",
]


def work(turns: int, seed: int = 0, words: int = 120) -> Conversation:
    """An agent run whose results are varied words (text a page is worth drawing)."""
    rnd = random.Random(seed)
    msgs: list[tuple[str, str, list[Any]]] = [
        ("u0", "user", [TextBlock("Fix the failing test in src/app/main.py.")])
    ]
    for i in range(turns):
        call = ToolCall(f"call{i:04d}", "bash", {"cmd": f"run {i}"})
        msgs.append((f"a{i}", "assistant", [TextBlock(f"step {i}"), call]))
        text = " ".join(rnd.choice(WORDS) for _ in range(words))
        msgs.append((f"r{i}", "tool", [ToolResult(call.id, (TextBlock(text),))]))
        if i % 7 == 6:
            msgs.append((f"u{i}", "user", [TextBlock(f"go on with part {i}")]))
    msgs.append(("done", "assistant", [TextBlock("All tests pass now.")]))
    return linear("run", msgs)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def claude() -> Target:
    return target_for(MODEL)


def _pages(conv: Conversation) -> list[tuple[bytes, str]]:
    return [
        (img.data or b"", img.origin) for m in conv.path() if is_snapshot(m) for img in m.images()
    ]


def _decoded(conv: Conversation, target: Target) -> str:
    """Every snapshot page of the request read back by the project's own decoder."""
    assert target.geometry is not None
    font = target.geometry.font
    return "".join(read(load_png(png), font) for png, _ in _pages(conv))


def _texts(message: Message) -> list[str]:
    """Every text block of a message, those inside tool results included."""
    out: list[str] = []
    for b in message.blocks:
        parts = b.content if isinstance(b, ToolResult) else (b,)
        out.extend(p.text for p in parts if isinstance(p, TextBlock))
    return out


def _placeholders(conv: Conversation) -> list[str]:
    return [t for m in conv.path() for t in _texts(m) if t.startswith("[image dropped")]


def _holds_every_message(source: Conversation, out: Conversation, target: Target) -> None:
    """Each source message is verbatim in ``out`` or read back, whole, from its pages."""
    verbatim = {m.id: m.blocks for m in out.path()}
    decoded = normalize(_decoded(out, target)).text
    for m in source.path():
        if verbatim.get(m.id) == m.blocks:
            continue
        assert normalize(serialize_message(m)).text in decoded, m.id


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking re-renders too much
)
@given(
    turns=st.integers(20, 32),
    seed=st.integers(0, 2**16),
    shares=st.lists(st.floats(0.25, 0.9), min_size=2, max_size=3).map(
        lambda xs: sorted(xs, reverse=True)
    ),
)
def test_passes_with_shrinking_budgets_keep_every_message_and_every_page(
    turns: int, seed: int, shares: list[float], claude: Target
) -> None:
    source = work(turns, seed)
    current = source
    before = claude.tokens(source.path())
    for share in shares:
        result = run_ladder(current, claude, int(before * share), options=NO_ELIDE)
        current = result.conversation
        assert not _placeholders(current)  # no placeholder ever stands for a page
        _holds_every_message(source, current, claude)
        snaps = [m for m in current.path() if is_snapshot(m)]
        assert len(snaps) <= 1
        if snaps:
            # The caption counts the pages that really follow it.
            counted = sum(
                int(t.split(" image(s)")[0].split()[-1])
                for t in _texts(snaps[0])
                if t.startswith("The ") and " image(s)" in t
            )
            assert counted == len(snaps[0].images())


def test_the_same_span_gives_byte_identical_pages_on_every_pass(claude: Target) -> None:
    conv = work(30)
    budget = claude.tokens(conv.path()) // 2
    once = run_ladder(conv, claude, budget, options=NO_ELIDE)
    again = run_ladder(conv, claude, budget, options=NO_ELIDE)
    assert _pages(once.conversation) == _pages(again.conversation)
    assert _pages(once.conversation)
    # A second pass over the result with the same budget changes nothing.
    twice = run_ladder(once.conversation, claude, budget, options=NO_ELIDE)
    assert _pages(twice.conversation) == _pages(once.conversation)


def test_a_wider_pass_keeps_the_earlier_pages_as_the_prefix(claude: Target) -> None:
    """The prompt cache's prefix holds: earlier pages are redrawn into the same bytes."""
    conv = work(40)
    before = claude.tokens(conv.path())
    # A first pass with a long verbatim tail, then one that images most of that tail.
    wide_tail = replace(NO_ELIDE, sheets=SheetOptions(tail_share=0.6))
    short_tail = replace(NO_ELIDE, sheets=SheetOptions(tail_share=0.1))
    first = run_ladder(conv, claude, int(before * 0.8), options=wide_tail).conversation
    second = run_ladder(first, claude, int(before * 0.4), options=short_tail).conversation
    old, new = _pages(first), _pages(second)
    assert old and len(new) > len(old)
    assert [png for png, _ in new[: len(old)]] == [png for png, _ in old]
    (snap,) = [m for m in second.path() if is_snapshot(m)]
    (earlier,) = [m for m in first.path() if is_snapshot(m)]
    assert segments_of(snap)[: len(segments_of(earlier))] == segments_of(earlier)
    # The guide of the first segment is byte-identical too: it comes before its pages.
    assert snap.blocks[0] == earlier.blocks[0]


@pytest.mark.corpus
@needs_repro
def test_a_second_pass_on_the_repro_keeps_its_pages(claude: Target) -> None:
    from snapshot.transcript.formats import import_path

    [conv] = import_path(REPRO)
    free = LadderOptions(rungs=FREE_RUNGS)
    before = claude.tokens(conv.path())
    first = run_ladder(conv, claude, before // 2, options=free)
    assert "snapshot" in first.rungs_taken
    pages = _pages(first.conversation)
    second = run_ladder(first.conversation, claude, first.tokens_after // 2, options=free)
    out = second.conversation
    assert not _placeholders(out)
    assert "drop_images" not in second.rungs_taken
    # The first pass's pages are still in the request: kept byte for byte, or (where one
    # more segment would not pay) redrawn with the newly imaged messages from their text.
    assert _pages(out) and (
        {png for png, _ in pages} <= {png for png, _ in _pages(out)}
        or len(segments_of(next(m for m in out.path() if is_snapshot(m)))) == 1
    )
    # What the pages hold reads back: the first pass's imaged source text, in full.
    (snap,) = [m for m in first.conversation.path() if is_snapshot(m)]
    assert normalize(str(snap.meta["source_text"])).text in _decoded(out, claude)


def test_compact_offline_never_sends_a_modelled_summary(claude: Target) -> None:
    conv = agent_run(40)
    tight = 50
    for limit in (None, 200_000):
        outcome = compact(conv, MODEL, tight, CompactOptions(provider_limit=limit))
        assert not outcome.result.fits
        assert outcome.result.summary is None
        assert not any(m.meta.get("kind") == "summary" for m in outcome.result.conversation.path())
        assert "modelled only" not in str(outcome.body)


def test_recovery_plans_to_the_providers_limit_less_a_margin(claude: Target) -> None:
    conv = work(40)
    before = claude.tokens(conv.path())
    exact = SimulatedProvider(limit=10**9, image_tokens=claude.image_tokens)
    floor = run_ladder(conv, claude, 1, options=LadderOptions(rungs=FREE_RUNGS)).conversation
    limit = (exact.count(conv.path()) + exact.count(floor.path())) // 2
    provider = SimulatedProvider(limit=limit, image_tokens=claude.image_tokens)
    # The user's budget alone needs no rung; the provider's limit does.
    result = recover(conv, claude, before * 2, provider)
    assert provider(result.conversation.path()) is None
    assert result.fits and result.rungs_taken
    step = result.steps[0]
    assert step.rung == "recover"
    assert step.data["planned_budget"] == int(step.data["provider_limit"] * 0.95)


def test_fits_is_never_true_beside_a_rejection(claude: Target) -> None:
    conv = agent_run(10)

    def never(messages: object) -> Rejection:
        return Rejection(counted=10**6, limit=10**6 - 1, message="prompt is too long")

    result = recover(conv, claude, 10**9, never, attempts=1)
    assert result.failure == "provider still rejects: prompt is too long"
    assert not result.fits


def test_drop_images_never_touches_snapshot_pages(claude: Target) -> None:
    from snapshot.ladder.images import drop_images

    conv = work(30)
    snapped = run_ladder(conv, claude, claude.tokens(conv.path()) // 2, options=NO_ELIDE)
    out = drop_images(snapped.conversation, keep_turns=0)
    assert out.record.changed == 0
    assert _pages(out.conversation) == _pages(snapped.conversation)


def test_turn_starts_ignore_a_snapshot_message() -> None:
    from snapshot.ladder.record import turn_starts

    path = [
        Message("u", None, "user", ()),
        Message("s", "u", "user", (), {"kind": "snapshot", "source_text": ""}),
    ]
    assert turn_starts(path) == [0]
