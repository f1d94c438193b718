"""``snapshot proxy``: compaction in front of a live agent (argument parsing only)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from snapshot.cli.argtypes import at_least, finite_float
from snapshot.errors import InputError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "proxy",
        help="an HTTP proxy that compacts a live agent's requests and stores every turn",
        description=(
            "Listen for Anthropic Messages, OpenAI Chat Completions / Responses and Gemini "
            "generateContent requests, compact them with the free rungs when they reach "
            "--threshold of the model's context window, recover from the provider's overflow "
            "errors, and store every turn. Point ANTHROPIC_BASE_URL, OPENAI_BASE_URL or the "
            "Gemini SDK's base URL at it. Needs the [proxy] extra (aiohttp)."
        ),
    )
    p.add_argument("--upstream", required=True, metavar="URL", help="the provider's base URL")
    p.add_argument(
        "--listen",
        default="127.0.0.1:8787",
        metavar="HOST:PORT",
        help="address to listen on (default 127.0.0.1:8787, this machine only)",
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow --listen on an address other machines can reach (prints a warning)",
    )
    p.add_argument("--store", type=Path, metavar="DIR", help="store every turn here")
    p.add_argument(
        "--threshold",
        type=finite_float(0.01, 1.0),
        default=0.8,
        help="compact when the input reaches this share of the model's window (default 0.8)",
    )
    p.add_argument(
        "--mode",
        choices=("cost", "window", "off"),
        default="window",
        help="window (default): compact at --threshold of the window; cost: also draw pages "
        "on every request where the billing model, prompt cache counted, says they cost less; "
        "off: forward every request byte for byte",
    )
    p.add_argument(
        "--policy",
        choices=("safe", "full"),
        help="what --mode cost draws: safe = older, closed history only; full = also the "
        "system prompt's long text and the tool descriptions (default: per model, by its "
        "readability evidence; `snapshot profiles --model M` says which and why; a model "
        "with none passes through)",
    )
    p.add_argument("--ledger", type=Path, metavar="DIR", help="write ledger.jsonl here")
    p.add_argument(
        "--max-body",
        type=at_least(1024),
        default=64 * 1024 * 1024,
        metavar="BYTES",
        help="refuse request bodies larger than this (default 64 MiB)",
    )
    p.add_argument(
        "--summarizer",
        metavar="MODEL",
        help="when the free rungs cannot fit, summarize the middle with MODEL in its own small "
        "request (uses the key in this process's environment); default: never summarize",
    )
    p.add_argument(
        "--window",
        type=at_least(1),
        metavar="TOKENS",
        help="the context window to assume for every model (default: the data table's)",
    )
    p.add_argument(
        "--canary",
        type=finite_float(0.0, 1.0),
        default=0.0,
        metavar="RATE",
        help="for this share of the compactions that draw pages, send the same model a small "
        "transcription request for a band of a page just sent (in the background, with the "
        "client's key) and score it; records go to --evidence (default 0: never)",
    )
    p.add_argument(
        "--evidence",
        type=Path,
        metavar="FILE",
        help="where --canary appends its records (default: evidence.jsonl in --ledger, "
        "else in --store)",
    )
    p.set_defaults(func=cmd_proxy)


def listen_address(text: str, allow_remote: bool) -> tuple[str, int]:
    """``HOST:PORT`` → (host, port); a non-loopback host needs ``allow_remote``."""
    from snapshot.proxy.upstream import is_loopback

    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise InputError(f"--listen {text!r}: expected HOST:PORT, e.g. 127.0.0.1:8787")
    host = host.strip("[]") or "127.0.0.1"
    if not is_loopback(host):
        if not allow_remote:
            raise InputError(
                f"--listen {host}: not a loopback address: other machines could send requests "
                "through it. Add --allow-remote if you mean it"
            )
        print(
            f"snapshot proxy: warning: listening on {host}, reachable from other machines",
            file=sys.stderr,
        )
    return host, int(port)


def cmd_proxy(args: argparse.Namespace) -> int:
    try:
        from snapshot.proxy.app import ProxyConfig, run
    except ImportError:
        raise InputError("snapshot proxy needs aiohttp: pip install 'snapshot[proxy]'") from None
    host, port = listen_address(args.listen, args.allow_remote)
    if args.policy is not None and args.mode != "cost":
        raise InputError(f"--policy {args.policy} is for --mode cost (this is --mode {args.mode})")
    config = ProxyConfig(
        upstream=args.upstream,
        store=args.store,
        threshold=args.threshold,
        ledger=args.ledger,
        max_body=args.max_body,
        summarizer=args.summarizer,
        window=args.window,
        canary=args.canary,
        evidence=args.evidence,
        mode=args.mode,
        policy=args.policy,
    )
    run(config, host, port)
    return 0
