"""Request limits of a route, folded from the limit rows, and the worst-case page size in bytes.

>>> Limits(max_images=100, many_images=20, many_images_max_side=2000).side_cap()
2000
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from snapshot.billing.rows import LimitFact


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

        >>> from snapshot.billing.providers import limit_facts_for
        >>> Limits.from_facts(limit_facts_for("anthropic")).max_images
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


def png_bytes_bound(width: int, height: int, bits: int = 1) -> int:
    """Worst-case size of a PNG page of ``bits`` per pixel, base64-encoded (incompressible data).

    Providers count the base64 form. 1-bit is what ``raster.to_png`` writes; gray pages
    (``raster.gray_png``) take 8 bits a pixel, or 4 / 2 for the ``gray16`` / ``gray4``
    shades (:data:`snapshot.rendering.geometry.GRAY_BITS`), so a byte budget that fits a 1-bit page
    can be 8× short for a gray one.

    >>> png_bytes_bound(1568, 728)
    218204
    >>> png_bytes_bound(1568, 728, bits=8)
    1737236
    """
    if bits not in (1, 2, 4, 8):
        raise ValueError(f"a PNG gray page has 1, 2, 4 or 8 bits a pixel, not {bits}")
    raw = height * (1 + math.ceil(width * bits / 8))  # filter byte + packed row
    # zlib's deflateBound() for non-default settings, which holds for any input at any
    # zlib level, plus the 6-byte wrapper: raster stores (zlib level 0) whatever igzip
    # would grow.
    deflate = raw + ((raw + 7) >> 3) + ((raw + 63) >> 6) + 5 + 6
    png = 8 + 25 + 12 + 12 + deflate  # signature, IHDR, IEND, one IDAT chunk
    return 4 * math.ceil(png / 3)


__all__ = ["Limits", "png_bytes_bound"]
