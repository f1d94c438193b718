"""The report's figures (matplotlib, written as PNG without volatile metadata)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from statistics import median
from typing import Any

from snapshot.plot_layout import fixed_margins, label_inches
from snapshot.report.matrix import MatrixRow
from snapshot.report.tables import Aggregate

STRATEGY_COLORS = {
    "none": "#7f7f7f",
    "elide": "#1f77b4",
    "drop_images": "#17becf",
    "snapshot": "#d62728",
    "snapshot+factsheet": "#ff7f0e",
    "snapshot+foveate": "#9467bd",
    "snapshot+dense": "#8c564b",
    "summary": "#2ca02c",
    "ladder": "#000000",
}


def _figure(**kw: Any) -> Any:
    """A matplotlib figure drawn by Agg: no pyplot, no GUI backend, no global figure list."""
    from matplotlib.figure import Figure

    return Figure(**kw)


def _save(fig: Any, path: Path) -> Path:
    fig.savefig(path, dpi=110, metadata={"Software": None})
    return path


def chars_per_token(profiles: Sequence[dict[str, Any]], path: Path) -> Path:
    """Characters per billed token: a full page of each profile against the report's own
    conversations as text (rows of :func:`snapshot.report.main.density_rows`)."""
    shown = [p for p in profiles if p.get("chars_per_token") and p.get("text_chars_per_token")]
    fig = _figure(figsize=(10, 0.5 * len(shown) + 1.9))
    ax = fig.subplots()
    names = [
        f"{p['model']} ({p['font']}, {p['page'][0]}×{p['page'][1]}; text: {p['text_counter']})"
        for p in shown
    ]
    ys = range(len(shown))
    for offset, key, color, label in (
        (0.2, "chars_per_token", "#d62728", "as pages: a full page (image tokens)"),
        (-0.2, "text_chars_per_token", "#1f77b4", "as text: these conversations (text tokens)"),
    ):
        values = [p[key] for p in shown]
        ax.barh([y + offset for y in ys], values, height=0.4, color=color, label=label)
        for y, v in zip(ys, values, strict=True):
            ax.text(v, y + offset, f" {v:.2f}", va="center", fontsize=7)
    ax.set_yticks(list(ys), names, fontsize=8)
    ax.set_ylim(-0.7, len(shown) - 0.3)
    widest = max([p[k] for p in shown for k in ("chars_per_token", "text_chars_per_token")] + [1.0])
    ax.set_xlim(0, 1.12 * widest)  # room for the value after the longest bar
    ax.set_xlabel("characters per billed token (higher is cheaper)")
    fig.suptitle(
        "Characters per billed token: a full page of each profile vs these conversations as text",
        fontsize=11,
    )
    # Under the axis label: it can never cover a bar, whatever the values.
    fig.legend(loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=8, frameon=False)
    fixed_margins(fig, left=label_inches(names, 8), bottom=0.85, top=0.45)
    return _save(fig, path)


def pareto(aggregates: Sequence[Aggregate], path: Path) -> Path:
    """Tokens kept against needle recall for every strategy and model."""
    fig = _figure(figsize=(8, 5.5))
    ax = fig.subplots()
    markers = {m: k for m, k in zip(sorted({a.model for a in aggregates}), "os^Dv", strict=False)}
    for a in aggregates:
        if a.recall is None:
            ax.scatter([a.ratio], [-0.04], marker="x", color=STRATEGY_COLORS.get(a.strategy, "k"))
            continue
        ax.scatter(
            [a.ratio],
            [a.recall],
            marker=markers[a.model],
            s=60,
            color=STRATEGY_COLORS.get(a.strategy, "k"),
        )
    for strategy, color in STRATEGY_COLORS.items():
        ax.scatter([], [], color=color, label=strategy)
    for model, marker in markers.items():
        ax.scatter([], [], color="#bbbbbb", marker=marker, label=model)
    ax.axhline(-0.04, color="#dddddd", lw=0.5)
    ax.text(
        0.01,
        -0.035,
        "x: recall not measured (modelled summary, or pages no whole-page reader read)",
        fontsize=7,
        color="#777777",
    )
    ax.set_xlabel("tokens after / tokens before (lower is smaller)")
    readers = sorted({a.page_reader for a in aggregates if a.page_reader})
    ax.set_ylabel(
        "needle recall: "
        + (f"{', '.join(readers)} whole page for pages" if readers else "pages not read")
        + "; exact text otherwise"
    )
    ax.set_ylim(-0.08, 1.05)
    ax.set_xlim(0, 1.05)
    ax.set_title("Tokens against recall: the Pareto view")
    ax.legend(fontsize=7, loc="lower right", ncol=2)
    fixed_margins(fig, left=0.75, bottom=0.55, right=0.15, top=0.35)
    return _save(fig, path)


def raster_speed(bench_json: Path, path: Path) -> Path | None:
    """Rasterizer speed against Pillow, from a pytest-benchmark JSON file."""
    if not bench_json.exists():
        return None
    data = json.loads(bench_json.read_text(encoding="utf-8"))
    benches = [(b["name"], b["stats"]["median"]) for b in data.get("benchmarks", [])]
    if not benches:
        return None
    benches.sort(key=lambda nb: nb[1])
    fig = _figure(figsize=(9, 0.4 * len(benches) + 1.5))
    ax = fig.subplots()
    ax.barh([n for n, _ in benches], [m * 1000 for _, m in benches], color="#444444")
    for i, (_, m) in enumerate(benches):
        ax.text(m * 1000, i, f" {m * 1000:.2f} ms", va="center", fontsize=7)
    ax.set_xscale("log")
    ax.set_xlabel("median time per call, ms (log scale; pytest-benchmark)")
    ax.set_title("Rasterizer speed against Pillow and the memory floor")
    ax.tick_params(axis="y", labelsize=7)
    fixed_margins(
        fig, left=label_inches([n for n, _ in benches], 7), bottom=0.55, right=0.6, top=0.35
    )
    return _save(fig, path)


def distribution(rows: Sequence[MatrixRow], path: Path) -> Path:
    """Tokens kept per conversation: one point per conversation, strategy × profile.

    Beside the pooled ratio, so that one huge conversation cannot carry the headline:
    each conversation weighs the same here; the bar marks the median.
    """
    import zlib

    models = sorted({r.model for r in rows})
    strategies = [s for s in STRATEGY_COLORS if any(r.strategy == s for r in rows)]
    fig = _figure(figsize=(4.2 * max(1, len(models)), 0.45 * len(strategies) + 1.6))
    axes = fig.subplots(1, len(models), sharey=True, squeeze=False)
    for ax, model in zip(axes[0], models, strict=True):
        for y, strategy in enumerate(strategies):
            pts = sorted(
                (r.source, r.tokens_after / r.tokens_before)
                for r in rows
                if r.model == model and r.strategy == strategy and r.tokens_before
            )
            if not pts:
                continue
            # Jitter seeded by the conversation id: the same input draws the same figure.
            ys = [y + ((zlib.crc32(src.encode()) % 1000) / 1000 - 0.5) * 0.5 for src, _ in pts]
            xs = [x for _, x in pts]
            ax.scatter(xs, ys, s=9, alpha=0.6, color=STRATEGY_COLORS[strategy], linewidths=0)
            med = median(xs)
            ax.plot([med, med], [y - 0.35, y + 0.35], color="black", lw=1.5)
        ax.set_title(model, fontsize=9)
        ax.set_xlim(0, 1.05)
        ax.set_xlabel("tokens after / before, per conversation")
    axes[0][0].set_yticks(range(len(strategies)), strategies, fontsize=8)
    fig.suptitle(
        "Tokens kept per conversation (each point one conversation; bar: median)", fontsize=10
    )
    fixed_margins(fig, left=label_inches(strategies, 8), bottom=0.55, right=0.15, top=0.7)
    fig.subplots_adjust(wspace=0.06)
    return _save(fig, path)
