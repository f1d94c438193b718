"""Live vision models through the providers' official SDKs: one page in, text out.

Each provider takes a page its own way, and the differences matter for a 5-px font,
because a provider that shrinks the page destroys the glyphs:

- Anthropic Messages: an ``image`` block with a base64 ``source``; no size knob.
- OpenAI Chat Completions: an ``image_url`` part with a data URL and a ``detail``;
  Responses: an ``input_image`` part with the same two. ``original`` skips the
  downscale to the ``high`` box on the models that offer it.
- Gemini generateContent: ``inline_data`` with a ``media_resolution`` on the image
  part (Gemini 3, whose bill is a flat budget per level).

What to send (detail, media resolution) is the caller's :class:`ImageTarget`; the
profiles layer builds one per model (:func:`snapshot.profiles.probe_target.probe_target_for`).
The SDKs are imported lazily (optional extra ``[live]``). Keys come from the
environment; base URLs can be overridden, which is how the tests point every SDK at a
local fake server. A key is handed to the SDK and nowhere else: it is redacted from
every error message, and from SDK log records while a call runs.

>>> provider_of("claude-sonnet-5-5"), provider_of("gemini-3.1-pro-preview")
('anthropic', 'gemini')
>>> key_from_env("openai", {"OPENAI_API_KEY": " sk-test "})
'sk-test'
"""

from __future__ import annotations

import base64
import importlib
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from snapshot.errors import LiveError, UnknownModelError
from snapshot.providers.keys import KEY_ENV, redact, redacting_logs

__all__ = [
    "CHAT_DETAILS",
    "EXTRA_HINT",
    "Api",
    "ImageTarget",
    "MissingExtraError",
    "MissingKeyError",
    "ModelAnswer",
    "Provider",
    "ask",
    "check_api",
    "import_sdk",
    "key_from_env",
    "provider_of",
]


Provider = Literal["anthropic", "openai", "gemini"]
Api = Literal["messages", "chat", "responses", "generate_content"]


class ImageTarget(Protocol):
    """What :func:`ask` needs to know of where a page goes (a profile's probe target)."""

    @property
    def model(self) -> str: ...

    @property
    def provider(self) -> Provider: ...

    @property
    def api(self) -> Api: ...

    @property
    def detail(self) -> str | None: ...

    @property
    def media_resolution(self) -> str | None: ...


EXTRA_HINT = "pip install 'snapshot[live]'"


class MissingKeyError(LiveError):
    """The provider's API key is not in the environment."""


class MissingExtraError(LiveError, ImportError):
    """The provider's SDK (optional extra ``[live]``) is not installed."""


# The SDK module each provider needs, and the distribution that provides it.
_SDK: dict[Provider, tuple[str, str]] = {
    "anthropic": ("anthropic", "anthropic"),
    "openai": ("openai", "openai"),
    "gemini": ("google.genai", "google-genai"),
}


# Which SDK serves a model no profile table knows yet (a model newer than the
# tables): id prefix -> provider. Only the *API* is inferred here; the page and
# font still come from snapshot.profiles (its conservative fallback profile),
# and the image options are the ones every model of that provider accepts.
_PREFIXES: tuple[tuple[str, Provider], ...] = (
    ("claude-", "anthropic"),
    ("gpt-", "openai"),
    ("chatgpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("gemini-", "gemini"),
    ("models/gemini-", "gemini"),
)


# Chat Completions' image `detail` levels: OpenAI's published OpenAPI spec
# (openai/openai-openapi, 2026-08-21, ChatCompletionRequestMessageContentPartImage)
# has no "original" there, only Responses does; the openai SDK 3.57.0 types allow
# it in both (the sources disagree, so a probe that needs "original" asks Responses).
CHAT_DETAILS = ("auto", "low", "high")


@dataclass(frozen=True)
class ModelAnswer:
    """What a model sent back for one page."""

    text: str
    usage: dict[str, int] = field(default_factory=dict)
    duration_s: float = 0.0
    # The model id the provider's reply names (a dated version, say); "" when it names none.
    served: str = ""


def provider_of(model: str) -> Provider:
    """The provider serving ``model``, from its id prefix."""
    lowered = model.lower()
    for prefix, provider in _PREFIXES:
        if lowered.startswith(prefix):
            return provider
    known = ", ".join(sorted({p for p, _ in _PREFIXES}))
    raise UnknownModelError(
        f"no live provider for model {model!r}; model ids start with one of: {known}"
    )


_APIS: dict[Provider, tuple[Api, ...]] = {
    "anthropic": ("messages",),
    "openai": ("chat", "responses"),
    "gemini": ("generate_content",),
}


def check_api(provider: Provider, api: str) -> Api:
    for allowed in _APIS[provider]:
        if api == allowed:
            return allowed
    raise LiveError(f"{provider} has no {api!r} API here; use one of: {', '.join(_APIS[provider])}")


def key_from_env(
    provider: Provider, env: Mapping[str, str] | None = None, *, model: str | None = None
) -> str:
    """The provider's API key from the environment, or :class:`MissingKeyError`."""
    env = os.environ if env is None else env
    for name in KEY_ENV[provider]:
        value = env.get(name, "").strip()
        if value:
            return value
    names = " or ".join(KEY_ENV[provider])
    what = f"probing {model}" if model else f"a live {provider} call"
    raise MissingKeyError(f"{what} needs {names} set in the environment")


def import_sdk(provider: Provider) -> Any:
    """The provider's SDK module, or a clear error naming the extra to install."""
    module, dist = _SDK[provider]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(
            f"the {provider} SDK ({dist}) is not installed: {EXTRA_HINT}"
        ) from exc


def ask(
    target: ImageTarget,
    png: bytes,
    prompt: str,
    *,
    api_key: str,
    base_url: str | None = None,
    timeout: float = 180.0,
    max_retries: int = 2,
    max_tokens: int = 4096,
) -> ModelAnswer:
    """Send one page (PNG bytes) and a text prompt to ``target``; return the reply text.

    ``base_url`` replaces the provider's endpoint (tests use a local fake
    server). Errors become :class:`LiveError` with the key redacted.
    """
    sdk = import_sdk(target.provider)
    secrets = (api_key,)
    start = time.monotonic()
    try:
        with redacting_logs(secrets):
            if target.provider == "anthropic":
                text, usage, served = _ask_anthropic(
                    sdk, target, png, prompt, api_key, base_url, timeout, max_retries, max_tokens
                )
            elif target.provider == "openai":
                text, usage, served = _ask_openai(
                    sdk, target, png, prompt, api_key, base_url, timeout, max_retries
                )
            else:
                text, usage, served = _ask_gemini(
                    sdk, target, png, prompt, api_key, base_url, timeout, max_retries
                )
    except LiveError:
        raise
    except Exception as exc:
        # Anything the SDK raises (HTTP status, connection, validation) is a
        # failed call, reported in one line without the key.
        detail = " ".join(str(exc).split())[:400]
        raise LiveError(
            redact(
                f"{target.model}: {target.provider} {target.api} request failed "
                f"({type(exc).__name__}): {detail}",
                secrets,
            )
        ) from None
    return ModelAnswer(
        text=redact(text, secrets),
        usage=usage,
        duration_s=time.monotonic() - start,
        served=redact(served, secrets),
    )


def _b64(png: bytes) -> str:
    return base64.b64encode(png).decode("ascii")


def _ask_anthropic(
    sdk: Any,
    target: ImageTarget,
    png: bytes,
    prompt: str,
    api_key: str,
    base_url: str | None,
    timeout: float,
    max_retries: int,
    max_tokens: int,
) -> tuple[str, dict[str, int], str]:
    client = sdk.Anthropic(
        api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries
    )
    with client:
        msg = client.messages.create(
            model=target.model,
            max_tokens=max_tokens,
            messages=[
                {
                    "role": "user",
                    "content": [
                        # Image before the question: the order Anthropic's vision
                        # guide recommends.
                        {
                            "type": "image",
                            "source": {
                                "type": "base64",
                                "media_type": "image/png",
                                "data": _b64(png),
                            },
                        },
                        {"type": "text", "text": prompt},
                    ],
                }
            ],
        )
    text = "".join(getattr(b, "text", "") for b in msg.content if getattr(b, "type", "") == "text")
    u = msg.usage
    usage = _ints(input_tokens=u.input_tokens, output_tokens=u.output_tokens)
    return text, usage, str(getattr(msg, "model", "") or "")


def _ask_openai(
    sdk: Any,
    target: ImageTarget,
    png: bytes,
    prompt: str,
    api_key: str,
    base_url: str | None,
    timeout: float,
    max_retries: int,
) -> tuple[str, dict[str, int], str]:
    client = sdk.OpenAI(
        api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries
    )
    url = f"data:image/png;base64,{_b64(png)}"
    detail = target.detail or "high"
    # No token limit: on reasoning models it also caps the hidden reasoning,
    # and a too-small cap returns an empty answer that would score as abstained.
    with client:
        if target.api == "responses":
            resp = client.responses.create(
                model=target.model,
                input=[
                    {
                        "role": "user",
                        "content": [
                            {"type": "input_image", "image_url": url, "detail": detail},
                            {"type": "input_text", "text": prompt},
                        ],
                    }
                ],
            )
            u = resp.usage
            usage = _ints(
                input_tokens=getattr(u, "input_tokens", None),
                output_tokens=getattr(u, "output_tokens", None),
            )
            return resp.output_text or "", usage, str(getattr(resp, "model", "") or "")
        chat = client.chat.completions.create(
            model=target.model,
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "image_url", "image_url": {"url": url, "detail": detail}},
                        {"type": "text", "text": prompt},
                    ],
                }
            ],
        )
    u = chat.usage
    text = chat.choices[0].message.content if chat.choices else ""
    usage = _ints(
        input_tokens=getattr(u, "prompt_tokens", None),
        output_tokens=getattr(u, "completion_tokens", None),
    )
    return text or "", usage, str(getattr(chat, "model", "") or "")


def _ask_gemini(
    genai: Any,
    target: ImageTarget,
    png: bytes,
    prompt: str,
    api_key: str,
    base_url: str | None,
    timeout: float,
    max_retries: int,
) -> tuple[str, dict[str, int], str]:
    types = importlib.import_module("google.genai.types")
    http: dict[str, Any] = {
        "timeout": int(timeout * 1000),  # milliseconds
        # Attempts include the first call; stated so that max_retries means
        # the same for every provider.
        "retry_options": types.HttpRetryOptions(attempts=max_retries + 1),
    }
    if base_url is not None:
        http["base_url"] = base_url
    # vertexai=False: an API key means the Gemini API, whatever
    # GOOGLE_GENAI_USE_VERTEXAI says in the environment.
    client = genai.Client(api_key=api_key, vertexai=False, http_options=types.HttpOptions(**http))
    image = types.Part.from_bytes(
        data=png, mime_type="image/png", media_resolution=target.media_resolution
    )
    with client:
        resp = client.models.generate_content(
            model=target.model,
            contents=[types.Content(role="user", parts=[image, types.Part.from_text(text=prompt)])],
        )
    u = resp.usage_metadata
    usage = _ints(
        input_tokens=getattr(u, "prompt_token_count", None),
        output_tokens=getattr(u, "candidates_token_count", None),
    )
    return resp.text or "", usage, str(getattr(resp, "model_version", "") or "")


def _ints(**values: Any) -> dict[str, int]:
    return {k: int(v) for k, v in values.items() if isinstance(v, int)}
