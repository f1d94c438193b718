"""Every model id of the price database resolves to its own row, a declared family, or nothing."""

from __future__ import annotations

import pytest
from genai_prices import data_snapshot

from snapshot.billing import providers
from snapshot.errors import UnknownModelError
from snapshot.profiles import profile_for, resolve_id

_PROVIDERS = ("anthropic", "openai", "google", "x-ai", "mistral")


def _db_ids() -> list[tuple[str, str]]:
    snap = data_snapshot.get_snapshot()
    return [(p.id, m.id) for p in snap.providers if p.id in _PROVIDERS for m in p.models]


@pytest.mark.parametrize(("provider", "model_id"), _db_ids())
def test_database_id_resolves_to_itself_a_declared_family_or_nothing(
    provider: str, model_id: str
) -> None:
    found = resolve_id(model_id)
    if found is None:
        with pytest.raises(UnknownModelError, match="nearest current ids: "):
            profile_for(model_id)
        return
    row = found.model.model
    if found.resolved_by == "exact":
        assert row == model_id.lower()
    elif found.resolved_by == "alias":
        assert providers.ALIASES[found.inner_id][0] == row
    elif found.resolved_by == "dated":
        assert found.inner_id.startswith(row) or found.inner_id in providers.ALIASES
    elif found.resolved_by == "prefix":
        assert found.prefix_family in providers.PREFIXES
        assert providers.PREFIXES[found.prefix_family] == row
    else:
        assert found.resolved_by == "variant"
    # Whatever the image scheme, the dollars are the id's own database row.
    price = profile_for(model_id, warn=False).price("2026-12-01")
    if price is not None:
        snap = data_snapshot.get_snapshot()
        _, info = snap.find_provider_model(model_id, None, price.provider, None)
        assert price.matched_model == info.id


def test_no_table_prefix_spans_models_with_different_prices() -> None:
    # The only prefixes allowed are open-weight families with no list price at all.
    assert set(providers.PREFIXES) == {"qwen2-vl-", "qwen2.5-vl-", "qwen3-vl-"}


@pytest.mark.parametrize(
    ("model_id", "row", "how"),
    [
        ("gpt-5-pro", "gpt-5-pro", "exact"),
        ("o3-pro", "o3-pro", "exact"),
        ("gpt-5.6", "gpt-5.6-sol", "alias"),
        ("claude-opus-4-5-20251101", "claude-opus-4-5", "dated"),
        ("claude-opus-4-6[1m]", "claude-opus-4-6", "variant"),
        ("claude-opus-4-5@latest", "claude-opus-4-5", "exact"),
        ("grok-4-0709", "grok-4", "dated"),
        ("qwen3-vl-32b-instruct", "qwen3-vl", "prefix"),
        (
            "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-opus-5-5",
            "claude-opus-5-5",
            "exact",
        ),
    ],
)
def test_resolution_rules(model_id: str, row: str, how: str) -> None:
    found = resolve_id(model_id)
    assert found is not None and (found.model.model, found.resolved_by) == (row, how)


@pytest.mark.parametrize(
    "model_id",
    ["gpt-4o-audio-preview", "gemini-2.5-flash-preview", "grok-4.5-fast", "claude-sonnet"],
)
def test_siblings_are_not_guessed(model_id: str) -> None:
    assert resolve_id(model_id) is None
