"""Image billing schemes: what a provider does to an image and what it bills.

Each scheme is a frozen dataclass with two pure methods:

- ``seen(w, h) -> (w, h)``: the size the model receives after the provider's own
  preprocessing (fit into a box, shrink to a token budget, ...). Padding that adds
  no content (Anthropic's pad to a multiple of 28) is not a resample and is not
  part of ``seen``. A page is drawn for a model only if ``seen`` returns its own
  size: then no server-side filter ever touches the glyphs.
- ``tokens(w, h) -> int``: the image tokens billed for an image uploaded at w×h.

And one hint for the geometry solver:

- ``sides(limit) -> tuple[int, ...]``: side lengths (up to ``limit``) worth trying,
  i.e. those that waste no billed padding (multiples of the patch or tile).

The numbers in the defaults are the documented ones; the sources and dates live
in :mod:`snapshot.billing.providers`, next to the rows that pick these schemes.
Every scheme carries ``label`` (documented / measured / uncertain) and ``note``
so a report can say how much to trust a figure.

Worked example (Anthropic's documented table)::

    >>> s = AnthropicPatches()
    >>> s.seen(1920, 1080), s.tokens(1920, 1080)
    ((1456, 819), 1560)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

from snapshot.billing.refusals import RequestRefused
from snapshot.errors import ImageError, InputError

Label = Literal["documented", "measured", "uncertain"]
LABELS: tuple[Label, ...] = ("documented", "measured", "uncertain")


@runtime_checkable
class Scheme(Protocol):
    """What every billing scheme offers (see the module docstring)."""

    kind: ClassVar[str]

    @property
    def label(self) -> Label: ...

    @property
    def note(self) -> str: ...

    def seen(self, width: int, height: int) -> tuple[int, int]: ...

    def tokens(self, width: int, height: int) -> int: ...

    def sides(self, limit: int) -> tuple[int, ...]: ...

    def describe(self) -> str: ...

    def __hash__(self) -> int: ...  # schemes key the solver's cache


def _check(width: int, height: int) -> None:
    if not (isinstance(width, int) and isinstance(height, int)) or width < 1 or height < 1:
        raise InputError(f"image size must be positive integers, got {width}x{height}")


def _cdiv(a: int, b: int) -> int:
    """Ceiling division on integers (no float rounding)."""
    return -(-a // b)


def _multiples(step: int, limit: int) -> tuple[int, ...]:
    return tuple(range(step, limit + 1, step))


_ROUNDING: dict[str, Callable[[Fraction], int]] = {"floor": math.floor, "round": round}


def fit_within(
    width: int,
    height: int,
    box_w: int,
    box_h: int,
    *,
    rounding: Literal["floor", "round"] = "floor",
) -> tuple[int, int]:
    """Scale down (never up) to fit a box, keeping the aspect ratio.

    Sides round down unless a provider's worked example shows rounding to nearest.

    >>> fit_within(4096, 2048, 2048, 2048)
    (2048, 1024)
    >>> fit_within(100, 50, 2048, 2048)
    (100, 50)
    >>> fit_within(1436, 962, 1024, 1024, rounding="round")
    (1024, 686)
    """
    rnd = _ROUNDING.get(rounding)
    if rnd is None:  # a typo must not silently pick one of the two
        raise ValueError(f"rounding must be 'floor' or 'round', got {rounding!r}")
    if width <= box_w and height <= box_h:
        return width, height
    scale = min(Fraction(box_w, width), Fraction(box_h, height))
    w, h = max(1, rnd(width * scale)), max(1, rnd(height * scale))
    return min(w, box_w), min(h, box_h)


# --------------------------------------------------------------------------- Anthropic


def anthropic_resized_size(
    width: int, height: int, *, max_edge: int = 1568, max_tokens: int = 1568, patch: int = 28
) -> tuple[int, int]:
    """Anthropic's documented resize: the largest aspect-preserving size inside both limits.

    The docs' reference code binary-searches the long edge; an edge is checked as
    ``⌈edge/28⌉·28 <= max_edge`` and the patch count ``⌈w/28⌉·⌈h/28⌉ <= max_tokens``.
    The short side is ``max(round(edge / aspect_ratio), 1)`` with Python's ``round``
    (ties to even), as in the docs' reference code (vision-coordinates page); this
    also reproduces the worked examples (2000×1500 → 1270×952).

    >>> anthropic_resized_size(1920, 1080)
    (1456, 819)
    >>> anthropic_resized_size(1075, 1520)
    (924, 1307)
    >>> anthropic_resized_size(3840, 2160, max_edge=2576, max_tokens=4784)
    (2576, 1449)
    >>> anthropic_resized_size(5318, 1712)  # floor would give 1568x504
    (1568, 505)
    """
    _check(width, height)

    def fits(w: int, h: int) -> bool:
        pw, ph = _cdiv(w, patch), _cdiv(h, patch)
        return pw * patch <= max_edge and ph * patch <= max_edge and pw * ph <= max_tokens

    if fits(width, height):
        return width, height
    long_side, short_side = max(width, height), min(width, height)
    aspect_ratio = long_side / short_side

    def size_at(edge: int) -> tuple[int, int]:
        other = max(round(edge / aspect_ratio), 1)
        return (edge, other) if width >= height else (other, edge)

    lo, hi = 1, long_side  # invariant: size_at(lo) fits (1 px always does), size_at(hi+1) not tried
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(*size_at(mid)):
            lo = mid
        else:
            hi = mid - 1
    return size_at(lo)


@dataclass(frozen=True)
class AnthropicPatches:
    """Claude vision: one token per 28×28 patch, inside an edge and a token budget.

    Standard tier: ``max_edge=1568, max_tokens=1568``; high-res tier (the models
    the docs name): ``max_edge=2576, max_tokens=4784``. Images larger than
    ``max_dim`` on a side are rejected, not resized.

    >>> AnthropicPatches().tokens(1000, 1000)
    1296
    >>> AnthropicPatches(max_edge=2576, max_tokens=4784).tokens(2000, 1500)
    3888
    """

    kind: ClassVar[str] = "anthropic-patches"
    max_edge: int = 1568
    max_tokens: int = 1568
    patch: int = 28
    max_dim: int = 8000
    label: Label = "documented"
    note: str = ""

    def seen(self, width: int, height: int) -> tuple[int, int]:
        _check(width, height)
        if max(width, height) > self.max_dim:
            raise RequestRefused(
                f"{width}x{height} exceeds Anthropic's {self.max_dim}x{self.max_dim} px "
                "per-image maximum (rejected, not resized); use a smaller page",
                rule=f"anthropic-{self.max_dim}px-maximum",
            )
        return anthropic_resized_size(
            width, height, max_edge=self.max_edge, max_tokens=self.max_tokens, patch=self.patch
        )

    def padded(self, width: int, height: int) -> tuple[int, int]:
        """Seen size padded bottom/right to multiples of the patch (no content added).

        >>> AnthropicPatches().padded(1920, 1080)
        (1456, 840)
        """
        w, h = self.seen(width, height)
        return _cdiv(w, self.patch) * self.patch, _cdiv(h, self.patch) * self.patch

    def tokens(self, width: int, height: int) -> int:
        w, h = self.seen(width, height)
        return _cdiv(w, self.patch) * _cdiv(h, self.patch)

    def sides(self, limit: int) -> tuple[int, ...]:
        return _multiples(self.patch, min(limit, self.max_edge))

    def describe(self) -> str:
        return (
            f"anthropic {self.patch}px patches, ≤{self.max_edge}px edge, ≤{self.max_tokens} tokens"
        )


@dataclass(frozen=True)
class AnthropicArea:
    """Anthropic's older rule of thumb, ``tokens ≈ w·h/750``, kept for comparison.

    Resize trigger of that era: long edge over 1568 px or more than ~1600 tokens,
    scaled down keeping the aspect ratio (how exactly was never published).

    >>> AnthropicArea().tokens(1092, 1092)
    1590
    """

    kind: ClassVar[str] = "anthropic-area"
    divisor: int = 750
    max_edge: int = 1568
    max_tokens: int = 1600
    label: Label = "documented"
    note: str = "superseded by the 28-px patch rule; the resize of this era is approximate"

    def seen(self, width: int, height: int) -> tuple[int, int]:
        _check(width, height)
        w, h = fit_within(width, height, self.max_edge, self.max_edge)
        limit = self.max_tokens * self.divisor
        if w * h > limit:
            scale = math.sqrt(limit / (w * h))
            w, h = max(1, math.floor(w * scale)), max(1, math.floor(h * scale))
        return w, h

    def tokens(self, width: int, height: int) -> int:
        w, h = self.seen(width, height)
        return max(1, round(w * h / self.divisor))

    def sides(self, limit: int) -> tuple[int, ...]:
        return _multiples(28, min(limit, self.max_edge))

    def describe(self) -> str:
        return f"anthropic legacy w*h/{self.divisor}, ≤{self.max_edge}px, ~{self.max_tokens} tokens"


# --------------------------------------------------------------------------- OpenAI


@dataclass(frozen=True)
class OpenAITiles:
    """OpenAI tile models: fit 2048², short side ≤768, base + per-tile × 512-px tiles.

    ``detail="low"`` bills ``base`` whatever the size; the model then sees a copy
    that fits 512×512.

    >>> s = OpenAITiles(base=85, per_tile=170)
    >>> s.tokens(1024, 1024), s.seen(2048, 4096), s.tokens(2048, 4096)
    (765, (768, 1536), 1105)
    """

    kind: ClassVar[str] = "openai-tiles"
    base: int = 85
    per_tile: int = 170
    detail: Literal["high", "low"] = "high"
    tile: int = 512
    fit: int = 2048
    short_side: int = 768
    low_box: int = 512
    label: Label = "documented"
    note: str = ""

    def seen(self, width: int, height: int) -> tuple[int, int]:
        _check(width, height)
        if self.detail == "low":
            return fit_within(width, height, self.low_box, self.low_box)
        w, h = fit_within(width, height, self.fit, self.fit)
        short = min(w, h)
        if short > self.short_side:  # scale the short side to 768, round the other down
            if w <= h:
                w, h = self.short_side, max(1, h * self.short_side // w)
            else:
                w, h = max(1, w * self.short_side // h), self.short_side
        return w, h

    def tiles(self, width: int, height: int) -> int:
        w, h = self.seen(width, height)
        return _cdiv(w, self.tile) * _cdiv(h, self.tile)

    def tokens(self, width: int, height: int) -> int:
        if self.detail == "low":
            _check(width, height)
            return self.base
        return self.base + self.per_tile * self.tiles(width, height)

    def sides(self, limit: int) -> tuple[int, ...]:
        box = self.low_box if self.detail == "low" else self.fit
        return _multiples(self.tile, min(limit, box))

    def describe(self) -> str:
        return f"openai tiles {self.base}+{self.per_tile}/512px tile, detail={self.detail}"


@dataclass(frozen=True)
class OpenAIPatches:
    """OpenAI patch models: 32-px patches inside a detail level's box and patch budget.

    Procedure (documented): fit the box without enlarging; count
    ``⌈w/32⌉·⌈h/32⌉``; over budget, shrink by ``r = sqrt(32²·budget/(w·h))``
    adjusted so whole patches stay in budget; multiply by the model's
    multiplier and round up. ``multiplier`` is a decimal string so the product
    is exact (1024 × 1.2 → 1229, 2500 × 1.2 → 3000, not 3001).

    >>> s = OpenAIPatches(multiplier="1.2", max_side=2048, patch_budget=2500)
    >>> s.tokens(1024, 1024), s.seen(2048, 2048), s.tokens(2048, 2048)
    (1229, (1600, 1600), 3000)
    """

    kind: ClassVar[str] = "openai-patches"
    multiplier: str = "1.2"
    max_side: int = 2048
    patch_budget: int | None = 1536
    detail: str = "high"
    patch: int = 32
    label: Label = "documented"
    note: str = ""
    # Without a patch budget the API refuses (does not shrink) images above this many
    # patches: GPT-5.6 and GPT-6 with detail original/auto (30,000).
    reject_patches: int | None = None

    def __post_init__(self) -> None:
        try:
            Fraction(self.multiplier)
        except (ValueError, ZeroDivisionError) as exc:
            raise InputError(
                f"patch multiplier must be a decimal string, got {self.multiplier!r}"
            ) from exc

    def seen(self, width: int, height: int) -> tuple[int, int]:
        _check(width, height)
        w, h = fit_within(width, height, self.max_side, self.max_side)
        p = self.patch
        count = _cdiv(w, p) * _cdiv(h, p)
        if self.reject_patches is not None and count > self.reject_patches:
            raise RequestRefused(
                f"{width}x{height} is {count:,} patches of 32 px at detail={self.detail}; the API "
                f"rejects images over the {self.reject_patches:,}-patch limit rather than "
                "resizing them; send it smaller or at detail=high",
                rule=f"openai-{self.reject_patches}-patch-limit",
            )
        if self.patch_budget is None or count <= self.patch_budget:
            return w, h
        # Documented shrink, in exact arithmetic except for the square root.
        r = math.sqrt(p * p * self.patch_budget / (w * h))
        a, b = w * r / p, h * r / p
        r *= min(math.floor(a) / a, math.floor(b) / b)
        nw, nh = max(1, math.floor(w * r + 1e-9)), max(1, math.floor(h * r + 1e-9))
        # Float dust must never push the count over the budget.
        while _cdiv(nw, p) * _cdiv(nh, p) > self.patch_budget:
            nw, nh = (nw - 1, nh) if nw * h >= nh * w else (nw, nh - 1)
        return nw, nh

    def patches(self, width: int, height: int) -> int:
        w, h = self.seen(width, height)
        return _cdiv(w, self.patch) * _cdiv(h, self.patch)

    @functools.cached_property
    def _multiplier(self) -> Fraction:
        return Fraction(self.multiplier)

    def tokens(self, width: int, height: int) -> int:
        return math.ceil(self.patches(width, height) * self._multiplier)

    def sides(self, limit: int) -> tuple[int, ...]:
        return _multiples(self.patch, min(limit, self.max_side))

    def describe(self) -> str:
        budget = "no patch budget" if self.patch_budget is None else f"≤{self.patch_budget} patches"
        if self.reject_patches is not None:
            budget += f", >{self.reject_patches} refused"
        return f"openai 32px patches ×{self.multiplier}, ≤{self.max_side}px, {budget}, detail={self.detail}"


# --------------------------------------------------------------------------- Google


@dataclass(frozen=True)
class GeminiFlat:
    """Gemini 3 ``media_resolution``: a flat token budget per image.

    The budget is documented as the maximum per image (280 / 560 / 1120 / 2240);
    measured bills sit a little below it. The size the model works at internally
    is **not documented**: ``seen`` returns the upload size only because no
    resize is documented, and ``seen_documented`` is False so callers can say so.

    >>> GeminiFlat(budget=1120).tokens(1568, 728)
    1120
    """

    kind: ClassVar[str] = "gemini-flat"
    budget: int = 1120
    level: str = "high"
    seen_documented: bool = False
    label: Label = "documented"
    note: str = "internal resample size undocumented (unknown); tokens are the documented maximum"

    def seen(self, width: int, height: int) -> tuple[int, int]:
        _check(width, height)
        return width, height

    def tokens(self, width: int, height: int) -> int:
        _check(width, height)
        return self.budget

    def sides(self, limit: int) -> tuple[int, ...]:
        # No patch grid is documented; 8 px steps keep the search small.
        return tuple(sorted({*_multiples(8, limit), limit}))

    def describe(self) -> str:
        return f"gemini flat {self.budget} tokens/image (media_resolution={self.level})"


@dataclass(frozen=True)
class GeminiTiles:
    """Gemini 2.x documented tiling: ≤384² → one 258-token image; else crop-unit tiles.

    crop unit ``u = floor(min(w, h) / 1.5)`` clamped to [256, 768] (the 1.5-era
    wording), tiles ``⌈w/u⌉·⌈h/u⌉``, each resized to 768² and billed 258. The
    model sees the content scaled by ``768/u``: only ``u == 768`` is unresampled.
    A measurement (flat 258 on 2.5 Pro) contradicts this, so ``label`` is uncertain.

    >>> GeminiTiles().tiles(960, 540), GeminiTiles().tokens(960, 540)
    (6, 1548)
    """

    kind: ClassVar[str] = "gemini-tiles"
    per_tile: int = 258
    small: int = 384
    tile: int = 768
    min_unit: int = 256
    max_unit: int = 768
    prescale: int = 3072
    label: Label = "uncertain"
    note: str = "documented tiling; gemini-2.5-pro measured flat 258 (python-genai#1349)"

    def _unit(self, w: int, h: int) -> int:
        return min(self.max_unit, max(self.min_unit, math.floor(min(w, h) / 1.5)))

    def seen(self, width: int, height: int) -> tuple[int, int]:
        _check(width, height)
        w, h = fit_within(width, height, self.prescale, self.prescale)
        if w <= self.small and h <= self.small:
            return w, h
        u = self._unit(w, h)
        return max(1, w * self.tile // u), max(1, h * self.tile // u)

    def tiles(self, width: int, height: int) -> int:
        _check(width, height)
        w, h = fit_within(width, height, self.prescale, self.prescale)
        if w <= self.small and h <= self.small:
            return 1
        u = self._unit(w, h)
        return _cdiv(w, u) * _cdiv(h, u)

    def tokens(self, width: int, height: int) -> int:
        return self.per_tile * self.tiles(width, height)

    def sides(self, limit: int) -> tuple[int, ...]:
        # Half a tile: lets a short side of 1152 (crop unit exactly 768) be tried.
        return _multiples(self.tile // 2, min(limit, self.prescale))

    def describe(self) -> str:
        return f"gemini 2.x tiles: ≤{self.small}² → {self.per_tile}, else {self.per_tile}/tile"


# --------------------------------------------------------------------------- others


@dataclass(frozen=True)
class MistralPatches:
    """Pixtral: 16-px patches inside 1024×1024, plus one break/end token per patch row.

    >>> MistralPatches().seen(1436, 962)
    (1024, 686)
    """

    kind: ClassVar[str] = "mistral-patches"
    patch: int = 16
    max_side: int = 1024
    label: Label = "documented"
    note: str = "row-break tokens from mistral-common code"

    def seen(self, width: int, height: int) -> tuple[int, int]:
        _check(width, height)
        # Docs' example 1436×962 → 1024×686 rounds to nearest (685.99 → 686).
        return fit_within(width, height, self.max_side, self.max_side, rounding="round")

    def tokens(self, width: int, height: int) -> int:
        w, h = self.seen(width, height)
        rows = _cdiv(h, self.patch)
        return _cdiv(w, self.patch) * rows + rows  # [IMG_BREAK] per row, last is [IMG_END]

    def sides(self, limit: int) -> tuple[int, ...]:
        return _multiples(self.patch, min(limit, self.max_side))

    def describe(self) -> str:
        return f"mistral {self.patch}px patches (+1/row), ≤{self.max_side}px"


def qwen_smart_resize(
    width: int, height: int, *, factor: int = 28, min_pixels: int = 3136, max_pixels: int = 12845056
) -> tuple[int, int]:
    """Qwen2-VL's ``smart_resize`` (transformers): sides to multiples of ``factor``.

    Rounds each side to the *nearest* multiple (so it can resample slightly), then
    scales into [min_pixels, max_pixels]. Python's ``round`` is what the original
    uses, so halves go to even.

    >>> qwen_smart_resize(1000, 500)
    (1008, 504)
    """
    _check(width, height)
    if max(width, height) / min(width, height) > 200:
        raise ImageError(f"{width}x{height}: Qwen-VL rejects aspect ratios above 200")
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return w_bar, h_bar


@dataclass(frozen=True)
class QwenPatches:
    """Qwen-VL (open weights): one token per factor² px after ``smart_resize``.

    factor 28 for Qwen2/2.5-VL (patch 14, merge 2), 32 for Qwen3-VL.

    >>> QwenPatches().tokens(1568, 728)
    1456
    """

    kind: ClassVar[str] = "qwen-patches"
    factor: int = 28
    min_pixels: int = 3136
    max_pixels: int = 12845056
    label: Label = "documented"
    note: str = "transformers image_processing_qwen2_vl.py (code)"

    def seen(self, width: int, height: int) -> tuple[int, int]:
        return qwen_smart_resize(
            width,
            height,
            factor=self.factor,
            min_pixels=self.min_pixels,
            max_pixels=self.max_pixels,
        )

    def tokens(self, width: int, height: int) -> int:
        w, h = self.seen(width, height)
        return (w // self.factor) * (h // self.factor)

    def sides(self, limit: int) -> tuple[int, ...]:
        return _multiples(self.factor, limit)

    def describe(self) -> str:
        return f"qwen {self.factor}px tokens after smart_resize, ≤{self.max_pixels} px"


@dataclass(frozen=True)
class GrokPatches:
    """xAI Grok, measured: ``⌈w/32⌉·⌈h/32⌉ + 4``, inside the documented 256–1792 range.

    Only two measured points exist (768×336 → 268, 764×980 → 748; ≈1000 tokens
    per megapixel); this formula fits both exactly but is an inference. How an
    image above the range is shrunk is undocumented: ``seen`` scales it by area
    to the budget, which is a guess, so the solver stays below the range.

    >>> GrokPatches().tokens(768, 336), GrokPatches().tokens(764, 980)
    (268, 748)
    """

    kind: ClassVar[str] = "grok-patches"
    patch: int = 32
    overhead: int = 4
    min_tokens: int = 256
    max_tokens: int = 1792
    label: Label = "uncertain"
    note: str = "fits two measured points (pxpipe); the shrink above 1792 tokens is unknown"

    def seen(self, width: int, height: int) -> tuple[int, int]:
        _check(width, height)
        p, budget = self.patch, self.max_tokens - self.overhead
        w, h = width, height
        if _cdiv(w, p) * _cdiv(h, p) > budget:
            scale = math.sqrt(budget * p * p / (w * h))
            w, h = max(1, math.floor(w * scale)), max(1, math.floor(h * scale))
            while _cdiv(w, p) * _cdiv(h, p) > budget:
                w, h = (w - 1, h) if w * height >= h * width else (w, h - 1)
        return w, h

    def tokens(self, width: int, height: int) -> int:
        w, h = self.seen(width, height)
        return max(self.min_tokens, _cdiv(w, self.patch) * _cdiv(h, self.patch) + self.overhead)

    def sides(self, limit: int) -> tuple[int, ...]:
        return _multiples(self.patch, limit)

    def describe(self) -> str:
        return f"grok ~32px patches +{self.overhead} (measured), {self.min_tokens}–{self.max_tokens} tokens"


@dataclass(frozen=True)
class NoVision:
    """A text-only model: it cannot see images at all."""

    kind: ClassVar[str] = "none"
    label: Label = "documented"
    note: str = "text-only model"

    def seen(self, width: int, height: int) -> tuple[int, int]:
        raise InputError("this model has no vision input: it cannot see an image at all")

    def tokens(self, width: int, height: int) -> int:
        raise InputError("this model has no vision input: images cannot be billed for it")

    def sides(self, limit: int) -> tuple[int, ...]:
        return ()

    def describe(self) -> str:
        return "no vision (text-only model)"


SCHEME_KINDS: dict[str, type[Any]] = {
    cls.kind: cls
    for cls in (
        AnthropicPatches,
        AnthropicArea,
        OpenAITiles,
        OpenAIPatches,
        GeminiFlat,
        GeminiTiles,
        MistralPatches,
        QwenPatches,
        GrokPatches,
        NoVision,
    )
}


def scheme_to_dict(scheme: Scheme) -> dict[str, Any]:
    """A scheme as plain data (``kind`` plus its fields), the inverse of :func:`scheme_from_dict`.

    >>> scheme_to_dict(GeminiFlat())["kind"]
    'gemini-flat'
    """
    out: dict[str, Any] = {"kind": scheme.kind}
    out.update({f.name: getattr(scheme, f.name) for f in fields(scheme)})  # type: ignore[arg-type]
    return out


def scheme_from_dict(data: dict[str, Any]) -> Scheme:
    """Build a scheme from plain data, e.g. a ``[scheme]`` table in a profile file.

    >>> scheme_from_dict({"kind": "anthropic-patches", "max_edge": 2576, "max_tokens": 4784}).max_tokens
    4784
    """
    data = dict(data)
    kind = data.pop("kind", None)
    cls = SCHEME_KINDS.get(str(kind))
    if cls is None:
        raise InputError(
            f"unknown billing scheme kind {kind!r}; use one of: {', '.join(sorted(SCHEME_KINDS))}"
        )
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise InputError(
            f"scheme {kind!r} has no field(s) {', '.join(unknown)}; its fields are: {', '.join(sorted(known))}"
        )
    scheme: Scheme = cls(**data)
    return scheme


__all__ = [
    "LABELS",
    "SCHEME_KINDS",
    "AnthropicArea",
    "AnthropicPatches",
    "GeminiFlat",
    "GeminiTiles",
    "GrokPatches",
    "Label",
    "MistralPatches",
    "NoVision",
    "OpenAIPatches",
    "OpenAITiles",
    "QwenPatches",
    "Scheme",
    "anthropic_resized_size",
    "fit_within",
    "qwen_smart_resize",
    "scheme_from_dict",
    "scheme_to_dict",
]
