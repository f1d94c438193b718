"""``snapshot ledger`` and ``snapshot evidence``: what the proxy measured on live traffic.

``ledger DIR`` summarizes a ``snapshot proxy --ledger DIR`` folder (the savings
measured on real requests) into ``OUT/LEDGER.md``; ``evidence FILE`` judges the
records of ``snapshot proxy --canary`` (how well each model read its own pages)
into ``OUT/EVIDENCE.md``. Both print the same text on standard output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

_OUT_HELP = (
    "output folder (default: snapshot/report under the user's data folder, "
    "$XDG_DATA_HOME or ~/.local/share)"
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ledger = subparsers.add_parser(
        "ledger",
        help="the savings measured on live traffic: a `snapshot proxy --ledger` folder → LEDGER.md",
        description=(
            "Summarize the ledger a `snapshot proxy --ledger DIR` run kept: per model, the "
            "requests, those compacted, the input tokens and dollars the provider's own usage "
            "reported (measured) and the tokens the planner removed (counted before sending). "
            "Printed, and written to OUT/LEDGER.md."
        ),
    )
    ledger.add_argument("path", type=Path, metavar="DIR", help="the proxy's --ledger folder")
    ledger.add_argument("--out", type=Path, default=None, help=_OUT_HELP)
    ledger.set_defaults(func=cmd_ledger)

    evidence = subparsers.add_parser(
        "evidence",
        help="model evidence from your own traffic: `snapshot proxy --canary` records → "
        "EVIDENCE.md",
        description=(
            "Judge the canary records `snapshot proxy --canary` appended (a band of a page just "
            "sent, transcribed by the model): per model and layout, the canaries that read at "
            "the weakest-reader bar, and the densest layout most of them clear. Printed, and "
            "written to OUT/EVIDENCE.md."
        ),
    )
    evidence.add_argument(
        "path", type=Path, metavar="FILE", help="the canary records (evidence.jsonl)"
    )
    evidence.add_argument("--out", type=Path, default=None, help=_OUT_HELP)
    evidence.set_defaults(func=cmd_evidence)


def cmd_ledger(args: argparse.Namespace) -> int:
    from snapshot.proxy.ledger import ledger_report

    written, text = ledger_report(args.path, args.out)
    print(text, end="")
    print(f"wrote {written}", file=sys.stderr)
    return 0


def cmd_evidence(args: argparse.Namespace) -> int:
    from snapshot.proxy.evidence import evidence_report

    written, text = evidence_report(args.path, args.out)
    print(text, end="")
    print(f"wrote {written}", file=sys.stderr)
    return 0
