"""``snapshot render``, ``snapshot read`` and ``snapshot fonts``.

Parsing and printing only; the work happens in :mod:`snapshot.page`,
:mod:`snapshot.decode` and :mod:`snapshot.glyphs`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

DEMO = "session.txt"
#: Largest --cols / --rows: far beyond any provider's page, small enough to refuse early.
MAX_CELLS = 10_000
#: Default --max-input ceiling.
MAX_INPUT = 1 << 30


def bounded_int(low: int, high: int) -> Any:
    """An argparse type: an integer in ``[low, high]``, else a one-line usage error."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high:,}, got {value:,}")
        return value

    return parse


def default_max_input(out: Path) -> int:
    """1 GiB, or a quarter of the free space where OUT will be, if that is less."""
    import shutil

    probe = out
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        free = shutil.disk_usage(probe).free
    except OSError:
        return MAX_INPUT
    return max(1 << 20, min(MAX_INPUT, free // 4))


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
        type=bounded_int(3, MAX_CELLS),
        metavar="N",
        help=f"cells per row, 3..{MAX_CELLS} (default: fill the page)",
    )
    r.add_argument(
        "--rows",
        type=bounded_int(2, MAX_CELLS),
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
        type=bounded_int(1, 1024),
        metavar="N",
        help="threads drawing and encoding pages (default: one per core)",
    )
    r.add_argument(
        "--max-input",
        type=bounded_int(1, 1 << 50),
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


def _demo_text() -> str:
    from importlib import resources

    return resources.files("snapshot").joinpath("demo", DEMO).read_text(encoding="utf-8")


def _geometry(args: argparse.Namespace) -> Any:
    from snapshot.errors import InputError
    from snapshot.geometry import DEFAULT_PAGE, Geometry
    from snapshot.glyphs import default_font_name, load_font

    overrides = None
    if args.profile:
        from snapshot import profiles

        overrides = profiles.load_profiles(args.profile)
        if not args.model and len(overrides) != 1:
            raise InputError(
                f"{args.profile} holds {len(overrides)} profiles; pick one with --model"
            )
    model = args.model or (next(iter(overrides)) if overrides else None)
    if args.detail and not model:
        raise InputError("--detail needs --model: which model's detail level to use")
    if model:
        from snapshot import profiles

        profile = profiles.profile_for(
            model, overrides=overrides, detail=args.detail, fallback=args.fallback
        )
        geometry = profile.geometry()
        if args.font:
            geometry = Geometry.fit(load_font(args.font), *geometry.size, padding=geometry.padding)
    else:
        font = load_font(args.font or default_font_name())
        geometry = Geometry.fit(font, *DEFAULT_PAGE)
    if args.cols or args.rows or args.lines:
        cols = args.cols or geometry.cols
        rows = args.rows or geometry.rows
        for name, value in (("--cols", cols), ("--rows", rows)):
            if value < 1:
                raise InputError(f"{name} must be positive, got {value}")
        page_size = geometry.page_size
        if args.cols or args.rows:
            page_size = None  # the page shrinks or grows to the asked grid
        geometry = Geometry(
            geometry.font,
            cols=cols,
            rows=rows,
            padding=geometry.padding,
            flow=not args.lines,
            page_size=page_size,
        )
    return geometry


def run_render(args: argparse.Namespace) -> int:
    from snapshot.page import iter_pages
    from snapshot.pagefiles import check_page_size, write_pages
    from snapshot.parallel import default_workers
    from snapshot.text import TextReader

    out = Path(args.out)
    geometry = _geometry(args)
    check_page_size(geometry)
    reader = None
    source: Any
    if args.file is None:
        source, label = _demo_text(), "bundled demo session"
    else:
        max_input = args.max_input or default_max_input(out)
        reader = TextReader(args.file, max_bytes=max_input)
        label = reader.label
        # stdin can be read once: a one-shot iterator, spooled by the page stream
        source = iter(reader) if args.file == "-" else reader
    stream = iter_pages(
        source,
        geometry,
        unrenderable="keep" if args.keep else "replace",
        workers=args.workers or default_workers(),
        encode=True,
    )
    stream.total  # noqa: B018 (the first pass: limits and bad input fail before any file)
    invalid = reader.invalid_utf8 if reader is not None else 0
    changes = stream.normalized.changes()
    written = write_pages(stream, out)
    width, height = geometry.size
    records = [
        {"file": str(w.path), "width": width, "height": height, "chars": w.chars} for w in written
    ]
    rendering = stream
    if args.json:
        summary: dict[str, Any] = {
            "pages": records,
            "chars": rendering.chars,
            "replaced": rendering.replaced,
            "source": "demo" if args.file is None else args.file,
            "font": geometry.font.name,
            "cell": list(geometry.cell),
            "grid": [geometry.cols, geometry.rows],
            "mode": "flow" if geometry.flow else "lines",
            "invalid_utf8": invalid,
            "normalized": changes,
            "kept": [
                {"text": k.text, "start": k.start, "page": k.page + 1, "row": k.row, "col": k.col}
                for k in rendering.kept
            ],
        }
        print(json.dumps(summary, ensure_ascii=False))
        return 0
    n = len(records)
    print(
        f"{label}: {rendering.chars:,} chars -> {n} page{'s' if n != 1 else ''} of "
        f"{width}x{height} px ({geometry.font.name} {geometry.cell[0]}x{geometry.cell[1]} cells, "
        f"{geometry.cols}x{geometry.text_rows} text grid, {geometry.chars_per_page:,} chars/page, "
        f"{'flow' if geometry.flow else 'lines'} mode) in {out}/"
    )
    total_bytes = sum(w.bytes for w in written)
    if records:
        print(f"  PNG: {total_bytes:,} bytes total, {total_bytes // len(records):,} per page")
    if rendering.replaced:
        shown = ", ".join(
            f"{ch!r} x{count}" for ch, count in sorted(rendering.replaced.items())[:12]
        )
        more = len(rendering.replaced) - 12
        print(
            f"  replaced (no font draws them): {sum(rendering.replaced.values())} chars: {shown}"
            + (f", ... {more} more" if more > 0 else "")
        )
    if rendering.kept:
        print(
            f"  kept as text: {len(rendering.kept)} runs ({sum(len(k.text) for k in rendering.kept)} chars)"
        )
    if changes:
        print(
            "  normalized: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in changes.items())
        )
    if invalid:
        print(f"  invalid UTF-8: {invalid} byte sequences replaced by U+FFFD")
    if not records:
        print("  (empty input: no pages)")
    return 0


def run_read(args: argparse.Namespace) -> int:
    from snapshot.decode import _as_ink, find_header, load_png, read
    from snapshot.errors import ImageError, SnapshotError
    from snapshot.glyphs import available_fonts, load_font

    pixels = load_png(args.page)
    text: str | None = None
    if args.font:
        text = read(pixels, load_font(args.font))
    else:
        img = _as_ink(pixels, None)
        tried: list[str] = []
        for name in available_fonts():
            if name == "unifont":
                continue  # too slow to load just to probe; pass --font unifont
            font = load_font(name)
            tried.append(name)
            found = find_header(img, font)
            if found is None:
                continue
            header = found[0]
            if header.font and header.font != name:
                try:
                    font = load_font(header.font)
                except SnapshotError:
                    continue
            text = read(pixels, font)
            break
        if text is None:
            raise ImageError(
                f"{args.page}: no snapshot page header found with any font ({', '.join(tried)}); "
                "pass --font NAME"
            )
    assert text is not None
    sys.stdout.write(text)
    if text and not text.endswith("\n"):
        sys.stdout.write("\n")
    return 0


# the repertoire the issue asks the project fonts to cover, by block
_COVERAGE = {
    "ascii": [chr(c) for c in range(0x20, 0x7F)],
    "latin1": [chr(c) for c in range(0xA0, 0x100)],
    "latin_ext_a": [chr(c) for c in range(0x100, 0x180)],
    "greek": [chr(c) for c in range(0x391, 0x3AA) if c != 0x3A2]
    + [chr(c) for c in range(0x3B1, 0x3CA)],
    "cyrillic": [chr(c) for c in range(0x410, 0x450)],
    "box": [chr(c) for c in range(0x2500, 0x2580)],
}


def run_fonts(args: argparse.Namespace) -> int:
    from snapshot.glyphs import available_fonts, closest_pairs, load_font

    records: list[dict[str, Any]] = []
    for name, path in available_fonts().items():
        if name == "unifont":
            continue  # 57k glyphs: loads in seconds; available by name all the same
        font = load_font(name)
        primary = font.primary_chars
        coverage = {
            block: round(sum(c in primary for c in chars) / len(chars), 3)
            for block, chars in _COVERAGE.items()
        }
        records.append(
            {
                "name": name,
                "path": str(path),
                "cell": list(font.cell),
                "glyphs": len(primary),
                "coverage": coverage,
                "closest": [list(p) for p in closest_pairs(font, limit=5)],
            }
        )
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
