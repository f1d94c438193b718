"""Routes (gateway id shapes) and their request limits. Pure data.

A gateway can only add restrictions to the vendor's own limits; where two rows
set one limit of a route, the stricter applies.
"""

from __future__ import annotations

import re

from snapshot.billing.rows import Fact, LimitFact, Route
from snapshot.billing.sources import (
    COMPILED,
    COMPILED_DEC,
    SRC_AZURE,
    SRC_BEDROCK,
    SRC_BEDROCK_CONVERSE,
    SRC_CLAUDE_ERRORS,
    SRC_CLAUDE_VISION,
    SRC_ENFORCEMENT,
    SRC_GEMINI_IMAGES,
    SRC_MISTRAL,
    SRC_OPENAI_VISION,
    SRC_OPENROUTER,
    SRC_VERTEX,
    SRC_XAI_IMAGES,
)

MB = 1024 * 1024
LIMIT_ROWS: tuple[LimitFact, ...] = (
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
    # Converse: the id does not say which Bedrock API is used, so its stricter caps apply too.
    LimitFact(
        "bedrock",
        "max_images",
        20,
        Fact(SRC_BEDROCK_CONVERSE, "documented", "2026-09-04", "Converse API: up to 20 images"),
    ),
    LimitFact(
        "bedrock",
        "max_image_bytes",
        3_750_000,
        Fact(SRC_BEDROCK_CONVERSE, "documented", "2026-09-04", "Converse API: 3.75 MB per image"),
    ),
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


ROUTE_ROWS: tuple[Route, ...] = (
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
        price_provider="aws",
    ),
    Route(
        "bedrock",
        re.compile(r"^bedrock/(?P<model>.+)$"),
        Fact(SRC_BEDROCK, "uncertain", COMPILED, "LiteLLM-style"),
    ),
    Route(
        "bedrock",
        re.compile(
            r"^arn:aws:bedrock:[a-z0-9-]+:\d*:(?:inference-profile|foundation-model)/"
            r"(?:(?:us|eu|apac|jp|au|global)\.)?anthropic\.(?P<model>claude-.+?)(?:-v\d+(?::\d+)?)?$"
        ),
        Fact(SRC_BEDROCK, "documented", "2026", "inference-profile and foundation-model ARNs"),
        price_provider="aws",
    ),
    Route(
        "vertex",
        re.compile(r"^(?:vertex_ai/)?(?P<model>claude-[^@/]+)@(?P<date>\d{8}|latest)$"),
        Fact(SRC_VERTEX, "documented", "2026", "claude-...@YYYYMMDD (or @latest)"),
        price_provider="google",
    ),
    Route(
        "vertex",
        re.compile(r"^vertex_ai/(?P<model>claude-.+)$"),
        Fact(SRC_VERTEX, "uncertain", COMPILED, "LiteLLM-style"),
    ),
    # OpenAI models hosted on Bedrock (genai-prices' aws provider lists global.openai.*).
    Route(
        "bedrock",
        re.compile(
            r"^(?:bedrock/)?(?:(?:us|eu|apac|jp|au|in|global)\.)?openai\.(?P<model>gpt-[^/]+?)"
            r"(?:-v\d+(?::\d+)?)?$"
        ),
        Fact(
            "genai-prices 0.2.3 aws provider; litellm 1.110.2 [GP, LL]",
            "documented",
            "2026-12-01",
            "global.openai.<id>: OpenAI models on Amazon Bedrock",
        ),
        price_provider="aws",
    ),
    Route(
        "vertex",
        re.compile(r"^vertex_ai/(?P<model>gemini-[^/@]+)(?:@\d+)?$"),
        Fact(
            "litellm 1.110.2 vertex_ai/ keys [LL]",
            "uncertain",
            COMPILED_DEC,
            "LiteLLM-style Gemini on Vertex AI; priced as Google's (GP has no Vertex rows)",
        ),
        price_provider="google",
        price_inner=True,
    ),
    # Azure OpenAI: its own route (not OpenRouter's caps); priced by genai-prices' azure rows.
    Route(
        "azure",
        re.compile(r"^azure/(?P<model>[^/]+)$"),
        Fact(SRC_AZURE, "documented", "2026-12-01", "LiteLLM-style azure/<deployment = model id>"),
        price_provider="azure",
        price_inner=True,
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
        price_provider="openrouter",
    ),
)

_F_FALLBACK_LIMITS = Fact("strictest of the routes above", "uncertain", COMPILED)
FALLBACK_LIMIT_ROWS: tuple[LimitFact, ...] = (
    LimitFact("fallback", "max_images", 20, _F_FALLBACK_LIMITS),
    LimitFact("fallback", "max_image_bytes", 3_750_000, _F_FALLBACK_LIMITS),
    LimitFact("fallback", "max_request_bytes", 20 * 1000 * 1000, _F_FALLBACK_LIMITS),
)
