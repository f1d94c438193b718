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
        return 1600

    def tokens(self, messages: Sequence[Message]) -> int:
        return sum(self.message_tokens(m) for m in messages)
