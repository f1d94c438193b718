"""Which models are current, and the report's default models: chosen from the table, by date.

>>> current_default_models("2026-12-01")
('claude-sonnet-5-5', 'gpt-6.1-sol', 'gemini-3.8-flash')
"""

from __future__ import annotations

from datetime import date

from snapshot.billing import providers as tables
from snapshot.billing.rows import Model
from snapshot.profiles.families import FAMILIES

#: The providers a default benchmark covers, in report order.
DEFAULT_PROVIDERS: tuple[str, ...] = ("anthropic", "openai", "google")


def current_lineup(provider: str, today: str | date | None = None) -> list[Model]:
    """The current model rows of one provider on ``today``, newest release first.

    >>> [m.model for m in current_lineup("anthropic", "2026-12-01")][:2]
    ['claude-sonnet-5-5', 'claude-opus-5-5']
    """
    rows = [
        m
        for m in tables.MODELS.values()
        if FAMILIES[m.family].provider == provider and m.lifecycle.status(today) == "current"
    ]
    return sorted(rows, key=lambda m: (m.lifecycle.released or "", m.model), reverse=True)


def current_default_models(today: str | date | None = None) -> tuple[str, ...]:
    """Per provider, the newest current vision model the table marks ``benchmark``.

    Runs on the day it is called (``today`` defaults to now), so a default that
    retires drops out without anyone editing a list.
    """
    out: list[str] = []
    for provider in DEFAULT_PROVIDERS:
        picks = [
            m for m in current_lineup(provider, today) if m.benchmark and FAMILIES[m.family].vision
        ]
        if picks:
            out.append(picks[0].model)
    return tuple(out)


_STATUS_ORDER = {"current": 0, "deprecated": 1, "unreleased": 2, "retired": 3}


def lineup(today: str | date | None = None, *, current_only: bool = False) -> list[str]:
    """Every model id, by provider, then status (current first), then newest release.

    >>> lineup("2026-12-01", current_only=True)[0]
    'claude-sonnet-5-5'
    """
    order = {p: i for i, p in enumerate(tables.PROVIDERS)}

    def key(m: Model) -> tuple[int, int, str, str]:
        status = _STATUS_ORDER[m.lifecycle.status(today)]
        released = m.lifecycle.released or ""
        # newest first: invert the date's characters into a descending sort key
        inverted = "".join(chr(0x10FFFF - ord(c)) for c in released) or "\U0010ffff"
        provider = FAMILIES[m.family].provider
        return (order.get(provider, len(order)), status, inverted, m.model)

    rows = sorted(tables.MODELS.values(), key=key)
    if current_only:
        rows = [m for m in rows if m.lifecycle.status(today) == "current"]
    return [m.model for m in rows]


__all__ = ["DEFAULT_PROVIDERS", "current_default_models", "current_lineup", "lineup"]
