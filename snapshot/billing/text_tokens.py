"""The text-side baseline: what the same text costs as text tokens, and the break-even.

OpenAI counts are exact and offline: ``quicktok`` bundles the ``o200k_base`` and
``cl100k_base`` BPE files (and ``qwen3``). Anthropic and Google publish no
offline tokenizer, so their counts are a documented characters-per-token
average, and every such number is marked ``exact=False`` and printed as an
estimate.

Break-even: text of C characters costs T text tokens; imaged it costs I image
tokens. Imaging saves money exactly when ``C/I > C/T``, i.e. when the pages pack
more characters per image token than the text packs per text token. So the
break-even density is the text's own ``C/T`` (characters per text token): a
page density below it loses money.

>>> from snapshot.billing.providers import text_tokenizer_for
>>> n = count_text("hello world", text_tokenizer_for("gpt-4o", "openai-tiles"))
>>> n.tokens, n.exact, n.method
(2, True, 'exact (o200k_base)')
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

from snapshot.billing.providers import TextTokenizer


@functools.lru_cache(maxsize=8)
def _encoding(name: str) -> Any:
    import quicktok  # imported lazily: only exact counts need it

    return quicktok.get_encoding(name)


@dataclass(frozen=True)
class TextCount:
    """Text tokens for one text: the count, whether it is exact, and how it was made."""

    chars: int
    tokens: int
    exact: bool
    method: str
    source: str

    @property
    def chars_per_token(self) -> float:
        """Characters per text token: the break-even page density for this text."""
        return self.chars / self.tokens if self.tokens else math.inf


def count_text(text: str, tokenizer: TextTokenizer) -> TextCount:
    """Count ``text``'s tokens with a family's tokenizer row.

    Special-token look-alikes (``<|endoftext|>``) count as ordinary text, as they
    would in a chat message.

    >>> from snapshot.billing.providers import text_tokenizer_for
    >>> n = count_text("x" * 34, text_tokenizer_for("claude-sonnet-4-5", "claude-standard"))
    >>> n.tokens, n.exact, n.method
    (10, False, 'estimate (3.4 chars/token)')
    """
    chars = len(text)
    if tokenizer.method == "exact" and tokenizer.encoding:
        tokens = int(_encoding(tokenizer.encoding).count(text))
        return TextCount(
            chars, tokens, True, f"exact ({tokenizer.encoding})", tokenizer.fact.cite()
        )
    cpt = tokenizer.chars_per_token
    if not cpt:
        raise ValueError(f"tokenizer row without encoding or chars_per_token: {tokenizer}")
    tokens = math.ceil(chars / cpt) if chars else 0
    return TextCount(chars, tokens, False, f"estimate ({cpt:g} chars/token)", tokenizer.fact.cite())


@dataclass(frozen=True)
class Comparison:
    """The same text as text tokens and as image tokens."""

    text: TextCount
    image_tokens: int
    pages: int
    chars_imaged: int

    @property
    def saved_tokens(self) -> int:
        """Text tokens minus image tokens (negative: imaging costs more)."""
        return self.text.tokens - self.image_tokens

    @property
    def saved_fraction(self) -> float:
        """Share of the text bill that imaging saves (negative: it costs more)."""
        return self.saved_tokens / self.text.tokens if self.text.tokens else 0.0

    @property
    def image_chars_per_token(self) -> float:
        """Characters per image token the pages achieve on this text."""
        return self.chars_imaged / self.image_tokens if self.image_tokens else math.inf

    @property
    def break_even(self) -> float:
        """Break-even density: characters per text token of this text.

        Pages packing fewer characters per image token than this lose money.
        """
        return self.text.chars_per_token

    @property
    def imaging_pays(self) -> bool:
        return self.image_tokens < self.text.tokens


def compare(
    text_count: TextCount, *, pages: int, tokens_per_page: int, chars_imaged: int
) -> Comparison:
    """Text tokens against the image tokens of ``pages`` pages.

    >>> from snapshot.billing.providers import text_tokenizer_for
    >>> t = count_text("x" * 3400, text_tokenizer_for("claude-sonnet-4-5", "claude-standard"))
    >>> c = compare(t, pages=1, tokens_per_page=400, chars_imaged=3400)
    >>> c.saved_tokens, c.imaging_pays, round(c.break_even, 1)
    (600, True, 3.4)
    """
    return Comparison(text_count, pages * tokens_per_page, pages, chars_imaged)


__all__ = ["Comparison", "TextCount", "compare", "count_text"]
