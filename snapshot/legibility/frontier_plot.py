"""The density frontier drawn: density (x) against whole-page accuracy (y), per reader.

Split from :mod:`snapshot.legibility.frontier` (measuring and analysis); this module
only draws measured :class:`~snapshot.legibility.frontier.Point` records.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from snapshot.legibility.frontier import DEFAULT_LAYOUTS, CandidateLayout, Point, frontier
from snapshot.readability.goal import RESAMPLE_SCALE, Goal


def plot_frontier(
    points: Sequence[Point],
    path: str | os.PathLike[str],
    *,
    defaults: Sequence[CandidateLayout] = DEFAULT_LAYOUTS,
    target: Goal | None = None,
    title: str = "",
) -> Path:
    """Density (x) against accuracy (y) per reader, every layout a point, defaults ringed.

    Two panels: character accuracy and exact hard tokens, native scale; the
    resampled reading is drawn hollow. Byte-identical for the same points (fixed
    PNG metadata, fixed font and size, sorted drawing order).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    target = target or Goal()
    default_styles = {d.style for d in defaults}
    readers = sorted({p.reader_name for p in points})
    colours = dict(zip(readers, ("C0", "C1", "C2", "C3", "C4", "C5"), strict=False))
    label_reader = "ppocrv6-small" if "ppocrv6-small" in readers else next(iter(readers), "")
    with matplotlib.rc_context({"font.family": "DejaVu Sans", "font.size": 8, "svg.hashsalt": "0"}):
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), dpi=110)
        panels: tuple[tuple[str, Callable[[Point], float], float], ...] = (
            ("character accuracy", lambda p: p.char_accuracy, target.char_accuracy),
            ("exact hard tokens", lambda p: p.hard_token_accuracy, target.hard_tokens),
        )
        for ax, (label, value, goal) in zip(axes, panels, strict=True):
            for reader in readers:
                pts = sorted(
                    (p for p in points if p.reader_name == reader),
                    key=lambda p: (p.scale, p.chars_per_kpx, p.layout.key),
                )
                nat = [p for p in pts if p.scale == 1.0]
                res = [p for p in pts if p.scale != 1.0]
                c = colours[reader]
                ax.scatter(
                    [p.chars_per_kpx for p in nat],
                    [value(p) for p in nat],
                    color=c,
                    s=18,
                    label=f"{reader} native",
                    zorder=3,
                )
                if res:
                    ax.scatter(
                        [p.chars_per_kpx for p in res],
                        [value(p) for p in res],
                        facecolors="none",
                        edgecolors=c,
                        s=18,
                        zorder=3,
                        label=f"{reader} ×{RESAMPLE_SCALE} bicubic",
                    )
                front = [p for p in frontier(nat)]
                front.sort(key=lambda p: p.chars_per_kpx)
                ax.plot(
                    [p.chars_per_kpx for p in front],
                    [value(p) for p in front],
                    color=c,
                    lw=0.8,
                    zorder=2,
                )
                if reader == label_reader and ax is axes[0]:
                    stacked: dict[float, int] = {}  # labels at one density go one under another
                    for p in nat:  # name the layouts of one reader, small, beside its points
                        font = (
                            p.layout.font
                            if p.layout.size is None
                            else (f"{p.layout.font}@{p.layout.size}")
                        )
                        w, h = p.layout.page
                        name = f"{font} {p.layout.shade} +{p.layout.row_gap} {w}x{h}"
                        k = stacked.get(p.chars_per_kpx, 0)
                        stacked[p.chars_per_kpx] = k + 1
                        ax.annotate(
                            name,
                            (p.chars_per_kpx, value(p)),
                            fontsize=5,
                            xytext=(4, -10 - 7 * k),
                            textcoords="offset points",
                        )
                for p in nat:
                    if p.layout.style in default_styles:
                        ax.scatter(
                            [p.chars_per_kpx],
                            [value(p)],
                            s=90,
                            facecolors="none",
                            edgecolors="black",
                            lw=1.0,
                            zorder=4,
                        )
            ax.axhline(goal, color="grey", lw=0.6, ls="--")
            ax.set_xlabel("characters per 1000 px² (cell pitch)")
            ax.set_ylabel(f"{label}, whole page")
            ax.set_ylim(-0.02, 1.02)
            ax.grid(True, lw=0.3)
        if points:
            axes[0].legend(loc="lower left", fontsize=6)
        fig.suptitle(title or "density frontier, measured (black rings: today's defaults)")
        fig.tight_layout()
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, format="png", metadata={"Software": None})
        plt.close(fig)
    return out


__all__ = ["plot_frontier"]
