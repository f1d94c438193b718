"""``snapshot facts``: every provider fact with its source, label and date; ``--check`` the doubtful.

Parsing and printing only: one call to :func:`snapshot.profiles.audit.facts_listing`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from snapshot.cli.argtypes import at_least, iso_day


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "facts",
        help="every provider fact (scheme, lifecycle, route, limit, price, range) and its source",
        description=(
            "One line per fact the provider tables hold: table, row, trust label "
            "(documented / measured / uncertain), date and source. With --check, only the "
            "facts older than --days days or resting on a single unofficial source (no vendor "
            "documentation among its sources): the figures to doubt first."
        ),
    )
    p.add_argument(
        "--check", action="store_true", help="list only stale or single-unofficial-source facts"
    )
    p.add_argument(
        "--days",
        type=at_least(0),
        default=90,
        metavar="N",
        help="with --check: a fact older than N days is stale (default 90)",
    )
    p.add_argument(
        "--date",
        type=iso_day,
        default=None,
        metavar="YYYY-MM-DD",
        help="with --check: the day to measure age from (default: today)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from snapshot.profiles.audit import facts_listing

    listing = facts_listing(check_only=args.check, max_age_days=args.days, today=args.date)
    if args.json:
        json.dump([f.to_json() for f in listing.findings], sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    for f in listing.findings:
        r = f.row
        why = f" [{', '.join(f.reasons)}]" if f.reasons else ""
        print(
            f"{r.table:16} {r.key[:48]:48} {r.fact.label:10} {r.fact.date:10}{why} {r.fact.source}"
        )
    if listing.checked:
        print(
            f"{len(listing.findings)} of {listing.total} facts are older than {args.days} days "
            "or rest on a single unofficial source"
        )
    return 0
