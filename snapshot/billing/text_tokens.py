"""The text-side baseline: what a text costs as text tokens, and the break-even density.

Three kinds of count, each labelled in every output:

- ``exact``: OpenAI (``o200k_base`` / ``cl100k_base``, bundled by ``quicktok``), Qwen.
  One known edge: quicktok splits words by Unicode 17's letters, tiktoken by Unicode
  16's, so a letter new in Unicode 17 (CJK Extension J, from U+323B0) next to
  punctuation can count one token fewer here (``"\\U000323b0:A"``: 5, tiktoken 6).
- ``reconstruction``: Claude, by ``ctok`` (an offline reconstruction of Claude's
  ``count_tokens``, MIT, data in its wheel; families v3 / v4.7 / v4.8). The count
  is of the text itself: ctok's per-message frame is not included.
- ``estimate``: a documented characters-per-token average (Gemini, Grok, Mistral,
  and Claude when ctok is not installed).

:func:`count_text` is the one counter; ``snapshot.profiles.count_text_tokens``
picks the row for a model and calls it, and every command goes through that.

Break-even: text of C characters costs T text tokens; imaged it costs I image
tokens. Imaging saves exactly when ``C/I > C/T``, so the break-even density is
the text's own ``C/T`` (characters per text token).

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

from snapshot.billing import _text
from snapshot.billing.rows import TextMethod, TextTokenizer


@functools.lru_cache(maxsize=8)
def _encoding(name: str) -> Any:
    import quicktok  # imported lazily: only exact counts need it

    return quicktok.get_encoding(name)


@functools.lru_cache(maxsize=1)
def ctok_available() -> bool:
    """Whether ``ctok`` is importable (it is installed with ``--ignore-requires-python``)."""
    try:
        import ctok  # noqa: F401
    except ImportError:
        return False
    return True


@functools.lru_cache(maxsize=8)
def _ctok_overhead(version: str) -> int:
    import ctok

    return int(ctok.token_count("", version)) - _ctok_empty_content(version)


def _ctok_empty_content(version: str) -> int:
    # ctok renders an empty message as its frame plus (in some families) one ⟨bow⟩
    # token that absorbs a leading space; that token belongs to the text, not the frame.
    import ctok

    return sum(1 for t in ctok.tokenize("", version) if t != "⟨pad⟩")


@functools.lru_cache(maxsize=65536)
def _ctok_count(text: str, version: str) -> int:
    if not text:
        return 0
    from snapshot.billing.ctok_lines import content_tokens

    # Line by line where that is provably ctok's own count; the whole text otherwise.
    tiles = content_tokens(text, version)
    if tiles is None:
        import ctok

        tiles = int(ctok.token_count(text, version)) - _ctok_overhead(version)
    return max(0, tiles)


def resolve_tokenizer(tokenizer: TextTokenizer) -> TextTokenizer:
    """The row actually used: a ctok row becomes its labelled estimate without ctok.

    >>> resolve_tokenizer(_text.O200K) is _text.O200K
    True
    """
    if tokenizer.ctok_version is not None and not ctok_available():
        return _text.CTOK_FALLBACK[tokenizer.ctok_version]
    return tokenizer


@dataclass(frozen=True)
class TextCount:
    """Text tokens for one text: the count, what kind of count it is, and how it was made."""

    chars: int
    tokens: int
    kind: TextMethod
    method: str
    source: str

    @property
    def exact(self) -> bool:
        """True only for an exact tokenizer (a reconstruction is not exact)."""
        return self.kind == "exact"

    @property
    def chars_per_token(self) -> float:
        """Characters per text token: the break-even page density for this text."""
        return self.chars / self.tokens if self.tokens else math.inf


def count_text(text: str, tokenizer: TextTokenizer) -> TextCount:
    """Count ``text``'s tokens with a tokenizer row (the package's one text counter).

    Special-token look-alikes (``<|endoftext|>``) count as ordinary text, as they
    would in a chat message.

    >>> from snapshot.billing.providers import text_tokenizer_for
    >>> n = count_text("x" * 40, text_tokenizer_for("gemini-3.6-flash", "gemini-3-flash"))
    >>> n.tokens, n.kind, n.method
    (10, 'estimate', 'estimate (4 chars/token)')
    """
    row = resolve_tokenizer(tokenizer)
    chars = len(text)
    if row.method == "exact" and row.encoding:
        tokens = int(_encoding(row.encoding).count(text)) if text else 0
        return TextCount(chars, tokens, "exact", f"exact ({row.encoding})", row.fact.cite())
    if row.method == "reconstruction" and row.ctok_version:
        tokens = _ctok_count(text, row.ctok_version)
        return TextCount(
            chars,
            tokens,
            "reconstruction",
            f"reconstruction (ctok v{row.ctok_version})",
            row.fact.cite(),
        )
    cpt = row.chars_per_token
    if not cpt:
        raise ValueError(f"tokenizer row without encoding, ctok version or chars_per_token: {row}")
    tokens = math.ceil(chars / cpt)
    return TextCount(chars, tokens, "estimate", f"estimate ({cpt:g} chars/token)", row.fact.cite())


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
        """Break-even density: characters per text token of this text."""
        return self.text.chars_per_token

    @property
    def imaging_pays(self) -> bool:
        return self.image_tokens < self.text.tokens


def compare(
    text_count: TextCount, *, pages: int, tokens_per_page: int, chars_imaged: int
) -> Comparison:
    """Text tokens against the image tokens of ``pages`` pages.

    >>> from snapshot.billing.providers import text_tokenizer_for
    >>> t = count_text("x" * 4000, text_tokenizer_for("gemini-3.6-flash", "gemini-3-flash"))
    >>> c = compare(t, pages=1, tokens_per_page=400, chars_imaged=4000)
    >>> c.saved_tokens, c.imaging_pays, round(c.break_even, 1)
    (600, True, 4.0)
    """
    return Comparison(text_count, pages * tokens_per_page, pages, chars_imaged)


__all__ = [
    "Comparison",
    "TextCount",
    "compare",
    "count_text",
    "ctok_available",
    "resolve_tokenizer",
]
