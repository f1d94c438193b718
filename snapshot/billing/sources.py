"""Source shorthands of the provider tables: each a canonical URL or repository path, written once.

Pure data. Keys in brackets are the source keys of ``shared/docs/providers-2026-12.md``
(the 2026-12-01 audit), where the quote behind each row is reproduced.
"""

#: When the rows were last compiled from their sources.
COMPILED = "2026-12-01"
#: The earlier compilation (shared/docs/providers.md) some rows still rest on alone.
COMPILED_BEFORE = "2026-11-29"

SRC_CLAUDE_VISION = "https://platform.claude.com/docs/en/build-with-claude/vision"
SRC_CLAUDE_VISION_B = (
    "https://platform.claude.com/docs/en/build-with-claude/vision [A-vis2]: "
    "'High-resolution | Claude 4.7 and later models | 2576 px | 4784'"
)
SRC_CLAUDE_COORDS = (
    "https://platform.claude.com/docs/en/build-with-claude/vision-coordinates [A-coord]"
)
SRC_CLAUDE_MODELS = "https://platform.claude.com/docs/en/about-claude/models/overview [A-model]"
SRC_CLAUDE_DEPRECATIONS = (
    "https://platform.claude.com/docs/en/about-claude/model-deprecations [A-dep]"
)
SRC_CLAUDE_ERRORS = "https://platform.claude.com/docs/en/api/errors [A-err]"
SRC_BEDROCK = "https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html"
SRC_BEDROCK_CONVERSE = (
    "AWS Converse API reference, quoted in experientiallabs/experiential#786: "
    "'up to 20 images … no more than 3.75 MB, 8,000 px'"
)
SRC_VERTEX = "https://docs.claude.com/en/api/claude-on-vertex-ai"
SRC_OPENROUTER = "https://openrouter.ai/docs/guides/overview/multimodal/image-understanding.md"
SRC_OPENAI_VISION = "https://developers.openai.com/api/docs/guides/images-vision [O-vis]"
SRC_OPENAI_VISION_B = "https://developers.openai.com/api/docs/guides/images-vision (doc B) [O-visB]"
SRC_OPENAI_CALC = (
    "https://developers.openai.com/api/docs/guides/image-cost-calculator [O-calc]: "
    "'exceeds the 30,000-patch limit … rejection'"
)
SRC_OPENAI_56 = (
    "https://developers.openai.com/api/docs/guides/latest-model [O-56]: 'The API rejects "
    "images that still exceed the 30,000-patch limit, rather than resizing them'"
)
SRC_OPENAI_DEPRECATIONS = "https://developers.openai.com/api/docs/deprecations [O-dep]"
SRC_OPENAI_MULT = "https://community.openai.com/t/introducing-gpt-5-4-mini-and-nano/1377015"
SRC_GEMINI_TOKENS = "https://ai.google.dev/gemini-api/docs/tokens [G-tok]"
SRC_GEMINI_IMAGES = "https://ai.google.dev/gemini-api/docs/image-understanding [G-img]"
SRC_GEMINI_MEDIA = "https://ai.google.dev/gemini-api/docs/media-resolution [G-mr]"
SRC_GEMINI_DEPRECATIONS = "https://ai.google.dev/gemini-api/docs/deprecations [G-dep]"
SRC_GEMINI_25_RETIRED = (
    "https://dev.to/aideprecations/what-to-do-before-gemini-25-pro-and-25-flash-are-retired-on-"
    "december-1-2026 [G-dep2] ('Gemini API deprecations, read Nov 10, 2026')"
)
SRC_GENAI_1349 = "https://github.com/googleapis/python-genai/issues/1349"
SRC_MISTRAL = "https://docs.mistral.ai/capabilities/vision"
SRC_MISTRAL_PIXTRAL = "https://docs.mistral.ai/models/pixtral-large-24-11.md [M-px]"
SRC_MISTRAL_12B = "https://github.com/braintrustdata/braintrust-proxy/issues/1005 [M-px]"
SRC_QWEN_CODE = "huggingface/transformers models/qwen2_vl/image_processing_qwen2_vl.py"
SRC_PERCEPTRON = "https://docs.perceptron.inc/guides/image-tokens"
SRC_XAI = "https://docs.x.ai/docs/consumption-and-rate-limits [X-tok]"
SRC_XAI_IMAGES = "https://docs.x.ai/developers/model-capabilities/images/understanding [X-img]"
SRC_GENAI_PRICES = "genai-prices 0.2.3 bundled data (PyPI, MIT) [GP]"
SRC_LITELLM = "litellm 1.110.2 model_prices_and_context_window_backup.json [LL]"
SRC_PXPIPE_PROFILES = "teamchong/pxpipe src/core/gpt-model-profiles.ts"
SRC_PXPIPE_RENDER = (
    "teamchong/pxpipe src/core/render.ts (count_tokens sweep, 2026-07-01): standard-tier "
    "images resized to fit a 1568 px edge and ~1.15 MP (1,143,750 px)"
)
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
SRC_CTOK = "ctok 1.3.0 (PyPI, MIT; github.com/sanderland/ctok): offline reconstruction"
SRC_BRIEF = "project brief, issue 3 (no vendor page at hand)"

# ---- second December audit (shared/docs/providers-2026-12b.md, checked 2026-12-01)
#: When the rows of the second audit were compiled.
COMPILED_DEC = "2026-12-02"
SRC_HF_ITC = (
    "huggingface.co/datasets/JOHNISKING/image-token-cost [HF-itc] (third-party table, "
    "method not shown; gpt6_auto reproduces x1.2 on all 10 sizes)"
)
SRC_APIYI = (
    "docs.apiyi.com/en/faq/vision-image-too-large [APIYI] (gateway, 2026-10-20, gpt-6.1-sol): "
    "'pixels / 1024 x 1.2'"
)
SRC_MODELPIN = "github.com/samarthputhraya/Modelpin data/models.json [MP] (from vendor pages)"
SRC_MODELPIN_057 = (
    "github.com/samarthputhraya/Modelpin/releases/tag/v0.5.7 [MP57]: 'Anthropic deprecated "
    "claude-opus-4-5-20251101 on 23 November 2026, with 22 January 2027 as its tentative "
    "retirement date'"
)
SRC_OPENAI_DEPRECATIONS_3 = (
    "https://developers.openai.com/api/docs/deprecations [O-dep3] (zh-Hans fallback copy, "
    "with notice dates)"
)
SRC_BEDROCK_LIFECYCLE = (
    "https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle [AWS-lc]: "
    "'For Amazon Bedrock usage, only the dates on this page apply'"
)
SRC_CLAUDE_DEPRECATIONS_3 = (
    "https://platform.claude.com/docs/en/about-claude/model-deprecations [A-dep3]: "
    "'Partner-operated platforms (Amazon Bedrock and Google Cloud) set their own retirement "
    "schedules'"
)
SRC_CLAUDE_GEO = "https://platform.claude.com/docs/en/manage-claude/data-residency [A-geo]"
SRC_GEMINI_CACHE_STORAGE = (
    "https://ai.google.dev/gemini-api/docs/pricing via genai-prices 0.2.3 price_comments [GP]: "
    "'The cache storage price ($0.50 per 1M tokens per hour)'"
)
SRC_AZURE_LEGACY = (
    "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/legacy-models [AZ-leg]"
)
SRC_AZURE = "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/models"
SRC_GPT62 = (
    "github.com/BerriAI/litellm/discussions/52347; github.com/akiiwa-games/AgentCompass-Router "
    "v0.6.8 (2026-11-18) [GPT62]: 'OpenAI released both on 2026-11-17'"
)
SRC_SOLPROMO = (
    "github.com/TheKrush/PromptFuel v1.0.17 (2026-08-25); github.com/gramext/dist v0.1.0 "
    "(2026-09-23) [SOLPROMO]: $4/$20 promotion 'at least through 2026-11-21', list $5/$30"
)
SRC_GP_DATES = (
    "genai-prices 0.2.3 data.py [GP-date]: Gemini 3.6-3.8 Flash 'Introductory rates apply "
    "through 2026-12-31'"
)
SRC_GP_VARIANTS = "genai-prices 0.2.3 price_variants (service_tier / processing) [GP]"
SRC_AUDIT_12B = "shared/docs/providers-2026-12b.md §7 (model pages, GP price_variants)"
SRC_VERTEX_LIFECYCLE = (
    "litellm 1.110.2 vertex_ai deprecation_date [LL] (semantics of the field unverified)"
)
SRC_BEDROCK_LL = "litellm 1.110.2 bedrock deprecation_date [LL], under AWS-lc's own schedule"
SRC_VERTEX_GEMINI = (
    "github.com/samarthputhraya/Modelpin [MP]: Vertex retired Gemini 2.5 Pro/Flash/Flash-Lite "
    "on 2026-10-20"
)
