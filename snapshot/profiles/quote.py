"""What one image, or one text imaged vs kept as text, costs on a model: the ``cost`` command's library.

Every record names the lifecycle status of the id, the price database version and
the model id it matched (``price``; ``None`` and ``dollars: null`` when the
database lacks the id: "no price", never a sibling's), and how text tokens were
counted (``exact`` / ``reconstruction`` / ``estimate``). A request the provider
would refuse raises :class:`~snapshot.billing.refusals.RequestRefused` naming the rule.

>>> from snapshot.profiles import profile_for
>>> q = quote_image(profile_for("claude-opus-5"), 2000, 1500, today="2026-12-01")
>>> q["tokens"], q["resized"], q["status"]
(3888, False, 'current')
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from snapshot.billing.prices import dollars
from snapshot.billing.refusals import RequestRefused
from snapshot.billing.text_tokens import compare
from snapshot.billing.uncertain import DEFAULT_EVIDENCE_DIR
from snapshot.errors import InputError
from snapshot.profiles.options import resolve_profile
from snapshot.profiles.profile import Profile
from snapshot.profiles.resolution import count_text_tokens


def check_request(
    profile: Profile, width: int, height: int, *, images: int = 1, image_bytes: int | None = None
) -> None:
    """Raise :class:`RequestRefused` if the route would refuse ``images`` images of this size.

    Checks the route's image count, bytes per image (when known), the many-images
    side rule (Anthropic: over 20 images, no side above 2000 px) and the scheme's
    own refusals (GPT-5.6/6 over 30,000 patches, Anthropic over 8000 px).

    >>> from snapshot.profiles import profile_for
    >>> check_request(profile_for("claude-sonnet-4-6"), 2400, 1000, images=21)
    Traceback (most recent call last):
    ...
    snapshot.billing.refusals.RequestRefused: refused by rule anthropic-many-images-2000px: ...
    """
    lim = profile.limits
    where = f"{profile.model} via {profile.route}"
    if lim.max_images is not None and images > lim.max_images:
        raise RequestRefused(
            f"{where} takes at most {lim.max_images} images per request, asked for {images}; "
            "split the request",
            rule=f"{profile.route}-max-{lim.max_images}-images",
        )
    if (
        lim.max_image_bytes is not None
        and image_bytes is not None
        and image_bytes > lim.max_image_bytes
    ):
        raise RequestRefused(
            f"{where} takes at most {lim.max_image_bytes:,} bytes per image, got "
            f"{image_bytes:,}; compress or shrink the image",
            rule=f"{profile.route}-max-image-bytes",
        )
    if (
        lim.many_images is not None
        and lim.many_images_max_side is not None
        and images > lim.many_images
        and max(width, height) > lim.many_images_max_side
    ):
        raise RequestRefused(
            f"{where}: with more than {lim.many_images} images per request no side may exceed "
            f"{lim.many_images_max_side} px ({width}x{height} does); resize or send at most "
            f"{lim.many_images} images",
            rule=f"{profile.provider}-many-images-{lim.many_images_max_side}px",
        )
    profile.scheme.seen(width, height)  # raises RequestRefused on a scheme's own limit


def _price_part(
    profile: Profile, tokens: int, today: str | date | None, tier: str = "standard"
) -> tuple[float | None, dict[str, Any] | None]:
    price = profile.price(today, tier)
    if price is None:
        return None, None
    rates = price.at(tokens)
    return dollars(tokens, rates.input), price.record()


def _storage_per_hour(price: dict[str, Any] | None, tokens: int) -> float | None:
    """Dollars per hour to keep ``tokens`` in an explicit context cache (None: no such rate)."""
    return dollars(tokens, None if price is None else price["cache_storage_per_mtok_hour"])


def quote_image(
    profile: Profile,
    width: int,
    height: int,
    *,
    images: int = 1,
    image_bytes: int | None = None,
    today: str | date | None = None,
    tier: str = "standard",
) -> dict[str, Any]:
    """Seen size, tokens and dollars of one width × height image on ``profile``.

    Where the model's scheme has a disputed field, ``range`` gives the tokens and
    dollars at each end with its source.
    """
    if not profile.vision:
        raise InputError(
            f"{profile.model} is a text-only model: it cannot see images; "
            "try `snapshot cost --text FILE` for its text tokens"
        )
    check_request(profile, width, height, images=images, image_bytes=image_bytes)
    seen = profile.scheme.seen(width, height)
    tokens = profile.image_tokens(width, height)
    cost, price = _price_part(profile, tokens, today, tier)
    record: dict[str, Any] = {
        "model": profile.model,
        "canonical": profile.canonical,
        "resolved_by": profile.resolved_by,
        "prefix_family": profile.prefix_family,
        "route": profile.route,
        **profile.lifecycle_record(today),
        "scheme": profile.scheme.kind,
        "scheme_label": profile.scheme.label,
        "scheme_detail": profile.scheme.describe(),
        "tokens": tokens,
        "seen": list(seen),
        "resized": tuple(seen) != (width, height),
        "dollars": cost,
        "price": price,
        "cache_storage_dollars_per_hour": _storage_per_hour(price, tokens),
        "range": _image_range(profile, width, height, today, tier),
        "settled": None if profile.settled is None else profile.settled.record(),
    }
    padded = getattr(profile.scheme, "padded", None)
    if padded is not None:
        record["padded"] = list(padded(width, height))  # Anthropic: pad to 28, no resample
    if getattr(profile.scheme, "seen_documented", True) is False:
        record["seen_note"] = "internal resample undocumented (unknown): upload size shown"
    return record


def _image_range(
    profile: Profile, width: int, height: int, today: str | date | None, tier: str
) -> dict[str, Any] | None:
    ends = profile.range_ends()
    if not ends:
        return None
    out = []
    for value, fact, prof in ends:
        tokens = prof.image_tokens(width, height)
        out.append(
            {
                "value": value,
                "tokens": tokens,
                "dollars": _price_part(prof, tokens, today, tier)[0],
                "source": fact.cite(),
            }
        )
    return {"name": _range_name(profile), "uncertain": True, "ends": out}


def _range_name(profile: Profile) -> str:
    from snapshot.billing.uncertain import range_for

    rng = range_for(profile.canonical)
    return "" if rng is None else f"{rng.name} ({rng.field})"


def _imaged(
    profile: Profile,
    counted: Any,
    normalized: str,
    text_dollars: float | None,
    today: str | date | None,
    tier: str,
) -> dict[str, Any]:
    """The imaged side of a text quote: pages, their tokens and dollars, and the verdict."""
    from snapshot.rendering.text import layout

    pages = len(layout(normalized, profile.geometry()))
    sol = profile.solution()
    comp = compare(counted, pages=pages, tokens_per_page=sol.tokens, chars_imaged=len(normalized))
    image_dollars, price = _price_part(profile, comp.image_tokens, today, tier)
    return {
        "font": profile.font,
        "page": list(sol.size),
        "pages": pages,
        "tokens_per_page": sol.tokens,
        "image_tokens": comp.image_tokens,
        "image_dollars": image_dollars,
        "image_cache_storage_dollars_per_hour": _storage_per_hour(price, comp.image_tokens),
        "saved_tokens": comp.saved_tokens,
        "saved_fraction": round(comp.saved_fraction, 4),
        "saved_dollars": None
        if text_dollars is None or image_dollars is None
        else round(text_dollars - image_dollars, 9),
        "image_chars_per_token": round(comp.image_chars_per_token, 3),
        "break_even_chars_per_token": round(comp.break_even, 3),
        "break_even_is_estimate": counted.kind == "estimate",
        "imaging_pays": comp.imaging_pays,
    }


def quote_text(
    profile: Profile, raw: str, *, today: str | date | None = None, tier: str = "standard"
) -> dict[str, Any]:
    """A text's tokens as text (the one counter) against the pages it fills, with dollars.

    Where the model's scheme has a disputed field, ``range`` repeats the imaged side
    at each end (the page is re-solved for it) and ``verdict_flips`` says whether
    ``imaging_pays`` differs between the ends.
    """
    from snapshot.rendering.text import normalize

    counted = count_text_tokens(profile, raw)
    text_dollars, price = _price_part(profile, counted.tokens, today, tier)
    record: dict[str, Any] = {
        "model": profile.model,
        "canonical": profile.canonical,
        "resolved_by": profile.resolved_by,
        **profile.lifecycle_record(today),
        "scheme": profile.scheme.kind,
        "vision": profile.vision,
        "chars": counted.chars,
        "text_tokens": counted.tokens,
        "text_tokens_exact": counted.exact,
        "text_counter": counted.kind,
        "text_method": counted.method,
        "text_source": counted.source,
        "text_dollars": text_dollars,
        "text_cache_storage_dollars_per_hour": _storage_per_hour(price, counted.tokens),
        "price": price,
    }
    if not profile.vision:
        record["note"] = "text-only model: it cannot read pages, so imaging is not an option"
        return record
    normalized = normalize(raw).text
    record.update(_imaged(profile, counted, normalized, text_dollars, today, tier))
    record["settled"] = None if profile.settled is None else profile.settled.record()
    ends = profile.range_ends()
    if ends:
        sides = [
            {
                "value": v,
                "source": f.cite(),
                **_imaged(p, counted, normalized, text_dollars, today, tier),
            }
            for v, f, p in ends
        ]
        record["range"] = {
            "name": _range_name(profile),
            "uncertain": True,
            "ends": sides,
            "verdict_flips": len({s["imaging_pays"] for s in sides}) > 1,
        }
    else:
        record["range"] = None
    return record


_SIZE = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*$")


def parse_size(text: str) -> tuple[int, int]:
    """An image size written ``WxH`` (``x``, ``X`` or ``×``) as ``(width, height)``.

    Parameters
    ----------
    text : str
        The size as typed, e.g. ``"1568x728"``.

    Returns
    -------
    tuple of int
        ``(width, height)`` in px, both positive.

    Raises
    ------
    InputError
        The text is not two positive integers around an ``x``.

    Examples
    --------
    >>> parse_size(" 1568 × 728 ")
    (1568, 728)
    >>> parse_size("0x10")
    Traceback (most recent call last):
    ...
    snapshot.errors.InputError: --size must look like 1568x728 (positive width x height), got '0x10'
    """
    m = _SIZE.match(text)
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise InputError(f"--size must look like 1568x728 (positive width x height), got {text!r}")
    return int(m.group(1)), int(m.group(2))


def _read_text(path: str) -> str:
    """The text of ``path`` (``-``: stdin), invalid UTF-8 replaced by U+FFFD."""
    from snapshot.rendering.text import decode_bytes

    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return decode_bytes(data)[0]


@dataclass(frozen=True)
class Quote:
    """What ``snapshot cost`` reports: the record, and the image size asked about.

    ``record`` is :func:`quote_image`'s (``size`` set) or :func:`quote_text`'s
    (``size`` is ``None``).
    """

    record: dict[str, Any]
    size: tuple[int, int] | None = None


def quote_request(
    model: str,
    *,
    size: str | None = None,
    text: str | None = None,
    images: int = 1,
    image_bytes: int | None = None,
    profiles_file: str | Path | None = None,
    fallback: bool = False,
    detail: str | None = None,
    today: str | date | None = None,
    tier: str = "standard",
    evidence: str | Path | None = DEFAULT_EVIDENCE_DIR,
    inference_geo: str = "global",
) -> Quote:
    """The ``cost`` command's quote: an image size, or a text file imaged vs kept as text.

    Parameters
    ----------
    model : str
        Model id, alias or gateway route (resolved by
        :func:`~snapshot.profiles.options.resolve_profile`).
    size : str, optional
        An image size ``WxH`` (see :func:`parse_size`); quoted by :func:`quote_image`.
    text : str, optional
        Otherwise a text file (``-``: stdin); quoted by :func:`quote_text`.
    images, image_bytes
        With ``size``: images of that size in one request, and the encoded
        bytes of each (checked against the route's rules).
    profiles_file, fallback, detail
        As for :func:`~snapshot.profiles.options.resolve_profile`.
    today : str or date, optional
        The request's date: prices and lifecycle are those of that day (default: today).
    tier : str
        Price tier: ``standard``, ``batch``, ``flex`` or ``priority`` where the vendor has it.
    evidence : str or Path, optional
        Usage-probe records that settle a disputed fact (see :func:`resolve_profile`).
    inference_geo : str
        Data residency the request asks for: ``global`` (the list price) or ``us``
        (Claude API, x1.1 on every token rate; see :meth:`Profile.with_inference_geo`).

    Returns
    -------
    Quote
        The record and, for a size, the ``(width, height)`` asked.

    Raises
    ------
    InputError
        Neither ``size`` nor ``text``, a malformed size, an unreadable file, an
        image quoted for a text-only model, or a tier or geo the route lacks.
    RequestRefused
        The route would refuse the request (names the rule).

    Examples
    --------
    >>> q = quote_request("claude-opus-5", size="2000x1500", today="2026-12-01")
    >>> q.size, q.record["tokens"]
    ((2000, 1500), 3888)
    >>> q = quote_request("claude-opus-5", size="2000x1500", today="2026-12-01", inference_geo="us")
    >>> q.record["dollars"], q.record["price"]["inference_geo"]
    (0.021384, 'us')
    """
    profile = resolve_profile(
        model, profiles_file=profiles_file, fallback=fallback, detail=detail, evidence=evidence
    ).with_inference_geo(inference_geo)
    if size is not None:
        width, height = parse_size(size)
        record = quote_image(
            profile, width, height, images=images, image_bytes=image_bytes, today=today, tier=tier
        )
        return Quote(record, (width, height))
    if text is None:
        raise InputError("nothing to quote: give an image size (--size) or a text file (--text)")
    return Quote(quote_text(profile, _read_text(text), today=today, tier=tier))


__all__ = ["Quote", "check_request", "parse_size", "quote_image", "quote_request", "quote_text"]
