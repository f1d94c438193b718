"""What a conversation's path costs a model, by kind, and the per-message estimate for trimming.

Both use the one counter of :mod:`snapshot.ladder.target` (exact, reconstruction
or estimate, as the model's profile says) and the model's image billing; the
CLI (``snapshot context``, ``snapshot resume``) only prints them.

>>> from snapshot.transcript.model import linear, TextBlock
>>> conv = linear("c", [("u1", "user", [TextBlock("hello " * 40)]),
...                     ("a1", "assistant", [TextBlock("hi")])])
>>> use = context_use(conv, "claude-sonnet-5-5")
>>> use.messages, use.chars["user"], use.images
(2, 240, ())
>>> use.text_tokens["user"] + use.text_tokens["assistant"] == use.counted.text
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from snapshot.billing.providers import ContextWindow
from snapshot.ladder.target import ContextTokens, split_by_chars, target_for
from snapshot.transcript.model import Conversation, Message


@dataclass(frozen=True)
class ImageUse:
    """One image on the path: where it sits, its bytes, its size and its bill (None: unknown)."""

    kind: str
    nbytes: int
    size: tuple[int, int] | None
    billed: int | None


@dataclass(frozen=True)
class ImageGroup:
    """The images sitting in one kind of message: how many, their bytes, sizes and bill.

    ``sizes``: (width and height, or None when unknown; how many), in the order
    first seen. ``billed``: the tokens of those whose size is known;
    ``unknown``: how many are not priced for want of a size.
    """

    kind: str
    count: int
    nbytes: int
    sizes: tuple[tuple[tuple[int, int] | None, int], ...]
    billed: int
    unknown: int


@dataclass(frozen=True)
class ContextUse:
    """A path's tokens for one model: text by kind (split by characters) and every image.

    ``chars`` and ``text_tokens`` are keyed by
    :data:`~snapshot.transcript.tree.CONTEXT_KINDS`, in that order.
    """

    model: str
    messages: int
    counted: ContextTokens
    chars: dict[str, int]
    text_tokens: dict[str, int]
    images: tuple[ImageUse, ...]
    vision: bool
    # The model's context window (None: no source states it) and the share in use.
    window: ContextWindow | None = None

    @property
    def window_share(self) -> float | None:
        """Share of the context window the path uses (None without a window).

        >>> from snapshot.profiles import context_window
        >>> use = ContextUse("claude-sonnet-4-6", 1, ContextTokens(250_000, 0, "exact"), {}, {},
        ...                  (), True, context_window("claude-sonnet-4-6"))
        >>> use.window_share
        0.25
        """
        if self.window is None:
            return None
        return self.counted.total / self.window.tokens

    @property
    def billed_images(self) -> int:
        return sum(i.billed for i in self.images if i.billed is not None)

    @property
    def grand_total(self) -> int:
        """Text tokens plus the images whose bill is known (the shares' denominator)."""
        return sum(self.text_tokens.values()) + self.billed_images

    def image_groups(self) -> tuple[ImageGroup, ...]:
        """The images by the kind they sit in, kinds in the order first seen.

        >>> use = ContextUse("m", 1, ContextTokens(10, 0, "exact"), {}, {}, (
        ...     ImageUse("user", 100, (8, 8), 4), ImageUse("tool results", 5, None, None),
        ...     ImageUse("user", 50, (8, 8), 4)), True)
        >>> [(g.kind, g.count, g.nbytes, g.sizes, g.billed, g.unknown) for g in use.image_groups()]
        [('user', 2, 150, (((8, 8), 2),), 8, 0), ('tool results', 1, 5, ((None, 1),), 0, 1)]
        """
        by_kind: dict[str, list[ImageUse]] = {}
        for img in self.images:
            by_kind.setdefault(img.kind, []).append(img)
        groups = []
        for kind, rows in by_kind.items():
            sizes: dict[tuple[int, int] | None, int] = {}
            for r in rows:
                sizes[r.size] = sizes.get(r.size, 0) + 1
            groups.append(
                ImageGroup(
                    kind,
                    len(rows),
                    sum(r.nbytes for r in rows),
                    tuple(sizes.items()),
                    sum(r.billed or 0 for r in rows),
                    sum(1 for r in rows if r.size is None),
                )
            )
        return tuple(groups)

    def record(self, conversation: str) -> dict[str, Any]:
        """The ``snapshot context --json`` document: totals, counter, the model's lifecycle.

        >>> from snapshot.transcript.model import linear, TextBlock
        >>> conv = linear("c", [("u1", "user", [TextBlock("hello " * 40)])])
        >>> doc = context_use(conv, "claude-sonnet-5-5").record("c/main")
        >>> doc["conversation"], doc["messages"], doc["image_tokens"], doc["model"]
        ('c/main', 1, 0, 'claude-sonnet-5-5')
        >>> doc["total_tokens"] == doc["text_tokens"] > 0, "status" in doc
        (True, True)
        """
        from snapshot import profiles

        counted = self.counted
        return {
            "total_tokens": counted.total,
            "text_tokens": counted.text,
            "image_tokens": counted.images,
            "text_counter": counted.counter,
            "model": self.model,
            "conversation": conversation,
            "messages": self.messages,
            "context_window": None
            if self.window is None
            else {
                "tokens": self.window.tokens,
                "source": self.window.source,
                "date": self.window.date,
            },
            "window_share": self.window_share,
            **profiles.profile_for(self.model).lifecycle_record(),
        }


def context_use(conv: Conversation, model: str) -> ContextUse:
    """The tokens ``model`` is billed for ``conv``'s path, by kind.

    Raises
    ------
    UnknownModelError
        When no profile knows ``model``.
    """
    from snapshot import profiles
    from snapshot.transcript.images import image_roots, image_size
    from snapshot.transcript.tree import CONTEXT_KINDS, context_share

    profile = profiles.profile_for(model)
    path = conv.path() if conv.tip is not None else ()
    share = context_share(path)
    reader = target_for(profile)
    counted = reader.context_tokens(path)
    text_tokens = split_by_chars(counted.text, {k: share.chars[k] for k in CONTEXT_KINDS})
    roots = image_roots(conv)
    images: list[ImageUse] = []
    for kind, img in share.images:
        size = image_size(img, roots)
        billed: int | None = None
        if size is not None:
            billed = int(profiles.image_tokens(profile, *size)) if profile.vision else 0
        images.append(ImageUse(kind, img.size, size, billed))
    return ContextUse(
        model,
        len(path),
        counted,
        dict(share.chars),
        text_tokens,
        tuple(images),
        profile.vision,
        profiles.context_window(model),
    )


def message_estimator(
    conv: Conversation, model: str | None
) -> tuple[Callable[[Message], int], str]:
    """Tokens per message for trimming ``conv`` (``snapshot resume``), and words saying how.

    Without a model: characters / 4 and a fixed estimate per image. With one:
    the model's text counter, and its image bill for images of known size.

    >>> from snapshot.transcript.model import linear, TextBlock
    >>> conv = linear("c", [("u1", "user", [TextBlock("x" * 40)])])
    >>> estimate, how = message_estimator(conv, None)
    >>> estimate(conv.messages[0]), how
    (10, 'chars/4, 1200 an image')
    """
    from snapshot.transcript.tree import IMAGE_TOKEN_ESTIMATE, estimate_tokens

    if model is None:
        return estimate_tokens, f"chars/4, {IMAGE_TOKEN_ESTIMATE} an image"
    from snapshot import profiles
    from snapshot.transcript.images import image_roots, image_size

    profile = profiles.profile_for(model)
    reader = target_for(profile)
    roots = image_roots(conv)

    def estimate(m: Message) -> int:
        tokens = reader.text_tokens_for_chars(m, m.chars())
        if profile.vision:
            for img in m.images():
                size = image_size(img, roots)
                tokens += (
                    int(profiles.image_tokens(profile, *size)) if size else IMAGE_TOKEN_ESTIMATE
                )
        return tokens

    seen = f"images per the {model} profile" if profile.vision else f"{model} drops images"
    return estimate, f"text {reader.text_counter}, {seen}"
