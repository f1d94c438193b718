"""Codex CLI rollout JSONL (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) → the neutral model.

Each line is ``{"timestamp", "type", "payload"}`` with ``type`` one of:

- ``session_meta``: the session id, working directory, CLI version and the
  instructions (a string, ``null`` in 0.34, a ``base_instructions`` object
  from about 0.100); kept in the conversation's ``meta``, not as a message,
  because the rollout also records the instructions it injected as ``user`` or
  ``developer`` messages;
- ``response_item``: what the model was sent and said, one item per line:
  ``message`` (roles user, assistant, developer → system; text and
  ``input_image`` parts), ``reasoning`` (its plain ``summary`` and any
  ``content`` become thinking; ``encrypted_content`` is opaque and only
  counted), ``function_call`` {name, arguments (a JSON string), call_id} →
  ``function_call_output`` {call_id, output}, ``custom_tool_call`` {name,
  input (raw text such as an apply_patch body)} → ``custom_tool_call_output``
  with the same ``call_id``, ``local_shell_call`` → its output by ``call_id``;
- ``turn_context``: the model, effort and sandbox of the turn that follows
  (the model goes on each assistant message's ``meta``);
- ``compacted``: a context compaction, kept as Claude Code's are: a system
  message with ``meta["kind"] = "compact_boundary"``, then what the model
  continued from: the ``replacement_history`` items (the kept user and
  developer messages, each marked ``compact_kept``; the encrypted
  ``compaction`` item becomes a user message naming it, marked
  ``compact_summary``, with the item itself in ``meta["encrypted_compaction"]``
  for a Responses export), or, in rollouts without it, the ``message`` summary
  as a user message marked ``compact_summary``;
- ``event_msg``: the UI's event stream. It repeats what the ``response_item``
  lines hold (user_message, agent_message, agent_reasoning, token_count), so it
  is counted and skipped, except errors, which become warnings.

The oldest rollouts (before the ``payload`` wrapper) put the session fields on
the first line and bare response items on the rest; they are read too.

>>> from snapshot.transcript.formats import codex_rollout
>>> codex_rollout.score(Path("r.jsonl"), b'{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}\\n')
1.0
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    Warnings,
    add_pairing_warnings,
    head_records,
    image_or_note,
    image_url_of,
    iter_json_objects,
    matches_select,
    parse_arguments,
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

NAME = "codex-rollout-jsonl"

_RECORD_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
_CALL_ITEMS = {"function_call", "custom_tool_call", "local_shell_call"}
_OUTPUT_ITEMS = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
_ROLES: dict[str, Role] = {
    "user": "user",
    "assistant": "assistant",
    "developer": "system",
    "system": "system",
}
# Items that say nothing the model read: why each is skipped.
_SKIPPED_ITEMS = {
    "ghost_snapshot": "git snapshots for undo",
    "compaction": "encrypted compaction state",
    "compaction_summary": "encrypted compaction state",
}
# event_msg types worth a warning: they say a turn went wrong.
_ERROR_EVENTS = {"error", "stream_error", "turn_aborted"}


class _Builder:
    def __init__(self, path: Path, warnings: Warnings) -> None:
        self.path = path
        self.warnings = warnings
        # A large rollout keeps its messages on disk as they are read (spill.py).
        self.messages = spill.message_sink(path.stat().st_size >= spill.SPILL_BYTES)
        self.last: str | None = None  # the tip, without reading a spilled message back
        self.model: str | None = None

    def add(self, mid: str, role: Role, blocks: list[Block], meta: dict[str, Any]) -> None:
        if role == "assistant" and self.model:
            meta = {**meta, "model": self.model}
        self.messages.append(Message(mid, self.last, role, tuple(blocks), meta))
        self.last = mid

    def parts(self, content: Any, where: str) -> list[TextBlock | ImageBlock]:
        """Text and image parts of a message or tool output."""
        if content is None:
            return []
        if isinstance(content, str):
            return [TextBlock(content)] if content else []
        if not isinstance(content, list):
            return [TextBlock(json.dumps(content, ensure_ascii=False))]
        out: list[TextBlock | ImageBlock] = []
        for i, part in enumerate(content):
            if not isinstance(part, Mapping):
                out.append(TextBlock(str(part)))
                continue
            kind = part.get("type")
            if kind in ("input_text", "output_text", "text", "summary_text", "reasoning_text"):
                out.append(TextBlock(str(part.get("text") or "")))
            elif kind in ("input_image", "image_url", "image"):
                url = image_url_of(part)
                if not isinstance(url, str):
                    self.warnings.add(f"{where}: part {i}: image without a URL skipped", "image")
                    continue
                notes: list[str] = []
                block = image_or_note(url, "inline", f"{where}: part {i}", notes)
                for note in notes:
                    self.warnings.add(note, "image")
                if isinstance(block, TextBlock | ImageBlock):
                    out.append(block)
            elif kind == "refusal":
                out.append(TextBlock(str(part.get("refusal") or "")))
            else:
                self.warnings.add(
                    f"{where}: content part {kind!r} kept as JSON text", "content part"
                )
                out.append(TextBlock(json.dumps(part, ensure_ascii=False)))
        return out


def _call(item: Mapping[str, Any], where: str, warns: list[str]) -> ToolCall:
    kind = item.get("type")
    call_id = str(item.get("call_id") or item.get("id") or where)
    if kind == "function_call":
        name = str(item.get("name") or "unknown")
        return ToolCall(call_id, name, parse_arguments(item.get("arguments"), where, warns))
    if kind == "custom_tool_call":
        return ToolCall(call_id, str(item.get("name") or "unknown"), {"input": item.get("input")})
    action = item.get("action")
    return ToolCall(call_id, "local_shell", dict(action) if isinstance(action, Mapping) else {})


def _output(
    b: _Builder, item: Mapping[str, Any], where: str
) -> tuple[tuple[TextBlock | ImageBlock, ...], bool]:
    """The result content of an ``*_output`` item, and whether it reports failure."""
    output = item.get("output")
    failed = False
    if isinstance(output, Mapping):
        # FunctionCallOutputPayload written as an object: {content, success}.
        failed = output.get("success") is False
        output = output.get("content", output.get("output"))
    return tuple(b.parts(output, where)), failed


def _reasoning(item: Mapping[str, Any]) -> list[Block]:
    texts = [
        str(p.get("text") or "")
        for key in ("summary", "content")
        for p in (item.get(key) or ())
        if isinstance(p, Mapping)
    ]
    text = "\n\n".join(t for t in texts if t)
    return [ThinkingBlock(text)] if text else []


def session_and_agent(session: Mapping[str, Any], path: Path) -> tuple[str, str]:
    """``(conversation id, agent)`` of a rollout from its ``session_meta``.

    A subagent's rollout (``source: {"subagent": …}``: a review, a compaction,
    or a thread spawned by the model) is its own agent; when it names its
    parent thread it takes the parent's id, as Claude Code subagents do.

    >>> session_and_agent({"id": "s1", "source": "cli"}, Path("r.jsonl"))
    ('s1', 'main')
    >>> spawn = {"thread_spawn": {"parent_thread_id": "p0", "depth": 1}}
    >>> session_and_agent({"id": "s2", "source": {"subagent": spawn}}, Path("r.jsonl"))
    ('p0', 'subagent-thread_spawn-s2')
    """
    own = str(session.get("id") or path.stem)
    source = session.get("source")
    sub = source.get("subagent") if isinstance(source, Mapping) else None
    if sub is None:
        return own, "main"
    # A plain name ("review", "compact") or a one-key object {kind: details}.
    kind, detail = str(sub), None
    if isinstance(sub, Mapping):
        kind = str(next(iter(sub), "other"))
        detail = sub.get(kind)
    parent = detail.get("parent_thread_id") if isinstance(detail, Mapping) else None
    return (str(parent), f"subagent-{kind}-{own}") if parent else (own, f"subagent-{kind}")


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    """Every conversation in ``path`` that ``options.select`` keeps.

    Parameters
    ----------
    path
        A ``rollout-*.jsonl`` file (it may still be being written).
    options
        ``select`` matches ``id``/``session_id`` and ``agent``.

    Returns
    -------
    list[Conversation]
        One conversation: the session, or a subagent of its parent thread. Problems that leave the rest usable are in its ``warnings``.

    Raises
    ------
    TranscriptError
        When the path cannot be read or holds nothing of this format.
    """
    if path.is_dir():
        raise TranscriptError(f"{path}: is a folder; give one Codex rollout-*.jsonl file")
    warnings = Warnings()
    b = _Builder(path, warnings)
    skipped: Counter[str] = Counter()
    events: Counter[str] = Counter()
    session: dict[str, Any] = {}
    models: dict[str, None] = {}
    recognised = 0
    encrypted = 0

    for lineno, rec in iter_json_objects(path, warnings, "rollout record"):
        where = f"{path}:{lineno}"
        mid = f"l{lineno}"
        kind = rec.get("type")
        payload = rec.get("payload")
        if kind not in _RECORD_TYPES or not isinstance(payload, Mapping):
            if lineno == 1 and "id" in rec and "timestamp" in rec and "type" not in rec:
                kind, payload = "session_meta", rec  # the pre-wrapper first line
            elif isinstance(kind, str) and ("role" in rec or "call_id" in rec):
                kind, payload = "response_item", rec  # a pre-wrapper response item
            elif rec.get("record_type") == "state":
                skipped["state record (pre-wrapper resume state)"] += 1
                continue
            else:
                skipped[f"record type {kind!r}"] += 1
                continue
        recognised += 1
        stamp = rec.get("timestamp")
        meta: dict[str, Any] = {"timestamp": stamp} if stamp else {}

        if kind == "session_meta":
            if session:
                skipped["repeated session_meta (resumed session)"] += 1
                continue
            session = {k: v for k, v in payload.items() if k != "git"}
            continue
        if kind == "turn_context":
            model = payload.get("model")
            if isinstance(model, str) and model:
                b.model = model
                models[model] = None
            continue
        if kind == "event_msg":
            etype = str(payload.get("type"))
            events[etype] += 1
            if etype in _ERROR_EVENTS:
                detail = payload.get("message") or payload.get("reason") or ""
                warnings.add(f"{where}: Codex reported {etype}: {detail}", "codex error")
            continue
        if kind == "compacted":
            _compacted(b, payload, mid, meta, where)
            continue

        item_type = payload.get("type")
        meta["item"] = item_type
        if item_type == "message":
            role = _ROLES.get(str(payload.get("role")))
            if role is None:
                skipped[f"message role {payload.get('role')!r}"] += 1
                continue
            if payload.get("role") == "developer":
                meta["openai_role"] = "developer"
            b.add(mid, role, list(b.parts(payload.get("content"), where)), meta)
        elif item_type == "reasoning":
            if payload.get("encrypted_content"):
                encrypted += 1
            blocks = _reasoning(payload)
            if blocks:
                b.add(mid, "assistant", blocks, meta)
            else:
                skipped["reasoning with only encrypted content"] += 1
        elif item_type in _CALL_ITEMS:
            notes: list[str] = []
            call = _call(payload, where, notes)
            for note in notes:
                warnings.add(note, "arguments")
            b.add(mid, "assistant", [call], meta)
        elif item_type in _OUTPUT_ITEMS:
            call_id = str(payload.get("call_id") or "")
            content, failed = _output(b, payload, where)
            b.add(mid, "tool", [ToolResult(call_id, content, failed)], meta)
        elif item_type == "web_search_call":
            # The rollout keeps the queries but not the results the model saw.
            b.add(mid, "assistant", [TextBlock(web_search_text(payload.get("action")))], meta)
        elif item_type in _SKIPPED_ITEMS:
            skipped[f"{item_type} ({_SKIPPED_ITEMS[str(item_type)]})"] += 1
        else:
            skipped[f"response item {item_type!r}"] += 1

    if not recognised:
        raise TranscriptError(
            f"{path}: no Codex rollout records found; is this a ~/.codex/sessions "
            "rollout-*.jsonl file? (force another format with --format)"
        )
    if events:
        warnings.extend_counts(
            f"{path}: skipped event_msg records, which repeat the response items", events
        )
    warnings.extend_counts(f"{path}: skipped records", skipped)
    if encrypted:
        warnings.add(
            f"{path}: {encrypted} reasoning items carry encrypted content, which only "
            "OpenAI can read; kept their plain summaries where they have one"
        )
    add_pairing_warnings(str(path), b.messages, warnings)
    conv_id, agent = session_and_agent(session, path)
    meta_out: dict[str, Any] = {
        k: session[k]
        for k in ("cwd", "cli_version", "originator", "source", "model_provider", "forked_from_id")
        if session.get(k) is not None
    }
    instructions = session.get("instructions") or session.get("base_instructions")
    if isinstance(instructions, Mapping):
        instructions = instructions.get("text")
    if isinstance(instructions, str) and instructions:
        meta_out["instructions"] = instructions
    if models:
        meta_out["models"] = list(models)
    if agent != "main":
        meta_out["thread_id"] = session.get("id")
    conv = Conversation(
        id=conv_id,
        messages=spill.frozen(b.messages),
        tip=b.last,
        agent=agent,
        format=NAME,
        source=str(path),
        meta=meta_out,
        warnings=warnings.tuple(),
    )
    if not matches_select({"id": conv_id, "session_id": conv_id, "agent": agent}, options.select):
        return []
    return [conv]


def web_search_text(action: Any) -> str:
    """A ``web_search_call`` as text, with every query it ran (``queries`` and ``query``).

    >>> web_search_text({"type": "search", "query": "a", "queries": ["a", "b"]})
    '[web search: a | b]'
    >>> web_search_text({"type": "open_page", "url": "https://x.test"})
    '[web search: open_page https://x.test]'
    """
    if not isinstance(action, Mapping):
        return "[web search: ?]"
    found: list[str] = []
    queries = action.get("queries")
    for q in [*(queries if isinstance(queries, list) else []), action.get("query")]:
        if isinstance(q, str) and q and q not in found:
            found.append(q)
    kind = action.get("type")
    if not found and kind not in (None, "search"):
        detail = action.get("url") or action.get("pattern") or ""
        return f"[web search: {kind} {detail}]".replace(" ]", "]")
    return f"[web search: {' | '.join(found) or '?'}]"


def encrypted_compaction_text(item: Mapping[str, Any]) -> str:
    """The text standing in for an encrypted compaction item outside the Responses API."""
    size = len(str(item.get("encrypted_content") or ""))
    return (
        f"[Codex compaction summary: {size:,} characters of encrypted content only OpenAI "
        "can read; omitted]"
    )


def _compacted(
    b: _Builder, payload: Mapping[str, Any], mid: str, meta: dict[str, Any], where: str
) -> None:
    """A ``compacted`` record: a boundary, then the context the model continued from."""
    history = payload.get("replacement_history")
    b.add(
        mid,
        "system",
        [TextBlock("Conversation compacted")],
        {**meta, "kind": "compact_boundary", "replacement": isinstance(history, list)},
    )
    if not isinstance(history, list):
        summary = str(payload.get("message") or "")
        b.add(f"{mid}-summary", "user", [TextBlock(summary)], {**meta, "compact_summary": True})
        return
    for j, item in enumerate(history):
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        if kind in ("compaction", "compaction_summary"):
            text = encrypted_compaction_text(item)
            b.add(
                f"{mid}-r{j}",
                "user",
                [TextBlock(text)],
                {**meta, "compact_summary": True, "encrypted_compaction": dict(item)},
            )
        elif kind == "message" or (kind is None and "role" in item):
            role = _ROLES.get(str(item.get("role")), "user")
            kept = {**meta, "compact_kept": True}
            if item.get("role") == "developer":
                kept["openai_role"] = "developer"
            b.add(f"{mid}-r{j}", role, list(b.parts(item.get("content"), where)), kept)
        elif isinstance(item.get("text"), str):
            b.add(f"{mid}-r{j}", "user", [TextBlock(item["text"])], {**meta, "compact_kept": True})


def score(path: Path, head: bytes) -> float:
    """How sure the head of ``path`` is a Codex rollout: 0.0 (no) to 1.0 (certain).

    A first record ``type: session_meta`` with a payload is Codex's own
    signature; a head of only rollout record types is nearly as sure.

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
        return 0.0
    records = head_records(head)
    if not records:
        # A session_meta line longer than the sniff window (long instructions).
        start = head.lstrip()[:300]
        marker = b'"type":"session_meta"' in start or b'"type": "session_meta"' in start
        return 0.9 if start.startswith(b"{") and marker else 0.0
    first = records[0]
    if first.get("type") == "session_meta" and isinstance(first.get("payload"), dict):
        return 1.0
    if all(r.get("type") in _RECORD_TYPES and isinstance(r.get("payload"), dict) for r in records):
        return 0.9
    if (
        {"id", "timestamp", "instructions"} <= set(first)
        and len(records) > 1
        and records[1].get("type") in ("message", "reasoning", *_CALL_ITEMS)
    ):
        return 0.6  # a pre-wrapper rollout
    return 0.0


def ui_record(path: Path, rec: Any) -> str | None:
    """A label for a rollout record the model never saw: the UI's event stream (it
    repeats the response items), turn settings, git snapshots for undo.

    >>> ui_record(Path("r.jsonl"), {"type": "event_msg", "payload": {"type": "agent_message"}})
    'event_msg'
    """
    if not isinstance(rec, Mapping):
        return None
    kind = rec.get("type")
    if kind in ("event_msg", "turn_context"):
        return str(kind)
    payload = rec.get("payload")
    if isinstance(payload, Mapping) and payload.get("type") == "ghost_snapshot":
        return "ghost_snapshot"
    return None


FORMAT = Format(
    name=NAME,
    description="Codex CLI rollout JSONL (~/.codex/sessions; function_call → output by call_id)",
    score=score,
    load=load,
    ui_records=ui_record,
)
