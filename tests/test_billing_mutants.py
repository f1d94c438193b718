"""Billing assertions written to kill mutants the mutation run found alive (tests/README.md).

Each test pins a value the other billing tests never looked at: the candidate sides
the solver searches, the shrink branches of the schemes, the detail-level tables,
the price matcher's clause kinds and the table validator's messages.
"""

from __future__ import annotations

import dataclasses

import pytest

from snapshot.billing import _models, prices, providers
from snapshot.billing.providers import DETAIL_LEVELS, MODELS
from snapshot.billing.refusals import RequestRefused
from snapshot.billing.rows import Fact, TableError, TextTokenizer
from snapshot.billing.schemes import (
    AnthropicArea,
    GeminiFlat,
    GeminiTiles,
    GrokPatches,
    MistralPatches,
    OpenAIPatches,
    OpenAITiles,
    QwenPatches,
    qwen_smart_resize,
)
from snapshot.billing.text_tokens import count_text

# --------------------------------------------------------------------------- sides


def test_sides_are_the_patch_multiples_up_to_the_limit() -> None:
    assert AnthropicArea().sides(100) == (28, 56, 84)
    assert MistralPatches().sides(48) == (16, 32, 48)  # the limit itself is a side
    assert QwenPatches().sides(60) == (28, 56)
    assert QwenPatches(factor=32).sides(64) == (32, 64)
    assert GrokPatches().sides(100) == (32, 64, 96)
    assert OpenAIPatches().sides(100) == (32, 64, 96)
    assert GeminiTiles().sides(1200) == (384, 768, 1152)
    assert OpenAITiles().sides(1100) == (512, 1024)
    assert GeminiFlat().sides(20) == (8, 16, 20)


def test_sides_stop_at_the_largest_size_the_scheme_accepts() -> None:
    assert AnthropicArea().sides(10_000)[-1] == 1568
    assert MistralPatches().sides(10_000)[-1] == 1024
    assert OpenAIPatches(max_side=2048).sides(10_000)[-1] == 2048
    assert GeminiTiles().sides(10_000)[-1] == 3072
    assert OpenAITiles().sides(10_000) == (512, 1024, 1536, 2048)
    assert OpenAITiles(detail="low").sides(10_000) == (512,)


# --------------------------------------------------------------------------- shrink branches


def test_shrink_branches_give_the_exact_sizes() -> None:
    assert AnthropicArea().seen(1500, 1500) == (1095, 1095)  # over the ~1600-token area
    assert qwen_smart_resize(10, 10) == (56, 56)  # under min_pixels: scaled up
    assert GrokPatches().seen(4000, 4000) == (1344, 1344)
    s = OpenAIPatches(patch_budget=1536)
    assert s.seen(2048, 1000) == (1769, 864)
    assert s.seen(1000, 2048) == (864, 1769)
    assert OpenAITiles().seen(2048, 1024) == (1536, 768)  # wide: the short side is the height
    assert OpenAITiles().seen(1024, 2048) == (768, 1536)
    # one pixel wide stays one pixel wide (the max(1, ...) floor, not 2)
    assert GeminiTiles(tile=256).seen(1, 1000) == (1, 1000)


def test_a_refused_image_names_the_rule() -> None:
    s = OpenAIPatches(patch_budget=None, max_side=100_000, reject_patches=30_000)
    with pytest.raises(RequestRefused, match="30,000-patch limit") as err:
        s.seen(6000, 6000)
    assert err.value.rule == "openai-30000-patch-limit"


# --------------------------------------------------------------------------- detail levels


def test_every_detail_level_is_named_for_its_scheme() -> None:
    for model, (levels, _) in DETAIL_LEVELS.items():
        assert "auto" in levels, model
        assert levels["auto"] in [s for name, s in levels.items() if name != "auto"], model
        for name, scheme in levels.items():
            if name != "auto":
                assert name == getattr(scheme, "detail", getattr(scheme, "level", None)), model
        if isinstance(levels["high"], OpenAITiles):
            assert set(levels) == {"low", "high", "auto"}
            low, high = levels["low"], levels["high"]
            assert (low.base, low.per_tile) == (high.base, high.per_tile), model
        if isinstance(levels["high"], GeminiFlat):
            budgets = {n: s.budget for n, s in levels.items()}
            assert budgets == {
                "low": 280,
                "medium": 560,
                "high": 1120,
                "ultra_high": 2240,
                "auto": 1120,
            }


def test_patch_levels_keep_their_own_sizes() -> None:
    levels, _ = DETAIL_LEVELS["gpt-5.5"]
    assert {n: type(s) for n, s in levels.items()} == dict.fromkeys(
        ("low", "high", "original", "auto"), OpenAIPatches
    )
    for name in ("low", "high", "original"):
        s = levels[name]
        assert isinstance(s.max_side, int) and s.max_side >= 512, name
        assert s.multiplier == levels["high"].multiplier
    assert levels["auto"] is levels["original"]
    assert DETAIL_LEVELS["gpt-5.4"][0]["auto"] is DETAIL_LEVELS["gpt-5.4"][0]["high"]


def test_claude_rows_carry_their_scheme_fact_and_lifecycle() -> None:
    for m in MODELS.values():
        if m.family.startswith("claude") and m.scheme != _models.CLAUDE_HIGH_RES:
            continue
        if m.scheme == _models.CLAUDE_HIGH_RES:
            assert m.family.startswith("claude"), m.model
            assert m.fact is not None and m.lifecycle is not None, m.model
            assert m.lifecycle.fact is not None, m.model
    std = MODELS["claude-sonnet-4"]
    assert std.family == "claude-standard" and std.fact is not None
    benchmark = sorted(
        m.model for m in MODELS.values() if m.benchmark and m.scheme == _models.CLAUDE_HIGH_RES
    )
    assert benchmark == ["claude-sonnet-5", "claude-sonnet-5-5"]
    assert not MODELS["claude-opus-4-7"].benchmark


# --------------------------------------------------------------------------- prices


def _clause(kind: str, **fields: object) -> object:
    attrs = {k: staticmethod(v) if callable(v) else v for k, v in fields.items()}
    return type(kind, (), attrs)()


def test_own_match_by_clause_kind() -> None:
    eq = _clause("ClauseEquals", equals="GPT-4o")
    assert prices._own_match(eq, "gpt-4o")
    assert not prices._own_match(eq, "gpt-4o-mini")
    rx = _clause("ClauseRegex", is_match=lambda ref: ref.endswith("-x"))
    assert prices._own_match(rx, "a-x") and not prices._own_match(rx, "a-y")
    sw = _clause("ClauseStartsWith", starts_with="Claude-Opus-4")
    assert prices._own_match(sw, "claude-opus-4-20250514")
    assert not prices._own_match(sw, "claude-opus-4-mini")
    both = _clause("ClauseAnd", and_=[sw, _clause("ClauseRegex", is_match=lambda r: "2025" in r)])
    assert prices._own_match(both, "claude-opus-4-20250514")
    assert not prices._own_match(both, "claude-opus-4-20240514")
    assert not prices._own_match(_clause("ClauseAnd", and_=[eq, sw]), "gpt-4o")
    either = _clause("ClauseOr", or_=[eq, sw])
    assert prices._own_match(either, "gpt-4o") and not prices._own_match(either, "o3")
    # contains: only the clause's own string (Bedrock's global.openai.* rows), never a sibling
    own = _clause("ClauseContains", contains="global.openai.gpt-6-sol")
    assert prices._own_match(own, "global.openai.gpt-6-sol")
    assert not prices._own_match(own, "global.openai.gpt-6-sol-mini")
    assert not prices._own_match(_clause("ClauseContains", contains="gpt"), "my-gpt-x")
    assert not prices._own_match(_clause("ClauseEndsWith", ends_with="gpt"), "gpt")


def test_split_reads_plain_and_tiered_prices() -> None:
    assert prices._split(None) == (None, [])
    assert prices._split(3) == (3.0, [])
    tiered = _clause("TieredPrices", base=2, tiers=[_clause("Tier", start=200_000, price=4)])
    assert prices._split(tiered) == (2.0, [(200_000, 4.0)])


def test_price_record_keys() -> None:
    price = prices.price_for("gpt-4o")
    assert price is not None
    record = price.record()
    assert list(record) == [
        "model",
        "matched_model",
        "price_provider",
        "database",
        "input_per_mtok",
        "cache_write_5m_per_mtok",
        "cache_write_1h_per_mtok",
        "cache_read_per_mtok",
        "output_per_mtok",
        "long_context_tiers",
        "source",
        "label",
        "date",
        "priced_on",
        "tier",
        "tier_source",
        "inference_geo",
        "inference_geo_source",
        "cache_storage_per_mtok_hour",
        "cache_storage_source",
    ]
    assert record["price_provider"] == price.provider
    assert record["label"] == price.fact.label


# --------------------------------------------------------------------------- text and tables


def test_an_estimate_row_with_a_ctok_version_is_still_an_estimate() -> None:
    fact = Fact("test", "documented", "2026")
    row = TextTokenizer("estimate", fact, ctok_version="1.0", chars_per_token=4.0)
    n = count_text("x" * 10, row)
    assert (n.tokens, n.kind) == (3, "estimate")


def test_validate_tables_names_the_broken_row(monkeypatch: pytest.MonkeyPatch) -> None:
    good = MODELS["claude-sonnet-4"]
    bad_life = dataclasses.replace(good.lifecycle, released="2026-02-30")
    broken = {**MODELS, good.model: dataclasses.replace(good, lifecycle=bad_life)}
    monkeypatch.setattr(providers, "MODELS", broken)
    with pytest.raises(TableError, match=r"^claude-sonnet-4: lifecycle date"):
        providers.validate_tables()
    monkeypatch.setattr(providers, "MODELS", MODELS)
    stray = {
        **providers.TEXT_TOKENIZER_BY_MODEL,
        "no-such-model": providers.TEXT_TOKENIZER_BY_FAMILY["fallback"],
    }
    monkeypatch.setattr(providers, "TEXT_TOKENIZER_BY_MODEL", stray)
    with pytest.raises(TableError, match="unknown model 'no-such-model'"):
        providers.validate_tables()


def test_fit_within_refuses_an_unknown_rounding() -> None:
    from snapshot.billing.schemes import fit_within

    assert fit_within(1436, 962, 1024, 1024, rounding="round") == (1024, 686)
    assert fit_within(1436, 962, 1024, 1024) == (1024, 685)
    with pytest.raises(ValueError, match="rounding must be 'floor' or 'round'"):
        fit_within(1436, 962, 1024, 1024, rounding="ROUND")  # type: ignore[arg-type]


def test_qwen_tokens_are_a_whole_number() -> None:
    from snapshot.billing.schemes import QwenPatches

    tokens = QwenPatches().tokens(1568, 728)
    assert tokens == 1456 and type(tokens) is int  # a float would print as "1456.0"


def test_a_scheme_without_a_kind_is_a_clear_error() -> None:
    from snapshot.billing.schemes import scheme_from_dict
    from snapshot.errors import InputError

    with pytest.raises(InputError, match="unknown billing scheme kind None; use one of: "):
        scheme_from_dict({"max_edge": 2576})
