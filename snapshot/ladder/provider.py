"""A simulated provider: an offline stand-in that counts tokens by its own exact rule.

Real providers count a request with their own tokenizer and reject it when it
is over the context window, even when the client's estimate said it fit. This
stand-in does the same offline, so reactive recovery can be tested without a
network: it counts text exactly with the ``o200k_base`` BPE (bundled), adds a
per-message framing overhead, and bills images by the profile's own rule. Every
record it produces says it is simulated.

>>> from snapshot.transcript.model import linear, TextBlock
>>> provider = SimulatedProvider(limit=5)
>>> provider(linear("c", [("u", "user", [TextBlock("hello there, how are you today?")])]).path()).counted > 5
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from snapshot.ladder.ladder import Rejection
from snapshot.ladder.serialize import serialize_message
from snapshot.transcript.model import Message

NAME = "simulated provider (offline stand-in, o200k_base count)"

# Chat framing per message: OpenAI documents 3 tokens per message plus 3 to prime the reply.
MESSAGE_OVERHEAD = 3
REPLY_PRIMING = 3


def _o200k(text: str) -> int:
    from snapshot.billing.providers import text_tokenizer_for
    from snapshot.billing.text_tokens import count_text

    return count_text(text, text_tokenizer_for("gpt-4o", "openai-tiles")).tokens


@dataclass(frozen=True)
class SimulatedProvider:
    limit: int
    image_tokens: Callable[[int, int], int] = lambda w, h: 0
    text_tokens: Callable[[str], int] = _o200k
    name: str = NAME

    def count(self, messages: Sequence[Message]) -> int:
        total = REPLY_PRIMING
        for m in messages:
            total += MESSAGE_OVERHEAD + self.text_tokens(serialize_message(m))
            for img in m.images():
                if img.width and img.height:
                    total += self.image_tokens(img.width, img.height)
        return total

    def __call__(self, messages: Sequence[Message]) -> Rejection | None:
        counted = self.count(messages)
        if counted <= self.limit:
            return None
        return Rejection(
            counted=counted,
            limit=self.limit,
            message=f"{self.name}: prompt is too long: {counted} tokens > {self.limit} maximum",
        )
