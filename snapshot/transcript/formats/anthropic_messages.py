"""Anthropic Messages API request bodies: ``system`` plus ``messages`` of content blocks.

Blocks: ``text``, ``image`` (base64 source; URL sources kept as a note, never
fetched), ``tool_use``, ``tool_result`` (text and image content, ``is_error``),
``thinking`` (with its signature) and ``redacted_thinking`` (kept as a
signature-only thinking block). Other block types (documents, server tool
blocks, ...) are skipped and counted.

Pairing: ``tool_use.id`` = ``tool_result.tool_use_id``. A user message that
answers tool calls stays one user message holding the results, as the API
shapes it.

Accepts a request body object, a bare list of messages, or a JSON-lines file of
request bodies (one conversation per line).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    head_text,
    image_from_bytes,
    iter_jsonl,
    pairing_warnings,
    put_first,
    skipped_warning,
    with_file_warnings,
)
from snapshot.transcript.formats._json_stream import JSONDocument
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

NAME = "anthropic-messages"


class _Parser:
    def __init__(self, where: str) -> None:
        self.where = where
        self.warns: list[str] = []
        self.skipped: dict[str, int] = {}

    def skip(self, kind: str) -> None:
        self.skipped[kind] = self.skipped.get(kind, 0) + 1

    def image(self, block: Mapping[str, Any], at: str) -> Block:
        source = block.get("source")
        if not isinstance(source, Mapping):
            self.warns.append(f"{at}: image block without a source; kept as a note")
            return TextBlock("[image without a source]")
        kind = source.get("type")
        if kind == "base64":
            try:
                data = base64.b64decode(str(source.get("data") or ""), validate=False)
                return image_from_bytes(data, "inline")
            except (binascii.Error, ValueError, TranscriptError) as exc:
                self.warns.append(f"{at}: image dropped: {exc}")
                return TextBlock(f"[image not kept: {exc}]")
        if kind == "url":
            self.warns.append(f"{at}: image URL kept as text (not fetched)")
            return TextBlock(f"[image: {source.get('url')}]")
        self.warns.append(f"{at}: image source {kind!r} kept as a note")
        return TextBlock(f"[image: {kind} source]")

    def result_content(self, content: Any, at: str) -> tuple[TextBlock | ImageBlock, ...]:
        if content is None:
            return ()
        if isinstance(content, str):
            return (TextBlock(content),)
        if not isinstance(content, list):
            return (TextBlock(str(content)),)
        out: list[TextBlock | ImageBlock] = []
        for j, part in enumerate(content):
            if not isinstance(part, Mapping):
                self.skip("non-object block")
                continue
            if part.get("type") == "text":
                out.append(TextBlock(str(part.get("text") or "")))
            elif part.get("type") == "image":
                img = self.image(part, f"{at} part {j}")
                if isinstance(img, TextBlock | ImageBlock):
                    out.append(img)
            else:
                self.skip(f"tool_result part {part.get('type')!r}")
        return tuple(out)

    def blocks(self, content: Any, at: str) -> list[Block]:
        if isinstance(content, str):
            return [TextBlock(content)] if content else []
        if not isinstance(content, list):
            self.warns.append(f"{at}: content is neither text nor a list of blocks; skipped")
            return []
        out: list[Block] = []
        for i, b in enumerate(content):
            bat = f"{at} block {i}"
            if not isinstance(b, Mapping):
                self.skip("non-object block")
                continue
            kind = b.get("type")
            if kind == "text":
                out.append(TextBlock(str(b.get("text") or "")))
            elif kind == "image":
                out.append(self.image(b, bat))
            elif kind == "tool_use":
                raw = b.get("input")
                out.append(
                    ToolCall(
                        id=str(b.get("id") or f"{bat}-call"),
                        name=str(b.get("name") or "unknown"),
                        input=dict(raw) if isinstance(raw, Mapping) else {"_input": raw},
                    )
                )
            elif kind == "tool_result":
                call_id = b.get("tool_use_id")
                if not call_id:
                    self.warns.append(f"{bat}: tool_result without tool_use_id")
                out.append(
                    ToolResult(
                        call_id=str(call_id or f"{bat}-missing"),
                        content=self.result_content(b.get("content"), bat),
                        is_error=bool(b.get("is_error", False)),
                    )
                )
            elif kind == "thinking":
                out.append(ThinkingBlock(str(b.get("thinking") or ""), b.get("signature")))
            elif kind == "redacted_thinking":
                out.append(ThinkingBlock("", str(b.get("data") or "")))
            else:
                self.skip(f"block {kind!r}")
        return out


def conversation_from_body(
    body: Mapping[str, Any] | Sequence[Any], *, conv_id: str, source: str = "", where: str = ""
) -> Conversation:
    """A conversation from one request body (or a bare list of messages)."""
    if isinstance(body, Mapping):
        records = body.get("messages")
        if not isinstance(records, list):
            raise TranscriptError(
                f"{where or source or conv_id}: request body without a 'messages' list"
            )
        return _conversation(records, body, conv_id=conv_id, source=source, where=where)
    return _conversation(body, None, conv_id=conv_id, source=source, where=where)


def _conversation(
    records: Iterable[Any],
    header: Mapping[str, Any] | None,
    *,
    conv_id: str,
    source: str = "",
    where: str = "",
    spilled: bool = False,
) -> Conversation:
    """The messages converted one at a time, then the body's other fields (``header``,
    complete only once ``records`` is exhausted when both come from one streamed file)."""
    where = where or source or conv_id
    parser = _Parser(where)
    meta: dict[str, Any] = {}
    messages = spill.message_sink(spilled)
    last: str | None = None

    def system_message() -> Message | None:
        system = header.get("system") if header is not None else None
        if not system:
            return None
        return Message("system", None, "system", tuple(parser.blocks(system, f"{where}: system")))

    # Known before the messages (always, but for a file whose system prompt follows
    # them), it goes first now, its warnings first too; else it is put in front later.
    early = system_message()
    if early is not None:
        messages.append(early)
        last = early.id
    for i, rec in enumerate(records):
        at = f"{where}: message {i}"
        if not isinstance(rec, Mapping):
            parser.skip("non-object message")
            continue
        role = rec.get("role")
        if role not in ("user", "assistant"):
            parser.skip(f"role {role!r}")
            continue
        nrole: Role = "user" if role == "user" else "assistant"
        blocks = parser.blocks(rec.get("content"), at)
        messages.append(Message(f"m{i}", last, nrole, tuple(blocks)))
        last = f"m{i}"
    late = system_message() if early is None else None
    if header is not None:
        for key in ("model", "tools", "max_tokens"):
            if key in header:
                meta[key] = header[key]
    conv_messages = put_first([late] if late else [], spill.frozen(messages))
    warns = parser.warns
    if parser.skipped:
        warns.append(skipped_warning(where, "Anthropic Messages", parser.skipped))
        meta["skipped"] = dict(parser.skipped)
    warns.extend(pairing_warnings(conv_messages, where))
    return Conversation(
        id=conv_id,
        messages=conv_messages,
        tip=last or (late.id if late else None),
        format=NAME,
        source=source,
        meta=meta,
        warnings=tuple(warns),
    )


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: a folder; anthropic-messages imports a JSON file")
    if options.select and set(options.select) - {"line"}:
        raise TranscriptError(f"{path}: request bodies can only be selected by line=N")
    if path.suffix == ".jsonl":
        file_warns: list[str] = []
        out = []
        for lineno, body in iter_jsonl(path, file_warns):
            if options.select and options.select.get("line") != str(lineno):
                continue
            if not isinstance(body, Mapping):
                file_warns.append(f"{path}:{lineno}: not a request body; skipped")
                continue
            out.append(
                conversation_from_body(
                    body,
                    conv_id=f"{path.stem}#{lineno}",
                    source=str(path),
                    where=f"{path}:{lineno}",
                )
            )
        if not out and not options.select:
            raise TranscriptError(f"{path}: no request bodies found")
        return [with_file_warnings(c, file_warns) for c in out]
    # One body, mostly its messages list: read one message at a time.
    doc = JSONDocument(path, "messages")
    if doc.shape == "other":
        raise TranscriptError(f"{path}: expected a request body object or a list of messages")
    if not doc.found:
        raise TranscriptError(f"{path}: request body without a 'messages' list")
    spilled = path.stat().st_size >= spill.SPILL_BYTES
    header = doc.fields if doc.shape == "object" else None
    return [
        _conversation(doc.items(), header, conv_id=path.stem, source=str(path), spilled=spilled)
    ]


# Markers only Anthropic bodies have; a plain text-only body is left to openai-chat,
# which reads it the same way.
_MARKERS = re.compile(
    r'"type"\s*:\s*"(tool_use|tool_result|thinking|redacted_thinking)"'
    r'|"source"\s*:\s*\{\s*"type"\s*:\s*"(base64|url)"'
    r'|^\{\s*"system"|,\s*"system"\s*:|"anthropic_version"'
)


def score(path: Path, head: bytes) -> float:
    """0.7 for messages with a marker only Anthropic bodies have (other chat APIs share the
    list-of-roles shape, so not more); else 0.

    >>> score(Path("b.json"), b'{"system": "x", "messages": [{"role": "user", "content": "hi"}]}')
    0.7
    >>> score(Path("b.json"), b'{"messages": [{"role": "user", "content": "hi"}]}')
    0.0
    """
    if path.is_dir():
        return 0.0
    text = head_text(head)
    if not text.startswith(("{", "[")) or (text.startswith("{") and '"messages"' not in text):
        return 0.0
    if '"role"' not in text:
        return 0.0
    return 0.7 if _MARKERS.search(text) is not None else 0.0


FORMAT = Format(
    name=NAME,
    description="Anthropic Messages API request body (system, messages of content blocks)",
    score=score,
    load=load,
)
