"""The page solver: never a resampled page, best characters per billed token, budgets kept."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snapshot.billing.schemes import (
    AnthropicPatches,
    GeminiFlat,
    MistralPatches,
    OpenAIPatches,
    OpenAITiles,
    Scheme,
)
from snapshot.errors import BudgetError
from snapshot.profiles import Limits, all_profiles, png_bytes_bound, profile_for, solve_page
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import load_font

VISION = [p for p in all_profiles() if p.vision]


@pytest.mark.parametrize("profile", VISION, ids=[p.canonical for p in VISION])
def test_every_profile_page_is_unresampled_and_in_budget(profile) -> None:  # type: ignore[no-untyped-def]
    sol = profile.solution()
    w, h = sol.size
    assert profile.scheme.seen(w, h) == (w, h)
    assert w <= profile.legible_max[0] and h <= profile.legible_max[1]
    cap = profile.limits.side_cap()
    if cap is not None:
        assert max(w, h) <= cap
    if profile.limits.max_image_bytes is not None:
        assert png_bytes_bound(w, h) <= profile.limits.max_image_bytes
    g = profile.geometry()
    assert isinstance(g, Geometry)
    assert g.size == (w, h)
    assert g.chars_per_page == sol.chars_per_page
    assert g.font.name == load_font(profile.font).name
    assert sol.tokens == profile.image_tokens(w, h)


def test_tile_models_get_their_best_strip() -> None:
    assert profile_for("gpt-4o").solution().size == (512, 2048)
    assert profile_for("gpt-5").solution().tokens == 630


def test_flat_fee_gets_the_widest_legible_page() -> None:
    sol = profile_for("gemini-3.6-flash").solution()
    assert sol.size == (1568, 728)  # the largest 5x8 page with a published good read
    assert sol.tokens == 1120


def test_patch_schemes_waste_no_padding() -> None:
    for model_id, step in (("claude-sonnet-4-5", 28), ("claude-fable-5", 28), ("gpt-5.4", 32)):
        w, h = profile_for(model_id).solution().size
        assert w % step == 0 and h % step == 0, model_id


def test_dense_reader_packs_more_per_token() -> None:
    fable = profile_for("claude-fable-5").solution()
    opus = profile_for("claude-opus-4-8").solution()
    assert fable.chars_per_token > 3 * opus.chars_per_token
    # 784 px per token and a 5x8 cell give at most 19.6 chars/token; margins cost a little.
    assert 18.5 < fable.chars_per_token <= 19.6


def test_many_images_rule_caps_the_high_res_tier() -> None:
    limits = profile_for("claude-opus-4-7").limits
    assert limits.max_images is not None and limits.max_images > 20
    assert limits.side_cap() == 2000
    roomy = solve_page(
        AnthropicPatches(max_edge=2576, max_tokens=4784), "snap5x8", (3000, 3000), limits
    )
    assert max(roomy.size) <= 2000
    few = Limits(max_images=20, many_images=20, many_images_max_side=2000)
    assert few.side_cap() is None
    big = solve_page(AnthropicPatches(max_edge=2576, max_tokens=4784), "snap5x8", (3000, 3000), few)
    assert max(big.size) > 2000


def test_byte_budget_binds() -> None:
    tight = Limits(max_image_bytes=png_bytes_bound(512, 512))
    sol = solve_page(GeminiFlat(), "snap5x8", (1568, 1568), tight)
    assert png_bytes_bound(*sol.size) <= tight.max_image_bytes  # type: ignore[operator]
    with pytest.raises(BudgetError):
        solve_page(GeminiFlat(), "snap5x8", (1568, 1568), Limits(max_image_bytes=10))


SCHEMES = st.one_of(
    st.builds(
        AnthropicPatches,
        max_edge=st.sampled_from([784, 1092, 1568, 2576]),
        max_tokens=st.integers(200, 4784),
    ),
    st.builds(
        OpenAIPatches,
        multiplier=st.sampled_from(["1.2", "1.5", "1.62", "2.46"]),
        max_side=st.sampled_from([512, 1024, 2048]),
        patch_budget=st.one_of(st.none(), st.integers(64, 2500)),
    ),
    st.builds(OpenAITiles, base=st.integers(50, 3000), per_tile=st.integers(100, 6000)),
    st.just(MistralPatches()),
)


def _brute_best(scheme: Scheme, font: str, box: tuple[int, int], step: int) -> Fraction:
    f = load_font(font)
    best = Fraction(0)
    for w in range(step, box[0] + 1, step):
        for h in range(step, box[1] + 1, step):
            if scheme.seen(w, h) != (w, h):
                continue
            try:
                g = Geometry.fit(f, w, h)
            except Exception:
                continue
            best = max(best, Fraction(g.chars_per_page, scheme.tokens(w, h)))
    return best


@settings(max_examples=40, deadline=None)
@given(
    scheme=SCHEMES,
    font=st.sampled_from(["snap5x8", "snap8x16"]),
    box=st.tuples(st.integers(100, 2100), st.integers(100, 2100)),
)
def test_solver_never_proposes_a_resampled_page(
    scheme: Scheme, font: str, box: tuple[int, int]
) -> None:
    try:
        sol = solve_page(scheme, font, box, Limits())
    except BudgetError:
        return  # nothing fits (e.g. a box smaller than one tile): refusing is correct
    w, h = sol.size
    assert scheme.seen(w, h) == (w, h)
    assert w <= box[0] and h <= box[1]
    assert sol.tokens == scheme.tokens(w, h)
    g = Geometry.fit(load_font(font), w, h)
    assert g.chars_per_page == sol.chars_per_page


@settings(max_examples=10, deadline=None)
@given(
    budget=st.integers(100, 1600),
    box=st.tuples(st.integers(200, 900), st.integers(200, 900)),
)
def test_solver_is_optimal_on_its_grid(budget: int, box: tuple[int, int]) -> None:
    scheme = AnthropicPatches(max_edge=1568, max_tokens=budget)
    sol = solve_page(scheme, "snap8x16", box, Limits())
    assert Fraction(sol.chars_per_page, sol.tokens) == _brute_best(scheme, "snap8x16", box, 28)


@settings(max_examples=25, deadline=None)
@given(
    w=st.integers(1, 1600),
    h=st.integers(1, 800),
    ink=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_png_bound_holds_for_the_real_encoder_on_any_page(
    w: int, h: int, ink: float, seed: int
) -> None:
    # The byte budgets are checked against this bound, so it must hold even for noise.
    import base64

    import numpy as np

    from snapshot.rendering.raster import to_png

    rng = np.random.default_rng(seed)
    pixels = np.where(rng.random((h, w)) < ink, 0, 255).astype(np.uint8)
    assert len(base64.b64encode(to_png(pixels, (w, h)))) <= png_bytes_bound(w, h)


@pytest.mark.parametrize("shade", ["gray", "gray16", "gray4"])
def test_gray_noise_page_fits_its_shade_bound_and_not_the_one_bit_bound(shade: str) -> None:
    # Gray pages take 8 (or 4, 2) bits a pixel: a byte budget checked with the 1-bit bound
    # would let through requests a provider refuses as too large.
    import base64

    import numpy as np

    from snapshot.rendering.geometry import GRAY_BITS, Geometry
    from snapshot.rendering.glyphs import load_font
    from snapshot.rendering.raster import gray_png

    font = load_font("snap5x9v2")
    g = Geometry(font, cols=80, rows=20, header=False, shade=shade)
    w, h = g.size
    bits = GRAY_BITS[shade]
    rng = np.random.default_rng(bits)
    scan = rng.integers(0, 256, (h, 1 + -(-w * bits // 8)), dtype=np.uint8)
    scan[:, 0] = 0  # filter byte: None
    size = len(base64.b64encode(gray_png(scan, g)))
    assert size <= png_bytes_bound(w, h, bits)
    assert size > png_bytes_bound(w, h)


def test_gray_profile_carries_fewer_pages_per_request() -> None:
    import dataclasses

    one_bit = profile_for("claude-sonnet-5-5")
    gray = dataclasses.replace(one_bit, shade="gray")
    assert one_bit.limits.max_request_bytes is not None
    assert gray.solution().png_bytes_bound > one_bit.solution().png_bytes_bound
    per_request = gray.max_pages_per_request()
    assert per_request is not None
    assert per_request * gray.solution().png_bytes_bound <= one_bit.limits.max_request_bytes
