"""List prices in US dollars per million tokens, dated, with sources.

Image tokens are billed as input tokens at the same price as text (every vendor
below says so for its vision models), so one row per model serves both.

Only two figures were confirmed from pages collected for this project
(``shared/docs/providers.md``): Sonnet 4.5 input $3/M (OpenRouter lists
"$4.80/K input imgs" = 1600 tokens × $3/M) and Opus 4.7 input $5/M (Vercel AI
Gateway). The other rows are the vendors' published list prices as recalled,
labelled ``uncertain`` until someone checks the page; models with no price at
hand have no row, and costs for them are reported in tokens only.

Anthropic prices its cache as multipliers of the input price (5-minute cache
write 1.25×, cache read 0.1×; :data:`ANTHROPIC_CACHE_FACT`); OpenAI and Google
charge no separate cache write for implicit caching, so the write price equals
input there.

>>> p = price_for("claude-sonnet-4-5")
>>> p.input, p.cache_write, p.cache_read, p.output
(3.0, 3.75, 0.3, 15.0)
>>> round(dollars(1_000_000, p.input), 2)
3.0
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from snapshot.billing.providers import Fact

_OPENROUTER_SONNET = "https://openrouter.ai/anthropic/claude-sonnet-4.5"
_VERCEL_OPUS = "https://vercel.com/ai-gateway/models/anthropic/claude-opus-4.7.md"
_ANTHROPIC = "https://platform.claude.com/docs/en/about-claude/pricing"
_OPENAI = "https://openai.com/api/pricing"
_GOOGLE = "https://ai.google.dev/gemini-api/docs/pricing"
_RECALLED = "2025-11"
_RECALL_NOTE = "list price recalled, not re-checked offline; verify before quoting"


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens. ``None`` = no sourced figure."""

    model: str
    input: float
    cache_write: float | None
    cache_read: float | None
    output: float | None
    fact: Fact


#: Anthropic prices prompt caching as multiples of the input price: 5-minute cache
#: write 1.25x, cache read 0.1x (the 1-hour write, 2x, is not used here).
ANTHROPIC_CACHE_WRITE = 1.25
ANTHROPIC_CACHE_READ = 0.1
ANTHROPIC_CACHE_FACT = Fact(
    "https://platform.claude.com/docs/en/build-with-claude/prompt-caching",
    "uncertain",
    _RECALLED,
    "multipliers recalled from the pricing table, not re-checked offline",
)


def _anthropic(model: str, inp: float, out: float, fact: Fact | None = None) -> Price:
    return Price(
        model,
        inp,
        round(inp * ANTHROPIC_CACHE_WRITE, 6),
        round(inp * ANTHROPIC_CACHE_READ, 6),
        out,
        fact or Fact(_ANTHROPIC, "uncertain", _RECALLED, _RECALL_NOTE),
    )


def _openai(model: str, inp: float, cached: float, out: float) -> Price:
    return Price(model, inp, inp, cached, out, Fact(_OPENAI, "uncertain", _RECALLED, _RECALL_NOTE))


def _google(model: str, inp: float, cached: float | None, out: float) -> Price:
    note = _RECALL_NOTE + "; prompts up to 200k tokens"
    return Price(model, inp, inp, cached, out, Fact(_GOOGLE, "uncertain", _RECALLED, note))


_ROWS: tuple[Price, ...] = (
    _anthropic(
        "claude-sonnet-4-5",
        3.0,
        15.0,
        Fact(
            _OPENROUTER_SONNET,
            "documented",
            "2026",
            "input from '$4.80/K input imgs'; output recalled",
        ),
    ),
    _anthropic("claude-sonnet-4-6", 3.0, 15.0),
    _anthropic("claude-sonnet-4", 3.0, 15.0),
    _anthropic("claude-haiku-4-5", 1.0, 5.0),
    _anthropic("claude-opus-4-5", 5.0, 25.0),
    _anthropic("claude-opus-4-6", 5.0, 25.0),
    _anthropic(
        "claude-opus-4-7",
        5.0,
        25.0,
        Fact(_VERCEL_OPUS, "documented", "2026", "'$5/1M input' (list); output recalled"),
    ),
    _anthropic("claude-opus-4-1", 15.0, 75.0),
    _anthropic("claude-opus-4", 15.0, 75.0),
    _openai("gpt-4o", 2.50, 1.25, 10.0),
    _openai("gpt-4o-mini", 0.15, 0.075, 0.60),
    _openai("gpt-4.1", 2.00, 0.50, 8.00),
    _openai("gpt-4.1-mini", 0.40, 0.10, 1.60),
    _openai("gpt-4.1-nano", 0.10, 0.025, 0.40),
    _openai("gpt-5", 1.25, 0.125, 10.0),
    _openai("gpt-5.1", 1.25, 0.125, 10.0),
    _openai("gpt-5-mini", 0.25, 0.025, 2.00),
    _openai("gpt-5-nano", 0.05, 0.005, 0.40),
    _openai("o3", 2.00, 0.50, 8.00),
    _openai("o4-mini", 1.10, 0.275, 4.40),
    _openai("o3-mini", 1.10, 0.55, 4.40),
    _google("gemini-2.5-pro", 1.25, None, 10.0),
    _google("gemini-2.5-flash", 0.30, None, 2.50),
    _google("gemini-3-pro-preview", 2.00, None, 12.0),
)
PRICES: MappingProxyType[str, Price] = MappingProxyType({p.model: p for p in _ROWS})


def price_for(model: str) -> Price | None:
    """The price row of a canonical model id (see :func:`snapshot.profiles.profile_for`).

    >>> price_for("gpt-5.6-sol") is None  # no sourced price: report tokens only
    True
    """
    return PRICES.get(model)


def dollars(tokens: int, per_million: float | None) -> float | None:
    """Cost of ``tokens`` at ``per_million`` dollars; None when there is no price.

    >>> dollars(1456, 3.0)
    0.004368
    """
    if per_million is None:
        return None
    return round(tokens * per_million / 1_000_000, 9)
