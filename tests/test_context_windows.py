"""Context windows per model: every row sourced and dated, GP rows equal to genai-prices' data,
ids resolved the way profile_for resolves them, unknown ids refused with near ids."""

from __future__ import annotations

import re

import pytest
from genai_prices import data as gp_data

from snapshot.billing import providers as tables
from snapshot.billing._context_windows import CONTEXT_WINDOWS
from snapshot.errors import SnapshotError, UnknownModelError
from snapshot.profiles import context_window, current_ids

_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def test_every_row_is_a_known_model_with_source_and_date() -> None:
    for model, window in CONTEXT_WINDOWS.items():
        assert model in tables.MODELS, model
        assert window.model == model
        assert window.tokens >= 1_000
        assert window.source.strip(), model
        assert _ISO.match(window.date), (model, window.date)


def test_genai_prices_rows_equal_the_bundled_data() -> None:
    """A row citing genai-prices holds exactly the window of the provider it names."""
    by_provider = {(p.id, m.id): m.context_window for p in gp_data.providers for m in p.models}
    cited = 0
    for model, window in CONTEXT_WINDOWS.items():
        m = re.search(r"provider '([\w-]+)'$", window.source)
        if m is None:
            continue
        cited += 1
        assert by_provider[(m.group(1), model)] == window.tokens, model
    assert cited >= 60


def test_every_current_claude_model_has_a_window() -> None:
    claude = [m for m in current_ids("2026-12-01") if m.startswith("claude-")]
    assert claude
    for model in claude:
        assert context_window(model) is not None, model


@pytest.mark.parametrize(
    ("model_id", "canonical", "tokens"),
    [
        ("claude-sonnet-4-6", "claude-sonnet-4-6", 1_000_000),
        ("us.anthropic.claude-sonnet-4-6", "claude-sonnet-4-6", 1_000_000),  # bedrock route
        ("anthropic/claude-opus-4.6", "claude-opus-4-6", 1_000_000),  # openrouter route
        ("claude-opus-4-5@20251101", "claude-opus-4-5", 200_000),  # vertex route
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5", 200_000),  # dated snapshot
        ("claude-sonnet-4-5[1m]", "claude-sonnet-4-5", 1_000_000),  # 1M variant
        ("gpt-4o", "gpt-4o", 128_000),
        ("gemini-3.5-flash", "gemini-3.5-flash", 1_000_000),
    ],
)
def test_ids_resolve_like_profile_for(model_id: str, canonical: str, tokens: int) -> None:
    window = context_window(model_id)
    assert window is not None
    assert (window.model, window.tokens) == (canonical, tokens)


def test_the_1m_variant_cites_its_own_source() -> None:
    plain, variant = context_window("claude-sonnet-4-5"), context_window("claude-sonnet-4-5[1m]")
    assert plain is not None and variant is not None
    assert plain.tokens == 200_000 and variant.tokens == 1_000_000
    assert variant.source != plain.source


def test_known_model_without_a_stated_window_is_none() -> None:
    assert "grok-4" in tables.MODELS
    assert context_window("grok-4") is None


def test_unknown_id_is_refused_naming_near_ids() -> None:
    with pytest.raises(UnknownModelError) as caught:
        context_window("claude-sonet-5-5")
    assert isinstance(caught.value, SnapshotError)
    assert "claude-sonnet-5-5" in str(caught.value)
