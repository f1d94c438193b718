"""Aggregations of the benchmark rows into the tables the report prints."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import mean, median, quantiles

from snapshot.report import provenance
from snapshot.report.matrix import STRATEGIES, MatrixRow

# How a summary or ladder row splits into populations that share every figure.
POPULATIONS = {
    None: "",
    "corpus": "real summary",
    "model": "real summary",
    "modelled": "modelled summary",
}


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
    population: str = ""  # "", "free rungs", "real summary", "modelled summary"
    # Per conversation tokens after / before: median and interquartile range.
    ratio_median: float = 1.0
    ratio_q1: float = 1.0
    ratio_q3: float = 1.0
    tokens_provenance: dict[str, int] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        """Pooled: all tokens after over all tokens before (one big conversation weighs most)."""
        return self.tokens_after / self.tokens_before if self.tokens_before else 1.0

    @property
    def label(self) -> str:
        """The strategy with its population, as the tables print it."""
        return f"{self.strategy} · {self.population}" if self.population else self.strategy

    @property
    def provenance(self) -> str:
        """The least trustworthy provenance among this aggregate's token counts."""
        return provenance.weakest(self.tokens_provenance) if self.tokens_provenance else "exact"

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


def population(row: MatrixRow) -> str:
    """The population a row belongs to: its figures are over conversations of one kind.

    A summary row is real or modelled; a ladder row reached its result with free
    rungs alone, a real summary, or a modelled one. Other strategies: one population.
    """
    if row.strategy == "summary":
        return POPULATIONS.get(row.summary_source, "") or "modelled summary"
    if row.strategy == "ladder":
        return POPULATIONS.get(row.summary_source, "") or "free rungs"
    return ""


def per_conversation(values: Sequence[float]) -> tuple[float, float, float]:
    """Median and interquartile range (q1, median, q3) of per-conversation values.

    Quartiles are linear interpolations between the sorted values (``inclusive``).

    >>> per_conversation([1, 2, 3, 4, 5])
    (2.0, 3, 4.0)
    """
    if not values:
        return (1.0, 1.0, 1.0)
    if len(values) == 1:
        return (values[0], values[0], values[0])
    q1, _, q3 = quantiles(values, n=4, method="inclusive")
    return (q1, median(values), q3)


def _ratio(r: MatrixRow) -> float:
    return r.tokens_after / r.tokens_before if r.tokens_before else 1.0


def _merge_parts(rows: Iterable[MatrixRow]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in rows:
        for k, v in r.tokens_provenance.items():
            out[k] = out.get(k, 0) + v
    return out


def aggregate(rows: Sequence[MatrixRow], *, split: bool = True) -> list[Aggregate]:
    """Rows grouped by model and strategy; with ``split``, summary and ladder rows also by
    population, so every figure of an aggregate is over the same conversations."""
    groups: dict[tuple[str, str, str], list[MatrixRow]] = defaultdict(list)
    for r in rows:
        groups[(r.model, r.strategy, population(r) if split else "")].append(r)
    order = {s: i for i, s in enumerate(STRATEGIES)}
    out = []
    for (model, strategy, pop), rs in sorted(
        groups.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 99), kv[0][2])
    ):
        fits = [r.fits for r in rs if r.fits is not None]
        q1, med, q3 = per_conversation([_ratio(r) for r in rs])
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
                population=pop,
                ratio_median=med,
                ratio_q1=q1,
                ratio_q3=q3,
                tokens_provenance=_merge_parts(rs),
            )
        )
    return out


@dataclass(frozen=True)
class BudgetMet:
    """How the ladder met its budget for one profile, three ways."""

    model: str
    conversations: int
    free_rungs: int  # met with elide / drop images / snapshot alone
    real_summary: int  # met, needing a real summary
    modelled_summary: int  # met, needing a summary whose size is modelled
    not_met: int

    @property
    def met(self) -> int:
        return self.free_rungs + self.real_summary + self.modelled_summary


def budget_met(rows: Sequence[MatrixRow]) -> list[BudgetMet]:
    """Per profile: ladder budgets met by free rungs, with a real and with a modelled summary."""
    groups: dict[str, list[MatrixRow]] = defaultdict(list)
    for r in rows:
        if r.strategy == "ladder" and r.fits is not None:
            groups[r.model].append(r)
    out = []
    for model, rs in sorted(groups.items()):
        pops = Counter(population(r) for r in rs if r.fits)
        out.append(
            BudgetMet(
                model,
                len(rs),
                pops["free rungs"],
                pops["real summary"],
                pops["modelled summary"],
                sum(1 for r in rs if not r.fits),
            )
        )
    return out


def rung_paths(rows: Sequence[MatrixRow]) -> dict[str, Counter[str]]:
    """Per model: how often the ladder stopped after each sequence of rungs."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        if r.strategy == "ladder":
            out[r.model][r.rungs] += 1
    return out


def by_category(
    rows: Sequence[MatrixRow], strategy: str
) -> list[tuple[str, str, int, float, float | None]]:
    """(category, model, conversations, token ratio, mean recall) for one strategy."""
    groups: dict[tuple[str, str], list[MatrixRow]] = defaultdict(list)
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
