"""What to send: a request body as it came, or compacted with the free rungs.

The rule, per request (one conversation and agent):

1. A body of fewer bytes than ``threshold`` × the model's window cannot hold
   that many tokens (a token is at least one byte of JSON): it goes upstream
   byte-identical, uncounted.
2. Otherwise the history is imported and counted with the model's own counter
   (exact, reconstruction or estimate, labelled). Under the threshold: as it came.
3. Over it, while an earlier *pass* of this conversation still applies (the
   client's items it replaced are unchanged and the result stays under the
   threshold), the same replacement items are reused: the compacted prefix is
   byte-identical request after request, so the provider's prompt cache holds.
4. Else a new pass runs the free rungs (elide, drop images, snapshot) on the
   whole history as the client sent it, to :data:`PASS_FILL` of the threshold,
   so the next pass comes several turns later. Pages are always drawn from the
   client's text, never from earlier pixels.

The window is the model's (``snapshot.profiles.context_window``), or a smaller
maximum a provider has stated (:class:`~snapshot.proxy.recovery.LearnedLimits`); the
counter carries the correction a provider's count taught. :meth:`Planner.recover`
re-plans after a rejection to the stated limit less :data:`RECOVERY_MARGIN`,
with the free rungs only. With ``--summarizer MODEL``, when the free rungs
cannot reach the goal, the summary rung makes its own small request to that
model (the prompt and the retained source text of the middle, never the body
that overflowed), sent to the proxy's own upstream.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field, replace
from typing import Any

from snapshot.errors import SnapshotError, UnknownModelError
from snapshot.ladder.ladder import FREE_RUNGS, RUNGS, LadderOptions, LadderResult, run_ladder
from snapshot.ladder.target import Target, target_for
from snapshot.proxy.bodies import request_conversation, splice
from snapshot.proxy.recovery import LearnedLimits, Overflow
from snapshot.proxy.shapes import Shape
from snapshot.proxy.turns import ContentKeys
from snapshot.transcript.model import Conversation, Message

# A pass compacts to this share of the threshold, so several turns pass before the next.
PASS_FILL = 0.75
# Recovery aims this far below the maximum a provider stated.
RECOVERY_MARGIN = 0.05


@dataclass(frozen=True)
class RequestPlan:
    """The body to send and what was done to it (the ledger's record of the request)."""

    body: dict[str, Any]
    changed: bool
    tokens_before: int
    tokens_after: int
    counter: str  # exact | reconstruction | estimate | bytes bound
    window: int | None  # None: no window known yet, forwarded untouched
    budget: int | None = None
    rungs: tuple[str, ...] = ()
    fits: bool = True
    failure: str | None = None
    pages: int = 0
    reused_pass: bool = False
    # The summary rung's own request (``--summarizer``): model, size and measured usage.
    summary: dict[str, Any] | None = None
    conversation: Conversation | None = field(default=None, compare=False)
    # A new pass only: its id (the digest of the client items it replaced) and the pages
    # it drew (snapshot.rendering.page.Page, source text kept), for ``--canary``.
    pass_id: str | None = None
    sheets: tuple[Any, ...] = field(default=(), compare=False, repr=False)

    def record(self) -> dict[str, Any]:
        """The plan as the ledger writes it (every token figure with its label)."""
        return {
            "compacted": self.changed,
            "reused_pass": self.reused_pass,
            "rungs": list(self.rungs),
            "window": self.window,
            "budget": self.budget,
            "tokens_before": {"tokens": self.tokens_before, "label": _label(self.counter)},
            "tokens_after": {"tokens": self.tokens_after, "label": _label(self.counter)},
            "counter": self.counter,
            "pages": self.pages,
            "fits": self.fits,
            "failure": self.failure,
            "summary": self.summary,
        }


def _label(counter: str) -> str:
    """The provenance label of a count: exact, reconstructed or estimated."""
    return {"exact": "exact", "reconstruction": "reconstructed"}.get(counter, "estimated")


@dataclass(frozen=True)
class _Pass:
    """An applied compaction: the client's items [front, end) became ``items``."""

    digest: str  # of the client's items [0, end)
    front: int
    end: int
    items: tuple[Any, ...]
    saved: int  # tokens the pass removed
    rungs: tuple[str, ...]
    pages: int


def _digest(items: list[Any]) -> str:
    text = json.dumps(items, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Planner:
    """Plans requests for many conversations; one per proxy (thread-safe)."""

    def __init__(
        self,
        *,
        threshold: float = 0.8,
        limits: LearnedLimits | None = None,
        upstream: str = "",
        window: int | None = None,
        summarizer: str | None = None,
    ) -> None:
        if not 0 < threshold <= 1:
            raise SnapshotError(f"threshold {threshold} must be in (0, 1]")
        self.threshold = threshold
        self.limits = limits or LearnedLimits(None)
        self.upstream = upstream
        self.window_override = window
        self.summarizer = summarizer
        self._targets: dict[str, Target] = {}
        self._passes: dict[tuple[str, str], _Pass] = {}
        self._tokens: dict[tuple[str, float, str], int] = {}
        self._lock = threading.Lock()
        # Message ids as the store has them: a placeholder's reference resolves there.
        self.keys = ContentKeys()

    # -- the model -------------------------------------------------------------------

    def target(self, model: str) -> Target:
        """The model's reader, its counter corrected by what the provider taught."""
        with self._lock:
            base = self._targets.get(model)
        if base is None:
            # A model no table knows gets the conservative profile: it is forwarded as it
            # came until a window is known (--window, or the provider's first rejection).
            base = target_for(model, fallback=True)
            with self._lock:
                self._targets[model] = base
        learned = self.limits.get(self.upstream, model)
        return base.with_correction(learned.correction) if learned.correction != 1.0 else base

    def window(self, model: str) -> int | None:
        """Tokens the model takes: ``--window``, else the table's window, or a smaller maximum
        a provider stated; None while none of them is known (the request goes as it came)."""
        window = self.window_override
        if window is None:
            from snapshot.profiles import context_window

            try:
                stated = context_window(model)
            except UnknownModelError:
                stated = None
            window = stated.tokens if stated is not None else None
        learned = self.limits.get(self.upstream, model).limit
        if window is None:
            return learned
        return min(window, learned) if learned else window

    def count(self, target: Target, messages: list[Message] | tuple[Message, ...]) -> int:
        """Tokens of a path, each message counted once per model and correction."""
        from snapshot.ladder.serialize import serialize_message

        total = 0
        for m in messages:
            sizes = ",".join(f"{i.width}x{i.height}:{i.size}" for i in m.images())
            key = hashlib.sha1(f"{serialize_message(m)}\0{sizes}".encode()).hexdigest()
            k = (target.model, target.correction, key)
            with self._lock:
                cached = self._tokens.get(k)
            if cached is None:
                cached = target.message_tokens(m)
                with self._lock:
                    if len(self._tokens) > 200_000:
                        self._tokens.clear()
                    self._tokens[k] = cached
            total += cached
        return total

    # -- planning --------------------------------------------------------------------

    def plan(
        self,
        shape: Shape,
        body: dict[str, Any],
        model: str,
        key: tuple[str, str],
        *,
        raw_bytes: int,
        budget: int | None = None,
    ) -> RequestPlan:
        """The body to send for ``body`` (see the module docstring for the rule)."""
        window = self.window(model)
        if window is None and budget is None:
            # No window known: forwarded untouched until the provider says it is too large.
            return RequestPlan(body, False, 0, 0, "bytes bound", None)
        trigger = budget if budget is not None else int((window or 0) * self.threshold)
        items = shape.history(body)
        if raw_bytes <= trigger or not items:
            target = self.target(model)
            guess = round(raw_bytes / target.chars_per_token)
            return RequestPlan(body, False, guess, guess, "bytes bound", window)
        target = self.target(model)
        conv = request_conversation(shape, body, key[0], self.keys.of(shape, body, key))
        tokens = self.count(target, conv.path())
        if tokens <= trigger:
            return RequestPlan(
                body, False, tokens, tokens, target.text_counter, window, conversation=conv
            )
        reused = self._reuse(shape, body, key, tokens, trigger, target, window)
        if reused is not None:
            return replace(reused, conversation=conv)
        goal = budget if budget is not None else int(trigger * PASS_FILL)
        return self._new_pass(shape, body, model, key, conv, tokens, goal, target, window)

    def _reuse(
        self,
        shape: Shape,
        body: dict[str, Any],
        key: tuple[str, str],
        tokens: int,
        trigger: int,
        target: Target,
        window: int | None,
    ) -> RequestPlan | None:
        with self._lock:
            done = self._passes.get(key)
        items = shape.history(body) or []
        if done is None or len(items) < done.end or tokens - done.saved > trigger:
            return None
        if _digest(items[: done.end]) != done.digest:
            return None
        new = dict(body)
        new[shape.history_key] = [*items[: done.front], *done.items, *items[done.end :]]
        return RequestPlan(
            new,
            True,
            tokens,
            tokens - done.saved,
            target.text_counter,
            window,
            budget=trigger,
            rungs=done.rungs,
            pages=done.pages,
            reused_pass=True,
        )

    def _new_pass(
        self,
        shape: Shape,
        body: dict[str, Any],
        model: str,
        key: tuple[str, str],
        conv: Conversation,
        tokens: int,
        goal: int,
        target: Target,
        window: int | None,
        *,
        free_only: bool = False,
    ) -> RequestPlan:
        result = self._ladder(conv, target, goal, free_only=free_only)
        spliced = splice(shape, body, conv, result.conversation, target.model)
        if not result.rungs_taken or spliced.body is body:
            return RequestPlan(
                body,
                False,
                tokens,
                tokens,
                target.text_counter,
                window,
                budget=goal,
                fits=result.fits,
                failure=result.failure,
                conversation=conv,
            )
        after = self.count(target, result.conversation.path())
        items = shape.history(body) or []
        front, end = spliced.replaced
        done = _Pass(
            _digest(items[:end]),
            front,
            end,
            spliced.items,
            tokens - after,
            result.rungs_taken,
            len(result.pages),
        )
        with self._lock:
            self._passes[key] = done
        return RequestPlan(
            spliced.body,
            True,
            tokens,
            after,
            target.text_counter,
            window,
            budget=goal,
            rungs=result.rungs_taken,
            fits=result.fits,
            failure=result.failure,
            pages=len(result.pages),
            summary=_summary_record(result),
            conversation=conv,
            pass_id=done.digest,
            sheets=tuple(result.pages),
        )

    def _ladder(
        self, conv: Conversation, target: Target, budget: int, *, free_only: bool
    ) -> LadderResult:
        free = LadderOptions(rungs=FREE_RUNGS)
        result = run_ladder(conv, target, budget, options=free)
        if result.fits or free_only or not self.summarizer:
            return result
        # A summary only from its own small request (the retained text), never the overflow.
        from snapshot.ladder.summary import LiveSummarizer

        summarizer = LiveSummarizer(self.summarizer, base_url=self._summarizer_url())
        return run_ladder(
            conv, target, budget, summarizer=summarizer, options=LadderOptions(rungs=RUNGS)
        )

    def _summarizer_url(self) -> str | None:
        """The proxy's upstream as the summarizer SDK's base URL (OpenAI's SDK wants ``/v1``)."""
        from snapshot.proxy.upstream import sdk_base_url

        assert self.summarizer is not None
        claude = self.summarizer.startswith(("claude", "anthropic"))
        return sdk_base_url(self.upstream, "anthropic" if claude else "openai")

    # -- recovery --------------------------------------------------------------------

    def recover(
        self,
        shape: Shape,
        body: dict[str, Any],
        model: str,
        key: tuple[str, str],
        overflow: Overflow,
        sent: RequestPlan,
    ) -> RequestPlan:
        """Learn from a rejection, then plan the client's body to the stated limit.

        Free rungs only, unless a summarizer is configured: then a summary of the
        retained source text when they cannot reach the limit.
        """
        target = self.target(model)
        conv = sent.conversation or request_conversation(
            shape, body, key[0], self.keys.of(shape, body, key)
        )
        if sent.changed or sent.counter == "bytes bound":
            # What was sent, counted the way the rejection counted it.
            sent_conv = request_conversation(shape, sent.body, key[0])
            estimate = self.count(target, sent_conv.path())
        else:
            estimate = sent.tokens_before
        correction = None
        if overflow.counted is not None and estimate > 0:
            # The provider's count is the truth, whichever way it differs (bounded: one odd
            # reply cannot make the counter absurd).
            correction = min(max(target.correction * overflow.counted / estimate, 0.5), 4.0)
        self.limits.learn(self.upstream, model, limit=overflow.limit, correction=correction)
        target = self.target(model)
        with self._lock:
            self._passes.pop(key, None)
        tokens = self.count(target, conv.path())
        limit = overflow.limit if overflow.limit is not None else int(estimate * PASS_FILL)
        goal = int(limit * (1 - RECOVERY_MARGIN))
        return self._new_pass(
            shape, body, model, key, conv, tokens, goal, target, self.window(model)
        )


def _summary_record(result: LadderResult) -> dict[str, Any] | None:
    """The summary rung's own request as the ledger writes it (None: no model call)."""
    summary = result.summary
    if summary is None or summary.source != "model":
        return None
    from snapshot.proxy.ledger import usage_dollars

    model = summary.model or ""
    return {
        "model": model,
        "request_chars": summary.input_chars,
        "summary_chars": summary.output_chars,
        "usage": summary.usage,
        "usage_label": "measured" if summary.usage else None,
        "dollars": usage_dollars(model, summary.usage),
    }
