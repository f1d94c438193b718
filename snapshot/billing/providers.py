"""Provider data tables: models, families, aliases, prefixes, routes, limits, evidence.

Every provider fact lives in exactly one row here, with where it comes from
(``source``: a URL, a repository path, or a measurement), how far to trust it
(``label``: documented / measured / uncertain) and when (``date``). Functions
elsewhere ask these tables; nothing else hard-codes a provider number.

Sources are the ones collected in ``shared/docs/providers.md`` (compiled
2026-11-29; its section is named in each row) and ``shared/docs/anchors.md``
for reader evidence. A date ``"2026"`` means the source is from 2026 but its
exact day was not recorded.

Resolution (in :mod:`snapshot.profiles`) reads, in order: :data:`ROUTES`
(gateway id shapes), :data:`MODELS` (exact ids), :data:`ALIASES`,
:data:`DATE_SUFFIXES` (dated snapshots), then :data:`PREFIXES` (longest first),
the same way ``tiktoken/model.py`` maps model names to encodings.

>>> MODELS["claude-sonnet-4-5"].family
'claude-standard'
>>> FAMILIES["claude-fable"].font
'snap5x8'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from snapshot.billing.schemes import (
    AnthropicPatches,
    GeminiFlat,
    GeminiTiles,
    GrokPatches,
    Label,
    MistralPatches,
    NoVision,
    OpenAIPatches,
    OpenAITiles,
    QwenPatches,
    Scheme,
)

#: When the facts below were compiled from their sources (shared/docs/providers.md).
COMPILED = "2026-11-29"

# Source shorthands: each is a canonical URL or repository path, written once.
SRC_CLAUDE_VISION = "https://platform.claude.com/docs/en/build-with-claude/vision"
SRC_CLAUDE_COORDS = "https://platform.claude.com/docs/en/build-with-claude/vision-coordinates"
SRC_CLAUDE_OLD = "https://docs.anthropic.com/en/docs/vision (pre-2026 wording)"
SRC_CLAUDE_MODELS = "https://platform.claude.com/docs/en/about-claude/models/overview"
SRC_CLAUDE_ERRORS = "https://platform.claude.com/docs/en/api/errors"
SRC_BEDROCK = "https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html"
SRC_VERTEX = "https://docs.claude.com/en/api/claude-on-vertex-ai"
SRC_OPENROUTER = "https://openrouter.ai/docs/guides/overview/multimodal/image-understanding.md"
SRC_OPENAI_VISION = "https://developers.openai.com/api/docs/guides/images-vision"
SRC_OPENAI_MULT = "https://community.openai.com/t/introducing-gpt-5-4-mini-and-nano/1377015"
SRC_GEMINI_TOKENS = "https://ai.google.dev/gemini-api/docs/tokens"
SRC_GEMINI_IMAGES = "https://ai.google.dev/gemini-api/docs/image-understanding"
SRC_GEMINI_MEDIA = "https://ai.google.dev/gemini-api/docs/media-resolution"
SRC_GENAI_1349 = "https://github.com/googleapis/python-genai/issues/1349"
SRC_MISTRAL = "https://docs.mistral.ai/capabilities/vision"
SRC_MISTRAL_CODE = "mistralai/mistral-common src/mistral_common/tokens/tokenizers/multimodal.py"
SRC_QWEN_CODE = "huggingface/transformers models/qwen2_vl/image_processing_qwen2_vl.py"
SRC_PERCEPTRON = "https://docs.perceptron.inc/guides/image-tokens"
SRC_XAI = "https://docs.x.ai/docs/consumption-and-rate-limits"
SRC_XAI_IMAGES = "https://docs.x.ai/docs/guides/image-understanding"
SRC_PXPIPE_PROFILES = "teamchong/pxpipe src/core/gpt-model-profiles.ts"
SRC_PXPIPE_AUDIT = "teamchong/pxpipe docs/LEGIBILITY-AUDIT-2026-07-01.md"
SRC_PXPIPE_OPUS = "teamchong/pxpipe eval/opus-density/RESULTS.md"
SRC_PXPIPE_SOL = "teamchong/pxpipe eval/sol-profile/RESULTS.md"
SRC_PXPIPE_GROK = "teamchong/pxpipe eval/grok-density/FIVE_BY_EIGHT_PURE_RESULTS.md"
SRC_PXPIPE_GEMINI = "teamchong/pxpipe eval/gemini-profile/GEMINI_VISION_RESEARCH.md"
SRC_PXPIPE_LADDER = "teamchong/pxpipe docs/NOT-OCR.md"
SRC_OMNIGLYPH = "diegosouzapw/OmniGlyph docs/benchmarks/BENCHMARKS.md"
SRC_OHMYPI = "can1357/oh-my-pi packages/snapcompact/src/snapcompact.ts"
SRC_ENFORCEMENT = (
    "'Documentation versus enforcement' report (unnamed repo, via providers.md §1.1/§2.3)"
)
SRC_BRIEF = "project brief, issue 3 (no vendor page at hand)"

Provider = Literal["anthropic", "openai", "google", "xai", "mistral", "qwen", "deepseek", "unknown"]
PROVIDERS: tuple[Provider, ...] = (
    "anthropic",
    "openai",
    "google",
    "xai",
    "mistral",
    "qwen",
    "deepseek",
)


@dataclass(frozen=True)
class Fact:
    """Where a row comes from: a source, a trust label and a date."""

    source: str
    label: Label
    date: str
    note: str = ""

    def cite(self) -> str:
        """One line for reports: ``label, source (date)``.

        >>> Fact("https://x", "measured", "2026-07").cite()
        'measured: https://x (2026-07)'
        """
        extra = f"; {self.note}" if self.note else ""
        return f"{self.label}: {self.source} ({self.date}){extra}"


@dataclass(frozen=True)
class Evidence:
    """One reader-legibility finding behind a family's default font or page bound."""

    claim: str
    fact: Fact


@dataclass(frozen=True)
class Family:
    """Models that share a reader: the default font and the largest page read well.

    ``legible_max`` bounds the page (width, height) the solver may propose: the
    largest page with published good reads for this reader, or the project's
    convention where nobody measured (then its evidence says so).
    """

    name: str
    provider: Provider
    font: str
    legible_max: tuple[int, int]
    evidence: tuple[Evidence, ...]
    vision: bool = True


@dataclass(frozen=True)
class Model:
    """One model id: its family and the billing scheme (with that scheme's source)."""

    model: str
    family: str
    scheme: Scheme
    fact: Fact


# --------------------------------------------------------------------------- reader evidence

_E_OPUS48 = Evidence(
    "Opus 4.8: 5x8 cell 1/4 exact (3 confabulations); JetBrains Mono 14 px (9x16 cell) 8/8 exact; "
    "11-13 px silent digit swaps; <=10 px abstains",
    Fact(SRC_PXPIPE_OPUS, "measured", "2026"),
)
_E_OPUS48_LADDER = Evidence(
    "Opus 4.8 cell ladder: 5x8 10%, 7x10 35%, 10x16 95%, 20x32 100% exact (n=20)",
    Fact(SRC_PXPIPE_LADDER, "measured", "2026"),
)
_E_OPUS5 = Evidence(
    "Opus 5: dense 12-char hex at 5x8 2/15 verbatim; 3/26 with 10 silent substitutions at 1568x728",
    Fact(SRC_PXPIPE_PROFILES, "measured", "2026-08-20"),
)
_E_CLAUDE_PAGE = Evidence(
    "pages of 1568 px long side read well (pxpipe 1568x728, oh-my-pi 1568 px frames); "
    "Fable 5 at 1928x1928 fell to 20/30 (10 abstain) vs 30/30 at 1568x728",
    Fact(SRC_OMNIGLYPH, "measured", "2026-08-17"),
)
_E_NO_DIRECT = Evidence(
    "no direct reading measurement for this model; default follows the nearest measured "
    "sibling (needs ~14 px text) so exact strings are not silently misread",
    Fact("inference from anchors.md A11", "uncertain", COMPILED),
)
_E_FABLE = Evidence(
    "Fable 5 at Spleen 5x8, 1568x728: hex 13/15 verbatim, 25/26 exact values, 30/30 on "
    "density-frontier needles (1-bit)",
    Fact(SRC_OMNIGLYPH, "measured", "2026-08-17"),
)
_E_SOL = Evidence(
    "GPT-5.6-sol (detail original): 5x8 0/4 exact with 4 invented values; 12 px 7/8; "
    "14 px (9x16 cell) 7/8 with 0 inventions",
    Fact(SRC_PXPIPE_SOL, "measured", "2026"),
)
_E_GPT55 = Evidence(
    "GPT-5.5: 0 correct on 5x8 density-frontier needles (blocked)",
    Fact(SRC_OMNIGLYPH, "measured", "2026-08-17"),
)
_E_OPENAI_PAGE = Evidence(
    "oh-my-pi ships 1568 px frames with detail 'original' to gpt-5.5 (8 px glyphs, f1 .851)",
    Fact(SRC_OHMYPI, "measured", "2026-10"),
)
_E_GEMINI3 = Evidence(
    "gemini-3.6-flash at Spleen 5x8, 1568x728: 14/15 verbatim hex, 5/5 layout tests",
    Fact(SRC_PXPIPE_GEMINI, "measured", "2026"),
)
_E_GEMINI3_LARGER = Evidence(
    "internal resample size of Gemini 3 is undocumented; 1568x728 is the largest 5x8 page "
    "with a published good read, so larger flat-fee pages are not proposed",
    Fact(SRC_GEMINI_MEDIA, "uncertain", COMPILED),
)
_E_GEMINI25 = Evidence(
    "Gemini 2.5 Flash: 0 correct on 5x8 density-frontier needles (blocked)",
    Fact(SRC_OMNIGLYPH, "measured", "2026-08-17"),
)
_E_GEMINI2_PAGE = Evidence(
    "documented tiling and the measured flat 258 bill disagree; <=384x384 is the only page "
    "neither reading downscales",
    Fact(SRC_GENAI_1349, "uncertain", COMPILED),
)
_E_GROK = Evidence(
    "Grok 4.5: 5x8 best stable 2-3/4 exact; native 8-16 px sweep best 4/8 at 14-16 px",
    Fact(SRC_PXPIPE_GROK, "measured", "2026"),
)
_E_GROK_PAGE = Evidence(
    "third-party practice keeps the short side <=768 px (pxpipe's 764 px strip); undocumented",
    Fact(SRC_PXPIPE_PROFILES, "uncertain", "2026-08-20"),
)
_E_QWEN = Evidence(
    "Qwen 3.8 27B: 5x8 bitmap glyphs 0/15 hex vs 11/15 at 14 px",
    Fact(SRC_PXPIPE_PROFILES, "measured", "2026-08-20"),
)
_E_DEFAULT_PAGE = Evidence(
    "no page-size legibility measurement; 1568 px long side is the size the published "
    "tools read well",
    Fact("anchors.md A10 (pxpipe, oh-my-pi)", "uncertain", COMPILED),
)
_E_TEXT_ONLY = Evidence("text-only model: no image input", Fact(SRC_BRIEF, "uncertain", COMPILED))

_FAMILY_ROWS: tuple[Family, ...] = (
    Family(
        "claude-standard",
        "anthropic",
        "snap8x16",
        (1568, 1568),
        (_E_OPUS48, _E_NO_DIRECT, _E_CLAUDE_PAGE),
    ),
    Family(
        "claude-opus-5",
        "anthropic",
        "snap8x16",
        (1568, 1568),
        (_E_OPUS5, _E_OPUS48_LADDER, _E_CLAUDE_PAGE),
    ),
    Family(
        "claude-high-res",
        "anthropic",
        "snap8x16",
        (1568, 1568),
        (_E_OPUS48, _E_OPUS48_LADDER, _E_CLAUDE_PAGE),
    ),
    # 5x8 reads are published for 1568x728 only (30/30) and fell at 1928x1928 (20/30).
    Family("claude-fable", "anthropic", "snap5x8", (1568, 728), (_E_FABLE, _E_CLAUDE_PAGE)),
    Family("openai-tiles", "openai", "snap8x16", (2048, 2048), (_E_GPT55, _E_NO_DIRECT)),
    Family(
        "openai-patches", "openai", "snap8x16", (1568, 1568), (_E_SOL, _E_GPT55, _E_OPENAI_PAGE)
    ),
    Family("gemini-3-flash", "google", "snap5x8", (1568, 728), (_E_GEMINI3, _E_GEMINI3_LARGER)),
    Family("gemini-3-pro", "google", "snap8x16", (1568, 728), (_E_NO_DIRECT, _E_GEMINI3_LARGER)),
    Family("gemini-2", "google", "snap8x16", (384, 384), (_E_GEMINI25, _E_GEMINI2_PAGE)),
    Family("grok", "xai", "snap8x16", (768, 1568), (_E_GROK, _E_GROK_PAGE)),
    Family("mistral", "mistral", "snap8x16", (1024, 1024), (_E_NO_DIRECT,)),
    Family("qwen-vl", "qwen", "snap8x16", (1568, 1568), (_E_QWEN, _E_DEFAULT_PAGE)),
    Family("openai-text", "openai", "snap8x16", (0, 0), (_E_TEXT_ONLY,), vision=False),
    Family("deepseek-text", "deepseek", "snap8x16", (0, 0), (_E_TEXT_ONLY,), vision=False),
)
FAMILIES: MappingProxyType[str, Family] = MappingProxyType({f.name: f for f in _FAMILY_ROWS})

# --------------------------------------------------------------------------- billing schemes

_F_CLAUDE_STD = Fact(SRC_CLAUDE_VISION, "documented", "2026", "standard tier: 1568 px, 1568 tokens")
_F_CLAUDE_HI = Fact(SRC_CLAUDE_VISION, "documented", "2026", "high-res tier: 2576 px, 4784 tokens")
_F_OPUS5 = Fact(
    SRC_CLAUDE_VISION,
    "uncertain",
    "2026",
    "not named in the high-res list of the doc version at hand: standard tier assumed "
    "(a page valid there is valid in either tier)",
)
_F_CLAUDE_3 = Fact(
    SRC_CLAUDE_VISION,
    "uncertain",
    "2026",
    "retired models: the page's 'for other models' standard tier is assumed to cover them",
)
CLAUDE_STANDARD: Scheme = AnthropicPatches(max_edge=1568, max_tokens=1568)
CLAUDE_HIGH_RES: Scheme = AnthropicPatches(max_edge=2576, max_tokens=4784)

_F_TILES = Fact(SRC_OPENAI_VISION, "documented", "2026", "doc C (gpt-5.6 era) tile table")
_F_TILES_B = Fact(SRC_OPENAI_VISION, "documented", "2026", "doc B (gpt-5.5 era); not in doc C")
_F_PATCH_C = Fact(SRC_OPENAI_VISION, "documented", "2026", "doc C 'Model sizing behavior'")
_F_PATCH_MINI = Fact(
    SRC_OPENAI_MULT,
    "measured",
    "2026",
    "docs conflict on the budget (1536 vs 2500/6144); billed max 1843 = 1536 x 1.2 was "
    "measured, so the 1536-patch budget is kept",
)
_F_PATCH_A = Fact(SRC_OPENAI_VISION, "documented", "2025", "doc A/B: 1536 patches, 2048 px")
_F_NONE_OPENAI = Fact(SRC_BRIEF, "uncertain", COMPILED, "text-only reasoning model")
_F_GEMINI3 = Fact(
    SRC_GEMINI_MEDIA, "documented", "2026", "default media_resolution: 1120 tokens/image"
)
_F_GEMINI2 = Fact(
    SRC_GEMINI_IMAGES,
    "uncertain",
    "2026",
    "documented tiling; gemini-2.5-pro measured flat 258 (python-genai#1349)",
)
_F_GROK = Fact(SRC_PXPIPE_PROFILES, "measured", "2026-08-20", "two points; formula inferred")
_F_MISTRAL = Fact(
    SRC_MISTRAL, "documented", "2026", "16 px patches, <=1024 px; row tokens from code"
)
_F_QWEN25 = Fact(SRC_QWEN_CODE, "documented", "2026", "code: 28 px per token, smart_resize")
_F_QWEN3 = Fact(
    SRC_PERCEPTRON, "documented", "2026", "hosting provider: 32 px per token, 2560 tokens"
)
_F_DEEPSEEK = Fact(SRC_BRIEF, "uncertain", COMPILED, "text-only chat model")


def _tiles(base: int, per_tile: int) -> Scheme:
    return OpenAITiles(base=base, per_tile=per_tile)


def _patches(mult: str, max_side: int, budget: int | None, detail: str) -> Scheme:
    return OpenAIPatches(multiplier=mult, max_side=max_side, patch_budget=budget, detail=detail)


_MODEL_ROWS: tuple[Model, ...] = (
    # Anthropic. Standard tier: every model the high-res list does not name.
    Model("claude-opus-4", "claude-standard", CLAUDE_STANDARD, _F_CLAUDE_STD),
    Model("claude-sonnet-4", "claude-standard", CLAUDE_STANDARD, _F_CLAUDE_STD),
    Model("claude-opus-4-1", "claude-standard", CLAUDE_STANDARD, _F_CLAUDE_STD),
    Model("claude-sonnet-4-5", "claude-standard", CLAUDE_STANDARD, _F_CLAUDE_STD),
    Model("claude-haiku-4-5", "claude-standard", CLAUDE_STANDARD, _F_CLAUDE_STD),
    Model("claude-opus-4-5", "claude-standard", CLAUDE_STANDARD, _F_CLAUDE_STD),
    Model("claude-opus-4-6", "claude-standard", CLAUDE_STANDARD, _F_CLAUDE_STD),
    Model("claude-sonnet-4-6", "claude-standard", CLAUDE_STANDARD, _F_CLAUDE_STD),
    Model("claude-opus-5", "claude-opus-5", CLAUDE_STANDARD, _F_OPUS5),
    # Claude 3.x (retired, but found in old transcripts): "other models" = standard tier.
    *(
        Model(m, "claude-standard", CLAUDE_STANDARD, _F_CLAUDE_3)
        for m in (
            "claude-3-7-sonnet",
            "claude-3-5-sonnet",
            "claude-3-5-haiku",
            "claude-3-opus",
            "claude-3-sonnet",
            "claude-3-haiku",
        )
    ),
    # High-res tier: the models the vision page names.
    Model("claude-opus-4-7", "claude-high-res", CLAUDE_HIGH_RES, _F_CLAUDE_HI),
    Model("claude-opus-4-8", "claude-high-res", CLAUDE_HIGH_RES, _F_CLAUDE_HI),
    Model("claude-mythos-5", "claude-high-res", CLAUDE_HIGH_RES, _F_CLAUDE_HI),
    Model("claude-fable-5", "claude-fable", CLAUDE_HIGH_RES, _F_CLAUDE_HI),
    # OpenAI tile models (base, per 512-px tile).
    Model("gpt-4o", "openai-tiles", _tiles(85, 170), _F_TILES),
    Model("gpt-4.1", "openai-tiles", _tiles(85, 170), _F_TILES),
    Model("gpt-4.5-preview", "openai-tiles", _tiles(85, 170), _F_TILES_B),
    Model("gpt-4o-mini", "openai-tiles", _tiles(2833, 5667), _F_TILES),
    Model("gpt-5", "openai-tiles", _tiles(70, 140), _F_TILES),
    Model("gpt-5.1", "openai-tiles", _tiles(70, 140), _F_TILES),
    Model("o1", "openai-tiles", _tiles(75, 150), _F_TILES),
    Model("o1-pro", "openai-tiles", _tiles(75, 150), _F_TILES),
    Model("o3", "openai-tiles", _tiles(75, 150), _F_TILES),
    Model("computer-use-preview", "openai-tiles", _tiles(65, 129), _F_TILES_B),
    # OpenAI patch models: multiplier, pixel box and patch budget of the detail level used
    # ('original' where offered: the docs recommend it for OCR-like work).
    Model("gpt-5.6-sol", "openai-patches", _patches("1.2", 65535, None, "original"), _F_PATCH_C),
    Model("gpt-5.6-terra", "openai-patches", _patches("1.2", 65535, None, "original"), _F_PATCH_C),
    Model("gpt-5.6-luna", "openai-patches", _patches("1.2", 65535, None, "original"), _F_PATCH_C),
    Model("gpt-5.5", "openai-patches", _patches("1.2", 6000, 10000, "original"), _F_PATCH_C),
    Model("gpt-5.4", "openai-patches", _patches("1.2", 6000, 10000, "original"), _F_PATCH_C),
    Model("gpt-5.4-mini", "openai-patches", _patches("1.2", 2048, 1536, "high"), _F_PATCH_MINI),
    Model("gpt-5.4-nano", "openai-patches", _patches("1.2", 2048, 1536, "high"), _F_PATCH_MINI),
    Model("gpt-5.2", "openai-patches", _patches("1.2", 2048, 6144, "high"), _F_PATCH_C),
    Model("gpt-5-mini", "openai-patches", _patches("1.2", 2048, 1536, "high"), _F_PATCH_MINI),
    Model("gpt-5-nano", "openai-patches", _patches("1.5", 2048, 1536, "high"), _F_PATCH_MINI),
    Model("gpt-4.1-mini", "openai-patches", _patches("1.62", 2048, 1536, "high"), _F_PATCH_A),
    Model("gpt-4.1-nano", "openai-patches", _patches("2.46", 2048, 1536, "high"), _F_PATCH_A),
    Model("o4-mini", "openai-patches", _patches("1.72", 2048, 1536, "high"), _F_PATCH_A),
    # OpenAI text-only.
    Model("o1-mini", "openai-text", NoVision(), _F_NONE_OPENAI),
    Model("o1-preview", "openai-text", NoVision(), _F_NONE_OPENAI),
    Model("o3-mini", "openai-text", NoVision(), _F_NONE_OPENAI),
    Model("gpt-3.5-turbo", "openai-text", NoVision(), _F_NONE_OPENAI),
    Model("gpt-4", "openai-text", NoVision(), _F_NONE_OPENAI),
    # Google.
    Model("gemini-3-pro-preview", "gemini-3-pro", GeminiFlat(budget=1120), _F_GEMINI3),
    Model("gemini-3-flash-preview", "gemini-3-flash", GeminiFlat(budget=1120), _F_GEMINI3),
    Model("gemini-3.5-flash", "gemini-3-flash", GeminiFlat(budget=1120), _F_GEMINI3),
    Model("gemini-3.5-flash-lite", "gemini-3-flash", GeminiFlat(budget=1120), _F_GEMINI3),
    Model("gemini-3.6-flash", "gemini-3-flash", GeminiFlat(budget=1120), _F_GEMINI3),
    Model("gemini-2.5-pro", "gemini-2", GeminiTiles(), _F_GEMINI2),
    Model("gemini-2.5-flash", "gemini-2", GeminiTiles(), _F_GEMINI2),
    Model("gemini-2.5-flash-lite", "gemini-2", GeminiTiles(), _F_GEMINI2),
    Model("gemini-2.0-flash", "gemini-2", GeminiTiles(), _F_GEMINI2),
    # xAI, Mistral, Qwen, DeepSeek.
    Model("grok-4.5", "grok", GrokPatches(), _F_GROK),
    Model("grok-4", "grok", GrokPatches(), _F_GROK),
    Model("pixtral-12b", "mistral", MistralPatches(), _F_MISTRAL),
    Model("pixtral-large", "mistral", MistralPatches(), _F_MISTRAL),
    Model("qwen2-vl", "qwen-vl", QwenPatches(factor=28), _F_QWEN25),
    Model("qwen2.5-vl", "qwen-vl", QwenPatches(factor=28), _F_QWEN25),
    Model("qwen3-vl", "qwen-vl", QwenPatches(factor=32, max_pixels=2560 * 32 * 32), _F_QWEN3),
    Model("deepseek-chat", "deepseek-text", NoVision(), _F_DEEPSEEK),
    Model("deepseek-reasoner", "deepseek-text", NoVision(), _F_DEEPSEEK),
)
MODELS: MappingProxyType[str, Model] = MappingProxyType({m.model: m for m in _MODEL_ROWS})

# --------------------------------------------------------------------------- detail levels


def _tile_levels(model: str) -> dict[str, Scheme]:
    high = MODELS[model].scheme
    assert isinstance(high, OpenAITiles)
    low = OpenAITiles(base=high.base, per_tile=high.per_tile, detail="low")
    return {"low": low, "high": high, "auto": high}


def _patch_levels(
    mult: str,
    low: tuple[int, int | None],
    high: tuple[int, int | None],
    original: tuple[int, int | None] | None,
    auto: str,
) -> dict[str, Scheme]:
    levels = {
        "low": _patches(mult, low[0], low[1], "low"),
        "high": _patches(mult, high[0], high[1], "high"),
    }
    if original is not None:
        levels["original"] = _patches(mult, original[0], original[1], "original")
    levels["auto"] = levels[auto]
    return levels


def _flat_levels() -> dict[str, Scheme]:
    levels: dict[str, Scheme] = {
        name: GeminiFlat(budget=budget, level=name)
        for name, budget in (("low", 280), ("medium", 560), ("high", 1120), ("ultra_high", 2240))
    }
    levels["auto"] = levels["high"]  # MEDIA_RESOLUTION_UNSPECIFIED = 1120 for images
    return levels


_F_DETAIL_C = Fact(SRC_OPENAI_VISION, "documented", "2026", "doc C 'Model sizing behavior'")
_F_DETAIL_MINI = Fact(
    SRC_OPENAI_MULT,
    "measured",
    "2026",
    "high capped at the measured 1536 patches; 'detail:low is of no effect on these patches models'",
)
_F_DETAIL_TILES = Fact(
    SRC_OPENAI_VISION, "documented", "2026", "low = base tokens only, model sees <=512x512"
)
_F_DETAIL_GEMINI = Fact(
    SRC_GEMINI_MEDIA, "documented", "2026", "media_resolution LOW/MEDIUM/HIGH/ULTRA_HIGH"
)

_DETAIL_ROWS: dict[str, tuple[dict[str, Scheme], Fact]] = {
    **{
        m: (_tile_levels(m), _F_DETAIL_TILES)
        for m, row in MODELS.items()
        if row.scheme.kind == "openai-tiles"
    },
    **{
        m: (_patch_levels("1.2", (512, None), (2048, 2500), (65535, None), "original"), _F_DETAIL_C)
        for m in ("gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna")
    },
    "gpt-5.5": (
        _patch_levels("1.2", (512, None), (2048, 2500), (6000, 10000), "original"),
        _F_DETAIL_C,
    ),
    "gpt-5.4": (
        _patch_levels("1.2", (2048, 6144), (2048, 2500), (6000, 10000), "high"),
        _F_DETAIL_C,
    ),
    **{
        m: (_patch_levels("1.2", (2048, 6144), (2048, 1536), (6000, 10000), "high"), _F_DETAIL_MINI)
        for m in ("gpt-5.4-mini", "gpt-5.4-nano")
    },
    "gpt-5.2": (_patch_levels("1.2", (2048, 6144), (2048, 6144), None, "high"), _F_DETAIL_C),
    **{
        m: (_patch_levels(mult, (2048, 1536), (2048, 1536), None, "high"), _F_DETAIL_MINI)
        for m, mult in (
            ("gpt-5-mini", "1.2"),
            ("gpt-5-nano", "1.5"),
            ("gpt-4.1-mini", "1.62"),
            ("gpt-4.1-nano", "2.46"),
            ("o4-mini", "1.72"),
        )
    },
    **{
        m: (_flat_levels(), _F_DETAIL_GEMINI)
        for m, row in MODELS.items()
        if row.scheme.kind == "gemini-flat"
    },
}
#: Per model: the scheme each ``detail`` (OpenAI) or ``media_resolution`` (Gemini 3) level selects.
#: A model row's own scheme is its default level: OpenAI 'original' where offered (the docs advise
#: it for fine text), else 'high'; Gemini 3 the unspecified default.
DETAIL_LEVELS: MappingProxyType[str, tuple[MappingProxyType[str, Scheme], Fact]] = MappingProxyType(
    {m: (MappingProxyType(levels), fact) for m, (levels, fact) in _DETAIL_ROWS.items()}
)


# --------------------------------------------------------------------------- aliases and prefixes

#: Documented ids that name a model in :data:`MODELS` (dated snapshots, marketing names).
ALIASES: MappingProxyType[str, tuple[str, Fact]] = MappingProxyType(
    {
        "claude-sonnet-4-5-20250929": (
            "claude-sonnet-4-5",
            Fact(SRC_CLAUDE_MODELS, "documented", "2026"),
        ),
        "claude-haiku-4-5-20251001": (
            "claude-haiku-4-5",
            Fact(SRC_CLAUDE_MODELS, "documented", "2026"),
        ),
        "claude-opus-4-5-20251101": (
            "claude-opus-4-5",
            Fact(SRC_CLAUDE_MODELS, "documented", "2026"),
        ),
        "claude-opus-4-1-20250805": (
            "claude-opus-4-1",
            Fact(SRC_CLAUDE_MODELS, "documented", "2025"),
        ),
        "claude-opus-4-20250514": ("claude-opus-4", Fact(SRC_CLAUDE_MODELS, "documented", "2025")),
        "claude-sonnet-4-20250514": (
            "claude-sonnet-4",
            Fact(SRC_CLAUDE_MODELS, "documented", "2025"),
        ),
        "claude-fable": (
            "claude-fable-5",
            Fact("anchors.md A11 ('claude-fable-5')", "uncertain", COMPILED),
        ),
        "gpt-5-chat-latest": ("gpt-5", Fact(SRC_OPENAI_VISION, "uncertain", COMPILED)),
        "chatgpt-4o-latest": ("gpt-4o", Fact(SRC_OPENAI_VISION, "uncertain", COMPILED)),
    }
)

#: Suffixes a dated or versioned id carries; stripped before the exact lookup is retried.
DATE_SUFFIXES: tuple[re.Pattern[str], ...] = (
    re.compile(r"-\d{4}-\d{2}-\d{2}$"),  # OpenAI snapshots: gpt-4o-2024-08-06
    re.compile(r"-\d{8}$"),  # Anthropic snapshots: claude-sonnet-4-5-20250929
    re.compile(r"-latest$"),
    re.compile(r"-preview(?:-\d{2}-\d{2})?$"),  # gemini-2.5-flash-preview-05-20
    re.compile(r"-\d{3}$"),  # gemini-2.0-flash-001
    re.compile(r"-\d{4}$"),  # pixtral-12b-2409, pixtral-large-2411
)

#: Longest-prefix table (tiktoken style) for ids no exact row or alias names.
PREFIXES: MappingProxyType[str, str] = MappingProxyType(
    {
        "gpt-5.6-sol": "gpt-5.6-sol",
        "gpt-5.6-terra": "gpt-5.6-terra",
        "gpt-5.6-luna": "gpt-5.6-luna",
        "gpt-5.5-": "gpt-5.5",
        "gpt-5.4-mini-": "gpt-5.4-mini",
        "gpt-5.4-nano-": "gpt-5.4-nano",
        "gpt-5.4-": "gpt-5.4",
        "gpt-5.2-": "gpt-5.2",
        "gpt-5.1-": "gpt-5.1",
        "gpt-5-mini-": "gpt-5-mini",
        "gpt-5-nano-": "gpt-5-nano",
        "gpt-5-": "gpt-5",
        "gpt-4.1-mini-": "gpt-4.1-mini",
        "gpt-4.1-nano-": "gpt-4.1-nano",
        "gpt-4.1-": "gpt-4.1",
        "gpt-4o-mini-": "gpt-4o-mini",
        "gpt-4o-": "gpt-4o",
        "gpt-4.5-": "gpt-4.5-preview",
        "gpt-3.5-turbo": "gpt-3.5-turbo",
        "o1-mini-": "o1-mini",
        "o1-preview-": "o1-preview",
        "o1-pro-": "o1-pro",
        "o1-": "o1",
        "o3-mini-": "o3-mini",
        "o3-": "o3",
        "o4-mini-": "o4-mini",
        "gemini-3-pro": "gemini-3-pro-preview",
        "gemini-3-flash": "gemini-3-flash-preview",
        "gemini-3.5-flash-lite": "gemini-3.5-flash-lite",
        "gemini-3.5-flash": "gemini-3.5-flash",
        "gemini-3.6-flash": "gemini-3.6-flash",
        "gemini-2.5-pro": "gemini-2.5-pro",
        "gemini-2.5-flash-lite": "gemini-2.5-flash-lite",
        "gemini-2.5-flash": "gemini-2.5-flash",
        "gemini-2.0-flash": "gemini-2.0-flash",
        "grok-4.5": "grok-4.5",
        "grok-4": "grok-4",
        "pixtral-12b": "pixtral-12b",
        "pixtral-large": "pixtral-large",
        "qwen2-vl-": "qwen2-vl",
        "qwen2.5-vl-": "qwen2.5-vl",
        "qwen3-vl-": "qwen3-vl",
        "deepseek-chat": "deepseek-chat",
        "deepseek-reasoner": "deepseek-reasoner",
    }
)

# --------------------------------------------------------------------------- routes and limits

LimitField = Literal[
    "max_images", "max_image_bytes", "max_request_bytes", "many_images", "many_images_max_side"
]
LIMIT_FIELDS: tuple[LimitField, ...] = (
    "max_images",
    "max_image_bytes",
    "max_request_bytes",
    "many_images",
    "many_images_max_side",
)


@dataclass(frozen=True)
class LimitFact:
    """One request limit of one route: images per request, bytes per image or request.

    ``many_images`` / ``many_images_max_side``: above that many images in one
    request, every image side must stay within the stricter maximum.
    Byte sizes are of the base64-encoded image where the vendor says so.
    """

    route: str
    field: LimitField
    value: int
    fact: Fact


MB = 1024 * 1024
LIMIT_FACTS: tuple[LimitFact, ...] = (
    # Anthropic direct API.
    LimitFact(
        "anthropic",
        "max_images",
        100,
        Fact(
            SRC_CLAUDE_VISION,
            "documented",
            "2026",
            "100 for 200k-context models, 600 for others; the smaller is kept",
        ),
    ),
    LimitFact(
        "anthropic",
        "max_image_bytes",
        10 * MB,
        Fact(SRC_CLAUDE_VISION, "documented", "2026", "10 MB base64; 400 measured at 10,587,865 B"),
    ),
    LimitFact(
        "anthropic",
        "max_request_bytes",
        32 * MB,
        Fact(
            SRC_CLAUDE_ERRORS,
            "documented",
            "2026",
            "Messages API 32 MB; 413 measured at 33,571,037 B",
        ),
    ),
    LimitFact("anthropic", "many_images", 20, Fact(SRC_CLAUDE_VISION, "documented", "2026")),
    LimitFact(
        "anthropic", "many_images_max_side", 2000, Fact(SRC_CLAUDE_VISION, "documented", "2026")
    ),
    # Gateways for Claude: they can only add restrictions to the vendor's own.
    LimitFact("bedrock", "max_image_bytes", 5 * MB, Fact(SRC_CLAUDE_VISION, "documented", "2026")),
    LimitFact(
        "bedrock",
        "max_request_bytes",
        20 * 1000 * 1000,
        Fact(
            SRC_BEDROCK,
            "documented",
            "2026",
            "'The maximum size of the payload you can send in a request is 20MB'",
        ),
    ),
    LimitFact("vertex", "max_image_bytes", 5 * MB, Fact(SRC_CLAUDE_VISION, "documented", "2026")),
    LimitFact(
        "vertex", "max_request_bytes", 30 * 1000 * 1000, Fact(SRC_VERTEX, "documented", "2026")
    ),
    LimitFact(
        "openrouter",
        "max_images",
        20,
        Fact(
            SRC_OPENROUTER,
            "uncertain",
            "2026",
            "'varies per provider and per model'; strictest known upstream (Bedrock Converse, 20)",
        ),
    ),
    LimitFact(
        "openrouter",
        "max_image_bytes",
        5 * MB,
        Fact(
            SRC_OPENROUTER,
            "uncertain",
            "2026",
            "may be served by Bedrock/Vertex: their 5 MB is assumed",
        ),
    ),
    LimitFact(
        "openrouter",
        "max_request_bytes",
        20 * 1000 * 1000,
        Fact(SRC_OPENROUTER, "uncertain", "2026", "strictest upstream (Bedrock 20 MB) assumed"),
    ),
    # OpenAI: doc C says 1500 images / 512 MB, but 50 MB was still enforced in 2026-09.
    LimitFact(
        "openai",
        "max_images",
        500,
        Fact(
            SRC_OPENAI_VISION,
            "documented",
            "2026",
            "docs A/B 500; doc C 1500 — the smaller is kept",
        ),
    ),
    LimitFact(
        "openai",
        "max_request_bytes",
        50 * 1000 * 1000,
        Fact(
            SRC_ENFORCEMENT,
            "measured",
            "2026-09",
            "'Total image size is 50.56MB, which exceeds the allowed limit of 50MB'",
        ),
    ),
    # Google Gemini API.
    LimitFact("google", "max_images", 3600, Fact(SRC_GEMINI_IMAGES, "documented", "2026")),
    LimitFact(
        "google",
        "max_request_bytes",
        100 * MB,
        Fact(
            "https://ai.google.dev/gemini-api/docs/file-input-methods",
            "documented",
            "2026-07",
            "inline data; older pages said 20 MB",
        ),
    ),
    # xAI.
    LimitFact(
        "xai",
        "max_image_bytes",
        20 * MB,
        Fact(SRC_XAI_IMAGES, "documented", "2026", "20 MiB (older: 10 MiB); image count unlimited"),
    ),
    # Mistral.
    LimitFact("mistral", "max_images", 8, Fact(SRC_MISTRAL, "documented", "2026")),
    LimitFact("mistral", "max_image_bytes", 10 * MB, Fact(SRC_MISTRAL, "documented", "2026")),
    # Qwen hosted on DashScope (self-hosted weights have no request limits of their own).
    LimitFact("qwen", "max_images", 250, Fact(SRC_ENFORCEMENT, "measured", "2026")),
    LimitFact("qwen", "max_image_bytes", 20_971_520, Fact(SRC_ENFORCEMENT, "measured", "2026")),
    # DeepSeek API.
    LimitFact("deepseek", "max_images", 600, Fact(SRC_ENFORCEMENT, "measured", "2026")),
    LimitFact("deepseek", "max_image_bytes", 32 * MB, Fact(SRC_ENFORCEMENT, "measured", "2026")),
    LimitFact("deepseek", "max_request_bytes", 48 * MB, Fact(SRC_ENFORCEMENT, "measured", "2026")),
)


@dataclass(frozen=True)
class Route:
    """A gateway id shape: a regex whose ``model`` group is the id to resolve further.

    ``dotted`` means the gateway writes version numbers with dots
    (``claude-sonnet-4.5``) where the vendor uses hyphens.
    """

    name: str
    pattern: re.Pattern[str]
    fact: Fact
    dotted: bool = False


ROUTES: tuple[Route, ...] = (
    Route(
        "bedrock",
        re.compile(
            r"^(?:bedrock/)?(?:(?:us|eu|apac|jp|au|global)\.)?anthropic\.(?P<model>claude-.+?)"
            r"(?:-v\d+(?::\d+)?)?$"
        ),
        Fact(
            SRC_BEDROCK,
            "documented",
            "2026",
            "anthropic.<id>-v1:0, cross-region us./eu./apac./jp./au./global.",
        ),
    ),
    Route(
        "bedrock",
        re.compile(r"^bedrock/(?P<model>.+)$"),
        Fact(SRC_BEDROCK, "uncertain", COMPILED, "LiteLLM-style"),
    ),
    Route(
        "vertex",
        re.compile(r"^(?:vertex_ai/)?(?P<model>claude-[^@/]+)@(?P<date>\d{8})$"),
        Fact(SRC_VERTEX, "documented", "2026", "claude-...@YYYYMMDD"),
    ),
    Route(
        "vertex",
        re.compile(r"^vertex_ai/(?P<model>claude-.+)$"),
        Fact(SRC_VERTEX, "uncertain", COMPILED, "LiteLLM-style"),
    ),
    # LiteLLM-style vendor prefixes that name the vendor's own API (OpenRouter spells
    # these vendors google/, x-ai/, mistralai/); "direct" = the provider's own route.
    Route(
        "direct",
        re.compile(r"^(?:gemini|xai|mistral)/(?P<model>[^/]+)$"),
        Fact("BerriAI/litellm provider prefixes", "uncertain", COMPILED, "gemini/, xai/, mistral/"),
    ),
    Route(
        "openrouter",
        re.compile(r"^(?:openrouter/)?(?P<vendor>[a-z0-9-]+)/(?P<model>[^/:]+)(?::[a-z-]+)?$"),
        Fact(
            SRC_OPENROUTER,
            "documented",
            "2026",
            "vendor/model with dotted versions; :variant suffixes",
        ),
        dotted=True,
    ),
)

#: The vendor's own API is the route when no gateway shape matches.
DIRECT_ROUTE: MappingProxyType[str, str] = MappingProxyType({p: p for p in PROVIDERS})

# --------------------------------------------------------------------------- text-side tokenizers

TextMethod = Literal["exact", "estimate"]


@dataclass(frozen=True)
class TextTokenizer:
    """How text tokens are counted for a family: an exact BPE, or chars per token.

    ``encoding`` names a quicktok encoding for exact counts; otherwise
    ``chars_per_token`` is a documented (or assumed) average and every number
    derived from it is labelled an estimate.
    """

    method: TextMethod
    fact: Fact
    encoding: str | None = None
    chars_per_token: float | None = None


_TT_O200K = TextTokenizer(
    "exact", Fact("openai/tiktoken tiktoken/model.py", "documented", "2025"), encoding="o200k_base"
)
_TT_CL100K = TextTokenizer(
    "exact", Fact("openai/tiktoken tiktoken/model.py", "documented", "2025"), encoding="cl100k_base"
)
_TT_CLAUDE = TextTokenizer(
    "estimate",
    Fact(
        SRC_CLAUDE_MODELS,
        "documented",
        "2026",
        "~3.4M characters per 1M tokens (Sonnet 4.6 tooltip)",
    ),
    chars_per_token=3.4,
)
_TT_CLAUDE_NEW = TextTokenizer(
    "estimate",
    Fact(
        SRC_CLAUDE_MODELS,
        "documented",
        "2026",
        "~2.5M characters per 1M tokens (Opus 4.7 tokenizer); later models assumed the same",
    ),
    chars_per_token=2.5,
)
_TT_GEMINI = TextTokenizer(
    "estimate",
    Fact(
        SRC_GEMINI_TOKENS,
        "uncertain",
        COMPILED,
        "'a token is about 4 characters' (recalled, not re-verified)",
    ),
    chars_per_token=4.0,
)
_TT_QWEN = TextTokenizer(
    "exact",
    Fact(
        "quicktok-v1 bundled 'qwen3' vocabulary",
        "uncertain",
        COMPILED,
        "exact for Qwen3; Qwen2.x share the BPE (assumed)",
    ),
    encoding="qwen3",
)
_TT_GENERIC = TextTokenizer(
    "estimate",
    Fact("no vendor figure at hand", "uncertain", COMPILED, "4 characters per token assumed"),
    chars_per_token=4.0,
)

#: Per model (exact id) first, then per family.
TEXT_TOKENIZER_BY_MODEL: MappingProxyType[str, TextTokenizer] = MappingProxyType(
    {
        "gpt-4": _TT_CL100K,
        "gpt-3.5-turbo": _TT_CL100K,
        "claude-opus-4-7": _TT_CLAUDE_NEW,
        "claude-opus-4-8": _TT_CLAUDE_NEW,
        "claude-opus-5": _TT_CLAUDE_NEW,
        "claude-fable-5": _TT_CLAUDE_NEW,
        "claude-mythos-5": _TT_CLAUDE_NEW,
    }
)
TEXT_TOKENIZER_BY_FAMILY: MappingProxyType[str, TextTokenizer] = MappingProxyType(
    {
        "claude-standard": _TT_CLAUDE,
        "claude-opus-5": _TT_CLAUDE_NEW,
        "claude-high-res": _TT_CLAUDE_NEW,
        "claude-fable": _TT_CLAUDE_NEW,
        "openai-tiles": _TT_O200K,
        "openai-patches": _TT_O200K,
        "openai-text": _TT_O200K,
        "gemini-3-flash": _TT_GEMINI,
        "gemini-3-pro": _TT_GEMINI,
        "gemini-2": _TT_GEMINI,
        "qwen-vl": _TT_QWEN,
        "grok": _TT_GENERIC,
        "mistral": _TT_GENERIC,
        "deepseek-text": _TT_GENERIC,
    }
)

# --------------------------------------------------------------------------- other measured facts


#: Measured bills to check the schemes against (tests read these rows).
@dataclass(frozen=True)
class Measurement:
    """A bill someone measured: model, upload size, billed tokens (may include overhead)."""

    model: str
    size: tuple[int, int]
    tokens: int
    fact: Fact


MEASUREMENTS: tuple[Measurement, ...] = (
    # count_tokens on sonnet-4-5 includes ~3-4 tokens of per-block overhead.
    *(
        Measurement("claude-sonnet-4-5", s, t, Fact(SRC_PXPIPE_AUDIT, "measured", "2026-07-01"))
        for s, t in (
            ((1072, 1072), 1525),
            ((1092, 1092), 1525),
            ((1568, 1568), 1525),
            ((1928, 1928), 1525),
            ((1568, 728), 1460),
        )
    ),
    Measurement(
        "claude-fable-5", (1928, 1928), 4764, Fact(SRC_OMNIGLYPH, "measured", "2026-08-17")
    ),
    Measurement(
        "claude-sonnet-4-5", (1568, 728), 1460, Fact(SRC_OMNIGLYPH, "measured", "2026-08-17")
    ),
    Measurement("grok-4.5", (768, 336), 268, Fact(SRC_PXPIPE_PROFILES, "measured", "2026-08-20")),
    Measurement("grok-4.5", (764, 980), 748, Fact(SRC_PXPIPE_PROFILES, "measured", "2026-08-20")),
    *(
        Measurement("gemini-3.6-flash", s, t, Fact(SRC_PXPIPE_GEMINI, "measured", "2026"))
        for s, t in (
            ((100, 100), 1089),
            ((2048, 2048), 1089),
            ((1568, 728), 1078),
            ((1920, 1080), 1100),
            ((4096, 512), 1034),
        )
    ),
    *(
        Measurement(
            "gemini-3.5-flash-lite", s, t, Fact("AlaskanTuna/Rokabot#121", "measured", "2026")
        )
        for s, t in (((64, 64), 1089), ((1024, 1024), 1089), ((2048, 512), 1056))
    ),
    *(
        Measurement("gemini-2.5-pro", s, 258, Fact(SRC_GENAI_1349, "measured", "2026"))
        for s in ((768, 1280), (1024, 1024), (3840, 2160))
    ),
)


# --------------------------------------------------------------------------- conservative fallback

_F_FALLBACK = Fact(
    "derived from the tables above",
    "uncertain",
    COMPILED,
    "768x1024 is passed unresampled by every documented scheme here except Gemini 2.x tiling "
    "(Anthropic both tiers, OpenAI tiles and 1536-patch boxes, Mistral, Grok, Qwen); billed as "
    "28-px patches, the costliest per pixel of the documented schemes",
)
#: The profile used for an unknown model only when the caller asks for it.
FALLBACK_FAMILY = Family(
    "fallback",
    "unknown",
    "snap8x16",
    (768, 1024),
    (
        Evidence(
            "unknown reader: the large font, which every measured reader read best", _F_FALLBACK
        ),
        _E_DEFAULT_PAGE,
    ),
)
FALLBACK_MODEL = Model("fallback", "fallback", AnthropicPatches(label="uncertain"), _F_FALLBACK)
_F_FALLBACK_LIMITS = Fact("strictest of the routes above", "uncertain", COMPILED)
FALLBACK_LIMIT_FACTS: tuple[LimitFact, ...] = (
    LimitFact("fallback", "max_images", 20, _F_FALLBACK_LIMITS),
    LimitFact("fallback", "max_image_bytes", 5 * MB, _F_FALLBACK_LIMITS),
    LimitFact("fallback", "max_request_bytes", 20 * 1000 * 1000, _F_FALLBACK_LIMITS),
)


def limit_facts_for(route: str) -> tuple[LimitFact, ...]:
    """The limit rows of one route.

    >>> sorted(f.field for f in limit_facts_for("bedrock"))
    ['max_image_bytes', 'max_request_bytes']
    """
    return tuple(f for f in (*LIMIT_FACTS, *FALLBACK_LIMIT_FACTS) if f.route == route)


def text_tokenizer_for(model: str, family: str) -> TextTokenizer:
    """The text-token method for a model: its own row, else its family's.

    >>> text_tokenizer_for("gpt-4o", "openai-tiles").encoding
    'o200k_base'
    """
    return TEXT_TOKENIZER_BY_MODEL.get(model) or TEXT_TOKENIZER_BY_FAMILY.get(family, _TT_GENERIC)


#: Every route name a limit row may use ("direct" resolves to the provider's own).
ROUTE_NAMES: tuple[str, ...] = (
    *PROVIDERS,
    *dict.fromkeys(r.name for r in ROUTES if r.name != "direct"),
    "fallback",
)


def _check_tables() -> None:
    """Cross-references between tables hold (run at import: a broken table is a bug)."""
    for m in _MODEL_ROWS:
        assert m.family in FAMILIES, m
        assert (m.scheme.kind == "none") == (not FAMILIES[m.family].vision), m
    for alias, (target, _) in ALIASES.items():
        assert target in MODELS, alias
    for prefix, target in PREFIXES.items():
        assert target in MODELS, prefix
    for lf in LIMIT_FACTS:
        assert lf.route in ROUTE_NAMES, lf
    assert set(TEXT_TOKENIZER_BY_FAMILY) == set(FAMILIES)
    for name, (levels, _) in DETAIL_LEVELS.items():
        # the row's own scheme must be one of its levels (a multiplier typo would break this)
        assert name in MODELS and MODELS[name].scheme in levels.values(), name


_check_tables()
