"""profile_for: exact ids, aliases, dated ids, gateway routes, unknown ids, text-only models."""

from __future__ import annotations

import pytest

import snapshot
from snapshot.billing import providers
from snapshot.billing.providers import ALIASES, MODELS, PREFIXES
from snapshot.errors import InputError, UnknownModelError
from snapshot.profiles import (
    Profile,
    all_profiles,
    fallback_profile,
    image_tokens,
    profile_for,
    resolve,
)


@pytest.mark.parametrize(
    ("model_id", "canonical", "route"),
    [
        ("claude-sonnet-4-5", "claude-sonnet-4-5", "anthropic"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5", "anthropic"),
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5", "anthropic"),
        ("Claude-Opus-4-7", "claude-opus-4-7", "anthropic"),
        # Bedrock: bare, versioned, and cross-region inference profiles.
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5", "bedrock"),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5", "bedrock"),
        ("eu.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5", "bedrock"),
        ("apac.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5", "bedrock"),
        ("global.anthropic.claude-opus-4-6-v1", "claude-opus-4-6", "bedrock"),
        ("anthropic.claude-opus-4-7", "claude-opus-4-7", "bedrock"),
        ("bedrock/us.anthropic.claude-opus-4-7", "claude-opus-4-7", "bedrock"),
        # Vertex: @date and dateless.
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5", "vertex"),
        ("claude-opus-4-5@20251101", "claude-opus-4-5", "vertex"),
        ("vertex_ai/claude-opus-4-7", "claude-opus-4-7", "vertex"),
        # OpenRouter and provider/model strings (dotted versions).
        ("anthropic/claude-sonnet-4.5", "claude-sonnet-4-5", "openrouter"),
        ("anthropic/claude-opus-4.7", "claude-opus-4-7", "openrouter"),
        ("openrouter/anthropic/claude-sonnet-4.5", "claude-sonnet-4-5", "openrouter"),
        ("openai/gpt-4.1", "gpt-4.1", "openrouter"),
        ("google/gemini-2.5-pro", "gemini-2.5-pro", "openrouter"),
        ("deepseek/deepseek-chat", "deepseek-chat", "openrouter"),
        # Dated and undated OpenAI / Google ids.
        ("gpt-4o-2024-08-06", "gpt-4o", "openai"),
        ("gpt-4o-mini-2024-07-18", "gpt-4o-mini", "openai"),
        ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini", "openai"),
        ("gpt-5-mini-2025-08-07", "gpt-5-mini", "openai"),
        ("o3-mini-2025-01-31", "o3-mini", "openai"),
        ("gemini-2.0-flash-001", "gemini-2.0-flash", "google"),
        ("pixtral-12b-2409", "pixtral-12b", "mistral"),
        ("qwen2.5-vl-72b-instruct", "qwen2.5-vl", "qwen"),
        # LiteLLM-style vendor prefixes for the vendor's own API, and retired Claude 3.x.
        ("gemini/gemini-2.5-pro", "gemini-2.5-pro", "google"),
        ("xai/grok-4", "grok-4", "xai"),
        ("claude-3-5-sonnet-20241022", "claude-3-5-sonnet", "anthropic"),
        ("anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet", "bedrock"),
        ("claude-3-7-sonnet@20250219", "claude-3-7-sonnet", "vertex"),
    ],
)
def test_resolution(model_id: str, canonical: str, route: str) -> None:
    p = profile_for(model_id)
    assert (p.canonical, p.route) == (canonical, route)
    assert p.model == model_id


def test_every_table_entry_resolves() -> None:
    for name in MODELS:
        assert profile_for(name).canonical == name
    for alias, (target, _) in ALIASES.items():
        assert profile_for(alias).canonical == target
    for prefix, target in PREFIXES.items():
        assert profile_for(prefix + ("x" if prefix.endswith("-") else "")).canonical == target


def test_every_route_resolves_a_claude_model() -> None:
    shapes = {
        "bedrock": ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock"),
        "vertex": ("claude-sonnet-4-5@20250929", "vertex"),
        "openrouter": ("anthropic/claude-sonnet-4.5", "openrouter"),
        "direct": ("gemini/gemini-2.5-pro", "google"),
        "azure": ("azure/gpt-6-sol", "azure"),
    }
    assert set(shapes) == {r.name for r in providers.ROUTES}
    for model_id, route in shapes.values():
        assert profile_for(model_id).route == route


@pytest.mark.parametrize("route", providers.ROUTES, ids=lambda r: r.pattern.pattern[:30])
def test_every_route_row_matches_its_own_example(route: providers.Route) -> None:
    examples = {
        "bedrock": [
            "global.anthropic.claude-opus-4-7",
            "global.openai.gpt-6.1-sol",
            "bedrock/anthropic.claude-haiku-4-5-20251001-v1:0",
            "arn:aws:bedrock:us-east-1:123456789012:inference-profile/"
            "us.anthropic.claude-opus-4-5-20251101-v1:0",
        ],
        "vertex": [
            "claude-haiku-4-5@20251001",
            "vertex_ai/claude-sonnet-4-6",
            "vertex_ai/gemini-3.8-flash",
        ],
        "openrouter": ["openrouter/openai/gpt-5.4", "x-ai/grok-4.5"],
        "direct": ["mistral/pixtral-12b-2409", "xai/grok-4"],
        "azure": ["azure/gpt-6-sol"],
    }[route.name]
    assert any(route.pattern.match(e) for e in examples)
    for e in examples:
        assert resolve(e) is not None, e


def test_model_decides_geometry_route_decides_limits() -> None:
    direct = profile_for("claude-sonnet-4-5")
    bedrock = profile_for("us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    openrouter = profile_for("anthropic/claude-sonnet-4.5")
    assert direct.scheme == bedrock.scheme == openrouter.scheme
    assert direct.font == bedrock.font == openrouter.font
    assert direct.limits.max_image_bytes == 10 * 1024 * 1024
    # Bedrock: 5 MB per image, and the Converse API's 3.75 MB / 20 images (the id does not
    # say which Bedrock API is used, so the stricter applies).
    assert bedrock.limits.max_image_bytes == 3_750_000
    assert bedrock.limits.max_request_bytes == 20_000_000
    assert bedrock.limits.max_images == 20
    assert openrouter.limits.max_images == 20  # its per-request image cap
    assert profile_for("claude-sonnet-4-5@20250929").limits.max_request_bytes == 30_000_000


def test_high_res_tier_follows_the_model_on_every_route() -> None:
    for model_id in ("claude-opus-4-7", "anthropic.claude-opus-4-7", "anthropic/claude-opus-4.7"):
        assert profile_for(model_id).scheme.max_tokens == 4784  # type: ignore[attr-defined]


@pytest.mark.parametrize("model_id", ["o1-mini", "o3-mini", "deepseek-chat", "gpt-3.5-turbo"])
def test_text_only_models_cannot_see(model_id: str) -> None:
    p = profile_for(model_id)
    assert not p.vision
    with pytest.raises(InputError, match="no vision"):
        p.solution()
    with pytest.raises(InputError, match="no vision"):
        image_tokens(p, 100, 100)
    record = p.as_dict()
    assert record["vision"] is False and record["page"] is None


def test_unknown_model_names_nearest_current_ids_and_what_to_do() -> None:
    with pytest.raises(UnknownModelError) as info:
        profile_for("claude-sonet-5-5")
    msg = str(info.value)
    assert "claude-sonet-5-5" in msg and "nearest current ids: claude-sonnet-5-5" in msg
    assert "fallback" in msg and "--profile" in msg
    assert "\n" not in msg
    assert resolve("llama-9-vision") is None


def test_fallback_only_when_asked() -> None:
    p = profile_for("llama-9-vision", fallback=True)
    assert p.fallback and p.family == "fallback" and p.model == "llama-9-vision"
    assert p.font == "snap8x16"
    assert p.limits.max_images == 20
    assert fallback_profile().scheme.label == "uncertain"


def test_image_tokens_by_id_and_profile() -> None:
    assert image_tokens("claude-sonnet-4-5", 1920, 1080) == 1560
    assert image_tokens("claude-opus-4-7", 1920, 1080) == 2691
    assert image_tokens("gpt-4o", 1024, 1024) == 765
    assert image_tokens("gpt-5.4", 1024, 1024) == 1229
    # The profile uses detail 'original' (10 000 patches): 64x64 patches x 1.2, no shrink.
    assert image_tokens("gpt-5.4", 2048, 2048) == 4916
    assert image_tokens("gemini-3.6-flash", 4096, 512) == 1120
    assert image_tokens(profile_for("gemini-2.5-pro"), 960, 540) == 6 * 258


def test_public_surface() -> None:
    assert snapshot.profile_for is profile_for
    assert snapshot.image_tokens is image_tokens
    assert snapshot.Profile is Profile


def test_all_profiles_one_per_model() -> None:
    profiles = all_profiles()
    assert [p.canonical for p in profiles] == list(MODELS)


def test_detail_levels() -> None:
    # gpt-5.4: the docs' worked examples are at detail 'high'; the profile reads at 'original'.
    assert profile_for("gpt-5.4").scheme.detail == "original"  # type: ignore[attr-defined]
    high = profile_for("gpt-5.4", detail="high")
    assert high.image_tokens(1024, 1024) == 1229 and high.image_tokens(2048, 2048) == 3000
    assert profile_for("gpt-5.4", detail="auto").scheme == high.scheme  # auto = high on 5.4
    assert (
        profile_for("gpt-5.5", detail="auto").scheme == profile_for("gpt-5.5").scheme
    )  # = original
    assert profile_for("gpt-5.6-sol", detail="low").scheme.seen(2048, 2048) == (512, 512)
    assert profile_for("gpt-4o", detail="low").image_tokens(4000, 3000) == 85
    for level, budget in (("low", 280), ("medium", 560), ("high", 1120), ("ultra_high", 2240)):
        assert profile_for("gemini-3.6-flash", detail=level).image_tokens(1568, 728) == budget
    with pytest.raises(InputError, match="no detail level"):
        profile_for("gpt-4o", detail="original")
    with pytest.raises(InputError, match="no detail levels"):
        profile_for("claude-sonnet-4-5", detail="high")


def test_detail_level_pages_are_unresampled() -> None:
    for model, (levels, _) in providers.DETAIL_LEVELS.items():
        for level in levels:
            p = profile_for(model, detail=level)
            w, h = p.solution().size
            assert p.scheme.seen(w, h) == (w, h), (model, level)


@pytest.mark.parametrize(
    ("model_id", "canonical", "vision"),
    [
        ("o1-preview-2024-09-12", "o1-preview", False),  # not o1, which can see
        ("o1-2024-12-17", "o1", True),
        ("gpt-4-0613", "gpt-4", False),
        ("gpt-3.5-turbo-0125", "gpt-3.5-turbo", False),
        ("claude-3-7-sonnet-latest", "claude-3-7-sonnet", True),
    ],
)
def test_suffixes_are_stripped_one_at_a_time(model_id: str, canonical: str, vision: bool) -> None:
    p = profile_for(model_id)
    assert (p.canonical, p.vision) == (canonical, vision)


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "gpt-6.1-sol", "gemini-3.8-flash"])
def test_profiles_json_states_the_layout_and_the_evidence_it_rests_on(model: str) -> None:
    record = profile_for(model, warn=False).as_dict()
    # every part of the layout is in the record, not only the font's name
    assert {"font_size", "shade", "col_gap", "row_gap", "ink"} <= set(record)
    w, h = record["page"]
    assert record["chars_per_kpx"] == round(1000 * record["chars_per_page"] / (w * h), 2)
    # the reason is the default rule's verdict: what the layout rests on, and, resting on
    # nothing, how to add a model read
    from snapshot.profiles.readability import default_choice

    choice = default_choice(model)
    assert record["layout_reason"].startswith(f"{record['font']} {record['shade']}:")
    assert f"it rests on {choice['rests_on']}" in record["layout_reason"]
    probe = f"snapshot probe --model {model}" in record["layout_reason"]
    assert probe == (choice["kind"] == "none")


def test_a_model_without_vision_says_its_layout_is_unused() -> None:
    no_vision = next(m for m in MODELS if not profile_for(m, warn=False).vision)
    assert "reads no images" in profile_for(no_vision, warn=False).layout_reason()
