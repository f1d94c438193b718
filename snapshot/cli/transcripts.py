"""Transcript commands: ``snapshot import`` (one function per subcommand).

``snapshot import PATH`` reads a real agent log (or a folder of them) into the
neutral model and reports what it found; ``--out FILE`` saves the imported
conversations as JSON. The formats themselves live in
:mod:`snapshot.transcript.formats`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from snapshot.transcript.formats import Format
    from snapshot.transcript.model import Conversation

# Version of the file ``--out`` writes; bump when its layout changes.
OUT_FORMAT = "snapshot-conversations"
OUT_VERSION = 1

# Warnings shown per conversation in the human-readable output.
SHOWN_WARNINGS = 5


def register(subparsers: Any) -> None:
    _register_import(subparsers)


# --- snapshot import -------------------------------------------------------------------


def _register_import(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "import",
        help="read real agent logs (Claude Code, Codex, SWE-agent, ...) into conversations",
        description=(
            "Import PATH: an agent log file, a folder that a format keeps together "
            "(screenshots beside the log), or a folder of logs (every file a known "
            "format recognises is imported). The format is detected unless --format "
            "is given. A file holding many conversations imports them all unless "
            "--select picks some."
        ),
    )
    p.add_argument("path", metavar="PATH", help="log file or folder")
    p.add_argument("--format", default=None, help="skip detection and read PATH as this format")
    p.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="keep only conversations whose KEY equals VALUE (repeatable; e.g. task_id=3)",
    )
    p.add_argument("--out", default=None, metavar="FILE", help="write the conversations as JSON")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run_import)


def run_import(args: argparse.Namespace) -> int:
    from snapshot.errors import TranscriptError
    from snapshot.transcript.formats import (
        get_format,
        import_path,
        parse_select,
        refuse_forced_folder,
    )

    path = Path(args.path)
    select = parse_select(args.select)
    if args.format is not None:
        get_format(args.format)  # an unknown name fails before any reading
    if not path.exists():
        raise TranscriptError(f"{path}: no such file or folder")

    failures: list[str] = []
    if path.is_dir() and args.format is not None and not _claimed_folder(path, args.format):
        refuse_forced_folder(path, args.format)  # the folder is one log of another format
    if path.is_dir() and not _claimed_folder(path, args.format):
        conversations = _import_folder(path, args.format, select, failures)
        if not conversations:
            detail = f" ({len(failures)} files failed; first: {failures[0]})" if failures else ""
            wanted = " matching --select" if select else ""
            raise TranscriptError(
                f"{path}: no importable conversations{wanted} in this folder{detail}"
            )
    else:
        conversations = import_path(path, format=args.format, select=select)
        if not conversations:
            raise TranscriptError(f"{path}: holds no conversations")

    if args.out:
        _write_out(Path(args.out), conversations)
    rows = [_summary(c) for c in conversations]
    if args.json:
        out: dict[str, Any] = {"conversations": rows}
        if failures:
            out["errors"] = failures
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(rows)
        if args.out:
            print(f"wrote {len(conversations)} conversations to {args.out}")
    from snapshot.cli.terminal import safe_line

    for failure in failures:
        print(f"snapshot: warning: {safe_line(failure)}", file=sys.stderr)
    return 1 if failures else 0


def _claimed_folder(path: Path, format_name: str | None) -> bool:
    """Is this folder itself one log (a format that keeps files together)?"""
    from snapshot.transcript.formats import formats, get_format

    candidates = [get_format(format_name)] if format_name else formats()
    return any(f.sniff(path, b"") for f in candidates)


def _import_folder(
    root: Path, format_name: str | None, select: dict[str, str], failures: list[str]
) -> list[Conversation]:
    """Every conversation under ``root``; a file that fails is reported, not fatal."""
    from snapshot.errors import SnapshotError
    from snapshot.progress import progress
    from snapshot.transcript.formats import SNIFF_BYTES, ImportOptions, formats, get_format

    candidates = [get_format(format_name)] if format_name else formats()
    units: list[tuple[Path, Format]] = []
    if format_name is None:
        # Detection as everywhere else: scored, sure or reported (snapshot.transcript.discover).
        from snapshot.transcript.discover import NOT_A_TRANSCRIPT, find

        for found in find([root]):
            if found.format is not None:
                units.append((found.path, get_format(found.format)))
            elif found.reason != NOT_A_TRANSCRIPT:
                failures.append(f"{found.path}: {found.reason}")
    for dirpath, dirnames, filenames in os.walk(root) if format_name else ():
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        kept_dirs = []
        for d in dirnames:
            fmt = next((f for f in candidates if f.sniff(here / d, b"")), None)
            if fmt is not None:
                units.append((here / d, fmt))  # a folder log: do not look inside
            else:
                kept_dirs.append(d)
        dirnames[:] = kept_dirs
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            file = here / name
            try:
                with file.open("rb") as fh:
                    head = fh.read(SNIFF_BYTES)
            except OSError as exc:
                failures.append(f"{file}: cannot be read: {exc}")
                continue
            fmt = next((f for f in candidates if f.sniff(file, head)), None)
            if fmt is not None:
                units.append((file, fmt))

    options = ImportOptions(select=select)
    out: list[Conversation] = []
    for unit, fmt in progress(units, desc="import", unit="file"):
        try:
            out.extend(fmt.load(unit, options))
        except SnapshotError as exc:
            failures.append(str(exc))
    return out


def _summary(conv: Conversation) -> dict[str, Any]:
    from snapshot.transcript.model import stats

    s = stats(conv.messages)
    return {
        "id": conv.id,
        "format": conv.format,
        "messages": s.messages,
        "tool_calls": s.tool_calls,
        "images": s.images,
        "chars": s.chars,
        "warnings": list(conv.warnings),
        # Beyond the fixed keys above:
        "agent": conv.agent,
        "source": conv.source,
        "tool_results": s.tool_results,
        "tool_result_chars": s.tool_result_chars,
        "path_messages": len(conv.path()) if conv.tip is not None else 0,
        "compact_boundaries": sum(
            1 for m in conv.messages if m.meta.get("kind") == "compact_boundary"
        ),
        # Share of the file's text the import kept (None: not measured).
        "text_kept": conv.meta.get("text_kept"),
    }


def _print_table(rows: list[dict[str, Any]]) -> None:
    header = ("conversation", "agent", "format", "msgs", "calls", "images", "chars", "warn")
    from snapshot.cli.terminal import safe_line

    lines = [header] + [
        (
            safe_line(str(r["id"])),
            safe_line(str(r["agent"])),
            str(r["format"]),
            str(r["messages"]),
            str(r["tool_calls"]),
            str(r["images"]),
            str(r["chars"]),
            str(len(r["warnings"])),
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    for line in lines:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip())
    for r in rows:
        if not r["warnings"]:
            continue
        print(safe_line(f"\n{r['id']} ({r['agent']}): {len(r['warnings'])} warnings", keep="\n"))
        for w in r["warnings"][:SHOWN_WARNINGS]:
            print(f"  - {safe_line(w)}")
        if len(r["warnings"]) > SHOWN_WARNINGS:
            print(f"  ... {len(r['warnings']) - SHOWN_WARNINGS} more (--json shows all)")


def _write_out(target: Path, conversations: list[Conversation]) -> None:
    """Write atomically: a crash leaves either the old file or the complete new one."""
    from snapshot.errors import TranscriptError
    from snapshot.transcript.model import conversation_to_dict

    doc = {
        "format": OUT_FORMAT,
        "version": OUT_VERSION,
        "conversations": [conversation_to_dict(c) for c in conversations],
    }
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise TranscriptError(f"--out {target}: folder {parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, ensure_ascii=False)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp makes the file private; give it the mode a plain open would.
        os.chmod(tmp, _plain_file_mode(target))
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise TranscriptError(f"--out {target}: cannot write: {exc}") from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _plain_file_mode(target: Path) -> int:
    if target.exists():
        return target.stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
