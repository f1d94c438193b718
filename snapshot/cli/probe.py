"""``snapshot probe``: show a live vision model a battery page and score what it reads."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from snapshot.cli.argtypes import finite_float


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "probe",
        help="ask a live vision model questions about a rendered page and score its answers",
        description=(
            "Render a seeded page of agent history with planted facts (hex digests, exact "
            "numbers, case-contrast identifiers, a gist question, never-stated questions), "
            "send it to MODEL through the provider's official SDK, score each answer exact / "
            "abstained / wrong, and save a dated JSON record. Needs the provider's key in the "
            "environment (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY or GOOGLE_API_KEY) "
            "and the [live] extra."
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
    p.add_argument("--seed", type=int, default=0, help="battery seed (default 0)")
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
    from snapshot.legibility import live, probes, records

    record = probes.run_probe(
        args.model,
        font=args.font,
        seed=args.seed,
        api=args.api,
        base_url=args.base_url,
        timeout=args.timeout,
    )
    # Answers were redacted with the key used; every key in the environment is
    # redacted again from what is written and printed, in case one came back.
    secrets = live.env_secrets()
    path = records.save(record, args.out, secrets)
    if args.json:
        data = json.loads(record.to_json(secrets))
        data["record_path"] = str(path)
        json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    _print_table(record, str(path))
    return 0


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
