"""``snapshot export CONV --to anthropic|openai|markdown``: a conversation as a request body.

CONV is a conversation stored in the workspace (its id), a store file, or any
file ``snapshot import`` understands. The body goes to standard output; each
repair the exporter made (an unanswered call given an error result, an orphan
result turned into text, ...) is one ``snapshot: note:`` line on standard
error. Nothing is written to the workspace.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from snapshot.transcript.model import Conversation

TARGETS = ("anthropic", "openai", "openai-responses", "gemini", "markdown")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    register_export(subparsers)


def register_export(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "export",
        help="print a conversation as a provider request body or Markdown",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "conv", metavar="CONV", help="a stored conversation id, a store file, or a file to import"
    )
    p.add_argument("--to", required=True, choices=TARGETS, help="the body to produce")
    p.add_argument(
        "--model", default=None, help="the model named in the body (a placeholder otherwise)"
    )
    p.add_argument(
        "--workspace",
        metavar="DIR",
        default=".snapshot",
        help="the store's directory (default: .snapshot)",
    )
    p.add_argument(
        "--agent", default=None, help="which agent's transcript (default: main, or the only one)"
    )
    p.add_argument(
        "--format", default=None, metavar="F", help="force the importer when CONV is a file"
    )
    p.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="pick one conversation from a file holding many",
    )
    p.add_argument("--compact", action="store_true", help="one-line JSON instead of indented")
    p.set_defaults(func=cmd_export)


def _pick(convs: list[Conversation], agent: str | None, what: str) -> Conversation:
    from snapshot.errors import TranscriptError

    if not convs:
        raise TranscriptError(f"{what}: holds no conversation")
    ids = list(dict.fromkeys(c.id for c in convs))
    if len(ids) > 1:
        shown = ", ".join(ids[:5]) + (" …" if len(ids) > 5 else "")
        raise TranscriptError(
            f"{what} holds {len(ids)} conversations ({shown}); pick one with --select KEY=VALUE"
        )
    agents = [c.agent for c in convs]
    if agent is not None:
        for c in convs:
            if c.agent == agent:
                return c
        raise TranscriptError(f"{what} has no agent {agent!r}; agents: {', '.join(agents)}")
    for c in convs:
        if c.agent == "main":
            return c
    if len(convs) == 1:
        return convs[0]
    raise TranscriptError(f"{what} has several agents ({', '.join(agents)}); pick one with --agent")


def _is_store_file(path: Path) -> bool:
    if not path.is_file() or path.suffix != ".json":
        return False
    with path.open("rb") as fh:
        head = fh.read(4096)
    return b'"schema_version"' in head


def _load_store_file(path: Path) -> Conversation:
    """A store file, read through its workspace (migrations, checks) when it sits in one."""
    from snapshot.errors import TranscriptError
    from snapshot.transcript.model import conversation_from_dict
    from snapshot.transcript.store import SCHEMA_VERSION, Store

    try:
        # <workspace>/<conversation id>/<agent>.json
        return Store(path.parent.parent).load(path.parent.name, path.stem)
    except TranscriptError as exc:
        # A store file copied out of its workspace: read it directly if it is
        # the current version (an older one needs the store's migrations).
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise exc from None
        if not isinstance(doc, dict) or doc.get("schema_version") != SCHEMA_VERSION:
            raise
        record = doc.get("conversation")
        if not isinstance(record, dict):
            raise
        return conversation_from_dict(record)


def load_conversation(args: argparse.Namespace) -> Conversation:
    """The conversation CONV names: stored id, store file, or importable file."""
    from snapshot.errors import TranscriptError
    from snapshot.transcript.formats import import_path, parse_select
    from snapshot.transcript.store import Store

    ident: str = args.conv
    path = Path(ident)
    if path.exists():
        if _is_store_file(path):
            return _load_store_file(path)
        convs = import_path(path, format=args.format, select=parse_select(args.select))
        return _pick(convs, args.agent, str(path))
    store = Store(args.workspace)
    try:
        agents = store.agents(ident)
    except TranscriptError:
        agents = []
    if not agents:
        raise TranscriptError(
            f"{ident!r} is neither a file nor a conversation stored in {args.workspace}; "
            "give a transcript file or a stored conversation id"
        )
    agent = args.agent or ("main" if "main" in agents else agents[0] if len(agents) == 1 else None)
    if agent is None:
        raise TranscriptError(
            f"stored conversation {ident!r} has several agents ({', '.join(agents)}); pick one with --agent"
        )
    return store.load(ident, agent)


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
    from snapshot.transcript.export import export

    conv = load_conversation(args)
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
    return 0
