"""``snapshot legibility`` and ``snapshot tune``: how readable pages are, and the densest
page a reader still reads."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from snapshot.cli.argtypes import at_least, finite_float, page_size_or_own, utc_clock
from snapshot.errors import SnapshotError

READERS = ("oracle", "ocr", "rapidocr", "tesseract", "live")
#: Whole-page readers (snapshot.legibility.page_readers): what `tune` and `frontier` use.
PAGE_READERS = ("ppocrv6-small", "ppocrv5", "rapidocr-v4", "tesseract-x2", "easyocr-en")
#: The frontier's texts (snapshot.legibility.corpus_text.TEXTS; a test keeps them equal).
TEXTS = ("hardlines", "corpus")
FILTER_CHOICES = ("nearest", "bilinear", "bicubic", "lanczos", "box", "all")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "legibility",
        help="accuracy table (reader × font × scale) and nearest confusable glyph pairs",
        description=(
            "Render seeded hard lines (hex, ids, camelCase, code) in each font, apply what "
            "the model's provider does to a page (or the --scale sweep), read them back "
            "with each reader and score character and exact-token accuracy. With --page, "
            "measure an existing page PNG instead."
        ),
    )
    p.add_argument(
        "--model", required=True, help="model id (its profile says what the provider does)"
    )
    p.add_argument(
        "--font",
        action="append",
        help="font name or path (repeatable; default: the comparison set)",
    )
    p.add_argument(
        "--reader",
        action="append",
        choices=READERS,
        help="reader (repeatable; default: oracle and ocr)",
    )
    p.add_argument(
        "--scale",
        type=finite_float(0.01, 16.0),
        nargs="+",
        help="resample factors to sweep, e.g. 1 0.9 0.75 0.555 0.5",
    )
    p.add_argument(
        "--filter",
        action="append",
        choices=FILTER_CHOICES,
        help="resampling filter(s) for scales below 1 (default: all, since providers do not publish theirs)",
    )
    p.add_argument("--lines", type=at_least(1), default=24, help="hard lines per font (default 24)")
    p.add_argument("--seed", type=int, default=0, help="seed of the hard lines (default 0)")
    p.add_argument(
        "--pairs", type=at_least(0), default=8, help="confusable pairs to list per font (default 8)"
    )
    p.add_argument(
        "--page", metavar="PNG", help="measure this page (read by the oracle as ground truth)"
    )
    p.add_argument(
        "--min",
        type=finite_float(0.0, 1.0),
        metavar="ACC",
        help="gate: read full pages of held-out text in the model's layout at its real page "
        "size with independent whole-page readers; exit 1 when the weakest reads fewer "
        "characters than ACC (the round-trip check never gates)",
    )
    p.add_argument(
        "--page-reader",
        action="append",
        choices=PAGE_READERS,
        help="--min: whole-page reader (repeatable; default: every installed one of "
        + ", ".join(PAGE_READERS)
        + ")",
    )
    p.add_argument(
        "--text",
        choices=("hardlines", "corpus"),
        default="hardlines",
        help="--min: generated hard lines (held-out seed) or held-out corpus transcript text",
    )
    p.add_argument(
        "--size",
        metavar="WxH",
        type=page_size_or_own,
        default="own",
        help="--min: page size to draw (default 'own': the model's real page)",
    )
    p.add_argument("--pages", type=at_least(1), default=1, help="--min: full pages per reader")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.set_defaults(func=run_legibility)

    t = sub.add_parser(
        "tune",
        help="search font, size, gaps, page size and ink for the most chars per token a reader reads",
        description=(
            "Rank candidate pages (font × pixel size × shade × row/column gap × page size the "
            "provider passes unresampled) by characters per billed token and read full pages "
            "of the tuning lines whole with a page reader, densest first; the first that meets "
            "the target at native scale and after a 0.9x bicubic resample wins. It is written "
            "as a profile file only when the report's own check confirms it (the gate of "
            "`legibility --min`: the winner at its page, held-out hard lines, the weakest "
            "qualified reader at >= 0.95 of its control page); else exit 1 with one line. The "
            "crop readers (oracle, ocr, tesseract) are a diagnostic, given the renderer's rows."
        ),
    )
    t.add_argument("--model", required=True)
    t.add_argument(
        "--reader",
        action="append",
        choices=PAGE_READERS + READERS,
        help="the reader (default ppocrv6-small); page readers repeat: every one must read a "
        "candidate, the weakest decides (cheapest first: the first below the bar stops it)",
    )
    t.add_argument(
        "--target",
        type=finite_float(0.0, 1.0),
        help="character accuracy to meet (default 0.97 whole page; 0.99 for crop readers)",
    )
    t.add_argument(
        "--hard-target",
        type=finite_float(0.0, 1.0),
        default=0.90,
        help="exact hard tokens (default 0.90)",
    )
    t.add_argument(
        "--resampled-target",
        type=finite_float(0.0, 1.0),
        default=0.90,
        help="character accuracy after the 0.9x bicubic resample (default 0.90)",
    )
    t.add_argument(
        "--font",
        action="append",
        help="fonts to try, FONT[@PX][:gray|gray16|gray4] for page readers (repeatable)",
    )
    t.add_argument("--col-gap", type=at_least(0), nargs="+", help="extra column pitch values")
    t.add_argument(
        "--row-gap", type=at_least(0), nargs="+", help="extra row pitch values (default 0 1 2)"
    )
    t.add_argument("--ink", action="append", choices=("black-on-white", "white-on-black"))
    t.add_argument(
        "--stroke",
        type=at_least(0),
        nargs="+",
        help="page readers: extra stroke widths in px to try (default 0 1; lab only, "
        "never written into the profile)",
    )
    t.add_argument(
        "--lines",
        type=at_least(1),
        default=40,
        help="crop readers: hard lines per candidate (default 40)",
    )
    t.add_argument(
        "--pages",
        type=at_least(1),
        default=1,
        help="page readers: full pages per candidate (default 1)",
    )
    t.add_argument("--cache", metavar="FILE", help="page readers: JSONL cache of measurements")
    t.add_argument(
        "--measure-page",
        metavar="WxH",
        type=page_size_or_own,
        default="own",
        help="page readers: read each candidate on its own page size and, once it passes, "
        "at ±4 px (default 'own'), or every style on full pages of this size (e.g. 784x728, "
        "the frontier's sample page: cheaper, but not the page the provider gets)",
    )
    t.add_argument(
        "--base-url",
        default=None,
        help="--reader live: send requests to this endpoint instead of the provider's",
    )
    t.add_argument(
        "--text",
        action="append",
        choices=("hardlines", "corpus-tuning"),
        help="page readers: what each reads, repeatable, every one must pass (default "
        "hardlines, the tuning seed's generated lines; corpus-tuning: the corpus's tuning "
        "half, never the held-out half the claims are measured on)",
    )
    t.add_argument("--seed", type=int, help="tuning seed (default: hardlines.TUNING_SEED)")
    t.add_argument(
        "--out", metavar="FILE", help="profile file to write (default: profile-<model>.json)"
    )
    t.add_argument("--json", action="store_true")
    t.set_defaults(func=run_tune)

    f = sub.add_parser(
        "frontier",
        help="readability at the pages providers get: every reader, both texts, ±4 px, ×0.9",
        description=(
            "Take the readings the campaign still lacks, highest priority first (stage 1: "
            "the dense layout and the Gemini and Claude defaults at their real pages by every "
            "reader on both texts; 2: x0.9 bicubic where a reader passes natively; 3: ±4 px, "
            "PP-OCR readers first; 4: the other profiles' real pages; 5: candidate layouts at "
            "Gemini's page), each cached in --cache as it ends, then write frontier.md and "
            "frontier.png from every cached reading at a real page size."
        ),
    )
    f.add_argument("--reader", action="append", choices=PAGE_READERS)
    f.add_argument("--cache", metavar="FILE", default="reports/frontier-points.jsonl")
    f.add_argument("--out-dir", default="reports")
    f.add_argument("--pages", type=at_least(1), default=1, help="full pages per layout (default 1)")
    f.add_argument(
        "--stage",
        action="append",
        type=int,
        choices=(1, 2, 3, 4, 5),
        help="campaign stages to take, in priority order (default 1-4; repeatable)",
    )
    f.add_argument("--text", action="append", choices=TEXTS, help="texts to read (default: both)")
    f.add_argument(
        "--model",
        action="append",
        help="profiles whose real pages stages 1-3 read (default gemini-3.8-flash, "
        "claude-sonnet-5-5; the first one's page holds the dense layout and stage 5)",
    )
    f.add_argument(
        "--until",
        metavar="HH:MM",
        type=utc_clock,
        help="start no new reading after this UTC time today (cached readings stay)",
    )
    f.add_argument(
        "--cached-only", action="store_true", help="use cached points only, measure nothing"
    )
    f.set_defaults(func=run_frontier)


def _check_counts(lines: int) -> None:
    if lines < 1:
        raise SnapshotError(f"--lines must be at least 1, got {lines}")


def run_legibility(args: argparse.Namespace) -> int:
    _check_counts(args.lines)
    if args.min is not None:
        return _run_gate(args)
    if args.page:
        return _run_page(args)
    from snapshot.legibility.lab import legibility_table

    table = legibility_table(
        args.model,
        fonts=args.font,
        readers=args.reader,
        scales=args.scale,
        filters=args.filter,
        lines=args.lines,
        seed=args.seed,
        pairs=args.pairs,
    )
    if args.json:
        _print_table_json(table)
        return 0
    _print_table(table)
    return 0


def _run_gate(args: argparse.Namespace) -> int:
    from snapshot.legibility.gate import gate

    if args.reader:
        raise SnapshotError(
            "--min gates on independent whole-page readers (--page-reader); --reader picks "
            "crop readers and the round-trip check, which never gate"
        )
    if args.page:
        raise SnapshotError("--min draws its own held-out pages; --page cannot be gated")
    result = gate(
        args.model,
        args.min,
        readers=args.page_reader or (),
        size=None if args.size == "own" else args.size,
        text=args.text,
        pages=args.pages,
    )
    if args.json:
        json.dump(
            result.as_dict(),
            sys.stdout,
            indent=2,
            ensure_ascii=False,
        )
        print()
    else:
        _print_gate(result)
    return 0 if result.passed else 1


def _print_gate(result: Any) -> None:
    from snapshot.legibility.controls import QUALIFY_BAR, control_layout
    from snapshot.legibility.corpus_text import describe_text

    first = result.points[0]
    w, h = first.layout.page
    print(
        f"model {result.model}: {first.layout.key}, {first.pages} full page(s) of "
        f"{describe_text(result.text, first.seed)}, read whole; control page "
        f"{control_layout(first.layout).key} (a reader judges where it reads that at "
        f">= {QUALIFY_BAR})"
    )
    for j in result.judged:
        p = j.point
        role = "judges" if j.qualified else "does not judge (control below the bar)"
        print(
            f"{j.reader:<14} chars {p.char_accuracy:.3f} / control {j.control.char_accuracy:.3f}"
            f" = {j.relative:.3f}  hard tokens {p.hard_tokens_exact}/{p.hard_tokens}  {role}"
        )
    weak = result.weakest
    verdict = "PASS" if result.passed else "FAIL"
    print(
        f"{verdict}: weakest qualified reader {weak.reader} reads {weak.relative:.3f} of its "
        f"control ({weak.point.char_accuracy:.3f} of the characters) on {w}x{h} "
        f"(bar {result.minimum:g})"
    )


def _print_table_json(table: Any) -> None:
    from snapshot.legibility.lab import table_dict

    json.dump(table_dict(table), sys.stdout, indent=2)
    print()


def _print_table(table: Any) -> None:
    from snapshot.legibility.readers import display_name

    out = sys.stdout
    print(f"model {table.model}: {table.provider.note}", file=out)
    print(f"{table.lines} hard lines (seed {table.seed})", file=out)
    for s in table.skipped:
        print(f"skipped {s}", file=out)
    print(file=out)
    print(
        f"{'reader':<16} {'font':<12} {'preprocess':<22} {'chars':>6} {'tokens':>6} {'exact lines':>11}",
        file=out,
    )
    for r in table.rows:
        print(
            f"{display_name(r.reader):<16} {r.font:<12} {r.preprocess:<22} {r.char_accuracy:6.3f} "
            f"{r.token_accuracy:6.3f} {r.lines_exact:>5}/{r.lines:<5}",
            file=out,
        )
    print(file=out)
    print(
        "nearest confusable pairs (pixel distance; after a resample: summed ink difference)",
        file=out,
    )
    for c in table.confusable:
        pairs = "  ".join(f"{p.a}~{p.b} {p.distance:.3g}" for p in c.nearest)
        where = "native" if c.scale == 1.0 else f"x{c.scale:g} {c.filter}"
        print(f"{c.font:<12} {where:<14} floor {c.floor:.3g}  {pairs}", file=out)


def _run_page(args: argparse.Namespace) -> int:
    from snapshot.legibility.lab import measure_page

    fonts = args.font or []
    if len(fonts) != 1:
        raise SnapshotError("--page needs exactly one --font: the font the page was drawn in")
    result = measure_page(
        args.page,
        fonts[0],
        readers=args.reader,
        scales=args.scale,
        filters=args.filter,
        sample=args.lines,
        seed=args.seed,
    )
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return 0
    _print_page(args.page, result)
    return 0


def _print_page(page: str, result: dict[str, Any]) -> None:
    from snapshot.legibility.readers import display_name

    print(
        f"page {page}: {result['rows']} text rows in {result['font']}; {result['sampled']} read per run"
    )
    for r in result["accuracy"]:
        print(
            f"{display_name(r['reader']):<16} {r['preprocess']:<22} chars {r['char_accuracy']:.3f}  tokens {r['token_accuracy']:.3f}"
        )


def _style(text: str) -> tuple[str, int | None, str]:
    """``FONT[@PX][:SHADE]`` as (font, pixel size, shade): gray, gray16, gray4 or 1-bit."""
    from snapshot.rendering.geometry import SHADES

    name, _, shade = text.partition(":")
    font, _, px = name.partition("@")
    if shade and shade not in SHADES:
        raise SnapshotError(
            f"--font {text}: the shade after ':' must be one of {', '.join(SHADES)}"
        )
    if px and not px.isdigit():
        raise SnapshotError(f"--font {text}: the size after '@' must be a pixel size")
    return font, int(px) if px else None, shade or "1-bit"


def run_tune(args: argparse.Namespace) -> int:
    readers = args.reader or ["ppocrv6-small"]
    if all(r in PAGE_READERS for r in readers):
        return _run_tune_pages(args, readers)
    if len(readers) > 1:
        raise SnapshotError(
            f"--reader {' '.join(readers)}: only page readers ({', '.join(PAGE_READERS)}) "
            "tune together; a crop reader tunes alone"
        )
    _check_counts(args.lines)
    from snapshot.legibility.tune import tune_and_write

    outcome = tune_and_write(
        args.model,
        readers[0],
        target=args.target,
        fonts=args.font,
        col_gaps=args.col_gap,
        row_gaps=args.row_gap,
        inks=args.ink,
        lines=args.lines,
        seed=args.seed,
        base_url=args.base_url,
        out=args.out,
    )
    if args.json:
        json.dump(outcome.document, sys.stdout, indent=2)
        print()
    else:
        _print_tune(outcome)
    return _tune_exit(outcome)


def _tune_exit(outcome: Any) -> int:
    """0 when a profile was written; else 1, the check's one line on stderr when it
    refused the winner (no winner: ``why`` says so)."""
    conf = outcome.confirmation
    if conf is not None and not conf.passed:
        print(f"snapshot tune: {conf.line}", file=sys.stderr)
    return 0 if outcome.written else 1


def _print_tune(outcome: Any) -> None:
    result = outcome.result
    for t in result.trials:
        c = t.candidate
        mark = "WIN " if t is result.winner else "    "
        print(
            f"{mark}{c.font:<12} gap {c.col_gap}/{c.row_gap} {c.ink:<15} {c.page[0]}x{c.page[1]:<5} "
            f"{c.density:6.2f} chars/token  accuracy {t.char_accuracy:.3f}"
        )
    _print_tune_end(outcome)


def _print_tune_end(outcome: Any) -> None:
    """What both tuners print after their trials: skipped candidates, why, the profile."""
    for s in outcome.result.skipped:
        print(f"skipped {s}")
    print(outcome.result.why)
    conf = outcome.confirmation
    if conf is not None and conf.passed:
        print(conf.line)
    if outcome.path:
        print(f"wrote {outcome.path} (use it with --profile {outcome.path})")


def _run_tune_pages(args: argparse.Namespace, readers: list[str]) -> int:
    from snapshot.legibility.tune import tune_pages_and_write

    if args.pages < 1:
        raise SnapshotError(f"--pages must be at least 1, got {args.pages}")
    outcome = tune_pages_and_write(
        args.model,
        readers[0] if len(readers) == 1 else readers,
        target=args.target,
        hard_target=args.hard_target,
        resampled_target=args.resampled_target,
        styles=[_style(f) for f in args.font] if args.font else None,
        row_gaps=args.row_gap,
        col_gaps=args.col_gap,
        strokes=args.stroke,
        measure_page=args.measure_page,
        seed=args.seed,
        pages=args.pages,
        cache=args.cache,
        out=args.out,
        texts=args.text,
    )
    if args.json:
        json.dump(outcome.document, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        _print_tune_pages(outcome)
    return _tune_exit(outcome)


def _print_tune_pages(outcome: Any) -> None:
    result = outcome.result
    for t in result.trials:
        mark = "WIN " if t is result.winner else "    "
        res = (
            f"{t.resampled.char_accuracy:.3f} ({t.resampled.reader_name})"
            if t.resampled is not None
            else "  –  "
        )
        print(
            f"{mark}{t.candidate.layout.key:<44} {t.candidate.chars_per_token:6.2f} chars/token  "
            f"weakest {t.native.reader_name} on {t.native.text}: chars {t.native.char_accuracy:.3f}  "
            f"hard {t.native.hard_token_accuracy:.2f}  x0.9 {res}"
            + ("  unstable at ±4 px" if t.unstable else "")
            + ("  passes, stroke lab only" if t.lab_only else "")
        )
    _print_tune_end(outcome)


def run_frontier(args: argparse.Namespace) -> int:
    from snapshot.legibility.frontier_report import frontier_report

    report = frontier_report(
        args.reader,
        cache_path=args.cache,
        out_dir=args.out_dir,
        pages=args.pages,
        stages=args.stage,
        texts=args.text,
        models=args.model,
        measure_missing=not args.cached_only,
        until=args.until,
        log=lambda line: print(line, flush=True),
    )
    for u in report.unavailable:
        print(f"not measured: {u}")
    print(f"{len(report.points)} points; wrote {report.table} and {report.plot}")
    return 0
