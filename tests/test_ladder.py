"""Ladder invariants on real-shaped and random conversations.

Output is a valid provider request, the budget is met or the failure stated,
head and tail are byte-identical to the source, the same input gives the same
pages, the reactive path needs no model call, and a reader without vision
never receives an image.
"""

from __future__ import annotations

import os
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from ladder_helpers import agent_run, random_runs

from snapshot.errors import UnknownModelError
from snapshot.ladder.cut import find_cut
from snapshot.ladder.ladder import LadderOptions, LadderResult, recover, run_ladder
from snapshot.ladder.provider import SimulatedProvider
from snapshot.ladder.sheets import SheetOptions, is_snapshot, snapshot
from snapshot.ladder.summary import corpus_summarizer
from snapshot.ladder.target import Target, target_for
from snapshot.report.sources import corpus_sources, demo_sources, read_manifest
from snapshot.transcript.export import export_anthropic, export_openai
from snapshot.transcript.model import Conversation, tool_pairing


@pytest.fixture(scope="module")
def claude() -> Target:
    return target_for("claude-sonnet-4-5")


@pytest.fixture(scope="module")
def gemini() -> Target:
    return target_for("gemini-3-pro-preview")


@pytest.fixture(scope="module")
def blind() -> Target:
    return target_for("o3-mini")


@pytest.fixture(scope="module")
def coding() -> Conversation:
    return next(s.conversation for s in demo_sources() if "coding" in s.id)


@pytest.fixture(scope="module")
def browsing() -> Conversation:
    return next(s.conversation for s in demo_sources() if "browse" in s.id)


def _content(messages: object) -> list[tuple[object, ...]]:
    """What a provider receives of each message (the parent link is bookkeeping)."""
    return [(m.id, m.role, m.blocks, m.meta) for m in messages]  # type: ignore[attr-defined]


def _valid_request(conv: Conversation) -> None:
    assert tool_pairing(conv.path()).ok
    for exported in (export_anthropic(conv), export_openai(conv)):
        assert not [n for n in exported.notes if "orphan" in n or "unanswered" in n], exported.notes
    roles = [m["role"] for m in export_anthropic(conv).body["messages"]]
    assert all(a != b for a, b in pairwise(roles)), roles
    assert roles[0] == "user"


def test_snapshot_keeps_head_and_tail_byte_identical(coding: Conversation, claude: Target) -> None:
    res = snapshot(coding, claude, SheetOptions(keep_turns=2))
    src, out = coding.path(), res.conversation.path()
    head, middle, tail = find_cut(src, keep_turns=2, tail_share=0.2).split(src)
    assert res.pages and middle
    assert _content(out[: len(head)]) == _content(head)
    assert _content(out[len(out) - len(tail) :]) == _content(tail)
    (snap,) = [m for m in out if is_snapshot(m)]
    assert len(snap.images()) == len(res.pages)
    assert "page" in snap.text() and "resumes" in snap.text()
    _valid_request(res.conversation)


def test_same_input_gives_the_same_pages(coding: Conversation, claude: Target) -> None:
    a = snapshot(coding, claude)
    b = snapshot(coding, claude)
    assert [p.png() for p in a.pages] == [p.png() for p in b.pages]
    assert a.conversation.path()[1].id == b.conversation.path()[1].id


def test_a_second_pass_redraws_from_the_retained_source(
    coding: Conversation, claude: Target
) -> None:
    once = snapshot(coding, claude, SheetOptions(keep_turns=4)).conversation
    twice = snapshot(once, claude, SheetOptions(keep_turns=1))
    (snap,) = [m for m in twice.conversation.path() if is_snapshot(m)]
    (first,) = [m for m in once.path() if is_snapshot(m)]
    # The new source starts with the old source text: redrawn from text, never from pixels.
    assert str(snap.meta["source_text"]).startswith(str(first.meta["source_text"]))
    assert len(snap.meta["covers"]) > len(first.meta["covers"])


def test_ladder_meets_the_budget_or_says_why(coding: Conversation, claude: Target) -> None:
    before = claude.tokens(coding.path())
    result = run_ladder(coding, claude, int(before * 0.7))
    assert result.fits and result.failure is None
    assert "snapshot" in result.rungs_taken or "elide" in result.rungs_taken
    _valid_request(result.conversation)
    impossible = run_ladder(coding, claude, 10)
    assert not impossible.fits
    assert impossible.failure and "budget" in impossible.failure


def test_free_rungs_come_before_the_summary(coding: Conversation, claude: Target) -> None:
    result = run_ladder(coding, claude, int(claude.tokens(coding.path()) * 0.9))
    assert "summary" not in result.rungs_taken
    assert result.model_calls == 0


def test_a_reader_without_vision_never_gets_an_image(browsing: Conversation, blind: Target) -> None:
    assert not blind.vision
    assert any(m.images() for m in browsing.path())
    for budget in (10**9, blind.tokens(browsing.path()) // 2):
        result = run_ladder(browsing, blind, budget)
        assert not any(m.images() for m in result.conversation.path())
        assert not result.pages


def test_reactive_recovery_needs_no_model_call(coding: Conversation, claude: Target) -> None:
    # The estimate (characters per token) says it fits as it is; the provider counts
    # exactly, by its own rule, and refuses.
    estimate = claude.tokens(coding.path())
    exact = SimulatedProvider(limit=10**9, image_tokens=claude.image_tokens).count(coding.path())
    provider = SimulatedProvider(limit=int(exact * 0.9), image_tokens=claude.image_tokens)
    result = recover(coding, claude, estimate, provider)
    assert provider(result.conversation.path()) is None
    assert result.model_calls == 0 and result.summary is None
    assert result.steps[0].rung == "recover"
    assert result.correction != 1.0


def test_pages_over_the_byte_budget_are_refused(coding: Conversation, claude: Target) -> None:
    tiny = replace(claude, max_image_bytes=100)
    res = snapshot(coding, tiny)
    assert res.conversation.path() == coding.path()
    assert res.record.data["refused"] == "max_image_bytes"
    few = replace(claude, max_images=0)
    assert snapshot(coding, few).record.data["refused"] == "max_images"


def test_no_middle_is_a_clear_note(claude: Target) -> None:
    tiny = agent_run(0)
    res = snapshot(tiny, claude)
    assert res.conversation == tiny or res.conversation.path() == tiny.path()
    assert res.record.notes and "middle" in res.record.notes[0]


def test_unknown_model_is_a_clear_error() -> None:
    with pytest.raises(UnknownModelError):
        target_for("no-such-model-9000")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_runs())
def test_ladder_invariants_on_random_runs(conv: Conversation) -> None:
    target = target_for("gpt-5.1")
    before = target.tokens(conv.path())
    budget = max(1, before // 3)
    result = run_ladder(conv, target, budget, options=LadderOptions(keep_turns=1))
    _exact_outcome(result, target, before, budget)
    assert tool_pairing(result.conversation.path()).orphan_results == ()
    src, out = conv.path(), result.conversation.path()
    assert out[0].id == src[0].id and out[0].blocks == src[0].blocks
    assert out[-1].blocks == src[-1].blocks


def _exact_outcome(result: LadderResult, target: Target, before: int, budget: int) -> None:
    """What a ladder result must say, exactly: its counts, and a reason iff over budget."""
    assert (result.tokens_before, result.budget) == (before, budget)
    assert result.fits == (result.tokens_after <= budget)
    if result.summary is None:
        # Free rungs only: the figure is the count of what would be sent.
        assert result.tokens_after == target.tokens(result.conversation.path())
    if target.vision:
        # No rung grows the request (a blind reader's image placeholders may: they must be sent).
        assert result.tokens_after <= before or result.rungs_taken == ()
    if result.fits:
        assert result.failure is None
    else:
        assert result.failure and f"{budget:,}" in result.failure, result.failure


def _corpus_manifest() -> Path | None:
    env = os.environ.get("SNAPSHOT_CORPUS")
    root = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    manifest = root / "benchmark.manifest.json"
    return manifest if manifest.is_file() else None


MANIFEST = _corpus_manifest()
# One real conversation per kind of log: a Claude Code session that really compacted,
# a mini-swe-agent run, a tau-bench chat and a WebVoyager run with screenshots.
REAL = (
    "claude_code_long_with_real_compaction",
    "swe_mini_swe_agent_gemini3pro",
    "tau_bench_customer_service",
    "images_webvoyager",
)


@pytest.mark.corpus
@pytest.mark.skipif(
    MANIFEST is None,
    reason="benchmark corpus not found: set SNAPSHOT_CORPUS or put it at ../shared/corpus",
)
@pytest.mark.parametrize("category", REAL)
def test_ladder_invariants_on_real_conversations(
    category: str, claude: Target, blind: Target
) -> None:
    assert MANIFEST is not None
    entries = read_manifest(MANIFEST)
    index = next(i for i, e in enumerate(entries) if e["category"] == category)
    (source,) = corpus_sources(MANIFEST, start=index, limit=1)
    conv = source.conversation
    for target in (claude, blind):
        before = target.tokens(conv.path())
        result = run_ladder(conv, target, before // 3)
        _exact_outcome(result, target, before, before // 3)
        _valid_request(result.conversation)
        src, out = conv.path(), result.conversation.path()
        assert _content(out[:1]) == _content(src[:1])
        assert _content(out[-1:]) == _content(src[-1:])
        if not target.vision:
            assert not any(m.images() for m in out)
    if source.has_real_summary:
        assert corpus_summarizer(conv) is not None
