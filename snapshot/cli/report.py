"""``snapshot report`` (the main job) and ``snapshot compact`` (one provider-ready request)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from snapshot.cli.conversation import conversation_arguments


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "report",
        help="run the compaction benchmark and write reports/REPORT.md with plots",
        description=(
            "Run every compaction strategy and the ladder on conversations × profiles and write "
            "REPORT.md, results.json and PNG plots. With no --corpus it runs on the package's own "
            "demo transcripts; with --corpus PATH/benchmark.manifest.json, on the benchmark corpus."
        ),
    )
    p.add_argument("--corpus", type=Path, help="benchmark.manifest.json of a transcript corpus")
    p.add_argument(
        "--out", type=Path, default=Path("reports"), help="output folder (default: reports/)"
    )
    p.add_argument(
        "--model",
        dest="models",
        action="append",
        help="profile to include (repeatable; default: Claude, OpenAI and Gemini defaults)",
    )
    p.add_argument("--workers", type=int, help="processes (default: one per core)")
    p.add_argument("--limit", type=int, help="only the first N conversations")
    p.add_argument(
        "--ocr-rows",
        type=int,
        default=0,
        help="page rows per conversation and profile read as crops given the renderer's rows (a diagnostic; needs the [ocr] extra)",
    )
    # Whole-page readers and live probe records (issue 14).
    p.add_argument(
        "--page-readers",
        default="",
        metavar="NAMES",
        help="whole-page readers, comma-separated, or 'all' (ppocrv6-small, ppocrv5, rapidocr-v4, "
        "tesseract-x2); each reads a seeded sample of full pages; default none",
    )
    p.add_argument(
        "--reader-pages",
        type=int,
        default=1,
        metavar="N",
        help="full pages per conversation and profile the whole-page readers read (default 1)",
    )
    p.add_argument(
        "--probes",
        type=Path,
        metavar="DIR",
        help="folder of `snapshot probe` needle records to add as a live reader column",
    )
    p.add_argument(
        "--budget-ratio",
        type=float,
        default=0.3,
        help="ladder budget as a share of each conversation's tokens (default 0.3)",
    )
    p.add_argument(
        "--legibility",
        choices=["quick", "full", "none"],
        default="quick",
        help="how much of the legibility lab to run (default quick; full reads more lines with every filter)",
    )
    p.add_argument(
        "--no-legibility",
        dest="legibility",
        action="store_const",
        const="none",
        help="same as --legibility none",
    )
    p.set_defaults(func=cmd_report)

    c = subparsers.add_parser(
        "compact",
        help="compact one conversation into a provider-ready request within a token budget",
        description=(
            "Climb the ladder (elide, drop images, snapshot, summary) until CONV fits --budget tokens "
            "for --model, then write the request body the provider accepts, the pages, and a JSON "
            "record of every rung taken."
        ),
        parents=[
            conversation_arguments("a transcript file, a store file, or a stored conversation id")
        ],
    )
    c.add_argument(
        "--model", required=True, help="the reader's model id (decides pages, prices, limits)"
    )
    c.add_argument("--budget", type=int, required=True, help="token budget for the request")
    c.add_argument(
        "--out", type=Path, required=True, help="folder for request.json, pages and record.json"
    )
    c.add_argument("--json", action="store_true", help="print the record as JSON")
    c.add_argument(
        "--keep-turns", type=int, default=2, help="recent turns kept verbatim (default 2)"
    )
    c.add_argument(
        "--factsheet",
        type=int,
        default=0,
        metavar="CHARS",
        help="exact identifiers beside the pages, within CHARS",
    )
    c.add_argument(
        "--summarizer",
        default="auto",
        help="auto (real corpus summary where one exists, else none), none, or live:MODEL (needs the [live] extra and a key)",
    )
    c.add_argument(
        "--api", choices=["chat", "responses"], default="chat", help="OpenAI request shape"
    )
    c.add_argument(
        "--provider-limit",
        type=int,
        help="check the request with a simulated provider (offline stand-in) that counts exactly and rejects above this many tokens; the ladder recovers with free rungs",
    )
    c.set_defaults(func=cmd_compact)


def cmd_report(args: argparse.Namespace) -> int:
    from snapshot.errors import InputError
    from snapshot.report.main import make_report
    from snapshot.report.matrix import Settings
    from snapshot.report.run import DEFAULT_MODELS

    if args.corpus is not None and not args.corpus.is_file():
        raise InputError(
            f"--corpus {args.corpus}: no such manifest file (give .../benchmark.manifest.json)"
        )
    from snapshot.legibility.page_readers import parse_reader_names

    if args.probes is not None and not args.probes.is_dir():
        raise InputError(f"--probes {args.probes}: no such folder of probe records")
    settings = Settings(
        ocr_rows=args.ocr_rows,
        budget_ratio=args.budget_ratio,
        page_readers=parse_reader_names(args.page_readers),
        reader_pages=args.reader_pages,
    )
    files = make_report(
        args.corpus,
        args.out,
        models=tuple(args.models or DEFAULT_MODELS),
        settings=settings,
        workers=args.workers,
        limit=args.limit,
        use_ocr=args.ocr_rows > 0,
        legibility=args.legibility,
        probes=args.probes,
    )
    r = files.result
    print(f"{len(r.sources)} conversations × {len(r.models)} profiles in {r.seconds:.0f} s")
    for err in r.errors:
        print(f"  failed: {err}")
    print(f"wrote {files.report}, {files.results}")
    for path in files.figures.values():
        if path is not None:
            print(f"      {path}")
    return 0


def _summarizer(spec: str, conv: Any) -> Any:
    from snapshot.errors import InputError
    from snapshot.ladder.summary import LiveSummarizer, corpus_summarizer

    if spec == "none":
        return None
    if spec == "auto":
        return corpus_summarizer(conv)
    if spec.startswith("live:") and len(spec) > 5:
        return LiveSummarizer(spec[5:])
    raise InputError(f"--summarizer {spec!r}: use auto, none, or live:MODEL")


def cmd_compact(args: argparse.Namespace) -> int:
    from snapshot.cli.conversation import load_conversation
    from snapshot.ladder.compact import compact

    conv = load_conversation(args)
    outcome = compact(
        conv,
        args.model,
        args.budget,
        keep_turns=args.keep_turns,
        factsheet_chars=args.factsheet,
        summarizer=_summarizer(args.summarizer, conv),
        openai_api=args.api,
        provider_limit=args.provider_limit,
    )
    record = outcome.write(args.out)
    if args.json:
        print(json.dumps(record, indent=1, ensure_ascii=False))
    else:
        print(
            f"{record['tokens_before']:,} → {record['tokens_after']:,} tokens "
            f"(budget {args.budget:,}, {'met' if record['fits'] else 'NOT met'}); "
            f"rungs: {' → '.join(record['rungs_taken']) or 'none needed'}; "
            f"{len(record['pages'])} page(s); request: {record['request_file']}"
        )
        for note in record["notes"]:
            print(f"  note: {note}", file=sys.stderr)
        if record["failure"]:
            print(f"  {record['failure']}", file=sys.stderr)
    return 0 if record["fits"] else 1
