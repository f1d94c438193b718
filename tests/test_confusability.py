"""Glyph confusability: Hamming matrices, degraded distances, predicted vs observed confusions."""

from __future__ import annotations

import numpy as np
import pytest

from snapshot.errors import UnknownFontError
from snapshot.legibility.confusability import (
    ASCII_GLYPHS,
    GlyphSet,
    compare_confusions,
    degrade_glyphs,
    distance_matrix,
    glyph_set,
    hamming_matrix,
    nearest_pairs,
    summarize,
)


def _font(name: str):  # type: ignore[no-untyped-def]
    from snapshot.rendering.glyphs import load_font

    try:
        return load_font(name)
    except UnknownFontError as exc:
        pytest.skip(f"{name} is not installed here: {exc}")


def _toy() -> GlyphSet:
    a = np.zeros((3, 2, 2), np.uint8)
    a[1, 0, 0] = 1  # differs from a[0] by one pixel
    a[2] = 1  # four pixels from a[0], three from a[1]
    return GlyphSet("toy", "abc", a)


def test_hamming_matrix_by_hand() -> None:
    m = hamming_matrix(_toy().bitmaps)
    assert m.tolist() == [[0, 1, 4], [1, 0, 3], [4, 3, 0]]


def test_nearest_pairs_and_summary() -> None:
    g = _toy()
    m = distance_matrix(g)
    pairs = nearest_pairs(m, g.chars, 2)
    assert [(p.a, p.b, p.distance) for p in pairs] == [("a", "b", 1.0), ("b", "c", 3.0)]
    s = summarize(g, m, k=3)
    assert s.floor == 1.0
    assert s.within == {1: 2, 2: 2, 3: 3}


def test_degraded_distance_equals_hamming_without_loss() -> None:
    g = _toy()
    # a nearest-neighbour "resample" by 1.0 changes nothing, so L1 == Hamming
    ink = degrade_glyphs(g.bitmaps, 1.0, "nearest", restore_filter="nearest")
    assert np.allclose(ink, g.bitmaps)


def test_misc_5x8_matches_the_known_close_pairs() -> None:
    g = glyph_set(_font("misc-5x8"))
    assert g.chars == ASCII_GLYPHS and g.missing == ""
    m = distance_matrix(g)
    assert (m == m.T).all() and (np.diag(m) == 0).all()
    i, j = g.chars.index("l"), g.chars.index("I")
    assert m[i, j] <= 2  # l/I differ by a serif pixel in misc-fixed


def test_spleen_h_and_k_are_one_pixel_apart() -> None:
    # pxpipe's audit: stock Spleen K differs from H by one pixel
    g = glyph_set(_font("spleen-5x8"))
    m = distance_matrix(g)
    assert m[g.chars.index("H"), g.chars.index("K")] == 1


def test_downscale_shrinks_distances() -> None:
    g = glyph_set(_font("misc-5x8"))
    native = distance_matrix(g)
    small = distance_matrix(g, 0.555, "lanczos")
    off = ~np.eye(len(native), dtype=bool)
    # blur removes contrast: glyphs move closer on average
    assert small[off].mean() < native[off].mean()
    assert small.shape == native.shape


def test_compare_confusions_ranks_observed_pairs() -> None:
    g = glyph_set(_font("misc-5x8"))
    m = distance_matrix(g)
    readings = [("lIl", "1I1"), ("xI", "x1"), ("ab中", "ab?"), ("same", "same")]
    cmp = compare_confusions(m, g.chars, readings, top_k=5)
    assert cmp.substitutions == 4  # l->1 twice, I->1, 中->?
    assert cmp.outside == 1
    assert cmp.observed[0].true == "l" and cmp.observed[0].read == "1"
    assert cmp.observed[0].count == 2
    assert cmp.mean_distance_observed < cmp.mean_distance_all
    assert 0.0 <= cmp.share_in_top_k <= 1.0


def test_snap5x8_floor_after_resample_is_reported() -> None:
    """The font engineer asserts the native floor; here the post-resample floor is
    reported (printed in the test log), and only gross regressions fail."""
    g = glyph_set(_font("snap5x8"))
    native = summarize(g, distance_matrix(g))
    after = summarize(g, distance_matrix(g, 0.75, "bicubic"), scale=0.75, filter="bicubic")
    print(f"snap5x8 Hamming floor: native {native.floor}, after x0.75 bicubic {after.floor:.2f}")
    print("nearest after resample:", [(p.a, p.b, round(p.distance, 2)) for p in after.nearest])
    assert native.floor >= 1
    assert after.floor > 0  # no two glyphs become identical
