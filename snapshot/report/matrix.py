"""Every conversation × strategy × profile: tokens, dollars, pages, time and needle recall."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from snapshot.billing.prices import Price
from snapshot.ladder.cut import find_cut
from snapshot.ladder.elide import elide
from snapshot.ladder.images import drop_images
from snapshot.ladder.ladder import LadderOptions, run_ladder, summarize_middle
from snapshot.ladder.needles import Needle, draw_needles, found
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
from snapshot.page import Page
from snapshot.report import provenance
from snapshot.report.costs import request_dollars, session_dollars, summary_call_dollars
from snapshot.report.readability import OcrRows, PageReader, Recall, pages_recall, visible_text
from snapshot.report.sources import Source
from snapshot.transcript.model import Conversation

STRATEGIES = (
    "none",
    "elide",
    "drop_images",
    "snapshot",
    "snapshot+factsheet",
    "snapshot+foveate",
    "summary",
    "ladder",
)


@dataclass(frozen=True)
class Settings:
    keep_turns: int = 2
    tail_share: float = 0.2
    needles_per_kind: int = 4
    factsheet_chars: int = 2000
    foveate_chars: int = 6000
    next_turns: int = 10
    budget_ratio: float = 0.3
    ocr_rows: int = 0  # rows per conversation × profile read by the real OCR engine
    seed: int = 20261129
    # The modelled summary's output size: measured by the run on its own real
    # summaries (snapshot/report/summaries.py), this default only when it has none.
    summary_chars: int = MEASURED_SUMMARY_CHARS
    summary_size_source: str = MEASURED_SUMMARY_SOURCE


@dataclass(frozen=True)
class Row:
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
    recall_oracle: float | None = None
    recall_ocr: float | None = None
    ocr_rows: int = 0
    summary_source: str | None = None
    rungs: str = ""
    note: str = ""
    # Figure name → measured / exact / reconstructed / estimated / modelled.
    provenance: dict[str, str] = field(default_factory=dict)
    # tokens_after split by where each part's count comes from.
    tokens_provenance: dict[str, int] = field(default_factory=dict)

    @property
    def free_rungs_only(self) -> bool:
        """The row's tokens needed no summary (real or modelled)."""
        return self.summary_source is None

    @property
    def recall(self) -> float | None:
        """Recall for a seeing reader: through the oracle where there are pages, else the text."""
        return self.recall_oracle if self.recall_oracle is not None else self.recall_text

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _seed(source_id: str, settings: Settings) -> int:
    return int(hashlib.sha256(f"{settings.seed}:{source_id}".encode()).hexdigest()[:8], 16)


def needles_for(source: Source, settings: Settings) -> list[Needle]:
    """Needles drawn from the span every strategy compacts (the same cut for all)."""
    path = source.conversation.path()
    cut = find_cut(path, keep_turns=settings.keep_turns, tail_share=settings.tail_share)
    _, middle, _ = cut.split(path)
    # Drawn from what the messages say, not from the role lines serialization adds
    # (message ids there would be needles no text reader is ever shown).
    return draw_needles(
        visible_text(middle), seed=_seed(source.id, settings), per_kind=settings.needles_per_kind
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
    reader: PageReader
    price: Price | None = field(init=False)
    before: int = field(init=False)
    before_parts: dict[str, int] = field(init=False)
    turn_tokens: int = field(init=False)

    def __post_init__(self) -> None:
        path = self.source.conversation.path()
        self.price = self.target.price  # the id as given, from genai-prices (None: no price)
        self.before_parts = self.token_parts(self.source.conversation)
        self.before = sum(self.before_parts.values())
        # Future turns add this conversation's own average tokens per message pair.
        self.turn_tokens = max(1, 2 * self.before // max(2, len(path)))

    def token_parts(self, conv: Conversation, modelled: int = 0) -> dict[str, int]:
        """``tokens_after`` of a compacted conversation split by provenance.

        Images are priced by the provider's rule (its fact label says how sure that
        is), text by the model's counter, and ``modelled`` tokens stand for a
        summary that has no text.
        """
        target = self.target
        path = conv.path()
        total = target.tokens(path)
        images = sum(target.image_cost(img) for m in path for img in m.images())
        profile = target.profile
        rule = provenance.image_rule(profile.scheme_fact.label) if profile is not None else "exact"
        parts: dict[str, int] = {}
        for label, n in (
            (provenance.text_counter(target.text_estimate_label), total - images),
            (rule, images),
            ("modelled", modelled),
        ):
            if n > 0:
                parts[label] = parts.get(label, 0) + n
        return parts

    def row(self, strategy: str, tokens_after: int, seconds: float, **kw: Any) -> Row:
        call = kw.get("call_usd")
        n = self.settings.next_turns
        parts: dict[str, int] = kw.pop("tokens_provenance", {}) or {}
        kw["provenance"] = self.provenance_of(kw, parts)
        kw["tokens_provenance"] = parts
        return Row(
            source=self.source.id,
            category=self.source.category,
            model=self.target.model,
            strategy=strategy,
            tokens_before=self.before,
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
            "recall_oracle": "measured",
            "recall_ocr": "measured",
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
    ) -> Row:
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


def _sheet_row(run: _Run, name: str, res: StrategyResult, seconds: float) -> Row:
    pages = list(res.pages)
    data = res.record.data
    rec = run.page_recall(res.conversation, pages) if pages else None
    return run.tokens_row(
        name,
        res.conversation,
        seconds,
        pages=len(pages),
        page_bytes=int(data.get("page_bytes", 0)),
        recall_text=rec.text if rec else run.text_recall(res.conversation),
        recall_oracle=rec.oracle if rec else None,
        recall_ocr=rec.ocr if rec else None,
        ocr_rows=rec.ocr_rows if rec else 0,
        rungs=name,
        note="; ".join(res.record.notes[:1]),
    )


def _summary_row(run: _Run, res: StrategyResult, summary: Summary, seconds: float) -> Row:
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


def _ladder_row(run: _Run, summarizer: Summarizer) -> Row:
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
            recall_oracle=rec.oracle,
            recall_ocr=rec.ocr,
            ocr_rows=rec.ocr_rows,
        )
    else:
        kw["recall_text"] = run.text_recall(lad.conversation)
    snap = next((s for s in lad.steps if s.rung == "snapshot" and s.changed), None)
    if lad.failure:
        kw["note"] = lad.failure
    kw["tokens_provenance"] = _ladder_parts(run, lad)
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
        rungs=" → ".join(lad.rungs_taken) or "none needed",
        **kw,
    )


def _ladder_parts(run: _Run, lad: Any) -> dict[str, int]:
    """The ladder's ``tokens_after`` split by provenance, a modelled summary apart."""
    target = run.target
    parts = run.token_parts(lad.conversation)
    if lad.summary is not None and lad.summary.text is None:
        placeholder = next(
            (m for m in lad.conversation.path() if m.meta.get("kind") == "summary"), None
        )
        label = provenance.text_counter(target.text_estimate_label)
        if placeholder is not None:
            parts[label] = parts.get(label, 0) - target.message_tokens(placeholder)
        # Whatever the ladder counted beyond the drawn conversation is the modelled output.
        parts["modelled"] = max(0, lad.tokens_after - sum(parts.values()))
    return {k: v for k, v in parts.items() if v > 0}


def _evaluate_target(run: _Run, summarizer: Summarizer) -> list[Row]:
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
    for name, rung in (("elide", elide), ("drop_images", drop_images)):
        res, dt = _timed(rung, conv, keep_turns=keep)
        rows.append(
            run.tokens_row(
                name,
                res.conversation,
                dt,
                recall_text=run.text_recall(res.conversation),
                rungs=name,
                note=f"{res.record.changed} replaced",
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
    (res, summary), dt = _timed(
        summarize_middle, conv, target, summarizer, keep_turns=keep, tail_share=settings.tail_share
    )
    rows.append(_summary_row(run, res, summary, dt))
    rows.append(_ladder_row(run, summarizer))
    return rows


def evaluate(
    source: Source, targets: Sequence[Target], settings: Settings, *, ocr: OcrRows | None = None
) -> list[Row]:
    """All strategies on one conversation for each target."""
    needles = needles_for(source, settings)
    reader = PageReader(ocr)  # shared across targets: identical pages are read once
    summarizer: Summarizer = corpus_summarizer(source.conversation) or ModelledSummarizer(
        output_chars=settings.summary_chars, size_source=settings.summary_size_source
    )
    rows: list[Row] = []
    for target in targets:
        run = _Run(source, target, settings, needles, reader)
        rows.extend(_evaluate_target(run, summarizer))
    return rows
