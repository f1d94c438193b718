"""The provider tables: provenance on every row, cross-references, measured bills."""

from __future__ import annotations

import re

import pytest

from snapshot.billing import prices, providers
from snapshot.billing.providers import (
    ALIASES,
    LIMIT_FACTS,
    MEASUREMENTS,
    MODELS,
    PREFIXES,
    Fact,
)
from snapshot.billing.schemes import LABELS, GeminiFlat
from snapshot.profiles.families import FAMILIES

DATE = re.compile(r"^(\d{4}(-\d{2}(-\d{2})?)?)$")


def _facts() -> list[Fact]:
    out: list[Fact] = [m.fact for m in MODELS.values()]
    out += [e.fact for f in FAMILIES.values() for e in f.evidence]
    out += [lf.fact for lf in LIMIT_FACTS]
    out += [fact for _, fact in ALIASES.values()]
    out += [r.fact for r in providers.ROUTES]
    out += [m.fact for m in MEASUREMENTS]
    out += [t.fact for t in providers.TEXT_TOKENIZER_BY_FAMILY.values()]
    out += [m.lifecycle.fact for m in MODELS.values() if m.lifecycle.fact is not None]
    return out


def test_every_row_has_source_label_and_date() -> None:
    facts = _facts()
    assert len(facts) > 100
    for fact in facts:
        assert fact.source.strip(), fact
        assert fact.label in LABELS, fact
        assert DATE.match(fact.date), fact


def test_every_scheme_has_a_label() -> None:
    for m in MODELS.values():
        assert m.scheme.label in LABELS


def test_tables_cross_reference() -> None:
    for target, _ in ALIASES.values():
        assert target in MODELS
    for target in PREFIXES.values():
        assert target in MODELS
    for m in MODELS.values():
        assert m.family in FAMILIES


def test_high_res_tier_is_claude_4_7_and_later() -> None:
    # A-vis2 (2026-09-23): "High-resolution | Claude 4.7 and later models | 2576 px | 4784".
    high = {m.model for m in MODELS.values() if getattr(m.scheme, "max_tokens", None) == 4784}
    version = re.compile(r"^claude-(?:opus|sonnet|haiku|fable|mythos)-(\d+)(?:-(\d))?$")
    for m in MODELS.values():
        if not m.model.startswith("claude-") or m.model.startswith("claude-3"):
            continue
        match = version.match(m.model)
        assert match, m.model
        major, minor = int(match.group(1)), int(match.group(2) or 0)
        assert (m.model in high) == ((major, minor) >= (4, 7)), m.model
    assert {"claude-opus-5", "claude-sonnet-5", "claude-haiku-5-5", "claude-fable-5-2"} <= high


def test_default_fonts_follow_reader_evidence() -> None:
    # Readers with published good 5x8 reads get the dense font; the rest get ~14 px text.
    dense = {name for name, f in FAMILIES.items() if f.font == "snap5x8"}
    assert dense == {"claude-fable", "gemini-3-flash"}
    for name in dense:
        assert any("5x8" in e.claim and e.fact.label == "measured" for e in FAMILIES[name].evidence)
    assert FAMILIES["claude-high-res"].font == "snap8x16"  # Opus 4.8: 1/4 exact at 5x8
    assert FAMILIES["openai-patches"].font == "snap8x16"  # gpt-5.6-sol: 0/4 at 5x8


def test_every_family_carries_evidence() -> None:
    for f in FAMILIES.values():
        assert f.evidence, f.name


@pytest.mark.parametrize("m", [m for m in MEASUREMENTS if m.model.startswith("claude")])
def test_measured_anthropic_clamps(m: providers.Measurement) -> None:
    # count_tokens adds 3-4 tokens of per-block overhead to the patch count.
    computed = MODELS[m.model].scheme.tokens(*m.size)
    assert 0 <= m.tokens - computed <= 4, (m, computed)


@pytest.mark.parametrize("m", [m for m in MEASUREMENTS if m.model.startswith("grok")])
def test_measured_grok_points(m: providers.Measurement) -> None:
    assert MODELS[m.model].scheme.tokens(*m.size) == m.tokens


@pytest.mark.parametrize("m", [m for m in MEASUREMENTS if m.model.startswith("gemini-3")])
def test_measured_gemini_3_bills_stay_under_the_documented_budget(m: providers.Measurement) -> None:
    scheme = MODELS[m.model].scheme
    assert isinstance(scheme, GeminiFlat)
    assert 0.9 * scheme.budget <= m.tokens <= scheme.budget


def test_gemini_2_measurement_contradicts_the_documented_tiling() -> None:
    # Kept visible on purpose: this is why the gemini-2 rows are labelled uncertain.
    rows = [m for m in MEASUREMENTS if m.model == "gemini-2.5-pro"]
    assert rows and all(m.tokens == 258 for m in rows)
    scheme = MODELS["gemini-2.5-pro"].scheme
    assert scheme.tokens(3840, 2160) != 258
    assert scheme.label == "uncertain"


def test_prices_are_dated_and_sane() -> None:
    sonnet = prices.price_for("claude-sonnet-4-5", today="2026-12-01")
    assert sonnet is not None and sonnet.input == 3.0 and sonnet.fact.label == "documented"
    assert sonnet.fact.date == "2026-12-01" and sonnet.database.startswith("genai-prices ")
    for m in MODELS:
        p = prices.price_for(m, today="2026-12-01")
        if p is None:
            continue
        assert p.input > 0
        assert p.cache_read is None or p.cache_read <= p.input
    assert prices.dollars(1456, 3.0) == pytest.approx(0.004368)
    assert prices.dollars(10, None) is None


def test_openrouter_image_price_matches_the_token_price() -> None:
    # OpenRouter lists "$4.80/K input imgs" for Sonnet 4.5 = 1600 tokens x $3/M.
    sonnet = prices.price_for("claude-sonnet-4-5")
    assert sonnet is not None
    per_thousand_images = 1000 * prices.dollars(1600, sonnet.input)  # type: ignore[operator]
    assert per_thousand_images == pytest.approx(4.80)
