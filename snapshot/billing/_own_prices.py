"""Prices the pinned database lacks or has stale, tiers, residency and cache storage. Pure data.

:mod:`snapshot.billing.prices` reads genai-prices first; a row here either
stands alone (an id the database does not list, labelled ``own table``) or
corrects the database's price for a date range (``over_database``).
"""

from __future__ import annotations

from snapshot.billing.rows import CacheStorageRow, Fact, GeoRow, OwnPrice, TierRow
from snapshot.billing.sources import (
    SRC_AUDIT_12B,
    SRC_CLAUDE_GEO,
    SRC_GEMINI_CACHE_STORAGE,
    SRC_GPT62,
    SRC_SOLPROMO,
)

_GPT6_LONG = ((272_000, 2.0, 1.5),)  # >272k prompts: x2 input, x1.5 output (GPT-5.6/6)
_F_GPT62 = Fact(
    SRC_GPT62,
    "uncertain",
    "2026-11-18",
    "own table: neither genai-prices 0.2.3 nor litellm 1.110.2 lists it; the GPT-6 "
    ">272k tier (x2 input, x1.5 output) is assumed",
)

OWN_PRICE_ROWS: tuple[OwnPrice, ...] = (
    OwnPrice(
        "gpt-6.2-astra",
        "openai",
        "2026-11-17",
        None,
        (("input", 8.0), ("cache_read", 0.40), ("output", 40.0)),
        _F_GPT62,
        tiers=_GPT6_LONG,
    ),
    OwnPrice(
        "gpt-6.2-sol",
        "openai",
        "2026-11-17",
        None,
        (("input", 2.0), ("cache_read", 0.10), ("output", 10.0)),
        _F_GPT62,
        tiers=_GPT6_LONG,
    ),
    # The $4/$20 promotion was guaranteed only through 2026-11-21; no source read after
    # says whether it continued, so the list price is billed (never under-stated).
    OwnPrice(
        "gpt-5.6-sol",
        "openai",
        "2026-11-22",
        None,
        (("input", 5.0), ("output", 30.0)),
        Fact(
            SRC_SOLPROMO,
            "uncertain",
            "2026-09-23",
            "own table over genai-prices 0.2.3 (which keeps $4/$20 with no end): list price "
            "after the guaranteed promotion; cache and long-context rates scaled from the database",
        ),
        over_database=True,
    ),
)

_F_TIERS = Fact(SRC_AUDIT_12B, "documented", "2026-12-01")

#: Tiers a vendor offers, as multipliers on standard rates (used where the database has no
#: variant for the id). ``context``: genai-prices' own price context for the tier. xAI and
#: Mistral batch rates are not a flat multiplier: there only the database's variants apply.
TIER_ROWS: tuple[TierRow, ...] = (
    TierRow("anthropic", "batch", 0.5, _F_TIERS, (("processing", "batch"),)),
    TierRow("openai", "batch", 0.5, _F_TIERS, (("processing", "batch"),)),
    TierRow("openai", "flex", 0.5, _F_TIERS, (("service_tier", "flex"),)),
    TierRow("openai", "priority", 2.0, _F_TIERS, (("service_tier", "priority"),)),
    TierRow("google", "batch", 0.5, _F_TIERS, (("processing", "batch"),)),
    TierRow("google", "priority", 1.8, _F_TIERS, (("service_tier", "priority"),)),
)

#: Data residency (A-geo): ``inference_geo: "us"`` on the Claude API costs x1.1 on every
#: token rate, for Claude Opus 4.6 and the models after it (the audit's "Opus 4.6+";
#: earlier models take no such parameter). Bedrock and Vertex price regions in their own rows.
GEO_ROWS: tuple[GeoRow, ...] = (
    GeoRow(
        "anthropic",
        "anthropic",
        "us",
        1.1,
        (
            "claude-opus-4-6",
            "claude-sonnet-4-6",
            "claude-opus-4-7",
            "claude-opus-4-8",
            "claude-opus-5",
            "claude-opus-5-5",
            "claude-sonnet-5",
            "claude-sonnet-5-5",
            "claude-haiku-5-5",
            "claude-mythos-5",
            "claude-mythos-5-1",
            "claude-mythos-5-2",
            "claude-fable-5",
            "claude-fable-5-1",
            "claude-fable-5-2",
        ),
        Fact(
            SRC_CLAUDE_GEO,
            "documented",
            "2026-12-01",
            "'US: ... A 1.1x pricing multiplier applies'; models from Opus 4.6 on",
        ),
    ),
)

_F_GEMINI_STORAGE = Fact(
    SRC_GEMINI_CACHE_STORAGE,
    "documented",
    "2026-11-09",
    "a comment in the database (no unit); unsaid whether it changes on 2027-01-01",
)

#: Gemini context-cache storage, dollars per million cached tokens per hour: billed on top
#: of the cache-read rate for as long as an explicit cache lives (its TTL). No price tier
#: scales it.
CACHE_STORAGE_ROWS: tuple[CacheStorageRow, ...] = (
    CacheStorageRow("gemini-3.6-flash", 0.50, _F_GEMINI_STORAGE),
    CacheStorageRow("gemini-3.7-flash", 0.50, _F_GEMINI_STORAGE),
    CacheStorageRow("gemini-3.8-flash", 0.50, _F_GEMINI_STORAGE),
)
