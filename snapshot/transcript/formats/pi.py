"""pi coding-agent session JSONL (``~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl``).

The first line is the session header ``{"type": "session", "version": 3, "id",
"cwd", ...}``; every other line is an entry. From version 2 on, entries form
a tree through ``id``/``parentId`` (branching happens in place, the leaf is
the last entry written); version 1 files (no ``version``, no ids) are a
linear list, which is how the importer reads them.

What becomes what, as pi builds the model's context:

- ``message`` entries by ``message.role``: ``user``, ``assistant`` (text,
  ``thinking`` blocks as thinking, ``toolCall`` blocks as tool calls) and
  ``toolResult`` (the result for ``toolCallId``; ``isError``);
  ``bashExecution`` (a command the user ran with ``!``) as the user text pi
  sends for it; ``custom``/``hookMessage``, ``branchSummary`` and
  ``compactionSummary`` as user text.
- ``compaction`` → a ``compact_boundary`` system message followed by the
  summary as user text marked ``compact_summary`` (the path keeps the history
  before it; a reader wanting only what the model saw cuts at the boundary).
- ``branch_summary`` and ``custom_message`` → user text.
- ``model_change``, ``thinking_level_change``, ``session_info``, ``label`` and
  ``custom`` entries are settings, not messages: they are transparent in the
  tree and recorded in ``meta`` (model changes, the session name).

Calls link to results by id (``toolCall.id`` = ``toolResult.toolCallId``);
calls of aborted turns have no result and are reported.

>>> from snapshot.transcript.formats.pi import FORMAT
>>> FORMAT.name
'pi'
"""

from __future__ import annotations

import base64
import binascii
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    Warnings,
    add_pairing_warnings,
    head_records,
    image_from_bytes,
    iter_json_objects,
)
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)

NAME = "pi"

# Entries that change settings; they hold no message.
_SETTINGS = {"model_change", "thinking_level_change", "session_info", "label", "custom"}
_ENTRY_TYPES = {"message", "compaction", "branch_summary", "custom_message", *_SETTINGS}


class _Reader:
    def __init__(self, path: Path, warnings: Warnings) -> None:
        self.path = path
        self.warnings = warnings
        # A large session keeps its messages on disk as they are read (spill.py).
        self.messages = spill.message_sink(path.stat().st_size >= spill.SPILL_BYTES)
        self.last: str | None = None  # the newest message's id, without reading it back
        self.ids: set[str] = set()
        self.through: dict[str, str | None] = {}  # a non-message entry -> its parent
        self.skipped: Counter[str] = Counter()
        self.meta: dict[str, Any] = {}
        self.last_entry: str | None = None
        self.missing_parents = 0

    def resolve(self, parent: str | None) -> str | None:
        """The nearest message at or above ``parent`` (settings entries are transparent).

        A parent that is not in the file continues from the previous message,
        counted in the warnings.
        """
        seen: set[str] = set()
        while parent is not None and parent not in self.ids:
            if parent in seen:
                return None  # a parent cycle: start a new root rather than loop
            seen.add(parent)
            if parent not in self.through:
                self.missing_parents += 1
                return self.last
            parent = self.through[parent]
        return parent

    def add(
        self,
        mid: str,
        parent: str | None,
        role: Role,
        blocks: Sequence[Block],
        meta: dict[str, Any],
    ) -> None:
        if mid in self.ids:
            mid = f"{mid}-{len(self.messages)}"
        self.messages.append(Message(mid, self.resolve(parent), role, tuple(blocks), meta))
        self.ids.add(mid)
        self.last = mid

    def content(self, content: Any, where: str) -> list[Block]:
        if isinstance(content, str):
            return [TextBlock(content)] if content else []
        out: list[Block] = []
        for part in content if isinstance(content, list) else ():
            if not isinstance(part, Mapping):
                continue
            kind = part.get("type")
            if kind == "text":
                out.append(TextBlock(str(part.get("text") or "")))
            elif kind == "thinking":
                sig = part.get("thinkingSignature")
                out.append(
                    ThinkingBlock(
                        str(part.get("thinking") or ""), sig if isinstance(sig, str) else None
                    )
                )
            elif kind == "toolCall":
                args = part.get("arguments")
                out.append(
                    ToolCall(
                        str(part.get("id") or f"{where}-call{len(out)}"),
                        str(part.get("name") or "unknown"),
                        dict(args) if isinstance(args, Mapping) else {"_arguments": args},
                    )
                )
            elif kind == "image":
                out.append(self.image(part, where))
            else:
                self.skipped[f"content block {kind!r}"] += 1
        return out

    def image(self, part: Mapping[str, Any], where: str) -> Block:
        try:
            data = base64.b64decode(str(part.get("data") or ""), validate=False)
            return image_from_bytes(data, "inline")
        except (binascii.Error, ValueError, TranscriptError) as exc:
            self.warnings.add(f"{where}: image dropped: {exc}", "image")
            return TextBlock(f"[image not kept: {exc}]")

    def entry(self, lineno: int, rec: Mapping[str, Any], linear: bool) -> None:
        where = f"{self.path}:{lineno}"
        kind = rec.get("type")
        kind = kind if isinstance(kind, str) else repr(kind)
        if linear:
            eid = f"e{lineno}"
            parent = self.last_entry
        else:
            eid = str(rec.get("id") or f"e{lineno}")
            raw_parent = rec.get("parentId")
            parent = str(raw_parent) if raw_parent is not None else None
        self.last_entry = eid
        meta: dict[str, Any] = {"entry_id": eid, "timestamp": rec.get("timestamp")}
        if kind == "message" and isinstance(rec.get("message"), Mapping):
            self.message(eid, parent, rec["message"], meta, where)
        elif kind == "compaction":
            # The summary takes the entry's id, so the entries after it continue from it.
            meta.update(kind="compact_boundary", tokens_before=rec.get("tokensBefore"))
            first = rec.get("firstKeptEntryId")
            index = rec.get("firstKeptEntryIndex")
            if first is None and isinstance(index, int) and not isinstance(index, bool):
                # Older sessions count entries from the file's first line (the header),
                # and an entry without an id is ``e<line>``.
                first = f"e{index + 1}"
            meta["first_kept_entry"] = first
            boundary = f"{eid}-boundary"
            self.add(boundary, parent, "system", [TextBlock("Conversation compacted")], meta)
            summary = [TextBlock(str(rec.get("summary") or ""))]
            self.add(eid, boundary, "user", summary, {"entry_id": eid, "compact_summary": True})
        elif kind == "branch_summary":
            meta["kind"] = "branch_summary"
            self.add(eid, parent, "user", [TextBlock(str(rec.get("summary") or ""))], meta)
        elif kind == "custom_message":
            meta["custom_type"] = rec.get("customType")
            self.add(eid, parent, "user", self.content(rec.get("content"), where), meta)
        elif kind in _SETTINGS:
            self.through[eid] = parent
            self.setting(kind, rec)
        else:
            self.through[eid] = parent
            self.skipped[f"entry {kind!r}"] += 1

    def setting(self, kind: str, rec: Mapping[str, Any]) -> None:
        if kind == "model_change":
            self.meta.setdefault("model_changes", []).append(
                f"{rec.get('provider')}/{rec.get('modelId')}"
            )
        elif kind == "session_info" and rec.get("name"):
            self.meta["name"] = rec["name"]
        elif kind == "thinking_level_change":
            self.meta["thinking_level"] = rec.get("thinkingLevel")

    def message(
        self, eid: str, parent: str | None, msg: Mapping[str, Any], meta: dict[str, Any], where: str
    ) -> None:
        role = msg.get("role")
        role = role if isinstance(role, str) else repr(role)
        if role == "assistant":
            for key in ("model", "provider", "api", "stopReason"):
                if msg.get(key):
                    meta[key] = msg[key]
            blocks = self.content(msg.get("content"), where)
            if msg.get("errorMessage"):
                meta["error"] = msg["errorMessage"]
            self.add(eid, parent, "assistant", blocks, meta)
        elif role == "toolResult":
            content = tuple(
                b
                for b in self.content(msg.get("content"), where)
                if isinstance(b, TextBlock | ImageBlock)
            )
            meta["tool_name"] = msg.get("toolName")
            result = ToolResult(
                str(msg.get("toolCallId") or f"{eid}-missing"), content, bool(msg.get("isError"))
            )
            self.add(eid, parent, "tool", [result], meta)
        elif role == "bashExecution":
            meta["kind"] = "bash_execution"
            if msg.get("excludeFromContext"):
                meta["exclude_from_context"] = True
            text = f"Ran `{msg.get('command', '')}`\n```\n{msg.get('output', '')}\n```"
            if msg.get("exitCode") not in (0, None):
                text += f"\nCommand exited with code {msg['exitCode']}"
            self.add(eid, parent, "user", [TextBlock(text)], meta)
        elif role in ("user", "custom", "hookMessage"):
            if role != "user":
                meta["custom_type"] = msg.get("customType")
            self.add(eid, parent, "user", self.content(msg.get("content"), where), meta)
        elif role in ("branchSummary", "compactionSummary"):
            meta["kind"] = role
            self.add(eid, parent, "user", [TextBlock(str(msg.get("summary") or ""))], meta)
        else:
            self.through[eid] = parent
            self.skipped[f"message role {role!r}"] += 1


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: a folder; pi imports one session .jsonl file")
    if options.select:
        raise TranscriptError(f"{path}: a pi session holds one conversation; drop --select")
    warnings = Warnings()
    reader = _Reader(path, warnings)
    header: Mapping[str, Any] | None = None
    linear = True
    for lineno, rec in iter_json_objects(path, warnings, "entry"):
        if rec.get("type") == "session" and header is None:
            header = rec
            linear = not isinstance(rec.get("version"), int) or rec["version"] < 2
            continue
        # A tree file's entry without an id (hand-edited, or written by an older tool) chains on.
        reader.entry(lineno, rec, linear or "id" not in rec)
    if header is None and not reader.messages:
        raise TranscriptError(f"{path}: no pi session header and no entries; not a pi session")
    meta: dict[str, Any] = dict(reader.meta)
    if header is not None:
        for key in ("id", "version", "cwd", "parentSession", "branchedFrom", "provider", "modelId"):
            if header.get(key) is not None:
                meta[key] = header[key]
    if reader.skipped:
        meta["skipped"] = dict(reader.skipped)
        warnings.extend_counts(f"{path}: skipped what pi does not send the model", reader.skipped)
    tip = reader.resolve(reader.last_entry)
    if reader.missing_parents:
        warnings.add(
            f"{path}: {reader.missing_parents} entries name a parent not in the file; "
            "each continues from the message before it"
        )
    if tip is None:
        tip = reader.last
    conv = Conversation(
        id=str(meta.get("id") or path.stem),
        messages=spill.frozen(reader.messages),
        tip=tip,
        format=NAME,
        source=str(path),
        meta=meta,
    )
    if conv.tip is not None:
        add_pairing_warnings(str(path), conv.iter_path(), warnings)
    return [replace(conv, warnings=warnings.tuple())]


def score(path: Path, head: bytes) -> float:
    if path.is_dir():
        return 0.0
    records = head_records(head, limit=3)
    if not records:
        return 0.0
    first = records[0]
    if first.get("type") == "session" and "cwd" in first:
        if isinstance(first.get("version"), int):
            return 1.0
        rest = records[1:]
        if any(r.get("type") in _ENTRY_TYPES for r in rest) or "thinkingLevel" in first:
            return 0.95
        return 0.7
    if first.get("type") == "message" and isinstance(first.get("message"), Mapping):
        role = first["message"].get("role")
        if role in ("user", "assistant", "toolResult", "bashExecution"):
            return 0.6
    return 0.0


FORMAT = Format(
    name=NAME,
    description="pi coding-agent session JSONL (v1 linear, v2/v3 tree)",
    load=load,
    score=score,
    # What pi keeps for its own display: a tool result's details (diffs), and the
    # half-streamed arguments of a tool call.
    unread_keys=frozenset({"details", "partialJson"}),
)
