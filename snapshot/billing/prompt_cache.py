"""What a prompt costs with the provider's prompt cache counted (modelled).

A prompt is a run of *segments* (tool definitions, system prompt, each history
item), each a digest and its tokens. The provider keeps what it was last sent:
the longest run of leading segments this prompt shares with the previous one
is read from the cache (``cache_read`` rate), the rest is written to it
(``cache_write``; a provider without a separate write price bills it as input)
or, past the client's last cache marker, billed as plain input. A prompt that
changes an early segment (an imaged prefix replacing a cached text prefix, or
the reverse) reads nothing after it: it pays for the break.

:func:`bill` prices one prompt given the previous one; :func:`horizon_bill`
adds the reads of the same prefix by the ``horizon`` requests expected after
it (a prompt written once is read on every later request while it stays the
prefix), so pages written once can beat text already cached.

Every figure here is *modelled*: the rule of the providers' documentation
(prefix caching, read/write rates from :mod:`snapshot.billing.prices`) applied to
the package's own counts, not a provider's ``usage``.

>>> rates = CacheRates(input=3.0, cache_read=0.3, cache_write=3.75, cached=True)
>>> text = [("tools", 12_000), ("system", 4_000), ("m1", 20_000), ("m2", 2_000)]
>>> warm = bill(text, ["tools", "system", "m1"], rates)
>>> warm.read, warm.written, round(warm.dollars, 4)
(36000, 2000, 0.0183)
>>> pages = [("tools'", 500), ("system'", 300), ("pages", 3_200), ("m1'", 400), ("m2", 2_000)]
>>> broke = bill(pages, ["tools", "system", "m1"], rates)
>>> broke.read, broke.written, round(broke.dollars, 4)
(0, 6400, 0.024)
>>> broke.dollars > warm.dollars  # the warm text prefix is cheaper this request
True
>>> horizon_bill(pages, ["tools", "system", "m1"], rates, 8) < horizon_bill(
...     text, ["tools", "system", "m1"], rates, 8)  # but not over the next 8 requests
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from snapshot.billing.prices import Price

__all__ = [
    "Bill",
    "CacheRates",
    "bill",
    "conversion_pays",
    "horizon_bill",
    "rates_of",
    "shared_prefix",
]

#: (digest, tokens) of one segment of a prompt, in the order the provider reads them.
Segment = tuple[str, int]


@dataclass(frozen=True)
class CacheRates:
    """Dollars per million prompt tokens: plain input, read from and written to the cache.

    ``cached`` False: this request is not cached at all (Anthropic caches only where
    the client placed a ``cache_control`` marker); every token is plain input.
    """

    input: float
    cache_read: float
    cache_write: float
    cached: bool = True


def rates_of(price: Price, prompt_tokens: int, *, cached: bool) -> CacheRates:
    """The cache rates a prompt of ``prompt_tokens`` pays at ``price`` (its long-context tier).

    A rate the database lacks is billed as input: OpenAI and Google charge no separate
    cache write, and a model with no cache-read price reads at the input rate.

    >>> from snapshot.billing.prices import price_for
    >>> r = rates_of(price_for("claude-sonnet-4-5"), 10_000, cached=True)
    >>> r.input, r.cache_read, r.cache_write
    (3.0, 0.3, 3.75)
    """
    rate = price.at(prompt_tokens)
    return CacheRates(
        input=rate.input,
        cache_read=rate.cache_read if rate.cache_read is not None else rate.input,
        cache_write=rate.cache_write if rate.cache_write is not None else rate.input,
        cached=cached,
    )


def shared_prefix(previous: Sequence[str], current: Sequence[str]) -> int:
    """How many leading segments two prompts share (by digest).

    >>> shared_prefix(["a", "b", "c"], ["a", "b", "x", "c"])
    2
    """
    n = 0
    for a, b in zip(previous, current, strict=False):
        if a != b:
            break
        n += 1
    return n


@dataclass(frozen=True)
class Bill:
    """One prompt's tokens by how they are billed, and its dollars (modelled)."""

    tokens: int
    read: int  # from the cache
    written: int  # to the cache
    uncached: int  # plain input
    dollars: float

    @property
    def prefix_share(self) -> float:
        """The share of the prompt's tokens read from the cache."""
        return self.read / self.tokens if self.tokens else 0.0


def bill(
    segments: Sequence[Segment],
    previous: Sequence[str] | None,
    rates: CacheRates,
    *,
    cached_through: int | None = None,
) -> Bill:
    """Price ``segments`` when the provider last saw ``previous`` (digests; None: nothing).

    ``cached_through``: the segments up to this index are cached (Anthropic: through
    the client's last ``cache_control`` marker); default all when ``rates.cached``.
    """
    tokens = sum(t for _, t in segments)
    if not rates.cached:
        return Bill(tokens, 0, 0, tokens, tokens * rates.input / 1e6)
    end = len(segments) if cached_through is None else min(cached_through, len(segments))
    shared = shared_prefix(previous or (), [d for d, _ in segments])
    shared = min(shared, end)
    read = sum(t for _, t in segments[:shared])
    written = sum(t for _, t in segments[shared:end])
    uncached = tokens - read - written
    dollars = (read * rates.cache_read + written * rates.cache_write + uncached * rates.input) / 1e6
    return Bill(tokens, read, written, uncached, dollars)


def horizon_bill(
    segments: Sequence[Segment],
    previous: Sequence[str] | None,
    rates: CacheRates,
    horizon: int,
    *,
    cached_through: int | None = None,
) -> float:
    """Dollars of this prompt and of ``horizon`` later reads of its cached prefix.

    The later requests are modelled as reading this prompt's cached part again
    (what they add after it costs the same either way, so it is left out).
    """
    now = bill(segments, previous, rates, cached_through=cached_through)
    if not rates.cached or horizon <= 0:
        return now.dollars
    cached = now.read + now.written
    return now.dollars + horizon * cached * rates.cache_read / 1e6


def conversion_pays(
    text: int,
    pages: int,
    suffix: int,
    rates: CacheRates | None,
    reads: int,
    *,
    cached: bool = True,
) -> bool:
    """Does replacing one cached prompt item of ``text`` tokens by ``pages`` tokens (its
    page images and exact-id line) pay over this request and ``reads`` later ones?

    Kept as text, the item is read from the cache on each of the ``reads + 1``
    requests (``cached`` False: it is not in the cache yet, so this request writes
    it and the ``reads`` later ones read it). Converted, its pages are written once and read ``reads`` times, and
    the ``suffix`` tokens after it, cached already, are written again once (the
    break, charged once). Without a price or a cache every request pays the item's
    tokens in full, so fewer tokens pay.

    >>> rates = CacheRates(input=3.0, cache_read=0.3, cache_write=3.75)
    >>> conversion_pays(3_000, 600, 400, rates, 8)  # 2,250 + 1,380 + 1,440 < 8,100
    True
    >>> conversion_pays(3_000, 600, 400, rates, 1)  # one later read does not repay the write
    False
    >>> conversion_pays(3_000, 600, 20_000, rates, 8)  # a long cached suffix to rewrite
    False
    >>> conversion_pays(3_000, 1_500, 0, rates, 8)  # half the tokens do not repay the write
    False
    >>> conversion_pays(3_000, 1_500, 0, rates, 8, cached=False)  # unless the text is new too
    True
    >>> conversion_pays(900, 600, 0, None, 0)
    True
    """
    if rates is None or not rates.cached:
        return pages < text
    if cached:
        keep = (reads + 1) * text * rates.cache_read
    else:
        keep = text * rates.cache_write + reads * text * rates.cache_read
    convert = (
        pages * rates.cache_write
        + suffix * (rates.cache_write - rates.cache_read)
        + reads * pages * rates.cache_read
    )
    return convert < keep
