"""Aggregations of the benchmark rows into the tables the report prints."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import mean

from snapshot.report.matrix import STRATEGIES, Row


@dataclass(frozen=True)
class Aggregate:
    model: str
    strategy: str
    conversations: int
    tokens_before: int
    tokens_after: int
    recall_text: float | None
    round_trip_check: float | None  # the project's decoder on its own pages: not readability
    recall_crops_given_rows: float | None
    # The first whole-page reader measured on these rows, and its pooled share.
    page_reader: str | None
    recall_page_reader: float | None
    request_usd: float | None
    session_usd: float | None
    session_usd_rolling: float | None
    call_usd: float | None
    pages: int
    page_bytes: int
    seconds: float
    fits: float | None
    unmeasured: int  # conversations whose recall could not be measured (modelled summaries)

    @property
    def ratio(self) -> float:
        return self.tokens_after / self.tokens_before if self.tokens_before else 1.0

    @property
    def recall(self) -> float | None:
        """Whole-page reader recall where there are pages, else the text's; never the round trip."""
        return self.recall_page_reader if self.pages else self.recall_text


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return mean(vals) if vals else None


def _sum(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) if vals else None


def aggregate(rows: Sequence[Row]) -> list[Aggregate]:
    groups: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for r in rows:
        groups[(r.model, r.strategy)].append(r)
    order = {s: i for i, s in enumerate(STRATEGIES)}
    out = []
    for (model, strategy), rs in sorted(
        groups.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 99))
    ):
        fits = [r.fits for r in rs if r.fits is not None]
        reader = next((r.primary_reader for r in rs if r.primary_reader), None)
        asked = sum(sum(r.page_needles.values()) for r in rs if reader in r.reader_found)
        got = sum(sum(r.reader_found[reader].values()) for r in rs if reader in r.reader_found)
        out.append(
            Aggregate(
                model=model,
                strategy=strategy,
                conversations=len(rs),
                tokens_before=sum(r.tokens_before for r in rs),
                tokens_after=sum(r.tokens_after for r in rs),
                recall_text=_mean(r.recall_text for r in rs),
                round_trip_check=_mean(r.round_trip_check for r in rs),
                recall_crops_given_rows=_mean(r.recall_crops_given_rows for r in rs),
                page_reader=reader,
                recall_page_reader=got / asked if asked else None,
                request_usd=_sum(r.request_usd for r in rs),
                session_usd=_sum(r.session_usd for r in rs),
                session_usd_rolling=_sum(r.session_usd_rolling for r in rs),
                call_usd=_sum(r.call_usd for r in rs),
                pages=sum(r.pages for r in rs),
                page_bytes=sum(r.page_bytes for r in rs),
                seconds=sum(r.seconds for r in rs),
                fits=(sum(fits) / len(fits)) if fits else None,
                unmeasured=sum(1 for r in rs if r.recall is None and r.needles),
            )
        )
    return out


def rung_paths(rows: Sequence[Row]) -> dict[str, Counter[str]]:
    """Per model: how often the ladder stopped after each sequence of rungs."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        if r.strategy == "ladder":
            out[r.model][r.rungs] += 1
    return out


def by_category(
    rows: Sequence[Row], strategy: str
) -> list[tuple[str, str, int, float, float | None]]:
    """(category, model, conversations, token ratio, mean recall) for one strategy."""
    groups: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for r in rows:
        if r.strategy == strategy:
            groups[(r.category, r.model)].append(r)
    out = []
    for (cat, model), rs in sorted(groups.items()):
        before = sum(r.tokens_before for r in rs)
        after = sum(r.tokens_after for r in rs)
        out.append(
            (cat, model, len(rs), after / before if before else 1.0, _mean(r.recall for r in rs))
        )
    return out
