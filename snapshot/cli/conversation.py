"""What CONV means on the command line, in one place for every command that takes it.

CONV is a conversation stored in the workspace (its id, or ``store:ID`` to
insist), a store file (``<workspace>/<id>/<agent>.jsonl``), or any file
``snapshot import`` understands. An existing file wins over a stored id; a bare
name that is both is refused with an error naming both.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from snapshot.transcript.model import Conversation
    from snapshot.transcript.resolve import ConversationHandle


def conversation_arguments(conv_help: str) -> argparse.ArgumentParser:
    """A parent parser with CONV and the options that pick it (``parents=[...]``)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "conv", metavar="CONV", help=f"{conv_help} (store:ID forces the stored one)"
    )
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


def resolve(args: argparse.Namespace) -> ConversationHandle:
    """What CONV names (see :mod:`snapshot.transcript.resolve` for the order)."""
    from snapshot.transcript.formats import parse_select
    from snapshot.transcript.resolve import resolve_conversation

    return resolve_conversation(
        args.conv,
        workspace=args.workspace,
        agent=args.agent,
        format=args.format,
        select=parse_select(args.select),
    )


def load_conversation(args: argparse.Namespace) -> Conversation:
    """The conversation CONV names: stored id, store file, or importable file."""
    return resolve(args).conv
