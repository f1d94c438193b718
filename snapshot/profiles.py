"""Model id → Profile: billing scheme, request limits, font and the page that wins.

A :class:`Profile` joins what the tables in :mod:`snapshot.billing.providers`
say about one model id: the billing scheme (decided by the model), the request
limits (decided by the route: the vendor's API, Bedrock, Vertex, OpenRouter),
the default font (decided by the reader evidence of the model's family) and
whether the model can see at all.

The page is chosen by :func:`solve_page`: among pages the provider passes on
unresampled (``seen == size``), inside the family's legible bound and the
route's byte and image budgets, the one with the most characters per billed
token (ties: more characters per page, then the smaller page).

>>> p = profile_for("us.anthropic.claude-sonnet-4-5-20250929-v1:0")
>>> p.canonical, p.route, p.limits.max_image_bytes
('claude-sonnet-4-5', 'bedrock', 5242880)
>>> image_tokens("gpt-4o", 1024, 1024)
765
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snapshot.billing import providers as tables
from snapshot.billing.providers import Evidence, Fact, Family, LimitFact, Model
from snapshot.billing.schemes import Scheme, scheme_from_dict, scheme_to_dict
from snapshot.errors import BudgetError, InputError, UnknownModelError

if TYPE_CHECKING:
    from snapshot.geometry import Geometry
    from snapshot.glyphs import Font


# --------------------------------------------------------------------------- limits


@dataclass(frozen=True)
class Limits:
    """Request limits of one route (None = no limit known).

    ``many_images`` / ``many_images_max_side``: with more than ``many_images``
    images in one request, every side must be at most ``many_images_max_side``.
    """

    max_images: int | None = None
    max_image_bytes: int | None = None
    max_request_bytes: int | None = None
    many_images: int | None = None
    many_images_max_side: int | None = None
    sources: tuple[LimitFact, ...] = ()

    @classmethod
    def from_facts(cls, facts: Iterable[LimitFact]) -> Limits:
        """Fold limit rows; where two rows set one field, the stricter wins.

        >>> Limits.from_facts(tables.limit_facts_for("anthropic")).max_images
        100
        """
        values: dict[str, int] = {}
        kept: list[LimitFact] = []
        for f in facts:
            if f.field not in values or f.value < values[f.field]:
                values[f.field] = f.value
            kept.append(f)
        return cls(**values, sources=tuple(kept))

    def side_cap(self) -> int | None:
        """The per-side maximum that applies when the request may carry ``max_images``."""
        if self.many_images is None or self.many_images_max_side is None:
            return None
        if self.max_images is not None and self.max_images <= self.many_images:
            return None
        return self.many_images_max_side


def png_bytes_bound(width: int, height: int) -> int:
    """Worst-case size of a 1-bit PNG page, base64-encoded (incompressible data).

    Providers count the base64 form. 1-bit is what ``raster.to_png`` writes.

    >>> png_bytes_bound(1568, 728)
    218204
    """
    raw = height * (1 + math.ceil(width / 8))  # filter byte + packed row
    # zlib's deflateBound() for non-default settings (raster.to_png uses memLevel 9 and
    # Z_RLE), which holds for any input, plus the 6-byte zlib wrapper.
    deflate = raw + ((raw + 7) >> 3) + ((raw + 63) >> 6) + 5 + 6
    png = 8 + 25 + 12 + 12 + deflate  # signature, IHDR, IEND, one IDAT chunk
    return 4 * math.ceil(png / 3)


# --------------------------------------------------------------------------- solver


@dataclass(frozen=True)
class Solution:
    """A solved page: its size, grid and bill."""

    size: tuple[int, int]
    cols: int
    rows: int
    chars_per_page: int
    tokens: int
    png_bytes_bound: int

    @property
    def chars_per_token(self) -> float:
        return self.chars_per_page / self.tokens


def _grid(
    font: Font, width: int, height: int, padding: int, col_gap: int = 0, row_gap: int = 0
) -> tuple[int, int] | None:
    """(cols, rows) that fit a width × height page, or None when none fit."""
    from snapshot.geometry import Geometry

    try:
        g = Geometry.fit(font, width, height, padding=padding, col_gap=col_gap, row_gap=row_gap)
    except InputError:
        return None
    return g.cols, g.rows


@functools.lru_cache(maxsize=256)
def solve_page(
    scheme: Scheme,
    font_name: str,
    legible_max: tuple[int, int],
    limits: Limits,
    padding: int = 2,
) -> Solution:
    """The page with the most characters per billed token that is never resampled.

    Tries every side length the scheme suggests (multiples of its patch or tile)
    up to the legible bound (and the many-images side cap when the route allows
    more images than that rule's threshold); keeps pages with
    ``scheme.seen(w, h) == (w, h)`` whose worst-case PNG fits the byte budgets.
    Cols depend on the width only and rows on the height only, so the grid is
    measured once per side.

    >>> from snapshot.billing.schemes import OpenAITiles
    >>> solve_page(OpenAITiles(), "snap8x16", (2048, 2048), Limits()).size
    (512, 2048)
    """
    bound_w, bound_h = legible_max
    cap = limits.side_cap()
    if cap is not None:
        bound_w, bound_h = min(bound_w, cap), min(bound_h, cap)
    widths, heights = scheme.sides(bound_w), scheme.sides(bound_h)
    if not widths or not heights:
        raise BudgetError(f"no page fits {scheme.describe()} inside {bound_w}x{bound_h}")
    from snapshot.glyphs import load_font

    font = load_font(font_name)
    tall, wide = max(heights), max(widths)
    cols = {w: g[0] for w in widths if (g := _grid(font, w, tall, padding))}
    rows = {h: g[1] for h in heights if (g := _grid(font, wide, h, padding))}
    best_sol: Solution | None = None
    for w, c in cols.items():
        for h, r in rows.items():
            chars = c * (r - 1)  # the header row carries no history
            if chars <= 0 or scheme.seen(w, h) != (w, h):
                continue
            nbytes = png_bytes_bound(w, h)
            if limits.max_image_bytes is not None and nbytes > limits.max_image_bytes:
                continue
            if limits.max_request_bytes is not None and nbytes > limits.max_request_bytes:
                continue
            tokens = scheme.tokens(w, h)
            if best_sol is None or _better(chars, tokens, w * h, best_sol):
                best_sol = Solution((w, h), c, r, chars, tokens, nbytes)
    if best_sol is None:
        raise BudgetError(
            f"no page for font {font_name} fits {scheme.describe()} unresampled inside "
            f"{bound_w}x{bound_h} and the byte budget; use a smaller font or a larger bound"
        )
    return best_sol


def _better(chars: int, tokens: int, area: int, best: Solution) -> bool:
    """More chars per token (exact integer comparison), then more chars, then less area."""
    lhs, rhs = chars * best.tokens, best.chars_per_page * tokens
    if lhs != rhs:
        return lhs > rhs
    if chars != best.chars_per_page:
        return chars > best.chars_per_page
    return area < best.size[0] * best.size[1]


# --------------------------------------------------------------------------- profile


@dataclass(frozen=True)
class Profile:
    """Everything needed to draw and price pages for one model on one route.

    ``page`` fixes the page size (from an override file); otherwise the solver
    picks it. ``evidence`` is why the font and page bound are what they are.
    """

    model: str
    canonical: str
    family: str
    provider: str
    route: str
    scheme: Scheme
    scheme_fact: Fact
    vision: bool
    font: str
    legible_max: tuple[int, int]
    limits: Limits
    evidence: tuple[Evidence, ...]
    page: tuple[int, int] | None = None
    padding: int = 2
    fallback: bool = False
    detail: str | None = None
    # Extra pixels between columns / rows and the ink style: set by `snapshot tune`.
    col_gap: int = 0
    row_gap: int = 0
    ink: str = "black-on-white"
    # Outline fonts' pixel size and the shade ("1-bit" / "gray"): set by `snapshot tune`.
    font_size: int | None = None
    shade: str = "1-bit"

    def with_detail(self, detail: str) -> Profile:
        """The same profile at another OpenAI ``detail`` / Gemini 3 ``media_resolution`` level.

        >>> profile_for("gpt-5.4").with_detail("high").image_tokens(2048, 2048)
        3000
        """
        entry = tables.DETAIL_LEVELS.get(self.canonical)
        if entry is None:
            raise InputError(
                f"{self.model} has one fixed billing scheme, no detail levels; drop --detail"
            )
        levels, fact = entry
        if detail not in levels:
            raise InputError(
                f"{self.model} has no detail level {detail!r}; use one of: {', '.join(levels)}"
            )
        return dataclasses.replace(self, scheme=levels[detail], scheme_fact=fact, detail=detail)

    def solution(self) -> Solution:
        """The page this profile draws (fixed or solved) and its bill."""
        if not self.vision:
            raise InputError(
                f"{self.model} has no vision input: it cannot read pages; keep its history as text"
            )
        spaced = self.col_gap or self.row_gap or self.font_size is not None
        if self.page is None:
            solved = solve_page(self.scheme, self.font, self.legible_max, self.limits, self.padding)
            if not spaced:
                return solved
            w, h = solved.size
        else:
            w, h = self.page
        from snapshot.glyphs import load_font

        font = load_font(self.font, pixel_size=self.font_size)
        grid = _grid(font, w, h, self.padding, self.col_gap, self.row_gap)
        if grid is None:
            raise BudgetError(f"page {w}x{h} is too small for font {self.font}")
        return Solution(
            (w, h),
            grid[0],
            grid[1],
            grid[0] * (grid[1] - 1),
            self.scheme.tokens(w, h),
            png_bytes_bound(w, h),
        )

    def geometry(self) -> Geometry:
        """The page geometry to render with.

        >>> profile_for("claude-sonnet-4-5").geometry().size == profile_for("claude-sonnet-4-5").solution().size
        True
        """
        from snapshot.geometry import Geometry
        from snapshot.glyphs import load_font

        w, h = self.solution().size
        return Geometry.fit(
            load_font(self.font, pixel_size=self.font_size),
            w,
            h,
            padding=self.padding,
            col_gap=self.col_gap,
            row_gap=self.row_gap,
            ink=self.ink,
            shade=self.shade,
        )

    def image_tokens(self, width: int, height: int) -> int:
        """Tokens billed for one image of width × height on this model."""
        return self.scheme.tokens(width, height)

    def max_pages_per_request(self) -> int | None:
        """Images one request can carry: the image cap and the request byte budget."""
        caps = [c for c in (self.limits.max_images,) if c is not None]
        if self.limits.max_request_bytes is not None and self.vision:
            caps.append(self.limits.max_request_bytes // self.solution().png_bytes_bound)
        return min(caps) if caps else None

    def as_dict(self) -> dict[str, Any]:
        """The record ``snapshot profiles --json`` prints for this profile."""
        out: dict[str, Any] = {
            "model": self.model,
            "canonical": self.canonical,
            "family": self.family,
            "provider": self.provider,
            "route": self.route,
            "scheme": self.scheme.kind,
            "scheme_detail": self.scheme.describe(),
            "scheme_source": self.scheme_fact.cite(),
            "scheme_label": self.scheme_fact.label,
            # False when the provider does not document what size the model works at
            # (Gemini 3): "never resampled" then rests on the reader evidence alone.
            "resample_documented": bool(getattr(self.scheme, "seen_documented", True)),
            "legible_max": list(self.legible_max),
            "vision": self.vision,
            "font": self.font,
            "page": None,
            "cols": None,
            "rows": None,
            "chars_per_page": None,
            "tokens_per_page": None,
            "chars_per_token": None,
            "max_images": self.limits.max_images,
            "max_image_bytes": self.limits.max_image_bytes,
            "max_request_bytes": self.limits.max_request_bytes,
            "fallback": self.fallback,
            "detail": self.detail,
            "evidence": [
                {
                    "claim": e.claim,
                    "label": e.fact.label,
                    "source": e.fact.source,
                    "date": e.fact.date,
                }
                for e in self.evidence
            ],
        }
        if self.vision:
            s = self.solution()
            out.update(
                page=list(s.size),
                cols=s.cols,
                rows=s.rows,
                chars_per_page=s.chars_per_page,
                tokens_per_page=s.tokens,
                chars_per_token=round(s.chars_per_token, 3),
                max_pages_per_request=self.max_pages_per_request(),
            )
        return out


# --------------------------------------------------------------------------- resolution

_DOTTED_VERSION = re.compile(r"(?<=\d)\.(?=\d)")


def _lookup(name: str) -> Model | None:
    """Exact id, alias, id without a date suffix, then the longest prefix."""
    name = name.strip().lower()
    # Strip one suffix at a time and try each shorter id, least stripped first, so
    # o1-preview-2024-09-12 finds o1-preview before o1.
    candidates = [name]
    for _ in range(3):  # an id can carry more than one suffix (-preview-05-20, -latest)
        for pattern in tables.DATE_SUFFIXES:
            shorter = pattern.sub("", candidates[-1])
            if shorter != candidates[-1]:
                candidates.append(shorter)
    for cand in candidates:
        if cand in tables.MODELS:
            return tables.MODELS[cand]
        if cand in tables.ALIASES:
            return tables.MODELS[tables.ALIASES[cand][0]]
    for prefix in sorted(tables.PREFIXES, key=len, reverse=True):
        if name.startswith(prefix):
            return tables.MODELS[tables.PREFIXES[prefix]]
    return None


def resolve(model_id: str) -> tuple[Model, str] | None:
    """(model row, route name) for an id, or None.

    >>> row, route = resolve("claude-opus-4-5@20251101")
    >>> row.model, route
    ('claude-opus-4-5', 'vertex')
    """
    name = model_id.strip().lower()
    for route in tables.ROUTES:
        m = route.pattern.match(name)
        if m is None:
            continue
        inner = m.group("model")
        variants = [inner, _DOTTED_VERSION.sub("-", inner)] if route.dotted else [inner]
        for v in variants:
            row = _lookup(v)
            if row is not None:
                if route.name == "direct":
                    return row, tables.DIRECT_ROUTE[tables.FAMILIES[row.family].provider]
                return row, route.name
    row = _lookup(name)
    if row is None:
        return None
    return row, tables.DIRECT_ROUTE[tables.FAMILIES[row.family].provider]


def _unknown_message(model_id: str) -> str:
    families = ", ".join(sorted(tables.FAMILIES))
    return (
        f"unknown model {model_id!r}: no provider table resolves it (families: {families}); "
        "use a listed id (see `snapshot profiles`), ask for the conservative fallback "
        "(profile_for(id, fallback=True) / --fallback), or describe the model in a --profile FILE"
    )


def _build(
    model_id: str, row: Model, family: Family, route: str, *, fallback: bool = False
) -> Profile:
    facts: list[LimitFact] = [
        *tables.limit_facts_for(family.provider if not fallback else "fallback")
    ]
    if route not in (family.provider, "fallback"):
        facts.extend(tables.limit_facts_for(route))  # a gateway only adds restrictions
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
    )


def fallback_profile(model_id: str = "fallback") -> Profile:
    """The documented conservative profile for a model no table knows.

    >>> p = fallback_profile("my-vlm")
    >>> p.font, p.legible_max, p.fallback
    ('snap8x16', (768, 1024), True)
    """
    return _build(
        model_id, tables.FALLBACK_MODEL, tables.FALLBACK_FAMILY, "fallback", fallback=True
    )


def profile_for(
    model_id: str,
    *,
    fallback: bool = False,
    overrides: Mapping[str, Profile] | None = None,
    detail: str | None = None,
) -> Profile:
    """Resolve a model id (exact, alias, dated, gateway route) to its :class:`Profile`.

    ``overrides`` (from :func:`load_profiles`) win over the tables. An unknown id
    raises :class:`~snapshot.errors.UnknownModelError`, unless ``fallback`` asks
    for the conservative profile. ``detail`` picks an OpenAI detail level or a
    Gemini 3 media_resolution (see :data:`~snapshot.billing.providers.DETAIL_LEVELS`).

    >>> profile_for("anthropic/claude-sonnet-4.5").route
    'openrouter'
    >>> profile_for("o3-mini").vision
    False
    """
    if overrides and model_id in overrides:
        profile = overrides[model_id]
    else:
        found = resolve(model_id)
        if found is None:
            if not fallback:
                raise UnknownModelError(_unknown_message(model_id))
            profile = fallback_profile(model_id)
        else:
            row, route = found
            profile = _build(model_id, row, tables.FAMILIES[row.family], route)
    return profile.with_detail(detail) if detail else profile


def image_tokens(model: str | Profile, width: int, height: int) -> int:
    """Image tokens billed for one width × height image on a model (id or profile).

    >>> image_tokens("claude-sonnet-4-5", 1920, 1080)
    1560
    >>> image_tokens("gpt-5.4", 1024, 1024)
    1229
    """
    profile = model if isinstance(model, Profile) else profile_for(model)
    return profile.image_tokens(width, height)


def all_profiles() -> list[Profile]:
    """One profile per model row, on its vendor's own route.

    >>> len(all_profiles()) == len(tables.MODELS)
    True
    """
    return [profile_for(m) for m in tables.MODELS]


# --------------------------------------------------------------------------- override files

_USER_FACT = Fact("user profile file", "uncertain", "n/a")
INK_STYLES = ("black-on-white", "white-on-black")

_OVERRIDE_KEYS = frozenset(
    {
        "model",
        "base",
        "family",
        "font",
        "page",
        "padding",
        "col_gap",
        "row_gap",
        "ink",
        "font_size",
        "shade",
        "vision",
        "scheme",
        "legible_max",
        "max_images",
        "max_image_bytes",
        "max_request_bytes",
        "evidence",
    }
)


def _pair(value: Any, key: str, where: str) -> tuple[int, int]:
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(v, int) and v > 0 for v in value)
    ):
        return int(value[0]), int(value[1])
    raise InputError(f"{where}: {key} must be [width, height] in px, got {value!r}")


def _profile_from_entry(entry: Mapping[str, Any], where: str) -> Profile:
    unknown = sorted(set(entry) - _OVERRIDE_KEYS)
    if unknown:
        raise InputError(
            f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_OVERRIDE_KEYS))}"
        )
    model = entry.get("model")
    if not isinstance(model, str) or not model:
        raise InputError(f"{where}: every profile needs a 'model' id")
    base_id = entry.get("base", model)
    found = resolve(str(base_id))
    if found is not None:
        base = _build(model, found[0], tables.FAMILIES[found[0].family], found[1])
    elif "scheme" in entry:
        base = dataclasses.replace(fallback_profile(model), fallback=False, family="custom")
    elif "base" in entry:
        raise UnknownModelError(_unknown_message(str(base_id)))
    else:
        raise InputError(
            f"{where}: model {model!r} is not in the tables; give 'base' (a known model id "
            "to start from) or a 'scheme' table"
        )
    changes: dict[str, Any] = {}
    if "scheme" in entry:
        if not isinstance(entry["scheme"], Mapping):
            raise InputError(f"{where}: 'scheme' must be a table with a 'kind'")
        changes["scheme"] = scheme_from_dict(dict(entry["scheme"]))
        changes["scheme_fact"] = _USER_FACT
    for key in ("family", "font"):
        if key in entry:
            changes[key] = str(entry[key])
    if "vision" in entry:
        changes["vision"] = bool(entry["vision"])
    for key in ("padding", "col_gap", "row_gap"):
        if key in entry:
            value = entry[key]
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 64:
                raise InputError(f"{where}: '{key}' must be a whole number of pixels from 0 to 64")
            changes[key] = value
    if "ink" in entry:
        if entry["ink"] not in INK_STYLES:
            raise InputError(f"{where}: 'ink' must be one of {', '.join(INK_STYLES)}")
        changes["ink"] = entry["ink"]
    if "font_size" in entry:  # outline fonts' pixel size (snapshot tune writes it)
        size = entry["font_size"]
        if not isinstance(size, int) or isinstance(size, bool) or not 4 <= size <= 64:
            raise InputError(f"{where}: 'font_size' must be a pixel size from 4 to 64")
        changes["font_size"] = size
    if "shade" in entry:
        from snapshot.geometry import SHADES

        if entry["shade"] not in SHADES:
            raise InputError(f"{where}: 'shade' must be one of {', '.join(SHADES)}")
        changes["shade"] = entry["shade"]
    if "page" in entry:
        changes["page"] = _pair(entry["page"], "page", where)
    if "legible_max" in entry:
        changes["legible_max"] = _pair(entry["legible_max"], "legible_max", where)
    limit_changes: dict[str, Any] = {
        k: int(entry[k])
        for k in ("max_images", "max_image_bytes", "max_request_bytes")
        if k in entry
    }
    if limit_changes:
        changes["limits"] = dataclasses.replace(base.limits, **limit_changes)
    if "evidence" in entry:
        changes["evidence"] = tuple(Evidence(str(c), _USER_FACT) for c in entry["evidence"])
    profile = dataclasses.replace(base, **changes)
    if profile.page is not None and profile.vision:
        seen = profile.scheme.seen(*profile.page)
        if seen != profile.page:
            w, h = profile.page
            raise InputError(
                f"{where}: page {w}x{h} would be resized to {seen[0]}x{seen[1]} by "
                f"{profile.scheme.describe()}; choose a page the provider passes unchanged"
            )
    return profile


def load_profiles(path: str | Path) -> dict[str, Profile]:
    """Profiles from a JSON or TOML file, keyed by model id.

    Shapes accepted: one profile table; ``{"profile": [...]}`` / ``[[profile]]``;
    or (JSON) a list. A profile names ``model`` and optionally ``base`` (a known id
    to start from), ``font``, ``page`` [w, h], ``scheme`` {kind, ...}, limits,
    ``evidence`` (strings).

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); f = os.path.join(d, "p.toml")
    >>> _ = open(f, "w").write('model = "claude-sonnet-4-5"\\nfont = "snap5x8"\\n')
    >>> load_profiles(f)["claude-sonnet-4-5"].font
    'snap5x8'
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read profile file {p}: {exc.strerror or exc}") from exc
    try:
        if p.suffix.lower() == ".toml":
            data: Any = tomllib.loads(text)
        elif p.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            raise InputError(f"profile file {p} must end in .json or .toml")
    except (ValueError, RecursionError) as exc:  # JSON/TOML errors, huge ints, deep nesting
        raise InputError(f"profile file {p} is not valid {p.suffix[1:].upper()}: {exc}") from exc
    if isinstance(data, Mapping) and "profile" in data:
        entries = data["profile"]
    elif isinstance(data, Mapping) and "profiles" in data:
        entries = data["profiles"]
    elif isinstance(data, Mapping):
        entries = [data]
    else:
        entries = data
    if (
        not isinstance(entries, list)
        or not all(isinstance(e, Mapping) for e in entries)
        or not entries
    ):
        raise InputError(f"profile file {p}: expected one profile table or a list of them")
    out: dict[str, Profile] = {}
    for i, entry in enumerate(entries):
        prof = _profile_from_entry(entry, f"{p} (profile {i + 1})")
        out[prof.model] = prof
    return out


def profile_to_dict(profile: Profile) -> dict[str, Any]:
    """A profile as an override entry (round-trips through :func:`load_profiles`)."""
    out: dict[str, Any] = {
        "model": profile.model,
        "family": profile.family,
        "font": profile.font,
        "vision": profile.vision,
        "padding": profile.padding,
        "legible_max": list(profile.legible_max),
        "scheme": scheme_to_dict(profile.scheme),
    }
    if profile.page is not None:
        out["page"] = list(profile.page)
    for key, default in (
        ("col_gap", 0),
        ("row_gap", 0),
        ("ink", "black-on-white"),
        ("font_size", None),
        ("shade", "1-bit"),
    ):
        if getattr(profile, key) != default:
            out[key] = getattr(profile, key)
    return out


__all__ = [
    "Limits",
    "Profile",
    "Solution",
    "all_profiles",
    "fallback_profile",
    "image_tokens",
    "load_profiles",
    "png_bytes_bound",
    "profile_for",
    "profile_to_dict",
    "resolve",
    "solve_page",
]
