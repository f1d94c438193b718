"""Model rows: billing scheme, lifecycle and benchmark flag of every model id. Pure data.

Each row names its scheme's source (``fact``) and its lifecycle's source
(``lifecycle.fact``). Dates a source does not give are ``None``; a release date
taken from a dated snapshot id (``claude-opus-4-5-20251101``) says so.
"""

from __future__ import annotations

import re

from snapshot.billing.rows import BillMeasurement, Fact, Lifecycle, Model, PrefixFamily
from snapshot.billing.schemes import (
    AnthropicPatches,
    GeminiFlat,
    GeminiTiles,
    GrokPatches,
    MistralPatches,
    NoVision,
    OpenAIPatches,
    OpenAITiles,
    QwenPatches,
    Scheme,
)
from snapshot.billing.sources import (
    COMPILED,
    COMPILED_DEC,
    SRC_AZURE_LEGACY,
    SRC_BRIEF,
    SRC_CLAUDE_DEPRECATIONS,
    SRC_CLAUDE_MODELS,
    SRC_CLAUDE_VISION,
    SRC_CLAUDE_VISION_B,
    SRC_GEMINI_25_RETIRED,
    SRC_GEMINI_DEPRECATIONS,
    SRC_GEMINI_IMAGES,
    SRC_GEMINI_MEDIA,
    SRC_GENAI_1349,
    SRC_GENAI_PRICES,
    SRC_GPT62,
    SRC_LITELLM,
    SRC_MISTRAL,
    SRC_MISTRAL_12B,
    SRC_MISTRAL_PIXTRAL,
    SRC_MODELPIN,
    SRC_MODELPIN_057,
    SRC_OMNIGLYPH,
    SRC_OPENAI_CALC,
    SRC_OPENAI_DEPRECATIONS,
    SRC_OPENAI_DEPRECATIONS_3,
    SRC_OPENAI_MULT,
    SRC_OPENAI_VISION,
    SRC_OPENAI_VISION_B,
    SRC_PERCEPTRON,
    SRC_PXPIPE_AUDIT,
    SRC_PXPIPE_GEMINI,
    SRC_PXPIPE_PROFILES,
    SRC_QWEN_CODE,
)

# --------------------------------------------------------------------------- schemes

CLAUDE_STANDARD: Scheme = AnthropicPatches(max_edge=1568, max_tokens=1568)
CLAUDE_HIGH_RES: Scheme = AnthropicPatches(max_edge=2576, max_tokens=4784)

_F_CLAUDE_STD = Fact(SRC_CLAUDE_VISION, "documented", "2026", "standard tier: 1568 px, 1568 tokens")
_F_CLAUDE_HI = Fact(
    SRC_CLAUDE_VISION_B, "documented", "2026-09-23", "high-res tier: 2576 px, 4784 tokens"
)
_F_CLAUDE_3 = Fact(
    SRC_CLAUDE_VISION,
    "uncertain",
    "2026",
    "retired models: the page's 'for other models' standard tier is assumed to cover them",
)
_F_CLAUDE_NEW = Fact(
    SRC_CLAUDE_VISION_B,
    "documented",
    "2026-09-23",
    "'Claude 4.7 and later models' are high-resolution; model id from " + SRC_GENAI_PRICES,
)
_F_TILES = Fact(SRC_OPENAI_VISION, "documented", "2026", "doc C (gpt-5.6 era) tile table")
_F_TILES_B = Fact(SRC_OPENAI_VISION_B, "documented", "2026", "doc B (gpt-5.5 era); not in doc C")
_F_TILES_GUESS = Fact(
    SRC_OPENAI_VISION,
    "uncertain",
    COMPILED,
    "not named in the tile table; the base model's tile rates are assumed (its price is its own)",
)
_F_PATCH_C = Fact(SRC_OPENAI_VISION, "documented", "2026", "doc C 'Model sizing behavior'")
_F_PATCH_56 = Fact(
    SRC_OPENAI_VISION,
    "documented",
    "2026",
    "doc C: original = 65,535 px box, no patch budget; over 30,000 patches refused [O-56, O-calc]",
)
_F_PATCH_MINI = Fact(
    SRC_OPENAI_MULT,
    "measured",
    "2026",
    "docs conflict on the budget (1536 vs 2500/6144); billed max 1843 = 1536 x 1.2 was "
    "measured, so the 1536-patch budget is kept",
)
_F_PATCH_A = Fact(SRC_OPENAI_VISION, "documented", "2025", "doc A/B: 1536 patches, 2048 px")
_F_PATCH_41MINI = Fact(
    SRC_OPENAI_VISION,
    "documented",
    "2026",
    "doc C: 'gpt-5.2, gpt-4.1-mini … a 2048-pixel maximum dimension and a 6,144-patch budget'",
)
_F_PATCH_CODEX = Fact(
    SRC_OPENAI_VISION_B,
    "uncertain",
    "2026",
    "doc B lists it among the 1,536-patch models; multiplier not given, the minis' "
    "1.62 is assumed (cannot under-bill against the 1.2 of the full models)",
)
_F_PATCH_GPT6 = Fact(
    SRC_OPENAI_CALC,
    "uncertain",
    COMPILED_DEC,
    "original: no patch budget, over 30,000 patches refused; high: 2,500 patches. The patch "
    "multiplier is unpublished and disputed: a range, 1.2 (third-party measurements) to 1.5 "
    "(the package's conservative figure), see snapshot.billing.uncertain",
)
_F_PATCH_53 = Fact(
    SRC_OPENAI_VISION_B,
    "uncertain",
    COMPILED,
    "gpt-5.3 is not in the sizing tables; the 1,536-patch box of its codex sibling and 1.2 are "
    "assumed (a page inside 1,536 patches is unresampled under every documented budget)",
)
_F_NONE_OPENAI = Fact(SRC_BRIEF, "uncertain", COMPILED, "text-only model")
_F_GEMINI3 = Fact(
    SRC_GEMINI_MEDIA, "documented", "2026", "default media_resolution: 1120 tokens/image"
)
_F_GEMINI4 = Fact(
    SRC_GEMINI_MEDIA,
    "documented",
    "2026",
    "media_resolution levels documented for 'Gemini 4 and Gemini 3 models'; 1120 default",
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
_F_MISTRAL_NEW = Fact(
    SRC_MISTRAL,
    "uncertain",
    COMPILED,
    "no image rule published for this model; Pixtral's documented 16 px rule assumed",
)
_F_QWEN25 = Fact(SRC_QWEN_CODE, "documented", "2026", "code: 28 px per token, smart_resize")
_F_QWEN3 = Fact(
    SRC_PERCEPTRON, "documented", "2026", "hosting provider: 32 px per token, 2560 tokens"
)
_F_DEEPSEEK = Fact(SRC_BRIEF, "uncertain", COMPILED, "text-only chat model")
#: The conservative fallback profile's fact: its scheme (here) and its page and font
#: (snapshot.profiles._readers) rest on it.
FALLBACK_FACT = Fact(
    "derived from the tables",
    "uncertain",
    COMPILED,
    "768x1024 is passed unresampled by every documented scheme here except Gemini 2.x tiling "
    "(Anthropic both tiers, OpenAI tiles and 1536-patch boxes, Mistral, Grok, Qwen); billed as "
    "28-px patches, the costliest per pixel of the documented schemes",
)
_F_PATCH_PRO = Fact(
    SRC_MODELPIN,
    "uncertain",
    COMPILED_DEC,
    "pro variant (MP: active, $30/$180): its base model's documented patch rule assumed",
)
_F_GROK_NEW = Fact(
    SRC_PXPIPE_PROFILES,
    "uncertain",
    COMPILED_DEC,
    "only grok-4.5 was measured; its inferred patch rule is assumed (id and price: GP, LL)",
)


def _tiles(base: int, per_tile: int) -> Scheme:
    return OpenAITiles(base=base, per_tile=per_tile)


def _patches(
    mult: str, max_side: int, budget: int | None, detail: str, reject: int | None = None
) -> Scheme:
    return OpenAIPatches(
        multiplier=mult,
        max_side=max_side,
        patch_budget=budget,
        detail=detail,
        reject_patches=reject,
    )


# --------------------------------------------------------------------------- lifecycle facts

_L_ANTHROPIC = Fact(SRC_CLAUDE_DEPRECATIONS, "documented", "2026-10-05")
_L_ANTHROPIC_ID = Fact(
    SRC_CLAUDE_MODELS, "documented", "2026-10-02", "release = the date in its snapshot id"
)
_L_ANTHROPIC_MODELS = Fact(SRC_CLAUDE_MODELS, "documented", "2026-10-02", "active model table")
_L_GP = Fact(
    SRC_GENAI_PRICES, "documented", "2026-11-09", "listed and priced; release day not recorded"
)
_L_OPENAI = Fact(
    SRC_OPENAI_DEPRECATIONS,
    "documented",
    "2026-10-27",
    "shutdown dates as read by third parties 2026-10-15/27; 'deprecated' = announced by then",
)
_L_OPENAI_LIVE = Fact(SRC_OPENAI_VISION, "documented", "2026", "in the current sizing tables")
_L_OPENAI_REG = Fact(
    SRC_LITELLM, "documented", "2026-11", "first seen in registries on the date given"
)
_L_GOOGLE = Fact(
    SRC_GEMINI_DEPRECATIONS,
    "documented",
    "2026-11",
    "dates as listed on the deprecations page (newest copy)",
)
_L_GOOGLE_25 = Fact(
    SRC_GEMINI_25_RETIRED,
    "documented",
    "2026-11-10",
    "calls are routed to the successor and billed at its rates",
)
_L_MISTRAL = Fact(SRC_MISTRAL_PIXTRAL, "documented", "2026")
_L_MISTRAL_12B = Fact(SRC_MISTRAL_12B, "documented", "2026", "cites Mistral's models overview")
_L_MISTRAL_GP = Fact(SRC_GENAI_PRICES, "documented", "2026-11-09", "current, priced")
_L_UNKNOWN = Fact(SRC_BRIEF, "uncertain", COMPILED, "no lifecycle source at hand")
_L_OPENAI_PRO = Fact(SRC_MODELPIN, "documented", "2026-10-04", "listed active")
_L_OPUS_45 = Fact(SRC_MODELPIN_057, "documented", "2026-11-26", "release: model page 2025-11-24")
_L_HAIKU_45 = Fact(SRC_CLAUDE_MODELS, "documented", COMPILED_DEC, "model page: Oct 15, 2025")
_L_OPENAI_NOTICE = Fact(
    SRC_OPENAI_DEPRECATIONS_3,
    "documented",
    "2026-12-01",
    "deprecated = the notice date; successor as the page names it",
)
_L_OPENAI_MP = Fact(
    SRC_MODELPIN,
    "documented",
    "2026-10-04",
    "shutdown date transcribed from OpenAI's deprecations page (row source_url)",
)
_L_OPENAI_AZ = Fact(
    SRC_AZURE_LEGACY,
    "uncertain",
    "2026-12-01",
    "Azure's retirement date; OpenAI's own date is not in the sources read (shut down there too)",
)
_L_GPT62 = Fact(SRC_GPT62, "uncertain", "2026-11-18", "third-party release notes")

_CLAUDE_SUCCESSOR_NOTE = "successor: the newest current model of the same line"


def _life(
    fact: Fact,
    released: str | None = None,
    deprecated: str | None = None,
    retired: str | None = None,
    successor: str | None = None,
) -> Lifecycle:
    return Lifecycle(released, deprecated, retired, successor, fact)


def _std(model: str, life: Lifecycle, *, benchmark: bool = False) -> Model:
    return Model(model, "claude-standard", CLAUDE_STANDARD, _F_CLAUDE_STD, life, benchmark)


def _hi(model: str, family: str, life: Lifecycle, *, benchmark: bool = False) -> Model:
    return Model(model, family, CLAUDE_HIGH_RES, _F_CLAUDE_NEW, life, benchmark)


_RETIRED_CLAUDE_3 = (
    # id, released (from its dated id), retired, successor (same line, current)
    ("claude-3-7-sonnet", "2025-02-19", "2026-02-19", "claude-sonnet-5-5"),
    ("claude-3-5-sonnet", "2024-10-22", "2025-10-28", "claude-sonnet-5-5"),
    ("claude-3-5-haiku", "2024-10-22", "2026-02-19", "claude-haiku-5-5"),
    ("claude-3-opus", "2024-02-29", "2026-01-05", "claude-opus-5-5"),
    ("claude-3-sonnet", "2024-02-29", "2025-07-21", "claude-sonnet-5-5"),
    ("claude-3-haiku", "2024-03-07", "2026-04-20", "claude-haiku-5-5"),
)

#: The GPT-6 ids whose patch multiplier is disputed (see _ranges.py).
GPT6_FAMILY = (
    "gpt-6-astra",
    "gpt-6-sol",
    "gpt-6-luna",
    "gpt-6.1-sol",
    "gpt-6.1-terra",
    "gpt-6.2-astra",
    "gpt-6.2-sol",
)

_OPENAI_SHUTDOWN = "2026-10-15"  # the day the shutdown notices were first read (O-dep)

MODEL_ROWS: tuple[Model, ...] = (
    # ---- Anthropic, standard tier: models before 4.7 ("all other models").
    _std("claude-opus-4", _life(_L_ANTHROPIC, "2025-05-14", None, "2026-06-15", "claude-opus-5-5")),
    _std(
        "claude-sonnet-4",
        _life(_L_ANTHROPIC, "2025-05-14", None, "2026-06-15", "claude-sonnet-5-5"),
    ),
    _std(
        "claude-opus-4-1",
        _life(_L_ANTHROPIC, "2025-08-05", None, "2026-08-05", "claude-opus-5-5"),
    ),
    _std(
        "claude-sonnet-4-5",
        _life(_L_ANTHROPIC, "2025-09-29", "2026-09-30", "2026-11-30", "claude-sonnet-5-5"),
        benchmark=True,
    ),
    _std("claude-haiku-4-5", _life(_L_HAIKU_45, "2025-10-15")),
    _std(
        "claude-opus-4-5",
        _life(_L_OPUS_45, "2025-11-24", "2026-11-23", "2027-01-22", "claude-opus-5-5"),
    ),
    _std("claude-opus-4-6", _life(_L_ANTHROPIC_MODELS)),
    _std("claude-sonnet-4-6", _life(_L_ANTHROPIC_MODELS), benchmark=True),
    *(
        Model(
            m, "claude-standard", CLAUDE_STANDARD, _F_CLAUDE_3, _life(_L_ANTHROPIC, r, None, x, s)
        )
        for m, r, x, s in _RETIRED_CLAUDE_3
    ),
    # ---- Anthropic, high-resolution tier: "Claude 4.7 and later models" (A-vis2).
    _hi("claude-opus-4-7", "claude-high-res", _life(_L_ANTHROPIC_MODELS)),
    _hi("claude-opus-4-8", "claude-high-res", _life(_L_ANTHROPIC_MODELS)),
    _hi("claude-opus-5", "claude-opus-5", _life(_L_ANTHROPIC_MODELS, "2026-07-24")),
    _hi("claude-opus-5-5", "claude-opus-5", _life(_L_ANTHROPIC_MODELS, "2026-09-22")),
    _hi(
        "claude-sonnet-5",
        "claude-high-res",
        _life(_L_ANTHROPIC_MODELS, "2026-06-30"),
        benchmark=True,
    ),
    _hi(
        "claude-sonnet-5-5",
        "claude-high-res",
        _life(_L_ANTHROPIC_MODELS, "2026-09-28"),
        benchmark=True,
    ),
    _hi("claude-haiku-5-5", "claude-high-res", _life(_L_GP)),
    _hi("claude-mythos-5", "claude-high-res", _life(_L_ANTHROPIC_MODELS)),
    _hi("claude-mythos-5-1", "claude-high-res", _life(_L_ANTHROPIC_MODELS)),
    _hi("claude-mythos-5-2", "claude-high-res", _life(_L_GP)),
    _hi("claude-fable-5", "claude-fable", _life(_L_ANTHROPIC_MODELS)),
    _hi("claude-fable-5-1", "claude-fable", _life(_L_ANTHROPIC_MODELS)),
    _hi("claude-fable-5-2", "claude-fable", _life(_L_GP)),
    # ---- OpenAI tile models (base, per 512-px tile).
    Model(
        "gpt-4o",
        "openai-tiles",
        _tiles(85, 170),
        _F_TILES,
        _life(_L_OPENAI_NOTICE, None, "2026-10-14", "2027-01-14", "gpt-6-luna"),
    ),
    Model(
        "chatgpt-4o-latest",
        "openai-tiles",
        _tiles(85, 170),
        _F_TILES_GUESS,
        _life(_L_OPENAI_MP, None, None, "2026-02-17"),
    ),
    Model(
        "gpt-4.1",
        "openai-tiles",
        _tiles(85, 170),
        _F_TILES,
        _life(_L_OPENAI, None, _OPENAI_SHUTDOWN, "2027-01-14"),
    ),
    Model(
        "gpt-4o-2024-05-13",
        "openai-tiles",
        _tiles(85, 170),
        _F_TILES,
        _life(_L_OPENAI, "2024-05-13", _OPENAI_SHUTDOWN, "2026-10-23", "gpt-4o"),
    ),
    Model(
        "gpt-4.5-preview",
        "openai-tiles",
        _tiles(85, 170),
        _F_TILES_B,
        _life(_L_OPENAI_AZ, None, None, "2025-07-14"),
    ),
    Model(
        "gpt-4o-mini",
        "openai-tiles",
        _tiles(2833, 5667),
        _F_TILES,
        _life(_L_OPENAI_NOTICE, None, "2026-10-14", "2027-01-14", "gpt-6-luna"),
    ),
    Model(
        "gpt-5",
        "openai-tiles",
        _tiles(70, 140),
        _F_TILES,
        _life(_L_OPENAI_NOTICE, "2025-08-07", "2026-06-11", "2026-12-11", "gpt-6.1-sol"),
    ),
    Model(
        "gpt-5-chat-latest",
        "openai-tiles",
        _tiles(70, 140),
        _F_TILES_GUESS,
        _life(_L_OPENAI_MP, None, None, "2026-07-23"),
    ),
    Model(
        "gpt-5-pro",
        "openai-tiles",
        _tiles(70, 140),
        _F_TILES_GUESS,
        _life(_L_OPENAI, "2025-10-06", _OPENAI_SHUTDOWN, "2026-12-11"),
    ),
    Model(
        "gpt-5.1",
        "openai-tiles",
        _tiles(70, 140),
        _F_TILES,
        _life(_L_OPENAI_NOTICE, None, "2026-10-01", "2027-04-01", "gpt-6-sol"),
        benchmark=True,
    ),
    Model(
        "o1",
        "openai-tiles",
        _tiles(75, 150),
        _F_TILES,
        _life(_L_OPENAI, None, _OPENAI_SHUTDOWN, "2026-10-23"),
    ),
    Model(
        "o1-pro",
        "openai-tiles",
        _tiles(75, 150),
        _F_TILES,
        _life(_L_OPENAI, None, _OPENAI_SHUTDOWN, "2026-10-23"),
    ),
    Model(
        "o3",
        "openai-tiles",
        _tiles(75, 150),
        _F_TILES,
        _life(_L_OPENAI, None, _OPENAI_SHUTDOWN, "2026-12-11"),
    ),
    Model(
        "o3-pro",
        "openai-tiles",
        _tiles(75, 150),
        _F_TILES_GUESS,
        _life(_L_OPENAI, "2025-06-10", _OPENAI_SHUTDOWN, "2026-12-11"),
    ),
    Model("computer-use-preview", "openai-tiles", _tiles(65, 129), _F_TILES_B, _life(_L_UNKNOWN)),
    # ---- OpenAI patch models: multiplier, pixel box and patch budget of the detail level used
    # ('original' where offered: the docs recommend it for OCR-like work).
    *(
        Model(
            m,
            "openai-patches",
            _patches("1.2", 65535, None, "original", 30000),
            _F_PATCH_56,
            _life(_L_OPENAI_LIVE),
            benchmark=m == "gpt-5.6-sol",
        )
        for m in ("gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna")
    ),
    *(
        Model(
            m,
            "openai-patches",
            _patches("1.5", 65535, None, "original", 30000),
            _F_PATCH_GPT6,
            _life(_L_OPENAI_REG, released),
            benchmark=bench,
        )
        for m, released, bench in (
            ("gpt-6-astra", "2026-09-09", False),
            ("gpt-6-sol", "2026-09-22", True),
            ("gpt-6-luna", "2026-09-22", False),
            ("gpt-6.1-sol", "2026-09-29", True),
            ("gpt-6.1-terra", None, False),
        )
    ),
    # Released 2026-11-17 (GPT62): the GPT-6 rule and its disputed multiplier assumed. Not a
    # benchmark default while neither pinned price database lists them.
    *(
        Model(
            m,
            "openai-patches",
            _patches("1.5", 65535, None, "original", 30000),
            _F_PATCH_GPT6,
            _life(_L_GPT62, "2026-11-17"),
        )
        for m in ("gpt-6.2-astra", "gpt-6.2-sol")
    ),
    Model(
        "gpt-5.5",
        "openai-patches",
        _patches("1.2", 6000, 10000, "original"),
        _F_PATCH_C,
        _life(_L_OPENAI_LIVE),
        benchmark=True,
    ),
    Model(
        "gpt-5.4",
        "openai-patches",
        _patches("1.2", 6000, 10000, "original"),
        _F_PATCH_C,
        _life(_L_OPENAI_LIVE),
    ),
    *(
        Model(
            m,
            "openai-patches",
            _patches("1.2", 6000, 10000, "original"),
            _F_PATCH_PRO,
            _life(_L_OPENAI_PRO),
        )
        for m in ("gpt-5.5-pro", "gpt-5.4-pro")
    ),
    Model(
        "gpt-5.4-mini",
        "openai-patches",
        _patches("1.2", 2048, 1536, "high"),
        _F_PATCH_MINI,
        _life(_L_OPENAI_LIVE),
    ),
    Model(
        "gpt-5.4-nano",
        "openai-patches",
        _patches("1.2", 2048, 1536, "high"),
        _F_PATCH_MINI,
        _life(_L_OPENAI_NOTICE, None, "2026-10-01", "2027-04-01", "gpt-6-luna"),
    ),
    Model(
        "gpt-5.3",
        "openai-patches",
        _patches("1.2", 2048, 1536, "high"),
        _F_PATCH_53,
        _life(_L_OPENAI_REG),
    ),
    Model(
        "gpt-5.3-codex",
        "openai-patches",
        _patches("1.62", 2048, 1536, "high"),
        _F_PATCH_CODEX,
        _life(_L_OPENAI, None, _OPENAI_SHUTDOWN, "2027-04-01"),
    ),
    *(
        Model(
            m,
            "openai-patches",
            _patches("1.62", 2048, 1536, "high"),
            _F_PATCH_CODEX,
            _life(_L_UNKNOWN),
        )
        for m in ("gpt-5.2-codex", "gpt-5.1-codex-mini", "gpt-5-codex-mini")
    ),
    Model(
        "gpt-5.2-chat-latest",
        "openai-patches",
        _patches("1.62", 2048, 1536, "high"),
        _F_PATCH_CODEX,
        _life(_L_OPENAI_MP, None, None, "2026-08-10"),
    ),
    Model(
        "gpt-5.2",
        "openai-patches",
        _patches("1.2", 2048, 6144, "high"),
        _F_PATCH_C,
        _life(_L_OPENAI_LIVE),
    ),
    Model(
        "gpt-5-mini",
        "openai-patches",
        _patches("1.2", 2048, 1536, "high"),
        _F_PATCH_MINI,
        _life(_L_OPENAI_NOTICE, None, "2026-06-11", "2026-12-11", "gpt-6.1-terra"),
    ),
    Model(
        "gpt-5-nano",
        "openai-patches",
        _patches("1.5", 2048, 1536, "high"),
        _F_PATCH_MINI,
        _life(_L_OPENAI, None, _OPENAI_SHUTDOWN, "2026-12-11", "gpt-5.4-nano"),
    ),
    Model(
        "gpt-4.1-mini",
        "openai-patches",
        _patches("1.62", 2048, 6144, "high"),
        _F_PATCH_41MINI,
        _life(_L_OPENAI, None, _OPENAI_SHUTDOWN, "2027-01-14"),
    ),
    Model(
        "gpt-4.1-nano",
        "openai-patches",
        _patches("2.46", 2048, 1536, "high"),
        _F_PATCH_A,
        _life(_L_OPENAI, None, _OPENAI_SHUTDOWN, "2026-10-23"),
    ),
    Model(
        "o4-mini",
        "openai-patches",
        _patches("1.72", 2048, 1536, "high"),
        _F_PATCH_A,
        _life(_L_OPENAI, None, _OPENAI_SHUTDOWN, "2026-10-23"),
    ),
    # ---- OpenAI text-only.
    Model(
        "o1-mini",
        "openai-text",
        NoVision(),
        _F_NONE_OPENAI,
        _life(_L_OPENAI_MP, None, None, "2025-10-27"),
    ),
    Model(
        "o1-preview",
        "openai-text",
        NoVision(),
        _F_NONE_OPENAI,
        _life(_L_OPENAI_AZ, None, None, "2025-07-28"),
    ),
    Model(
        "o3-mini",
        "openai-text",
        NoVision(),
        _F_NONE_OPENAI,
        _life(_L_OPENAI, None, _OPENAI_SHUTDOWN, "2026-10-23"),
    ),
    Model(
        "gpt-3.5-turbo",
        "openai-text",
        NoVision(),
        _F_NONE_OPENAI,
        _life(_L_OPENAI, None, _OPENAI_SHUTDOWN, "2026-10-23"),
    ),
    Model(
        "gpt-4",
        "openai-text",
        NoVision(),
        _F_NONE_OPENAI,
        _life(_L_OPENAI, None, _OPENAI_SHUTDOWN, "2026-10-23"),
    ),
    # ---- Google.
    Model(
        "gemini-3-pro-preview",
        "gemini-3-pro",
        GeminiFlat(budget=1120),
        _F_GEMINI3,
        _life(_L_GOOGLE, None, None, "2026-03-09", "gemini-3.1-pro-preview"),
        benchmark=True,
    ),
    Model(
        "gemini-3.1-pro-preview",
        "gemini-3-pro",
        GeminiFlat(budget=1120),
        _F_GEMINI3,
        _life(_L_GOOGLE),
        benchmark=True,
    ),
    Model("gemini-3-flash-preview", "gemini-3-flash", GeminiFlat(), _F_GEMINI3, _life(_L_GOOGLE)),
    Model(
        "gemini-3.5-flash",
        "gemini-3-flash",
        GeminiFlat(),
        _F_GEMINI3,
        _life(_L_GOOGLE),
        benchmark=True,
    ),
    *(
        Model(
            m, "gemini-3-flash", GeminiFlat(), _F_GEMINI3, _life(_L_GOOGLE, released), benchmark=b
        )
        for m, released, b in (
            ("gemini-3.5-flash-lite", "2026-07-21", False),
            ("gemini-3.6-flash", "2026-07-21", True),
            ("gemini-3.7-flash", "2026-08-13", True),
            ("gemini-3.8-flash", "2026-09-02", True),
            ("gemini-3.1-flash-lite", None, False),
        )
    ),
    Model("gemini-4-argon", "gemini-4", GeminiFlat(), _F_GEMINI4, _life(_L_GP)),
    Model("gemini-4-hydrogen", "gemini-4", GeminiFlat(), _F_GEMINI4, _life(_L_OPENAI_REG)),
    Model(
        "gemini-2.5-pro",
        "gemini-2",
        GeminiTiles(),
        _F_GEMINI2,
        Lifecycle(
            None, "2026-11-10", "2026-12-01", "gemini-3.8-flash", _L_GOOGLE_25, "gemini-3.8-flash"
        ),
    ),
    Model(
        "gemini-2.5-flash",
        "gemini-2",
        GeminiTiles(),
        _F_GEMINI2,
        Lifecycle(
            None,
            "2026-11-10",
            "2026-12-01",
            "gemini-3.5-flash-lite",
            _L_GOOGLE_25,
            "gemini-3.5-flash-lite",
        ),
    ),
    Model("gemini-2.5-flash-lite", "gemini-2", GeminiTiles(), _F_GEMINI2, _life(_L_GOOGLE_25)),
    Model(
        "gemini-2.0-flash",
        "gemini-2",
        GeminiTiles(),
        _F_GEMINI2,
        _life(_L_GOOGLE, None, None, "2026-06-01", "gemini-3.5-flash-lite"),
    ),
    # ---- xAI, Mistral, Qwen, DeepSeek.
    Model("grok-4.5", "grok", GrokPatches(), _F_GROK, _life(_L_UNKNOWN)),
    Model("grok-4", "grok", GrokPatches(), _F_GROK, _life(_L_UNKNOWN)),
    *(
        Model(m, "grok", GrokPatches(label="uncertain"), _F_GROK_NEW, _life(_L_GP))
        for m in ("grok-4.6", "grok-4.7", "grok-4.20", "grok-4.3")
    ),
    Model(
        "pixtral-12b",
        "mistral",
        MistralPatches(),
        _F_MISTRAL,
        _life(_L_MISTRAL_12B, None, None, "2025-12-31", "ministral-14b-2512"),
    ),
    Model(
        "pixtral-large",
        "mistral",
        MistralPatches(),
        _F_MISTRAL,
        _life(_L_MISTRAL, None, "2026-02-27", "2026-05-31", "mistral-medium-3-5"),
    ),
    *(
        Model(m, "mistral-current", MistralPatches(), _F_MISTRAL_NEW, _life(_L_MISTRAL_GP))
        for m in (
            "mistral-medium-3-5",
            "mistral-large-4",
            "mistral-small-2603",
            "ministral-14b-2512",
        )
    ),
    Model("qwen2-vl", "qwen-vl", QwenPatches(factor=28), _F_QWEN25),
    Model("qwen2.5-vl", "qwen-vl", QwenPatches(factor=28), _F_QWEN25),
    Model("qwen3-vl", "qwen-vl", QwenPatches(factor=32, max_pixels=2560 * 32 * 32), _F_QWEN3),
    Model("deepseek-chat", "deepseek-text", NoVision(), _F_DEEPSEEK),
    Model("deepseek-reasoner", "deepseek-text", NoVision(), _F_DEEPSEEK),
)

# --------------------------------------------------------------------------- detail levels


def _tile_levels(high: Scheme) -> dict[str, Scheme]:
    if not isinstance(high, OpenAITiles):
        raise TypeError(f"tile levels need an OpenAITiles scheme, got {high!r}")
    low = OpenAITiles(base=high.base, per_tile=high.per_tile, detail="low")
    return {"low": low, "high": high, "auto": high}


def _patch_levels(
    mult: str,
    low: tuple[int, int | None],
    high: tuple[int, int | None],
    original: tuple[int, int | None, int | None] | None,
    auto: str,
) -> dict[str, Scheme]:
    levels = {
        "low": _patches(mult, low[0], low[1], "low"),
        "high": _patches(mult, high[0], high[1], "high"),
    }
    if original is not None:
        levels["original"] = _patches(mult, original[0], original[1], "original", original[2])
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
_F_DETAIL_GPT6 = Fact(SRC_OPENAI_CALC, "uncertain", COMPILED, "levels as GPT-5.6; multiplier 1.5")

_BY_ID = {m.model: m for m in MODEL_ROWS}

#: Per model: (levels, fact); each level is the scheme that ``detail`` (OpenAI) or
#: ``media_resolution`` (Gemini 3/4) selects. A row's own scheme is its default level.
DETAIL_ROWS: dict[str, tuple[dict[str, Scheme], Fact]] = {
    **{
        m: (_tile_levels(row.scheme), _F_DETAIL_TILES)
        for m, row in _BY_ID.items()
        if row.scheme.kind == "openai-tiles"
    },
    **{
        m: (
            _patch_levels("1.2", (512, None), (2048, 2500), (65535, None, 30000), "original"),
            _F_DETAIL_C,
        )
        for m in ("gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna")
    },
    **{
        m: (
            _patch_levels("1.5", (512, None), (2048, 2500), (65535, None, 30000), "original"),
            _F_DETAIL_GPT6,
        )
        for m in GPT6_FAMILY
    },
    "gpt-5.5": (
        _patch_levels("1.2", (512, None), (2048, 2500), (6000, 10000, None), "original"),
        _F_DETAIL_C,
    ),
    "gpt-5.4": (
        _patch_levels("1.2", (2048, 6144), (2048, 2500), (6000, 10000, None), "high"),
        _F_DETAIL_C,
    ),
    "gpt-5.5-pro": (
        _patch_levels("1.2", (512, None), (2048, 2500), (6000, 10000, None), "original"),
        _F_PATCH_PRO,
    ),
    "gpt-5.4-pro": (
        _patch_levels("1.2", (2048, 6144), (2048, 2500), (6000, 10000, None), "original"),
        _F_PATCH_PRO,
    ),
    **{
        m: (
            _patch_levels("1.2", (2048, 6144), (2048, 1536), (6000, 10000, None), "high"),
            _F_DETAIL_MINI,
        )
        for m in ("gpt-5.4-mini", "gpt-5.4-nano")
    },
    "gpt-5.2": (_patch_levels("1.2", (2048, 6144), (2048, 6144), None, "high"), _F_DETAIL_C),
    "gpt-4.1-mini": (
        _patch_levels("1.62", (2048, 6144), (2048, 6144), None, "high"),
        _F_DETAIL_C,
    ),
    **{
        m: (_patch_levels(mult, (2048, 1536), (2048, 1536), None, "high"), _F_DETAIL_MINI)
        for m, mult in (
            ("gpt-5-mini", "1.2"),
            ("gpt-5-nano", "1.5"),
            ("gpt-4.1-nano", "2.46"),
            ("o4-mini", "1.72"),
        )
    },
    **{
        m: (_flat_levels(), _F_DETAIL_GEMINI)
        for m, row in _BY_ID.items()
        if row.scheme.kind == "gemini-flat"
    },
}

# --------------------------------------------------------------------------- aliases, snapshots

_A_CLAUDE = Fact(SRC_CLAUDE_MODELS, "documented", "2026")
_A_GP = Fact(SRC_GENAI_PRICES, "documented", "2026-11-09", "an id the price database lists")

#: Documented ids that name a model row (marketing names, ``-latest`` pointers, old spellings).
ALIAS_ROWS: dict[str, tuple[str, Fact]] = {
    "claude-opus-4-0": ("claude-opus-4", _A_GP),
    "claude-sonnet-4-0": ("claude-sonnet-4", _A_GP),
    "claude-4-opus": ("claude-opus-4", _A_GP),
    "claude-4-sonnet": ("claude-sonnet-4", _A_GP),
    "claude-3-5-haiku-latest": ("claude-3-5-haiku", _A_GP),
    "claude-3-7-sonnet-latest": ("claude-3-7-sonnet", _A_GP),
    "claude-3-opus-latest": ("claude-3-opus", _A_GP),
    "claude-fable": ("claude-fable-5", Fact("anchors.md A11", "uncertain", COMPILED)),
    "gemini-flash-latest": (
        "gemini-3.8-flash",
        Fact(SRC_GENAI_PRICES, "documented", "2026-11-09", "the database's pointer (GP)"),
    ),
    "gemini-pro-latest": (
        "gemini-3.1-pro-preview",
        Fact(
            SRC_GENAI_PRICES,
            "documented",
            "2026-11-09",
            "the database prices it as gemini-3.1-pro-preview (GP; LL $2/$12 agrees)",
        ),
    ),
    # Gemini CLI 0.61.0 calls its default model by this id (observed by the harness suite).
    "gemini-3.1-pro-preview-customtools": (
        "gemini-3.1-pro-preview",
        Fact(
            "https://ai.google.dev/gemini-api/docs/models/gemini-3.1-pro-preview",
            "documented",
            "2026-12-06",
            "listed under the model's versions as a separate endpoint of Gemini 3.1 Pro Preview "
            "that prefers custom tools over bash; same page, same token limits",
        ),
    ),
    "gemini-3-flash": (
        "gemini-3-flash-preview",
        Fact(
            SRC_GEMINI_MEDIA,
            "uncertain",
            COMPILED,
            "undated name of Gemini 3 Flash: same media_resolution scheme; the price "
            "database lists only the preview id, so this id has no price of its own",
        ),
    ),
    "gpt-5.6": (
        "gpt-5.6-sol",
        Fact(SRC_GENAI_PRICES, "documented", "2026-11-09", "the database's own alias; LL too"),
    ),
}

#: Suffixes of a dated snapshot of the same model (stripped one at a time, least first).
DATED_SUFFIXES: tuple[re.Pattern[str], ...] = (
    re.compile(r"-\d{4}-\d{2}-\d{2}$"),  # OpenAI snapshots: gpt-4o-2024-08-06
    re.compile(r"-\d{8}$"),  # Anthropic snapshots: claude-sonnet-4-5-20250929
    re.compile(r"-\d{3}$"),  # gemini-2.0-flash-001
    re.compile(r"-(?:24|25|26)\d{2}$"),  # Mistral/xAI snapshots: pixtral-12b-2409, grok-4-0709
    re.compile(r"-0\d{3}$"),
)

#: Suffixes of a variant that is billed and sees images as the model itself.
VARIANT_SUFFIXES: tuple[tuple[re.Pattern[str], Fact], ...] = (
    (
        re.compile(r"\[1m\]$"),
        Fact(
            "Claude Code model ids (1M-context variant)",
            "uncertain",
            COMPILED,
            "same model; prompts over 200k tokens fall in the long-context price tier",
        ),
    ),
)

#: The only prefixes resolution may use: whole families sharing one scheme and price.
PREFIX_ROWS: tuple[PrefixFamily, ...] = (
    PrefixFamily(
        "qwen2-vl-",
        "qwen2-vl",
        Fact(SRC_QWEN_CODE, "documented", "2026", "open weights: one processor, no list price"),
    ),
    PrefixFamily(
        "qwen2.5-vl-",
        "qwen2.5-vl",
        Fact(SRC_QWEN_CODE, "documented", "2026", "open weights: one processor, no list price"),
    ),
    PrefixFamily(
        "qwen3-vl-",
        "qwen3-vl",
        Fact(SRC_PERCEPTRON, "documented", "2026", "open weights: one processor, no list price"),
    ),
)

# --------------------------------------------------------------------------- measurements

#: Measured bills to check the schemes against (tests read these rows).
MEASUREMENT_ROWS: tuple[BillMeasurement, ...] = (
    # count_tokens on sonnet-4-5 includes ~3-4 tokens of per-block overhead.
    *(
        BillMeasurement("claude-sonnet-4-5", s, t, Fact(SRC_PXPIPE_AUDIT, "measured", "2026-07-01"))
        for s, t in (
            ((1072, 1072), 1525),
            ((1092, 1092), 1525),
            ((1568, 1568), 1525),
            ((1928, 1928), 1525),
            ((1568, 728), 1460),
        )
    ),
    BillMeasurement(
        "claude-fable-5", (1928, 1928), 4764, Fact(SRC_OMNIGLYPH, "measured", "2026-08-17")
    ),
    BillMeasurement(
        "claude-sonnet-4-5", (1568, 728), 1460, Fact(SRC_OMNIGLYPH, "measured", "2026-08-17")
    ),
    BillMeasurement(
        "grok-4.5", (768, 336), 268, Fact(SRC_PXPIPE_PROFILES, "measured", "2026-08-20")
    ),
    BillMeasurement(
        "grok-4.5", (764, 980), 748, Fact(SRC_PXPIPE_PROFILES, "measured", "2026-08-20")
    ),
    *(
        BillMeasurement("gemini-3.6-flash", s, t, Fact(SRC_PXPIPE_GEMINI, "measured", "2026"))
        for s, t in (
            ((100, 100), 1089),
            ((2048, 2048), 1089),
            ((1568, 728), 1078),
            ((1920, 1080), 1100),
            ((4096, 512), 1034),
        )
    ),
    *(
        BillMeasurement(
            "gemini-3.5-flash-lite", s, t, Fact("AlaskanTuna/Rokabot#121", "measured", "2026")
        )
        for s, t in (((64, 64), 1089), ((1024, 1024), 1089), ((2048, 512), 1056))
    ),
    *(
        BillMeasurement("gemini-2.5-pro", s, 258, Fact(SRC_GENAI_1349, "measured", "2026"))
        for s in ((768, 1280), (1024, 1024), (3840, 2160))
    ),
)
