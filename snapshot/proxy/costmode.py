"""``snapshot proxy --mode cost``: pages on every request where the bill says they pay.

A feature hooked on the request (mitmproxy-style): the proxy's window planner
runs first (at the wall it wins, as in ``--mode window``); below it,
:meth:`CostMode.plan` builds the candidates its policy allows and sends the
cheapest:

- the client's text, as it came;
- ``inplace`` (Anthropic Messages, both policies): each tool result drawn in
  its own ``tool_result`` block, once, where the billing model says it pays
  (per result, its cache break charged once: ``safe`` once a turn has answered
  it, ``full`` as it arrives, its text never cached), and repeated byte for
  byte on every later request, so the cached prefix only grows
  (:mod:`snapshot.proxy.inplace`). Those decisions stand: with results drawn,
  the choice is only whether the system/tool pages go on top;
- ``history`` (the other APIs): older, closed history on pages: a pass of the
  proxy's planner with the snapshot rung only (no elision, no dense layout),
  its pages appended and never redrawn while their span is unchanged, the
  newest turns and open tool calls verbatim (:mod:`snapshot.ladder.sheets`);
- ``prefix``: the system prompt's long text and the tool descriptions on pages
  (``full`` only, Anthropic Messages: :mod:`snapshot.proxy.prefix_pages`);
- both (``prefix+inplace``, ``prefix+history``).

Each is priced by the package's billing model with the prompt cache counted
(:mod:`snapshot.billing.prompt_cache`): against what this conversation sent
last (a candidate that breaks the cached prefix reads nothing after the break
and pays to write it again), plus the reads of its cached prefix by the
:func:`horizon` requests expected after it (a conversation that has had *n*
requests is expected to have about as many more, capped at :data:`HORIZON`).
Text wins ties. Pages are drawn only for a model whose evidence supports
them (:mod:`snapshot.profiles.cost_policy`); others pass through, saying why.

The ledger record's ``cost_mode`` names the policy and why, the candidates'
modelled dollars and the choice; ``counterfactual``
(:mod:`snapshot.proxy.counterfactual`) is the request as sent and as the
client's text would have cost, and the cache-prefix share.

>>> horizon(1), horizon(5), horizon(100)
(0, 4, 8)
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from snapshot.billing.prompt_cache import conversion_pays, horizon_bill
from snapshot.errors import InputError, SnapshotError
from snapshot.ladder.target import Target
from snapshot.profiles.cost_policy import POLICIES, CostPolicy, Policy, cost_policy
from snapshot.proxy.counterfactual import Counterfactual
from snapshot.proxy.evidence import BAND_ONLY
from snapshot.proxy.inplace import AGE, Drawn, InPlace, InPlaced
from snapshot.proxy.planner import Planner, RequestPlan
from snapshot.proxy.prefix_pages import Imaged, PrefixImager
from snapshot.proxy.recovery import LearnedLimits
from snapshot.proxy.segments import Cut, Memo
from snapshot.proxy.shapes import Shape

__all__ = ["GROW", "HORIZON", "MODES", "CostMode", "horizon"]

MODES = ("cost", "window", "off")
#: Later requests a candidate's cached prefix is counted as read by, at most.
HORIZON = 8
#: Tokens the client's text may grow by after a history pass before a new pass appends
#: pages for it (meanwhile the pass is reused byte for byte and the newer turns stay text).
GROW = 16_000
#: The exact-id index beside history pages may cost up to the imaged text's own tokens:
#: every id on the pages is also text wherever that is not more than the text itself.
EXACT_IDS_SHARE = 1.0
#: Canary records of one layout that, none of them enough to call it readable, keep the
#: model at ``safe`` (the record unit of snapshot.proxy.evidence: four all passing is readable).
ENOUGH_CANARIES = 4
#: A history under this many tokens is not worth a pass (fewer than a page or two).
MIN_HISTORY = 4_000


class _Spliced:
    """``json.dumps(body, ensure_ascii=False)`` with the blocks the package drew (the same
    objects request after request) written from JSON kept from an earlier request: their
    base64 was ~90 % of a recorded session's bodies, ~4 ms a request to escape again.

    >>> parts = [[{"type": "image", "source": {"data": "iVBOR" * 9}}]]
    >>> body = {"messages": [{"role": "user", "content": [{"type": "tool_result",
    ...     "tool_use_id": "t", "content": parts[0]}]}]}
    >>> _Spliced().encode(body, parts) == json.dumps(body, ensure_ascii=False).encode()
    True
    """

    _MARK = "\0snapshot-json-{}"
    _FOUND = re.compile(r'"\\u0000snapshot-json-(\d+)"')

    def __init__(self, size: int = 8192) -> None:
        self._json: dict[int, tuple[Any, str]] = {}
        self._size = size
        self._lock = threading.Lock()

    def _of(self, part: Any) -> str:
        with self._lock:
            found = self._json.get(id(part))
        if found is not None and found[0] is part:
            return found[1]
        text = json.dumps(part, ensure_ascii=False)
        with self._lock:
            if len(self._json) > self._size:
                self._json.clear()
            self._json[id(part)] = (part, text)  # the object kept: its id cannot be reused
        return text

    def encode(self, body: dict[str, Any], parts: list[Any]) -> bytes:
        """``body`` as JSON bytes; ``parts``: items, or blocks' ``content`` lists, in its
        ``messages`` to write from their kept JSON."""
        known = {id(p) for p in parts}
        pieces: list[str] = []

        def mark(part: Any) -> str:
            pieces.append(self._of(part))
            return self._MARK.format(len(pieces) - 1)

        items = body.get("messages")
        if not known or not isinstance(items, list):
            return json.dumps(body, ensure_ascii=False).encode("utf-8")
        out: list[Any] = []
        for item in items:
            if id(item) in known:
                out.append(mark(item))
                continue
            content = item.get("content") if isinstance(item, dict) else None
            if not isinstance(content, list) or not any(
                isinstance(b, dict) and id(b.get("content")) in known for b in content
            ):
                out.append(item)
                continue
            blocks = [
                {k: (mark(v) if k == "content" else v) for k, v in b.items()}
                if isinstance(b, dict) and id(b.get("content")) in known
                else b
                for b in content
            ]
            out.append({k: (blocks if k == "content" else v) for k, v in item.items()})
        text = json.dumps({**body, "messages": out}, ensure_ascii=False)
        spliced, n = self._FOUND.subn(lambda m: pieces[int(m.group(1))], text)
        if n != len(pieces):  # a client string that looks like a mark: no shortcut
            return json.dumps(body, ensure_ascii=False).encode("utf-8")
        return spliced.encode("utf-8")


def horizon(requests: int) -> int:
    """Later requests expected to read a prefix, for the ``requests``-th of a conversation."""
    return max(0, min(requests - 1, HORIZON))


@dataclass(frozen=True)
class _Candidate:
    name: str
    body: dict[str, Any]
    cut: Cut
    history: RequestPlan | None = None
    prefix: Imaged | None = None
    inplace: InPlaced | None = None


class CostMode:
    """Plans ``--mode cost`` requests for many conversations (thread-safe)."""

    def __init__(
        self,
        book: Counterfactual,
        *,
        policy: str | None = None,
        limits: LearnedLimits | None = None,
        upstream: str = "",
        window: int | None = None,
        evidence: Path | None = None,
    ) -> None:
        if policy is not None and policy not in POLICIES:
            raise InputError(f"--policy {policy!r}: expected one of {', '.join(POLICIES)}")
        self.book = book
        self.forced = policy
        # The user's own canary records (--canary), judged on top of the profile's evidence.
        self.evidence = evidence
        # Images only (no elision, no dense layout); passes kept per conversation.
        self.history = Planner(
            threshold=1.0,
            limits=limits,
            upstream=upstream,
            window=window,
            rungs=("snapshot",),
            dense=False,
            exact_ids_share=EXACT_IDS_SHARE,
        )
        self.prefix = PrefixImager()
        self.inplace = InPlace()
        self._spliced = _Spliced()
        # Per conversation: the client's tokens when its history pass was made.
        self._passes: dict[tuple[str, str], int] = {}
        self._policies: dict[str, CostPolicy] = {}
        self._lock = threading.Lock()

    def policy(self, model: str, target: Target) -> CostPolicy:
        """The policy for ``model``: ``--policy`` where the evidence allows pages at all."""
        with self._lock:
            found = self._policies.get(model)
        if found is None:
            found = (
                cost_policy(target.profile)
                if target.profile is not None
                else CostPolicy("pass", "no profile: no readability evidence")
            )
            found = self._canaries(found, target)
            if self.forced is not None and found.policy != "pass":
                forced: Policy = "full" if self.forced == "full" else "safe"
                found = CostPolicy(forced, f"--policy {forced}; evidence: {found.why}")
            with self._lock:
                self._policies[model] = found
        return found

    def _canaries(self, found: CostPolicy, target: Target) -> CostPolicy:
        """``found`` as the user's canary records of this model at its layout amend it: a
        layout they judge readable gets ``full``; one they judge not readable (at least
        :data:`ENOUGH_CANARIES` records) no more than ``safe``. Offline stand-ins never count."""
        if self.evidence is None or target.geometry is None or not self.evidence.is_file():
            return found
        from snapshot.proxy.canary import layout_key
        from snapshot.proxy.evidence import STAND_IN, judge, read_evidence

        try:
            records = read_evidence(self.evidence)
        except SnapshotError:
            return found
        layout = layout_key(target.geometry)
        groups = [
            g
            for g in judge(records)
            if g.model == target.model and g.layout == layout and STAND_IN not in g.reader
        ]
        readable = [g for g in groups if g.readable]
        if readable:
            g = readable[0]
            return CostPolicy(
                "full",
                f"your canaries: {g.passing} of {g.n} bands of {layout} read at the bar by "
                f"{g.reader} (Wilson lower bound {g.pass_lower:.2f}; {BAND_ONLY})",
            )
        failing = [g for g in groups if g.n >= ENOUGH_CANARIES]
        if failing and found.policy == "full":
            g = failing[0]
            return CostPolicy(
                "safe",
                f"your canaries: only {g.passing} of {g.n} bands of {layout} read at the bar "
                f"by {g.reader} ({BAND_ONLY}); profile evidence: {found.why}",
            )
        return found

    def plan(
        self,
        shape: Shape,
        body: dict[str, Any],
        model: str,
        key: tuple[str, str],
        raw: bytes,
        target: Target,
        window_plan: RequestPlan,
    ) -> tuple[RequestPlan, dict[str, Any]]:
        """The plan to send and the ledger's ``cost_mode`` and ``counterfactual`` fields."""
        api = shape.name
        memo: Memo = {}  # the candidates share most items: each is cut once
        client = self.book.cut(body, api, target, memo)
        policy = self.policy(model, target)
        record: dict[str, Any] = {"policy": policy.policy, "why": policy.why}
        if window_plan.changed:  # at the wall: the window planner's pass, as in --mode window
            record["chosen"] = "window"
            sent = window_plan.body
            return window_plan, {
                "cost_mode": record,
                "counterfactual": self.book.record(key, api, target, body, sent, client_cut=client),
            }
        candidates = [_Candidate("text", body, client)]
        previous = self.book.previous(key)
        if policy.policy != "pass" and api == "anthropic":
            cached = sum(d.startswith("item:") for d in previous.sent) if previous else 0
            age = 0 if policy.policy == "full" else AGE
            done = self._inplace(body, target, key, client, cached=cached, age=age)
            if done is not None:
                candidates.append(
                    _Candidate(
                        "inplace",
                        done.body,
                        self.book.cut(done.body, api, target, memo),
                        inplace=done,
                    )
                )
        elif policy.policy != "pass":
            history = self._history(shape, body, model, key, raw, client)
            if history is not None:
                candidates.append(
                    _Candidate(
                        "history",
                        history.body,
                        self.book.cut(history.body, api, target, memo),
                        history,
                    )
                )
        if policy.policy == "full" and api == "anthropic":
            for base in list(candidates):
                imaged = self.prefix.apply(base.body, target)
                if imaged is not None:
                    name = "prefix" if base.name == "text" else "prefix+" + base.name
                    candidates.append(
                        _Candidate(
                            name,
                            imaged.body,
                            self.book.cut(imaged.body, api, target, memo),
                            base.history,
                            imaged,
                            base.inplace,
                        )
                    )
        ahead = horizon((previous.requests if previous else 0) + 1)
        priced: dict[str, float | None] = {}
        # Results drawn in place were each priced when converted (the break charged then):
        # the choice is only whether the system/tool pages go on top of them; the text
        # candidates are priced for the record.
        choosable = [c for c in candidates if c.inplace is not None] or candidates
        best = choosable[0]
        may = {id(c) for c in choosable}
        best_dollars: float | None = None
        for c in candidates:
            rates = self.book.rates(target, c.cut)
            if rates is None:  # no price: tokens decide, the cache left out
                dollars = None
                if id(c) in may and c.cut.tokens < best.cut.tokens:
                    best = c
            else:
                dollars = horizon_bill(
                    c.cut.parts,
                    previous.sent if previous else None,
                    rates,
                    ahead,
                    cached_through=c.cut.cached_through,
                )
                if id(c) in may and (best_dollars is None or dollars < best_dollars):
                    best, best_dollars = c, dollars
            priced[c.name] = None if dollars is None else round(dollars, 9)
        record.update(
            {
                "chosen": best.name,
                "horizon": ahead,
                "candidates_dollars": priced,
                # Without a price for the model the billing model's token counts decide.
                "label": "modelled" if best_dollars is not None else "modelled: tokens, no price",
            }
        )
        counterfactual = self.book.record(
            key, api, target, body, best.body, client_cut=client, sent_cut=best.cut
        )
        extra = {"cost_mode": record, "counterfactual": counterfactual}
        if best.name == "text":
            return window_plan, extra
        if best.inplace is not None:
            self.inplace.remember(key, best.inplace)
        kept = False
        if best.prefix is not None and previous is not None:
            drawn = memo.get(("item", id(best.prefix.item)))
            kept = drawn is not None and drawn[1] in previous.sent
        parts: list[Any] = (
            [d.content for _, d in best.inplace.drawn.values()] if best.inplace else []
        )
        if best.prefix is not None:
            parts.append(best.prefix.item)
        data = self._spliced.encode(best.body, parts)
        return self._as_plan(best, client, target, window_plan, kept, data), extra

    def _inplace(
        self,
        body: dict[str, Any],
        target: Target,
        key: tuple[str, str],
        client: Cut,
        *,
        cached: int,
        age: int,
    ) -> InPlaced | None:
        """``body`` with this conversation's conversions repeated and each newly closed
        tool result drawn where :func:`conversion_pays` says so over :data:`HORIZON`
        later requests (an agent loop that has just used a tool result goes on: the
        per-item decision does not wait for the conversation's own horizon to grow).
        ``cached``: history items the previous request put in the cache; ``age``:
        assistant turns a result waits (``full``: none, drawn as it arrives, as text was
        never cached; ``safe``: :data:`~snapshot.proxy.inplace.AGE`, closed results only)."""
        rates = self.book.rates(target, client)
        items = body.get("messages")
        n = len(items) if isinstance(items, list) else 0
        item_tokens = [t for _, t in client.parts[len(client.parts) - n :]] if n else []

        def pays(drawn: Drawn, suffix: int, in_cache: bool) -> bool:
            return conversion_pays(
                drawn.text_tokens, drawn.tokens, suffix, rates, HORIZON, cached=in_cache
            )

        return self.inplace.apply(body, target, key, pays, item_tokens, cached=cached, age=age)

    def _history(
        self,
        shape: Shape,
        body: dict[str, Any],
        model: str,
        key: tuple[str, str],
        raw: bytes,
        client: Cut,
    ) -> RequestPlan | None:
        """The history pass for this request: the previous one reused byte for byte while
        the client's text has grown by less than :data:`GROW` tokens since it was made,
        else a new pass appending pages (None: no pages)."""
        if client.tokens < MIN_HISTORY:
            return None
        with self._lock:
            made_at = self._passes.get(key)
        if made_at is not None and client.tokens - made_at < GROW:
            reused = self.history.reuse(shape, body, model, key)
            if reused is not None:
                return reused
        try:
            # A budget of one token: the snapshot rung images all the closed history it
            # can (its own rule keeps the newest turns and open calls verbatim, and leaves a
            # new segment too short to pay for its pages as text).
            plan = self.history.plan(shape, body, model, key, raw_bytes=len(raw), budget=1, raw=raw)
        except SnapshotError:
            return None
        if not plan.changed or plan.over_limit:
            return None
        if plan.pass_id is not None:
            with self._lock:
                self._passes[key] = client.tokens
        return plan

    @staticmethod
    def _as_plan(
        c: _Candidate,
        client: Cut,
        target: Target,
        window_plan: RequestPlan,
        prefix_kept: bool,
        data: bytes,
    ) -> RequestPlan:
        """The candidate as the plan the proxy sends; ``prefix_kept``: its system/tool pages
        went in the previous request too (the same bytes)."""
        base = c.history if c.history is not None else window_plan
        pages = tuple(base.sheets) if c.history is not None else ()
        exact = dict(c.history.exact_ids or {}) if c.history is not None else {}
        rungs = list(c.history.rungs) if c.history is not None else []
        pass_id = c.history.pass_id if c.history is not None else None
        count = c.history.pages if c.history is not None else 0
        history_reused = c.history is None or c.history.reused_pass
        pages_reused = c.history.pages_reused if c.history is not None else 0
        if c.inplace is not None:
            pages = c.inplace.pages
            exact = dict(c.inplace.exact_ids)
            rungs = ["inplace"]
            count = c.inplace.page_count
            history_reused = not c.inplace.new
            pages_reused = count - len(pages)
            pass_id = (
                hashlib.sha256("\0".join(c.inplace.new).encode()).hexdigest()
                if c.inplace.new
                else None
            )
        if c.prefix is not None:
            pages = (*c.prefix.pages, *pages)
            for k, v in c.prefix.exact_ids.items():
                exact[k] = exact.get(k, 0) + v
            rungs.insert(0, "prefix_pages")
            digest = hashlib.sha256(c.prefix.source.encode()).hexdigest()
            pass_id = (
                digest
                if pass_id is None
                else hashlib.sha256((digest + pass_id).encode()).hexdigest()
            )
        count += len(c.prefix.pages) if c.prefix is not None else 0
        # Reused: nothing newly drawn (the page and --canary look at new passes only).
        reused = history_reused and (c.prefix is None or prefix_kept)
        pages_reused += len(c.prefix.pages) if c.prefix is not None and prefix_kept else 0
        return replace(
            base,
            body=c.body,
            changed=True,
            tokens_before=client.tokens,
            tokens_after=c.cut.tokens,
            counter=target.text_counter,
            rungs=tuple(rungs),
            pages=count,
            layout=base.layout or "default",
            pass_id=None if reused else pass_id,
            reused_pass=reused,
            pages_reused=pages_reused,
            sheets=pages,
            data=data,
            exact_ids=exact or None,
        )
