"""What the ladder needs to know of a reader, adapted from its provider profile.

The ladder never reads provider tables itself: :func:`target_for` asks
``snapshot.profiles`` once and keeps the answers the rungs need.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from snapshot.geometry import Geometry
from snapshot.transcript.model import ImageBlock, Message, block_chars


@dataclass(frozen=True)
class Target:
    """A reader as the ladder sees it.

    ``text_tokens`` is the estimator the ladder plans with; ``correction``
    scales it after a provider has told us its real count (reactive recovery).
    """

    model: str
    vision: bool
    geometry: Geometry | None
    max_images: int
    max_image_bytes: int
    text_tokens: Callable[[str], int]
    image_tokens: Callable[[int, int], int]
    # Characters per text token, to price text we only know the size of.
    chars_per_token: float = 4.0
    text_estimate_label: str = "estimate"
    correction: float = 1.0
    profile: Any = field(default=None, compare=False)
    medium_geometry: Geometry | None = None

    def with_correction(self, factor: float) -> Target:
        from dataclasses import replace

        return replace(self, correction=factor)

    def message_tokens(self, message: Message) -> int:
        text = sum(block_chars(b) for b in message.blocks)
        tokens = self.text_tokens_for_chars(message, text)
        for image in message.images():
            tokens += self.image_cost(image)
        return tokens

    def text_tokens_for_chars(self, message: Message, chars: int) -> int:
        if chars == 0:
            return 0
        from snapshot.ladder.serialize import serialize_message

        return round(self.text_tokens(serialize_message(message)) * self.correction)

    def image_cost(self, image: ImageBlock) -> int:
        if not self.vision:
            return 0
        if image.width and image.height:
            return self.image_tokens(image.width, image.height)
        # An image of unknown size: price it as a full page of the profile.
        if self.geometry is not None:
            return self.image_tokens(*self.geometry.size)
        return 0

    def tokens(self, messages: Sequence[Message]) -> int:
        return sum(self.message_tokens(m) for m in messages)


def _reference_chars_per_token(count: Callable[[str], int]) -> float:
    """Characters per token of the package's own demo text under an exact tokenizer."""
    from importlib import resources

    sample = resources.files("snapshot.demo").joinpath("session.txt").read_text(encoding="utf-8")
    return len(sample) / max(1, count(sample))


def target_for(model: str | Any, *, fallback: bool = False) -> Target:
    """The ladder's view of a model id (or an already resolved ``Profile``)."""
    from snapshot.billing.providers import text_tokenizer_for
    from snapshot.billing.text_tokens import count_text
    from snapshot.profiles import Profile, profile_for

    profile = model if isinstance(model, Profile) else profile_for(model, fallback=fallback)
    tokenizer = text_tokenizer_for(profile.canonical, profile.family)

    def text_tokens(text: str) -> int:
        return count_text(text, tokenizer).tokens

    exact = tokenizer.chars_per_token is None
    cpt = (
        _reference_chars_per_token(text_tokens)
        if tokenizer.chars_per_token is None
        else tokenizer.chars_per_token
    )
    geometry = profile.geometry() if profile.vision else None
    medium = None
    if geometry is not None:
        from snapshot.geometry import Geometry
        from snapshot.glyphs import load_font

        medium_font = load_font(MEDIUM_FONT)
        if medium_font.cell != geometry.font.cell:
            medium = Geometry.fit(medium_font, *geometry.size, padding=geometry.padding)
    max_pages = profile.max_pages_per_request() if profile.vision else 0
    return Target(
        model=profile.canonical,
        vision=profile.vision,
        geometry=geometry,
        max_images=max_pages if max_pages is not None else 10**6,
        max_image_bytes=profile.limits.max_image_bytes or 10**12,
        text_tokens=text_tokens,
        image_tokens=profile.image_tokens,
        chars_per_token=cpt,
        text_estimate_label="exact" if exact else "estimate",
        profile=profile,
        medium_geometry=medium,
    )


# Foveation draws the pages nearest the tail with the project's medium face.
MEDIUM_FONT = "snap8x16"
