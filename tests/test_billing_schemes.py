"""Every worked example in shared/docs/providers.md, and the schemes' invariants."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snapshot.billing.schemes import (
    SCHEME_KINDS,
    AnthropicArea,
    AnthropicPatches,
    GeminiFlat,
    GeminiTiles,
    GrokPatches,
    MistralPatches,
    NoVision,
    OpenAIPatches,
    OpenAITiles,
    QwenPatches,
    anthropic_resized_size,
    qwen_smart_resize,
    scheme_from_dict,
    scheme_to_dict,
)
from snapshot.errors import ImageError, InputError

STD = AnthropicPatches(max_edge=1568, max_tokens=1568)
HI = AnthropicPatches(max_edge=2576, max_tokens=4784)


# ----------------------------------------------------------------- Anthropic (providers.md §1.1)


@pytest.mark.parametrize(
    ("size", "tokens"),
    [
        ((200, 200), 64),
        ((1000, 1000), 1296),
        ((1092, 1092), 1521),
        ((1920, 1080), 1560),
        ((2000, 1500), 1564),
        ((3840, 2160), 1560),
    ],
)
def test_anthropic_standard_cost_table(size: tuple[int, int], tokens: int) -> None:
    assert STD.tokens(*size) == tokens


@pytest.mark.parametrize(
    ("size", "tokens"), [((1920, 1080), 2691), ((2000, 1500), 3888), ((3840, 2160), 4784)]
)
def test_anthropic_high_res_cost_table(size: tuple[int, int], tokens: int) -> None:
    assert HI.tokens(*size) == tokens


@pytest.mark.parametrize(
    ("scheme", "size", "seen"),
    [
        (STD, (1920, 1080), (1456, 819)),
        (STD, (2000, 1500), (1270, 952)),
        (STD, (1075, 1520), (924, 1307)),  # A4 at 130 DPI: the token limit binds first
        (HI, (3840, 2160), (2576, 1449)),
        (HI, (1920, 1080), (1920, 1080)),
    ],
)
def test_anthropic_resize_examples(
    scheme: AnthropicPatches, size: tuple[int, int], seen: tuple[int, int]
) -> None:
    assert scheme.seen(*size) == seen


def test_a4_would_cost_2145_unresized() -> None:
    assert math.ceil(1075 / 28) * math.ceil(1520 / 28) == 2145
    assert STD.tokens(1075, 1520) == 33 * 47


def test_anthropic_padding_is_not_resampling() -> None:
    assert STD.seen(1920, 1080) == (1456, 819)
    assert STD.padded(1920, 1080) == (1456, 840)
    assert STD.padded(1568, 728) == (1568, 728)


def test_anthropic_rejects_over_8000() -> None:
    with pytest.raises(ImageError, match="8000"):
        STD.seen(8001, 10)


def test_anthropic_tier_boxes() -> None:
    # The largest documented unresampled sheets (decision table).
    assert STD.seen(1568, 784) == (1568, 784) and STD.tokens(1568, 784) == 1568
    assert STD.seen(1568, 812) != (1568, 812)
    assert HI.seen(2576, 1456) == (2576, 1456) and HI.tokens(2576, 1456) == 4784
    assert HI.tokens(1988, 1876) == 4757


def test_anthropic_legacy_rule_for_comparison() -> None:
    legacy = AnthropicArea()
    assert legacy.tokens(1092, 1092) == round(1092 * 1092 / 750)
    # /750 approximates 784 px² per patch: within 5 % of the patch rule on 28-multiples.
    assert abs(legacy.tokens(1092, 1092) - STD.tokens(1092, 1092)) / 1521 < 0.05


# ----------------------------------------------------------------- OpenAI (§2)


def test_openai_tile_examples() -> None:
    gpt4o = OpenAITiles(base=85, per_tile=170)
    assert gpt4o.tokens(1024, 1024) == 765
    assert gpt4o.seen(1024, 1024) == (768, 768)
    assert gpt4o.seen(2048, 4096) == (768, 1536)
    assert gpt4o.tokens(2048, 4096) == 1105
    assert gpt4o.tokens(512, 2048) == 765  # the best strip: 4 tiles, nothing resized
    assert gpt4o.seen(512, 2048) == (512, 2048)
    gpt5 = OpenAITiles(base=70, per_tile=140)
    assert gpt5.tokens(512, 2048) == 630


def test_openai_tiles_never_enlarge() -> None:
    assert OpenAITiles().seen(128, 64) == (128, 64)
    assert OpenAITiles().tokens(128, 64) == 85 + 170


def test_openai_low_detail_is_base_only() -> None:
    low = OpenAITiles(base=85, per_tile=170, detail="low")
    assert low.tokens(4000, 3000) == 85
    assert low.seen(1024, 1024) == (512, 512)


def test_openai_patch_examples() -> None:
    gpt54 = OpenAIPatches(multiplier="1.2", max_side=2048, patch_budget=2500)
    assert gpt54.tokens(1024, 1024) == 1229
    assert gpt54.seen(2048, 2048) == (1600, 1600)
    assert gpt54.patches(2048, 2048) == 2500
    assert gpt54.tokens(2048, 2048) == 3000


def test_openai_patch_decision_table_rows() -> None:
    mini = OpenAIPatches(multiplier="1.62", max_side=2048, patch_budget=1536)
    nano = OpenAIPatches(multiplier="2.46", max_side=2048, patch_budget=1536)
    o4 = OpenAIPatches(multiplier="1.72", max_side=2048, patch_budget=1536)
    assert (mini.tokens(2048, 768), nano.tokens(2048, 768), o4.tokens(2048, 768)) == (
        2489,
        3779,
        2642,
    )
    # gpt-5.4-mini measured cap 1843 = 1536 patches x 1.2; the docs allow a one-token
    # difference from float rounding in billing (the formula gives ceil(1843.2) = 1844).
    mini54 = OpenAIPatches(multiplier="1.2", patch_budget=1536)
    assert abs(mini54.tokens(2048, 768) - 1843) <= 1
    assert mini54.tokens(4000, 4000) <= 1844
    gpt54_high = OpenAIPatches(multiplier="1.2", max_side=2048, patch_budget=2500)
    assert gpt54_high.tokens(2048, 1248) == 2996
    original = OpenAIPatches(multiplier="1.2", max_side=6000, patch_budget=10000)
    assert original.seen(3200, 3200) == (3200, 3200) and original.tokens(3200, 3200) == 12000
    sol = OpenAIPatches(multiplier="1.2", max_side=65535, patch_budget=None)
    assert sol.tokens(6400, 6400) == 48000  # no budget: linear


def test_openai_patch_multiplier_must_be_decimal() -> None:
    with pytest.raises(InputError):
        OpenAIPatches(multiplier="lots")


# ----------------------------------------------------------------- Gemini (§3)


def test_gemini_2_tiles_example() -> None:
    g = GeminiTiles()
    assert g.tiles(960, 540) == 6
    assert g.tokens(960, 540) == 6 * 258


@pytest.mark.parametrize(
    ("size", "tokens"),
    [((384, 384), 258), ((385, 385), 1032), ((768, 768), 1032), ((1568, 728), 2064)],
)
def test_gemini_2_documented_formula_examples(size: tuple[int, int], tokens: int) -> None:
    assert GeminiTiles().tokens(*size) == tokens


def test_gemini_2_only_a_768_crop_unit_is_unresampled() -> None:
    g = GeminiTiles()
    assert g.seen(768, 768) != (768, 768)  # crop unit 512, scaled up to 768 tiles
    assert g.seen(1536, 1152) == (1536, 1152)
    assert g.seen(384, 384) == (384, 384)


@pytest.mark.parametrize("level", [280, 560, 1120, 2240])
def test_gemini_3_flat_budgets(level: int) -> None:
    g = GeminiFlat(budget=level)
    assert g.tokens(100, 100) == g.tokens(4096, 512) == level
    assert not g.seen_documented  # the internal resample is unknown, and says so


# ----------------------------------------------------------------- others (§5)


def test_mistral_example() -> None:
    m = MistralPatches()
    assert m.seen(1436, 962) == (1024, 686)
    # "approximately (X/16)(Y/16)" plus one break/end token per patch row.
    assert m.tokens(1024, 686) == 64 * 43 + 43
    assert abs(m.tokens(1436, 962) - 1024 * 686 / 256) / (1024 * 686 / 256) < 0.03


def test_qwen_smart_resize() -> None:
    assert qwen_smart_resize(1568, 728) == (1568, 728)
    assert qwen_smart_resize(1000, 500) == (1008, 504)  # nearest multiple: a slight resample
    assert QwenPatches().tokens(1568, 728) == 56 * 26
    assert QwenPatches(factor=32, max_pixels=2560 * 1024).tokens(4096, 4096) <= 2560
    with pytest.raises(ImageError):
        qwen_smart_resize(20100, 100)


def test_grok_measured_points() -> None:
    g = GrokPatches()
    assert g.tokens(768, 336) == 268
    assert g.tokens(764, 980) == 748
    assert g.tokens(10, 10) == 256  # documented floor
    assert g.tokens(4000, 4000) <= 1792  # documented ceiling


def test_no_vision_refuses() -> None:
    with pytest.raises(InputError, match="no vision"):
        NoVision().tokens(10, 10)


@pytest.mark.parametrize("bad", [(0, 10), (10, -1)])
def test_sizes_must_be_positive(bad: tuple[int, int]) -> None:
    with pytest.raises(InputError):
        STD.tokens(*bad)


def test_scheme_dict_round_trip() -> None:
    for cls in SCHEME_KINDS.values():
        s = cls()
        assert scheme_from_dict(scheme_to_dict(s)) == s
    with pytest.raises(InputError, match="unknown billing scheme"):
        scheme_from_dict({"kind": "carrier-pigeon"})
    with pytest.raises(InputError, match="no field"):
        scheme_from_dict({"kind": "gemini-flat", "budgte": 3})


# ----------------------------------------------------------------- properties

SIZES = st.tuples(st.integers(1, 8000), st.integers(1, 8000))

LIMITED = [
    (STD, 1568, 1568),
    (HI, 2576, 4784),
    (OpenAITiles(), 2048, None),
    (OpenAIPatches(multiplier="1.2", max_side=2048, patch_budget=2500), 2048, None),
    (OpenAIPatches(multiplier="1.62", max_side=2048, patch_budget=1536), 2048, None),
    (MistralPatches(), 1024, None),
    (GeminiTiles(), None, None),
    (GrokPatches(), None, 1792),
]


@settings(max_examples=300, deadline=None)
@given(size=SIZES)
def test_seen_never_exceeds_a_provider_limit(size: tuple[int, int]) -> None:
    w, h = size
    for scheme, max_side, max_tokens in LIMITED:
        sw, sh = scheme.seen(w, h)
        assert (sw <= w and sh <= h) or isinstance(scheme, GeminiTiles)
        if max_side is not None:
            assert max(sw, sh) <= max_side
        if max_tokens is not None:
            assert scheme.tokens(w, h) <= max_tokens
    # Anthropic also checks the padded edge, and the patch budget of OpenAI's shrink.
    assert max(STD.padded(w, h)) <= 1568
    p = OpenAIPatches(multiplier="1.2", max_side=2048, patch_budget=2500)
    assert p.patches(w, h) <= 2500


@settings(max_examples=300, deadline=None)
@given(size=SIZES)
def test_seen_is_a_fixed_point(size: tuple[int, int]) -> None:
    # What the provider passes on is passed on unchanged a second time.
    for scheme, _, _ in LIMITED:
        if isinstance(scheme, GeminiTiles):
            continue
        seen = scheme.seen(*size)
        assert scheme.seen(*seen) == seen, scheme


@settings(max_examples=300, deadline=None)
@given(
    w=st.integers(1, 3000), h=st.integers(1, 3000), dw=st.integers(0, 200), dh=st.integers(0, 200)
)
def test_tokens_never_decrease_as_an_image_grows_inside_one_tier(
    w: int, h: int, dw: int, dh: int
) -> None:
    # "Inside one tier": sizes the provider does not resize. Beyond the box a
    # resize can legitimately lower the count (1568x1568 -> 1092x1092).
    for scheme in (
        STD,
        HI,
        OpenAITiles(),
        OpenAIPatches(multiplier="1.2", max_side=2048, patch_budget=2500),
        MistralPatches(),
        QwenPatches(),
        GrokPatches(),
        GeminiFlat(),
    ):
        big = (w + dw, h + dh)
        if isinstance(scheme, QwenPatches) and (max(big) / min(w, h) > 200 or w * h < 4 * 3136):
            continue  # Qwen rejects such aspect ratios; below min_pixels is another tier
        if isinstance(scheme, QwenPatches):
            pass  # rounds every size to 28-multiples; 3200x3200 stays inside max_pixels
        elif scheme.seen(*big) != big:
            continue
        else:
            assert scheme.seen(w, h) == (w, h)
        assert scheme.tokens(w, h) <= scheme.tokens(*big), scheme


@settings(max_examples=200, deadline=None)
@given(size=SIZES)
def test_resized_size_is_the_largest_that_fits(size: tuple[int, int]) -> None:
    w, h = size
    rw, rh = anthropic_resized_size(w, h)
    assert math.ceil(rw / 28) * math.ceil(rh / 28) <= 1568
    if (rw, rh) != (w, h):
        # One more pixel on the long edge would break a limit.
        long_next = max(rw, rh) + 1
        short = max(round(long_next / (max(w, h) / min(w, h))), 1)  # the reference's rounding
        nw, nh = (long_next, short) if w >= h else (short, long_next)
        over = (
            math.ceil(nw / 28) * math.ceil(nh / 28) > 1568
            or math.ceil(nw / 28) * 28 > 1568
            or math.ceil(nh / 28) * 28 > 1568
        )
        assert over or long_next > max(w, h)


# ----------------------------------------------------------------- decision table (§0)


@pytest.mark.parametrize(
    ("scheme", "size", "tokens"),
    [
        (STD, (1568, 784), 1568),
        (STD, (1120, 1092), 1560),
        (STD, (1568, 728), 1456),
        (HI, (2576, 1456), 4784),
        (HI, (1988, 1876), 4757),
        (OpenAITiles(base=85, per_tile=170), (512, 2048), 765),
        (OpenAITiles(base=70, per_tile=140), (512, 2048), 630),
        (OpenAITiles(base=2833, per_tile=5667), (512, 2048), 25501),
        (OpenAIPatches(multiplier="1.2", patch_budget=1536), (2048, 768), 1844),  # gpt-5-mini
        (OpenAIPatches(multiplier="1.5", patch_budget=1536), (2048, 768), 2304),  # gpt-5-nano
        (OpenAIPatches(multiplier="1.2", max_side=2048, patch_budget=2500), (1600, 1600), 3000),
    ],
)
def test_decision_table_rows(scheme, size: tuple[int, int], tokens: int) -> None:  # type: ignore[no-untyped-def]
    assert scheme.seen(*size) == size  # every row is a no-downscale sheet
    assert scheme.tokens(*size) == tokens


def test_decision_table_grok_example() -> None:
    # "764x512 -> ~391" at ~1000 tokens per megapixel.
    assert abs(GrokPatches().tokens(764, 512) - 391) <= 391 * 0.02


def test_decision_table_px_per_token() -> None:
    # Claude: 784 px per token on 28-multiples; OpenAI x1.2 patches: 1024/1.2 = 853.
    assert 1568 * 784 / STD.tokens(1568, 784) == 784
    p = OpenAIPatches(multiplier="1.2", patch_budget=1536)
    assert round(2048 * 768 / 1843.2) == 853
    assert p.patches(2048, 768) == 1536
