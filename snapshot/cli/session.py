"""``snapshot tree|branch|fork|checkpoint|rewind|resume|retry|context|show``: the session tree.

CONV is resolved the way every command resolves it
(:mod:`snapshot.transcript.resolve`): ``store:ID`` forces a conversation
stored in the workspace (``--workspace``, default ``.snapshot/``), an existing
file wins otherwise (a store file ``<ws>/<id>/<agent>.jsonl`` is worked on in
its own workspace), else CONV is a stored id. A file is imported; commands that change something then store the result so the
change persists, and say so. Importing the same file again finds the stored
copy instead of starting over. Commands that change a stored conversation
check the workspace is writable first and hold its lock from load to save
(a first import included), so two of them never undo each other. Listings
print transcript text and labels with control characters escaped.

Each command body resolves CONV, makes one call into
:mod:`snapshot.transcript.session` (which runs the store transaction) and
prints its result; the announcements reach stderr through ``note``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from snapshot.cli.argtypes import at_least
from snapshot.cli.conversation import conversation_arguments
from snapshot.cli.terminal import safe_line

if TYPE_CHECKING:
    from snapshot.transcript.model import Conversation, ImageBlock, Message
    from snapshot.transcript.resolve import ConversationHandle


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    common = conversation_arguments("a stored conversation id, or a file to import")

    p = subparsers.add_parser(
        "tree", parents=[common], help="show a conversation's message tree with the tip marked"
    )
    p.add_argument(
        "--width", type=at_least(0), default=100, help="truncate lines to this many characters"
    )
    p.set_defaults(func=cmd_tree)

    p = subparsers.add_parser(
        "branch", parents=[common], help="move the tip to another message (nothing is deleted)"
    )
    p.add_argument("--to", required=True, metavar="MESSAGE_ID", help="the new tip")
    p.set_defaults(func=cmd_branch)

    p = subparsers.add_parser(
        "fork", parents=[common], help="copy a path into a new conversation with fresh ids"
    )
    p.add_argument(
        "--at", metavar="MESSAGE_ID", default=None, help="copy up to here (default: tip)"
    )
    p.add_argument("--id", dest="new_id", metavar="NEW_ID", default=None, help="the new id")
    p.set_defaults(func=cmd_fork)

    p = subparsers.add_parser(
        "checkpoint",
        parents=[common],
        help="label a clean turn boundary (without LABEL: list the checkpoints)",
    )
    p.add_argument("label", metavar="LABEL", nargs="?", default=None)
    p.add_argument("--at", metavar="MESSAGE_ID", default=None, help="the message (default: tip)")
    # argparse binds an optional positional right after CONV; LABEL after options is taken late.
    p.set_defaults(func=cmd_checkpoint, late_positional="label")

    p = subparsers.add_parser(
        "rewind",
        parents=[common],
        help="move the tip back to a checkpoint, noting what was explored",
    )
    p.add_argument("label", metavar="LABEL")
    p.set_defaults(func=cmd_rewind)

    p = subparsers.add_parser(
        "resume",
        parents=[common],
        help="trim to the newest messages that fit a token budget (a dry run unless --save)",
    )
    p.add_argument("--budget", type=at_least(0), required=True, metavar="TOKENS")
    p.add_argument(
        "--model",
        default=None,
        metavar="M",
        help="price images with this model's profile (default: 1200 tokens an image)",
    )
    p.add_argument(
        "--save",
        action="store_true",
        help="store the trimmed conversation in place of the full one (fork first to keep both)",
    )
    p.set_defaults(func=cmd_resume)

    p = subparsers.add_parser(
        "retry", parents=[common], help="move the tip back to the latest prompt to redo its reply"
    )
    p.set_defaults(func=cmd_retry)

    p = subparsers.add_parser(
        "context", parents=[common], help="where the tokens of the live path go, for a model"
    )
    p.add_argument("--model", required=True, metavar="M", help="the model id to count tokens for")
    p.add_argument("--json", action="store_true", help="print JSON ({'total_tokens': N, ...})")
    p.set_defaults(func=cmd_context)

    p = subparsers.add_parser(
        "show",
        parents=[common],
        help="print what a compaction placeholder stands for (its ref), as the original bytes",
    )
    p.add_argument(
        "ref", metavar="REF", help="MESSAGE#BLOCK[.ITEM], as an elided or dropped placeholder says"
    )
    p.set_defaults(func=cmd_show)


# --- resolving CONV --------------------------------------------------------------


def _note(text: str) -> None:
    print(f"snapshot: {safe_line(text)}", file=sys.stderr)


def _say(text: str) -> None:
    """Print one line of a listing: transcript text and labels reach the terminal escaped."""
    print(safe_line(text))


def _row(*fields: str) -> None:
    """Print a tab-separated row, each field escaped (a tab inside one is shown as \\t)."""
    print("\t".join(safe_line(f) for f in fields))


def _resolve(args: argparse.Namespace, *, writes: bool = False) -> ConversationHandle:
    """CONV opened for a session command; announcements go to stderr as they happen."""
    from snapshot.cli.conversation import resolve
    from snapshot.transcript.session import open_handle

    return open_handle(resolve(args), writes=writes, note=_note)


# --- describing messages ---------------------------------------------------------------


def _flat(text: str) -> str:
    return " ".join(text.split())


def _image_label(img: ImageBlock) -> str:
    dims = f"{img.width}×{img.height}" if img.width and img.height else "size unknown"
    return f"[image {img.media_type} {dims}]"


def describe(m: Message) -> str:
    """One line saying what a message holds."""
    from snapshot.transcript.model import ImageBlock, TextBlock, ThinkingBlock, ToolCall, ToolResult

    parts: list[str] = []
    for b in m.blocks:
        if isinstance(b, TextBlock):
            if b.text.strip():
                parts.append(_flat(b.text))
        elif isinstance(b, ThinkingBlock):
            parts.append(f"(thinking, {len(b.text)} chars)")
        elif isinstance(b, ToolCall):
            parts.append(f"→ {b.name}({_flat(b.arguments_json())})")
        elif isinstance(b, ToolResult):
            flag = " error" if b.is_error else ""
            imgs = f" +{len(b.images())} image(s)" if b.images() else ""
            parts.append(f"← {b.call_id}{flag}: {_flat(b.text())}{imgs}")
        elif isinstance(b, ImageBlock):
            parts.append(_image_label(b))
    kind = m.meta.get("kind")
    prefix = f"<{kind}> " if isinstance(kind, str) and kind else ""
    return prefix + (" ".join(parts) if parts else "(empty)")


def _clip(line: str, width: int) -> str:
    return line if width <= 0 or len(line) <= width else line[: max(1, width - 1)] + "…"


def tree_lines(
    conv: Conversation, labels: Mapping[str, Sequence[str]], width: int
) -> Iterator[str]:
    """An indented view: a chain stays at one depth, each branch of a fork point goes one deeper."""
    on_path = {m.id for m in conv.path()} if conv.tip is not None else set()
    children: dict[str | None, list[Message]] = {}
    roots: list[Message] = []
    for m in conv.messages:
        if m.parent is None or m.parent not in conv.index:
            roots.append(m)
        else:
            children.setdefault(m.parent, []).append(m)
    # Iterative depth-first walk: transcripts can be thousands of messages deep.
    stack: list[tuple[Message, int]] = [(r, 1 if len(roots) > 1 else 0) for r in reversed(roots)]
    while stack:
        m, depth = stack.pop()
        mark = "*" if m.id == conv.tip else ("•" if m.id in on_path else " ")
        tags = "".join(f" [{label}]" for label in labels.get(m.id, ()))
        missing = f" (parent {m.parent} missing)" if m.parent and m.parent not in conv.index else ""
        tip = "  ← tip" if m.id == conv.tip else ""
        head = f"{'  ' * depth}{mark} {m.id} {m.role}{tags}{missing}{tip}: "
        yield _clip(head + describe(m), width)
        kids = children.get(m.id, [])
        step = 0 if len(kids) == 1 else 1
        stack.extend((k, depth + step) for k in reversed(kids))


# --- commands --------------------------------------------------------------------------


def cmd_tree(args: argparse.Namespace) -> int:
    from snapshot.transcript.session import tree_summary

    t = _resolve(args)
    conv = t.conv
    summary = tree_summary(t)
    branches = summary.branch_points
    where = "stored" if t.stored else f"imported from {t.source}, not stored"
    _say(
        f"{t.name} ({where}): {len(conv.messages)} messages, {branches} branch point"
        f"{'s' if branches != 1 else ''}, tip {conv.tip}  (* tip, • path to the tip)"
    )
    for line in tree_lines(conv, summary.labels, args.width):
        _say(line)
    return 0


def cmd_branch(args: argparse.Namespace) -> int:
    from snapshot.transcript.session import branch

    t = _resolve(args, writes=True)
    done = branch(t, args.to)
    old = done.before.tip
    _say(
        f"{t.name}: tip moved from {old} to {done.after.tip}; nothing was deleted "
        f"(snapshot branch {t.conv.id} --to {old} switches back)"
    )
    return 0


def cmd_fork(args: argparse.Namespace) -> int:
    from snapshot.transcript.session import fork

    t = _resolve(args, writes=True)
    done = fork(t, args.new_id, at=args.at)
    forked = done.conversation
    from_file = f" (imported from {t.source}; the source is unchanged)" if not t.stored else ""
    _say(
        f"forked {t.name} at {done.at} into {forked.id}/{forked.agent}{from_file}: "
        f"{len(forked.messages)} messages with fresh ids, tip {forked.tip}, stored in {done.path}"
    )
    return 0


def cmd_checkpoint(args: argparse.Namespace) -> int:
    if args.label is None:
        return _list_checkpoints(args)
    from snapshot.transcript.session import checkpoint

    t = _resolve(args, writes=True)
    done = checkpoint(t, args.label, at=args.at)
    for d in done.dropped:
        _note(f"dropped checkpoint {d.checkpoint.label!r}: {d.reason}")
    _say(f"{t.name}: checkpoint {args.label!r} on {done.checkpoint.message}")
    return 0


def _list_checkpoints(args: argparse.Namespace) -> int:
    from snapshot.transcript.session import list_checkpoints

    t = _resolve(args)
    if args.at is not None:
        from snapshot.errors import TranscriptError

        raise TranscriptError("--at needs a LABEL to put on the message")
    report = list_checkpoints(t)
    if not (report.kept or report.dropped):
        _say(f"{t.name}: no checkpoints")
    for c in report.kept:
        _row(c.label, c.message, describe(t.conv.get(c.message))[:80])
    for d in report.dropped:
        _row(d.checkpoint.label, d.checkpoint.message, f"(stale: {d.reason})")
    return 0


def cmd_rewind(args: argparse.Namespace) -> int:
    from snapshot.transcript.session import rewind

    t = _resolve(args, writes=True)
    done = rewind(t, args.label)
    result = done.result
    _say(
        f"{t.name}: rewound to {args.label!r} ({result.checkpoint.message}), tip was "
        f"{done.before.tip}; {len(result.abandoned)} message(s) stay on the abandoned branch"
    )
    _say(f"kept extract: {result.extract}")
    return 0


def cmd_retry(args: argparse.Namespace) -> int:
    from snapshot.transcript.session import retry

    t = _resolve(args, writes=True)
    done = retry(t)
    if done.after is None:
        _say(f"{t.name}: {done.point.reason}")
        return 1
    _say(f"{t.name}: tip moved from {done.before.tip} to {done.point.message}; {done.point.reason}")
    return 0


def cmd_resume(args: argparse.Namespace) -> int:
    from snapshot.ladder.resume import resume

    t = _resolve(args, writes=args.save)
    done = resume(t, args.budget, model=args.model, save=args.save)
    trim, conv = done.trim, done.before
    kept = trim.conversation
    first = done.first_kept
    _say(
        f"{t.name}: keeps {len(kept.messages)} of {len(conv.messages)} messages, "
        f"~{trim.tokens:,} of {args.budget:,} tokens (estimate: {done.estimate})"
        + (f"; the kept tail starts at {first}" if first else "")
    )
    if trim.dropped:
        _say(
            f"drops {len(trim.dropped)} message(s): {len(trim.dropped) - done.off_path} old ones "
            f"on the path, {done.off_path} on abandoned branches"
        )
    if trim.over_budget:
        _say("over budget: no smaller tail can be sent without cutting a tool call from its result")
    for c in trim.checkpoints.kept:
        _say(f"checkpoint {c.label!r} kept on {c.message}")
    for d in trim.checkpoints.dropped:
        _say(f"checkpoint {d.checkpoint.label!r} dropped: {d.reason}")
    if not trim.dropped:
        _say("nothing to trim")
    elif done.path is not None:
        _say(f"stored the trimmed conversation in {done.path}")
    else:
        _say(
            "dry run: nothing written; --save stores the trimmed conversation (fork first to keep both)"
        )
    return 0


# --- context ----------------------------------------------------------------------------


def cmd_context(args: argparse.Namespace) -> int:
    from snapshot.ladder.context import context_use

    t = _resolve(args)
    use = context_use(t.conv, args.model)  # an unknown model is an error
    counted = use.counted
    if args.json:
        import json

        print(json.dumps(use.record(t.name), indent=2))
        return 0

    _say(f"{t.name}: {use.messages} messages on the path to {t.conv.tip}, model {args.model}")
    grand = use.grand_total
    _say(f"{'':14}{'chars':>12}{'tokens':>16}{'share':>8}")
    for kind in use.chars:  # the kinds in their fixed order (tree.CONTEXT_KINDS)
        pct = 100 * use.text_tokens[kind] / grand if grand else 0.0
        _say(f"{kind:14}{use.chars[kind]:>12,}{use.text_tokens[kind]:>16,}{pct:>7.1f}%")
    total_text = sum(use.text_tokens.values())
    _say(f"{'text':14}{sum(use.chars.values()):>12,}{total_text:>16,}   ({counted.counter})")

    for group in use.image_groups():
        labels = [
            (f"{size[0]}×{size[1]}" if size else "unknown size", n) for size, n in group.sizes
        ]
        shown = ", ".join(f"{k} ×{n}" if n > 1 else k for k, n in labels[:6])
        line = f"images in {group.kind}: {group.count}, {group.nbytes:,} bytes ({shown})"
        pct = 100 * group.billed / grand if grand else 0.0
        line += f"; billed {group.billed:,} tokens ({pct:.1f}%)"
        if group.unknown:
            line += f", {group.unknown} of unknown size not priced"
        _say(line)
    if use.window is not None:
        w = use.window
        _say(
            f"context window: {w.tokens:,} tokens ({w.source}, {w.date}); "
            f"in use: {use.window_share:.1%}"
        )
    else:
        _say(f"context window: no source states one for {args.model}")
    if not use.images:
        _say("images: none")
    if not use.vision:
        _say(f"image billing: {args.model} cannot see images; they would be dropped (0 tokens)")
    else:
        _say(
            f"total: {counted.total:,} tokens (text: {counted.counter}; images per the "
            f"{args.model} profile)"
        )
    return 0


# --- show -------------------------------------------------------------------------------


def cmd_show(args: argparse.Namespace) -> int:
    from snapshot.cli.conversation import load_conversation
    from snapshot.ladder.restore import original

    data = original(load_conversation(args), args.ref)
    sys.stdout.buffer.write(data)
    if sys.stdout.isatty() and not data.endswith(b"\n"):
        sys.stdout.buffer.write(b"\n")
    sys.stdout.flush()
    return 0
