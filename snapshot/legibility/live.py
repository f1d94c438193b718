"""Live vision models through the providers' official SDKs: one page in, text out.

Each provider takes a page its own way, and the differences matter for a
5-px font, because a provider that shrinks the page destroys the glyphs:

- Anthropic Messages: an ``image`` block with a base64 ``source``; no size knob
  (pages are sized by the profile to stay inside the no-resize box).
- OpenAI Chat Completions: an ``image_url`` part with a data URL and a
  ``detail``; Responses: an ``input_image`` part with the same two. ``original``
  skips the downscale to the ``high`` box on the models that offer it.
- Gemini generateContent: ``inline_data`` with a ``media_resolution`` on the
  image part (Gemini 3, whose bill is a flat budget per level).

What to send (detail, media resolution, font, page size) comes from the
model's :mod:`snapshot.profiles` profile, so a probe measures the page the
project would actually send.

The SDKs are imported lazily (optional extra ``[live]``). Keys come from the
environment; base URLs can be overridden, which is how the tests point every
SDK at a local fake server. A key is handed to the SDK and nowhere else: it is
redacted from every error message, and from SDK log records while a call runs.
"""

from __future__ import annotations

import base64
import dataclasses
import importlib
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from snapshot.errors import LiveError, UnknownModelError
from snapshot.profiles import Profile, fallback_profile, profile_for
from snapshot.providers.keys import KEY_ENV, redact, redacting_logs
from snapshot.readability.transcribe import TRANSCRIBE_PROMPT, reply_rows

if TYPE_CHECKING:
    from snapshot.rendering.geometry import Geometry

Provider = Literal["anthropic", "openai", "gemini"]
Api = Literal["messages", "chat", "responses", "generate_content"]

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

# snapshot.profiles names providers by vendor; the SDK for each.
_SDK_OF_VENDOR: dict[str, Provider] = {
    "anthropic": "anthropic",
    "openai": "openai",
    "google": "gemini",
}


# Chat Completions' image `detail` levels: OpenAI's published OpenAPI spec
# (openai/openai-openapi, 2026-08-21, ChatCompletionRequestMessageContentPartImage)
# has no "original" there, only Responses does; the openai SDK 3.57.0 types allow
# it in both (the sources disagree, so a probe that needs "original" asks Responses).
CHAT_DETAILS = ("auto", "low", "high")


@dataclass(frozen=True)
class ProbeTarget:
    """How pages go to one model: provider, API, image options, font and page size."""

    model: str
    provider: Provider
    api: Api
    font: str
    page_size: tuple[int, int]
    padding: int = 2
    # OpenAI image `detail` ("original" | "high" ...); None for other providers.
    detail: str | None = None
    # Gemini media resolution of the image part (a MEDIA_RESOLUTION_* name);
    # None sends the model's default.
    media_resolution: str | None = None
    # The snapshot.profiles row (canonical id) and family this target follows;
    # None when no table knows the model and the fallback profile was used.
    profile: str | None = None
    family: str | None = None
    # The profile itself (font already replaced): its geometry() is the page
    # the project draws for this model, so the probe draws the same.
    source: Profile | None = field(default=None, repr=False, compare=False)

    def geometry(self) -> Geometry:
        """The page geometry to draw the probe with (the profile's, when known)."""
        if self.source is not None:
            return self.source.geometry()
        from snapshot.rendering.geometry import Geometry
        from snapshot.rendering.glyphs import load_font

        return Geometry.fit(load_font(self.font), *self.page_size, padding=self.padding)

    def image_options(self) -> dict[str, str]:
        """The image options as recorded: only the ones this provider takes."""
        out: dict[str, str] = {}
        if self.detail is not None:
            out["detail"] = self.detail
        if self.media_resolution is not None:
            out["media_resolution"] = self.media_resolution
        return out


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


def probe_target_for(model: str, *, api: str | None = None, font: str | None = None) -> ProbeTarget:
    """How to send pages to ``model``, from its snapshot.profiles profile.

    ``api`` picks Responses over Chat Completions for OpenAI; ``font``
    replaces the profile's font (the page is re-solved for it).
    """
    try:
        profile = profile_for(model)
    except UnknownModelError:
        # Newer than the tables: the provider from the id, the conservative page.
        return _target(model, provider_of(model), api, fallback_profile(model), font, known=False)
    if not profile.vision:
        raise LiveError(f"{model} has no vision input: there is no page to probe")
    provider = _SDK_OF_VENDOR.get(profile.provider)
    if provider is None:
        raise LiveError(
            f"{model} is served by {profile.provider}; live probes support "
            f"{', '.join(sorted(_SDK_OF_VENDOR))} models"
        )
    if profile.route != profile.provider:
        raise LiveError(
            f"{model} goes through {profile.route}; live probes call the vendor's own API: "
            f"probe {profile.canonical} instead"
        )
    return _target(model, provider, api, profile, font, known=True)


def _target(
    model: str,
    provider: Provider,
    api: str | None,
    profile: Profile,
    font: str | None,
    *,
    known: bool,
) -> ProbeTarget:
    if font is not None and font != profile.font:
        profile = dataclasses.replace(profile, font=font)
    size = profile.solution().size
    scheme = profile.scheme if known else None
    detail = level = None
    if provider == "openai":
        # The scheme's detail is the level its box and bill describe
        # ("original" where offered); "high" is accepted by every vision model.
        detail = getattr(scheme, "detail", None) or "high"
    elif provider == "gemini":
        # Gemini 3 bills a flat budget per media_resolution level, set per
        # image part; Gemini 2.x's tiling is billed at the default, so its
        # page is sent with none. A model newer than the tables gets HIGH,
        # Gemini 3's default budget, stated to pin it.
        named = getattr(scheme, "level", None)
        if scheme is None:
            level = "MEDIA_RESOLUTION_HIGH"
        elif named is not None:
            level = f"MEDIA_RESOLUTION_{str(named).upper()}"
    # A page sized for "original" goes where the published spec allows it, so the
    # probe measures the page the project sends, not a downscaled one.
    openai_api = "chat" if detail in CHAT_DETAILS else "responses"
    default_api = {"anthropic": "messages", "openai": openai_api, "gemini": "generate_content"}
    return ProbeTarget(
        model=model,
        provider=provider,
        api=_check_api(provider, api or default_api[provider]),
        font=profile.font,
        page_size=(int(size[0]), int(size[1])),
        padding=int(profile.padding),
        detail=detail,
        media_resolution=level,
        profile=profile.canonical if known else None,
        family=profile.family if known else None,
        source=profile,
    )


_APIS: dict[Provider, tuple[Api, ...]] = {
    "anthropic": ("messages",),
    "openai": ("chat", "responses"),
    "gemini": ("generate_content",),
}


def _check_api(provider: Provider, api: str) -> Api:
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
    target: ProbeTarget,
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
    target: ProbeTarget,
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
    target: ProbeTarget,
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
    target: ProbeTarget,
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


# ---------------------------------------------------------------------------- tune --reader live


@dataclass
class LineReader:
    """A live model as a :class:`~snapshot.legibility.readers.Reader` for ``snapshot tune``.

    The model gets the whole page (as the tuner drew it) and a transcription
    prompt, never the rows it will be scored on; its reply is split into lines
    and row ``r`` is line ``r`` (:func:`reply_rows`). One request per distinct
    page: the reply is kept for the other rows asked.

    >>> reader = LineReader(probe_target_for("claude-sonnet-5-5"), api_key="sk-not-a-key")
    >>> reader.name, "sk-not-a-key" in repr(reader)
    ('live:claude-sonnet-5-5', False)
    """

    target: ProbeTarget
    api_key: str = field(repr=False)
    base_url: str | None = None
    timeout: float = 180.0
    _replies: dict[bytes, list[str]] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        return f"live:{self.target.model}"

    def read(self, seen: Any, layout: Any, rows: Sequence[int]) -> list[str]:
        import hashlib

        import numpy as np

        from snapshot.rendering.raster import to_png_gray

        pixels = np.clip(np.rint(np.asarray(seen.pixels, dtype=np.float64)), 0, 255)
        png = to_png_gray(pixels.astype(np.uint8))
        key = hashlib.sha256(png).digest()
        if key not in self._replies:
            reply = ask(
                self.target,
                png,
                TRANSCRIBE_PROMPT,
                api_key=self.api_key,
                base_url=self.base_url,
                timeout=self.timeout,
            )
            self._replies[key] = reply_rows(reply.text, len(layout.row_boxes))
        lines = self._replies[key]
        return [lines[r] if r < len(lines) else "" for r in rows]


def reader_for(model: str, *, base_url: str | None = None, timeout: float = 180.0) -> LineReader:
    """The live model ``model`` as a tuning reader, keyed from the environment.

    Raises
    ------
    MissingKeyError
        No key for the model's provider in the environment.
    LiveError
        The model cannot take pages (see :func:`probe_target_for`).
    """
    target = probe_target_for(model)
    return LineReader(target, key_from_env(target.provider, model=model), base_url, timeout)
