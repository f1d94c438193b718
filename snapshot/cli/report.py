"""``snapshot report`` (the benchmark), ``report mine`` (your own sessions), ``compact``.

``report`` measures every compaction strategy on the demo transcripts or a
corpus; ``report mine PATH…`` runs the same measurement on a user's own
sessions; ``compact`` makes one provider-ready request. What the proxy's live
traffic measured is ``snapshot ledger`` and ``snapshot evidence``
(:mod:`snapshot.cli.traffic`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from snapshot.cli.argtypes import at_least, finite_float, pricing_arguments
from snapshot.cli.conversation import conversation_arguments
from snapshot.cli.legacy import Jobs, old_flag


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "report",
        help="run the compaction benchmark and write REPORT.md with plots "
        "(`report mine PATH…`: on your own sessions)",
        usage="%(prog)s [--corpus MANIFEST] [--out DIR] [options]  (the benchmark)\n"
        "       %(prog)s mine PATH… | --discover [--out DIR] [options]  (your own sessions)",
        description=(
            "Run every compaction strategy and the ladder on conversations × profiles and write "
            "REPORT.md, results.json and PNG plots. With no --corpus it runs on the package's own "
            "demo transcripts; with --corpus PATH/benchmark.manifest.json, on the benchmark corpus. "
            "`snapshot report mine PATH…` runs the same measurement on your own sessions; "
            "`snapshot ledger` and `snapshot evidence` report on the proxy's live traffic."
        ),
    )
    p.add_argument(
        "--corpus",
        type=Path,
        metavar="MANIFEST",
        help="benchmark.manifest.json of a transcript corpus",
    )
    measurement_arguments(p)
    p.add_argument(
        "--readme",
        type=Path,
        help="rewrite the results block (between <!-- results:begin/end -->) of this README from the run",
    )
    # The old spellings of what are now their own commands (hidden; each says its new one).
    p.add_argument(
        "--ledger", type=Path, **old_flag("snapshot report --ledger DIR", "snapshot ledger DIR")
    )
    p.add_argument(
        "--evidence",
        type=Path,
        **old_flag("snapshot report --evidence FILE", "snapshot evidence FILE"),
    )
    for flag in ("--discover", "--show-needles"):
        p.add_argument(
            flag, nargs=0, **old_flag(f"snapshot report {flag}", f"snapshot report mine {flag}")
        )
    p.set_defaults(func=cmd_report, paths=[], discover=False, show_needles=False)
    jobs = p.add_subparsers(dest="job", metavar="JOB", action=Jobs, prog=p.prog)
    mine = jobs.add_parser(
        "mine",
        help="the same measurement on your own sessions (files, folders, globs; no manifest)",
        description=(
            "Run the benchmark's measurement on your own agent sessions: transcript files, "
            "folders (walked recursively) or glob patterns, formats detected per file, no "
            "manifest. Every path is listed (read, or skipped with why) before anything is "
            "read; REPORT.md says it is private and nothing is written outside --out."
        ),
    )
    mine.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="transcript files, folders (walked recursively) or glob patterns of your own sessions",
    )
    mine.add_argument(
        "--discover",
        action="store_true",
        help="also read the places agents write sessions on this machine (~/.claude/projects, "
        "~/.codex/sessions, ...); lists them before reading",
    )
    mine.add_argument(
        "--show-needles",
        action="store_true",
        help="quote needle examples (text from your sessions) in REPORT.md; off by default",
    )
    measurement_arguments(mine)
    # The benchmark's own flags, refused by name with where they belong (hidden).
    for flag in ("--corpus", "--readme"):
        mine.add_argument(flag, type=Path, help=argparse.SUPPRESS)
    mine.set_defaults(func=cmd_report_mine)
    register_compact(subparsers)


def measurement_arguments(p: argparse.ArgumentParser) -> None:
    """The options ``report`` and ``report mine`` share: profiles, engine, readers, prices."""
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="output folder (default: snapshot/report under the user's data folder, "
        "$XDG_DATA_HOME or ~/.local/share; never the current folder, which may be a checkout)",
    )
    p.add_argument(
        "--model",
        dest="models",
        action="append",
        help="profile to include (repeatable; default: Claude, OpenAI and Gemini defaults)",
    )
    p.add_argument(
        "--profile",
        metavar="FILE",
        help="JSON/TOML profiles file (from `snapshot tune`) whose profiles win over the tables",
    )
    p.add_argument("--workers", type=at_least(1), help="processes (default: one per core)")
    # -- engine (issue 15): where the conversations × profiles run
    p.add_argument(
        "--engine",
        choices=["local", "dask"],
        default="local",
        help="local process pool (default), or shards of conversation × profile on a Dask "
        "cluster (needs the [dask] extra)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --engine dask: an existing scheduler, e.g. tcp://10.0.0.5:8786 "
        "(default: start a local cluster of one worker per core)",
    )
    p.add_argument("--limit", type=at_least(1), help="only the first N conversations")
    p.add_argument(
        "--ocr-rows",
        type=at_least(0),
        default=0,
        help="page rows per conversation and profile read as crops given the renderer's rows (a diagnostic; needs the [ocr] extra)",
    )
    # Whole-page readers (issue 14).
    p.add_argument(
        "--page-readers",
        default=None,
        metavar="NAMES",
        help="whole-page readers, comma-separated, 'all', or 'none' (ppocrv6-small, ppocrv5, "
        "rapidocr-v4, tesseract-x2, easyocr-en); default: the fast ones (tesseract-x2, "
        "ppocrv6-small) on a seeded sample: with the demo one band of 6 text rows per profile "
        "(<= 15 s reader CPU, pairs past it skipped and named), with --corpus one full page per profile of one conversation, "
        "each with its control; a reader not installed is named and skipped",
    )
    p.add_argument(
        "--all-readers",
        action="store_true",
        help="the default sample read by every whole-page reader, the slow ones too "
        "(--page-readers all)",
    )
    p.add_argument(
        "--reader-pages",
        type=at_least(1),
        default=None,
        metavar="N",
        help="full pages per conversation and profile the whole-page readers read (default 1)",
    )
    p.add_argument(
        "--reader-band",
        type=at_least(0),
        default=None,
        metavar="ROWS",
        help="the readers read only the top ROWS text rows of each sampled page, a band "
        "(default: 6 with the demo, 0 = the whole page with --corpus or your sessions)",
    )
    p.add_argument(
        "--reader-conversations",
        type=at_least(0),
        default=None,
        metavar="N",
        help="the whole-page readers read a seeded sample of N conversations (of at least "
        "100,000 characters where there are enough), every profile the same ones; "
        "0: every conversation (default 1)",
    )
    p.add_argument(
        "--no-reader-jitter",
        action="store_true",
        help="whole-page readers read each sampled page at its real size only (default: also "
        "4 px larger and smaller, a reader whose verdict flips marked unstable)",
    )
    p.add_argument(
        "--no-reader-resample",
        action="store_true",
        help="whole-page readers do not read the sampled pages after the 0.9x bicubic resample "
        "(default: they do, on the pages a reader reads at the bar natively; one more reading "
        "a page at most)",
    )
    p.add_argument(
        "--page-needles-per-class",
        type=at_least(1),
        default=3,
        metavar="N",
        help="needles sampled per class from each page the whole-page readers read (default 3)",
    )
    p.add_argument(
        "--probes",
        type=Path,
        metavar="DIR",
        help="folder of `snapshot probe` needle records to add as a live reader column",
    )
    p.add_argument(
        "--budget-ratio",
        type=finite_float(0.0, 1.0),
        default=0.3,
        help="ladder budget as a share of each conversation's tokens (default 0.3)",
    )
    pricing_arguments(
        p, date_help="price and date the profiles' lifecycle at that day (default: the run's day)"
    )
    p.add_argument(
        "--legibility",
        choices=["quick", "full", "none"],
        default="quick",
        help="how much of the legibility lab to run (default quick; full reads more lines with every filter)",
    )
    p.add_argument(
        "--no-cache",
        dest="cache",
        action="store_false",
        help="run every conversation again instead of reusing the results of unchanged files "
        "kept in OUT/.cache",
    )
    p.add_argument(
        "--no-legibility",
        dest="legibility",
        action="store_const",
        const="none",
        help="same as --legibility none",
    )


def register_compact(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    size = c.add_mutually_exclusive_group(required=True)
    size.add_argument("--budget", type=at_least(1), help="token budget for the request")
    size.add_argument(
        "--window-share",
        type=finite_float(0.0, 1.0),
        metavar="F",
        help="budget as a share of the model's context window (its source and date go into the record)",
    )
    c.add_argument(
        "--profile",
        metavar="FILE",
        help="JSON/TOML profiles file (from `snapshot tune`) overriding or adding profiles",
    )
    c.add_argument(
        "--save",
        action="store_true",
        help="store the compacted conversation as the new tip of a branch (the path before it "
        "stays one `snapshot branch` away), so a second compact runs on the stored result",
    )
    c.add_argument(
        "--save-anyway",
        action="store_true",
        help="with --save, store a result that missed its budget too (the record says it missed)",
    )
    c.add_argument(
        "--whole-history",
        action="store_true",
        help="a session its harness already compacted: compact every segment with every summary "
        "inline (default: its live context, the last summary and what followed it)",
    )
    c.add_argument(
        "--out", type=Path, required=True, help="folder for request.json, pages and record.json"
    )
    c.add_argument("--json", action="store_true", help="print the record as JSON")
    c.add_argument(
        "--keep-turns", type=at_least(0), default=2, help="recent turns kept verbatim (default 2)"
    )
    c.add_argument(
        "--factsheet",
        type=at_least(0),
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
        type=at_least(1),
        help="check the request with a simulated provider (offline stand-in) that counts exactly and rejects above this many tokens; the ladder recovers with free rungs",
    )
    c.add_argument(
        "--check",
        action="store_true",
        help="validate the request against the provider's published schema and documented "
        "rules; the result goes into record.json ('validation') and a problem exits 1",
    )
    c.set_defaults(func=cmd_compact)


def cmd_report(args: argparse.Namespace) -> int:
    """``snapshot report``: the benchmark (and the old spellings of the jobs now apart)."""
    from snapshot.cli.traffic import cmd_evidence, cmd_ledger

    if args.ledger is not None:
        return cmd_ledger(argparse.Namespace(**{**vars(args), "path": args.ledger}))
    if args.evidence is not None:
        return cmd_evidence(argparse.Namespace(**{**vars(args), "path": args.evidence}))
    if args.discover:
        return cmd_report_mine(args)
    return _run_report(args)


def cmd_report_mine(args: argparse.Namespace) -> int:
    """``snapshot report mine PATH… | --discover``: the measurement on your own sessions."""
    from snapshot.errors import InputError

    if not args.paths and not args.discover:
        raise InputError(
            "report mine: give PATH… (transcript files, folders or globs of your sessions) "
            "or --discover"
        )
    for flag, value in (("--corpus", args.corpus), ("--readme", args.readme)):
        if value is not None:
            raise InputError(
                f"{flag} is the benchmark's (`snapshot report {flag} …`); "
                "`report mine` measures your own sessions only"
            )
    return _run_report(args)


def _run_report(args: argparse.Namespace) -> int:
    from snapshot.report.main import report_command
    from snapshot.report.matrix import Settings
    from snapshot.report.options import ReaderRequest, ReportOptions

    settings = Settings(
        priced_on=args.date or "",
        tier=args.tier,
        ocr_rows=args.ocr_rows,
        budget_ratio=args.budget_ratio,
        page_needles_per_class=args.page_needles_per_class,
        profiles_file=args.profile,
    )
    readers = ReaderRequest(
        readers="all" if args.all_readers and args.page_readers is None else args.page_readers,
        pages=args.reader_pages,
        band_rows=args.reader_band,
        conversations=args.reader_conversations,
        jitter=False if args.no_reader_jitter else None,
        resample=False if args.no_reader_resample else None,
    )
    options = ReportOptions(
        corpus=args.corpus,
        paths=tuple(args.paths),
        discover=args.discover,
        probes=args.probes,
        models=tuple(args.models or ()),
        settings=settings,
        workers=args.workers,
        limit=args.limit,
        legibility=args.legibility,
        show_needles=args.show_needles,
        engine=args.engine,
        scheduler=args.scheduler,
        cache=args.cache,
        readme=args.readme,
        command=command_line(args),
        readers=readers,
    )
    files = report_command(args.out, options, say=lambda line: print(line, file=sys.stderr))
    if args.readme is not None:
        print(f"rewrote the results block of {args.readme}")
    r = files.result
    print(f"{len(r.sources)} conversations × {len(r.models)} profiles in {r.seconds:.0f} s")
    for err in r.errors:
        print(f"  failed: {err}")
    print(f"wrote {files.report}, {files.results}")
    for path in files.figures.values():
        if path is not None:
            print(f"      {path}")
    return 0


def command_line(args: argparse.Namespace) -> str:
    """The command as a user would type it again (recorded in results.json)."""
    import shlex

    argv = getattr(args, "argv", None) or sys.argv[1:]
    return "snapshot " + " ".join(shlex.quote(a) for a in argv)


def cmd_compact(args: argparse.Namespace) -> int:
    from snapshot.cli.conversation import resolve
    from snapshot.ladder.compact import CompactOptions, compact_to

    options = CompactOptions(
        window_share=args.window_share,
        profiles_file=args.profile,
        summarizer=args.summarizer,
        keep_turns=args.keep_turns,
        factsheet_chars=args.factsheet,
        openai_api=args.api,
        provider_limit=args.provider_limit,
        check=args.check,
    )
    record = compact_to(
        args.out,
        resolve(args),
        args.model,
        args.budget,
        options,
        save=args.save,
        save_anyway=args.save_anyway,
        whole_history=args.whole_history,
        note=lambda line: print(line, file=sys.stderr),
    )
    if args.json:
        print(json.dumps(record, indent=1, ensure_ascii=False))
    else:
        rungs = " → ".join(record["rungs_taken"]) or ("none needed" if record["fits"] else "none")
        print(
            f"{record['tokens_before']:,} → {record['tokens_after']:,} tokens "
            f"(budget {record['budget']:,}, {'met' if record['fits'] else 'NOT met'}); "
            f"rungs: {rungs}; "
            f"{len(record['pages'])} page(s); request: {record['request_file']}"
        )
        for step in record["rungs"]:
            ids = step.get("exact_ids") if step.get("rung") == "snapshot" else None
            if ids and ids.get("on_pages"):
                print(
                    f"  exact ids on the pages kept as text: {ids['as_text']} of "
                    f"{ids['on_pages']} (measured)"
                )
        for note in record["notes"]:
            print(f"  note: {note}", file=sys.stderr)
        if record["synthetic_results"]:
            print(
                f"  repaired: {len(record['synthetic_results'])} call(s) with no recorded result "
                f"answered with a synthetic error result: {', '.join(record['synthetic_results'])}",
                file=sys.stderr,
            )
        if record["validation"] is not None:
            for line in [*record["validation"]["skipped"], *record["validation"]["problems"]]:
                print(f"  check: {line}", file=sys.stderr)
            unchecked = record["validation"].get("not_checked_by") or []
            also = f"; NOT checked by {', '.join(unchecked)} (see above)" if unchecked else ""
            print(
                f"  check: {len(record['validation']['problems'])} problem(s){also}",
                file=sys.stderr,
            )
        if record["failure"]:
            print(f"  {record['failure']}", file=sys.stderr)
        if record["saved"] is not None and not record["saved"]["stored"]:
            print(f"  not saved: {record['saved']['reason']}", file=sys.stderr)
        elif record["saved"] is not None:
            s = record["saved"]
            if s.get("missed_budget"):
                print("  saved although it missed its budget (--save-anyway)", file=sys.stderr)
            print(
                f"  saved: {s['conversation']}/{s['agent']} tip {s['tip']} "
                f"(+{s['messages_added']} messages); the path before is one branch away: "
                f"snapshot branch {s['conversation']} --to {s['tip_before']}",
                file=sys.stderr,
            )
    invalid = record["validation"] is not None and not record["validation"]["ok"]
    return 0 if record["fits"] and not invalid else 1
