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


# Which billing route's request limits apply to each body.
_ROUTES = {
    "anthropic": "anthropic",
    "openai": "openai",
    "openai-responses": "openai",
    "gemini": "google",
}


def limit_notes(body: object, target: str) -> list[str]:
    """Where a body exceeds its provider's documented request limits (it would be refused)."""
    from snapshot.billing.providers import limit_facts_for
    from snapshot.transcript.export import body_image_sizes

    route = _ROUTES.get(target)
    if route is None:
        return []
    limits = {f.field: f.value for f in limit_facts_for(route)}
    sizes = body_image_sizes(body)
    notes: list[str] = []
    if "max_images" in limits and len(sizes) > limits["max_images"]:
        notes.append(
            f"the body holds {len(sizes)} images; {route} takes at most {limits['max_images']} "
            "per request (drop old images first)"
        )
    big = [n for n in sizes if n > limits.get("max_image_bytes", n)]
    if big:
        notes.append(
            f"{len(big)} image(s) exceed {route}'s {limits['max_image_bytes']} bytes per image"
        )
    total = len(json.dumps(body, ensure_ascii=False).encode())
    if total > limits.get("max_request_bytes", total):
        notes.append(
            f"the body is {total} bytes; {route} takes at most {limits['max_request_bytes']}"
        )
    return notes


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
    if not isinstance(result.body, str):
        notes += limit_notes(result.body, args.to)
    for note in notes:
        print(f"snapshot: note: {note}", file=sys.stderr)
    if isinstance(result.body, str):
        sys.stdout.write(result.body)
    else:
        indent = None if args.compact else 1
        json.dump(result.body, sys.stdout, ensure_ascii=False, indent=indent)
        sys.stdout.write("\n")
    for line in problems:
        print(f"snapshot: check: {line}", file=sys.stderr)
    return 1 if failed else 0
