"""Row types of the provider tables, and the check that runs on them at import.

The rows themselves live in private pure-data modules (:mod:`snapshot.billing._models`,
:mod:`snapshot.billing._routes`, :mod:`snapshot.billing._text`); this module says what
a row is. :func:`validate_tables` cross-checks the tables and raises
:class:`TableError` on a broken one (a plain ``raise``: ``python -O`` cannot skip it).

>>> Fact("https://x", "measured", "2026-07").cite()
'measured: https://x (2026-07)'
>>> Lifecycle(released="2025-09-29", retired="2026-11-30").status("2026-12-01")
'retired'
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import Literal

from snapshot.billing.schemes import Label, Scheme

Provider = Literal["anthropic", "openai", "google", "xai", "mistral", "qwen", "deepseek", "unknown"]
Status = Literal["current", "deprecated", "retired", "unreleased"]


class TableError(RuntimeError):
    """A provider table contradicts itself: a bug in the package, not in the input."""


@dataclass(frozen=True)
class Fact:
    """Where a row comes from: a source, a trust label and a date."""

    source: str
    label: Label
    date: str
    note: str = ""

    def cite(self) -> str:
        """One line for reports: ``label: source (date)``."""
        extra = f"; {self.note}" if self.note else ""
        return f"{self.label}: {self.source} ({self.date}){extra}"


@dataclass(frozen=True)
class Evidence:
    """One reader-legibility finding (or page constraint) behind a family's font or page bound."""

    claim: str
    fact: Fact


@dataclass(frozen=True)
class Family:
    """Models that share a reader: the default font and the largest page read well.

    ``legible_max`` bounds the page (width, height) the solver may propose.
    ``max_pixels`` is a measured area constraint a page must also satisfy (pxpipe's
    ``count_tokens`` sweep on Claude's standard tier found a ~1.15 MP resize the
    documented rule does not mention); the evidence row saying so is in ``evidence``.
    """

    name: str
    provider: Provider
    font: str
    legible_max: tuple[int, int]
    evidence: tuple[Evidence, ...]
    vision: bool = True
    max_pixels: int | None = None


@dataclass(frozen=True)
class Lifecycle:
    """Release, deprecation and shutdown of one model id, with the source that says so.

    Dates are ISO days (``YYYY-MM-DD``); ``None`` means no such event is announced.
    ``routed_to``: after ``retired`` the provider re-routes calls to that model and
    bills them at its rates (Gemini 2.5 Pro/Flash, 2026-12-01).
    """

    released: str | None = None
    deprecated: str | None = None
    retired: str | None = None
    successor: str | None = None
    fact: Fact | None = None
    # After shutdown the provider serves (and bills) calls to this id as this model.
    routed_to: str | None = None

    def status(self, today: str | _dt.date | None = None) -> Status:
        """``current``, ``deprecated`` (announced, still served), ``retired`` or ``unreleased``."""
        day = _iso(today)
        if self.retired and day >= self.retired:
            return "retired"
        if self.released and day < self.released:
            return "unreleased"
        if self.deprecated and day >= self.deprecated:
            return "deprecated"
        return "current"


def _iso(today: str | _dt.date | None) -> str:
    if today is None:
        return _dt.date.today().isoformat()
    return today if isinstance(today, str) else today.isoformat()


@dataclass(frozen=True)
class Model:
    """One model id: its family, billing scheme (with source) and lifecycle.

    ``benchmark`` marks a general-purpose model a benchmark should cover; the
    report's default models are the newest current ones so marked, per provider.
    """

    model: str
    family: str
    scheme: Scheme
    fact: Fact
    lifecycle: Lifecycle = field(default_factory=Lifecycle)
    benchmark: bool = False


@dataclass(frozen=True)
class PrefixFamily:
    """A prefix the table allows: every id under it shares one scheme and one price.

    Used only after exact ids, aliases and dated snapshots fail; a match is
    reported as ``resolved_by: "prefix"`` naming this family.
    """

    prefix: str
    model: str
    fact: Fact


LimitField = Literal[
    "max_images", "max_image_bytes", "max_request_bytes", "many_images", "many_images_max_side"
]
LIMIT_FIELDS: tuple[LimitField, ...] = (
    "max_images",
    "max_image_bytes",
    "max_request_bytes",
    "many_images",
    "many_images_max_side",
)


@dataclass(frozen=True)
class LimitFact:
    """One request limit of one route: images per request, bytes per image or request.

    ``many_images`` / ``many_images_max_side``: above that many images in one
    request, every image side must stay within the stricter maximum.
    Byte sizes are of the base64-encoded image where the vendor says so.
    """

    route: str
    field: LimitField
    value: int
    fact: Fact


@dataclass(frozen=True)
class Route:
    """A gateway id shape: a regex whose ``model`` group is the id to resolve further.

    ``dotted`` means the gateway writes version numbers with dots
    (``claude-sonnet-4.5``) where the vendor uses hyphens. ``price_provider`` is the
    genai-prices provider id that prices calls on this route (None: the vendor's).
    """

    name: str
    pattern: re.Pattern[str]
    fact: Fact
    dotted: bool = False
    price_provider: str | None = None
    # The price database lists the id inside the shape (azure/gpt-6-sol as gpt-6-sol).
    price_inner: bool = False


TextMethod = Literal["exact", "reconstruction", "estimate"]


@dataclass(frozen=True)
class TextTokenizer:
    """How text tokens are counted: an exact BPE, a reconstruction, or chars per token.

    ``encoding`` names a quicktok encoding (exact); ``ctok_version`` a ctok
    tokenizer version (Claude, reconstruction); otherwise ``chars_per_token`` is a
    documented average and every number made from it is an estimate.
    """

    method: TextMethod
    fact: Fact
    encoding: str | None = None
    ctok_version: str | None = None
    chars_per_token: float | None = None


@dataclass(frozen=True)
class BillMeasurement:
    """A bill someone measured: model, upload size, billed tokens (may include overhead)."""

    model: str
    size: tuple[int, int]
    tokens: int
    fact: Fact


@dataclass(frozen=True)
class RangeEnd:
    """One source's value of a disputed fact (a scheme field as its decimal string)."""

    value: str
    fact: Fact


@dataclass(frozen=True)
class RangeFact:
    """A fact whose sources disagree, carried as the range it is, each end with its source.

    ``field`` names the scheme attribute the sources disagree on (``multiplier``);
    ``point`` is the value the model rows bill at until a measurement settles it
    (one of the ends). Every result that depends on it is shown at both ends.
    """

    name: str
    models: tuple[str, ...]
    field: str
    ends: tuple[RangeEnd, ...]
    point: str


@dataclass(frozen=True)
class RouteLifecycle:
    """A partner route's own lifecycle for a model (Bedrock, Vertex, Azure set their own dates)."""

    route: str
    model: str
    lifecycle: Lifecycle


@dataclass(frozen=True)
class OwnPrice:
    """A price the pinned database lacks or has stale: the package's own sourced row.

    Applies to requests dated ``start`` (inclusive) to ``end`` (inclusive; None: open).
    ``rates`` are dollars per million tokens (``input``, ``cache_read``, ``output``);
    ``over_database``: the row corrects the database's price for the id (its other
    rates and long-context tiers are kept, tiers scaled by the same ratio) rather than
    standing alone.
    """

    model: str
    provider: str
    start: str
    end: str | None
    rates: tuple[tuple[str, float], ...]
    fact: Fact
    over_database: bool = False
    # Long-context tiers of a standalone row: (from input tokens, input x, output x).
    tiers: tuple[tuple[int, float, float], ...] = ()


PriceTierName = Literal["standard", "batch", "flex", "priority"]


@dataclass(frozen=True)
class TierRow:
    """A price tier a provider offers, as a multiplier on its standard rates.

    Used where the price database has no variant for the id; ``context`` is the
    database's own price context for the tier (``{"processing": "batch"}``).
    """

    provider: str
    tier: PriceTierName
    multiplier: float
    fact: Fact
    context: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class GeoRow:
    """A data-residency option that scales every token rate (Anthropic ``inference_geo``).

    Offered on ``route`` (the vendor's own API) for the canonical ids in ``models``
    only; ``multiplier`` applies to input, output, cache-write and cache-read rates.

    >>> row = GeoRow("anthropic", "anthropic", "us", 1.1, ("claude-opus-5",), Fact("x", "documented", "2026-12-01"))
    >>> "claude-opus-5" in row.models, row.multiplier
    (True, 1.1)
    """

    provider: str
    route: str
    geo: str
    multiplier: float
    models: tuple[str, ...]
    fact: Fact


@dataclass(frozen=True)
class CacheStorageRow:
    """What keeping tokens in an explicit context cache costs per hour (Gemini bills storage).

    ``model`` is the price database's id (a :class:`~snapshot.billing.prices.Price`'s
    ``matched_model``) of the vendor's own API.

    >>> row = CacheStorageRow("gemini-3.8-flash", 0.5, Fact("x", "documented", "2026-11-09"))
    >>> round(100_000 * row.per_mtok_hour / 1e6, 4)  # dollars per hour for 100k cached tokens
    0.05
    """

    model: str
    per_mtok_hour: float
    fact: Fact


_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def check_lifecycle(model: str, life: Lifecycle) -> None:
    """Raise :class:`TableError` unless the dates are ISO days in order and sourced.

    >>> check_lifecycle("x", Lifecycle(released="2026-02-30"))
    Traceback (most recent call last):
    ...
    snapshot.billing.rows.TableError: x: lifecycle date '2026-02-30' is not a real YYYY-MM-DD day
    """
    days = [d for d in (life.released, life.deprecated, life.retired) if d is not None]
    for d in days:
        try:
            if not _DAY.match(d):
                raise ValueError(d)
            _dt.date.fromisoformat(d)
        except ValueError:
            raise TableError(
                f"{model}: lifecycle date {d!r} is not a real YYYY-MM-DD day"
            ) from None
    if days != sorted(days):
        raise TableError(f"{model}: lifecycle dates out of order: {days}")
    if days and life.fact is None:
        raise TableError(f"{model}: lifecycle dates without a source")


__all__ = [
    "LIMIT_FIELDS",
    "BillMeasurement",
    "CacheStorageRow",
    "Evidence",
    "Fact",
    "Family",
    "GeoRow",
    "Lifecycle",
    "LimitFact",
    "Model",
    "OwnPrice",
    "PrefixFamily",
    "PriceTierName",
    "Provider",
    "RangeEnd",
    "RangeFact",
    "Route",
    "RouteLifecycle",
    "Status",
    "TableError",
    "TextMethod",
    "TextTokenizer",
    "TierRow",
    "check_lifecycle",
]
