"""Provider tables: models, aliases, prefixes, routes, limits, prices, text counters.

Every provider fact lives in exactly one row, with where it comes from
(``source``: a URL, a repository path, or a measurement), how far to trust it
(``label``: documented / measured / uncertain) and when (``date``). The rows are
pure data in private modules (:mod:`~snapshot.billing._models`,
:mod:`~snapshot.billing._routes`, :mod:`~snapshot.billing._text`); their types are
in :mod:`snapshot.billing.rows`. Each model names its family; the families' readers
(font, page bound and the reader evidence behind them) are profile data, in
:mod:`snapshot.profiles.families`.
This module joins them into read-only tables and checks them once at import
(:func:`validate_tables` raises :class:`~snapshot.billing.rows.TableError`).

Sources are those of ``shared/docs/providers.md`` (2026-11-29) and its audit
``shared/docs/providers-2026-12.md`` (2026-12-01), whose source keys ([A-vis2],
[O-56], …) the rows quote.

Resolution (:mod:`snapshot.profiles`) reads, in order: :data:`ROUTES` (gateway id
shapes), :data:`MODELS` (exact ids), :data:`ALIASES`, :data:`DATE_SUFFIXES`
(dated snapshots of the same model), then :data:`PREFIXES` (only families the
table says share one scheme and price).

>>> MODELS["claude-opus-5"].scheme.max_tokens  # "Claude 4.7 and later" are high-res
4784
>>> MODELS["claude-sonnet-4-5"].lifecycle.status("2026-12-01")
'retired'
"""

from __future__ import annotations

from types import MappingProxyType

from snapshot.billing import (
    _lifecycles,
    _models,
    _own_prices,
    _ranges,
    _routes,
    _text,
)
from snapshot.billing._context_windows import (
    CONTEXT_WINDOWS,
    VARIANT_1M_SOURCE,
    VARIANT_1M_TOKENS,
    ContextWindow,
)
from snapshot.billing.rows import (
    LIMIT_FIELDS,
    BillMeasurement,
    CacheStorageRow,
    Evidence,
    Fact,
    Family,
    GeoRow,
    Lifecycle,
    LimitFact,
    LimitField,
    Model,
    OwnPrice,
    PrefixFamily,
    Provider,
    RangeFact,
    Route,
    TableError,
    TextMethod,
    TextTokenizer,
    TierRow,
    check_lifecycle,
)
from snapshot.billing.schemes import AnthropicPatches, Scheme
from snapshot.billing.sources import COMPILED

#: The fact behind the fallback model row (the profiles' reader evidence cites it).
FALLBACK_FACT = _models.FALLBACK_FACT

PROVIDERS: tuple[Provider, ...] = (
    "anthropic",
    "openai",
    "google",
    "xai",
    "mistral",
    "qwen",
    "deepseek",
)

MODELS: MappingProxyType[str, Model] = MappingProxyType({m.model: m for m in _models.MODEL_ROWS})
ALIASES: MappingProxyType[str, tuple[str, Fact]] = MappingProxyType(_models.ALIAS_ROWS)
DATE_SUFFIXES = _models.DATED_SUFFIXES
VARIANT_SUFFIXES = _models.VARIANT_SUFFIXES
PREFIX_FAMILIES: tuple[PrefixFamily, ...] = _models.PREFIX_ROWS
#: prefix → model id, for the families that share one scheme and price.
PREFIXES: MappingProxyType[str, str] = MappingProxyType(
    {p.prefix: p.model for p in _models.PREFIX_ROWS}
)
#: Per model: the scheme each ``detail`` (OpenAI) or ``media_resolution`` (Gemini) level selects.
DETAIL_LEVELS: MappingProxyType[str, tuple[MappingProxyType[str, Scheme], Fact]] = MappingProxyType(
    {m: (MappingProxyType(lv), fact) for m, (lv, fact) in _models.DETAIL_ROWS.items()}
)
LIMIT_FACTS: tuple[LimitFact, ...] = _routes.LIMIT_ROWS
FALLBACK_LIMIT_FACTS: tuple[LimitFact, ...] = _routes.FALLBACK_LIMIT_ROWS
ROUTES: tuple[Route, ...] = _routes.ROUTE_ROWS
MB = _routes.MB
#: The vendor's own API is the route when no gateway shape matches.
DIRECT_ROUTE: MappingProxyType[str, str] = MappingProxyType({p: p for p in PROVIDERS})
#: genai-prices provider id of each vendor's own API.
PRICE_PROVIDER: MappingProxyType[str, str] = MappingProxyType(
    {
        "anthropic": "anthropic",
        "openai": "openai",
        "google": "google",
        "xai": "x-ai",
        "mistral": "mistral",
        "deepseek": "deepseek",
    }
)
TEXT_TOKENIZER_BY_MODEL: MappingProxyType[str, TextTokenizer] = MappingProxyType(_text.BY_MODEL)
TEXT_TOKENIZER_BY_FAMILY: MappingProxyType[str, TextTokenizer] = MappingProxyType(_text.BY_FAMILY)
MEASUREMENTS: tuple[BillMeasurement, ...] = _models.MEASUREMENT_ROWS
#: Facts whose sources disagree, each a range with every end's source.
RANGES: tuple[RangeFact, ...] = _ranges.RANGE_ROWS
#: model id → the range its scheme's disputed field lies in.
RANGE_BY_MODEL: MappingProxyType[str, RangeFact] = MappingProxyType(
    {m: r for r in _ranges.RANGE_ROWS for m in r.models}
)
#: (route, model) → that partner route's own lifecycle (Bedrock, Vertex, Azure).
ROUTE_LIFECYCLES: MappingProxyType[tuple[str, str], Lifecycle] = MappingProxyType(
    {(r.route, r.model): r.lifecycle for r in _lifecycles.ROUTE_LIFECYCLE_ROWS}
)
#: route → (whose schedule it follows, source); vendor → the name of its own schedule.
ROUTE_SCHEDULES: MappingProxyType[str, tuple[str, Fact]] = MappingProxyType(
    _lifecycles.ROUTE_SCHEDULES
)
VENDOR_SCHEDULES: MappingProxyType[str, str] = MappingProxyType(_lifecycles.VENDOR_SCHEDULES)
OWN_PRICES: tuple[OwnPrice, ...] = _own_prices.OWN_PRICE_ROWS
TIERS: tuple[TierRow, ...] = _own_prices.TIER_ROWS
#: Data-residency options that scale the token rates (Anthropic ``inference_geo``).
GEOS: tuple[GeoRow, ...] = _own_prices.GEO_ROWS
#: Context-cache storage per hour, by the price database's model id (Gemini).
CACHE_STORAGE: MappingProxyType[str, CacheStorageRow] = MappingProxyType(
    {r.model: r for r in _own_prices.CACHE_STORAGE_ROWS}
)

FALLBACK_MODEL = Model(
    "fallback", "fallback", AnthropicPatches(label="uncertain"), _models.FALLBACK_FACT
)

#: Every route name a limit row may use ("direct" resolves to the provider's own).
ROUTE_NAMES: tuple[str, ...] = (
    *PROVIDERS,
    *dict.fromkeys(r.name for r in ROUTES if r.name != "direct"),
    "fallback",
)


def limit_facts_for(route: str) -> tuple[LimitFact, ...]:
    """The limit rows of one route.

    >>> sorted(f.field for f in limit_facts_for("vertex"))
    ['max_image_bytes', 'max_request_bytes']
    """
    return tuple(f for f in (*LIMIT_FACTS, *FALLBACK_LIMIT_FACTS) if f.route == route)


def text_tokenizer_for(model: str, family: str) -> TextTokenizer:
    """The text-token row of a model: its own, else its family's (ctok rows as tabled).

    >>> text_tokenizer_for("gpt-4o", "openai-tiles").encoding
    'o200k_base'
    >>> text_tokenizer_for("claude-sonnet-4-6", "claude-standard").method
    'reconstruction'
    """
    return TEXT_TOKENIZER_BY_MODEL.get(model) or TEXT_TOKENIZER_BY_FAMILY.get(family, _text.GENERIC)


def validate_tables() -> None:
    """Cross-check every table; raise :class:`TableError` naming the first broken row.

    Runs at import (a plain function: ``python -O`` does not skip it).

    >>> validate_tables()
    """
    if len(MODELS) != len(_models.MODEL_ROWS):
        raise TableError("two model rows share one id")
    for m in MODELS.values():
        check_lifecycle(m.model, m.lifecycle)
        for other in (m.lifecycle.successor, m.lifecycle.routed_to):
            if other is not None and other not in MODELS:
                raise TableError(f"{m.model}: successor / route {other!r} is not a model row")
        if m.lifecycle.routed_to is not None and m.lifecycle.retired is None:
            raise TableError(f"{m.model}: re-routed without a shutdown date")
    for alias, (target, _) in ALIASES.items():
        if target not in MODELS:
            raise TableError(f"alias {alias!r} names no model row ({target!r})")
        if alias in MODELS:
            raise TableError(f"alias {alias!r} shadows a model row")
    for prefix, target in PREFIXES.items():
        if target not in MODELS:
            raise TableError(f"prefix {prefix!r} names no model row ({target!r})")
    for lf in LIMIT_FACTS:
        if lf.route not in ROUTE_NAMES or lf.field not in LIMIT_FIELDS:
            raise TableError(f"limit row with unknown route or field: {lf}")
    for model in TEXT_TOKENIZER_BY_MODEL:
        if model not in MODELS:
            raise TableError(f"text-token row for unknown model {model!r}")
    for rng in RANGES:
        if rng.point not in (e.value for e in rng.ends):
            raise TableError(f"{rng.name}: its point {rng.point} is not one of its ends")
        for mid in rng.models:
            if mid not in MODELS or str(getattr(MODELS[mid].scheme, rng.field, None)) != rng.point:
                raise TableError(f"{rng.name}: {mid} does not bill at the range's point")
    for (route, model), life in ROUTE_LIFECYCLES.items():
        if model not in MODELS or route not in ROUTE_SCHEDULES:
            raise TableError(f"route lifecycle ({route}, {model}): unknown model or route")
        check_lifecycle(f"{model} on {route}", life)
    for own in OWN_PRICES:
        if own.model not in MODELS:
            raise TableError(f"own price row for unknown model {own.model!r}")
    for geo in GEOS:
        for mid in geo.models:
            if mid not in MODELS:
                raise TableError(f"inference geo {geo.geo!r}: {mid!r} is no model row")
    for storage in CACHE_STORAGE.values():
        if storage.model not in MODELS:
            raise TableError(f"cache storage row for unknown model {storage.model!r}")
    for name, (levels, _) in DETAIL_LEVELS.items():
        # the row's own scheme must be one of its levels (a multiplier typo would break this)
        if name not in MODELS or MODELS[name].scheme not in levels.values():
            raise TableError(f"{name}: its scheme is not one of its detail levels")


validate_tables()

__all__ = [
    "ALIASES",
    "CACHE_STORAGE",
    "COMPILED",
    "CONTEXT_WINDOWS",
    "DATE_SUFFIXES",
    "DETAIL_LEVELS",
    "DIRECT_ROUTE",
    "FALLBACK_FACT",
    "FALLBACK_LIMIT_FACTS",
    "FALLBACK_MODEL",
    "GEOS",
    "LIMIT_FACTS",
    "LIMIT_FIELDS",
    "MEASUREMENTS",
    "MODELS",
    "OWN_PRICES",
    "PREFIXES",
    "PREFIX_FAMILIES",
    "PRICE_PROVIDER",
    "PROVIDERS",
    "RANGES",
    "RANGE_BY_MODEL",
    "ROUTES",
    "ROUTE_LIFECYCLES",
    "ROUTE_NAMES",
    "ROUTE_SCHEDULES",
    "TEXT_TOKENIZER_BY_FAMILY",
    "TEXT_TOKENIZER_BY_MODEL",
    "TIERS",
    "VARIANT_1M_SOURCE",
    "VARIANT_1M_TOKENS",
    "VARIANT_SUFFIXES",
    "VENDOR_SCHEDULES",
    "BillMeasurement",
    "ContextWindow",
    "Evidence",
    "Fact",
    "Family",
    "Lifecycle",
    "LimitFact",
    "LimitField",
    "Model",
    "OwnPrice",
    "PrefixFamily",
    "Provider",
    "RangeFact",
    "Route",
    "TableError",
    "TextMethod",
    "TextTokenizer",
    "TierRow",
    "limit_facts_for",
    "text_tokenizer_for",
    "validate_tables",
]
