"""Dollars per million tokens, from the maintained ``genai-prices`` database (bundled, offline).

Every price is looked up by the id the user gave (a dated snapshot, ``gpt-5-pro``,
``chatgpt-4o-latest``), never by the package's canonical sibling: an id the
database does not know has no price, and costs for it are tokens only.
Each :class:`Price` records the database version and the model id it matched,
the cache-read rate, both cache-write rates (5 minutes and 1 hour) and the
long-context tiers (a prompt above a tier's start pays that tier's rates on all
its tokens, as the providers bill). Image tokens are input tokens.

The database never fetches anything unless its ``UpdatePrices`` is started,
which this package does not do.

>>> p = price_for("gpt-5-pro")
>>> p.matched_model, p.input, p.output
('gpt-5-pro', 15.0, 120.0)
>>> price_for("claude-sonnet-4-5").at(250_000).input  # long-context tier above 200k
6.0
>>> price_for("no-such-model") is None
True
>>> price_for("claude-sonnet-4-5-experimental") is None  # a prefix match would be a sibling
True

Prices are those of the request's date (``today``): Gemini 3.8 Flash's introductory
rate ends on 2026-12-31. Ids the database lacks (or prices stale) are read from the
package's own sourced rows (``_own_prices.py``), labelled ``own table``. A tier
(``batch``, ``flex``, ``priority``) is the database's variant for the id, else the
vendor's documented multiplier (:func:`at_tier`).

>>> price_for("gemini-3.8-flash", today="2026-12-02").input
0.75
>>> price_for("gemini-3.8-flash", today="2027-01-02").input
1.5
>>> price_for("gpt-6.2-sol", today="2026-12-02").database
'own table'
>>> price_for("gpt-6.1-sol", today="2026-12-02", tier="batch").input
1.0
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
from dataclasses import dataclass, replace
from typing import Any

from snapshot.billing._own_prices import (
    CACHE_STORAGE_ROWS,
    GEO_ROWS,
    OWN_PRICE_ROWS,
    TIER_ROWS,
)
from snapshot.billing.rows import Fact, GeoRow, OwnPrice, PriceTierName
from snapshot.errors import InputError

#: The tiers ``--tier`` accepts ("standard" is the list price).
TIERS: tuple[PriceTierName, ...] = ("standard", "batch", "flex", "priority")

#: The genai-prices release the project is tested against (pinned in pyproject.toml).
PINNED_VERSION = "0.2.3"
_RATES = ("input", "cache_write", "cache_write_1h", "cache_read", "output")
_KEYS = {
    "input": "input_mtok",
    "cache_write": "cache_write_mtok",
    "cache_write_1h": "cache_write_1h_mtok",
    "cache_read": "cache_read_mtok",
    "output": "output_mtok",
}


@dataclass(frozen=True)
class PriceTier:
    """Rates (dollars per million tokens) for prompts of at least ``start`` input tokens."""

    start: int
    input: float | None = None
    cache_write: float | None = None
    cache_write_1h: float | None = None
    cache_read: float | None = None
    output: float | None = None


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens for one model id, as the price database gives them.

    ``None`` means the database has no such rate (a cache write OpenAI and Google do
    not charge separately is ``None``; callers bill it at the input rate).
    """

    model: str
    matched_model: str
    provider: str
    input: float
    cache_write: float | None
    cache_write_1h: float | None
    cache_read: float | None
    output: float | None
    tiers: tuple[PriceTier, ...]
    database: str
    fact: Fact
    tier: str = "standard"
    # Where the tier's rates come from (the database's variant or a vendor multiplier row).
    tier_fact: Fact | None = None
    # Data residency (Anthropic ``inference_geo``): "global" is the list price.
    geo: str = "global"
    geo_fact: Fact | None = None
    # Explicit context-cache storage, dollars per million tokens per hour (Gemini).
    cache_storage_per_mtok_hour: float | None = None
    cache_storage_fact: Fact | None = None

    def at(self, prompt_tokens: int) -> Price:
        """The rates a prompt of ``prompt_tokens`` input tokens pays (its long-context tier)."""
        out = self
        for tier in self.tiers:
            if prompt_tokens >= tier.start:
                changes = {k: getattr(tier, k) for k in _RATES if getattr(tier, k) is not None}
                out = replace(out, **changes)
        return out

    def record(self) -> dict[str, Any]:
        """The JSON record every command prints with a dollar figure."""
        return {
            "model": self.model,
            "matched_model": self.matched_model,
            "price_provider": self.provider,
            "database": self.database,
            "input_per_mtok": self.input,
            "cache_write_5m_per_mtok": self.cache_write,
            "cache_write_1h_per_mtok": self.cache_write_1h,
            "cache_read_per_mtok": self.cache_read,
            "output_per_mtok": self.output,
            "long_context_tiers": [
                {"from_input_tokens": t.start, **{k: getattr(t, k) for k in _RATES}}
                for t in self.tiers
            ],
            "source": self.fact.source,
            "label": self.fact.label,
            "date": self.fact.date,
            "priced_on": self.fact.date,
            "tier": self.tier,
            "tier_source": None if self.tier_fact is None else self.tier_fact.cite(),
            "inference_geo": self.geo,
            "inference_geo_source": None if self.geo_fact is None else self.geo_fact.cite(),
            "cache_storage_per_mtok_hour": self.cache_storage_per_mtok_hour,
            "cache_storage_source": None
            if self.cache_storage_fact is None
            else self.cache_storage_fact.cite(),
        }


def database_version() -> str:
    """The installed genai-prices version, e.g. ``'0.2.3'``."""
    import genai_prices

    return str(genai_prices.__version__)


def _split(value: Any) -> tuple[float | None, list[tuple[int, float]]]:
    """(base rate, [(tier start, rate)]) of a genai-prices value (Decimal or TieredPrices)."""
    if value is None:
        return None, []
    tiers = getattr(value, "tiers", None)
    if tiers is None:
        return float(value), []
    return float(value.base), [(int(t.start), float(t.price)) for t in tiers]


# What may follow a database prefix and still name the same model: a dated snapshot, a
# Bedrock version, a Vertex @date, the 1M-context variant. Anything else is a sibling.
_SAME_MODEL_TAIL = re.compile(
    r"^(?:|[-@]\d{8}|-\d{4}-\d{2}-\d{2}|-v\d+(?::\d+)?|@latest|\[1m\]|-\d{3,4})"
    r"(?:-v\d+(?::\d+)?)?$"
)


def _own_match(clause: Any, ref: str) -> bool:
    """True when a database match clause names ``ref`` itself, not a sibling sharing a prefix."""
    kind = type(clause).__name__
    if kind == "ClauseEquals":
        return bool(ref == clause.equals.lower())
    if kind == "ClauseRegex":
        return bool(clause.is_match(ref))
    if kind == "ClauseContains":
        # Only where the id is the clause's own string (Bedrock ids: global.openai.gpt-6-sol).
        head = clause.contains.lower()
        return ref.startswith(head) and bool(_SAME_MODEL_TAIL.match(ref[len(head) :]))
    if kind == "ClauseStartsWith":
        head = clause.starts_with.lower()
        return ref.startswith(head) and bool(_SAME_MODEL_TAIL.match(ref[len(head) :]))
    if kind == "ClauseOr":
        return any(_own_match(c, ref) for c in clause.or_)
    if kind == "ClauseAnd":
        # Regexes inside an And are filters (e.g. "not a -tts model"); prefixes must be own.
        return all(
            c.is_match(ref) if type(c).__name__ == "ClauseRegex" else _own_match(c, ref)
            for c in clause.and_
        )
    return False  # ends_with: too loose to name one model


def _tier_context(tier: str) -> tuple[tuple[str, str], ...]:
    for row in TIER_ROWS:
        if row.tier == tier:
            return row.context
    return ()


def _has_variant(info: Any, context: tuple[tuple[str, str], ...], when: _dt.datetime) -> bool:
    """True when the database prices this id at ``context`` (a tier) on that day."""
    ctx = dict(context)
    for variant in getattr(info, "price_variants", None) or ():
        if variant.constraint is not None and not variant.constraint.active(when):
            continue
        if variant.when and all(ctx.get(k) == v for k, v in variant.when.items()):
            return any(v is not None for v in variant.prices.__dict__.values())
    return False


@functools.lru_cache(maxsize=1024)
def _lookup(model_id: str, provider: str | None, day: str, tier: str = "standard") -> Price | None:
    from genai_prices import data_snapshot

    snapshot = data_snapshot.get_snapshot()
    try:
        found_provider, info = snapshot.find_provider_model(model_id, None, provider, None)
    except LookupError:
        return None
    if not _own_match(info.match, model_id):
        return None  # the database would price a sibling: "no price" instead
    when = _dt.datetime.fromisoformat(day).replace(tzinfo=_dt.UTC)
    context = _tier_context(tier)
    variant = tier != "standard" and _has_variant(info, context, when)
    prices = info.get_prices(when, dict(context) if variant else None)
    base: dict[str, float | None] = {}
    tier_rates: dict[int, dict[str, float]] = {}
    for rate, key in _KEYS.items():
        value, tiers = _split(getattr(prices, key, None))
        base[rate] = value
        for start, tier_price in tiers:
            tier_rates.setdefault(start, {})[rate] = tier_price
    if base["input"] is None:
        return None  # e.g. an image-generation or audio model priced per unit
    version = database_version()
    fact = Fact(
        f"genai-prices {version} (matched {info.id!r} of provider {found_provider.id!r})",
        "documented",
        day,
        "deprecated in the database" if info.deprecated else "",
    )
    return Price(
        model=model_id,
        matched_model=info.id,
        provider=found_provider.id,
        input=float(base["input"]),
        cache_write=base["cache_write"],
        cache_write_1h=base["cache_write_1h"],
        cache_read=base["cache_read"],
        output=base["output"],
        tiers=tuple(PriceTier(start, **rates) for start, rates in sorted(tier_rates.items())),
        database=f"genai-prices {version}",
        fact=fact,
        tier=tier if variant else "standard",
        tier_fact=Fact(f"genai-prices {version} price_variants {dict(context)}", "documented", day)
        if variant
        else None,
    )


def _own_row(model_id: str, day: str) -> OwnPrice | None:
    for row in OWN_PRICE_ROWS:
        if row.model == model_id and row.start <= day and (row.end is None or day <= row.end):
            return row
    return None


def _own_price(row: OwnPrice, model_id: str, day: str, base: Price | None) -> Price | None:
    """A price from the package's own row: alone, or correcting the database's for the day."""
    rates = dict(row.rates)
    fact = Fact(row.fact.source, row.fact.label, day, row.fact.note)
    if row.over_database:
        if base is None:
            return None
        ratio = {
            k: rates[k] / v
            for k, v in (("input", base.input), ("output", base.output))
            if k in rates and v
        }
        tiers = tuple(
            replace(
                t,
                input=None if t.input is None else t.input * ratio.get("input", 1.0),
                output=None if t.output is None else t.output * ratio.get("output", 1.0),
            )
            for t in base.tiers
        )
        return replace(
            base,
            input=rates.get("input", base.input),
            output=rates.get("output", base.output),
            cache_read=rates.get("cache_read", base.cache_read),
            tiers=tiers,
            database=f"own table over {base.database}",
            fact=fact,
        )
    tiers = tuple(
        PriceTier(start, input=rates["input"] * i, output=rates["output"] * o)
        for start, i, o in row.tiers
    )
    return Price(
        model=model_id,
        matched_model=row.model,
        provider=row.provider,
        input=rates["input"],
        cache_write=None,
        cache_write_1h=None,
        cache_read=rates.get("cache_read"),
        output=rates.get("output"),
        tiers=tiers,
        database="own table",
        fact=fact,
    )


def _scaled(price: Price, m: float) -> Price:
    """Every token rate of ``price`` (and of its long-context tiers) times ``m``."""

    def scaled(v: float | None) -> float | None:
        return None if v is None else round(v * m, 9)

    tiers = tuple(
        replace(t, **{k: scaled(getattr(t, k)) for k in _RATES})  # type: ignore[arg-type]
        for t in price.tiers
    )
    return replace(
        price,
        **{k: scaled(getattr(price, k)) for k in _RATES},  # type: ignore[arg-type]
        tiers=tiers,
    )


def geo_row(geo: str, vendor: str, route: str, model: str) -> GeoRow | None:
    """The residency row pricing ``geo`` for ``model`` on ``route``; None for ``global``.

    Raises :class:`~snapshot.errors.InputError` where the route or model offers no such geo.

    >>> geo_row("us", "anthropic", "anthropic", "claude-opus-5").multiplier
    1.1
    >>> geo_row("us", "anthropic", "bedrock", "claude-opus-5")
    Traceback (most recent call last):
    ...
    snapshot.errors.InputError: claude-opus-5 via bedrock: no inference_geo 'us' here; it is a Claude API option for: claude-opus-4-6, claude-sonnet-4-6, claude-opus-4-7, ... (15 models)
    """
    if geo == "global":
        return None
    rows = [r for r in GEO_ROWS if r.geo == geo and r.provider == vendor]
    for row in rows:
        if row.route == route and model in row.models:
            return row
    if not rows:
        raise InputError(f"{model}: {vendor} offers no inference_geo {geo!r}; use global")
    names = rows[0].models
    listed = ", ".join(names[:3]) + (f", ... ({len(names)} models)" if len(names) > 3 else "")
    raise InputError(
        f"{model} via {route}: no inference_geo {geo!r} here; it is a Claude API option for: "
        f"{listed}"
    )


def at_geo(price: Price, row: GeoRow | None) -> Price:
    """``price`` with data residency: every token rate times the row's multiplier.

    >>> p = price_for("claude-opus-5", today="2026-12-02")
    >>> us = at_geo(p, geo_row("us", "anthropic", "anthropic", "claude-opus-5"))
    >>> (p.input, p.output), (us.input, us.output), us.record()["inference_geo"]
    ((5.0, 25.0), (5.5, 27.5), 'us')
    """
    if row is None:
        return price
    m = row.multiplier
    fact = Fact(row.fact.source, row.fact.label, row.fact.date, f"x{m} on every token rate")
    return replace(_scaled(price, m), geo=row.geo, geo_fact=fact)


def _with_storage(price: Price) -> Price:
    """``price`` with the vendor's context-cache storage rate, where a row gives one."""
    for row in CACHE_STORAGE_ROWS:
        if row.model == price.matched_model and price.provider == "google":
            return replace(
                price, cache_storage_per_mtok_hour=row.per_mtok_hour, cache_storage_fact=row.fact
            )
    return price


def at_tier(price: Price, tier: str, vendor: str) -> Price:
    """``price`` at a tier: the database's variant if it was found, else the vendor's multiplier.

    Raises :class:`~snapshot.errors.InputError` when the vendor has no such tier.

    >>> p = price_for("claude-sonnet-4-5", today="2026-12-02")
    >>> at_tier(p, "batch", "anthropic").input
    1.5
    >>> at_tier(p, "flex", "anthropic")
    Traceback (most recent call last):
    ...
    snapshot.errors.InputError: claude-sonnet-4-5: anthropic has no 'flex' price tier here; tiers: standard, batch
    """
    if tier == "standard" or price.tier == tier:
        return price
    if tier not in TIERS:
        raise InputError(f"unknown price tier {tier!r}; use one of: {', '.join(TIERS)}")
    for row in TIER_ROWS:
        if row.provider == vendor and row.tier == tier:
            m = row.multiplier
            return replace(
                _scaled(price, m),
                tier=tier,
                tier_fact=Fact(row.fact.source, row.fact.label, row.fact.date, f"x{m} on standard"),
            )
    offered = ["standard", *(r.tier for r in TIER_ROWS if r.provider == vendor)]
    raise InputError(
        f"{price.model}: {vendor} has no {tier!r} price tier here; tiers: {', '.join(offered)}"
    )


def price_for(
    model_id: str,
    *,
    provider: str | None = None,
    today: str | _dt.date | None = None,
    tier: str = "standard",
) -> Price | None:
    """The price of ``model_id`` as the user wrote it, on ``today`` (default: now).

    ``provider`` is a genai-prices provider id (``anthropic``, ``openai``,
    ``google``, ``aws``, ``openrouter``, ``x-ai``, ``mistral``); without it the
    database picks one from the id. Returns None when neither the database nor the
    package's own rows price the id. ``tier``: the database's variant where it has one
    (the record's ``tier`` says whether it was found; see :func:`at_tier`).

    >>> price_for("o3-pro").input
    20.0
    >>> price_for("gemini-2.5-pro", provider="google").cache_read
    0.125
    """
    day = (
        _dt.date.today().isoformat()
        if today is None
        else (today if isinstance(today, str) else today.isoformat())
    )
    ref = model_id.strip().lower()
    found = _lookup(ref, provider, day, tier)
    own = _own_row(ref, day)
    if own is not None and own.over_database and tier != "standard":
        found = _lookup(ref, provider, day, "standard")  # the tier multiplier applies after
    if own is not None and (own.over_database or found is None):
        found = _own_price(own, ref, day, found)
    return None if found is None else _with_storage(found)


def dollars(tokens: int, per_million: float | None) -> float | None:
    """Cost of ``tokens`` at ``per_million`` dollars; None when there is no price.

    >>> dollars(1456, 3.0)
    0.004368
    """
    if per_million is None:
        return None
    return round(tokens * per_million / 1_000_000, 9)


__all__ = [
    "PINNED_VERSION",
    "TIERS",
    "Price",
    "PriceTier",
    "at_geo",
    "at_tier",
    "database_version",
    "dollars",
    "geo_row",
    "price_for",
]
