"""The ``snapshot`` command: a thin layer over the library.

Each subcommand lives in its own module under ``snapshot.cli`` and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a
function taking the parsed ``argparse.Namespace`` and returning an exit code.
Heavy imports happen inside those functions, so ``snapshot --help`` is fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from snapshot.errors import SnapshotError

# One module per group of subcommands; add a line when a group lands.
COMMAND_MODULES: tuple[str, ...] = (
    "snapshot.cli.render",
    "snapshot.cli.session",
    "snapshot.cli.probe",
    "snapshot.cli.transcripts",
    "snapshot.cli.export",
    "snapshot.cli.cost",
    "snapshot.cli.report",
    "snapshot.cli.legibility",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="snapshot",
        description="Draw conversation history as pixel sheets and measure what it saves.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # The command line as given, for records that say how they were made (results.json).
    args.argv = list(argv) if argv is not None else sys.argv[1:]
    try:
        code: int = args.func(args)
    except SnapshotError as exc:
        print(f"snapshot: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("snapshot: interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
