"""Dollars for a compacted request and for the turns that follow it, with prompt caching.

After a compaction the conversation goes on. Each following turn sends the
compacted prefix plus everything since; a provider's prompt cache bills what
it has seen before at the cache-read price and the rest at the cache-write
price. A strategy whose prefix stays byte-identical (a snapshot redrawn from
the same source, a summary, a one-off elision) pays the cache write once; one
that changes the prefix every turn pays it again every turn.

>>> from snapshot.billing.prices import price_for
>>> p = price_for("claude-sonnet-4-5")
>>> round(session_dollars(10_000, 500, 3, p, prefix_stable=True), 4)
0.0496
>>> round(session_dollars(10_000, 500, 3, p, prefix_stable=False), 4)
0.1237
"""

from __future__ import annotations

from collections.abc import Sequence

from snapshot.billing.prices import Price


def _rate(value: float | None, fallback: float) -> float:
    return fallback if value is None else value


def request_dollars(tokens: int, price: Price | None) -> float | None:
    """The compacted request itself, uncached, at the input price."""
    if price is None:
        return None
    return tokens * price.at(tokens).input / 1e6


def session_dollars(
    prefix_tokens: int,
    turn_tokens: int,
    turns: int,
    price: Price | None,
    *,
    prefix_stable: bool,
) -> float | None:
    """Input cost of ``turns`` requests after compaction (output is the same for every strategy).

    Turn ``t`` sends the prefix plus ``t`` turns of new material. With a
    stable prefix everything sent before is a cache read and only the newest
    turn a cache write; otherwise the whole request is written again.
    """
    if price is None:
        return None
    total = 0.0
    for t in range(1, turns + 1):
        sent_before = prefix_tokens + (t - 1) * turn_tokens
        # Long-context tiers: the rates are those of this request's prompt size.
        rates = price.at(sent_before + turn_tokens)
        write = _rate(rates.cache_write, rates.input) / 1e6
        read = _rate(rates.cache_read, rates.input) / 1e6
        if t == 1 or not prefix_stable:
            total += (sent_before + turn_tokens) * write
        else:
            total += sent_before * read + turn_tokens * write
    return total


def summary_call_dollars(
    input_tokens: int, output_tokens: int, price: Price | None
) -> float | None:
    """The summarizing model call: its input uncached, its output at the output price."""
    if price is None or price.output is None:
        return None
    rates = price.at(input_tokens)
    return (input_tokens * rates.input + output_tokens * (rates.output or price.output)) / 1e6


def check_tier(
    models: Sequence[str], tier: str, day: str | None = None, profiles_file: str | None = None
) -> None:
    """Refuse a run whose price tier one of its models' vendors lacks, before it starts.

    The models are the report's (:func:`snapshot.report.models.profile_of`, with
    ``profiles_file``). Raises :class:`~snapshot.errors.InputError` naming the model
    and the tiers it has.

    >>> check_tier(["gpt-6.1-sol", "gemini-3.8-flash"], "batch", "2026-12-02")
    >>> check_tier(["claude-sonnet-5-5"], "flex", "2026-12-02")
    Traceback (most recent call last):
    ...
    snapshot.errors.InputError: --tier flex: claude-sonnet-5-5: anthropic has no 'flex' price tier here; tiers: standard, batch
    """
    from snapshot.errors import InputError
    from snapshot.report.models import profile_of

    if tier == "standard":
        return
    for model in models:
        try:
            profile_of(model, profiles_file).price(day or None, tier)
        except InputError as exc:
            raise InputError(f"--tier {tier}: {exc}") from None
