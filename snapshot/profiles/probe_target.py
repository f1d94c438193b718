"""How pages go to one model for a live call: provider, API, image options, font and page
size, from the model's profile (the live probes' and the proxy canary's target).

>>> t = probe_target_for("claude-sonnet-5-5")
>>> t.provider, t.api, t.font == t.source.font
('anthropic', 'messages', True)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from snapshot.errors import LiveError, UnknownModelError
from snapshot.profiles import Profile, fallback_profile, profile_for
from snapshot.providers.live import CHAT_DETAILS, Api, Provider, check_api, provider_of

if TYPE_CHECKING:
    from snapshot.rendering.geometry import Geometry

__all__ = ["ProbeTarget", "probe_target_for"]


# snapshot.profiles names providers by vendor; the SDK for each.
_SDK_OF_VENDOR: dict[str, Provider] = {
    "anthropic": "anthropic",
    "openai": "openai",
    "google": "gemini",
}


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
        api=check_api(provider, api or default_api[provider]),
        font=profile.font,
        page_size=(int(size[0]), int(size[1])),
        padding=int(profile.padding),
        detail=detail,
        media_resolution=level,
        profile=profile.canonical if known else None,
        family=profile.family if known else None,
        source=profile,
    )
