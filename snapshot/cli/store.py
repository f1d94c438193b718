"""``snapshot store compact``: housekeeping of the workspace's logs.

A stored conversation is an append-only log per agent
(:mod:`snapshot.transcript.store_log`); every turn, tip move and label adds
records. ``compact`` rewrites a conversation's logs offline, one record per
message, so they load faster and take less room; what loads does not change.
A conversation stored in the one-document format is migrated.
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("store", help="housekeeping of the store's logs (compact)")
    sub = p.add_subparsers(dest="store_command", required=True, metavar="COMMAND")
    c = sub.add_parser(
        "compact", help="rewrite a stored conversation's logs without what no longer counts"
    )
    c.add_argument("conv", metavar="ID", help="a conversation id stored in the workspace")
    c.add_argument(
        "--workspace",
        metavar="DIR",
        default=".snapshot",
        help="the store's directory (default: .snapshot)",
    )
    c.add_argument("--agent", default=None, help="only this agent's log (default: every agent)")
    c.set_defaults(func=cmd_compact)


def cmd_compact(args: argparse.Namespace) -> int:
    from snapshot.transcript.store import Store

    for agent, before, after in Store(args.workspace).compact_agents(args.conv, args.agent):
        print(f"{args.conv} ({agent}): {before:,} -> {after:,} bytes")
    return 0
