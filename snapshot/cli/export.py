"""``snapshot export CONV --to anthropic|openai|openai-responses|gemini|markdown [--check]``.

A conversation as a provider request body (or Markdown).

CONV is a conversation stored in the workspace (its id), a store file, or any
file ``snapshot import`` understands. The body goes to standard output; each
repair the exporter made (an unanswered call given an error result, an orphan
result turned into text, ...) is one ``snapshot: note:`` line on standard
error. A session its harness already compacted is exported as the agent had
it at the end (the last summary and what followed it), said in a note;
``--whole-history`` sends every segment. Nothing is written to the workspace. ``--check`` validates the body
against the provider's published schema and documented rules, and that every
tool result with text in the source still has it in the body: one
``snapshot: check:`` line per problem, then a count; exit status 1 when any.
"""

from __future__ import annotations

import argparse
import json
import sys

from snapshot.cli.conversation import conversation_arguments

TARGETS = ("anthropic", "openai", "openai-responses", "gemini", "markdown")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    register_export(subparsers)


def register_export(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "export",
        help="print a conversation as a provider request body or Markdown",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[
            conversation_arguments("a stored conversation id, a store file, or a file to import")
        ],
    )
    p.add_argument("--to", required=True, choices=TARGETS, help="the body to produce")
    p.add_argument(
        "--model", default=None, help="the model named in the body (a placeholder otherwise)"
    )
    p.add_argument("--compact", action="store_true", help="one-line JSON instead of indented")
    p.add_argument(
        "--whole-history",
        action="store_true",
        help="a session its harness already compacted: every segment with every summary inline "
        "(default: its live context, the last summary and what followed it)",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="validate the body against the provider's published schema and documented rules; "
        "each problem is a 'snapshot: check:' line on stderr and the exit status is 1",
    )
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from snapshot.cli.conversation import load_conversation
    from snapshot.cli.terminal import safe_line
    from snapshot.transcript.validate import export_report

    conv = load_conversation(args)
    done = export_report(
        conv, args.to, model=args.model, check=args.check, whole_history=args.whole_history
    )
    for note in done.notes:
        print(f"snapshot: note: {safe_line(note)}", file=sys.stderr)
    if isinstance(done.body, str):  # Markdown: transcript text, shown, never obeyed
        sys.stdout.write(safe_line(done.body, keep="\n\t"))
    else:
        indent = None if args.compact else 1
        json.dump(done.body, sys.stdout, ensure_ascii=False, indent=indent)
        sys.stdout.write("\n")
    for line in done.problems:
        print(f"snapshot: check: {line}", file=sys.stderr)
    return 0 if done.ok else 1
