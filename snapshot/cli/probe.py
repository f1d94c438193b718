"""``snapshot probe``: show a live vision model a battery page and score what it reads."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from snapshot.cli.argtypes import finite_float


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "probe",
        help="run the needle battery (or the question battery) on a live vision model",
        description=(
            "Needle battery (default): show MODEL the very pages the report's whole-page "
            "readers read for its profile (pre-registered seed and counts), ask for a verbatim "
            "transcription, and count the seeded needles found, with 95 % Wilson intervals; "
            "`snapshot report --probes DIR` adds the records as a reader column. Question "
            "battery (--battery questions): a seeded page with planted facts, each answer "
            "scored exact / abstained / wrong. Either way a dated JSON record without keys is "
            "saved. Needs the provider's key in the environment (ANTHROPIC_API_KEY, "
            "OPENAI_API_KEY, GEMINI_API_KEY or GOOGLE_API_KEY) and the [live] extra."
        ),
    )
    p.add_argument("--model", required=True, help="model id, e.g. claude-opus-4-8, gpt-5.5")
    p.add_argument(
        "--font",
        default=None,
        help="font to draw the page with (default: the model profile's font; the page is "
        "re-solved for another font)",
    )
    p.add_argument(
        "--out",
        default="reports/probes",
        metavar="DIR",
        help="directory for the dated JSON record (default reports/probes)",
    )
    p.add_argument("--json", action="store_true", help="print the record as JSON")
    p.add_argument(
        "--battery",
        choices=("needles", "questions", "usage"),
        default="needles",
        help="needles: the report's pages transcribed, needles counted (default); "
        "questions: the planted-facts page; usage: one request whose usage.input_tokens "
        "settles a disputed billing fact (a range, see `snapshot facts`), used from then on",
    )
    p.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help="needle battery: benchmark.manifest.json to draw pages from (default: the bundled "
        "demo transcripts)",
    )
    p.add_argument(
        "--conversations",
        type=int,
        default=None,
        metavar="N",
        help="needle battery: first N conversations (default: the pre-registered count); "
        "a record says when it departs from the pre-registered protocol",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="battery seed (questions: default 0; needles: 0 keeps the pre-registered seed)",
    )
    p.add_argument(
        "--api",
        choices=("chat", "responses"),
        default=None,
        help="OpenAI only: Chat Completions (default) or Responses",
    )
    p.add_argument(
        "--base-url",
        default=None,
        help="send requests to this endpoint instead of the provider's (a proxy or gateway)",
    )
    p.add_argument(
        "--timeout",
        type=finite_float(0.1, 3600.0),
        default=180.0,
        help="seconds per request (default 180)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.battery == "needles":
        return _run_needles(args)
    if args.battery == "usage":
        return _run_usage(args)
    from snapshot.legibility.probes import probe_and_save

    saved = probe_and_save(
        args.model,
        args.out,
        font=args.font,
        seed=args.seed,
        api=args.api,
        base_url=args.base_url,
        timeout=args.timeout,
    )
    if args.json:
        _print_json(saved.document)
        return 0
    _print_table(saved.record, str(saved.path))
    return 0


def _run_needles(args: argparse.Namespace) -> int:
    from snapshot.errors import InputError
    from snapshot.report.needle_probe import probe_needles_and_save

    if args.font is not None:
        raise InputError(
            "--font applies to --battery questions; the needle battery reads the report's own "
            "pages, drawn with the profile's font"
        )
    saved = probe_needles_and_save(
        args.model,
        args.out,
        corpus=args.corpus,
        conversations=args.conversations,
        seed=args.seed,
        api=args.api,
        base_url=args.base_url,
        timeout=args.timeout,
    )
    if args.json:
        _print_json(saved.document)
        return 0
    _print_needles(saved.record, str(saved.path))
    return 0


def _run_usage(args: argparse.Namespace) -> int:
    from snapshot.legibility.usage_probe import probe_usage_and_save

    saved = probe_usage_and_save(
        args.model, args.out, api=args.api, base_url=args.base_url, timeout=args.timeout
    )
    if args.json:
        _print_json(saved.document)
        return 0
    r = saved.record
    stand_in = " [OFFLINE STAND-IN: not the provider's bill]" if r.offline_stand_in else ""
    predicted = ", ".join(f"{v}: {t}" for v, t in r.predicted.items())
    outcome = (
        f"settles {r.disputed_field} = {r.value}"
        if r.settles
        else f"measured {r.disputed_field} {r.value}"
    )
    print(
        f"{r.model} ({r.provider} {r.api}){stand_in}: a {r.page[0]}x{r.page[1]} page billed "
        f"{r.image_tokens} image tokens (usage.input_tokens {r.input_tokens} - prompt "
        f"{r.prompt_text_tokens}); predicted {predicted}: {outcome}"
    )
    print(f"record: {saved.path} (cost, profiles and report read it from {args.out})")
    return 0


def _print_json(document: dict[str, Any]) -> None:
    json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def _print_needles(record: Any, path: str) -> None:
    from snapshot.report.needle_probe import summary_lines

    for line in summary_lines(record):
        print(line)
    print(f"record: {path}")


def _print_table(record: Any, path: str) -> None:
    w, h = record.page_size
    options = " ".join(f"{k}={v}" for k, v in record.image_options.items())
    print(
        f"{record.model} ({record.provider} {record.api}{' ' + options if options else ''}) "
        f"read a {w}x{h} {record.font} page {record.page_sha256[:8]}"
    )
    for q in record.questions:
        shown = "(no answer)" if q.answer is None else _short(q.answer)
        line = f"  {q.qid:>2} {q.kind:<12} {q.score:<9} {shown}"
        if q.score != "exact":
            line += f"   expected {_short(q.expected)}"
            if q.score == "wrong" and q.distance:
                # 1-2 edits is a misread glyph; more is an invention.
                line += f" ({q.distance} edit{'s' if q.distance > 1 else ''} away)"
        print(line)
    c = record.counts()
    total = len(record.questions)
    print(
        f"exact {c['exact']}/{total}, abstained {c['abstained']}, "
        f"wrong {c['wrong']} (silent substitutions and confabulations)"
    )
    print(f"record: {path}")


def _short(text: str, limit: int = 48) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
