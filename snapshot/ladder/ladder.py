"""The ladder: rungs in cost order, stopping at the first state under the token budget.

Free rungs come first (elide, drop images, snapshot); the summary, one model
call, comes last. The reader decides: a reader without vision never gets pages
and goes from the free text rungs straight to the summary, because pixels
nobody can see are a deleted conversation.

Reactive recovery: when a provider counts by its own exact rule and rejects a
request the estimate said would fit, :func:`recover` re-runs the free rungs
alone with the estimator corrected by the provider's count (no model call: that
call would overflow too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from snapshot.ladder.cut import find_cut
from snapshot.ladder.elide import elide
from snapshot.ladder.images import drop_images
from snapshot.ladder.record import RungRecord, StrategyResult, linear_copy
from snapshot.ladder.sheets import SheetOptions, snapshot
from snapshot.ladder.summary import (
    MEASURED_SUMMARY_SOURCE,
    ModelledSummarizer,
    Summarizer,
    Summary,
)
from snapshot.ladder.target import Target
from snapshot.transcript.model import Conversation, Message, TextBlock

FREE_RUNGS = ("elide", "drop_images", "snapshot")
RUNGS = (*FREE_RUNGS, "summary")


@dataclass(frozen=True)
class LadderOptions:
    """How :func:`run_ladder` climbs, besides the reader and the budget.

    ``keep_turns``: recent turns every rung keeps verbatim; ``elide_keep_steps``
    and ``elide_min_chars``: elide keeps the results of the last that many
    assistant steps and leaves shorter results alone; ``sheets``: the snapshot
    rung's :class:`~snapshot.ladder.sheets.SheetOptions`; ``rungs``: the rungs
    tried, in order (:data:`FREE_RUNGS` for a request sent as it is).

    >>> LadderOptions(rungs=FREE_RUNGS).rungs, LadderOptions().keep_turns
    (('elide', 'drop_images', 'snapshot'), 2)
    """

    keep_turns: int = 2
    # Elide keeps the results of the last this many assistant steps (its unit of "recent").
    elide_keep_steps: int = 2
    elide_min_chars: int = 200
    sheets: SheetOptions = field(default_factory=SheetOptions)
    rungs: tuple[str, ...] = RUNGS


@dataclass(frozen=True)
class LadderResult:
    """What :func:`run_ladder` did: the conversation after it, each rung's record, the tokens.

    ``steps`` holds one :class:`~snapshot.ladder.record.RungRecord` per rung
    tried (``rungs_taken``: those that changed something); ``fits`` says the
    budget was met and nothing refused it; ``failure`` says why not; ``summary``
    and ``model_calls`` are the summary rung's; ``pages`` the snapshot rung's.

    >>> from importlib import resources
    >>> from pathlib import Path
    >>> from snapshot.ladder.target import target_for
    >>> from snapshot.transcript.formats import import_path
    >>> demo = resources.files("snapshot.demo") / "transcripts" / "demo-coding.json"
    >>> [conv] = import_path(Path(str(demo)))
    >>> result = run_ladder(conv, target_for("claude-opus-5"), 4000)
    >>> result.fits, result.rungs_taken, result.tokens_after <= result.budget < result.tokens_before
    (True, ('elide', 'snapshot'), True)
    >>> len(result.pages) > 0
    True
    """

    conversation: Conversation
    steps: tuple[RungRecord, ...]
    tokens_before: int
    tokens_after: int
    budget: int
    failure: str | None = None
    summary: Summary | None = None
    model_calls: int = 0
    correction: float = 1.0
    pages: tuple[Any, ...] = ()

    @property
    def fits(self) -> bool:
        """Under budget and nothing refused it (a provider's rejection is never a fit)."""
        return self.failure is None and self.tokens_after <= self.budget

    @property
    def rungs_taken(self) -> tuple[str, ...]:
        return tuple(s.rung for s in self.steps if s.changed)


def summarize_middle(
    conv: Conversation,
    target: Target,
    summarizer: Summarizer,
    *,
    keep_turns: int,
    tail_share: float | None = None,
) -> tuple[StrategyResult, Summary]:
    """Replace the middle with a summary message (head and tail verbatim)."""
    path = conv.path()
    head, middle, tail = find_cut(path, keep_turns=keep_turns, tail_share=tail_share).split(path)
    if not middle:
        return StrategyResult(
            conv, RungRecord("summary", notes=("no middle to summarize",))
        ), Summary(text="", source="modelled", input_chars=0, output_chars=0)
    # A summarizer reads an earlier snapshot's retained source text, not its pixels.
    readable = [
        Message(m.id, m.parent, m.role, (TextBlock(str(m.meta["source_text"])),), m.meta)
        if m.meta.get("kind") == "snapshot"
        else m
        for m in middle
    ]
    summary = summarizer.summarize(conv, readable)
    text = summary.text
    if text is None:
        text = (
            f"[summary of {len(middle)} messages: modelled only, {summary.output_chars:,} "
            "characters of model output priced, none available offline]"
        )
    message = Message(
        id=f"summary-{middle[0].id[-8:]}-{middle[-1].id[-8:]}",
        parent=None,
        role="user",
        blocks=(TextBlock(f"Summary of the earlier conversation:\n{text}"),),
        meta={"kind": "summary", "source": summary.source, "covers": [m.id for m in middle]},
    )
    record = RungRecord(
        "summary",
        changed=len(middle),
        chars_removed=sum(m.chars() for m in middle),
        notes=(f"{len(middle)} messages → one {summary.source} summary",),
        data={"summary_source": summary.source, "summary_chars": summary.output_chars},
    )
    return StrategyResult(linear_copy(conv, [*head, message, *tail]), record), summary


def _summary_tokens(target: Target, summary: Summary, result: Conversation) -> int:
    # A modelled summary has no text: price its measured output size instead.
    tokens = target.tokens(result.path())
    if summary.text is None:
        placeholder = next(m for m in result.path() if m.meta.get("kind") == "summary")
        tokens += round(summary.output_chars / target.chars_per_token) - target.message_tokens(
            placeholder
        )
    return tokens


def _finish(
    conv: Conversation,
    steps: list[RungRecord],
    before: int,
    tokens: int,
    budget: int,
    target: Target,
    *,
    pages: tuple[Any, ...] = (),
    summary: Summary | None = None,
    model_calls: int = 0,
) -> LadderResult:
    """The ladder's result; a result over budget always says why."""
    failure = None if tokens <= budget else _budget_failure(conv, target, budget, tokens)
    return LadderResult(
        conv,
        tuple(steps),
        before,
        tokens,
        budget,
        failure,
        summary,
        model_calls,
        target.correction,
        pages,
    )


def run_ladder(
    conv: Conversation,
    target: Target,
    budget: int,
    *,
    summarizer: Summarizer | None = None,
    options: LadderOptions | None = None,
) -> LadderResult:
    """Climb the ladder until the conversation's path fits ``budget`` tokens.

    The free rungs (elide, drop images, snapshot) come first, then the summary
    (``options.rungs`` picks them; ``FREE_RUNGS`` for a request sent as is). A pass
    on a conversation an earlier pass compacted keeps its snapshot pages (redrawn
    from their text into the same bytes) and widens the imaged middle.

    The summary rung runs only with a ``summarizer``. Without one (the default)
    nothing is inserted and the result does not fit; the summary step's record
    holds what a summary of the measured mean size would bring the request to,
    labelled modelled (``modelled_tokens``). A summarizer that only models its
    size (:class:`~snapshot.ladder.summary.ModelledSummarizer`, the report's) is
    the one way to get a placeholder into the conversation.

    >>> from snapshot.ladder.target import target_for
    >>> from snapshot.transcript.model import linear, TextBlock, ToolCall, ToolResult
    >>> conv = linear("c", [("u", "user", [TextBlock("task")])] + [
    ...     m for i in range(20) for m in (
    ...         (f"a{i}", "assistant", [ToolCall(f"t{i}", "bash", {"cmd": f"step {i}"})]),
    ...         (f"r{i}", "tool", [ToolResult(f"t{i}", (TextBlock("ok " * 300),))]))
    ... ] + [("z", "assistant", [TextBlock("done")])])
    >>> result = run_ladder(conv, target_for("gpt-5.5"), 3_000, options=LadderOptions(rungs=FREE_RUNGS))
    >>> result.fits, result.rungs_taken
    (True, ('elide',))
    >>> short = run_ladder(conv, target_for("gpt-5.5"), 500)  # default: no summarizer
    >>> short.fits, short.rungs_taken, short.steps[-1].data["modelled_tokens"] > 0
    (False, ('elide',), True)
    """
    opts = options or LadderOptions()
    before = target.tokens(conv.path())
    steps: list[RungRecord] = []
    pages: tuple[Any, ...] = ()
    # The rungs cut, count and render the path by index: it is held whole (a
    # spilled conversation's path parsed here), the rest of its messages are not.
    current = linear_copy(conv, conv.path())
    if not target.vision and any(m.images() for m in current.path()):
        # A reader without vision never receives an image: every one becomes a placeholder.
        blind = drop_images(current, keep_turns=0)
        steps.append(replace(blind.record, notes=("reader has no vision", *blind.record.notes)))
        current = blind.conversation
    tokens = target.tokens(current.path())

    for rung in opts.rungs:
        if tokens <= budget or rung == "summary":
            break
        if rung == "snapshot" and not target.vision:
            steps.append(RungRecord("snapshot", notes=("skipped: the reader has no vision",)))
            continue
        result = _apply(rung, current, target, opts, budget)
        after = target.tokens(result.conversation.path())
        if after > tokens:
            # A rung can cost more than it saves (a short middle drawn as a full page):
            # the ladder never takes a step that grows the request.
            note = f"not taken: it would grow the request ({tokens:,} → {after:,} tokens)"
            steps.append(RungRecord(rung, notes=(note,), data=dict(result.record.data)))
            continue
        steps.append(result.record)
        current = result.conversation
        pages = result.pages or pages
        tokens = after

    if tokens <= budget or "summary" not in opts.rungs:
        return _finish(current, steps, before, tokens, budget, target, pages=pages)
    if summarizer is None:
        return _no_summarizer(current, steps, before, tokens, budget, target, opts, pages)

    result, summary = summarize_middle(
        current,
        target,
        summarizer,
        keep_turns=opts.keep_turns,
        tail_share=opts.sheets.tail_share,
    )
    summarized = _summary_tokens(target, summary, result.conversation)
    calls = 1 if summary.source == "model" else 0
    if summarized >= tokens:
        # A summary longer than what it replaces only costs more: keep the free result.
        steps.append(
            RungRecord(
                "summary",
                notes=(
                    f"not taken: the {summary.source} summary ({summarized:,} tokens in all) "
                    f"would not shrink the request ({tokens:,})",
                ),
            )
        )
        return _finish(
            current, steps, before, tokens, budget, target, pages=pages, model_calls=calls
        )
    steps.append(result.record)
    return _finish(
        result.conversation,
        steps,
        before,
        summarized,
        budget,
        target,
        summary=summary,
        model_calls=calls,
    )


def _no_summarizer(
    current: Conversation,
    steps: list[RungRecord],
    before: int,
    tokens: int,
    budget: int,
    target: Target,
    opts: LadderOptions,
    pages: tuple[Any, ...],
) -> LadderResult:
    """The free result when the summary rung is next and no summarizer was given.

    Nothing is inserted: a summary with no text would be a placeholder in the
    request and a fit nobody could send. What a summary of the measured mean
    size would bring the request to stays a figure, labelled modelled, in the
    summary step's record (``modelled_tokens``) and in the failure.
    """
    modelled, summary = summarize_middle(
        current,
        target,
        ModelledSummarizer(),
        keep_turns=opts.keep_turns,
        tail_share=opts.sheets.tail_share,
    )
    figure = _summary_tokens(target, summary, modelled.conversation)
    steps.append(
        RungRecord(
            "summary",
            notes=(
                "not taken: no summarizer given; a summary would bring the request to "
                f"{figure:,} tokens (modelled only, nothing sent)",
            ),
            data={"modelled_tokens": figure, "modelled_size_source": MEASURED_SUMMARY_SOURCE},
        )
    )
    result = _finish(current, steps, before, tokens, budget, target, pages=pages)
    return replace(
        result,
        failure=f"{result.failure}; the next rung is a summary and no summarizer was given "
        "(pass summarizer=LiveSummarizer(MODEL) for one)",
    )


def _apply(
    rung: str, conv: Conversation, target: Target, opts: LadderOptions, budget: int
) -> StrategyResult:
    if rung == "elide":
        return elide(conv, keep_steps=opts.elide_keep_steps, min_chars=opts.elide_min_chars)
    if rung == "drop_images":
        return drop_images(conv, keep_turns=opts.keep_turns)
    if rung == "snapshot":
        return _snapshot_to_budget(conv, target, opts, budget)
    raise ValueError(f"unknown rung {rung!r}; rungs: {', '.join(RUNGS)}")


def _snapshot_to_budget(
    conv: Conversation, target: Target, opts: LadderOptions, budget: int
) -> StrategyResult:
    """Image the middle; if that does not fit, image more of the tail, down to the last exchange."""
    share = opts.sheets.tail_share if opts.sheets.tail_share is not None else 0.2
    best: StrategyResult | None = None
    best_tokens = 0
    for tail_share in (share, share / 2, share / 4, 0.0):
        sheet = replace(opts.sheets, keep_turns=opts.keep_turns, tail_share=tail_share)
        result = snapshot(conv, target, sheet)
        tokens = target.tokens(result.conversation.path())
        if best is None or tokens < best_tokens:
            best, best_tokens = result, tokens
        if tokens <= budget:
            break
    assert best is not None
    return best


def _budget_failure(conv: Conversation, target: Target, budget: int, tokens: int) -> str:
    path = conv.path()
    head = find_cut(path, keep_turns=0).split(path)[0]
    floor = target.tokens(head)
    if floor > budget:
        return (
            f"the budget of {budget:,} tokens is smaller than the verbatim head alone "
            f"({_what_tokens(target, head, floor)}); nothing the ladder may remove can fit it"
        )
    return (
        f"still {_what_tokens(target, path, tokens)} after every rung, "
        f"over the budget of {budget:,}"
    )


def _what_tokens(target: Target, messages: Sequence[Message], tokens: int) -> str:
    """What ``tokens`` are made of: ``"9,000 tokens: 8,000 in 8 images, 1,000 text"``."""
    images = [img for m in messages for img in m.images()]
    if not images:
        return f"{tokens:,} tokens, all text"
    image_tokens = sum(target.image_cost(img) for img in images)
    pages = sum(len(m.images()) for m in messages if m.meta.get("kind") == "snapshot")
    kind = f" ({pages} snapshot pages)" if pages else ""
    return (
        f"{tokens:,} tokens: {image_tokens:,} in {len(images)} images{kind}, "
        f"{max(tokens - image_tokens, 0):,} text"
    )


# --- reactive recovery ---------------------------------------------------------


@dataclass(frozen=True)
class Rejection:
    """A provider's refusal: the count it made by its own rule."""

    counted: int
    limit: int
    message: str


Send = Callable[[Sequence[Message]], Rejection | None]

#: The share of a provider's stated limit a recovery plan leaves free: the estimator
#: is corrected by one count, and the next request may count a little differently.
RECOVERY_MARGIN = 0.05


def recovery_budget(budget: int, rejection: Rejection, margin: float = RECOVERY_MARGIN) -> int:
    """What a plan after ``rejection`` aims at: the provider's limit less ``margin``, or less.

    >>> recovery_budget(200_000, Rejection(counted=130_000, limit=100_000, message="too long"))
    95000
    >>> recovery_budget(50_000, Rejection(counted=130_000, limit=100_000, message="too long"))
    50000
    """
    return max(1, min(budget, int(rejection.limit * (1.0 - margin))))


def recover(
    conv: Conversation,
    target: Target,
    budget: int,
    send: Send,
    *,
    options: LadderOptions | None = None,
    attempts: int = 3,
    margin: float = RECOVERY_MARGIN,
) -> LadderResult:
    """Send; on a rejection re-plan, with free rungs only, to the provider's stated limit.

    The first plan takes the free rungs (elide, drop images, snapshot) to
    ``budget``; a summary is never planned here (offline it has no text, and a
    live one would overflow too). Each rejection corrects the estimator by the
    provider's count over ours for the same request (``LadderResult.correction``)
    and the next plan aims at the smaller of ``budget`` and the provider's
    ``limit`` less ``margin`` (:func:`recovery_budget`). The result ``fits`` only
    when the provider accepted the last request; otherwise ``failure`` says
    "provider still rejects".

    >>> from snapshot.ladder.provider import SimulatedProvider
    >>> from snapshot.ladder.target import target_for
    >>> from snapshot.transcript.model import linear, TextBlock, ToolCall, ToolResult
    >>> conv = linear("c", [("u", "user", [TextBlock("task")])] + [
    ...     m for i in range(20) for m in (
    ...         (f"a{i}", "assistant", [ToolCall(f"t{i}", "bash", {"cmd": "cat log"})]),
    ...         (f"r{i}", "tool", [ToolResult(f"t{i}", (TextBlock("ok " * 300),))]))
    ... ] + [("z", "assistant", [TextBlock("done")])])
    >>> provider = SimulatedProvider(limit=2_000)  # offline stand-in, counts exactly
    >>> result = recover(conv, target_for("gpt-5.1"), 10**6, provider)
    >>> result.fits, result.budget <= 1_900, provider(result.conversation.path()) is None
    (True, True, True)
    """
    opts = replace(options or LadderOptions(), rungs=FREE_RUNGS)
    result = run_ladder(conv, target, budget, options=opts)
    current_target = target
    free = opts
    for _ in range(attempts):
        rejection = send(result.conversation.path())
        if rejection is None:
            return result
        estimate = max(1, current_target.tokens(result.conversation.path()))
        factor = current_target.correction * rejection.counted / estimate
        current_target = current_target.with_correction(
            max(factor, current_target.correction * 1.01)
        )
        plan = recovery_budget(budget, rejection, margin)
        # Tighter plan: fewer verbatim turns, every uneventful result elided.
        free = replace(
            free,
            keep_turns=max(1, free.keep_turns - 1),
            elide_keep_steps=max(1, free.elide_keep_steps - 1),
            elide_min_chars=0,
        )
        result = run_ladder(conv, current_target, plan, options=free)
        result = replace(
            result,
            steps=(
                RungRecord(
                    "recover",
                    notes=(
                        f"provider counted {rejection.counted:,} > {rejection.limit:,}: "
                        f"estimator corrected ×{current_target.correction:.3f}; planning to "
                        f"{plan:,} tokens (the provider's limit less {margin:.0%}, "
                        f"or the budget if smaller)",
                    ),
                    data={
                        "provider_count": rejection.counted,
                        "provider_limit": rejection.limit,
                        "planned_budget": plan,
                        "correction": current_target.correction,
                    },
                ),
                *result.steps,
            ),
        )
    final = send(result.conversation.path())
    if final is not None:
        return replace(result, failure=f"provider still rejects: {final.message}")
    return result
