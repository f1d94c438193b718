"""The report's rows at both ends of a disputed fact's range, and whether the verdict flips.

A model whose billing rule has a disputed field (the GPT-6 patch multiplier:
1.2 measured by third parties, 1.5 the package's figure) is billed at the range's
point in every row. Here each imaged row is repeated at every end: the same pages
rebilled at that end's tokens per page (an estimate: at another multiplier the
solver would choose other pages, which ``snapshot cost --text`` shows exactly).
Imaging *pays* in a conversation when the row costs fewer tokens than
``drop_images``, the cheapest rung that keeps everything as text.

>>> from snapshot.report.matrix import MatrixRow
>>> rows = [
...     MatrixRow("c1", "demo", "gpt-6.1-sol", "drop_images", 20000, 12000, 0.0, 0),
...     MatrixRow("c1", "demo", "gpt-6.1-sol", "snapshot", 20000, 13000, 0.0, 0, pages=3),
... ]
>>> [(r.strategy, r.tokens_after, r.pays) for r in range_rows(rows, ["gpt-6.1-sol"])][0]
('snapshot', {'1.2': 10885, '1.5': 13000}, {'1.2': 1, '1.5': 0})
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from snapshot.report.matrix import MatrixRow

#: The text-only rung an imaged row must beat for imaging to pay.
TEXT_BASELINE = "drop_images"


@dataclass
class RangeRow:
    """One model × imaged strategy, pooled over conversations, at every end of the range."""

    model: str
    strategy: str
    name: str
    point: str
    conversations: int = 0
    tokens_before: int = 0
    baseline: int = 0
    tokens_after: dict[str, int] = field(default_factory=dict)
    pays: dict[str, int] = field(default_factory=dict)
    tokens_per_page: dict[str, int] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    # Each end in a few words: its label and who says so ("measured: three third-party ...").
    says: dict[str, str] = field(default_factory=dict)

    @property
    def flips(self) -> int:
        """Conversations whose verdict differs between the ends (0: the range does not matter)."""
        return max(self.pays.values()) - min(self.pays.values()) if self.pays else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "strategy": self.strategy,
            "range": self.name,
            "point": self.point,
            "conversations": self.conversations,
            "tokens_before": self.tokens_before,
            "baseline_tokens_after": self.baseline,
            "tokens_after": self.tokens_after,
            "imaging_pays_in": self.pays,
            "tokens_per_page": self.tokens_per_page,
            "verdict_flips_in": self.flips,
            "sources": self.sources,
            "provenance": "estimated (the point's pages rebilled at each end)",
        }


def _ends(model: str) -> tuple[str, str, list[tuple[str, int, str, str]]] | None:
    """(range name, point, [(value, tokens per page, source, short)]) of a model's page."""
    from snapshot.billing.uncertain import range_for
    from snapshot.profiles import profile_for

    rng = range_for(model)
    if rng is None:
        return None
    profile = profile_for(model, warn=False)
    ends = profile.range_ends()
    if not ends or not profile.vision:
        return None
    w, h = profile.solution().size
    return (
        rng.name,
        rng.point,
        [
            (value, prof.image_tokens(w, h), fact.cite(), _short(fact.label, fact.note))
            for value, fact, prof in ends
        ],
    )


def _short(label: str, note: str) -> str:
    head = re.split(r"[;:]", note, maxsplit=1)[0].strip()
    return f"{label}: {head}" if head else label


def range_rows(rows: Sequence[MatrixRow], models: Sequence[str]) -> list[RangeRow]:
    """Every imaged row of a model with a disputed fact, pooled per strategy, at each end."""
    baseline = {(r.source, r.model): r.tokens_after for r in rows if r.strategy == TEXT_BASELINE}
    # Every row of a strategy that images anything (a row without pages is the same at both ends).
    imaged = {(r.model, r.strategy) for r in rows if r.pages > 0}
    out: dict[tuple[str, str], RangeRow] = {}
    ends_of = {m: _ends(m) for m in dict.fromkeys(r.model for r in rows) if m in models}
    for r in rows:
        found = ends_of.get(r.model)
        if found is None or (r.model, r.strategy) not in imaged:
            continue
        if (r.source, r.model) not in baseline:
            continue
        name, point, ends = found
        at_point = next(t for v, t, _, _ in ends if v == point)
        agg = out.setdefault(
            (r.model, r.strategy),
            RangeRow(r.model, r.strategy, name, point),
        )
        agg.conversations += 1
        agg.tokens_before += r.tokens_before
        agg.baseline += baseline[(r.source, r.model)]
        for value, per_page, source, short in ends:
            after = r.tokens_after - r.pages * (at_point - per_page)
            agg.tokens_after[value] = agg.tokens_after.get(value, 0) + after
            pays = after < baseline[(r.source, r.model)]
            agg.pays[value] = agg.pays.get(value, 0) + int(pays)
            agg.tokens_per_page[value] = per_page
            agg.sources[value] = source
            agg.says[value] = short
    return list(out.values())


def range_section(rows: Sequence[MatrixRow], models: Sequence[str]) -> list[str]:
    """The report's section: each imaged row at both ends, and where the verdict flips."""
    found = range_rows(rows, models)
    if not found:
        return []
    by_model: dict[str, list[RangeRow]] = defaultdict(list)
    for r in found:
        by_model[r.model].append(r)
    lines = [
        "## Uncertain facts: results at both ends of the range",
        "",
        "A billing rule whose sources disagree is carried as a range; every figure above bills at "
        "the package's point. Here each imaged row is shown at every end (estimated: the same "
        f"pages rebilled at that end's tokens per page). *Pays* counts conversations where the row "
        f"costs fewer tokens than `{TEXT_BASELINE}` (everything kept as text). "
        "`snapshot probe --model M --battery usage` settles the range with one live request.",
        "",
    ]
    for model, items in by_model.items():
        first = items[0]
        values = list(first.tokens_after)
        lines.append(f"**{model}**: {first.name}; the figures above use {first.point}.")
        lines.append("")
        for v in values:
            lines.append(f"- {v}: {first.tokens_per_page[v]:,} tokens per page; {first.sources[v]}")
        lines.append("")
        head = " | ".join(
            f"after / before at {v}{'' if v == first.point else 'ᵉ'} | pays at {v}" for v in values
        )
        lines.append(f"| strategy | conversations | {head} | verdict flips in |")
        lines.append("|---|---|" + "---|---|" * len(values) + "---|")
        for r in items:
            cells = " | ".join(
                f"{r.tokens_after[v] / max(1, r.tokens_before):.1%} | {r.pays[v]}/{r.conversations}"
                for v in values
            )
            flips = f"**{r.flips}**" if r.flips else "0"
            lines.append(f"| {r.strategy} | {r.conversations} | {cells} | {flips} |")
        lines.append("")
    return lines


def range_sentences(rows: Sequence[MatrixRow], models: Sequence[str]) -> list[str]:
    """One sentence per model whose headline (snapshot alone) rests on a disputed fact.

    >>> rows = [
    ...     MatrixRow("c1", "demo", "gpt-6.1-sol", "drop_images", 20000, 12000, 0.0, 0),
    ...     MatrixRow("c1", "demo", "gpt-6.1-sol", "snapshot", 20000, 13000, 0.0, 0, pages=3),
    ... ]
    >>> print(range_sentences(rows, ["gpt-6.1-sol"])[0])  # doctest: +ELLIPSIS
    **gpt-6.1-sol** rests on a disputed fact, the GPT-6 family patch multiplier: ...
    """
    from snapshot.report.provenance import marker

    out = []
    for r in range_rows(rows, models):
        if r.strategy != "snapshot":
            continue
        others = [v for v in r.tokens_after if v != r.point]
        ends = ", ".join(f"{v} ({r.says[v]})" for v in r.tokens_after)
        kept = "; ".join(
            f"{100 * r.tokens_after[v] / max(1, r.tokens_before):.1f} %{marker('estimated')} at {v}"
            for v in others
        )
        pays = " / ".join(f"{r.pays[v]} at {v}" for v in r.tokens_after)
        out.append(
            f"**{r.model}** rests on a disputed fact, the {r.name}: {ends}. The row above bills at "
            f"{r.point}; snapshot alone keeps {kept} (estimated: the same pages rebilled). It "
            f"costs fewer tokens than `{TEXT_BASELINE}` in {pays} of {r.conversations} "
            f"conversations (the verdict flips in {r.flips}); `snapshot probe --model {r.model} "
            "--battery usage` settles it with one request."
        )
    return out


__all__ = ["TEXT_BASELINE", "RangeRow", "range_rows", "range_section", "range_sentences"]
