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
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
from dataclasses import dataclass, replace
from typing import Any

from snapshot.billing.rows import Fact

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
    return False  # contains / ends_with: too loose to name one model


@functools.lru_cache(maxsize=1024)
def _lookup(model_id: str, provider: str | None, day: str) -> Price | None:
    from genai_prices import data_snapshot

    snapshot = data_snapshot.get_snapshot()
    try:
        found_provider, info = snapshot.find_provider_model(model_id, None, provider, None)
    except LookupError:
        return None
    if not _own_match(info.match, model_id):
        return None  # the database would price a sibling: "no price" instead
    when = _dt.datetime.fromisoformat(day).replace(tzinfo=_dt.UTC)
    prices = info.get_prices(when)
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
    )


def price_for(
    model_id: str, *, provider: str | None = None, today: str | _dt.date | None = None
) -> Price | None:
    """The price of ``model_id`` as the user wrote it, on ``today`` (default: now).

    ``provider`` is a genai-prices provider id (``anthropic``, ``openai``,
    ``google``, ``aws``, ``openrouter``, ``x-ai``, ``mistral``); without it the
    database picks one from the id. Returns None when the database lacks the id.

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
    return _lookup(model_id.strip().lower(), provider, day)


def dollars(tokens: int, per_million: float | None) -> float | None:
    """Cost of ``tokens`` at ``per_million`` dollars; None when there is no price.

    >>> dollars(1456, 3.0)
    0.004368
    """
    if per_million is None:
        return None
    return round(tokens * per_million / 1_000_000, 9)


__all__ = ["PINNED_VERSION", "Price", "PriceTier", "database_version", "dollars", "price_for"]
