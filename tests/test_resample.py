"""Simulated provider preprocessing: sizes, determinism, filters, codecs, padding."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snapshot.legibility.resample import (
    FILTERS,
    NATIVE,
    SWEEP_SCALES,
    Preprocess,
    fit_size,
    fit_within,
    pad,
    reencode,
    resample,
    resample_many,
    resample_to,
    restore,
    scaled_size,
    sweep,
)


def _page(h: int = 40, w: int = 60, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.where(rng.random((h, w)) < 0.3, 0, 255).astype(np.uint8)


def test_scale_one_is_identity_copy() -> None:
    page = _page()
    out = resample(page, 1.0, "lanczos")
    assert np.array_equal(out, page)
    assert out is not page


@pytest.mark.parametrize("filter", FILTERS)
@pytest.mark.parametrize("scale", [0.9, 0.75, 0.555, 0.5])
def test_sizes_and_determinism(filter: str, scale: float) -> None:
    page = _page()
    a = resample(page, scale, filter)  # type: ignore[arg-type]
    b = resample(page, scale, filter)  # type: ignore[arg-type]
    assert a.shape == (round(40 * scale), round(60 * scale))
    assert a.dtype == np.uint8
    assert np.array_equal(a, b)


def test_filters_differ_on_a_downscale() -> None:
    page = _page()
    outs = {f: resample(page, 0.555, f) for f in FILTERS}
    distinct = {o.tobytes() for o in outs.values()}
    assert len(distinct) == len(FILTERS)
    # nearest keeps the page bilevel; the smoothing filters make gray
    assert set(np.unique(outs["nearest"])) <= {0, 255}
    assert len(np.unique(outs["bilinear"])) > 2


def test_resample_to_and_fit() -> None:
    page = _page()
    assert resample_to(page, (30, 10), "box").shape == (10, 30)
    assert fit_size((1928, 1928), (1568, 1568)) == (1568, 1568)
    assert fit_size((100, 50), (1568, 1568)) == (100, 50)  # never enlarged
    assert fit_size((2000, 1000), (1000, 1000)) == (1000, 500)
    assert fit_within(page, (30, 30), "bicubic").shape == (20, 30)


def test_pad_to_multiple_and_to_size() -> None:
    page = _page(30, 50)
    out = pad(page, multiple=28)
    assert out.shape == (56, 56)
    assert np.array_equal(out[:30, :50], page)
    assert (out[30:] == 255).all() and (out[:, 50:] == 255).all()
    assert pad(page, to=(60, 31)).shape == (31, 60)
    with pytest.raises(ValueError):
        pad(page, to=(10, 10))


@pytest.mark.parametrize("codec", ["jpeg", "webp"])
def test_lossy_codecs_lose_more_at_low_quality(codec: str) -> None:
    page = _page()
    hi = reencode(page, codec, 95)  # type: ignore[arg-type]
    lo = reencode(page, codec, 10)  # type: ignore[arg-type]
    assert hi.shape == lo.shape == page.shape
    err_hi = np.abs(hi.astype(int) - page).mean()
    err_lo = np.abs(lo.astype(int) - page).mean()
    assert err_lo > err_hi
    assert np.array_equal(reencode(page, codec, 10), lo)  # type: ignore[arg-type]


def test_png_codec_is_lossless() -> None:
    page = _page()
    assert np.array_equal(reencode(page, "png"), page)


def test_preprocess_pipeline_and_restore() -> None:
    page = _page(50, 70)
    pp = Preprocess(scale=0.5, filter="bilinear", pad_multiple=28, codec="jpeg", quality=80)
    seen = pp.apply(page)
    assert seen.native_size == (70, 50)
    assert seen.content_size == (35, 25)
    assert seen.pixels.shape == (28, 56)
    assert seen.scale == (0.5, 0.5)
    assert restore(seen).shape == page.shape
    assert pp.label == "x0.5 bilinear pad28 jpegq80"
    native = NATIVE.apply(page)
    assert np.array_equal(native.pixels, page) and native.scale == (1.0, 1.0)


def test_box_preprocess_downscales_into_the_box() -> None:
    seen = Preprocess(box=(35, 35), filter="lanczos").apply(_page(50, 70))
    assert seen.content_size == (35, 25)


def test_sweep_covers_every_scale_and_filter() -> None:
    pps = sweep()
    assert pps[0] == NATIVE
    assert len(pps) == 1 + (len(SWEEP_SCALES) - 1) * len(FILTERS)
    assert {p.scale for p in pps} == set(SWEEP_SCALES)


@pytest.mark.parametrize(
    "bad",
    [np.zeros((4, 4, 3), np.uint8), np.zeros((4, 4), np.float32), np.zeros((0, 4), np.uint8)],
)
def test_bad_arrays_are_rejected(bad: np.ndarray) -> None:
    with pytest.raises(ValueError):
        resample(bad, 0.5, "box")


def test_bad_parameters() -> None:
    with pytest.raises(ValueError, match="filter"):
        Preprocess(filter="cubic")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        scaled_size((10, 10), 0)
    with pytest.raises(ValueError):
        reencode(_page(), "jpeg", 0)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(1, 40),
    st.integers(1, 50),
    st.integers(1, 90),
    st.integers(1, 70),
    st.sampled_from(FILTERS),
    st.integers(0, 2**16),
)
def test_a_stack_resamples_as_each_image_alone(
    t: int, h: int, w: int, tw: int, th: int, filter: str, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    stack = rng.integers(0, 256, (t, h, w), dtype=np.uint8)
    stack[:, :, : w // 2] = np.where(stack[:, :, : w // 2] < 128, 0, 255)  # ink beside gray
    got = resample_many(stack, (tw, th), filter)  # type: ignore[arg-type]
    assert got.shape == (t, th, tw) and got.dtype == np.uint8
    for i in range(t):
        assert np.array_equal(got[i], resample_to(stack[i], (tw, th), filter))  # type: ignore[arg-type]


def test_a_stack_must_be_three_dimensional_uint8() -> None:
    with pytest.raises(ValueError):
        resample_many(np.zeros((4, 4), np.uint8), (2, 2), "bicubic")
    with pytest.raises(ValueError):
        resample_many(np.zeros((1, 4, 4), np.uint8), (0, 2), "bicubic")
