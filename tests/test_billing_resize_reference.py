"""Claude's oversize resize rounds the short side like the docs' reference code (Python round)."""

from __future__ import annotations

import math
import random

from snapshot.billing.schemes import anthropic_resized_size


def _reference(width: int, height: int, max_edge: int, max_tokens: int) -> tuple[int, int]:
    # Written from the vision-coordinates page's description: binary search on the long
    # edge, short side max(round(mid / aspect_ratio), 1), edges checked as ceil(e/28)*28.
    def fits(w: int, h: int) -> bool:
        return (
            math.ceil(w / 28) * 28 <= max_edge
            and math.ceil(h / 28) * 28 <= max_edge
            and math.ceil(w / 28) * math.ceil(h / 28) <= max_tokens
        )

    if fits(width, height):
        return width, height
    landscape = width >= height
    long_side, short_side = (width, height) if landscape else (height, width)
    aspect_ratio = long_side / short_side
    lo, hi = 1, long_side
    while lo < hi:
        mid = (lo + hi + 1) // 2
        short = max(round(mid / aspect_ratio), 1)
        if fits(*((mid, short) if landscape else (short, mid))):
            lo = mid
        else:
            hi = mid - 1
    short = max(round(lo / aspect_ratio), 1)
    return (lo, short) if landscape else (short, lo)


def test_matches_the_reference_on_random_oversize_uploads() -> None:
    rng = random.Random(1)
    for _ in range(3000):
        w, h = rng.randint(200, 8000), rng.randint(200, 8000)
        for edge, tokens in ((1568, 1568), (2576, 4784)):
            assert anthropic_resized_size(w, h, max_edge=edge, max_tokens=tokens) == _reference(
                w, h, edge, tokens
            ), (w, h, edge)


def test_the_documented_examples() -> None:
    assert anthropic_resized_size(2000, 1500) == (1270, 952)
    assert anthropic_resized_size(3840, 2160, max_edge=2576, max_tokens=4784) == (2576, 1449)
    assert anthropic_resized_size(5318, 1712) == (1568, 505)  # floor gave 504: 56 tokens less
