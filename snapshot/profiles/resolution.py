"""Model id → :class:`~snapshot.profiles.profile.Profile`, and the one text-token counter.

Resolution never prices or bills a sibling. In order: a gateway route shape
(Bedrock ids and ARNs, Vertex ``@date``, OpenRouter ``vendor/model``), then the
exact id, an alias, a dated snapshot of the same model (``-20251101``,
``-2024-08-06``, ``-0709``) or a variant billed as the model (``[1m]``), and
only then a prefix the table declares a family sharing one scheme and price
(reported as ``resolved_by: "prefix"``). Anything else is unknown, with the
nearest current ids in the message.

A deprecated or retired id still resolves (old transcripts name them); the
first use of each such id in a process says so on stderr.

>>> p = profile_for("us.anthropic.claude-sonnet-4-6")
>>> p.canonical, p.route, p.resolved_by
('claude-sonnet-4-6', 'bedrock', 'exact')
>>> image_tokens("gpt-4o", 1024, 1024)
765
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from snapshot.billing import providers as tables
from snapshot.billing.rows import Family, Lifecycle, LimitFact, Model
from snapshot.billing.text_tokens import TextCount, count_text
from snapshot.errors import UnknownModelError
from snapshot.profiles.families import FALLBACK_FAMILY, FAMILIES
from snapshot.profiles.limits import Limits
from snapshot.profiles.profile import Profile

_DOTTED_VERSION = re.compile(r"(?<=\d)\.(?=\d)")


@dataclass(frozen=True)
class Resolution:
    """How an id was found: the model row, the route, and by what rule."""

    model: Model
    route: str
    resolved_by: str  # exact | alias | dated | variant | prefix
    prefix_family: str | None = None
    inner_id: str = ""  # the id inside the gateway shape (what the vendor calls it)
    price_provider: str | None = None  # genai-prices provider of the route, if not the vendor's
    price_inner: bool = False  # the route's price rows list the inner id


def _lookup(name: str) -> tuple[Model, str, str | None] | None:
    """(row, resolved_by, prefix family) for a vendor id, or None."""
    name = name.strip().lower()
    if name in tables.MODELS:
        return tables.MODELS[name], "exact", None
    if name in tables.ALIASES:
        return tables.MODELS[tables.ALIASES[name][0]], "alias", None
    for pattern, _ in tables.VARIANT_SUFFIXES:
        base = pattern.sub("", name)
        if base != name:
            found = _lookup(base)
            if found is not None:
                return found[0], "variant", found[2]
    # Dated snapshots of the same model: strip one suffix at a time.
    current = name
    for _ in range(2):
        for pattern in tables.DATE_SUFFIXES:
            shorter = pattern.sub("", current)
            if shorter == current:
                continue
            if shorter in tables.MODELS:
                return tables.MODELS[shorter], "dated", None
            if shorter in tables.ALIASES:
                return tables.MODELS[tables.ALIASES[shorter][0]], "dated", None
            current = shorter
    for family in sorted(tables.PREFIX_FAMILIES, key=lambda f: len(f.prefix), reverse=True):
        if name.startswith(family.prefix):
            return tables.MODELS[family.model], "prefix", family.prefix
    return None


def resolve_id(model_id: str) -> Resolution | None:
    """How ``model_id`` resolves, or None when no rule does.

    >>> r = resolve_id("claude-opus-4-5@20251101")
    >>> r.model.model, r.route, r.resolved_by
    ('claude-opus-4-5', 'vertex', 'exact')
    >>> resolve_id("gpt-5-pro").model.model  # its own row, not gpt-5's
    'gpt-5-pro'
    >>> resolve_id("qwen2.5-vl-7b-instruct").resolved_by
    'prefix'
    """
    name = model_id.strip().lower()
    for route in tables.ROUTES:
        m = route.pattern.match(name)
        if m is None:
            continue
        inner = m.group("model")
        variants = [inner, _DOTTED_VERSION.sub("-", inner)] if route.dotted else [inner]
        for v in variants:
            found = _lookup(v)
            if found is None:
                continue
            row, how, prefix = found
            if route.name == "direct":
                provider = FAMILIES[row.family].provider
                return Resolution(row, tables.DIRECT_ROUTE[provider], how, prefix, v)
            return Resolution(
                row, route.name, how, prefix, v, route.price_provider, route.price_inner
            )
    found = _lookup(name)
    if found is None:
        return None
    row, how, prefix = found
    provider = FAMILIES[row.family].provider
    return Resolution(row, tables.DIRECT_ROUTE[provider], how, prefix, name)


def resolve(model_id: str) -> tuple[Model, str] | None:
    """(model row, route name) for an id, or None (see :func:`resolve_id` for the rule used).

    >>> row, route = resolve("anthropic/claude-sonnet-4.6")
    >>> row.model, route
    ('claude-sonnet-4-6', 'openrouter')
    """
    found = resolve_id(model_id)
    return None if found is None else (found.model, found.route)


def current_ids(today: str | date | None = None) -> list[str]:
    """Every model id whose status is ``current`` on ``today``.

    >>> "claude-sonnet-5-5" in current_ids("2026-12-01")
    True
    >>> "claude-sonnet-4-5" in current_ids("2026-12-01")
    False
    """
    return [m.model for m in tables.MODELS.values() if m.lifecycle.status(today) == "current"]


def nearest_current_ids(
    model_id: str, today: str | date | None = None, limit: int = 3, *, provider: str | None = None
) -> list[str]:
    """The current ids closest in spelling to ``model_id`` (same provider, else same stem).

    >>> nearest_current_ids("claude-sonet-5-5", "2026-12-01")[0]
    'claude-sonnet-5-5'
    """
    name = model_id.strip().lower()
    pool = current_ids(today)
    if provider is not None:
        same = [m for m in pool if FAMILIES[tables.MODELS[m].family].provider == provider]
    else:
        stem = name.split("-")[0]
        same = [m for m in pool if m.split("-")[0] == stem]
    same = same or pool
    close = difflib.get_close_matches(name, same, n=limit, cutoff=0.0)
    return close[:limit]


def _unknown_message(model_id: str) -> str:
    near = ", ".join(nearest_current_ids(model_id))
    return (
        f"unknown model {model_id!r}: no provider table resolves it (no sibling is guessed); "
        f"nearest current ids: {near}; see `snapshot profiles`, or use --fallback / a --profile FILE"
    )


def _build(
    model_id: str,
    row: Model,
    family: Family,
    route: str,
    *,
    fallback: bool = False,
    resolution: Resolution | None = None,
) -> Profile:
    facts: list[LimitFact] = [
        *tables.limit_facts_for(family.provider if not fallback else "fallback")
    ]
    if route not in (family.provider, "fallback"):
        facts.extend(tables.limit_facts_for(route))  # a gateway only adds restrictions
    vendor_price = tables.PRICE_PROVIDER.get(family.provider)
    lifecycle, schedule = _route_lifecycle(row, family.provider, route)
    price_ids: list[tuple[str, str | None]] = []
    if resolution is not None:
        if resolution.price_provider is not None:
            own = resolution.inner_id if resolution.price_inner else model_id.strip().lower()
            price_ids.append((own, resolution.price_provider))
        price_ids.append((resolution.inner_id, vendor_price))
    elif not fallback:
        price_ids.append((model_id.strip().lower(), vendor_price))
    return Profile(
        model=model_id,
        canonical=row.model,
        family=family.name,
        provider=family.provider,
        route=route,
        scheme=row.scheme,
        scheme_fact=row.fact,
        vision=family.vision,
        font=family.font,
        legible_max=family.legible_max,
        limits=Limits.from_facts(facts),
        evidence=family.evidence,
        fallback=fallback,
        resolved_by="fallback" if fallback else (resolution.resolved_by if resolution else "exact"),
        prefix_family=resolution.prefix_family if resolution else None,
        lifecycle=lifecycle,
        schedule=schedule,
        max_pixels=family.max_pixels,
        price_ids=tuple(dict.fromkeys(price_ids)),
    )


def _route_lifecycle(row: Model, vendor: str, route: str) -> tuple[Lifecycle, str]:
    """The lifecycle on this route and whose schedule it is (partners set their own).

    >>> life, whose = _route_lifecycle(tables.MODELS["claude-sonnet-4-5"], "anthropic", "bedrock")
    >>> life.retired, whose
    ('2027-04-08', "Amazon Bedrock's schedule")
    >>> _route_lifecycle(tables.MODELS["claude-opus-5-5"], "anthropic", "bedrock")[1]
    "the Claude API's schedule (Amazon Bedrock's sets its own; none tabled for this id)"
    """
    own = tables.ROUTE_LIFECYCLES.get((route, row.model))
    vendor_name = f"{tables.VENDOR_SCHEDULES.get(vendor, 'the vendor' + chr(39) + 's')} schedule"
    if own is not None:
        if own.successor is None and row.lifecycle.successor is not None:
            own = dataclasses.replace(own, successor=row.lifecycle.successor)
        return own, f"{tables.ROUTE_SCHEDULES[route][0]} schedule"
    partner = tables.ROUTE_SCHEDULES.get(route)
    if partner is None or route == "openrouter":
        return row.lifecycle, vendor_name
    return row.lifecycle, f"{vendor_name} ({partner[0]} sets its own; none tabled for this id)"


def fallback_profile(model_id: str = "fallback") -> Profile:
    """The documented conservative profile for a model no table knows (no price: unknown id).

    >>> p = fallback_profile("my-vlm")
    >>> p.font, p.legible_max, p.fallback, p.price() is None
    ('snap8x16', (768, 1024), True, True)
    """
    return _build(model_id, tables.FALLBACK_MODEL, FALLBACK_FAMILY, "fallback", fallback=True)


_NOTIFIED: set[str] = set()


def lifecycle_notice(profile: Profile, today: str | date | None = None) -> str | None:
    """One line saying a deprecated or retired id is in use, with its successor; else None.

    >>> p = profile_for("claude-sonnet-4-5", warn=False)
    >>> print(lifecycle_notice(p, "2026-12-01"))  # doctest: +ELLIPSIS
    claude-sonnet-4-5 was retired on 2026-11-30 ...; use claude-sonnet-5-5
    """
    status = profile.status(today)
    if status == "current":
        return None
    life = profile.lifecycle
    if status == "retired" and life.routed_to:
        what = (
            f"was retired on {life.retired}; calls are routed to {life.routed_to} and billed "
            f"at its rates (figures here are the retired model's; --model {life.routed_to} "
            "gives today's bill)"
        )
    elif status == "retired":
        what = f"was retired on {life.retired}"
    elif status == "deprecated":
        when = f" on {life.retired}" if life.retired else ""
        what = f"is deprecated (since {life.deprecated}) and shuts down{when}"
    else:
        what = f"is not released until {life.released}"
    src = f" ({profile.schedule}: {life.fact.source})" if life.fact else f" ({profile.schedule})"
    near = (
        [life.successor]
        if life.successor
        else nearest_current_ids(profile.canonical, today, provider=profile.provider)
    )
    after = (
        "it still resolves for old transcripts, but new requests fail or are re-routed"
        if status == "retired"
        else "it still works for now"
    )
    return f"{profile.model} {what}{src}; {after}; use {', '.join(near)}"


def _notify(profile: Profile) -> None:
    if profile.model in _NOTIFIED:
        return
    line = lifecycle_notice(profile)
    if line is not None:
        _NOTIFIED.add(profile.model)
        print(f"snapshot: warning: {line}", file=sys.stderr)


def profile_for(
    model_id: str,
    *,
    fallback: bool = False,
    overrides: Mapping[str, Profile] | None = None,
    detail: str | None = None,
    warn: bool = True,
) -> Profile:
    """Resolve a model id (exact, alias, dated, gateway route) to its :class:`Profile`.

    ``overrides`` (from ``load_profiles``) win over the tables. An unknown id
    raises :class:`~snapshot.errors.UnknownModelError` naming the nearest current
    ids, unless ``fallback`` asks for the conservative profile. ``detail`` picks an
    OpenAI detail level or a Gemini media_resolution. With ``warn`` (the default) a
    deprecated or retired id is announced once per process on stderr.

    >>> profile_for("anthropic/claude-sonnet-4.6").route
    'openrouter'
    >>> profile_for("deepseek-chat").vision
    False
    """
    if overrides and model_id in overrides:
        profile = overrides[model_id]
    else:
        found = resolve_id(model_id)
        if found is None:
            if not fallback:
                raise UnknownModelError(_unknown_message(model_id))
            profile = fallback_profile(model_id)
        else:
            profile = _build(
                model_id,
                found.model,
                FAMILIES[found.model.family],
                found.route,
                resolution=found,
            )
    if warn:
        _notify(profile)
    return profile.with_detail(detail) if detail else profile


def image_tokens(model: str | Profile, width: int, height: int) -> int:
    """Image tokens billed for one width × height image on a model (id or profile).

    >>> image_tokens("claude-sonnet-4-6", 1920, 1080)
    1560
    >>> image_tokens("claude-opus-5", 2000, 1500)
    3888
    """
    profile = model if isinstance(model, Profile) else profile_for(model)
    return profile.image_tokens(width, height)


def count_text_tokens(model: str | Profile, text: str) -> TextCount:
    """Text tokens of ``text`` for a model: the one counter every command uses.

    ``exact`` for OpenAI (o200k), ``reconstruction`` for Claude (ctok), ``estimate``
    (labelled) for Gemini and others; ``.kind`` says which.

    >>> count_text_tokens("gpt-4o", "hello world").tokens
    2
    >>> count_text_tokens("gemini-3.8-flash", "x" * 40).kind
    'estimate'
    """
    profile = model if isinstance(model, Profile) else profile_for(model)
    return count_text(text, profile.text_tokenizer)


def all_profiles() -> list[Profile]:
    """One profile per model row, on its vendor's own route (no lifecycle notices).

    >>> len(all_profiles()) == len(tables.MODELS)
    True
    """
    return [profile_for(m, warn=False) for m in tables.MODELS]


__all__ = [
    "Resolution",
    "all_profiles",
    "count_text_tokens",
    "current_ids",
    "fallback_profile",
    "image_tokens",
    "lifecycle_notice",
    "nearest_current_ids",
    "profile_for",
    "resolve",
    "resolve_id",
]
