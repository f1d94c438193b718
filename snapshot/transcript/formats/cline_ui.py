"""A Cline / Roo Code ``ui_messages.json`` on its own (no ``api_conversation_history.json``) → lossy.

``ui_messages.json`` is the extension's UI log of a task: a list of
``{ts, type: "say"|"ask", say|ask: KIND, text, images?, partial?}``. Without
the API history beside it (:mod:`snapshot.transcript.formats.cline_roo`
reads the two together) it is all that is left of the task, and it is not
what the model saw. What can be rebuilt:

- ``say: api_req_started``: its ``text`` is JSON whose ``request`` is the
  user turn the extension sent (the task in ``<task>``, or a tool's result
  with the environment details): the result of the tool call before it when
  there is one, else a user message;
- ``say: text`` / ``completion_result``, ``ask: followup`` /
  ``completion_result``: the assistant's text (the ``say: text`` entries
  before the first request are the task, which that request already holds);
  ``say: reasoning``: its thinking;
- ``ask`` or ``say: tool`` (a JSON description ``{tool, path, ...}``), ``ask:
  command`` and ``ask: use_mcp_server``: a tool call, id ``ui-<ts>``,
  answered by the next request.

What is missing, and said in every import's warnings and ``meta["missing"]``:
the system prompt, the assistant's tool calls as the model wrote them (the
UI's descriptions stand in), the exact tool arguments, and any request whose
entry was not logged. Checkpoints, progress lists, errors and the like are
counted and skipped.

>>> from snapshot.transcript.formats import cline_ui
>>> cline_ui.score(Path("ui.json"), b'[{"ts": 1, "type": "say", "say": "text", "text": "hi"}]')
0.8
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.files import check_inside
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    Warnings,
    add_pairing_warnings,
    head_text,
    image_from_data_url,
    matches_select,
)
from snapshot.transcript.formats._json_stream import JSONDocument
from snapshot.transcript.formats.cline_roo import API_FILE, UI_FILE
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

NAME = "cline-ui-messages"

MISSING = (
    "the system prompt",
    "the assistant's tool calls as the model wrote them (rebuilt from the UI's descriptions)",
    "the exact tool arguments",
    "requests the UI did not log",
)

_ASSISTANT_TEXT = {("say", "text"), ("say", "completion_result"), ("ask", "completion_result")}
_TOOL = {("say", "tool"), ("ask", "tool"), ("ask", "command"), ("ask", "use_mcp_server")}


def _json(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


class _Builder:
    """UI entries in order → messages: one open assistant message, calls answered by requests."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.messages: list[Message] = []
        self.draft: list[Block] = []
        self.task_images: list[ImageBlock] = []
        self.unanswered: ToolCall | None = None
        self.skipped: Counter[str] = Counter()
        self.requests = 0
        self.last_call_text: str | None = None

    def _add(self, role: Role, blocks: list[Block], ts: Any) -> None:
        parent = self.messages[-1].id if self.messages else None
        mid = f"ui{len(self.messages)}"
        self.messages.append(Message(mid, parent, role, tuple(blocks), {"ts": ts}))

    def flush(self, ts: Any) -> None:
        if self.draft:
            self._add("assistant", self.draft, ts)
            self.draft = []

    def images(self, entry: Mapping[str, Any]) -> list[ImageBlock]:
        out = []
        for url in entry.get("images") or []:
            try:
                out.append(image_from_data_url(str(url), f"{self.path} ui image"))
            except TranscriptError:
                self.skipped["image that is not a data URL"] += 1
        return out

    def request(self, entry: Mapping[str, Any]) -> None:
        text = _json(entry.get("text")).get("request")
        if not isinstance(text, str) or not text.strip():
            self.skipped["api_req_started without a request"] += 1
            return
        self.requests += 1
        self.last_call_text = None  # a repeat after a request is a new call
        self.flush(entry.get("ts"))
        if self.unanswered is not None:
            result = ToolResult(self.unanswered.id, (TextBlock(text),))
            self._add("tool", [result], entry.get("ts"))
            self.unanswered = None
        else:
            self._add("user", [TextBlock(text), *self.task_images], entry.get("ts"))
        self.task_images = []

    def call(self, kind: str, entry: Mapping[str, Any]) -> None:
        text = str(entry.get("text") or "")
        if text == self.last_call_text:
            self.skipped[f"{kind} repeated (the UI's ask and say of one call)"] += 1
            return
        self.last_call_text = text
        described = _json(text)
        if kind == "command":
            name, args = "execute_command", {"command": text}
        elif kind == "use_mcp_server":
            name = str(described.get("toolName") or "use_mcp_server")
            args = {k: v for k, v in described.items() if k != "toolName"}
        else:
            name = str(described.get("tool") or "tool")
            args = {k: v for k, v in described.items() if k != "tool"}
        call = ToolCall(f"ui-{entry.get('ts')}", name, args)
        self.draft.append(call)
        self.unanswered = call

    def entry(self, entry: Mapping[str, Any]) -> None:
        side = str(entry.get("type") or "")
        kind = str(entry.get(side) or "") if side in ("say", "ask") else ""
        text = str(entry.get("text") or "")
        if (side, kind) == ("say", "api_req_started"):
            self.request(entry)
        elif (side, kind) in _ASSISTANT_TEXT or (side, kind) == ("ask", "followup"):
            if not text.strip():
                return  # a streaming placeholder
            if self.requests == 0 and (side, kind) == ("say", "text"):
                self.task_images.extend(self.images(entry))  # the task: its request holds it
                return
            if kind == "followup":
                text = str(_json(text).get("question") or text)
            self.draft.append(TextBlock(text))
        elif (side, kind) == ("say", "reasoning"):
            if text.strip():
                self.draft.append(ThinkingBlock(text))
        elif (side, kind) in _TOOL:
            self.call(kind, entry)
        elif (side, kind) == ("say", "user_feedback"):
            self.task_images.extend(self.images(entry))  # the next request holds the words
            self.skipped["user_feedback (in the next request)"] += 1
        else:
            self.skipped[f"{side}:{kind}" if kind else f"entry {side!r}"] += 1


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    """The task of a lone ``ui_messages.json`` as one conversation, lossy (see the module docstring).

    Raises
    ------
    TranscriptError
        Not a list of UI messages, or one with nothing to rebuild.
    """
    if path.is_dir():
        raise TranscriptError(f"{path}: is a folder; give the task's {UI_FILE}")
    real = check_inside(path, path.parent, limit=None)  # the one guarded reader
    warnings = Warnings()
    doc = JSONDocument(real, None, warnings)
    if doc.shape != "array":
        doc.close()
        raise TranscriptError(f"{path}: not a list of Cline / Roo Code UI messages")
    b = _Builder(path)
    for entry in doc.items():
        if isinstance(entry, Mapping):
            b.entry(entry)
        else:
            b.skipped["entry that is not an object"] += 1
    b.flush(None)
    if not b.messages:
        raise TranscriptError(f"{path}: no request, text or tool call to rebuild a task from")
    warnings.add(
        f"{path}: a UI log without its {API_FILE}; rebuilt lossily: missing " + "; ".join(MISSING)
    )
    warnings.extend_counts(f"{path}: skipped UI entries", b.skipped)
    add_pairing_warnings(str(path), b.messages, warnings)
    conv_id = path.parent.name if path.name == UI_FILE else path.stem
    if not matches_select({"id": conv_id, "task_id": conv_id}, options.select):
        return []
    return [
        Conversation(
            id=conv_id,
            messages=tuple(b.messages),
            tip=b.messages[-1].id,
            format=NAME,
            source=str(path),
            meta={"lossy": True, "missing": list(MISSING), "api_requests": b.requests},
            warnings=warnings.tuple(),
        )
    ]


def _first_entries(text: str, limit: int = 3) -> list[dict[str, Any]]:
    """The first complete objects of a JSON list, however it is laid out (for detection)."""
    decoder = json.JSONDecoder()
    out: list[dict[str, Any]] = []
    at = 1
    while len(out) < limit:
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        try:
            value, at = decoder.raw_decode(text, at)
        except (ValueError, RecursionError):
            break  # cut by the sniff window, or not a list of objects
        if not isinstance(value, dict):
            break
        out.append(value)
    return out


def score(path: Path, head: bytes) -> float:
    """0.95 for a ``ui_messages.json`` with no API history beside it; 0.8 for UI entries
    under another name; 0 when the API history is there (the task folder's importer reads both)."""
    if path.is_dir() or not head_text(head).startswith("["):
        return 0.0
    if path.with_name(API_FILE).is_file():
        return 0.0
    records = _first_entries(head_text(head))
    if not records:
        return 0.95 if path.name == UI_FILE else 0.0
    looks = all("ts" in r and r.get("type") in ("say", "ask") for r in records)
    if not looks:
        return 0.0
    return 0.95 if path.name == UI_FILE else 0.8


FORMAT = Format(
    name=NAME,
    description=f"Cline / Roo Code {UI_FILE} alone (lossy: the UI log, not what the model saw)",
    score=score,
    load=load,
)
