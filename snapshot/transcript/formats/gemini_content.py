"""Gemini API ``Content[]`` histories and ``generateContent`` request bodies.

Accepts a JSON list of contents (``{"role": "user" | "model", "parts": [...]}``,
as Gemini CLI's ``/chat save`` and trajectory dumps write them) or a request
body (``{"contents": [...], "systemInstruction": ..., "tools": ...}``, as
``snapshot export --to gemini`` writes it).

Parts: ``text`` (``thought: true`` → thinking), ``functionCall``,
``functionResponse``, ``inlineData`` images. Pairing: a ``functionResponse``
answers a call of the model turn before it, by ``id`` when both carry one,
else by order and name (newer Gemini CLI histories give only the responses an
id; the call then takes its response's id). A ``thoughtSignature`` on a call
is kept in the message's ``meta["thought_signatures"]`` (call id → signature),
so a Gemini export sends it back unchanged.

>>> import json, tempfile, pathlib
>>> rows = [{"role": "user", "parts": [{"text": "list files"}]},
...         {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}},
...                                      "thoughtSignature": "c2ln"}]},
...         {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "ls",
...                                     "response": {"output": "a.txt"}}}]}]
>>> p = pathlib.Path(tempfile.mkdtemp()) / "history.json"
>>> _ = p.write_text(json.dumps(rows))
>>> conv = load(p, ImportOptions())[0]
>>> [(m.role, [type(b).__name__ for b in m.blocks]) for m in conv.path()]
[('user', ['TextBlock']), ('assistant', ['ToolCall']), ('user', ['ToolResult'])]
>>> conv.path()[1].meta["thought_signatures"]
{'c1': 'c2ln'}
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    head_text,
    image_from_bytes,
    pairing_warnings,
    put_first,
    skipped_warning,
)
from snapshot.transcript.formats._json_stream import JSONDocument
from snapshot.transcript.model import (
    Block,
    Conversation,
    Message,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)

NAME = "gemini-content"
THOUGHT_SIGNATURES = "thought_signatures"  # the exporter's meta key for them


@dataclass
class _Draft:
    role: Role
    blocks: list[Block] = field(default_factory=list)
    signatures: dict[str, str] = field(default_factory=dict)
    index: int = 0


def _response_text(response: Any) -> tuple[str, bool]:
    """The text of a ``functionResponse.response`` and whether it reports an error."""
    if isinstance(response, Mapping):
        if set(response) == {"output"} and isinstance(response["output"], str):
            return response["output"], False
        if set(response) == {"error"}:
            err = response["error"]
            return (err if isinstance(err, str) else json.dumps(err, ensure_ascii=False)), True
    if isinstance(response, str):
        return response, False
    return json.dumps(response, ensure_ascii=False, sort_keys=True), False


class _Reader:
    """Contents to messages, one at a time: a model turn and the turns after it stay
    drafts only until the next model turn (the responses they hold answer its calls)."""

    def __init__(self, where: str, spilled: bool) -> None:
        self.where = where
        self.pending: list[_Draft] = []
        # A long history keeps its messages on disk (spill.py).
        self.messages = spill.message_sink(spilled)
        self.last: str | None = None
        self.warns: list[str] = []
        self.skipped: dict[str, int] = {}
        # Unanswered calls of the last model turn: (its draft, block index, the call).
        self.open: list[tuple[_Draft, int, ToolCall]] = []

    def skip(self, what: str) -> None:
        self.skipped[what] = self.skipped.get(what, 0) + 1

    def content(self, i: int, content: Any) -> None:
        if not isinstance(content, Mapping):
            self.skip("non-object content")
            return
        role = content.get("role", "user")
        parts = content.get("parts")
        if role not in ("user", "model", "function", "tool") or not isinstance(parts, list):
            self.skip(f"content with role {role!r}" if isinstance(parts, list) else "no parts")
            return
        draft = _Draft("assistant" if role == "model" else "user", index=i)
        if draft.role == "assistant":
            self.flush()  # no later response can answer the calls before this turn
            self.open = []
        for j, part in enumerate(parts):
            if isinstance(part, Mapping):
                self.part(draft, f"{self.where}: contents[{i}].parts[{j}]", i, j, part)
            else:
                self.skip("non-object part")
        if draft.blocks:
            self.pending.append(draft)

    def flush(self) -> None:
        for d in self.pending:
            mid = f"c{d.index}"
            meta: dict[str, Any] = {THOUGHT_SIGNATURES: d.signatures} if d.signatures else {}
            self.messages.append(Message(mid, self.last, d.role, tuple(d.blocks), meta))
            self.last = mid
        self.pending = []

    def after(self, system: Sequence[str]) -> Sequence[Message]:
        """The messages, after one system message per text of ``system``.

        The system instruction may come after the contents in the file (the
        package's own ``--to gemini`` bodies put it there), so the messages are
        copied one at a time behind it.
        """
        self.flush()
        head = _system_messages(system)
        self.last = self.last or (head[-1].id if head else None)
        return put_first(head, spill.frozen(self.messages))

    def part(self, draft: _Draft, where: str, i: int, j: int, part: Mapping[str, Any]) -> None:
        if "functionCall" in part and isinstance(part["functionCall"], Mapping):
            fc = part["functionCall"]
            cid = fc.get("id") if isinstance(fc.get("id"), str) and fc.get("id") else None
            raw_args = fc.get("args")
            args: dict[str, Any] = dict(raw_args) if isinstance(raw_args, Mapping) else {}
            call = ToolCall(cid or f"gemini-call-{i}-{j}", str(fc.get("name") or "tool"), args)
            draft.blocks.append(call)
            if isinstance(part.get("thoughtSignature"), str):
                draft.signatures[call.id] = part["thoughtSignature"]
            self.open.append((draft, len(draft.blocks) - 1, call))
        elif "functionResponse" in part and isinstance(part["functionResponse"], Mapping):
            fr = part["functionResponse"]
            text, is_error = _response_text(fr.get("response"))
            call_id = self.answer(fr.get("id"), fr.get("name"))
            if call_id is None:
                call_id = str(fr.get("id") or f"gemini-response-{i}-{j}")
                self.warns.append(f"{where}: function response {fr.get('name')!r} answers no call")
            draft.blocks.append(ToolResult(call_id, (TextBlock(text),), is_error))
        elif part.get("thought") and isinstance(part.get("text"), str):
            draft.blocks.append(ThinkingBlock(part["text"]))
        elif isinstance(part.get("text"), str):
            if part["text"]:
                draft.blocks.append(TextBlock(part["text"]))
        elif isinstance(part.get("inlineData"), Mapping):
            data = part["inlineData"].get("data")
            try:
                raw = base64.b64decode(str(data or ""), validate=True)
                draft.blocks.append(image_from_bytes(raw, f"contents[{i}] inline"))
            except (binascii.Error, ValueError, TranscriptError) as exc:
                self.warns.append(f"{where}: inline data not kept ({exc})")
                draft.blocks.append(TextBlock("[inline data not kept]"))
        else:
            self.skip("part " + "/".join(sorted(k for k in part if k != "thoughtSignature")))

    def answer(self, rid: Any, name: Any) -> str | None:
        """Pair a response with an open call: same id, else first of the same name, else first."""
        if not self.open:
            return None
        pick = next((k for k, (_, _, c) in enumerate(self.open) if c.id == rid), None)
        if pick is None:
            pick = next((k for k, (_, _, c) in enumerate(self.open) if c.name == name), 0)
        draft, b, call = self.open.pop(pick)
        if isinstance(rid, str) and rid and call.id.startswith("gemini-call-"):
            # The call had no id of its own: it takes its response's.
            draft.blocks[b] = ToolCall(rid, call.name, call.input)
            if call.id in draft.signatures:
                draft.signatures[rid] = draft.signatures.pop(call.id)
            return rid
        return call.id


def _system_messages(system: Sequence[str]) -> list[Message]:
    return [
        Message(f"system-{n}", f"system-{n - 1}" if n else None, "system", (TextBlock(t),))
        for n, t in enumerate(system)
    ]


def _system_of(data: Mapping[str, Any]) -> list[str]:
    return _system_texts(data.get("systemInstruction") or data.get("system_instruction"))


def _conversation(doc: JSONDocument, path: Path) -> Conversation:
    """The neutral conversation of a ``Content[]`` list, or of a body's ``contents``
    (its system texts before it, one message each), read one content at a time."""
    source = str(path)
    reader = _Reader(source, path.stat().st_size >= spill.SPILL_BYTES)
    # A system instruction before the contents goes first now, not copied in front later
    # (decided only when no later key could change which one is read).
    early = doc.fields
    known = bool(early.get("systemInstruction")) or {
        "systemInstruction",
        "system_instruction",
    } <= set(early)
    if known:
        for m in _system_messages(_system_of(early)):
            reader.messages.append(m)
            reader.last = m.id
    for i, content in enumerate(doc.items()):
        reader.content(i, content)
    meta: dict[str, Any] = {}
    system: list[str] = []
    if doc.shape == "object":
        data = doc.fields
        system = [] if known else _system_of(data)
        tools = _tools(data.get("tools"))
        if tools:
            meta["tools"] = tools
        if isinstance(data.get("model"), str):
            meta["model"] = data["model"]
    messages = reader.after(system)
    warns = list(reader.warns)
    if reader.skipped:
        warns.append(skipped_warning(source, "a Gemini content part", reader.skipped))
    warns += pairing_warnings(messages, source)
    if not messages:
        raise TranscriptError(f"{source}: no Gemini contents with parts found")
    return Conversation(
        id=path.stem,
        messages=messages,
        tip=reader.last,
        format=NAME,
        source=source,
        meta=meta,
        warnings=tuple(warns),
    )


def _tools(tools: Any) -> list[dict[str, Any]]:
    """Function declarations as ``{name, description, parameters}`` (the exporters' shape)."""
    out: list[dict[str, Any]] = []
    for tool in tools if isinstance(tools, list) else []:
        for d in (tool.get("functionDeclarations") or []) if isinstance(tool, Mapping) else []:
            if isinstance(d, Mapping) and isinstance(d.get("name"), str):
                schema = d.get("parameters") or d.get("parametersJsonSchema")
                entry = {"name": d["name"], "description": str(d.get("description") or "")}
                if isinstance(schema, Mapping):
                    entry["parameters"] = dict(schema)
                out.append(entry)
    return out


def _system_texts(instruction: Any) -> list[str]:
    if isinstance(instruction, str):
        return [instruction]
    if isinstance(instruction, Mapping) and isinstance(instruction.get("parts"), list):
        texts = [p.get("text") for p in instruction["parts"] if isinstance(p, Mapping)]
        return [t for t in texts if isinstance(t, str) and t]
    return []


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: a folder; gemini-content imports one JSON file")
    if options.select:
        raise TranscriptError(f"{path}: holds one conversation; --select is for files holding many")
    doc = JSONDocument(path, "contents")
    if not doc.found:
        raise TranscriptError(f"{path}: expected a list of Gemini contents or a 'contents' list")
    return [_conversation(doc, path)]


_PARTS = re.compile(r'"parts"\s*:\s*\[')
_GEMINI_ROLE = re.compile(r'"role"\s*:\s*"(user|model)"')
# A body's contents list, wherever it is (systemInstruction and tools may come first).
_CONTENTS = re.compile(r'"contents"\s*:\s*\[')


def score(path: Path, head: bytes) -> float:
    """0.65 for a list (or ``contents`` list) of role objects holding ``parts``; else 0.

    Above openai-chat's 0.5 for a shape another chat API claims, below
    anthropic-messages' 0.7 (whose markers are its own).

    >>> score(Path("h.json"), b'[{"role": "user", "parts": [{"text": "hi"}]}]')
    0.65
    """
    if path.is_dir():
        return 0.0
    text = head_text(head)
    if not (text.startswith("[") or (text.startswith("{") and _CONTENTS.search(text))):
        return 0.0
    ours = _PARTS.search(text) is not None and _GEMINI_ROLE.search(text) is not None
    return 0.65 if ours else 0.0


FORMAT = Format(
    name=NAME,
    description="Gemini API Content[] history or generateContent body (parts, functionCall)",
    score=score,
    load=load,
)
