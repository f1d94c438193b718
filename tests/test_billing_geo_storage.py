"""Anthropic's inference_geo multiplier and Gemini's context-cache storage per hour (issue 27, Why 8)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

import snapshot.cli as cli
from snapshot.billing import providers
from snapshot.billing.prices import at_geo, geo_row, price_for
from snapshot.billing.rows import TableError
from snapshot.errors import InputError
from snapshot.profiles import profile_for
from snapshot.profiles.audit import all_facts

TODAY = "2026-12-02"


def _cost(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["cost", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# --- inference_geo ---------------------------------------------------------------


def test_us_inference_scales_every_token_rate_by_the_sourced_multiplier() -> None:
    base = profile_for("claude-sonnet-4-5", warn=False)  # no long-context tier lost below
    assert base.inference_geo == "global"
    opus = profile_for("claude-opus-5", warn=False)
    listed = opus.price(TODAY)
    us = opus.with_inference_geo("us").price(TODAY)
    assert listed is not None and us is not None
    for rate in ("input", "output", "cache_read", "cache_write", "cache_write_1h"):
        assert getattr(us, rate) == pytest.approx(getattr(listed, rate) * 1.1)
    assert us.geo == "us" and us.geo_fact is not None
    assert "data-residency" in us.geo_fact.source and us.geo_fact.date == "2026-12-01"
    assert us.record()["inference_geo_source"].startswith("documented: https://platform.claude")
    assert listed.record()["inference_geo"] == "global"
    assert listed.record()["inference_geo_source"] is None


def test_geo_and_tier_multiply_and_long_context_tiers_scale_too() -> None:
    p = profile_for("claude-sonnet-4-6", warn=False).with_inference_geo("us")
    batch = p.price(TODAY, "batch")
    listed = profile_for("claude-sonnet-4-6", warn=False).price(TODAY)
    assert batch is not None and listed is not None
    assert batch.input == pytest.approx(listed.input * 0.5 * 1.1)
    assert batch.tier == "batch" and batch.geo == "us"
    for mine, theirs in zip(batch.tiers, listed.tiers, strict=True):
        assert mine.input == pytest.approx((theirs.input or 0) * 0.55)


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("us.anthropic.claude-opus-5", "claude-opus-5 via bedrock: no inference_geo 'us'"),
        ("claude-opus-4-5", "claude-opus-4-5 via anthropic: no inference_geo 'us'"),
        ("gpt-6.1-sol", "openai offers no inference_geo 'us'"),
    ],
)
def test_a_route_or_model_without_us_inference_is_refused(model: str, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        profile_for(model, warn=False).with_inference_geo("us")


def test_global_is_the_list_price_everywhere() -> None:
    assert geo_row("global", "openai", "openai", "gpt-6.1-sol") is None
    price = price_for("gpt-6.1-sol", today=TODAY)
    assert price is not None and at_geo(price, None) is price
    p = profile_for("gpt-6.1-sol", warn=False)
    assert p.with_inference_geo("global") is p


def test_cost_cli_inference_geo(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cost(
        capsys, "--model", "claude-opus-5", "--size", "1024x1024", "--date", TODAY, "--json"
    )
    listed = json.loads(out)
    code, out, _ = _cost(
        capsys,
        "--model",
        "claude-opus-5",
        "--size",
        "1024x1024",
        "--date",
        TODAY,
        "--inference-geo",
        "us",
        "--json",
    )
    us = json.loads(out)
    assert code == 0 and us["price"]["inference_geo"] == "us"
    assert us["dollars"] == pytest.approx(listed["dollars"] * 1.1)
    code, out, _ = _cost(
        capsys, "--model", "claude-opus-5", "--size", "1024x1024", "--inference-geo", "us"
    )
    assert "inference_geo us" in out and "[A-geo]" in out
    code, _, err = _cost(
        capsys, "--model", "us.anthropic.claude-opus-5", "--size", "10x10", "--inference-geo", "us"
    )
    assert code == 2 and "no inference_geo 'us'" in err and len(err.strip().splitlines()) == 1


def test_every_geo_model_is_an_anthropic_row(monkeypatch: pytest.MonkeyPatch) -> None:
    from snapshot.profiles.families import validate_families

    (row,) = providers.GEOS
    assert "claude-opus-4-6" in row.models and "claude-opus-4-5" not in row.models
    monkeypatch.setattr(providers, "GEOS", (replace(row, models=("gpt-6.1-sol",)),))
    with pytest.raises(TableError, match=r"'gpt-6\.1-sol' is no anthropic model"):
        validate_families()
    monkeypatch.setattr(providers, "GEOS", (replace(row, models=("claude-opus-9",)),))
    with pytest.raises(TableError, match="'claude-opus-9' is no model row"):
        providers.validate_tables()


# --- Gemini context-cache storage ---------------------------------------------------


@pytest.mark.parametrize("day", [TODAY, "2027-01-02"])
def test_gemini_flash_prices_cache_storage_per_hour_with_its_source(day: str) -> None:
    price = price_for("gemini-3.8-flash", today=day)
    assert price is not None and price.cache_storage_per_mtok_hour == 0.5
    assert price.cache_storage_fact is not None
    assert "ai.google.dev/gemini-api/docs/pricing" in price.cache_storage_fact.source
    record = price.record()
    assert record["cache_storage_per_mtok_hour"] == 0.5
    assert "(2026-11-09)" in record["cache_storage_source"]


@pytest.mark.parametrize("model", ["claude-opus-5", "gpt-6.1-sol", "gemini-2.5-flash"])
def test_no_storage_rate_where_no_source_gives_one(model: str) -> None:
    price = price_for(model, today=TODAY)
    assert price is not None and price.cache_storage_per_mtok_hour is None
    assert price.record()["cache_storage_source"] is None


def test_storage_is_not_scaled_by_a_tier() -> None:
    batch = profile_for("gemini-3.8-flash", warn=False).price(TODAY, "batch")
    assert batch is not None and batch.tier == "batch"
    assert batch.cache_storage_per_mtok_hour == 0.5


def test_cost_cli_shows_storage_per_hour_for_image_and_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = _cost(
        capsys, "--model", "gemini-3.8-flash", "--size", "1568x728", "--date", TODAY, "--json"
    )
    rec = json.loads(out)
    assert rec["tokens"] == 1120
    assert rec["cache_storage_dollars_per_hour"] == pytest.approx(1120 * 0.5 / 1e6)
    text = tmp_path / "t.txt"
    text.write_text("the quick brown fox jumps over the lazy dog. " * 200, encoding="utf-8")
    code, out, _ = _cost(capsys, "--model", "gemini-3.8-flash", "--text", str(text), "--json")
    rec = json.loads(out)
    assert rec["text_cache_storage_dollars_per_hour"] == pytest.approx(
        rec["text_tokens"] * 0.5 / 1e6
    )
    assert rec["image_cache_storage_dollars_per_hour"] == pytest.approx(
        rec["image_tokens"] * 0.5 / 1e6
    )
    code, out, _ = _cost(capsys, "--model", "gemini-3.8-flash", "--text", str(text))
    assert code == 0
    assert "per hour to keep the text cached" in out and "per hour to keep the pages cached" in out
    code, out, _ = _cost(capsys, "--model", "claude-opus-5", "--text", str(text), "--json")
    assert code == 0 and json.loads(out)["text_cache_storage_dollars_per_hour"] is None


def test_facts_list_the_geo_and_storage_rows() -> None:
    tables = {(r.table, r.key) for r in all_facts()}
    assert ("inference geo", "anthropic us x1.1") in tables
    assert ("cache storage", "gemini-3.8-flash $0.5/Mtok/h") in tables
