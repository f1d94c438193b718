"""``snapshot render``, ``snapshot read`` and ``snapshot fonts``.

Parsing and printing only: each command is one call, to
:func:`snapshot.profiles.render_files.render_files`, :func:`snapshot.rendering.decode.read_page_file`
or :func:`snapshot.rendering.font_survey.font_survey`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from snapshot.cli.argtypes import int_between

if TYPE_CHECKING:
    from snapshot.profiles.render_files import RenderedFiles

#: Largest --cols / --rows: far beyond any provider's page, small enough to refuse early.
MAX_CELLS = 10_000


def register(subparsers: Any) -> None:
    r = subparsers.add_parser(
        "render",
        help="draw a text file as dense 1-bit PNG pages",
        description=(
            "Normalize FILE (or stdin with '-'; without FILE, the bundled demo session) and "
            "draw it on pixel sheets: OUT/page-001.png, ... Prints a summary, or JSON with "
            "--json. Characters no font can draw become the replacement glyph and are counted. "
            "Pages are drawn on every core and written as they are drawn, in memory that does "
            "not grow with the input. page-NNN.png files already in OUT (and only those) are "
            "removed first; after an error no page of the run is left."
        ),
    )
    r.add_argument("file", nargs="?", metavar="FILE|-", help="UTF-8 text (default: bundled demo)")
    r.add_argument(
        "--out", default="out", metavar="DIR", help="directory for page PNGs (default: out)"
    )
    r.add_argument("--font", metavar="NAME", help="font name or file (default: snap5x8)")
    r.add_argument(
        "--cols",
        type=int_between(3, MAX_CELLS),
        metavar="N",
        help=f"cells per row, 3..{MAX_CELLS} (default: fill the page)",
    )
    r.add_argument(
        "--rows",
        type=int_between(2, MAX_CELLS),
        metavar="N",
        help=f"rows per page, header included, 2..{MAX_CELLS}",
    )
    r.add_argument(
        "--lines",
        action="store_true",
        help="lines mode: each source line starts a row (default: flow, newlines drawn as ⏎)",
    )
    r.add_argument(
        "--keep",
        action="store_true",
        help="keep runs no font can draw as text (listed in the summary) instead of replacing them",
    )
    # Page size from a model's profile: snapshot.profiles resolves it.
    r.add_argument("--model", metavar="M", help="use the page geometry of model M's profile")
    r.add_argument(
        "--profile",
        metavar="FILE",
        help="JSON/TOML profiles file (with --model, or alone when it holds one profile)",
    )
    r.add_argument(
        "--detail",
        metavar="LEVEL",
        help="with --model: OpenAI detail or Gemini 3 media_resolution level to size the page for",
    )
    r.add_argument(
        "--fallback",
        action="store_true",
        help="with --model: use the conservative fallback profile if no table knows the model",
    )
    r.add_argument(
        "--workers",
        type=int_between(1, 1024),
        metavar="N",
        help="workers drawing, encoding and writing pages (default: one per core): processes "
        "for a file in flow mode on Linux, threads otherwise; 1 draws in this process",
    )
    r.add_argument(
        "--max-input",
        type=int_between(1, 1 << 50),
        metavar="BYTES",
        help="refuse input longer than this (default: 1 GiB, or a quarter of the free space "
        "in OUT if less: pages take about 3 bytes per input character)",
    )
    r.add_argument("--json", action="store_true", help="print a JSON summary")
    r.set_defaults(func=run_render)

    d = subparsers.add_parser(
        "read",
        help="decode a page PNG drawn by snapshot back to text",
        description=(
            "Font-aware decoder: matches each cell against the font's glyphs. The page header "
            "names the font and grid; --font overrides the font."
        ),
    )
    d.add_argument("page", metavar="PAGE.png")
    d.add_argument(
        "--font", metavar="NAME", help="font the page was drawn with (default: from header)"
    )
    d.set_defaults(func=run_read)

    f = subparsers.add_parser(
        "fonts",
        help="list fonts: cell, glyphs, coverage and the closest glyph pairs",
        description="Fonts load_font accepts by name, with cell size, glyph count, coverage "
        "of the issue's repertoire and the printable-ASCII glyph pairs closest in Hamming distance.",
    )
    f.add_argument("--json", action="store_true", help="print JSON")
    f.set_defaults(func=run_fonts)


def run_render(args: argparse.Namespace) -> int:
    from snapshot.profiles.render_files import render_files

    done = render_files(
        args.file,
        args.out,
        font=args.font,
        model=args.model,
        profiles_file=args.profile,
        detail=args.detail,
        fallback=args.fallback,
        cols=args.cols,
        rows=args.rows,
        lines=args.lines,
        keep=args.keep,
        workers=args.workers,
        max_input=args.max_input,
    )
    if args.json:
        print(json.dumps(done.as_dict(), ensure_ascii=False))
        return 0
    _print_render(done)
    return 0


def _print_render(done: RenderedFiles) -> None:
    g = done.geometry
    width, height = g.size
    n = len(done.written)
    print(
        f"{done.label}: {done.chars:,} chars -> {n} page{'s' if n != 1 else ''} of "
        f"{width}x{height} px ({g.font.name} {g.cell[0]}x{g.cell[1]} cells, "
        f"{g.cols}x{g.text_rows} text grid, {g.chars_per_page:,} chars/page, "
        f"{'flow' if g.flow else 'lines'} mode) in {done.out}/"
    )
    if n:
        print(f"  PNG: {done.png_bytes:,} bytes total, {done.png_bytes // n:,} per page")
    if done.replaced:
        shown = ", ".join(f"{ch!r} x{count}" for ch, count in sorted(done.replaced.items())[:12])
        more = len(done.replaced) - 12
        print(
            f"  replaced (no font draws them): {sum(done.replaced.values())} chars: {shown}"
            + (f", ... {more} more" if more > 0 else "")
        )
    if done.kept:
        print(
            f"  kept as text: {len(done.kept)} runs ({sum(len(k.text) for k in done.kept)} chars)"
        )
    if done.normalized:
        print(
            "  normalized: "
            + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in done.normalized.items())
        )
    if done.invalid_utf8:
        print(f"  invalid UTF-8: {done.invalid_utf8} byte sequences replaced by U+FFFD")
    if not n:
        print("  (empty input: no pages)")


def run_read(args: argparse.Namespace) -> int:
    from snapshot.rendering.decode import read_page_file

    text = read_page_file(args.page, font=args.font)
    sys.stdout.write(text)
    if text and not text.endswith("\n"):
        sys.stdout.write("\n")
    return 0


def run_fonts(args: argparse.Namespace) -> int:
    from snapshot.rendering.font_survey import font_survey

    records = font_survey()
    if args.json:
        print(json.dumps(records, ensure_ascii=False))
        return 0
    print(
        f"{'name':18} {'cell':6} {'glyphs':>6}  coverage (ascii latin1 extA greek cyr box)  closest pairs"
    )
    for rec in records:
        cov = " ".join(f"{int(v * 100):3d}%" for v in rec["coverage"].values())
        pairs = "  ".join(f"{a}{b}:{d}" for a, b, d in rec["closest"][:4])
        cell = f"{rec['cell'][0]}x{rec['cell'][1]}"
        print(f"{rec['name']:18} {cell:6} {rec['glyphs']:>6}  {cov}  {pairs}")
    return 0
