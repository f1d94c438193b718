"""Transcript commands: ``snapshot import`` (one function per subcommand).

``snapshot import PATH`` reads a real agent log (or a folder of them) into the
neutral model and reports what it found; ``--out FILE`` saves the imported
conversations as JSON. Parsing and printing only: the command is one call to
:func:`snapshot.transcript.importing.import_conversations`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

# Warnings shown per conversation in the human-readable output.
SHOWN_WARNINGS = 5


def register(subparsers: Any) -> None:
    _register_import(subparsers)


# --- snapshot import -------------------------------------------------------------------


def _register_import(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "import",
        help="read real agent logs (Claude Code, Codex, SWE-agent, ...) into conversations",
        description=(
            "Import PATH: an agent log file, a folder that a format keeps together "
            "(screenshots beside the log), or a folder of logs (every file a known "
            "format recognises is imported; every other file is named with the reason "
            "it was skipped). The format is detected unless --format "
            "is given. A file holding many conversations imports them all unless "
            "--select picks some."
        ),
    )
    p.add_argument("path", metavar="PATH", help="log file or folder")
    p.add_argument("--format", default=None, help="skip detection and read PATH as this format")
    p.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="keep only conversations whose KEY equals VALUE (repeatable; e.g. task_id=3)",
    )
    p.add_argument("--out", default=None, metavar="FILE", help="write the conversations as JSON")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run_import)


def run_import(args: argparse.Namespace) -> int:
    from snapshot.cli.terminal import safe_line
    from snapshot.transcript.importing import import_conversations

    report = import_conversations(args.path, format=args.format, select=args.select, out=args.out)
    rows = report.rows
    if args.json:
        out: dict[str, Any] = {"conversations": rows}
        if report.failures:
            out["errors"] = report.failures
        if report.skipped:
            out["skipped"] = [{"path": str(p), "reason": why} for p, why in report.skipped]
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(rows)
        if report.skipped:
            print(f"skipped {len(report.skipped)} file(s):")
            for skipped, why in report.skipped:
                print(f"  {safe_line(str(skipped))}: {safe_line(why)}")
        if args.out:
            print(f"wrote {len(report.conversations)} conversations to {args.out}")
    for failure in report.failures:
        print(f"snapshot: warning: {safe_line(failure)}", file=sys.stderr)
    return 1 if report.failures else 0


def _print_table(rows: list[dict[str, Any]]) -> None:
    header = ("conversation", "agent", "format", "msgs", "calls", "images", "chars", "warn")
    from snapshot.cli.terminal import safe_line

    lines = [header] + [
        (
            safe_line(str(r["id"])),
            safe_line(str(r["agent"])),
            str(r["format"]),
            str(r["messages"]),
            str(r["tool_calls"]),
            str(r["images"]),
            str(r["chars"]),
            str(len(r["warnings"])),
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    for line in lines:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip())
    for r in rows:
        if not r["warnings"]:
            continue
        print(safe_line(f"\n{r['id']} ({r['agent']}): {len(r['warnings'])} warnings", keep="\n"))
        for w in r["warnings"][:SHOWN_WARNINGS]:
            print(f"  - {safe_line(w)}")
        if len(r["warnings"]) > SHOWN_WARNINGS:
            print(f"  ... {len(r['warnings']) - SHOWN_WARNINGS} more (--json shows all)")
