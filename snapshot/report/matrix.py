"""Every conversation × strategy × profile: tokens, dollars, pages, time and needle recall."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from snapshot.billing.prices import Price
from snapshot.ladder.cut import find_cut
from snapshot.ladder.elide import elide, elided_chars, forget_texts, tool_result_chars
from snapshot.ladder.images import drop_images
from snapshot.ladder.ladder import LadderOptions, run_ladder, summarize_middle
from snapshot.ladder.needles import Needle, found, sample_needles
from snapshot.ladder.record import StrategyResult
from snapshot.ladder.sheets import SheetOptions, snapshot
from snapshot.ladder.summary import (
    MEASURED_SUMMARY_CHARS,
    MEASURED_SUMMARY_SOURCE,
    ModelledSummarizer,
    Summarizer,
    Summary,
    corpus_summarizer,
)
from snapshot.ladder.target import Target
from snapshot.rendering.page import Page
from snapshot.report import provenance
from snapshot.report.costs import request_dollars, session_dollars, summary_call_dollars
from snapshot.report.readability import (
    OcrRows,
    ReadCache,
    Recall,
    WholePageRecall,
    pages_recall,
    visible_text,
    whole_page_recall,
)
from snapshot.report.sources import Source
from snapshot.report.validation import request_validation
from snapshot.transcript.model import Conversation, Message

STRATEGIES = (
    "none",
    "elide",
    "drop_images",
    "snapshot",
    "snapshot+factsheet",
    "snapshot+foveate",
    "snapshot+dense",  # the dense frontier layout (legibility.frontier) beside the default
    "summary",
    "ladder",
)


@dataclass(frozen=True)
class Settings:
    """How each conversation × profile is measured; every default is ``snapshot report``'s.

    ``keep_turns`` and ``tail_share``: the verbatim tail (turns, and its largest
    share of the conversation); ``needles_per_kind``: needles sampled per kind
    from the middle, by ``seed``; ``factsheet_chars``: the factsheet's budget;
    ``foveate_chars``: the characters of the middle nearest the tail that
    ``snapshot+foveate`` draws in the profile's default layout (the rest dense);
    ``next_turns``: the further turns the session cost counts; ``budget_ratio``:
    the ladder's budget as a share of each conversation's tokens. The other
    fields are described where they are declared. Part of
    :class:`snapshot.report.options.ReportOptions`.

    >>> Settings(budget_ratio=0.5, tier="batch").budget_ratio, Settings().keep_turns
    (0.5, 2)
    """

    keep_turns: int = 2
    tail_share: float = 0.2
    needles_per_kind: int = 4
    factsheet_chars: int = 2000
    foveate_chars: int = 6000
    next_turns: int = 10
    budget_ratio: float = 0.3
    ocr_rows: int = 0  # rows per conversation × profile read as crops given the renderer's rows
    seed: int = 20261129
    # The modelled summary's output size: measured by the run on its own real
    # summaries (snapshot/report/summaries.py), this default only when it has none.
    summary_chars: int = MEASURED_SUMMARY_CHARS
    summary_size_source: str = MEASURED_SUMMARY_SOURCE
    # A JSON/TOML profiles file (``--profile``, e.g. from ``snapshot tune``) whose profiles
    # win over the tables for the models it names.
    profiles_file: str | None = None
    # Whole-page readers (snapshot.legibility.page_readers names) and their sample:
    # full pages per conversation × profile, needles per class on each page, and
    # the strategies whose pages they read.
    page_readers: tuple[str, ...] = ()
    reader_pages: int = 1
    # > 0: the readers read a band, the top N text rows of each sampled full page at its
    # real width (report.reader_plan: the quick start's), not the whole page.
    reader_band_rows: int = 0
    # "reader@profile" pairs the default plan leaves unread to stay inside its CPU budget
    reader_skip: tuple[str, ...] = ()
    page_needles_per_class: int = 3
    reader_strategies: tuple[str, ...] = ("snapshot", "snapshot+factsheet")
    # How many conversations the readers read (0: every one), and the seeded
    # sample of ids the run drew (readability.reader_sample; empty: every one).
    reader_conversations: int = 0
    reader_sources: tuple[str, ...] = ()
    # Read each sampled page again 4 px larger and smaller (report.page_jitter): a reader
    # whose verdict flips with the page size is marked unstable (issue 25).
    reader_jitter: bool = True
    # Read each sampled page again after the 0.9× bicubic resample where the reader passes
    # natively (the bar's third part, issue 25 item 3); at most one more reading a page.
    reader_resample: bool = True
    # The day every price is read for (YYYY-MM-DD; empty: the run's own day). Prices
    # change by date: Gemini 3.x Flash doubles on 2027-01-01.
    priced_on: str = ""
    # The price tier every dollar figure is billed at (snapshot.billing.prices.TIERS).
    tier: str = "standard"

    def reads_pages_of(self, source_id: str) -> bool:
        """Whether the whole-page readers read this conversation's pages."""
        return bool(self.page_readers) and (
            not self.reader_sources or source_id in self.reader_sources
        )


@dataclass(frozen=True)
class MatrixRow:
    source: str
    category: str
    model: str
    strategy: str
    tokens_before: int
    tokens_after: int
    seconds: float
    needles: int
    request_usd: float | None = None
    session_usd: float | None = None
    session_usd_rolling: float | None = None
    call_usd: float | None = None
    budget: int | None = None
    fits: bool | None = None
    pages: int = 0
    page_bytes: int = 0
    recall_text: float | None = None
    # The project's own decoder reading its own pages: a lossless-round-trip
    # check (did the information survive rendering), never readability.
    round_trip_check: float | None = None
    # OCR recognition on row crops cut at the renderer's row boxes (a diagnostic).
    recall_crops_given_rows: float | None = None
    crop_rows: int = 0
    # Whole-page readers on a seeded sample of full pages (see report.readability):
    # needles asked by class, found in what stayed text, found per reader on its
    # page alone, and a note for each reader that gave no measurement here.
    reader_pages: int = 0
    page_needles: dict[str, int] = field(default_factory=dict)
    page_needles_in_text: dict[str, int] = field(default_factory=dict)
    reader_found: dict[str, dict[str, int]] = field(default_factory=dict)
    reader_notes: dict[str, str] = field(default_factory=dict)
    # ... found by the reader on its page or in what stayed text (what the request holds)
    reader_found_or_text: dict[str, dict[str, int]] = field(default_factory=dict)
    # ... each reader's page-text score at the real page and ±4 px (report.page_jitter)
    reader_page_scores: dict[str, dict[str, list[int | str]]] = field(default_factory=dict)
    # ... the readers' CPU seconds on this row's pages and controls (process time, measured)
    reader_cpu_s: float = 0.0
    summary_source: str | None = None
    rungs: str = ""
    note: str = ""
    # Figure name → measured / exact / reconstructed / estimated / modelled.
    provenance: dict[str, str] = field(default_factory=dict)
    # The ladder's request validated (bodies, problems, synthetic results over real ones).
    request_validation: dict[str, Any] = field(default_factory=dict)
    # tokens_after split by where each part's count comes from.
    tokens_provenance: dict[str, int] = field(default_factory=dict)
    # The elide row: tool-result characters on the path, and those elide took out (measured).
    tool_result_chars: int = 0
    tool_result_chars_elided: int = 0
    # Of ``tokens_before``, the text's (by the profile's counter; the rest is images):
    # with SourceStats.chars, the conversation's characters per text token.
    text_tokens_before: int = 0

    @property
    def elided_share(self) -> float | None:
        """Share of this conversation's tool-result characters elided (elide row only)."""
        if self.strategy != "elide" or not self.tool_result_chars:
            return None
        return self.tool_result_chars_elided / self.tool_result_chars

    @property
    def free_rungs_only(self) -> bool:
        """The row's tokens needed no summary (real or modelled)."""
        return self.summary_source is None

    @property
    def recall(self) -> float | None:
        """Needle recall: the first whole-page reader where there are pages, else the text.

        Pages no whole-page reader read give ``None`` (not measured), never the
        round-trip check.
        """
        if self.pages:
            return self.reader_recall(self.primary_reader) if self.primary_reader else None
        return self.recall_text

    @property
    def primary_reader(self) -> str | None:
        """The first whole-page reader (in page_reader_names order) measured on this row."""
        if not self.reader_found:
            return None  # no reader read this row's pages: their module is not imported
        from snapshot.legibility.page_readers import page_reader_names

        return next((n for n in page_reader_names() if n in self.reader_found), None)

    def reader_recall(self, reader: str) -> float | None:
        """Share of this row's page needles ``reader`` got back; None when not measured."""
        hits = self.reader_found.get(reader)
        n = sum(self.page_needles.values())
        return None if hits is None or n == 0 else sum(hits.values()) / n

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "elided_share": self.elided_share}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatrixRow:
        """The row :meth:`to_json` wrote (its derived figures, such as ``elided_share``, left out)."""
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})


def source_seed(source_id: str, settings: Settings) -> int:
    """The seed of one conversation's needle samples (the live needle probe uses it too)."""
    return int(hashlib.sha256(f"{settings.seed}:{source_id}".encode()).hexdigest()[:8], 16)


_seed = source_seed


def needles_for(source: Source, settings: Settings) -> list[Needle]:
    """Needles drawn from the span every strategy compacts (the same cut for all)."""
    path = source.conversation.path()
    cut = find_cut(path, keep_turns=settings.keep_turns, tail_share=settings.tail_share)
    _, middle, _ = cut.split(path)
    # Drawn from what the messages say, not from the role lines serialization adds
    # (message ids there would be needles no text reader is ever shown).
    return sample_needles(
        visible_text(middle), seed=_seed(source.id, settings), per_class=settings.needles_per_kind
    )


def _share(hits: Sequence[bool]) -> float | None:
    return sum(hits) / len(hits) if hits else None


def _plus(a: float | None, b: float | None) -> float | None:
    return None if a is None else a + (b or 0.0)


@dataclass
class _Run:
    """One conversation read by one target: the fixed facts every row of it shares."""

    source: Source
    target: Target
    settings: Settings
    needles: list[Needle]
    reader: ReadCache
    price: Price | None = field(init=False)
    before: int = field(init=False)
    before_text: int = field(init=False)
    before_parts: dict[str, int] = field(init=False)
    turn_tokens: int = field(init=False)

    def __post_init__(self) -> None:
        path = self.source.conversation.path()
        # The id as given, from genai-prices at the run's pricing day (None: no price).
        profile = self.target.profile
        self.price = (
            profile.price(self.settings.priced_on, self.settings.tier)
            if self.settings.priced_on and profile is not None
            else self.target.price
        )
        text, images = self.text_and_images(path)
        self.before_text = text
        self.before_parts = split_tokens(self.target, text, images)
        self.before = sum(self.before_parts.values())
        # Future turns add this conversation's own average tokens per message pair.
        self.turn_tokens = max(1, 2 * self.before // max(2, len(path)))

    def token_parts(self, conv: Conversation, modelled: int = 0) -> dict[str, int]:
        """``tokens_after`` of a compacted conversation split by provenance.

        Images are priced by the provider's rule (its fact label says how sure that
        is), text by the model's counter, and ``modelled`` tokens stand for a
        summary that has no text.
        """
        return split_tokens(self.target, *self.text_and_images(conv.path()), modelled)

    def text_and_images(self, path: Sequence[Message]) -> tuple[int, int]:
        """A path's text tokens (the reader's counter) and image tokens (the provider's rule)."""
        images = _image_tokens(self.target, path)
        return self.target.tokens(path) - images, images

    def row(self, strategy: str, tokens_after: int, seconds: float, **kw: Any) -> MatrixRow:
        call = kw.get("call_usd")
        n = self.settings.next_turns
        parts: dict[str, int] = kw.pop("tokens_provenance", {}) or {}
        kw["provenance"] = self.provenance_of(kw, parts)
        kw["tokens_provenance"] = parts
        return MatrixRow(
            source=self.source.id,
            category=self.source.category,
            model=self.target.model,
            strategy=strategy,
            tokens_before=self.before,
            text_tokens_before=self.before_text,
            tokens_after=tokens_after,
            seconds=seconds,
            needles=len(self.needles),
            request_usd=request_dollars(tokens_after, self.price),
            session_usd=_plus(
                session_dollars(tokens_after, self.turn_tokens, n, self.price, prefix_stable=True),
                call,
            ),
            session_usd_rolling=_plus(
                session_dollars(tokens_after, self.turn_tokens, n, self.price, prefix_stable=False),
                call,
            ),
            **kw,
        )

    def provenance_of(self, kw: dict[str, Any], parts: dict[str, int]) -> dict[str, str]:
        """Each figure of a row and where it comes from."""
        tokens = provenance.weakest(parts) if parts else self.before_label
        out = {
            "tokens_before": self.before_label,
            "tokens_after": tokens,
            "seconds": "measured",
            "pages": "measured",
            "recall_text": "measured",
            "round_trip_check": "measured",
            "recall_crops_given_rows": "measured",
            "reader_found": "measured",
            "reader_page_scores": "measured",
        }
        if self.price is not None:
            # A published list price applied to counted tokens: as good as the count.
            out["request_usd"] = provenance.weakest([tokens, "exact"])
            out["session_usd"] = provenance.weakest([tokens, "modelled"])  # future turns assumed
            out["session_usd_rolling"] = out["session_usd"]
        if kw.get("summary_source") == "modelled":
            out["call_usd"] = "modelled"
            out["fits"] = "modelled"
        elif "fits" in kw:
            out["fits"] = tokens
        return out

    @property
    def before_label(self) -> str:
        return provenance.weakest(self.before_parts) if self.before_parts else "exact"

    def tokens_row(
        self, strategy: str, conv: Conversation, seconds: float, *, modelled: int = 0, **kw: Any
    ) -> MatrixRow:
        """A row whose ``tokens_after`` is the compacted conversation's count (plus modelled)."""
        parts = self.token_parts(conv, modelled)
        return self.row(strategy, sum(parts.values()), seconds, tokens_provenance=parts, **kw)

    def text_recall(self, conv: Conversation) -> float | None:
        if not self.needles:
            return None
        return _share(found(self.needles, visible_text(conv.path())))

    def page_recall(self, conv: Conversation, pages: Sequence[Page]) -> Recall:
        return pages_recall(
            self.needles,
            conv,
            pages,
            self.reader,
            ocr_sample=self.settings.ocr_rows,
            seed=_seed(self.source.id, self.settings),
        )

    def whole_page(self, conv: Conversation, pages: Sequence[Page]) -> WholePageRecall:
        eligible = None
        rows = self.settings.reader_band_rows
        if rows:  # full bands of any page (report.reader_plan)
            from snapshot.report.readability import band_full, band_page

            pages = [band_page(p, rows) for p in pages]
            eligible = [i for i, p in enumerate(pages) if band_full(p, rows)]
        return whole_page_recall(
            conv,
            pages,
            self.reader,
            seed=f"{_seed(self.source.id, self.settings)}:{self.target.model}",
            sample_pages=self.settings.reader_pages,
            per_class=self.settings.page_needles_per_class,
            jitter=self.settings.reader_jitter,
            resample=self.settings.reader_resample,
            eligible=eligible,
            skip={
                x.split("@", 1)[0]: "not read: over the run's reader CPU budget"
                for x in self.settings.reader_skip
                if x.split("@", 1)[1] == self.target.model
            },
        )

    def summary_usd(self, summary: Summary | None) -> float | None:
        # A corpus summary was paid for by the session that wrote it; the row still
        # prices the call it stands for, so strategies compare on equal terms.
        if summary is None:
            return None
        cpt = self.target.chars_per_token
        return summary_call_dollars(
            round(summary.input_chars / cpt), round(summary.output_chars / cpt), self.price
        )


def _timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def _sheet_row(run: _Run, name: str, res: StrategyResult, seconds: float) -> MatrixRow:
    pages = list(res.pages)
    data = res.record.data
    rec = run.page_recall(res.conversation, pages) if pages else None
    whole: dict[str, Any] = {}
    settings = run.settings
    if pages and settings.reads_pages_of(run.source.id) and name in settings.reader_strategies:
        w = run.whole_page(res.conversation, pages)
        whole = {
            "reader_pages": w.pages,
            "page_needles": w.asked,
            "page_needles_in_text": w.in_text,
            "reader_found": w.found,
            "reader_notes": w.notes,
            "reader_found_or_text": w.found_or_text,
            "reader_page_scores": w.scores,
            "reader_cpu_s": round(w.cpu_s, 2),
        }
    return run.tokens_row(
        name,
        res.conversation,
        seconds,
        pages=len(pages),
        page_bytes=int(data.get("page_bytes", 0)),
        recall_text=rec.text if rec else run.text_recall(res.conversation),
        round_trip_check=rec.round_trip if rec else None,
        recall_crops_given_rows=rec.crops if rec else None,
        crop_rows=rec.crop_rows if rec else 0,
        rungs=name,
        note="; ".join(res.record.notes[:1]),
        **whole,
    )


def _summary_row(run: _Run, res: StrategyResult, summary: Summary, seconds: float) -> MatrixRow:
    target = run.target
    recall: float | None
    conv = res.conversation
    parts = run.token_parts(conv)
    if summary.text is None:
        # Price the measured output size in place of the placeholder text.
        placeholder = next(m for m in conv.path() if m.meta.get("kind") == "summary")
        label = provenance.text_counter(target.text_estimate_label)
        parts[label] = parts.get(label, 0) - target.message_tokens(placeholder)
        parts["modelled"] = round(summary.output_chars / target.chars_per_token)
        recall = None
        note = (
            f"modelled: no real summary offline, readability not measured; "
            f"output {summary.output_chars:,} chars ({run.settings.summary_size_source})"
        )
    else:
        recall = run.text_recall(conv)
        note = f"{summary.source} summary"
    return run.row(
        "summary",
        sum(parts.values()),
        seconds,
        tokens_provenance={k: v for k, v in parts.items() if v > 0},
        call_usd=run.summary_usd(summary),
        recall_text=recall,
        summary_source=summary.source,
        rungs="summary",
        note=note,
    )


def _ladder_row(run: _Run, summarizer: Summarizer) -> MatrixRow:
    budget = max(1, int(run.before * run.settings.budget_ratio))
    opts = LadderOptions(
        keep_turns=run.settings.keep_turns,
        sheets=SheetOptions(tail_share=run.settings.tail_share),
    )
    lad, seconds = _timed(
        lambda: run_ladder(
            run.source.conversation, run.target, budget, summarizer=summarizer, options=opts
        )
    )
    kw: dict[str, Any] = {}
    if lad.summary is not None and lad.summary.text is None:
        kw["note"] = "summary modelled: readability not measured"
    elif lad.pages:
        rec = run.page_recall(lad.conversation, lad.pages)
        kw.update(
            recall_text=rec.text,
            round_trip_check=rec.round_trip,
            recall_crops_given_rows=rec.crops,
            crop_rows=rec.crop_rows,
        )
    else:
        kw["recall_text"] = run.text_recall(lad.conversation)
    snap = next((s for s in lad.steps if s.rung == "snapshot" and s.changed), None)
    if lad.failure:
        kw["note"] = lad.failure
    kw["tokens_provenance"] = _ladder_parts(run, lad)
    kw["request_validation"] = request_validation(
        run.source.conversation, lad.conversation, run.target
    )
    return run.row(
        "ladder",
        lad.tokens_after,
        seconds,
        budget=budget,
        fits=lad.fits,
        pages=len(lad.pages),
        page_bytes=int(snap.data.get("page_bytes", 0)) if snap else 0,
        call_usd=run.summary_usd(lad.summary),
        summary_source=lad.summary.source if lad.summary else None,
        rungs=" → ".join(lad.rungs_taken) or ("none needed" if lad.fits else "not met"),
        **kw,
    )


def _ladder_parts(run: _Run, lad: Any) -> dict[str, int]:
    """The ladder's ``tokens_after`` split by provenance, a modelled summary apart.

    From the ladder's own count, not a second one: images by the provider's rule, a
    modelled summary's output as the ladder priced it, and the rest is text.
    """
    target = run.target
    images = _image_tokens(target, lad.conversation.path())
    modelled = 0
    if lad.summary is not None and lad.summary.text is None:
        modelled = round(lad.summary.output_chars / target.chars_per_token)
    return split_tokens(target, lad.tokens_after - images - modelled, images, modelled)


def _image_tokens(target: Target, path: Sequence[Message]) -> int:
    return sum(target.image_cost(img) for m in path for img in m.images())


def split_tokens(target: Target, text: int, images: int, modelled: int = 0) -> dict[str, int]:
    """Tokens by provenance: text by the reader's counter, images by the provider's rule
    (its fact label says how sure that is), ``modelled`` for a summary with no text."""
    profile = target.profile
    rule = provenance.image_rule(profile.scheme_fact.label) if profile is not None else "exact"
    parts: dict[str, int] = {}
    for label, n in (
        (provenance.text_counter(target.text_estimate_label), text),
        (rule, images),
        ("modelled", modelled),
    ):
        if n > 0:
            parts[label] = parts.get(label, 0) + n
    return parts


def _evaluate_target(run: _Run, summarizer: Summarizer) -> list[MatrixRow]:
    conv, target, settings = run.source.conversation, run.target, run.settings
    keep = settings.keep_turns
    rows = [
        run.row(
            "none",
            run.before,
            0.0,
            recall_text=run.text_recall(conv),
            rungs="none",
            tokens_provenance=dict(run.before_parts),
        )
    ]
    free_rungs: tuple[tuple[str, Any, dict[str, int]], ...] = (
        ("elide", elide, {"keep_steps": LadderOptions().elide_keep_steps}),
        ("drop_images", drop_images, {"keep_turns": keep}),
    )
    for name, rung, options in free_rungs:
        res, dt = _timed(rung, conv, **options)
        share: dict[str, int] = {}
        if name == "elide":  # the elided share of tool-result characters (issue 22)
            share = {
                "tool_result_chars": tool_result_chars(conv.path()),
                "tool_result_chars_elided": elided_chars(res.record),
            }
        rows.append(
            run.tokens_row(
                name,
                res.conversation,
                dt,
                recall_text=run.text_recall(res.conversation),
                rungs=name,
                note=f"{res.record.changed} replaced",
                **share,
            )
        )
    sheet = SheetOptions(keep_turns=keep, tail_share=settings.tail_share)
    for name, opts in (
        ("snapshot", sheet),
        ("snapshot+factsheet", replace(sheet, factsheet_chars=settings.factsheet_chars)),
        ("snapshot+foveate", replace(sheet, foveate_chars=settings.foveate_chars)),
    ):
        if not target.vision:
            rows.append(
                run.row(
                    name,
                    run.before,
                    0.0,
                    recall_text=run.text_recall(conv),
                    rungs=name,
                    note="reader has no vision: no pages",
                    tokens_provenance=dict(run.before_parts),
                )
            )
            continue
        res, dt = _timed(snapshot, conv, target, opts)
        rows.append(_sheet_row(run, name, res, dt))
    if target.vision and target.geometry is not None:
        # "dense": the same snapshot drawn in the dense frontier layout (typography)
        from snapshot.profiles.dense import dense_geometry

        dense = replace(target, geometry=dense_geometry(target.geometry))
        res, dt = _timed(snapshot, conv, dense, sheet)
        rows.append(_sheet_row(run, "snapshot+dense", res, dt))
    (res, summary), dt = _timed(
        summarize_middle, conv, target, summarizer, keep_turns=keep, tail_share=settings.tail_share
    )
    rows.append(_summary_row(run, res, summary, dt))
    rows.append(_ladder_row(run, summarizer))
    return rows


def evaluate(
    source: Source,
    targets: Sequence[Target],
    settings: Settings,
    *,
    ocr: OcrRows | None = None,
    stage: Callable[[str], None] | None = None,
) -> list[MatrixRow]:
    """All strategies on one conversation for each target (``stage`` is told each target's model)."""
    needles = needles_for(source, settings)
    # shared across targets: identical pages are read once
    reader = ReadCache(ocr, page_readers=tuple(settings.page_readers))
    summarizer: Summarizer = corpus_summarizer(source.conversation) or ModelledSummarizer(
        output_chars=settings.summary_chars, size_source=settings.summary_size_source
    )
    rows: list[MatrixRow] = []
    try:
        for target in targets:
            if stage is not None:
                stage(target.model)
            run = _Run(source, target, settings, needles, reader)
            rows.extend(_evaluate_target(run, summarizer))
    finally:
        forget_texts()  # what elide kept per text is this conversation's: memory stays bounded
        for target in targets:
            target.forget_counts()  # so are the messages each target counted
    return rows
