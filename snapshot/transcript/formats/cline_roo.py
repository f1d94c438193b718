"""Cline and Roo Code task folders (``tasks/<id>/api_conversation_history.json``) → the neutral model.

``api_conversation_history.json`` is the list of Anthropic-style messages the
extension sent: ``{role, content, ts?}`` with content a string or blocks. The
tool protocol of every recorded sample is XML in the text, not Anthropic
``tool_use`` blocks:

- an assistant text holds ``<read_file><path>x</path></read_file>``: the tag
  is a tool name, its children the parameters. The text before it stays text
  (``<thinking>…</thinking>`` there becomes a thinking block), the tool becomes
  a :class:`ToolCall`, anything after it stays text. Only the first tool of a
  message counts, as in Cline, which runs one tool per message;
- the next ``user`` message starts with a text block ``[read_file for 'x']
  Result:``; that block's remainder and the blocks after it, up to the
  ``<environment_details>`` block the extension appends to every turn, are the
  call's :class:`ToolResult` (images included). ``The user denied this
  operation`` and ``The tool execution failed`` results are errors. There are
  no ids, so the result answers the call of the assistant message before it,
  and the call gets the id ``<message id>-<tool name>``. The user message
  carries ``meta["result_of"]`` = the tool its header names, linked or not (a
  result whose call a condensation removed stays text).

Roo Code's newer native protocol (``tool_use`` / ``tool_result`` blocks linked
by id) and ``thinking`` / ``reasoning`` blocks are read as they are. A Roo
context condensation is an assistant message with ``isSummary: true``; it is
kept, marked ``condense_summary`` (not ``compact_summary``: the messages it
replaced are no longer in the file, so it cannot stand as a real summary of
the path before it).

``ui_messages.json`` beside it is the UI's log of the same task; it adds
nothing the model saw, so only its totals (requests, cost, condensations) go
into ``meta``. ``task_metadata.json`` is not read.

>>> from snapshot.transcript.formats import cline_roo
>>> call, rest = cline_roo.parse_tool_use("Let me look.\\n<read_file>\\n<path>a.py</path>\\n</read_file>")
>>> call
('read_file', {'path': 'a.py'}, 'Let me look.\\n', '')
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.files import check_inside
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    Warnings,
    add_pairing_warnings,
    checked_sibling,
    head_text,
    image_from_bytes,
    matches_select,
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

NAME = "cline-roo-task"

API_FILE = "api_conversation_history.json"
UI_FILE = "ui_messages.json"

# The tools of Cline's and Roo Code's XML protocols (their system prompts).
TOOL_NAMES = frozenset(
    {
        "execute_command",
        "read_file",
        "write_to_file",
        "replace_in_file",
        "apply_diff",
        "insert_content",
        "search_and_replace",
        "search_files",
        "list_files",
        "list_code_definition_names",
        "codebase_search",
        "browser_action",
        "use_mcp_tool",
        "access_mcp_resource",
        "load_mcp_documentation",
        "ask_followup_question",
        "attempt_completion",
        "plan_mode_respond",
        "act_mode_respond",
        "new_task",
        "switch_mode",
        "fetch_instructions",
        "update_todo_list",
        "run_slash_command",
        "generate_image",
        "web_fetch",
        "web_search",
        "condense",
        "summarize_task",
        "report_bug",
        "new_rule",
        "focus_chain",
    }
)
# Parameters whose value may itself hold tags: they end at the last closing tag.
_RAW_PARAMS = {"content", "diff", "result", "todos", "arguments", "args"}

_TOOL_OPEN = re.compile(r"<(" + "|".join(sorted(TOOL_NAMES)) + r")>")
_PARAM_OPEN = re.compile(r"<([a-z_]+)>")
_THINKING = re.compile(r"<thinking>(.*?)(?:</thinking>|$)", re.DOTALL)
_RESULT_HEADER = re.compile(r"^\[([a-z_]+)(?: for (.*?))?\] Result:", re.DOTALL)
_ERROR_STARTS = ("The user denied this operation", "The tool execution failed")


def parse_tool_use(text: str) -> tuple[tuple[str, dict[str, str], str, str] | None, str]:
    """The first XML tool use in an assistant text.

    Returns ``((name, params, text before, text after), "")``, or ``(None,
    text)`` when the text uses no tool. A tool whose closing tag is missing
    (the reply was cut off) runs to the end of the text.
    """
    m = _TOOL_OPEN.search(text)
    if m is None:
        return None, text
    name = m.group(1)
    close = f"</{name}>"
    end = text.find(close, m.end())
    body_end = len(text) if end < 0 else end
    after = "" if end < 0 else text[end + len(close) :]
    body = text[m.end() : body_end]
    params: dict[str, str] = {}
    pos = 0
    while (p := _PARAM_OPEN.search(body, pos)) is not None:
        pname = p.group(1)
        pclose = f"</{pname}>"
        stop = body.rfind(pclose) if pname in _RAW_PARAMS else body.find(pclose, p.end())
        if stop < p.end():
            params[pname] = body[p.end() :].strip("\n")
            break
        params[pname] = body[p.end() : stop].strip("\n")
        pos = stop + len(pclose)
    return (name, params, text[: m.start()], after), ""


def _text_blocks(text: str) -> list[Block]:
    """Text with ``<thinking>`` sections as thinking blocks."""
    out: list[Block] = []
    pos = 0
    for m in _THINKING.finditer(text):
        if text[pos : m.start()].strip():
            out.append(TextBlock(text[pos : m.start()]))
        if m.group(1).strip():
            out.append(ThinkingBlock(m.group(1).strip("\n")))
        pos = m.end()
    if text[pos:].strip():
        out.append(TextBlock(text[pos:]))
    return out


def _image(block: Mapping[str, Any], where: str, warnings: Warnings) -> Block:
    source = block.get("source")
    if isinstance(source, Mapping) and source.get("type") == "base64":
        try:
            return image_from_bytes(base64.b64decode(str(source.get("data") or "")), "inline")
        except (binascii.Error, ValueError, TranscriptError) as exc:
            warnings.add(f"{where}: image not kept: {exc}", "image")
            return TextBlock(f"[image not kept: {exc}]")
    warnings.add(f"{where}: image without base64 data kept as a note", "image")
    return TextBlock("[image]")


def _content(content: Any) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, Mapping)]
    return []


class _Reader:
    def __init__(self, path: Path, warnings: Warnings) -> None:
        self.path = path
        self.warnings = warnings
        # A long task keeps its messages on disk (spill.py).
        self.messages = spill.message_sink(path.stat().st_size >= spill.SPILL_BYTES)
        self.last: str | None = None
        self.open_call: ToolCall | None = None  # the XML call waiting for its result
        self.skipped: Counter[str] = Counter()

    def add(self, mid: str, role: Role, blocks: list[Block], meta: dict[str, Any]) -> None:
        self.messages.append(Message(mid, self.last, role, tuple(blocks), meta))
        self.last = mid

    def assistant(self, mid: str, rec: Mapping[str, Any], meta: dict[str, Any]) -> None:
        blocks: list[Block] = []
        where = f"{self.path}: message {mid}"
        self.open_call = None
        for b in _content(rec.get("content")):
            kind = b.get("type")
            if kind == "text":
                text = str(b.get("text") or "")
                use, plain = (None, text) if self.open_call else parse_tool_use(text)
                if use is None:
                    blocks.extend(_text_blocks(plain))
                    continue
                name, params, before, after = use
                blocks.extend(_text_blocks(before))
                call = ToolCall(f"{mid}-{name}", name, params)
                blocks.append(call)
                self.open_call = call
                if after.strip():
                    blocks.append(TextBlock(after))
            elif kind in ("thinking", "reasoning"):
                text = str(b.get("thinking") or b.get("text") or "")
                if text:
                    blocks.append(ThinkingBlock(text, b.get("signature")))
            elif kind == "redacted_thinking":
                self.skipped["redacted_thinking block (encrypted)"] += 1
            elif kind == "tool_use":
                inp = b.get("input")
                blocks.append(
                    ToolCall(
                        str(b.get("id") or f"{mid}-tool"),
                        str(b.get("name") or "unknown"),
                        dict(inp) if isinstance(inp, Mapping) else {"input": inp},
                    )
                )
            elif kind == "image":
                blocks.append(_image(b, where, self.warnings))
            else:
                self.skipped[f"assistant block {kind!r}"] += 1
        if rec.get("isSummary"):
            # Not "compact_summary": the history it replaced is gone from the
            # file, so it cannot stand as the summary of the path before it.
            meta = {**meta, "condense_summary": True}
        self.add(mid, "assistant", blocks, meta)

    def user(self, mid: str, rec: Mapping[str, Any], meta: dict[str, Any]) -> None:
        where = f"{self.path}: message {mid}"
        parts = _content(rec.get("content"))
        blocks: list[Block] = []
        i = 0
        first = parts[0] if parts else {}
        header = _RESULT_HEADER.match(str(first.get("text") or "")) if first else None
        if header is not None:
            meta = {**meta, "result_of": header.group(1)}
            call = self.open_call
            if call is None:
                self.warnings.add(
                    f"{where}: a {header.group(1)} result with no tool call before it; "
                    "kept as text",
                    "orphan",
                )
            else:
                if call.name != header.group(1):
                    self.warnings.add(
                        f"{where}: result names {header.group(1)!r}, the call before it is "
                        f"{call.name!r}; linked by position",
                        "mismatch",
                    )
                content: list[TextBlock | ImageBlock] = []
                rest = str(first.get("text"))[header.end() :].strip("\n")
                if rest:
                    content.append(TextBlock(rest))
                i = 1
                while i < len(parts):
                    text = str(parts[i].get("text") or "")
                    if parts[i].get("type") == "text" and text.lstrip().startswith(
                        "<environment_details>"
                    ):
                        break
                    block = self._user_block(parts[i], where)
                    if isinstance(block, TextBlock | ImageBlock):
                        content.append(block)
                    i += 1
                failed = any(
                    isinstance(c, TextBlock) and c.text.lstrip().startswith(_ERROR_STARTS)
                    for c in content
                )
                blocks.append(ToolResult(call.id, tuple(content), failed))
                self.open_call = None
        for part in parts[i:]:
            block = self._user_block(part, where)
            if block is not None:
                blocks.append(block)
        self.add(mid, "user", blocks, meta)

    def _user_block(self, part: Mapping[str, Any], where: str) -> Block | None:
        kind = part.get("type")
        if kind == "text":
            return TextBlock(str(part.get("text") or ""))
        if kind == "image":
            return _image(part, where, self.warnings)
        if kind == "tool_result":
            raw = part.get("content")
            content: list[TextBlock | ImageBlock] = []
            for c in _content(raw):
                block = self._user_block(c, where)
                if isinstance(block, TextBlock | ImageBlock):
                    content.append(block)
            return ToolResult(
                str(part.get("tool_use_id") or ""), tuple(content), bool(part.get("is_error"))
            )
        self.skipped[f"user block {kind!r}"] += 1
        return None


def _ui_totals(path: Path, warnings: Warnings) -> dict[str, Any]:
    """Totals from ``ui_messages.json``: requests, cost, condensations."""
    kinds: Counter[str] = Counter()
    cost = 0.0
    n = 0
    try:
        ui = JSONDocument(path, None, warnings)
        if ui.shape != "array":
            warnings.add(f"{path}: not a list of UI messages; not read")
            return {}
        for m in ui.items():
            n += 1
            if not isinstance(m, Mapping):
                continue
            kind = str(m.get("say") or m.get("ask") or m.get("type"))
            kinds[kind] += 1
            if kind == "api_req_started":
                try:
                    info = json.loads(str(m.get("text") or "{}"))
                except (ValueError, RecursionError):
                    continue
                if isinstance(info, Mapping) and isinstance(info.get("cost"), int | float):
                    cost += float(info["cost"])
    except TranscriptError as exc:
        warnings.add(f"{path}: not read ({exc}); its totals are missing")
        return {}
    return {
        "ui_messages": n,
        "api_requests": kinds.get("api_req_started", 0),
        "condensations": kinds.get("condense_context", 0),
        "cost_usd": round(cost, 6),
    }


_MARKERS = ("<task>", "<environment_details>", "] Result:", "<user_message>")


def _has_markers(rec: Mapping[str, Any]) -> bool:
    """Does the message's user text carry what only Cline and Roo Code write?"""
    if rec.get("role") == "user":
        for b in _content(rec.get("content")):
            text = str(b.get("text") or "")
            if any(marker in text for marker in _MARKERS):
                return True
    return False


def _api_file(path: Path) -> Path:
    if path.is_dir():
        return path / API_FILE
    if path.name == UI_FILE:
        return path.with_name(API_FILE)
    return path


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    """Every conversation in ``path`` that ``options.select`` keeps.

    Parameters
    ----------
    path
        A task folder, its ``api_conversation_history.json`` or its ``ui_messages.json``.
    options
        ``select`` matches ``id``/``task_id``.

    Returns
    -------
    list[Conversation]
        One conversation. Problems that leave the rest usable are in its ``warnings``.

    Raises
    ------
    TranscriptError
        When the path cannot be read or holds nothing of this format.
    """
    api = _api_file(path)
    if api != path:  # a file the folder holds, not the one given: it must stay inside
        with contextlib.suppress(FileNotFoundError):  # reported as missing below
            check_inside(api, api.parent, None)
    if not api.is_file():
        raise TranscriptError(
            f"{path}: no {API_FILE} here; give a Cline or Roo Code task folder "
            f"(tasks/<id>/) or its {API_FILE}"
        )
    warnings = Warnings()
    # One document, the message list: read one message at a time.
    doc = JSONDocument(api, None, warnings)
    if doc.shape != "array":
        raise TranscriptError(
            f"{api}: not a list of messages; is this a Cline / Roo Code {API_FILE}? "
            "(force another format with --format)"
        )
    r = _Reader(api, warnings)
    marked = False
    for n, rec in enumerate(doc.items()):
        if not isinstance(rec, Mapping):
            r.skipped["message that is not an object"] += 1
            continue
        marked = marked or _has_markers(rec)
        mid = f"m{n}"
        meta: dict[str, Any] = {"ts": rec["ts"]} if "ts" in rec else {}
        role = rec.get("role")
        if role == "assistant":
            r.assistant(mid, rec, meta)
        elif role == "user":
            r.user(mid, rec, meta)
        else:
            r.skipped[f"role {role!r}"] += 1
    if not marked:
        raise TranscriptError(
            f"{api}: a message list without Cline / Roo Code markers (<task>, "
            "<environment_details>, '[tool] Result:'); force another format with --format"
        )
    warnings.extend_counts(f"{api}: skipped", r.skipped)
    add_pairing_warnings(str(api), r.messages, warnings)
    meta_out: dict[str, Any] = {}
    ui = checked_sibling(api.with_name(UI_FILE), api.parent, warnings)
    if ui is not None:
        meta_out.update(_ui_totals(ui, warnings))
    conv_id = api.parent.name if api.name == API_FILE else api.stem
    conv = Conversation(
        id=conv_id,
        messages=spill.frozen(r.messages),
        tip=r.last,
        format=NAME,
        source=str(api),
        meta=meta_out,
        warnings=warnings.tuple(),
    )
    if not matches_select({"id": conv_id, "task_id": conv_id}, options.select):
        return []
    return [conv]


def score(path: Path, head: bytes) -> float:
    """How sure ``path`` is a Cline / Roo Code task (0.0 to 1.0).

    The task folder and its file names are the extension's own; a message
    list whose user text carries ``] Result:`` headers or
    ``<environment_details>`` is nearly as sure.

    Parameters
    ----------
    path
        The file or folder being detected.
    head
        Up to ``SNIFF_BYTES`` of the file (empty for a folder).

    Returns
    -------
    float
        0.0 when it is not this format; 0.5 or more (what detection and a
        forced walk accept) when it is, 1.0 when the format's own signature is there.
    """
    if path.is_dir():
        return 1.0 if (path / API_FILE).is_file() else 0.0
    text = head_text(head)
    if not text.startswith("["):
        return 0.0
    if path.name == API_FILE:
        return 1.0
    if path.name == UI_FILE and path.with_name(API_FILE).is_file():
        return 0.9
    if '"role"' in text and ("] Result:" in text or "<environment_details>" in text):
        return 0.8
    return 0.0


def ui_record(path: Path, rec: Any) -> str | None:
    """A label for a record of ``ui_messages.json``: the UI's log, nothing the model saw
    (its reasoning copies and progress lines are measured apart)."""
    return "ui_messages.json (the UI's log)" if path.name == UI_FILE else None


FORMAT = Format(
    name=NAME,
    description="Cline / Roo Code task folder (XML tool calls answered by '[tool] Result:' text)",
    score=score,
    load=load,
    ui_records=ui_record,
)
