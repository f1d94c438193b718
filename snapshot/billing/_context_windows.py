"""Context windows per model: the input+output tokens one request may hold. Pure data.

Each row names its source and the date that source was read. Most rows are the
vendor's own entry in genai-prices' bundled data (``context_window`` of the
vendor's provider); a Claude model listed only under Vertex says so; the current
Claude models genai-prices omits rest on the 2026-12 audit's reading of Anthropic's
model pages ("all current models are 1M"). A model no source gives a window for
has no row (the lookup answers None rather than guessing a sibling's window).

Keys are the canonical ids of :data:`snapshot.billing.providers.MODELS`; ids,
aliases and routes resolve to them through :func:`snapshot.profiles.context_window`.

>>> CONTEXT_WINDOWS["claude-sonnet-4-6"].tokens
1000000
>>> "grok-4" in CONTEXT_WINDOWS  # no source states it
False
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from snapshot.billing.sources import COMPILED, SRC_CLAUDE_MODELS, SRC_GENAI_PRICES


@dataclass(frozen=True)
class ContextWindow:
    """One model's context window in tokens, with the source and date it rests on.

    >>> w = ContextWindow("m", 200_000, "a source", "2026-11-09")
    >>> w.cite()
    'm: 200,000 tokens (a source, 2026-11-09)'
    """

    model: str
    tokens: int  # the window planned with: the lower end where sources disagree
    source: str
    date: str
    note: str = ""
    upper: int | None = None  # a disputed window: the higher figure a source states

    def cite(self) -> str:
        """One line for reports: ``model: N tokens (source, date[; note])``, a range where disputed.

        >>> ContextWindow("m", 1_000_000, "a", "2026-12-06", upper=1_048_576).cite()
        'm: 1,000,000–1,048,576 tokens (a, 2026-12-06)'
        """
        extra = f"; {self.note}" if self.note else ""
        span = f"{self.tokens:,}" + (f"–{self.upper:,}" if self.upper else "")
        return f"{self.model}: {span} tokens ({self.source}, {self.date}{extra})"


#: The date genai-prices 0.2.3's bundled data was last checked (its newest dated entries).
_GP_DATE = "2026-11-09"
#: A 1M-context variant id (``claude-sonnet-4-5[1m]``): Claude Code's spelling of the same model.
VARIANT_1M_TOKENS = 1_000_000
VARIANT_1M_SOURCE = "Claude Code model ids (1M-context variant)"
_VERTEX = "listed only under Vertex (genai-prices provider 'google'); the same model"


def _gp(tokens: int, provider: str, note: str = "") -> tuple[int, str, str, str]:
    return (tokens, f"{SRC_GENAI_PRICES} provider {provider!r}", _GP_DATE, note)


#: The vendors' model pages read for the agent CLIs' default models (issue 38).
_CLI_DEFAULTS_READ = "2026-12-06"
_OPENAI_MODEL = "https://developers.openai.com/api/docs/models/{}"
_GOOGLE_MODEL = "https://ai.google.dev/gemini-api/docs/models/{}"


_CLAUDE_CURRENT = (
    1_000_000,
    SRC_CLAUDE_MODELS,
    COMPILED,
    "not in genai-prices; shared/docs/providers-2026-12b.md: 'all current models are 1M'",
)

_ROWS: dict[str, tuple[int, str, str, str]] = {
    # claude-opus-4: no source read states a window (genai-prices anthropic: none)
    # claude-sonnet-4: no source read states a window (genai-prices anthropic: none)
    "claude-opus-4-1": _gp(200_000, "anthropic"),
    "claude-sonnet-4-5": _gp(200_000, "anthropic"),
    "claude-haiku-4-5": _gp(200_000, "anthropic"),
    "claude-opus-4-5": _gp(200_000, "anthropic"),
    "claude-opus-4-6": _gp(1_000_000, "anthropic"),
    "claude-sonnet-4-6": _gp(1_000_000, "anthropic"),
    "claude-3-7-sonnet": _gp(200_000, "google", _VERTEX),
    "claude-3-5-sonnet": _gp(200_000, "anthropic"),
    "claude-3-5-haiku": _gp(200_000, "google", _VERTEX),
    "claude-3-opus": _gp(200_000, "google", _VERTEX),
    "claude-3-sonnet": _gp(200_000, "anthropic"),
    "claude-3-haiku": _gp(200_000, "anthropic"),
    "claude-opus-4-7": _gp(1_000_000, "anthropic"),
    "claude-opus-4-8": _gp(1_000_000, "anthropic"),
    "claude-opus-5": _gp(1_000_000, "anthropic"),
    "claude-opus-5-5": _gp(1_000_000, "anthropic"),
    "claude-sonnet-5": _gp(1_000_000, "anthropic"),
    "claude-sonnet-5-5": _gp(1_000_000, "anthropic"),
    "claude-haiku-5-5": _gp(1_000_000, "anthropic"),
    "claude-mythos-5": _CLAUDE_CURRENT,
    "claude-mythos-5-1": _CLAUDE_CURRENT,
    "claude-mythos-5-2": _gp(1_000_000, "anthropic"),
    "claude-fable-5": _gp(1_000_000, "anthropic"),
    "claude-fable-5-1": _gp(1_000_000, "anthropic"),
    "claude-fable-5-2": _gp(1_000_000, "anthropic"),
    "gpt-4o": _gp(128_000, "openai"),
    "gpt-4.1": _gp(1_000_000, "openai"),
    "gpt-4o-2024-05-13": _gp(128_000, "openai"),
    # gpt-4.5-preview: no source read states a window (genai-prices openai: none)
    "gpt-4o-mini": _gp(128_000, "openai"),
    "gpt-5": _gp(400_000, "openai"),
    "gpt-5-pro": _gp(400_000, "openai"),
    "gpt-5.1": _gp(400_000, "openai"),
    "o1": _gp(200_000, "openai"),
    "o1-pro": _gp(200_000, "openai"),
    "o3": _gp(200_000, "openai"),
    "o3-pro": _gp(200_000, "openai"),
    # computer-use-preview: no source read states a window (genai-prices openai: none)
    "gpt-5.6-sol": _gp(1_050_000, "openai"),
    "gpt-5.6-terra": _gp(1_050_000, "openai"),
    "gpt-5.6-luna": _gp(1_050_000, "openai"),
    "gpt-6-astra": _gp(1_050_000, "openai"),
    "gpt-6-sol": _gp(1_050_000, "openai"),
    "gpt-6-luna": _gp(1_050_000, "openai"),
    "gpt-6.1-sol": _gp(1_050_000, "openai"),
    "gpt-6.1-terra": _gp(1_050_000, "openai"),
    "gpt-5.5": _gp(1_000_000, "openai"),
    "gpt-5.5-pro": _gp(1_000_000, "openai"),
    "gpt-5.4-pro": _gp(1_050_000, "openai"),
    "chatgpt-4o-latest": _gp(128_000, "openai"),
    "gpt-5.4": _gp(1_050_000, "openai"),
    "gpt-5.4-mini": _gp(400_000, "openai"),
    "gpt-5.4-nano": _gp(400_000, "openai"),
    "gpt-5.3": _gp(128_000, "openai"),
    "gpt-5.3-codex": _gp(400_000, "openai"),
    # Codex CLI's default models (shared/docs/harnesses-2026-12.md).
    "gpt-6.2-sol": (
        1_050_000,
        _OPENAI_MODEL.format("gpt-6.2-sol"),
        _CLI_DEFAULTS_READ,
        "'1,050,000 context window', 'Maximum input tokens: 922,000'",
    ),
    "gpt-5.2-codex": (
        400_000,
        "OpenAI's GPT-5.2-Codex model page as quoted by api.koog.ai (OpenAIModels.Chat.GPT5_2Codex)",
        _CLI_DEFAULTS_READ,
        "'400,000 context window'; not in genai-prices 0.2.3",
    ),
    # gpt-5.2-chat-latest: no source read states a window (genai-prices openai: none)
    "gpt-5.1-codex-mini": _gp(400_000, "openai"),
    # gpt-5-codex-mini: no source read states a window (genai-prices openai: none)
    "gpt-5.2": _gp(400_000, "openai"),
    "gpt-5-mini": _gp(400_000, "openai"),
    "gpt-5-nano": _gp(400_000, "openai"),
    "gpt-4.1-mini": _gp(1_000_000, "openai"),
    "gpt-4.1-nano": _gp(1_000_000, "openai"),
    "o4-mini": _gp(200_000, "openai"),
    "o1-mini": _gp(128_000, "openai"),
    "o1-preview": _gp(128_000, "openai"),
    "o3-mini": _gp(200_000, "openai"),
    "gpt-3.5-turbo": _gp(16_385, "openai"),
    "gpt-4": _gp(8_192, "openai"),
    # Gemini CLI's default models (shared/docs/harnesses-2026-12.md).
    "gemini-3.1-pro-preview": (
        1_048_576,
        _GOOGLE_MODEL.format("gemini-3.1-pro-preview"),
        _CLI_DEFAULTS_READ,
        "'Input token limit 1,048,576'",
    ),
    "gemini-3-pro-preview": (
        1_048_576,
        _GOOGLE_MODEL.format("gemini-3-pro-preview"),
        _CLI_DEFAULTS_READ,
        "'Input token limit 1,048,576'; shut down 2026-03-09 (providers-2026-12.md, G-dep)",
    ),
    "gemini-3-flash-preview": _gp(1_000_000, "google"),
    "gemini-3.5-flash": _gp(1_000_000, "google"),
    "gemini-3.5-flash-lite": _gp(1_000_000, "google"),
    "gemini-3.6-flash": _gp(1_000_000, "google"),
    "gemini-3.7-flash": _gp(1_000_000, "google"),
    "gemini-3.8-flash": _gp(1_000_000, "google"),
    "gemini-3.1-flash-lite": _gp(1_000_000, "google"),
    "gemini-4-argon": _gp(1_048_576, "google"),
    # gemini-4-hydrogen: no source read states a window (genai-prices google: none)
    "gemini-2.5-flash": _gp(1_048_576, "google"),
    "gemini-2.5-flash-lite": _gp(1_000_000, "google"),
    "gemini-2.0-flash": _gp(1_000_000, "google"),
    "grok-4.5": _gp(500_000, "x-ai"),
    "grok-4.6": _gp(500_000, "x-ai"),
    "grok-4.7": _gp(500_000, "x-ai"),
    "grok-4.20": _gp(1_000_000, "x-ai"),
    "grok-4.3": _gp(1_000_000, "x-ai"),
    # grok-4: no source read states a window (genai-prices x-ai: none)
    # pixtral-12b: no source read states a window (genai-prices mistral: none)
    # pixtral-large: no source read states a window (genai-prices mistral: none)
    "mistral-medium-3-5": _gp(262_144, "mistral"),
    "mistral-large-4": _gp(1_048_576, "mistral"),
    "mistral-small-2603": _gp(262_144, "mistral"),
    "ministral-14b-2512": _gp(262_144, "mistral"),
    # qwen2-vl: no source read states a window (genai-prices None: none)
    # qwen2.5-vl: no source read states a window (genai-prices None: none)
    # qwen3-vl: no source read states a window (genai-prices None: none)
    "deepseek-chat": _gp(64_000, "deepseek"),
    "deepseek-reasoner": _gp(64_000, "deepseek"),
}

#: Disputed windows: the sources disagree, so the window is a range (planned at its lower end).
_RANGES: dict[str, ContextWindow] = {
    "gemini-2.5-pro": ContextWindow(
        "gemini-2.5-pro",
        1_000_000,
        "https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/gemini/2-5-pro "
        "('Maximum input tokens: 1,048,576'); shared/docs/providers-2026-12.md G-dep2 (retired "
        "2026-12-01, requests routed to gemini-3.8-flash, 1,000,000 in genai-prices 0.2.3)",
        _CLI_DEFAULTS_READ,
        "the model's own page vs the model requests are routed to since its retirement",
        upper=1_048_576,
    ),
}

#: Canonical model id → its context window (only models a source states one for).
CONTEXT_WINDOWS: MappingProxyType[str, ContextWindow] = MappingProxyType(
    {**{model: ContextWindow(model, *row) for model, row in _ROWS.items()}, **_RANGES}
)
