"""The ledger's counterfactual: each request as sent and as the client's text would have cost.

Counted offline, never by an extra upstream call: both bodies are cut into the
segments the provider's prompt cache reads (:mod:`snapshot.proxy.segments`,
the model's own counter) and priced with the cache counted
(:mod:`snapshot.billing.prompt_cache`): the body sent against the body sent
before it in this conversation, the client's body against the client's body
before it (a client talking straight to the provider would have had that
cache). The record's ``cache_prefix_share`` is the share of the sent prompt's
tokens the provider can read from its cache (modelled); the measured one is in
the reply's ``usage`` beside it.

>>> from snapshot.ladder.target import target_for
>>> book = Counterfactual()
>>> body = {"model": "claude-opus-5", "messages": [{"role": "user", "content": "hello " * 50}]}
>>> rec = book.record(("c", "main"), "anthropic", target_for("claude-opus-5"), body, body)
>>> rec["sent"]["tokens"] == rec["client_text"]["tokens"], rec["label"]["dollars"]
(True, 'modelled')
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from snapshot.billing.prompt_cache import Bill, CacheRates, bill, rates_of
from snapshot.ladder.target import Target
from snapshot.proxy.segments import Counts, Cut, Memo, segments

__all__ = ["Counterfactual", "Previous"]

#: Conversations whose last request the book keeps (the least recent dropped first).
MAX_CONVERSATIONS = 500


@dataclass(frozen=True)
class Previous:
    """What the provider last saw of a conversation: the sent body's and the client's
    segments (digests), and how many requests the conversation has had."""

    sent: tuple[str, ...]
    client: tuple[str, ...]
    requests: int


class Counterfactual:
    """The previous request per conversation, and the bills of the next one."""

    def __init__(self, counts: Counts | None = None) -> None:
        self.counts = counts or Counts()
        self._previous: OrderedDict[tuple[str, str], Previous] = OrderedDict()
        self._lock = threading.Lock()

    def previous(self, key: tuple[str, str]) -> Previous | None:
        with self._lock:
            return self._previous.get(key)

    def cut(self, body: dict[str, Any], api: str, target: Target, memo: Memo | None = None) -> Cut:
        """``body``'s segments (:func:`~snapshot.proxy.segments.segments`)."""
        return segments(body, api, target, self.counts, memo)

    @staticmethod
    def rates(target: Target, cut: Cut) -> CacheRates | None:
        """The cache rates of ``cut`` for ``target`` (None: no price for the model)."""
        if target.price is None:
            return None
        return rates_of(target.price, cut.tokens, cached=cut.cached_through is not None)

    def record(
        self,
        key: tuple[str, str],
        api: str,
        target: Target,
        client: dict[str, Any],
        sent: dict[str, Any],
        *,
        client_cut: Cut | None = None,
        sent_cut: Cut | None = None,
    ) -> dict[str, Any]:
        """The ledger's ``counterfactual`` for this request; remembers it as the previous."""
        client_cut = client_cut or self.cut(client, api, target)
        sent_cut = (
            sent_cut
            if sent_cut is not None
            else (client_cut if sent is client else self.cut(sent, api, target))
        )
        before = self.previous(key)
        with self._lock:
            self._previous[key] = Previous(
                sent_cut.digests, client_cut.digests, (before.requests if before else 0) + 1
            )
            self._previous.move_to_end(key)
            while len(self._previous) > MAX_CONVERSATIONS:
                self._previous.popitem(last=False)
        as_sent = _priced(sent_cut, before.sent if before else None, target)
        as_text = _priced(client_cut, before.client if before else None, target)
        return {
            "sent": as_sent,
            "client_text": as_text,
            "tokens_saved": client_cut.tokens - sent_cut.tokens,
            "dollars_saved": None
            if as_sent["dollars"] is None or as_text["dollars"] is None
            else round(as_text["dollars"] - as_sent["dollars"], 9),
            # The page and LEDGER.md read the client's text dollars here.
            "dollars": {"total": as_text["dollars"]} if as_text["dollars"] is not None else None,
            "cache_prefix_share": as_sent["cache_prefix_share"],
            "label": {
                "tokens": _label(target.text_counter),
                "dollars": "modelled",
                "cache": "modelled: prefix caching against the previous request",
            },
        }


def _label(counter: str) -> str:
    return {"exact": "exact", "reconstruction": "reconstructed"}.get(counter, "estimated")


def _priced(cut: Cut, previous: tuple[str, ...] | None, target: Target) -> dict[str, Any]:
    rates = Counterfactual.rates(target, cut)
    if rates is None:
        shown = bill(cut.parts, previous, CacheRates(0.0, 0.0, 0.0, cut.cached_through is not None))
        dollars = None
    else:
        shown = bill(cut.parts, previous, rates, cached_through=cut.cached_through)
        dollars = round(shown.dollars, 9)
    return _bill_record(shown, dollars)


def _bill_record(b: Bill, dollars: float | None) -> dict[str, Any]:
    return {
        "tokens": b.tokens,
        "cache_read": b.read,
        "cache_write": b.written,
        "uncached": b.uncached,
        "dollars": dollars,
        "cache_prefix_share": round(b.prefix_share, 4),
    }
