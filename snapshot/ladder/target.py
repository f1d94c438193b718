"""The reader: one model as every command sees it (profile + text counter + prices).

:class:`Target` is the package's one reader concept: the provider profile
(scheme, limits, page), the text-token counter (``snapshot.profiles.count_text_tokens``:
exact, reconstruction or estimate) and the price (genai-prices, by the id as
given). The ladder, ``compact``, ``context`` and the report all count through it,
so they give one count for one conversation. The ladder never reads provider
tables itself: :func:`target_for` asks ``snapshot.profiles`` once.

>>> t = target_for("gpt-4o")
>>> t.text_tokens("hello world"), t.text_counter, t.price.matched_model
(2, 'exact', 'gpt-4o')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from snapshot.rendering.geometry import Geometry
from snapshot.transcript.model import ImageBlock, Message, block_chars

#: Per-message counts a target keeps before it starts over, and the characters of the
#: messages they keep alive (a spilled conversation's messages are parsed anew on each
#: read: the memory stays bounded by these, not by the conversation).
COUNTED_MESSAGES = 50_000
COUNTED_CHARS = 16_000_000


class _Counted:
    """A target's per-message counts (mutable inside the frozen :class:`Target`)."""

    def __init__(self) -> None:
        self.by_id: dict[int, tuple[Message, int]] = {}
        self.chars = 0

    def clear(self) -> None:
        self.by_id.clear()
        self.chars = 0


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
    # The request's byte budget: the sheet rung checks its pages' actual base64 sizes.
    max_request_bytes: int = 10**12
    text_estimate_label: str = "estimate"
    correction: float = 1.0
    profile: Any = field(default=None, compare=False)
    # The price of the id as given (snapshot.billing.prices.Price), None = "no price".
    price: Any = field(default=None, compare=False)
    # Each message counted so far, by identity: a conversation's rungs and report rows
    # count the same messages again and again. The message is kept beside its count,
    # so its id cannot be reused while the entry stands.
    _counted: _Counted = field(default_factory=_Counted, init=False, compare=False, repr=False)

    @property
    def text_counter(self) -> str:
        """``exact``, ``reconstruction`` or ``estimate``: what made the text counts."""
        return self.text_estimate_label

    def with_correction(self, factor: float) -> Target:
        from dataclasses import replace

        return replace(self, correction=factor)

    def message_tokens(self, message: Message) -> int:
        kept = self._counted
        counted = kept.by_id.get(id(message))
        if counted is not None and counted[0] is message:
            return counted[1]
        text = sum(block_chars(b) for b in message.blocks)
        tokens = self.text_tokens_for_chars(message, text)
        for image in message.images():
            tokens += self.image_cost(image)
        if len(kept.by_id) >= COUNTED_MESSAGES or kept.chars + text > COUNTED_CHARS:
            kept.clear()
        kept.by_id[id(message)] = (message, tokens)
        kept.chars += text
        return tokens

    def forget_counts(self) -> None:
        """Drop the kept per-message counts (and the messages they keep alive).

        >>> from snapshot.transcript.model import Message, TextBlock
        >>> t = target_for("gpt-4o")
        >>> m = Message("m1", None, "user", (TextBlock("hello world"),))
        >>> t.message_tokens(m) == t.message_tokens(m) and len(t._counted.by_id)
        1
        >>> t.forget_counts(); len(t._counted.by_id)
        0
        """
        self._counted.clear()

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

    def context_tokens(self, messages: Sequence[Message]) -> ContextTokens:
        """Tokens of a path split into text and images, with the same total as :meth:`tokens`."""
        text = sum(
            self.text_tokens_for_chars(m, sum(block_chars(b) for b in m.blocks)) for m in messages
        )
        images = sum(self.image_cost(i) for m in messages for i in m.images())
        return ContextTokens(text, images, self.text_counter)


def split_by_chars(total: int, chars: Mapping[str, int]) -> dict[str, int]:
    """Share ``total`` tokens out in proportion to characters, summing exactly to ``total``.

    >>> split_by_chars(10, {"user": 30, "assistant": 70})
    {'user': 3, 'assistant': 7}
    """
    whole = sum(chars.values())
    if whole == 0:
        return dict.fromkeys(chars, 0)
    exact = {k: total * c / whole for k, c in chars.items()}
    out = {k: int(v) for k, v in exact.items()}
    for k in sorted(exact, key=lambda k: exact[k] - out[k], reverse=True)[
        : total - sum(out.values())
    ]:
        out[k] += 1
    return out


@dataclass(frozen=True)
class ContextTokens:
    """A path's tokens: text (by the reader's counter), images, and what counted the text."""

    text: int
    images: int
    counter: str

    @property
    def total(self) -> int:
        return self.text + self.images


def _reference_chars_per_token(count: Callable[[str], int]) -> float:
    """Characters per token of the package's own demo text under an exact tokenizer."""
    from importlib import resources

    sample = resources.files("snapshot.demo").joinpath("session.txt").read_text(encoding="utf-8")
    return len(sample) / max(1, count(sample))


def target_for(model: str | Any, *, fallback: bool = False) -> Target:
    """The reader for a model id (or an already resolved ``Profile``).

    ``fallback``: an unknown id gets the conservative profile instead of an
    :class:`~snapshot.errors.UnknownModelError` (:func:`snapshot.profiles.profile_for`).

    >>> from snapshot.transcript.model import TextBlock, linear
    >>> t = target_for("claude-opus-5")
    >>> t.model, t.vision, t.geometry.size, t.text_counter
    ('claude-opus-5', True, (1540, 1540), 'reconstruction')
    >>> t.tokens(linear("c", [("m1", "user", [TextBlock("hello world")])]).path()) > 0
    True
    """
    from snapshot.billing.text_tokens import resolve_tokenizer
    from snapshot.profiles import Profile, count_text_tokens, profile_for

    profile = model if isinstance(model, Profile) else profile_for(model, fallback=fallback)
    tokenizer = resolve_tokenizer(profile.text_tokenizer)

    def text_tokens(text: str) -> int:
        return count_text_tokens(profile, text).tokens

    cpt = (
        _reference_chars_per_token(text_tokens)
        if tokenizer.chars_per_token is None
        else tokenizer.chars_per_token
    )
    geometry = profile.geometry() if profile.vision else None
    # Pages are counted against the image cap here and against the request's byte budget by
    # their actual sizes in the sheet rung (a worst-case page bound would cap a gray page at
    # a sixth of what fits).
    max_pages = profile.limits.max_images if profile.vision else 0
    return Target(
        model=profile.canonical,
        vision=profile.vision,
        geometry=geometry,
        max_images=max_pages if max_pages is not None else 10**6,
        max_image_bytes=profile.limits.max_image_bytes or 10**12,
        max_request_bytes=profile.limits.max_request_bytes or 10**12,
        text_tokens=text_tokens,
        image_tokens=profile.image_tokens,
        chars_per_token=cpt,
        text_estimate_label=tokenizer.method,
        profile=profile,
        price=profile.price(),
    )
