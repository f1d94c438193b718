"""What to send: a request body as it came, or compacted with the free rungs.

The rule, per request (one conversation and agent):

1. A body of fewer bytes than ``threshold`` × the model's window cannot hold
   that many tokens (a token is at least one byte of JSON): it goes upstream
   byte-identical, uncounted (unless it is over the provider's byte budget).
2. Otherwise the history is imported and counted with the model's own counter
   (exact, reconstruction or estimate, labelled), the fields the history does not
   hold (``tools`` above all: Claude Code's are ~12 k tokens) counted as text in
   the same corrected unit. Under the threshold: as it came.
3. Over it, while an earlier *pass* of this conversation still applies (the
   client's items it replaced are unchanged and the result stays under the
   threshold), the same replacement items are reused: the compacted prefix is
   byte-identical request after request, so the provider's prompt cache holds.
   A pass belongs to the conversation and the page layout it drew in, not to the
   model: a harness that switches models mid-session (Gemini CLI's flash and pro)
   reuses it for any model that draws the same pages, counted and checked against
   that model's own limit, and a model of another layout keeps a pass of its own
   (it is never sent pages drawn for another reader, nor does it erase theirs).
4. Else a new pass runs the free rungs (elide, drop images, snapshot) to
   :data:`PASS_FILL` of the threshold, on the previous pass's result followed by
   the client's newer messages: the earlier pages are kept (redrawn from their text
   into the same bytes) and the new middle is appended as one more segment
   (:mod:`snapshot.ladder.sheets`), so the cached prefix survives the pass. Pages
   are always drawn from the client's text, never from earlier pixels.
5. When the free rungs cannot reach the goal: the dense layout for the new
   pages. When they still leave the request over the threshold and the provider
   has taught its limit (the fixed part, tools, system and verbatim head, is then
   a large share of it: Claude Code's ~17 k tokens of a ~31 k limit in the
   harness), the pass aims at that limit less :data:`RECOVERY_MARGIN` instead,
   keeping :data:`PASS_FILL` of the room above the fixed part for the compacted
   history (reused up to that ceiling): built on the previous pass, else drawn
   anew in the dense layout (one segment, the fewest pages), then with the exact-id
   index beside the pages trimmed to half, a quarter, none
   (:meth:`Planner._to_ceiling`). Only then (``--summarizer auto`` or ``MODEL``) a
   summary of the middle made by its own requests, each of which fits that
   model's limit (:mod:`snapshot.proxy.summarizer`). A pass that would not shrink
   the request, or whose body would break the provider's size or image budget
   (:mod:`snapshot.proxy.budgets`), is never sent.

The window is the model's (``snapshot.profiles.context_window``), ``--window``,
or a smaller maximum a provider has stated or a refused body bounded
(:class:`~snapshot.proxy.recovery.LearnedLimits`); the counter carries the
correction a provider's count taught. :meth:`Planner.recover` learns from a
rejection and re-plans to that limit less :data:`RECOVERY_MARGIN` (the same
free attempts first, a summary last); its retry is
strictly smaller than the refused body by that margin, never the same body, and
no conversation is refused twice under one learned limit.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from snapshot.billing.prompt_cache import shared_prefix
from snapshot.errors import SnapshotError, UnknownModelError
from snapshot.ladder.ladder import FREE_RUNGS, RUNGS, LadderOptions, LadderResult, run_ladder
from snapshot.ladder.record import linear_copy
from snapshot.ladder.sheets import SheetOptions
from snapshot.ladder.summary import Summarizer
from snapshot.ladder.target import Target, target_for
from snapshot.providers.overflow import Overflow
from snapshot.proxy.bodies import request_conversation, splice, undrawable_items
from snapshot.proxy.budgets import Budget, budget_for, count_images
from snapshot.proxy.recovery import LearnedLimits
from snapshot.proxy.shapes import Shape
from snapshot.proxy.summarizer import ClientRoute
from snapshot.proxy.turns import ContentKeys
from snapshot.transcript.model import Conversation, Message

# The limit a summary request keeps to when its model's is not known yet.
UNKNOWN_SUMMARY_LIMIT = 32_000
# A pass compacts to this share of the threshold, so several turns pass before the next.
PASS_FILL = 0.75
# Recovery aims this far below the maximum a provider stated, and a retry is at least
# this much smaller than the body refused.
RECOVERY_MARGIN = 0.05
# Top-level fields the model does not read as text (the history and system prompt are
# counted with the conversation).
_NOT_TEXT = {"metadata", "stream_options"}
_SYSTEM_KEYS = {"system", "instructions", "systemInstruction", "system_instruction"}

#: Makes a summarizer for one request: (the model the summary is for, the limit its
#: own requests must fit, in that model's tokens) → a Summarizer.
SummarizerFactory = Callable[[int], Summarizer]


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
    # Pages this pass shares, byte for byte and in order, with the previous pass, and the
    # previous pass's replacement items it still sends first, byte for byte.
    pages_reused: int = 0
    items_reused: int = 0
    # Tokens outside the history (tools ...), counted as text in the corrected unit.
    outside: int = 0
    layout: str | None = None  # "default" | "dense" for a pass that drew pages
    # The summary rung's own requests (``--summarizer``): model, size and measured usage.
    summary: dict[str, Any] | None = None
    conversation: Conversation | None = field(default=None, compare=False)
    # A new pass only: its id (the digest of the client items it replaced) and the pages
    # it drew (snapshot.rendering.page.Page, source text kept), for ``--canary``.
    pass_id: str | None = None
    sheets: tuple[Any, ...] = field(default=(), compare=False, repr=False)
    # The compacted body's bytes as sent (None: the client's own bytes go).
    data: bytes | None = field(default=None, compare=False, repr=False)
    # Over a limit the provider taught: it would be refused again, so it is not sent.
    over_limit: bool = False
    # The snapshot rung's exact-id coverage: {"on_pages": N, "as_text": M} (None: no pages).
    exact_ids: dict[str, int] | None = None
    # The most tokens the request may grow to while this pass is reused: the threshold,
    # or the taught limit less the margin when the fixed part leaves too little under it.
    ceiling: int | None = None
    # The planner's own record of a new pass (what the next request builds on).
    made: Any = field(default=None, compare=False, repr=False)

    @property
    def reuses_previous_pass(self) -> bool:
        """The compacted prefix the previous pass sent is still there (cache kept)."""
        return self.changed and (self.reused_pass or self.pages_reused > 0 or self.items_reused > 0)

    def record(self) -> dict[str, Any]:
        """The plan as the ledger writes it (every token figure with its label)."""
        return {
            "compacted": self.changed,
            "reused_pass": self.reused_pass,
            "reuses_previous_pass": self.reuses_previous_pass,
            "pages_reused": self.pages_reused,
            "items_reused": self.items_reused,
            "rungs": list(self.rungs),
            "layout": self.layout,
            "window": self.window,
            "budget": self.budget,
            "tokens_before": {"tokens": self.tokens_before, "label": _label(self.counter)},
            "tokens_after": {"tokens": self.tokens_after, "label": _label(self.counter)},
            "outside_tokens": self.outside,
            "counter": self.counter,
            "pages": self.pages,
            "fits": self.fits,
            "over_limit": self.over_limit,
            "failure": self.failure,
            "summary": self.summary,
            "exact_ids": self.exact_ids,
            "ceiling": self.ceiling,
        }


def _label(counter: str) -> str:
    """The provenance label of a count: exact, reconstructed or estimated."""
    return {"exact": "exact", "reconstruction": "reconstructed"}.get(counter, "estimated")


@dataclass(frozen=True)
class _Pass:
    """An applied compaction: the client's items [front, end) became ``items``.

    ``result`` is the compacted conversation of the client's first ``source_len``
    messages (``source_digest``), which the next pass builds on.
    """

    digest: str  # of the client's items [0, end)
    front: int
    end: int
    items: tuple[Any, ...]
    saved: int  # tokens the pass removed
    rungs: tuple[str, ...]
    pages: int
    result: Conversation | None = None
    source_len: int = 0
    source_digest: str = ""
    dense: bool = False
    page_digests: tuple[str, ...] = ()
    # Each item of the history this pass sent up to its replacement's end, by digest.
    item_digests: tuple[str, ...] = ()
    # Reused while the request stays under this many tokens (0: the threshold).
    ceiling: int = 0
    # The exact-id index's share it drew with (None: the sheets' default); later passes
    # keep it, as they keep the dense layout.
    ids_share: float | None = None
    model: str = ""  # the model it was planned for (its ``saved`` is in that model's tokens)


#: Which passes a request may reuse: (conversation, agent, page layout).
PassKey = tuple[str, str, str]


def pass_key(key: tuple[str, str], target: Target) -> PassKey:
    """A pass's key: the conversation and the layout its pages are drawn in, so two models
    that draw the same pages share one pass and two that do not keep one each.

    >>> from snapshot.ladder.target import target_for
    >>> flash, other = target_for("gemini-3-flash-preview"), target_for("gemini-3.8-flash")
    >>> pass_key(("c", "main"), flash) == pass_key(("c", "main"), other)
    True
    >>> pro = target_for("gemini-3.1-pro-preview")
    >>> pass_key(("c", "main"), flash) == pass_key(("c", "main"), pro)
    False
    """
    geometry = target.geometry if target.vision else None
    layout = "text" if geometry is None else hashlib.sha256(repr(geometry).encode()).hexdigest()
    return (*key, layout[:16])


def _digest(items: list[Any]) -> str:
    text = json.dumps(items, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _item_digests(items: list[Any] | tuple[Any, ...]) -> tuple[str, ...]:
    return tuple(_digest([item])[:16] for item in items)


def _path_digest(messages: list[Message] | tuple[Message, ...]) -> str:
    from snapshot.ladder.serialize import serialize_message

    h = hashlib.sha256()
    for m in messages:
        h.update(serialize_message(m).encode("utf-8"))
        h.update(f"\0{m.role}\0{len(m.images())}\0".encode())
    return h.hexdigest()


def _page_digests(conv: Conversation) -> tuple[str, ...]:
    """The pages a compacted conversation carries, in order, by digest."""
    return tuple(
        hashlib.sha256(image.data or b"").hexdigest()[:16]
        for m in conv.path()
        if m.meta.get("kind") == "snapshot"
        for image in m.images()
    )


def _image_marks(raw: bytes) -> int:
    """At least the image blocks of a request body, in any of the four shapes."""
    return raw.count(b"image") + raw.count(b"inlineData") + raw.count(b"inline_data")


def _over_budget(conv: Conversation, max_images: int | None, max_bytes: int | None) -> bool:
    """Whether a conversation's images alone break an image count or byte budget."""
    images = [i for m in conv.path() for i in m.images()]
    if max_images is not None and len(images) > max_images:
        return True
    base64 = sum(4 * ((len(i.data or b"") + 2) // 3) for i in images)
    return max_bytes is not None and base64 > max_bytes


def _encode(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def _smaller(data: bytes, tokens: int, refused: tuple[int, bytes, bool]) -> bool:
    """Is a retry of ``data`` (``tokens``) at least :data:`RECOVERY_MARGIN` smaller than the
    refused body (its tokens, bytes, and whether it was refused for its bytes), and not it?"""
    refused_tokens, refused_data, by_bytes = refused
    if data == refused_data:
        return False
    if by_bytes:
        return len(data) <= len(refused_data) * (1 - RECOVERY_MARGIN)
    return tokens <= refused_tokens * (1 - RECOVERY_MARGIN)


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
        rungs: tuple[str, ...] | None = None,
        dense: bool = True,
        exact_ids_share: float = SheetOptions.exact_ids_share,
    ) -> None:
        """``rungs``: what a pass may do (default :data:`FREE_RUNGS`; ``--mode cost``
        images only: ``("snapshot",)``);
        ``dense``: whether a pass the default layout cannot fit tries the dense one;
        ``exact_ids_share``: the most the exact-id index beside the pages may cost, as a
        share of the imaged text's tokens (:class:`~snapshot.ladder.sheets.SheetOptions`)."""
        if not 0 < threshold <= 1:
            raise SnapshotError(f"threshold {threshold} must be in (0, 1]")
        self.threshold = threshold
        self.limits = limits or LearnedLimits(None)
        self.upstream = upstream
        self.window_override = window
        self.summarizer = summarizer
        self.rungs = rungs
        self.dense = dense
        self.sheets = SheetOptions(append_only=True, exact_ids_share=exact_ids_share)
        self._targets: dict[str, Target] = {}
        self._passes: dict[PassKey, _Pass] = {}
        self._tokens: dict[tuple[str, float, str], int] = {}
        # (conversation, agent, learned state) of every rejection: never two under one state.
        self._refused: set[tuple[str, str, tuple[Any, ...]]] = set()
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

    def budget(self, provider: str, target: Target, model: str) -> Budget:
        """The bytes and images one upstream body for ``model`` may carry."""
        learned = self.limits.get(self.upstream, model)
        route_bytes = target.max_request_bytes if target.max_request_bytes < 10**12 else None
        route_images = target.max_images if target.vision and target.max_images < 10**6 else None
        return budget_for(
            provider,
            self.upstream,
            max_request_bytes=route_bytes,
            max_images=route_images,
            too_many_bytes=learned.too_many_bytes,
        )

    def count(self, target: Target, messages: list[Message] | tuple[Message, ...]) -> int:
        """Tokens of a path, each message counted once per model and correction."""
        from snapshot.ladder.serialize import serialize_message

        total = 0
        for m in messages:
            sizes = ",".join(f"{i.width}x{i.height}:{i.size}" for i in m.images())
            key = hashlib.sha1(f"{serialize_message(m)}\0{sizes}".encode()).hexdigest()
            total += self._cached(target, key, functools.partial(target.message_tokens, m))
        return total

    def _read(
        self,
        shape: Shape,
        body: dict[str, Any],
        key: tuple[str, str],
        target: Target,
        conv: Conversation | None = None,
    ) -> tuple[Conversation, int, int]:
        """The request as the ladder sees it (``conv`` when already read), the tokens
        outside its history, and the whole body's count."""
        if conv is None:
            conv = request_conversation(shape, body, key[0], self.keys.of(shape, body, key))
        outside = self.outside(shape, body, target)
        return conv, outside, self.count(target, conv.path()) + outside

    def outside(self, shape: Shape, body: dict[str, Any], target: Target) -> int:
        """Tokens of what the ladder does not hold but the upstream body does: the fields
        beside the history (``tools``, ``tool_choice``, response schemas ...) and the
        history's undrawable items after its head, counted as text in the corrected unit."""
        rest = {
            k: v
            for k, v in body.items()
            if isinstance(v, dict | list)
            and k != shape.history_key
            and k not in _SYSTEM_KEYS
            and k not in _NOT_TEXT
        }
        kept = undrawable_items(shape, body)
        if kept:
            # Items after the head the ladder never sees (mid-session system reminders,
            # tool lists, unknown types) still go upstream verbatim: count them here.
            rest["\0kept"] = kept
        if not rest:
            return 0
        text = json.dumps(rest, sort_keys=True, ensure_ascii=False)
        key = "outside:" + hashlib.sha1(text.encode()).hexdigest()
        return self._cached(
            target, key, lambda: round(target.text_tokens(text) * target.correction)
        )

    def _cached(self, target: Target, key: str, count: Callable[[], int]) -> int:
        k = (target.model, target.correction, key)
        with self._lock:
            cached = self._tokens.get(k)
        if cached is None:
            cached = count()
            with self._lock:
                if len(self._tokens) > 200_000:
                    self._tokens.clear()
                self._tokens[k] = cached
        return cached

    def summarizers(self, route: ClientRoute) -> SummarizerFactory | None:
        """How a pass for ``route``'s request gets a summary (None: no ``--summarizer``)."""
        if not self.summarizer:
            return None
        from snapshot.ladder.summary import LiveSummarizer
        from snapshot.proxy.summarizer import MAX_OUTPUT_TOKENS, RollingSummarizer, upstream_ask

        auto = self.summarizer == "auto"
        model = route.model if auto else self.summarizer
        try:
            counter = self.target(model)
        except UnknownModelError:
            counter = self.target(route.model)

        def count(text: str) -> int:
            return round(counter.text_tokens(text) * counter.correction)

        def make(limit: int) -> Summarizer:
            out = min(MAX_OUTPUT_TOKENS, max(limit // 4, 1))
            if auto:
                ask = upstream_ask(route, out)
            else:
                ask = LiveSummarizer(
                    model, base_url=self._summarizer_url(), max_output_tokens=out
                ).ask
            return RollingSummarizer(model, ask, count, limit, max_output_tokens=out)

        return make

    def _summarizer_url(self) -> str | None:
        """The proxy's upstream as the summarizer SDK's base URL (OpenAI's SDK wants ``/v1``)."""
        from snapshot.proxy.upstream import sdk_base_url

        assert self.summarizer is not None
        claude = self.summarizer.startswith(("claude", "anthropic"))
        return sdk_base_url(self.upstream, "anthropic" if claude else "openai")

    def summary_limit(self, model: str) -> int:
        """The tokens a summary request may take: the summarizer model's limit (``auto``:
        the client's model), as stated by its provider where it has been."""
        if self.summarizer and self.summarizer != "auto":
            own = self.window(self.summarizer)
            if own is not None:
                return own
        # No limit known yet (a model no table has, before its provider said one): a
        # request of this size fits every current model's window.
        return self.window(model) or UNKNOWN_SUMMARY_LIMIT

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
        summarizer: SummarizerFactory | None = None,
        raw: bytes | None = None,
    ) -> RequestPlan:
        """The body to send for ``body`` (see the module docstring for the rule).

        ``raw``: the body's bytes as the client sent them, when at hand (a fast scan
        for images).

        ``over_limit`` is set on a plan the provider has already said it refuses: more
        tokens than a limit it taught, or as many bytes as a body it refused for its
        bytes. Such a plan is not sent (the provider's rejection is answered instead).
        """
        plan = self._plan(shape, body, model, key, raw_bytes, budget, summarizer, raw)
        learned = self.limits.get(self.upstream, model)
        if learned.limit is not None and plan.tokens_after > learned.limit:
            # A pass built on the previous one can land over a limit the provider taught
            # (items the client added since); a fresh pass to that limit comes before
            # answering with the provider's last rejection.
            plan = (
                self._fresh_pass(
                    shape, body, model, key, learned.limit, summarizer, plan.conversation
                )
                or plan
            )
        size = len(plan.data) if plan.changed and plan.data is not None else raw_bytes
        over = (learned.limit is not None and plan.tokens_after > learned.limit) or (
            learned.too_many_bytes is not None and size >= learned.too_many_bytes
        )
        return replace(plan, over_limit=True) if over else plan

    def _plan(
        self,
        shape: Shape,
        body: dict[str, Any],
        model: str,
        key: tuple[str, str],
        raw_bytes: int,
        budget: int | None,
        summarizer: SummarizerFactory | None,
        raw: bytes | None,
    ) -> RequestPlan:
        window = self.window(model)
        if window is None and budget is None:
            # No window known: forwarded untouched until the provider says it is too large.
            return RequestPlan(body, False, 0, 0, "bytes bound", None)
        trigger = budget if budget is not None else int((window or 0) * self.threshold)
        items = shape.history(body)
        target = self.target(model)
        caps = self.budget(shape.provider, target, model)
        small = caps.max_bytes is None or raw_bytes <= caps.max_bytes
        if small and caps.max_images is not None:
            # Maybe more images than the provider keeps: a scan of the bytes (fast) says
            # when the body is worth walking.
            maybe = (
                _image_marks(raw) > caps.max_images
                if raw is not None
                else raw_bytes > caps.max_images * 64  # a tiny PNG is ~100 bytes of base64
            )
            small = not (maybe and self._too_many_images(caps, body))
        if (raw_bytes <= trigger and small) or not items:
            guess = round(raw_bytes / target.chars_per_token)
            return RequestPlan(body, False, guess, guess, "bytes bound", window)
        conv, outside, tokens = self._read(shape, body, key, target)
        if tokens <= trigger and small:
            return RequestPlan(
                body,
                False,
                tokens,
                tokens,
                target.text_counter,
                window,
                outside=outside,
                conversation=conv,
            )
        reused = self._reuse(shape, body, key, tokens, trigger, target, window, caps)
        if reused is not None:
            return replace(reused, conversation=conv, outside=outside)
        goal = budget if budget is not None else int(trigger * PASS_FILL)
        ceiling = None if budget is not None else self._ceiling(model, trigger)
        plan = self._new_pass(
            shape,
            body,
            key,
            conv,
            tokens,
            outside,
            goal,
            target,
            window,
            caps,
            # Free before paid: a summary only when no pass fits under the ceiling either.
            summarizer if ceiling is None else None,
            must_fit=trigger,
            keep=ceiling is None,
        )
        if ceiling is None:
            return plan
        if not plan.changed or plan.tokens_after > trigger:
            # The fixed part (system, tools, head) leaves the free rungs too little room
            # under the threshold: a pass aimed at the taught limit less the margin.
            tight = self._to_ceiling(shape, body, model, key, conv, ceiling, plan)
            if tight is not None:
                return self._keep(key, tight)
            if summarizer is not None:
                return self._new_pass(
                    shape, body, key, conv, tokens, outside, goal, target, window, caps,
                    summarizer, must_fit=trigger,
                )  # fmt: skip
        return self._keep(key, plan)

    def _ceiling(self, model: str, trigger: int) -> int | None:
        """The taught limit less :data:`RECOVERY_MARGIN` (None: no limit taught, or not
        above the threshold): what a pass may aim at when the threshold leaves too little."""
        if self.limits.get(self.upstream, model).limit is None:
            return None
        window = self.window(model)
        ceiling = int(window * (1 - RECOVERY_MARGIN)) if window else 0
        return ceiling if ceiling > trigger else None

    def _keep(self, key: tuple[str, str], plan: RequestPlan) -> RequestPlan:
        """Remember the pass ``plan`` made: the next request builds on it or reuses it."""
        if plan.made is not None:
            slot = pass_key(key, self.target(plan.made.model))
            with self._lock:
                self._passes[slot] = plan.made
        return plan

    def _to_ceiling(
        self,
        shape: Shape,
        body: dict[str, Any],
        model: str,
        key: tuple[str, str],
        conv: Conversation,
        ceiling: int,
        first: RequestPlan | None,
        *,
        smaller_than: tuple[int, bytes, bool] | None = None,
    ) -> RequestPlan | None:
        """A pass under ``ceiling`` tokens when the fixed part is a large share of it.

        Its goal leaves :data:`PASS_FILL` of the room above the fixed part (tools, system,
        verbatim head: what no rung shrinks) to the compacted history, so the next turns
        reuse it. Tried in order, stopping at the goal: ``first`` (a pass built on the
        previous one), then the history drawn anew in the dense layout (one segment, the
        fewest pages; the verbatim tail down to the last exchange), with the exact-id
        index at its share, half, a quarter, then none. The first to reach the goal, else
        the smallest under the ceiling; None when none is under it (a retry: none also
        ``smaller_than`` the refused body by the margin). Nothing is stored (:meth:`_keep`
        stores the one sent)."""
        from snapshot.ladder.cut import head_end

        target = self.target(model)
        conv, outside, tokens = self._read(shape, body, key, target, conv)
        window = self.window(model)
        caps = self.budget(shape.provider, target, model)
        path = conv.path()
        fixed = outside + self.count(target, path[: head_end(path)])
        goal = fixed + int(PASS_FILL * max(ceiling - fixed, 0))
        tried = [first] if first is not None and first.changed else []
        if not (tried and tried[0].tokens_after <= goal):
            with self._lock:
                last = self._passes.get(pass_key(key, target))
            share = SheetOptions().exact_ids_share
            if last is not None and last.ids_share is not None:
                share = last.ids_share
            for ids_share in dict.fromkeys((share, share / 2, share / 4, 0.0)):
                plan = self._new_pass(
                    shape, body, key, conv, tokens, outside, goal, target, window, caps, None,
                    must_fit=ceiling, fresh=True, ids_share=ids_share, keep=False,
                    smaller_than=smaller_than,
                )  # fmt: skip
                if plan.changed:
                    tried.append(plan)
                    if plan.tokens_after <= goal:
                        break
        under = [
            p
            for p in tried
            if p.tokens_after <= ceiling
            and (smaller_than is None or _smaller(p.data or b"", p.tokens_after, smaller_than))
        ]
        if not under:
            return None
        chosen = next((p for p in under if p.tokens_after <= goal), None)
        chosen = chosen or min(under, key=lambda p: p.tokens_after)
        made = replace(chosen.made, ceiling=ceiling) if chosen.made is not None else None
        return replace(chosen, budget=goal, fits=True, failure=None, ceiling=ceiling, made=made)

    @staticmethod
    def _too_many_images(caps: Budget, body: dict[str, Any]) -> bool:
        return caps.max_images is not None and count_images(body) > caps.max_images

    def reuse(
        self, shape: Shape, body: dict[str, Any], model: str, key: tuple[str, str]
    ) -> RequestPlan | None:
        """This conversation's previous pass applied again, byte for byte, when the client's
        items it replaced are unchanged; the caller decides when a new pass is due (no
        count, no threshold: the plan's tokens are left at 0)."""
        target = self.target(model)
        caps = self.budget(shape.provider, target, model)
        return self._reuse(shape, body, key, None, 0, target, self.window(model), caps)

    def _reuse(
        self,
        shape: Shape,
        body: dict[str, Any],
        key: tuple[str, str],
        tokens: int | None,
        trigger: int,
        target: Target,
        window: int | None,
        caps: Budget,
    ) -> RequestPlan | None:
        with self._lock:
            done = self._passes.get(pass_key(key, target))
        items = shape.history(body) or []
        if done is None or len(items) < done.end:
            return None
        same_model = done.model == target.model
        # A pass aimed at the taught limit (its ceiling) is reused up to it, by its model.
        limit = max(trigger, done.ceiling) if same_model else trigger
        # ``tokens`` None (:meth:`reuse`): the caller decides when a new pass is due.
        over = tokens is not None and tokens - done.saved > limit
        if (same_model and over) or _digest(items[: done.end]) != done.digest:
            return None
        new = dict(body)
        new[shape.history_key] = [*items[: done.front], *done.items, *items[done.end :]]
        after = 0 if tokens is None else tokens - done.saved
        if not same_model:
            # Drawn for another model of the same layout: what it saves is counted anew
            # in this model's tokens (its images may cost another amount).
            after = self.count(
                target, request_conversation(shape, new, key[0]).path()
            ) + self.outside(shape, new, target)
            if tokens is not None and after > limit:
                return None
        data = _encode(new)
        if caps.over(data, count_images(new)):
            return None
        return RequestPlan(
            new,
            True,
            0 if tokens is None else tokens,
            after,
            target.text_counter,
            window,
            budget=trigger,
            rungs=done.rungs,
            pages=done.pages,
            reused_pass=True,
            pages_reused=done.pages,
            items_reused=len(done.items),
            layout=("dense" if done.dense else "default") if done.pages else None,
            data=data,
            ceiling=limit,
        )

    def _base(self, key: PassKey, conv: Conversation) -> tuple[Conversation, _Pass | None]:
        """What a new pass compacts: the previous pass's result and the client's newer
        messages, when the client's history still begins with what that pass compacted."""
        with self._lock:
            done = self._passes.get(key)
        if done is None or done.result is None:
            return conv, None
        path = conv.path()
        if len(path) < done.source_len or _path_digest(path[: done.source_len]) != (
            done.source_digest
        ):
            return conv, None
        return linear_copy(conv, [*done.result.path(), *path[done.source_len :]]), done

    def _new_pass(
        self,
        shape: Shape,
        body: dict[str, Any],
        key: tuple[str, str],
        conv: Conversation,
        tokens: int,
        outside: int,
        goal: int,
        target: Target,
        window: int | None,
        caps: Budget,
        summarizer: SummarizerFactory | None,
        *,
        smaller_than: tuple[int, bytes, bool] | None = None,
        must_fit: int | None = None,
        fresh: bool = False,
        ids_share: float | None = None,
        ceiling: int = 0,
        keep: bool = True,
    ) -> RequestPlan:
        """A new pass to ``goal`` tokens; with ``smaller_than`` (tokens and bytes of a
        refused body, whether it was refused for its bytes) the result must be smaller
        than it by the margin, never the same body. The dense layout and a summary come
        only when the free rungs leave more than ``must_fit`` tokens (default: the goal).

        ``fresh``: drawn anew from the client's history in the dense layout (one segment,
        the fewest pages), not built on the previous pass; ``ids_share``: the exact-id
        index's share (default: the previous pass's, else the sheets'); ``ceiling``: the
        tokens the pass may be reused up to (0: the threshold); ``keep=False``: the pass is
        not remembered (:meth:`_keep` does it for the one chosen)."""

        def unchanged(failure: str, fits: bool = False) -> RequestPlan:
            return RequestPlan(
                body,
                False,
                tokens,
                tokens,
                target.text_counter,
                window,
                budget=goal,
                fits=fits,
                failure=failure,
                outside=outside,
                conversation=conv,
            )

        slot = pass_key(key, target)
        base, previous = self._base(slot, conv)
        with self._lock:
            last = self._passes.get(slot)
        if ids_share is None and last is not None:
            ids_share = last.ids_share
        if fresh:
            base, previous = conv, None
        # The ladder's own byte and image caps: what the fields outside the history leave.
        rest = {k: v for k, v in body.items() if k != shape.history_key}
        planning = target
        room: int | None = None
        if caps.max_bytes is not None:
            room = max(caps.max_bytes - len(_encode(rest)), 0)
            planning = replace(planning, max_request_bytes=room)
        if caps.max_images is not None:
            planning = replace(planning, max_images=min(planning.max_images, caps.max_images))
        forced = _over_budget(base, caps.max_images, room)
        if forced:
            # Over the provider's image count or size as the client sent it: old images
            # become placeholders first (a tool result keeps its call, its images as text).
            from snapshot.ladder.images import drop_images

            for turns in (1, 0):
                dropped = drop_images(base, keep_turns=turns).conversation
                if not _over_budget(dropped, caps.max_images, room):
                    break
            base = dropped
        dense = fresh or (previous.dense if previous is not None else False)
        result, dense = self._ladder(
            base,
            planning,
            goal - outside,
            dense=dense,
            model=target.model,
            summarizer=summarizer,
            must_fit=(goal if must_fit is None else must_fit) - outside,
            ids_share=ids_share,
        )
        if base is conv and not result.rungs_taken:
            return unchanged(result.failure or "no rung changed the request", result.fits)
        spliced = splice(shape, body, conv, result.conversation, target.model)
        if spliced.body is body:
            return unchanged(result.failure or "no item of the history changed", result.fits)
        after = self.count(target, result.conversation.path()) + outside
        data = _encode(spliced.body)
        if after >= tokens and not forced:  # (a pass for the budget shrinks its images)
            return unchanged(
                f"the pass would not shrink the request ({tokens:,} → {after:,} tokens); not sent"
            )
        over = caps.over(data, count_images(spliced.body))
        if over:
            return unchanged(f"the compacted body breaks the provider's budget: {over}")
        failure = result.failure
        fits = result.fits and after <= goal
        if smaller_than is not None:
            refused_tokens, refused, _by_bytes = smaller_than
            if not _smaller(data, after, smaller_than):
                fits = False
                failure = "; ".join(
                    f
                    for f in (
                        failure,
                        f"the retry ({after:,} tokens, {len(data):,} bytes) would not be "
                        f"{RECOVERY_MARGIN:.0%} smaller than the refused body "
                        f"({refused_tokens:,} tokens, {len(refused):,} bytes); not retried",
                    )
                    if f
                )
        items = shape.history(body) or []
        front, end = spliced.replaced
        pages = tuple(result.pages)
        digests = _page_digests(result.conversation)
        done = _Pass(
            _digest(items[:end]),
            front,
            end,
            spliced.items,
            tokens - after,
            self._rungs(result, previous, forced),
            len(digests),
            result=result.conversation,
            source_len=len(conv.path()),
            source_digest=_path_digest(conv.path()),
            dense=dense,
            page_digests=digests,
            item_digests=_item_digests([*items[:front], *spliced.items]),
            model=target.model,
            ceiling=ceiling,
            ids_share=ids_share,
        )
        if keep and (smaller_than is None or fits):
            with self._lock:
                self._passes[slot] = done
        shared = kept = 0
        if last is not None:
            shared = shared_prefix(last.page_digests, done.page_digests)
            kept = shared_prefix(last.item_digests, done.item_digests) - last.front
        return RequestPlan(
            spliced.body,
            True,
            tokens,
            after,
            target.text_counter,
            window,
            budget=goal,
            rungs=done.rungs,
            fits=fits,
            failure=failure,
            pages=done.pages,
            pages_reused=shared,
            items_reused=max(kept, 0),
            outside=outside,
            layout=("dense" if dense else "default") if done.pages else None,
            summary=_summary_record(result),
            conversation=conv,
            pass_id=done.digest,
            sheets=pages,
            data=data,
            exact_ids=_exact_ids(result),
            ceiling=ceiling or None,
            made=done,
        )

    @staticmethod
    def _rungs(
        result: LadderResult, previous: _Pass | None, dropped: bool = False
    ) -> tuple[str, ...]:
        """The rungs behind what is sent: this pass's and those of the pass it builds on."""
        taken = list(previous.rungs) if previous is not None else []
        for rung in (*(("drop_images",) if dropped else ()), *result.rungs_taken):
            if rung not in taken:
                taken.append(rung)
        return tuple(taken)

    def _ladder(
        self,
        conv: Conversation,
        target: Target,
        budget: int,
        *,
        dense: bool,
        model: str,
        summarizer: SummarizerFactory | None,
        must_fit: int,
        ids_share: float | None = None,
    ) -> tuple[LadderResult, bool]:
        """The free rungs to ``budget``; when they leave more than ``must_fit`` tokens (the
        threshold, or a provider's limit), the dense layout, then a summary (with a
        summarizer). Returns the result and whether its new pages are dense."""
        sheets = replace(self.sheets, dense=dense)
        if ids_share is not None:
            sheets = replace(sheets, exact_ids_share=ids_share)
        rungs = FREE_RUNGS if self.rungs is None else self.rungs
        free = LadderOptions(rungs=rungs, sheets=sheets)
        result = run_ladder(conv, target, budget, options=free)
        if result.tokens_after > must_fit and not dense and target.vision and self.dense:
            denser = replace(free, sheets=replace(sheets, dense=True))
            tried = run_ladder(conv, target, budget, options=denser)
            if tried.tokens_after < result.tokens_after:
                result, dense, free = tried, True, denser
        if summarizer is None or result.tokens_after <= must_fit:
            return result, dense
        # A summary only from its own requests (the retained text), never the overflow.
        made = summarizer(self.summary_limit(model))
        return run_ladder(
            conv, target, budget, summarizer=made, options=replace(free, rungs=RUNGS)
        ), dense

    # -- recovery --------------------------------------------------------------------

    def _fresh_pass(
        self,
        shape: Shape,
        body: dict[str, Any],
        model: str,
        key: tuple[str, str],
        limit: int,
        summarizer: SummarizerFactory | None,
        conv: Conversation | None = None,
    ) -> RequestPlan | None:
        """A pass drawn anew (not built on the previous one) to the recovery margin under
        ``limit``; None when that still does not fit."""
        target = self.target(model)
        conv, outside, tokens = self._read(shape, body, key, target, conv)
        goal = int(limit * (1 - RECOVERY_MARGIN))
        caps = self.budget(shape.provider, target, model)
        window = self.window(model)
        tight = self._to_ceiling(shape, body, model, key, conv, goal, None)
        if tight is not None:
            return self._keep(key, tight)
        with self._lock:
            self._passes.pop(pass_key(key, target), None)
        if summarizer is None:
            return None
        plan = self._new_pass(
            shape, body, key, conv, tokens, outside, goal, target, window, caps, summarizer
        )  # fmt: skip
        return plan if plan.changed and plan.fits and plan.tokens_after <= limit else None

    def recover(
        self,
        shape: Shape,
        body: dict[str, Any],
        model: str,
        key: tuple[str, str],
        overflow: Overflow,
        sent: RequestPlan,
        *,
        refused: bytes | None = None,
        summarizer: SummarizerFactory | None = None,
    ) -> RequestPlan:
        """Learn from a rejection, then plan the client's body to the limit it taught.

        ``sent`` is the plan whose body was refused (``refused``: its bytes). The retry
        is at least :data:`RECOVERY_MARGIN` smaller than that body (tokens, or bytes for
        a 413) and never the same bytes; a second rejection of this conversation under
        the same learned state is never retried.
        """
        repeat = self.learn(shape, model, key, overflow, sent, refused=refused)
        target = self.target(model)
        with self._lock:
            self._passes.pop(pass_key(key, target), None)
        conv, outside, tokens = self._read(shape, body, key, target, sent.conversation)
        data = refused if refused is not None else _encode(sent.body)
        sent_conv = request_conversation(shape, sent.body, key[0]) if sent.changed else conv
        refused_tokens = self.count(target, sent_conv.path()) + self.outside(
            shape, sent.body, target
        )
        window = self.window(model)
        goal = int(min(window or refused_tokens, refused_tokens) * (1 - RECOVERY_MARGIN))
        caps = self.budget(shape.provider, target, model)
        smaller_than = (refused_tokens, data, overflow.status == 413)
        plan = self._new_pass(
            shape,
            body,
            key,
            conv,
            tokens,
            outside,
            goal,
            target,
            window,
            caps,
            None,  # free before paid: a summary only when no free pass fits
            smaller_than=smaller_than,
            keep=False,
        )
        if not plan.fits:
            tight = self._to_ceiling(
                shape, body, model, key, conv, goal, plan, smaller_than=smaller_than
            )
            if tight is not None:
                plan = tight
            elif summarizer is not None:
                plan = self._new_pass(
                    shape, body, key, conv, tokens, outside, goal, target, window, caps,
                    summarizer, smaller_than=smaller_than, keep=False,
                )  # fmt: skip
        if plan.fits:
            self._keep(key, plan)
        if repeat:
            return replace(
                plan,
                fits=False,
                failure="this conversation was already refused under the same learned limit; "
                "not retried",
            )
        return plan

    def learn(
        self,
        shape: Shape,
        model: str,
        key: tuple[str, str],
        overflow: Overflow,
        sent: RequestPlan,
        *,
        refused: bytes | None = None,
    ) -> bool:
        """What a rejection of ``sent`` teaches: the stated limit, or (no figures) the
        refused body's own count as an upper bound; the correction where the provider
        counted (over the text, system and tools, images left at their own rule); the
        byte size of a body refused for its bytes. True when this conversation was
        already refused under the same learned state (a repeat: never retried)."""
        target = self.target(model)
        before = self.limits.get(self.upstream, model).state
        with self._lock:
            repeat = (*key, before) in self._refused
            self._refused.add((*key, before))
        sent_conv = (
            request_conversation(shape, sent.body, key[0])
            if sent.changed or sent.conversation is None
            else sent.conversation
        )
        outside = self.outside(shape, sent.body, target)
        split = target.context_tokens(sent_conv.path())
        text = split.text + outside
        correction = None
        if overflow.counted is not None and text > 0:
            # The provider's count is the truth, whichever way it differs (bounded: one
            # odd reply cannot make the counter absurd). Images are counted by their own
            # rule, so only the text's share is corrected.
            uncorrected = text / target.correction
            correction = min(max((overflow.counted - split.images) / uncorrected, 0.5), 4.0)
        too_large = overflow.status == 413
        own_count = split.total + outside
        learned = self.limits.learn(
            self.upstream,
            model,
            limit=overflow.limit,
            correction=correction,
            bound=None if too_large or overflow.limit is not None else own_count,
            too_many_bytes=(len(refused) if refused is not None else None) if too_large else None,
        )
        if learned.state == before and not too_large:
            # Nothing new (a bounded correction, a limit already known): the refused
            # body's count still bounds the limit, so the next plan is not the same.
            self.limits.learn(self.upstream, model, limit=None, correction=None, bound=own_count)
        return repeat


def _exact_ids(result: LadderResult) -> dict[str, int] | None:
    """The snapshot rung's exact-id coverage, as its record holds it."""
    for step in result.steps:
        if step.rung == "snapshot" and "exact_ids" in step.data:
            return dict(step.data["exact_ids"])
    return None


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
        # Its own requests, each within the model's limit (counted, labelled like the plan).
        "calls": summary.calls,
        "largest_request_tokens": summary.largest_request,
        "request_limit": summary.request_limit,
        "usage": summary.usage,
        "usage_label": "measured" if summary.usage else None,
        "dollars": usage_dollars(model, summary.usage),
    }
