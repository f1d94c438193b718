"""Text-token counters per model and family: exact, reconstruction or estimate. Pure data."""

from __future__ import annotations

from snapshot.billing.rows import Fact, TextTokenizer
from snapshot.billing.sources import (
    COMPILED,
    SRC_CLAUDE_MODELS,
    SRC_CTOK,
    SRC_GEMINI_TOKENS,
)

_TIKTOKEN = "openai/tiktoken tiktoken/model.py (quicktok bundles the same BPE files)"

O200K = TextTokenizer("exact", Fact(_TIKTOKEN, "documented", "2025"), encoding="o200k_base")
CL100K = TextTokenizer("exact", Fact(_TIKTOKEN, "documented", "2025"), encoding="cl100k_base")

# ctok's families: v3 = Claude 3 … Opus 4.6, v4.7 = Opus 4.7, v4.8 = Opus 4.8, Sonnet 5, Fable 5.
CTOK_V3 = TextTokenizer(
    "reconstruction",
    Fact(SRC_CTOK, "measured", "2026-09", "family v3 (Claude 3 through Opus 4.6)"),
    ctok_version="3.0",
)
CTOK_V47 = TextTokenizer(
    "reconstruction",
    Fact(SRC_CTOK, "measured", "2026-09", "family v4.7 (Opus 4.7 tokenizer)"),
    ctok_version="4.7",
)
CTOK_V48 = TextTokenizer(
    "reconstruction",
    Fact(SRC_CTOK, "measured", "2026-09", "family v4.8 (Opus 4.8, Sonnet 5, Fable 5)"),
    ctok_version="4.8",
)
CTOK_V48_ASSUMED = TextTokenizer(
    "reconstruction",
    Fact(
        SRC_CTOK,
        "uncertain",
        COMPILED,
        "family v4.8 assumed: ctok's measurements end at Opus 4.8 / Sonnet 5 / Fable 5",
    ),
    ctok_version="4.8",
)
#: Used for Claude only when ctok is not installed.
CLAUDE_ESTIMATE = TextTokenizer(
    "estimate",
    Fact(
        SRC_CLAUDE_MODELS,
        "documented",
        "2026",
        "~3.4M characters per 1M tokens (Sonnet 4.6 tooltip); ctok not installed",
    ),
    chars_per_token=3.4,
)
CLAUDE_NEW_ESTIMATE = TextTokenizer(
    "estimate",
    Fact(
        SRC_CLAUDE_MODELS,
        "documented",
        "2026-09-02",
        "~2.5M characters per 1M tokens (tokenizer of Opus 4.7 and later); ctok not installed",
    ),
    chars_per_token=2.5,
)
GEMINI = TextTokenizer(
    "estimate",
    Fact(
        SRC_GEMINI_TOKENS,
        "documented",
        "2026-11",
        "'a token is equivalent to about 4 characters'; no offline tokenizer ships in a "
        "registry package (google-genai's LocalTokenizer downloads its model at run time)",
    ),
    chars_per_token=4.0,
)
QWEN = TextTokenizer(
    "exact",
    Fact(
        "quicktok-v1 bundled 'qwen3' vocabulary",
        "uncertain",
        COMPILED,
        "exact for Qwen3; Qwen2.x share the BPE (assumed)",
    ),
    encoding="qwen3",
)
GENERIC = TextTokenizer(
    "estimate",
    Fact("no vendor figure at hand", "uncertain", COMPILED, "4 characters per token assumed"),
    chars_per_token=4.0,
)

#: Per model id first (exact ids of model rows), then per family.
BY_MODEL: dict[str, TextTokenizer] = {
    "gpt-4": CL100K,
    "gpt-3.5-turbo": CL100K,
    "claude-opus-4-7": CTOK_V47,
    "claude-opus-4-8": CTOK_V48,
    "claude-sonnet-5": CTOK_V48,
    "claude-fable-5": CTOK_V48,
}
BY_FAMILY: dict[str, TextTokenizer] = {
    "claude-standard": CTOK_V3,
    "claude-opus-5": CTOK_V48_ASSUMED,
    "claude-high-res": CTOK_V48_ASSUMED,
    "claude-fable": CTOK_V48_ASSUMED,
    "openai-tiles": O200K,
    "openai-patches": O200K,
    "openai-text": O200K,
    "gemini-3-flash": GEMINI,
    "gemini-3-pro": GEMINI,
    "gemini-4": GEMINI,
    "gemini-2": GEMINI,
    "qwen-vl": QWEN,
    "grok": GENERIC,
    "mistral": GENERIC,
    "mistral-current": GENERIC,
    "deepseek-text": GENERIC,
    "fallback": GENERIC,
}
#: The estimate a ctok row falls back to when ctok is not installed.
CTOK_FALLBACK: dict[str, TextTokenizer] = {
    "3.0": CLAUDE_ESTIMATE,
    "4.7": CLAUDE_NEW_ESTIMATE,
    "4.8": CLAUDE_NEW_ESTIMATE,
}
