"""A resolved model: billing scheme, limits, font, page, lifecycle, price and text counter.

>>> from snapshot.profiles import profile_for
>>> p = profile_for("claude-opus-5")
>>> p.scheme.max_tokens, p.status("2026-12-01")
(4784, 'current')
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from snapshot.billing import providers as tables
from snapshot.billing.prices import Price, at_geo, at_tier, geo_row, price_for
from snapshot.billing.rows import Evidence, Fact, GeoRow, Lifecycle, Status, TextTokenizer
from snapshot.billing.schemes import Scheme
from snapshot.billing.text_tokens import resolve_tokenizer
from snapshot.billing.uncertain import Settled, range_for, scheme_at
from snapshot.errors import BudgetError, InputError
from snapshot.profiles.limits import Limits, png_bytes_bound
from snapshot.profiles.solver import Solution, _grid, solve_page

if TYPE_CHECKING:
    from snapshot.rendering.geometry import Geometry

_USER = Fact("user profile file", "uncertain", "n/a")
_NO_LIFECYCLE = Lifecycle()


@dataclass(frozen=True)
class Profile:
    """Everything needed to draw and price pages for one model on one route.

    ``page`` fixes the page size (from an override file); otherwise the solver
    picks it. ``evidence`` is why the font and page bound are what they are.
    :func:`snapshot.profiles.profile_for` resolves one from a model id:

    >>> from snapshot.profiles import profile_for
    >>> p = profile_for("claude-opus-5")
    >>> p.provider, p.vision, p.geometry().size
    ('anthropic', True, (1540, 1540))
    >>> p.image_tokens(*p.geometry().size)
    3025
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
    # How the id was resolved: "exact", "alias", "dated", "variant", "prefix" (then
    # ``prefix_family`` names the table's family), "override" or "fallback".
    resolved_by: str = "exact"
    prefix_family: str | None = None
    lifecycle: Lifecycle = _NO_LIFECYCLE
    # Whose schedule ``lifecycle`` is (the vendor's API, or a partner route's own).
    schedule: str = "the vendor's schedule"
    # A usage-probe record that settled a disputed scheme field (snapshot.billing.uncertain).
    settled: Settled | None = None
    # A measured area bound the page must also satisfy (see Family.max_pixels).
    max_pixels: int | None = None
    # (id, genai-prices provider) pairs to price, the user's own id first.
    price_ids: tuple[tuple[str, str | None], ...] = ()
    # Extra pixels between columns / rows and the ink style: set by `snapshot tune`.
    col_gap: int = 0
    row_gap: int = 0
    ink: str = "black-on-white"
    # Outline fonts' pixel size: set by `snapshot tune` (ported from the typography branch).
    font_size: int | None = None
    shade: str = "1-bit"  # "1-bit" or "gray" (set by `snapshot tune`)
    # Data residency the request asks for (Anthropic ``inference_geo``); it scales the price.
    inference_geo: str = "global"

    def with_detail(self, detail: str) -> Profile:
        """The same profile at another OpenAI ``detail`` / Gemini 3 ``media_resolution`` level.

        >>> from snapshot.profiles import profile_for
        >>> profile_for("gpt-5.4", warn=False).with_detail("high").image_tokens(2048, 2048)
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

    @property
    def png_bits(self) -> int:
        """Bits a pixel of this profile's page PNG: 1 for 1-bit pages, else its gray shade's.

        >>> from snapshot.profiles import profile_for
        >>> import dataclasses
        >>> p = profile_for("claude-sonnet-5-5")
        >>> p.png_bits, dataclasses.replace(p, shade="gray").png_bits
        (1, 8)
        """
        from snapshot.rendering.geometry import GRAY_BITS

        return GRAY_BITS.get(self.shade, 1)

    def solution(self) -> Solution:
        """The page this profile draws (fixed or solved) and its bill."""
        if not self.vision:
            raise InputError(
                f"{self.model} has no vision input: it cannot read pages; keep its history as text"
            )
        spaced = self.col_gap or self.row_gap or self.font_size is not None
        if self.page is None:
            solved = solve_page(
                self.scheme,
                self.font,
                self.legible_max,
                self.limits,
                self.padding,
                self.max_pixels,
                self.png_bits,
            )
            if not spaced:
                return solved
            w, h = solved.size
        else:
            w, h = self.page
        from snapshot.rendering.glyphs import load_font

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
            png_bytes_bound(w, h, self.png_bits),
        )

    def geometry(self) -> Geometry:
        """The page geometry to render with.

        >>> from snapshot.profiles import profile_for
        >>> p = profile_for("claude-sonnet-4-6")
        >>> p.geometry().size == p.solution().size
        True
        """
        from snapshot.rendering.geometry import Geometry
        from snapshot.rendering.glyphs import load_font

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

    def status(self, today: str | date | None = None) -> Status:
        """Lifecycle status on ``today`` (default: the day it runs).

        >>> from snapshot.profiles import profile_for
        >>> profile_for("claude-sonnet-4-5", warn=False).status("2026-12-01")
        'retired'
        """
        return self.lifecycle.status(today)

    def lifecycle_record(self, today: str | date | None = None) -> dict[str, Any]:
        """``status``, ``released``, ``deprecated``, ``retired``, ``successor`` and their source."""
        life = self.lifecycle
        return {
            "status": self.status(today),
            "released": life.released,
            "deprecated": life.deprecated,
            "retired": life.retired,
            "successor": life.successor,
            "routed_to": life.routed_to if self.status(today) == "retired" else None,
            "lifecycle_source": life.fact.cite() if life.fact else None,
            "lifecycle_schedule": self.schedule,
        }

    def price(self, today: str | date | None = None, tier: str = "standard") -> Price | None:
        """The price of this id (the user's own, never a sibling's) on ``today``, or None.

        ``tier`` (batch / flex / priority): the database's variant for the id, else
        the vendor's documented multiplier; a tier the vendor lacks is an InputError.
        """
        for model_id, provider in self.price_ids:
            found = price_for(model_id, provider=provider, today=today, tier=tier)
            if found is not None:
                return at_geo(at_tier(found, tier, self.provider), self._geo_row())
        return None

    def _geo_row(self) -> GeoRow | None:
        return geo_row(self.inference_geo, self.provider, self.route, self.canonical)

    def with_inference_geo(self, geo: str) -> Profile:
        """This profile with requests pinned to a data-residency region (``global``: none).

        Raises :class:`~snapshot.errors.InputError` where the route or model lacks it.

        >>> from snapshot.profiles import profile_for
        >>> p = profile_for("claude-sonnet-5-5").with_inference_geo("us")
        >>> p.price("2026-12-02").input, p.price("2026-12-02", "batch").input
        (2.2, 1.1)
        """
        if geo == self.inference_geo:
            return self
        profile = dataclasses.replace(self, inference_geo=geo)
        profile._geo_row()  # refuses a geo the route or model does not offer, here
        return profile

    def range_ends(self) -> list[tuple[str, Fact, Profile]]:
        """A disputed scheme field's ends: (value, source, this profile billed at it).

        Empty when the model has no disputed fact, a profile file set the scheme,
        or a usage probe settled it.

        >>> from snapshot.profiles import profile_for
        >>> [(v, p.image_tokens(1024, 1024)) for v, _, p in profile_for("gpt-6-sol").range_ends()]
        [('1.2', 1229), ('1.5', 1536)]
        """
        rng = range_for(self.canonical)
        if rng is None or self.settled is not None or self.resolved_by in ("override", "fallback"):
            return []
        if not hasattr(self.scheme, rng.field):
            return []
        return [
            (
                end.value,
                end.fact,
                dataclasses.replace(self, scheme=scheme_at(self.scheme, rng, end.value)),
            )
            for end in rng.ends
        ]

    def with_settled(self, settled: Settled) -> Profile:
        """This profile billed at a measured value that settled its disputed field.

        >>> from snapshot.billing.rows import Fact
        >>> from snapshot.billing.uncertain import Settled
        >>> from snapshot.profiles import profile_for
        >>> fact = Fact("usage record", "measured", "2026-12-02")
        >>> p = profile_for("gpt-6-sol").with_settled(Settled("gpt-6-sol", "1.2", fact, "r", False))
        >>> p.image_tokens(1024, 1024), p.scheme_fact.label, p.range_ends()
        (1229, 'measured', [])
        """
        rng = range_for(self.canonical)
        if rng is None or not hasattr(self.scheme, rng.field):
            return self
        scheme = dataclasses.replace(scheme_at(self.scheme, rng, settled.value), label="measured")  # type: ignore[type-var]
        return dataclasses.replace(self, scheme=scheme, scheme_fact=settled.fact, settled=settled)

    def range_record(self) -> dict[str, Any] | None:
        """The disputed fact as ``profiles`` shows it: each end's page and bill, or the settling.

        >>> from snapshot.profiles import profile_for
        >>> [e["tokens_per_page"] for e in profile_for("gpt-6.1-sol").range_record()["ends"]]
        [2882, 3528]
        """
        rng = range_for(self.canonical)
        if rng is None:
            return None
        if self.settled is not None:
            return {"name": rng.name, "field": rng.field, "settled": self.settled.record()}
        ends = []
        for value, fact, prof in self.range_ends():
            end: dict[str, Any] = {"value": value, "source": fact.cite(), "label": fact.label}
            if self.vision:
                s = prof.solution()
                end.update(
                    page=list(s.size),
                    tokens_per_page=s.tokens,
                    chars_per_token=round(s.chars_per_token, 3),
                )
            ends.append(end)
        if not ends:
            return None
        return {
            "name": rng.name,
            "field": rng.field,
            "point": rng.point,
            "uncertain": True,
            "ends": ends,
        }

    @property
    def text_tokenizer(self) -> TextTokenizer:
        """The text-token row this profile counts with (see ``count_text_tokens``)."""
        if self.fallback or self.canonical not in tables.MODELS:
            return tables.text_tokenizer_for(self.canonical, "fallback")
        return tables.text_tokenizer_for(self.canonical, tables.MODELS[self.canonical].family)

    def layout_reason(self) -> str:
        """Why the page is set in this font, size, shade and gaps: the evidence it rests on.

        The default font is the model table's choice for the family; the default rule
        (:func:`snapshot.profiles.default_rule.choose_default`) checks it against the
        model evidence and the qualified readers, and this says what it rests on.

        >>> from snapshot.profiles import profile_for
        >>> profile_for("gemini-3.8-flash", warn=False).layout_reason()[:40]
        'snap5x8 1-bit: the family default, which'
        """
        size = "" if self.font_size is None else f"@{self.font_size}"
        gaps = f", gaps {self.col_gap}x{self.row_gap}" if self.col_gap or self.row_gap else ""
        layout = f"{self.font}{size} {self.shade}{gaps}"
        if not self.vision:
            return f"{layout}: unused, the model reads no images (its history stays text)"
        if self.resolved_by == "override" or self.page is not None:
            return f"{layout}: set by a profile file (`snapshot tune` or the user's own)"
        from snapshot.profiles.readability import default_choice

        choice = default_choice(self.canonical)
        reason = (
            f"{layout}: the family default, which follows the default rule "
            "(snapshot.profiles.default_rule: model evidence where it speaks, else the weakest "
            f"qualified reader at >= 0.95 of its control page); it rests on {choice['rests_on']}"
        )
        if choice["kind"] != "none":
            return reason
        return f"{reason}; `snapshot probe --model {self.model}` measures a model read"

    def binding_constraint(self) -> Evidence:
        """Which constraint sizes the solved page: a documented rule, a measurement, the bound."""
        s = self.solution()
        if self.page is not None:
            return Evidence(f"page {s.size[0]}x{s.size[1]} fixed by a profile file", _USER)
        if self.max_pixels is not None:
            free = solve_page(self.scheme, self.font, self.legible_max, self.limits, self.padding)
            if free.size != s.size:
                measured = [e for e in self.evidence if e.fact.label == "measured"]
                fact = measured[-1].fact if measured else self.scheme_fact
                return Evidence(
                    f"binding: the measured {self.max_pixels:,} px area bound (the documented "
                    f"rule alone would allow {free.size[0]}x{free.size[1]} = "
                    f"{free.size[0] * free.size[1]:,} px); page {s.size[0]}x{s.size[1]} = "
                    f"{s.size[0] * s.size[1]:,} px satisfies both",
                    fact,
                )
        return Evidence(
            f"binding: the documented rule ({self.scheme.describe()}) inside the legible "
            f"bound {self.legible_max[0]}x{self.legible_max[1]}; page {s.size[0]}x{s.size[1]}",
            self.scheme_fact,
        )

    def max_pages_per_request(self) -> int | None:
        """Images one request can carry: the image cap and the request byte budget."""
        caps = [c for c in (self.limits.max_images,) if c is not None]
        if self.limits.max_request_bytes is not None and self.vision:
            caps.append(self.limits.max_request_bytes // self.solution().png_bytes_bound)
        return min(caps) if caps else None

    def text_counter_record(self) -> dict[str, str]:
        """What counts this model's text tokens: ``exact``, ``reconstruction`` or ``estimate``."""
        row = resolve_tokenizer(self.text_tokenizer)
        return {"kind": row.method, "source": row.fact.cite()}

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
            "font_size": self.font_size,
            "shade": self.shade,
            "col_gap": self.col_gap,
            "row_gap": self.row_gap,
            "ink": self.ink,
            "chars_per_kpx": None,
            "layout_reason": self.layout_reason(),
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
            "resolved_by": self.resolved_by,
            "prefix_family": self.prefix_family,
            **self.lifecycle_record(),
            "uncertain": self.range_record(),
            "text_counter": self.text_counter_record(),
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
            bind = self.binding_constraint()
            out["evidence"].append(
                {
                    "claim": bind.claim,
                    "label": bind.fact.label,
                    "source": bind.fact.source,
                    "date": bind.fact.date,
                }
            )
            out.update(
                page=list(s.size),
                cols=s.cols,
                rows=s.rows,
                chars_per_page=s.chars_per_page,
                chars_per_kpx=round(1000 * s.chars_per_page / (s.size[0] * s.size[1]), 2),
                tokens_per_page=s.tokens,
                chars_per_token=round(s.chars_per_token, 3),
                max_pages_per_request=self.max_pages_per_request(),
            )
        return out


__all__ = ["Profile"]
