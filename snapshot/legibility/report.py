"""Write the legibility lab's reports.

    python -m snapshot.legibility.report [--out reports] [--lines 40] [--seed 0]

(`snapshot report` runs it too, with fewer lines unless `--legibility full`.)

Outputs (in ``--out``):

- ``legibility.md``: reader × font × scale × filter accuracy, the provider
  facts the profiles state, and the generational-loss numbers;
- ``legibility_vs_scale.png``: character accuracy against resample scale;
- ``generational_loss.png``: re-rendering from pixels against redrawing;
- ``font_comparison.md``: the project's dense font against the peers' fonts on
  confusability and OCR accuracy on hard lines.

Needs the ``[ocr]`` extra for the OCR columns; takes a few minutes (rapidocr
reads each line crop in ~50 ms; Tesseract ~0.5 s, so it reads fewer).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from snapshot.legibility.confusability import (
    compare_confusions,
    distance_matrix,
    glyph_set,
    summarize,
)
from snapshot.legibility.generational import GenerationalLoss, generational_loss
from snapshot.legibility.hardlines import hard_lines
from snapshot.legibility.lab import COMPARISON_FONTS
from snapshot.legibility.memory import keep_freed_memory
from snapshot.legibility.readers import (
    OracleReader,
    RapidOcrReader,
    Reader,
    ReaderMeasurement,
    TesseractReader,
    display_name,
    line_geometry,
    measure,
    measure_each,
    rapidocr_available,
    tesseract_available,
)
from snapshot.legibility.resample import FILTERS, NATIVE, SWEEP_SCALES, Preprocess
from snapshot.legibility.tune import load_fonts
from snapshot.progress import progress

GOAL = 0.95
# Reference figures for hard lines read by rapidocr from line crops (issue 4).
REFERENCE = {"misc-5x8": 0.90, "spleen-5x8": 0.87, "misc-6x12": 0.95}


def sweep_accuracy(
    readers: Sequence[tuple[Reader, list[str], Sequence[Any]]], fonts: Sequence[Any], seed: int
) -> list[tuple[str, str, float, str, ReaderMeasurement]]:
    """(reader, font, scale, filter, measurement) for every scale × filter.

    Each reader comes with its own lines and filters: OCR costs ~50 ms a line on
    an idle machine (far more under load), the oracle a fraction of that.
    """
    jobs: list[tuple[Reader, list[str], Any, Preprocess]] = []
    for reader, lines, filters in readers:
        pps = [NATIVE] + [
            Preprocess(scale=s, filter=f) for s in SWEEP_SCALES if s != 1.0 for f in filters
        ]
        jobs.extend((reader, lines, f, p) for f in fonts for p in pps)
    out: list[tuple[str, str, float, str, ReaderMeasurement]] = []
    for reader, lines, font, pp in progress(jobs, desc="scale sweep", total=len(jobs), unit="run"):
        m = measure(reader, lines, line_geometry(font, lines), pp, seed=seed)
        out.append(
            (
                display_name(reader.name),
                font.name,
                pp.scale,
                pp.filter if pp.scale != 1.0 else "-",
                m,
            )
        )
    return out


def plot_vs_scale(rows: list[tuple[str, str, float, str, ReaderMeasurement]], path: Path) -> None:
    from matplotlib.figure import Figure  # drawn by Agg: no pyplot, no GUI backend

    readers = list(dict.fromkeys(r[0] for r in rows))
    fonts = list(dict.fromkeys(r[1] for r in rows))
    fig = Figure(figsize=(6 * len(readers), 4.2))
    axes = fig.subplots(1, len(readers), squeeze=False)
    for ax, reader in zip(axes[0], readers, strict=True):
        for font in fonts:
            pts: dict[float, list[float]] = {}
            bicubic: dict[float, float] = {}
            for rd, fn, s, filt, m in rows:
                if rd == reader and fn == font:
                    pts.setdefault(s, []).append(m.char_accuracy)
                    if filt in ("-", "bicubic"):
                        bicubic[s] = m.char_accuracy
            xs = sorted(pts)
            (line,) = ax.plot(xs, [bicubic[x] for x in xs], marker="o", label=f"{font} (bicubic)")
            ax.fill_between(
                xs,
                [min(pts[x]) for x in xs],
                [max(pts[x]) for x in xs],
                alpha=0.15,
                color=line.get_color(),
            )
        ax.axhline(GOAL, color="gray", lw=0.8, ls="--")
        ax.set_title(f"{reader}: hard lines, band = best..worst filter")
        ax.set_xlabel("resample scale (provider downscale)")
        ax.set_ylabel("character accuracy (1 - CER)")
        ax.set_ylim(0, 1.02)
        ax.invert_xaxis()
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower left")
    _lay_out(fig, len(readers))
    fig.savefig(path, dpi=120, metadata={"Software": None})


def _lay_out(fig: Any, panels: int) -> None:
    """The lab's figures' margins (tick labels, one axis label and a title each side),
    with room between panels for each panel's own y label."""
    from snapshot.plot_layout import fixed_margins

    left, right, between = 0.65, 0.15, 0.8
    fixed_margins(fig, left=left, bottom=0.5, right=right, top=0.35)
    if panels > 1:
        width = (fig.get_size_inches()[0] - left - right - between * (panels - 1)) / panels
        fig.subplots_adjust(wspace=between / width)


def plot_generational(results: Sequence[GenerationalLoss], path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4.2))
    ax = fig.subplots()
    for res in results:
        gens = list(range(1, res.generations + 1))
        label = f"{display_name(res.reader)}, {res.font}, {res.preprocess}"
        (line,) = ax.plot(gens, res.rerender, marker="o", label=f"re-render from pixels: {label}")
        ax.plot(
            gens, res.redraw, ls="--", color=line.get_color(), label=f"redraw from source: {label}"
        )
    ax.set_xlabel("generation (read → render → read ...)")
    ax.set_ylabel("character accuracy vs the source")
    ax.set_ylim(0, 1.02)
    ax.set_xticks(range(1, max(r.generations for r in results) + 1))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")
    ax.set_title("Generational loss: why sheets are redrawn from source")
    _lay_out(fig, 1)
    fig.savefig(path, dpi=120, metadata={"Software": None})


def _fmt(x: float) -> str:
    return f"{x:.3f}"


def profile_facts() -> list[str]:
    """What each profile's provider does to the profile's own page."""
    from snapshot.profiles import all_profiles

    out = ["| model | font | page | provider sees | scheme |", "|---|---|---|---|---|"]
    for p in all_profiles():
        if not p.vision:
            continue
        w, h = p.geometry().size
        seen = p.scheme.seen(w, h)
        if not getattr(p.scheme, "seen_documented", True):
            # The provider does not publish the size it works at: no claim either way.
            mark = (
                f"undocumented (the rule used assumes {seen[0]}x{seen[1]}; {p.scheme_fact.cite()})"
            )
        elif seen == (w, h):
            mark = f"same (no resample: {p.scheme_fact.cite()})"
        else:
            mark = f"**{seen[0]}x{seen[1]} (resampled)**"
        out.append(f"| {p.model} | {p.font} | {w}x{h} | {mark} | {p.scheme.kind} |")
    return out


def font_comparison(
    fonts: Sequence[Any],
    skipped: Sequence[str],
    lines: list[str],
    seed: int,
    tess_lines: int,
) -> str:
    ocr = RapidOcrReader() if rapidocr_available() else None
    tess = TesseractReader() if tesseract_available() else None
    # Tesseract reads every font's lines in one process (starting it costs more than a line)
    tess_lines_of = lines[:tess_lines]
    tess_by_font = (
        measure_each(tess, [(tess_lines_of, line_geometry(f, tess_lines_of)) for f in fonts])
        if tess
        else [None] * len(fonts)
    )
    rows = []
    details = []
    for font, t in progress(
        zip(fonts, tess_by_font, strict=True), desc="fonts", total=len(fonts), unit="font"
    ):
        g = glyph_set(font)
        crisp = distance_matrix(g)  # once: the summary and the confusions both use it
        native = summarize(g, crisp, k=10)
        after = summarize(
            g, distance_matrix(g, 0.75, "bicubic"), scale=0.75, filter="bicubic", k=10
        )
        geom = line_geometry(font, lines)
        m = measure(ocr, lines, geom, NATIVE, seed=seed) if ocr else None
        cmp = (
            compare_confusions(crisp, g.chars, zip(m.refs, m.readings, strict=True), top_k=20)
            if m
            else None
        )
        ref = REFERENCE.get(font.name)
        rows.append(
            f"| {font.name} | {font.cell[0]}x{font.cell[1]} | {len(g.chars)}/{len(g.chars) + len(g.missing)} "
            f"| {native.floor:.0f} | {native.within[1]}/{native.within[2]}/{native.within[3]} "
            f"| {after.floor:.2f} "
            f"| {_fmt(m.char_accuracy) if m else 'n/a'} | {_fmt(m.token_accuracy) if m else 'n/a'} "
            f"| {m.score.lines_exact if m else 'n/a'}/{m.score.lines if m else ''} "
            f"| {_fmt(t.char_accuracy) if t else 'n/a'} | {f'{ref:.2f}' if ref else '-'} |"
        )
        d = [f"### {font.name}", ""]
        d.append(
            "Nearest pairs, native: "
            + ", ".join(f"`{p.a}`~`{p.b}` {p.distance:.0f}" for p in native.nearest)
        )
        d.append("")
        d.append(
            "Nearest pairs after x0.75 bicubic: "
            + ", ".join(f"`{p.a}`~`{p.b}` {p.distance:.2f}" for p in after.nearest)
        )
        d.append("")
        if cmp:
            top = ", ".join(
                f"`{o.true}`→`{o.read}` ×{o.count}"
                + (
                    f" (d={o.distance:.0f}, rank {o.rank})"
                    if o.distance is not None
                    else " (outside)"
                )
                for o in cmp.observed[:12]
            )
            d.append(
                f"rapidocr substitutions: {cmp.substitutions} ({cmp.outside} involve characters outside the font's ASCII set). "
                f"Mean Hamming distance of the confused pairs {cmp.mean_distance_observed:.2f} vs {cmp.mean_distance_all:.2f} over all pairs; "
                f"{cmp.share_in_top_k:.0%} of them are among the {cmp.top_k} nearest predicted pairs."
            )
            d.append("")
            d.append("Most frequent: " + top)
            d.append("")
        details.extend(d)
    dense = [r for r in rows if r.startswith("| snap5x8 ")]
    digests = ", ".join(
        f"{f.name} `{Path(f.path).name}` sha256 {hashlib.sha256(Path(f.path).read_bytes()).hexdigest()[:12]}"
        for f in fonts
    )
    lines_out = [
        "# Font comparison: the dense font against the peers' fonts",
        "",
        f"Generated {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC by `snapshot report` (legibility lab, `snapshot.legibility.report`) "
        f"({len(lines)} seeded hard lines, seed {seed}: hex strings, ids, camelCase, code, numbers; "
        "one line per crop, rapidocr PP-OCRv4 recognition only, native scale). "
        f"Tesseract 5 (`--psm 7`) reads the first {tess_lines} lines only (≈0.5 s per line).",
        "",
        f"Font files: {digests}.",
        "",
        "Columns: glyphs = printable ASCII drawn by the font itself; floor = smallest pixel Hamming "
        "distance between two glyphs; ≤1/≤2/≤3 = glyphs with a neighbour that close; "
        "floor x0.75 = the same after a bicubic downscale and restore (summed ink difference); "
        "reference = the figure quoted in issue 4 for rapidocr on hard lines.",
        "",
        "| font | cell | glyphs | floor | ≤1/≤2/≤3 | floor x0.75 | rapidocr chars | rapidocr tokens | exact lines | tesseract chars | reference |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"Goal for the dense font (cell at most 5×8): rapidocr character accuracy ≥ {GOAL}.",
        "",
    ]
    if dense:
        lines_out.append("Dense font row: " + dense[0])
        lines_out.append("")
    for s in skipped:
        lines_out.append(f"Skipped {s}.")
    lines_out += ["", "## Details", "", *details]
    return "\n".join(lines_out) + "\n"


def build_report(
    out: Path,
    *,
    lines: int = 40,
    seed: int = 0,
    tess_lines: int = 12,
    ocr_lines: int = 24,
    ocr_filters: Sequence[Any] = FILTERS,
    compare_lines: int = 60,
) -> dict[str, Path]:
    """Write the reports; the font comparison first (each file is complete when written)."""
    keep_freed_memory()  # the lab's runs reuse their freed arrays' pages (memory.py)
    out.mkdir(parents=True, exist_ok=True)
    text = hard_lines(lines, seed=seed)
    fonts, skipped = load_fonts(COMPARISON_FONTS)
    cmp_text = font_comparison(
        fonts, skipped, hard_lines(compare_lines, seed=seed), seed, tess_lines
    )
    (out / "font_comparison.md").write_text(cmp_text, encoding="utf-8")

    dense = next((f for f in fonts if f.name == "snap5x8"), fonts[0])
    gen_lines = text[: min(len(text), ocr_lines)]
    gens = [
        generational_loss(
            gen_lines,
            line_geometry(dense, gen_lines),
            Preprocess(scale=0.555, filter="lanczos"),
            OracleReader(),
        ),
    ]
    if rapidocr_available():
        gens.append(
            generational_loss(
                gen_lines,
                line_geometry(dense, gen_lines),
                Preprocess(scale=0.9, filter="bicubic"),
                RapidOcrReader(),
            )
        )
    plot_generational(gens, out / "generational_loss.png")

    readers: list[tuple[Reader, list[str], Sequence[Any]]] = [(OracleReader(), text, FILTERS)]
    if rapidocr_available():
        readers.append((RapidOcrReader(), text[:ocr_lines], ocr_filters))
    sweep = sweep_accuracy(readers, fonts, seed)
    plot_vs_scale(sweep, out / "legibility_vs_scale.png")

    md = [
        "# Legibility lab",
        "",
        f"Generated {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC by `snapshot report` (legibility lab, `snapshot.legibility.report`): "
        f"{lines} seeded hard lines (seed {seed}; rapidocr reads the first {ocr_lines} of them, "
        "since each line costs it 50 ms idle and far more on a loaded machine), one per row, read back after simulated provider "
        "preprocessing. `round-trip check` = the project's font-aware decoder at native size and, "
        "after a resample, a matcher that compares each cell with the font's glyphs put through the "
        "same resample at the same sub-pixel phase (it knows font, grid and filter: whether the "
        "information survived, not readability; its alphabet is printable ASCII). `rapidocr crops "
        "given the renderer's rows` = PP-OCRv4 recognition on row crops cut at the renderer's boxes.",
        "",
        "No closed provider publishes its resampling filter, so every scale is swept with "
        f"{', '.join(FILTERS)}. 0.555 is Claude's downscale of an oversize 1928² page.",
        "",
        "## Character accuracy by reader, font, scale and filter",
        "",
        "![accuracy vs scale](legibility_vs_scale.png)",
        "",
        "| reader | font | scale | " + " | ".join(FILTERS) + " |",
        "|---|---|---|" + "---|" * len(FILTERS),
    ]
    for reader in dict.fromkeys(r[0] for r in sweep):
        for font in dict.fromkeys(r[1] for r in sweep):
            for s in SWEEP_SCALES:
                cells = {
                    filt: m
                    for rd, fn, sc, filt, m in sweep
                    if rd == reader and fn == font and sc == s
                }
                if not cells:
                    continue
                if s == 1.0:
                    vals = [_fmt(cells["-"].char_accuracy)] * len(FILTERS)
                else:
                    vals = [_fmt(cells[f].char_accuracy) if f in cells else "-" for f in FILTERS]
                md.append(f"| {reader} | {font} | {s:g} | " + " | ".join(vals) + " |")
    md += [
        "",
        "Exact-token accuracy at native scale:",
        "",
        "| reader | font | chars | tokens | exact lines |",
        "|---|---|---|---|---|",
    ]
    for rd, fn, s, _filt, m in sweep:
        if s == 1.0:
            md.append(
                f"| {rd} | {fn} | {_fmt(m.char_accuracy)} | {_fmt(m.token_accuracy)} | {m.score.lines_exact}/{m.score.lines} |"
            )
    md += ["", "## Generational loss", "", "![generational loss](generational_loss.png)", ""]
    md += [
        "| reader | font | preprocess | "
        + " | ".join(f"gen {i}" for i in range(1, 6))
        + " | redraw |",
        "|---|---|---|" + "---|" * 6,
    ]
    for g in gens:
        md.append(
            f"| {display_name(g.reader)} | {g.font} | {g.preprocess} | "
            + " | ".join(_fmt(a) for a in g.rerender)
            + f" | {_fmt(g.redraw[0])} |"
        )
    md += [
        "",
        "Redrawing from the source text gives the same page every time, so its accuracy holds; "
        "re-rendering what was read bakes each misread glyph into the next sheet and adds new ones.",
        "",
        "## What each profile's provider does to its page",
        "",
        "Every profile draws a page its provider passes on unresampled (this is also a test: "
        "`tests/test_legibility_regression.py`).",
        "",
        *profile_facts(),
        "",
    ]
    for reason in skipped:
        md.append(f"Skipped {reason}.")
    (out / "legibility.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    # (issue 15: the font comparison is written once, above, with compare_lines lines;
    # a second run here with at least 60 lines made the quick start slow)
    return {
        "legibility": out / "legibility.md",
        "vs_scale": out / "legibility_vs_scale.png",
        "generational": out / "generational_loss.png",
        "fonts": out / "font_comparison.md",
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--out", default="reports")
    ap.add_argument("--lines", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tesseract-lines", type=int, default=12)
    ap.add_argument("--ocr-lines", type=int, default=24, help="lines rapidocr reads per sweep run")
    ap.add_argument("--ocr-filters", nargs="+", default=list(FILTERS), choices=FILTERS)
    ap.add_argument(
        "--compare-lines", type=int, default=60, help="lines per font in the comparison"
    )
    ap.add_argument(
        "--fonts-only",
        action="store_true",
        help="rewrite font_comparison.md only (after a glyph edit)",
    )
    args = ap.parse_args(argv)
    if args.fonts_only:
        fonts, skipped = load_fonts(COMPARISON_FONTS)
        text = hard_lines(args.compare_lines, seed=args.seed)
        path = Path(args.out) / "font_comparison.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            font_comparison(fonts, skipped, text, args.seed, args.tesseract_lines), encoding="utf-8"
        )
        print(path)
        return 0
    paths = build_report(
        Path(args.out),
        lines=args.lines,
        seed=args.seed,
        tess_lines=args.tesseract_lines,
        ocr_lines=args.ocr_lines,
        ocr_filters=args.ocr_filters,
        compare_lines=args.compare_lines,
    )
    for p in paths.values():
        print(p)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("SNAPSHOT_NO_PROGRESS", "")
    sys.exit(main())


# How much of the lab `snapshot report` runs: quick keeps the main job short.
LAB_SIZES: dict[str, dict[str, int]] = {
    # quick (issue 15): a small fixed sample, so the quick start takes seconds
    "quick": {"lines": 6, "tess_lines": 1, "ocr_lines": 2, "compare_lines": 4},
    "full": {"lines": 40, "tess_lines": 12, "ocr_lines": 24, "compare_lines": 60},
}


def write_sections(out: Path, size: str = "quick") -> list[tuple[str, str]]:
    """Run the lab into ``out`` and return the REPORT.md sections that show it."""
    params = LAB_SIZES[size]
    filters: Sequence[Any] = FILTERS if size == "full" else ("bicubic",)
    files = build_report(out, ocr_filters=filters, **params)
    ocr = (
        "rapidocr on crops given the renderer's rows"
        if rapidocr_available()
        else "no OCR engine installed (the [ocr] extra)"
    )
    return [
        (
            "Legibility against resample scale",
            f"![legibility against resample scale]({files['vs_scale'].name})\n\n"
            f"{params['lines']} seeded hard lines per font (hex, ids, camelCase, code), read by the "
            f"round-trip check and by {ocr} after each simulated provider resample. Full tables: "
            f"[{files['legibility'].name}]({files['legibility'].name}); the dense font against "
            f"its peers: [{files['fonts'].name}]({files['fonts'].name}).",
        ),
        (
            "Generational loss",
            f"![generational loss]({files['generational'].name})\n\n"
            "Re-rendering from what was read (read → render → read …, five generations under a "
            "realistic resample) against redrawing from the source text each time: why sheets "
            "are always redrawn from the retained source.",
        ),
    ]
