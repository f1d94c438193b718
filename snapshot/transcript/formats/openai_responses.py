"""OpenAI Responses API ``input`` lists, request bodies and request/response payloads.

Accepts a JSON list of Responses items, a request body (``{"model": ...,
"instructions": ..., "input": [...], "tools": [...]}``, as ``snapshot export
--to openai-responses`` writes it), a logged payload with the ``response``
beside the request (OpenHands / LiteLLM telemetry: its ``output`` items are
the reply) or a bare response object (``{"object": "response", "output": [...]}``).

Items: ``message`` (roles user, system, developer → system, assistant; content
a string or ``input_text`` / ``output_text`` / ``input_image`` / ``refusal``
parts), ``function_call`` and ``custom_tool_call`` (joined to the assistant
turn they follow), ``function_call_output`` / ``custom_tool_call_output``
(one ``tool`` message each), ``reasoning`` (its summary as unsigned thinking;
the encrypted content is the provider's own and is not kept). Pairing:
``function_call.call_id`` = ``function_call_output.call_id``.

>>> import json, tempfile, pathlib
>>> body = {"model": "gpt-5.1", "instructions": "be brief", "input": [
...     {"role": "user", "content": "list files"},
...     {"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"},
...     {"type": "function_call_output", "call_id": "c1", "output": "a.txt"}]}
>>> p = pathlib.Path(tempfile.mkdtemp()) / "body.json"
>>> _ = p.write_text(json.dumps(body))
>>> [(m.role, [type(b).__name__ for b in m.blocks]) for m in load(p, ImportOptions())[0].path()]
[('system', ['TextBlock']), ('user', ['TextBlock']), ('assistant', ['ToolCall']), ('tool', ['ToolResult'])]
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    head_text,
    image_or_note,
    image_url_of,
    pairing_warnings,
    parse_arguments,
    skipped_warning,
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

NAME = "openai-responses"

_ROLES: dict[str, Role] = {
    "user": "user",
    "system": "system",
    "developer": "system",
    "assistant": "assistant",
}


class _Reader:
    """Items to messages, one at a time: only the last turn is open (an item may join it)."""

    def __init__(self, where: str, spilled: bool) -> None:
        self.where = where
        self.turn: tuple[Role, list[Block]] | None = None
        # A long input list keeps its messages on disk (spill.py).
        self.spilled = spilled
        self.messages = spill.message_sink(spilled)
        self.warns: list[str] = []
        self.skipped: dict[str, int] = {}

    def skip(self, what: str) -> None:
        self.skipped[what] = self.skipped.get(what, 0) + 1

    def add(self, role: Role, blocks: list[Block], *, join: bool = False) -> None:
        if not blocks:
            return
        if join and self.turn is not None and self.turn[0] == role:
            self.turn[1].extend(blocks)
        else:
            self.flush()
            self.turn = (role, blocks)

    def flush(self) -> None:
        if self.turn is not None:
            n = len(self.messages)
            role, blocks = self.turn
            self.messages.append(Message(f"r{n}", f"r{n - 1}" if n else None, role, tuple(blocks)))
            self.turn = None

    def after(self, instructions: str | None) -> Sequence[Message]:
        """The messages, after a system message of ``instructions`` when given.

        A request's ``instructions`` may come after its ``input`` in the file,
        so then the messages are copied one at a time behind it, renumbered.
        """
        self.flush()
        if not instructions:
            return spill.frozen(self.messages)
        out = spill.message_sink(self.spilled)
        out.append(Message("r0", None, "system", (TextBlock(instructions),)))
        for n, m in enumerate(self.messages, 1):
            out.append(replace(m, id=f"r{n}", parent=f"r{n - 1}"))
        return spill.frozen(out)

    def content(self, content: Any, where: str) -> list[Block]:
        if isinstance(content, str):
            return [TextBlock(content)] if content else []
        out: list[Block] = []
        for j, part in enumerate(content if isinstance(content, list) else []):
            if not isinstance(part, Mapping):
                self.skip("non-object content part")
                continue
            kind = part.get("type")
            if kind in ("input_text", "output_text", "text"):
                if part.get("text"):
                    out.append(TextBlock(str(part["text"])))
            elif kind == "refusal":
                out.append(TextBlock(str(part.get("refusal") or "")))
            elif kind == "input_image":
                url = image_url_of(part)
                if isinstance(url, str):
                    out.append(image_or_note(url, "inline", f"{where} part {j}", self.warns))
                else:
                    self.skip("input_image without an image_url")
            else:
                self.skip(f"content part {kind!r}")
        return out

    def item(self, i: int, item: Any) -> None:
        where = f"{self.where}: input[{i}]"
        if not isinstance(item, Mapping):
            self.skip("non-object item")
            return
        kind = item.get("type", "message")
        if kind == "message":
            role = _ROLES.get(str(item.get("role")))
            if role is None:
                self.skip(f"message with role {item.get('role')!r}")
                return
            self.add(role, self.content(item.get("content"), where), join=role == "assistant")
        elif kind in ("function_call", "custom_tool_call"):
            raw = item.get("arguments") if kind == "function_call" else None
            args = (
                parse_arguments(raw, where, self.warns)
                if kind == "function_call"
                else {"input": item.get("input")}
            )
            cid = str(item.get("call_id") or item.get("id") or f"call-{i}")
            self.add("assistant", [ToolCall(cid, str(item.get("name") or "tool"), args)], join=True)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            blocks = (
                self.content(output, where)
                if isinstance(output, list)
                else [TextBlock(output if isinstance(output, str) else json.dumps(output))]
            )
            kept = tuple(b for b in blocks if isinstance(b, TextBlock | ImageBlock))
            result = ToolResult(str(item.get("call_id")), kept)
            self.add("tool", [result])
        elif kind == "reasoning":
            summary = item.get("summary")
            texts = [
                str(s.get("text"))
                for s in (summary if isinstance(summary, list) else [])
                if isinstance(s, Mapping) and s.get("text")
            ]
            if texts:
                self.add("assistant", [ThinkingBlock("\n\n".join(texts))], join=True)
            else:
                self.skip("reasoning item without a summary")
        else:
            self.skip(f"item {kind!r}")


def _conversation(doc: JSONDocument, path: Path) -> Conversation:
    """The neutral conversation of a Responses item list, request or payload (its
    instructions as a system message), the input list read one item at a time."""
    source = str(path)
    reader = _Reader(source, path.stat().st_size >= spill.SPILL_BYTES)
    early = doc.fields.get("instructions")  # the fields before the input list
    if isinstance(early, str) and early:
        reader.add("system", [TextBlock(early)])
    n_input = 0
    for item in doc.items():
        reader.item(n_input, item)
        n_input += 1
    meta: dict[str, Any] = {}
    instructions = None
    if doc.shape == "object":
        data = doc.fields
        raw = data.get("input")
        tail: list[Any] = []
        if not doc.found:
            tail = [{"role": "user", "content": raw}] if isinstance(raw, str) else list(raw or [])
        if "input" not in data and not doc.found and isinstance(data.get("output"), list):
            tail = list(data["output"])  # a bare response object
        response = data.get("response")
        if isinstance(response, Mapping) and isinstance(response.get("output"), list):
            tail += response["output"]  # a logged request with its reply
            meta["reply_from"] = "response.output"
        for i, item in enumerate(tail, n_input):
            reader.item(i, item)
        if isinstance(data.get("instructions"), str) and data["instructions"] is not early:
            instructions = data["instructions"]
        tools = [t for t in data.get("tools") or [] if isinstance(t, Mapping)]
        if tools:
            meta["tools"] = tools
        if isinstance(data.get("model"), str):
            meta["model"] = data["model"]
    messages = reader.after(instructions)
    if not messages:
        raise TranscriptError(f"{source}: no Responses items with content found")
    warns = list(reader.warns)
    if reader.skipped:
        warns.append(skipped_warning(source, "a Responses message or tool item", reader.skipped))
    warns += pairing_warnings(messages, source)
    return Conversation(
        id=path.stem,
        messages=messages,
        tip=messages[-1].id,
        format=NAME,
        source=source,
        meta=meta,
        warnings=tuple(warns),
    )


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: a folder; openai-responses imports one JSON file")
    if options.select:
        raise TranscriptError(f"{path}: holds one conversation; --select is for files holding many")
    doc = JSONDocument(path, "input")
    if doc.shape == "other":
        raise TranscriptError(f"{path}: expected a Responses input list or a request object")
    return [_conversation(doc, path)]


_ITEM_TYPE = re.compile(
    r'"type"\s*:\s*"(function_call|function_call_output|custom_tool_call|input_text|'
    r'output_text|input_image|reasoning)"'
)
# Keys a Responses payload opens with (an object cut short at the sniff limit).
_RESPONSES_KEYS = re.compile(r'^\{\s*"(input|llm_path|instructions|model|context_window)"\s*:')


def _is_jsonl(text: str) -> bool:
    """Does the head hold more than one JSON document, one a line (a JSONL log)?"""
    first, sep, rest = text.partition("\n")
    if not sep or not rest.lstrip().startswith("{"):
        return False
    try:
        json.loads(first)
    except ValueError:
        return False
    return True


def _looks_like_payload(text: str) -> bool:
    """A top-level object with the keys of a Responses request, payload or response."""
    try:
        data = json.loads(text)
    except ValueError:  # a head cut short: judge by its keys
        return _RESPONSES_KEYS.search(text) is not None and '"messages"' not in text
    if not isinstance(data, dict):
        return False
    if isinstance(data.get("input"), list | str) and "messages" not in data:
        return True
    return data.get("object") == "response" and isinstance(data.get("output"), list)


def score(path: Path, head: bytes) -> float:
    """0.65 for Responses input items or a request/response payload; else 0.

    Above openai-chat's 0.5 for a shape another chat API claims.

    >>> score(Path("r.json"), b'[{"type": "function_call", "call_id": "c", "name": "ls"}]')
    0.65
    """
    if path.is_dir():
        return 0.0
    text = head_text(head)
    ours = False
    if text.startswith("["):
        ours = _ITEM_TYPE.search(text) is not None and '"parts"' not in text[:2000]
    elif text.startswith("{") and not _is_jsonl(text):
        ours = _looks_like_payload(text)
    return 0.65 if ours else 0.0


FORMAT = Format(
    name=NAME,
    description="OpenAI Responses input items, request bodies and request/response payloads",
    score=score,
    load=load,
)
