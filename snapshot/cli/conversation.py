"""What CONV means on the command line, in one place for every command that takes it.

CONV is a conversation stored in the workspace (its id), a store file
(``<workspace>/<id>/<agent>.json``), or any file ``snapshot import`` understands.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from snapshot.transcript.model import Conversation


def conversation_arguments(conv_help: str) -> argparse.ArgumentParser:
    """A parent parser with CONV and the options that pick it (``parents=[...]``)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("conv", metavar="CONV", help=conv_help)
    common.add_argument(
        "--workspace",
        metavar="DIR",
        default=".snapshot",
        help="the store's directory (default: .snapshot)",
    )
    common.add_argument(
        "--agent", default=None, help="which agent's transcript (default: main, or the only one)"
    )
    common.add_argument(
        "--format", default=None, metavar="F", help="force the importer when CONV is a file"
    )
    common.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="pick one conversation from a file holding many",
    )
    return common


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
    from snapshot.transcript.store import Store, is_store_file

    ident: str = args.conv
    path = Path(ident)
    if path.exists():
        if is_store_file(path):
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
