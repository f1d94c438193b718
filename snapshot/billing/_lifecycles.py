"""Partner routes' own lifecycles, and whose schedule each route follows. Pure data.

Bedrock, Vertex and Azure set their own retirement dates (AWS-lc, A-dep3,
AZ-leg); a model row's lifecycle is its vendor's API's. A route row here
replaces it on that route; without one, the vendor's dates are quoted and the
warning says so.
"""

from __future__ import annotations

from snapshot.billing.rows import Fact, Lifecycle, RouteLifecycle
from snapshot.billing.sources import (
    SRC_AZURE_LEGACY,
    SRC_BEDROCK_LIFECYCLE,
    SRC_BEDROCK_LL,
    SRC_CLAUDE_DEPRECATIONS_3,
    SRC_MODELPIN_057,
    SRC_OPENROUTER,
    SRC_VERTEX_GEMINI,
    SRC_VERTEX_LIFECYCLE,
)

#: Per route: whose schedule it follows, and the source that says so.
ROUTE_SCHEDULES: dict[str, tuple[str, Fact]] = {
    "bedrock": ("Amazon Bedrock's", Fact(SRC_BEDROCK_LIFECYCLE, "documented", "2026-12-01")),
    "vertex": (
        "Google Cloud Vertex AI's",
        Fact(SRC_CLAUDE_DEPRECATIONS_3, "documented", "2026-12-01"),
    ),
    "azure": ("Azure OpenAI's", Fact(SRC_AZURE_LEGACY, "documented", "2026-12-01")),
    "openrouter": (
        "the upstream vendor's",
        Fact(
            SRC_OPENROUTER,
            "uncertain",
            "2026-12-01",
            "OpenRouter publishes no schedule of its own; it serves the vendors' models",
        ),
    ),
}

#: The vendor APIs' own schedules, named in warnings.
VENDOR_SCHEDULES: dict[str, str] = {
    "anthropic": "the Claude API's",
    "openai": "the OpenAI API's",
    "google": "the Gemini API's",
    "xai": "the xAI API's",
    "mistral": "Mistral's",
    "qwen": "the Qwen provider's",
    "deepseek": "DeepSeek's",
}

_BEDROCK = Fact(
    SRC_BEDROCK_LL,
    "documented",
    "2026-12-01",
    "LL deprecation_date read as Bedrock's end of life; 'deprecated' = scheduled by then",
)
_VERTEX = Fact(
    SRC_VERTEX_LIFECYCLE,
    "uncertain",
    "2026-12-01",
    "LL's Vertex date read as the deprecation; shutdown not published unless given",
)
_VERTEX_OPUS_45 = Fact(
    f"{SRC_VERTEX_LIFECYCLE}; {SRC_MODELPIN_057} ('Vertex AI gives the same shutdown date')",
    "documented",
    "2026-11-26",
)
_VERTEX_GEMINI = Fact(SRC_VERTEX_GEMINI, "documented", "2026-10-04")
_AZURE = Fact(SRC_AZURE_LEGACY, "documented", "2026-12-01")


def _row(route: str, model: str, fact: Fact, **dates: str | None) -> RouteLifecycle:
    return RouteLifecycle(route, model, Lifecycle(fact=fact, **dates))


ROUTE_LIFECYCLE_ROWS: tuple[RouteLifecycle, ...] = (
    # Bedrock still serves these after the Claude API retired them.
    _row("bedrock", "claude-sonnet-4-5", _BEDROCK, deprecated="2026-12-01", retired="2027-04-08"),
    _row("bedrock", "claude-opus-4-1", _BEDROCK, deprecated="2026-12-01", retired="2027-01-08"),
    _row("bedrock", "claude-sonnet-4", _BEDROCK, retired="2026-10-14"),
    # Vertex AI (Claude).
    _row("vertex", "claude-sonnet-4-5", _VERTEX, deprecated="2026-09-29"),
    _row("vertex", "claude-haiku-4-5", _VERTEX, deprecated="2026-10-15"),
    _row(
        "vertex", "claude-opus-4-5", _VERTEX_OPUS_45, deprecated="2026-11-24", retired="2027-01-22"
    ),
    _row("vertex", "claude-sonnet-5", _VERTEX, deprecated="2026-12-24"),
    _row("vertex", "claude-opus-5", _VERTEX, deprecated="2027-01-24"),
    # Vertex AI (Gemini): 2.5 retired two months before the Gemini API re-routed it.
    _row("vertex", "gemini-2.5-pro", _VERTEX_GEMINI, retired="2026-10-20"),
    _row("vertex", "gemini-2.5-flash", _VERTEX_GEMINI, retired="2026-10-20"),
    _row("vertex", "gemini-2.5-flash-lite", _VERTEX_GEMINI, retired="2026-10-20"),
    _row("vertex", "gemini-3.6-flash", _VERTEX, deprecated="2026-11-19"),
    # Azure OpenAI.
    _row("azure", "o1-preview", _AZURE, retired="2025-07-28"),
    _row("azure", "gpt-4.5-preview", _AZURE, retired="2025-07-14"),
)
