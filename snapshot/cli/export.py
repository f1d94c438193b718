"""``snapshot export CONV --to anthropic|openai|openai-responses|gemini|markdown [--check]``.

A conversation as a provider request body (or Markdown).

CONV is a conversation stored in the workspace (its id), a store file, or any
file ``snapshot import`` understands. The body goes to standard output; each
repair the exporter made (an unanswered call given an error result, an orphan
result turned into text, ...) is one ``snapshot: note:`` line on standard
error. Nothing is written to the workspace. ``--check`` validates the body
against the provider's published schema and documented rules: one
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
        "--check",
        action="store_true",
        help="validate the body against the provider's published schema and documented rules; "
        "each problem is a 'snapshot: check:' line on stderr and the exit status is 1",
    )
    p.set_defaults(func=cmd_export)


def limit_notes(body: object, target: str) -> list[str]:
    """Where a body exceeds its provider's documented request limits (it would be refused)."""
    from snapshot.transcript.validate.rules import LIMIT_RULES, ROUTES, check_rules

    if target not in ROUTES:
        return []
    return [p.message for p in check_rules(body, target) if p.rule in LIMIT_RULES]


def cmd_export(args: argparse.Namespace) -> int:
    from snapshot.cli.conversation import load_conversation
    from snapshot.transcript.export import export

    conv = load_conversation(args)
    problems: list[str] = []
    failed = False
    if args.check and args.to != "markdown":
        from snapshot.transcript.validate import export_checked

        result, checked = export_checked(conv, args.to, model=args.model)
        failed = not checked.ok
        problems = [*checked.skipped, *map(str, checked.problems)]
        problems.append(
            f"{len(checked.problems)} problem(s); checked by {', '.join(checked.checked_by)}"
        )
    else:
        result = export(conv, args.to, model=args.model)
    notes = [*result.notes]
    if not isinstance(result.body, str) and not args.check:
        notes += limit_notes(result.body, args.to)  # --check reports them among its problems
    from snapshot.cli.terminal import safe_line

    for note in notes:
        print(f"snapshot: note: {safe_line(note)}", file=sys.stderr)
    if isinstance(result.body, str):
        sys.stdout.write(result.body)
    else:
        indent = None if args.compact else 1
        json.dump(result.body, sys.stdout, ensure_ascii=False, indent=indent)
        sys.stdout.write("\n")
    for line in problems:
        print(f"snapshot: check: {line}", file=sys.stderr)
    return 1 if failed else 0
