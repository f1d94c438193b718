"""Claude Agent SDK stream-json → one conversation per agent (see the package docstring)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import ImportOptions
from snapshot.transcript.formats._common import (
    Warnings,
    add_pairing_warnings,
    iter_json_objects,
    matches_select,
    read_prompt,
    str_field,
)
from snapshot.transcript.formats.claude_code.content import content_blocks
from snapshot.transcript.formats.claude_code.records import (
    MESSAGE_TYPES,
    NAME,
    Draft,
    api_meta,
    record_kind,
)
from snapshot.transcript.model import (
    Conversation,
    Message,
    TextBlock,
)

# --- Claude Agent SDK stream-json ----------------------------------------------------


class SdkStream:
    """One agent's messages of an Agent SDK log, written as they are read.

    Only the newest draft stays open: the next record of its API response
    (one content block each, adjacent in the stream) merges into it. Every
    other message is finished, in a list or on disk (:mod:`~snapshot.transcript.spill`).
    """

    def __init__(self, file: spill.SpillFile | None) -> None:
        self.file = file  # the one file every agent's spill shares; None: held in a list
        self.messages: list[Message] | spill.SpilledMessages | None = None  # made by the first
        self.open: Draft | None = None
        self.tip: str | None = None  # the id of the last message finished
        self.seen: set[str] = set()

    def add(self, d: Draft) -> None:
        """Open ``d`` (``d.api_id``: what may merge into it), finishing the one open before."""
        self.finish()
        self.open = d

    def merging(self, api_id: Any) -> Draft | None:
        """The open draft when a record of API message ``api_id`` continues it."""
        d = self.open
        return d if d is not None and isinstance(api_id, str) and d.api_id == api_id else None

    def finish(self) -> None:
        """Write the open draft, chained after the previous message; a repeated id gets its line."""
        d, self.open = self.open, None
        if d is None:
            return
        mid = d.id if d.id not in self.seen else f"{d.id}-{d.line}"
        self.seen.add(mid)
        if self.messages is None:
            self.messages = spill.message_sink(self.file is not None, self.file)
        self.messages.append(Message(mid, self.tip, d.role, tuple(d.blocks), d.meta))
        self.tip = mid


def load_sdk(path: Path, options: ImportOptions) -> list[Conversation]:
    warnings = Warnings()
    skipped: Counter[str] = Counter()
    session_id: str | None = None
    meta: dict[str, Any] = {}
    # One stream per agent: "main" and each subagent's parent tool-use id, in
    # the order first seen; a large file keeps its messages on disk, one file
    # for all (a log can hold thousands of subagents).
    file = spill.SpillFile() if path.stat().st_size >= spill.SPILL_BYTES else None
    streams: dict[str, SdkStream] = {"main": SdkStream(file)}
    summary_pending: dict[str, bool] = {}

    prompt = read_prompt(path, warnings)
    if prompt is not None:
        streams["main"].add(
            Draft("prompt", "user", None, [TextBlock(prompt)], {"source": "prompt file"}, 0)
        )

    for lineno, rec in iter_json_objects(path, warnings):
        where = f"{path}:{lineno}"
        kind: Any = str_field(rec, "type")  # a role once matched below
        if session_id is None and isinstance(rec.get("session_id"), str):
            session_id = rec["session_id"]
        agent = rec.get("parent_tool_use_id") or "main"
        if not isinstance(agent, str):
            agent = "main"
        stream = streams.get(agent)
        if stream is None:
            stream = streams[agent] = SdkStream(file)
        raw_uuid = rec.get("uuid")
        mid = raw_uuid if isinstance(raw_uuid, str) else f"line-{lineno}"

        if kind == "system" and rec.get("subtype") == "init":
            for key in ("model", "cwd", "tools", "claude_code_version", "permissionMode"):
                if key in rec:
                    meta[key] = rec[key]
            continue
        if kind == "system" and rec.get("subtype") == "compact_boundary":
            cm = rec.get("compact_metadata") or rec.get("compactMetadata") or {}
            stream.add(
                Draft(
                    mid,
                    "system",
                    None,
                    [TextBlock("Conversation compacted")],
                    {
                        "kind": "compact_boundary",
                        "trigger": cm.get("trigger"),
                        "pre_tokens": cm.get("pre_tokens", cm.get("preTokens")),
                    },
                    lineno,
                )
            )
            summary_pending[agent] = True
            continue
        if kind == "result":
            for key in (
                "subtype",
                "is_error",
                "duration_ms",
                "num_turns",
                "total_cost_usd",
                "usage",
            ):
                if key in rec:
                    meta[f"result_{key}" if key == "subtype" else key] = rec[key]
            continue
        if kind not in MESSAGE_TYPES:
            skipped[record_kind(rec)] += 1
            continue
        msg = rec.get("message")
        if not isinstance(msg, dict):
            warnings.add(f"{where}: {kind} record without a message object; skipped", "record")
            continue
        blocks = content_blocks(msg.get("content"), where, warnings)
        api_id = msg.get("id") if kind == "assistant" else None
        target = stream.merging(api_id)
        if target is not None:
            # The next record of the same API response (one content block each).
            # Only an adjacent one: redacted logs give every response the same id.
            target.absorb(blocks, msg)
            continue
        m = api_meta(msg, api_id)
        if kind == "user" and summary_pending.pop(agent, False):
            # The SDK marks the post-compaction summary only as synthetic.
            m["compact_summary"] = True
        if rec.get("isSynthetic"):
            m["synthetic"] = True
        stream.add(
            Draft(mid, kind, None, blocks, m, lineno, api_id if isinstance(api_id, str) else None)
        )

    warnings.extend_counts("skipped non-message records", skipped)
    conv_id = session_id or path.stem
    out: list[Conversation] = []
    for agent, stream in streams.items():
        stream.finish()
        if stream.messages is None:
            continue
        messages = spill.frozen(stream.messages)
        w = warnings.copy()
        add_pairing_warnings(f"{path} ({agent})", messages, w)
        conv = Conversation(
            id=conv_id,
            messages=messages,
            tip=stream.tip,
            agent=agent,
            format=NAME,
            source=str(path),
            meta={**meta, "variant": "agent-sdk-stream-json"},
            warnings=w.tuple(),
        )
        if matches_select({"id": conv_id, "session_id": conv_id, "agent": agent}, options.select):
            out.append(conv)
    if not any(c.messages for c in out) and not options.select:
        raise TranscriptError(f"{path}: no messages found in this Agent SDK log")
    return out
