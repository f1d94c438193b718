"""The README's results section, generated from ``results.json``.

The README holds a block between ``<!-- results:begin -->`` and
``<!-- results:end -->`` that ``snapshot report --readme README.md`` rewrites, so
its numbers are this code's numbers on the committed run; a test regenerates the
block from the committed ``reports/results.json`` and compares.

>>> block = results_block({"command": "snapshot report", "rows": [], "sources": [],
...                        "models": [], "settings": {"budget_ratio": 0.3}})
>>> block.splitlines()[0]
'<!-- results:begin -->'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from snapshot.errors import InputError
from snapshot.report.matrix import MatrixRow
from snapshot.report.needle_recall import ReaderRecall, reader_recall
from snapshot.report.provenance import LEGEND, marker
from snapshot.report.ranges import range_sentences
from snapshot.report.tables import aggregate, budget_met

BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"

_ROW_FIELDS = {f.name for f in fields(MatrixRow)}


def rows_from_json(payload: Mapping[str, Any]) -> list[MatrixRow]:
    """The benchmark rows of a ``results.json`` payload (unknown keys ignored)."""
    return [MatrixRow(**{k: v for k, v in r.items() if k in _ROW_FIELDS}) for r in payload["rows"]]


def _pct(v: float) -> str:
    return f"{100 * v:.1f} %"


def _recall_cell(x: ReaderRecall) -> str:
    lo, hi = x.interval
    share = 100 * (x.share or 0)
    return f"{x.reader}: {share:.1f} % [{100 * lo:.1f}–{100 * hi:.1f}] of {x.needles}ᵐ"


def results_block(payload: Mapping[str, Any]) -> str:
    """The README block for a ``results.json`` payload, markers included."""
    rows = rows_from_json(payload)
    aggs = {(a.model, a.label): a for a in aggregate(rows)}
    pooled = {(a.model, a.strategy): a for a in aggregate(rows, split=False)}
    met = {b.model: b for b in budget_met(rows)}
    sources = payload.get("sources", [])
    chars = sum(int(s.get("chars", 0)) for s in sources)
    budget = float(payload.get("settings", {}).get("budget_ratio", 0.3))
    size = payload.get("summary_size") or {}
    recall: dict[tuple[str, str], list[ReaderRecall]] = {}
    for x in reader_recall(rows):
        if x.source == "whole page":
            recall.setdefault((x.model, x.strategy), []).append(x)
    lines = [
        BEGIN,
        "",
        f"Generated from `reports/results.json` by `{payload.get('command') or 'snapshot report'}`: "
        f"{len(sources)} conversations, {chars:,} characters as the benchmark reads them. "
        "Pooled ratios weigh conversations by size; the median weighs each once.",
        "",
        f"| profile | snapshot alone: tokens kept, pooled / median [IQR] "
        "| needle recall, whole page (95 % interval, needles) | round-trip check (not readability) "
        "| dense layout (snapshot+dense): tokens kept, pooled / median "
        f"| ladder to a {100 * budget:.0f} % budget: tokens kept, pooled / median "
        "| budget met: free rungs / real summary / modelled summary / not met |",
        "|---|---|---|---|---|---|---|",
    ]
    for model in payload.get("models", []):
        snap = aggs.get((model, "snapshot"))
        lad = pooled.get((model, "ladder"))
        b = met.get(model)
        if snap is None or lad is None or b is None:
            continue
        rt = "n/m" if snap.round_trip_check is None else f"{100 * snap.round_trip_check:.0f} %"
        seen = "; ".join(_recall_cell(x) for x in recall.get((model, "snapshot"), []) if x.needles)
        dense = aggs.get((model, "snapshot+dense"))
        dense_cell = (
            f"{_pct(dense.ratio)} / {_pct(dense.ratio_median)}{marker(dense.provenance)}"
            if dense is not None
            else "–"
        )
        lines.append(
            f"| {model} | {_pct(snap.ratio)} / {_pct(snap.ratio_median)} "
            f"[{_pct(snap.ratio_q1)}–{_pct(snap.ratio_q3)}]{marker(snap.provenance)} "
            f"| {seen or 'not measured'} | {rt} | {dense_cell} "
            f"| {_pct(lad.ratio)} / {_pct(lad.ratio_median)}{marker(lad.provenance)} "
            f"| {b.free_rungs} / {b.real_summary} / {b.modelled_summary}{marker('modelled')} "
            f"/ {b.not_met} of {b.conversations} |"
        )
    for sentence in range_sentences(rows, payload.get("models", [])):
        lines += ["", sentence]
    lines += ["", LEGEND]
    if size:
        how = (
            f"measured on the run's {size['count']} real summaries (mean {size['mean_chars']:,} "
            f"characters, s.d. {size['stdev_chars']:,})"
            if size.get("measured")
            else str(size.get("source", ""))
        )
        lines += [
            "",
            f"A budget met *with a modelled summary* rests on an assumed summary size, {how}; "
            "its recall is not measured. The round-trip check is the project's own decoder "
            "reading its own pages (information survived rasterizing), not readability.",
        ]
    lines += ["", END]
    return "\n".join(lines)


def rewrite_readme(readme: Path, results: Path) -> None:
    """Replace the README's results block with one generated from ``results``.

    Raises
    ------
    InputError
        If the README has no ``<!-- results:begin -->`` … ``<!-- results:end -->`` block.
    """
    text = readme.read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise InputError(f"{readme}: no {BEGIN} … {END} block to rewrite; add one where it goes")
    payload = json.loads(results.read_text(encoding="utf-8"))
    new = text[:start] + results_block(payload) + text[end + len(END) :]
    readme.write_text(new, encoding="utf-8")


def readme_block(readme: Path) -> str:
    """The results block as it stands in the README (markers included)."""
    text = readme.read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise InputError(f"{readme}: no {BEGIN} … {END} block")
    return text[start : end + len(END)]
