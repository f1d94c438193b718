"""Every provider fact the tables hold, and the check that makes staleness visible.

``snapshot facts`` lists them; ``snapshot facts --check`` lists those older than
N days (a year-only date counts from its first day, a month from its first day)
or resting on a single unofficial source (no vendor documentation domain among
its sources), so a user sees which figures to doubt.

>>> rows = all_facts()
>>> any(r.table == "range" and r.key.startswith("GPT-6") for r in rows)
True
>>> fact_day("2026-11"), fact_day("2026"), fact_day("n/a")
('2026-11-01', '2026-01-01', None)
>>> is_official("https://platform.claude.com/docs/en/build-with-claude/vision")
True
>>> is_official("teamchong/pxpipe src/core/render.ts")
False
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from snapshot.billing import providers as tables
from snapshot.billing.rows import Fact
from snapshot.profiles.families import FAMILIES

#: Vendor documentation hosts: a source naming one of these is official.
OFFICIAL_HOSTS: tuple[str, ...] = (
    "platform.claude.com",
    "docs.claude.com",
    "docs.anthropic.com",
    "developers.openai.com",
    "platform.openai.com",
    "ai.google.dev",
    "cloud.google.com",
    "docs.aws.amazon.com",
    "learn.microsoft.com",
    "docs.x.ai",
    "docs.mistral.ai",
    "openrouter.ai",
    "docs.perceptron.inc",
)
#: Default age (days) past which a fact is listed by ``--check``.
DEFAULT_MAX_AGE_DAYS = 90

_DATE = re.compile(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?$")


@dataclass(frozen=True)
class FactRow:
    """One fact of one table: which table, which row, and the fact itself."""

    table: str
    key: str
    fact: Fact

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "key": self.key,
            "label": self.fact.label,
            "date": self.fact.date,
            "source": self.fact.source,
            "note": self.fact.note,
        }


@dataclass(frozen=True)
class Finding:
    """A fact ``--check`` lists, and why (``older than N days``, ``single unofficial source``)."""

    row: FactRow
    reasons: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {**self.row.to_json(), "reasons": list(self.reasons)}


def fact_day(date: str) -> str | None:
    """The first day a fact's date can mean (``2026`` → ``2026-01-01``), or None if undated.

    >>> fact_day("2026-09-23"), fact_day("2026-13")
    ('2026-09-23', None)
    """
    m = _DATE.match(date.strip())
    if m is None:
        return None
    year, month, day = m.group(1), m.group(2) or "01", m.group(3) or "01"
    try:
        return _dt.date(int(year), int(month), int(day)).isoformat()
    except ValueError:
        return None


def is_official(source: str) -> bool:
    """True when the source names a vendor's own documentation host.

    >>> is_official("https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle")
    True
    """
    return any(host in source for host in OFFICIAL_HOSTS)


def _sources(source: str) -> int:
    # Several sources are written "a; b" in one row.
    return len([s for s in re.split(r";\s+", source) if s.strip()])


def all_facts() -> list[FactRow]:
    """Every fact of every provider table, one row each (a fact shared by rows is listed per row).

    >>> [r.fact.label for r in all_facts() if r.table == "route lifecycle"][:1]
    ['documented']
    """
    return list(_iter_facts())


def _iter_facts() -> Iterator[FactRow]:
    for m in tables.MODELS.values():
        yield FactRow("model scheme", m.model, m.fact)
        if m.lifecycle.fact is not None:
            yield FactRow("lifecycle", m.model, m.lifecycle.fact)
    for (via, model), life in tables.ROUTE_LIFECYCLES.items():
        if life.fact is not None:
            yield FactRow("route lifecycle", f"{model} on {via}", life.fact)
    for name, (whose, fact) in tables.ROUTE_SCHEDULES.items():
        yield FactRow("route schedule", f"{name}: {whose}", fact)
    for rng in tables.RANGES:
        for end in rng.ends:
            yield FactRow("range", f"{rng.name} = {end.value}", end.fact)
    for model, (levels, fact) in tables.DETAIL_LEVELS.items():
        yield FactRow("detail levels", f"{model}: {', '.join(levels)}", fact)
    for alias, (target, fact) in tables.ALIASES.items():
        yield FactRow("alias", f"{alias} -> {target}", fact)
    for prefix in tables.PREFIX_FAMILIES:
        yield FactRow("prefix", prefix.prefix, prefix.fact)
    for route in tables.ROUTES:
        yield FactRow("route", f"{route.name}: {route.pattern.pattern}", route.fact)
    for lf in (*tables.LIMIT_FACTS, *tables.FALLBACK_LIMIT_FACTS):
        yield FactRow("limit", f"{lf.route} {lf.field} = {lf.value}", lf.fact)
    for fam in FAMILIES.values():
        for ev in fam.evidence:
            yield FactRow("reader evidence", f"{fam.name}: {ev.claim[:60]}", ev.fact)
    for model, tok in tables.TEXT_TOKENIZER_BY_MODEL.items():
        yield FactRow("text tokens", model, tok.fact)
    for family, tok in tables.TEXT_TOKENIZER_BY_FAMILY.items():
        yield FactRow("text tokens", f"family {family}", tok.fact)
    for meas in tables.MEASUREMENTS:
        yield FactRow("measurement", f"{meas.model} {meas.size[0]}x{meas.size[1]}", meas.fact)
    for own in tables.OWN_PRICES:
        yield FactRow("own price", f"{own.model} from {own.start}", own.fact)
    for tier in tables.TIERS:
        yield FactRow("price tier", f"{tier.provider} {tier.tier} x{tier.multiplier}", tier.fact)
    for geo in tables.GEOS:
        yield FactRow("inference geo", f"{geo.provider} {geo.geo} x{geo.multiplier}", geo.fact)
    for storage in tables.CACHE_STORAGE.values():
        yield FactRow(
            "cache storage", f"{storage.model} ${storage.per_mtok_hour}/Mtok/h", storage.fact
        )


def check(
    max_age_days: int = DEFAULT_MAX_AGE_DAYS, today: str | _dt.date | None = None
) -> list[Finding]:
    """Facts older than ``max_age_days`` on ``today``, or with a single unofficial source.

    >>> old = check(30, "2026-12-02")
    >>> [f.reasons for f in old if f.row.key == "gpt-6.1-sol" and f.row.table == "lifecycle"]
    [('older than 30 days', 'single unofficial source')]
    >>> any("older than 30 days" in f.reasons for f in old)
    True
    """
    day = (
        _dt.date.today()
        if today is None
        else _dt.date.fromisoformat(today)
        if isinstance(today, str)
        else today
    )
    cutoff = (day - _dt.timedelta(days=max_age_days)).isoformat()
    out = []
    for row in _iter_facts():
        reasons = []
        first = fact_day(row.fact.date)
        if first is None:
            reasons.append("undated")
        elif first < cutoff:
            reasons.append(f"older than {max_age_days} days")
        if not is_official(row.fact.source) and _sources(row.fact.source) == 1:
            reasons.append("single unofficial source")
        if reasons:
            out.append(Finding(row, tuple(reasons)))
    return out


@dataclass(frozen=True)
class Listing:
    """What ``snapshot facts`` prints: the facts listed (with reasons under ``--check``), of how many."""

    findings: list[Finding]
    total: int
    checked: bool


def facts_listing(
    *,
    check_only: bool = False,
    max_age_days: int = DEFAULT_MAX_AGE_DAYS,
    today: str | _dt.date | None = None,
) -> Listing:
    """Every fact (no reasons), or with ``check_only`` the ones :func:`check` lists.

    >>> every = facts_listing()
    >>> every.total == len(every.findings) and not every.checked
    True
    >>> doubtful = facts_listing(check_only=True, max_age_days=90, today="2026-12-02")
    >>> 0 < len(doubtful.findings) < doubtful.total
    True
    """
    rows = all_facts()
    if not check_only:
        return Listing([Finding(r, ()) for r in rows], len(rows), False)
    return Listing(check(max_age_days, today), len(rows), True)


__all__ = [
    "DEFAULT_MAX_AGE_DAYS",
    "OFFICIAL_HOSTS",
    "FactRow",
    "Finding",
    "Listing",
    "all_facts",
    "check",
    "fact_day",
    "facts_listing",
    "is_official",
]
