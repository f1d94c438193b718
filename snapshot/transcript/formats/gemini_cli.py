"""Gemini CLI chat recordings (``~/.gemini/tmp/<hash>/chats/session-*.json``) → the neutral model.

Gemini CLI's ``ChatRecordingService`` writes one ``ConversationRecord`` per
session: ``{sessionId, projectHash, startTime, lastUpdated, messages, kind}``.
Each ``MessageRecord`` has ``id``, ``timestamp``, ``type`` and ``content``
(a Gemini ``PartListUnion``: a string, one part or a list of parts, with text
and ``inlineData`` images):

- ``user``: the prompt;
- ``gemini``: the model's reply, with ``thoughts`` [{subject, description}]
  (→ thinking) and ``toolCalls`` [{id, name, args, result, status,
  resultDisplay}]. Call and result live in the same object: the call becomes
  a :class:`ToolCall` on the assistant message and ``result`` (the
  ``functionResponse`` parts the model was sent) a :class:`ToolResult` in the
  tool message after it, linked by the call's ``id``;
- ``info``, ``error``, ``warning``: lines the UI showed and the model never
  saw; counted and skipped.

From about v0.40 the file is JSONL instead: a first line with the session
fields, one message record per line (a record repeating an ``id`` replaces
it), and ``{"$set": {...}}`` lines that overwrite session fields, the whole
``messages`` list included (a rewind or compression). ``kind: "subagent"``
records import with ``agent`` = ``"subagent"``.

>>> from snapshot.transcript.formats import gemini_cli
>>> gemini_cli.score(Path("s.json"), b'{"sessionId": "x", "projectHash": "y", "messages": []}')
1.0
"""

from __future__ import annotations

import base64
import binascii
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    Warnings,
    add_pairing_warnings,
    head_records,
    head_text,
    image_from_bytes,
    iter_json_objects,
    matches_select,
)
from snapshot.transcript.formats._json_stream import JSONDocument
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)

NAME = "gemini-cli-chat"

_UI_ONLY = {"info", "error", "warning"}
_FAILED = {"error", "cancelled"}


def _parts(content: Any, where: str, warnings: Warnings) -> list[TextBlock | ImageBlock]:
    """A ``PartListUnion`` as text and images."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(content)] if content else []
    if isinstance(content, Mapping):
        content = [content]
    if not isinstance(content, list):
        return [TextBlock(json.dumps(content, ensure_ascii=False))]
    out: list[TextBlock | ImageBlock] = []
    for part in content:
        if isinstance(part, str):
            out.append(TextBlock(part))
        elif not isinstance(part, Mapping):
            out.append(TextBlock(json.dumps(part, ensure_ascii=False)))
        elif isinstance(part.get("text"), str):
            if not part.get("thought"):
                out.append(TextBlock(part["text"]))
        elif isinstance(part.get("inlineData"), Mapping):
            data = part["inlineData"].get("data")
            try:
                raw = base64.b64decode(str(data or ""), validate=False)
                out.append(image_from_bytes(raw, "inline"))
            except (binascii.Error, ValueError, TranscriptError) as exc:
                warnings.add(f"{where}: inline image not kept: {exc}", "image")
                out.append(TextBlock(f"[image not kept: {exc}]"))
        elif isinstance(part.get("functionResponse"), Mapping):
            response = part["functionResponse"].get("response")
            if isinstance(response, Mapping) and set(response) <= {"output", "error"}:
                text = response.get("output", response.get("error"))
                out.append(TextBlock(text if isinstance(text, str) else json.dumps(text)))
            else:
                out.append(TextBlock(json.dumps(response, ensure_ascii=False)))
        else:
            out.append(TextBlock(json.dumps(part, ensure_ascii=False)))
    return out


def _thinking(thoughts: Any) -> list[Block]:
    if not isinstance(thoughts, list):
        return []
    out: list[Block] = []
    for t in thoughts:
        if not isinstance(t, Mapping):
            continue
        text = "\n\n".join(str(t[k]) for k in ("subject", "description") if t.get(k))
        if text:
            out.append(ThinkingBlock(text))
    return out


def _messages(
    records: Iterable[Mapping[str, Any]], path: Path, warnings: Warnings, spilled: bool
) -> tuple[Sequence[Message], int]:
    """The records as messages, converted one at a time (kept on disk when ``spilled``),
    and how many records there were."""
    out = spill.message_sink(spilled)
    last: str | None = None
    skipped: Counter[str] = Counter()

    def add(mid: str, role: Any, blocks: list[Block], meta: dict[str, Any]) -> None:
        nonlocal last
        out.append(Message(mid, last, role, tuple(blocks), meta))
        last = mid

    i = -1
    for i, rec in enumerate(records):
        where = f"{path}: message {i}"
        mid = str(rec.get("id") or f"m{i}")
        kind = rec.get("type")
        meta: dict[str, Any] = {"gemini_type": kind}
        if rec.get("timestamp"):
            meta["timestamp"] = rec["timestamp"]
        if kind == "user":
            add(mid, "user", list(_parts(rec.get("content"), where, warnings)), meta)
            continue
        if kind != "gemini":
            skipped[
                f"{kind} message (shown in the UI, never sent to the model)"
                if kind in _UI_ONLY
                else f"message type {kind!r}"
            ] += 1
            continue
        if rec.get("model"):
            meta["model"] = rec["model"]
        if isinstance(rec.get("tokens"), Mapping):
            meta["tokens"] = dict(rec["tokens"])
        blocks: list[Block] = [*_thinking(rec.get("thoughts"))]
        content = rec.get("content")
        if isinstance(content, list):
            # Parts marked "thought" are reasoning the API returned inline.
            blocks.extend(
                ThinkingBlock(str(p["text"]))
                for p in content
                if isinstance(p, Mapping) and p.get("thought") and isinstance(p.get("text"), str)
            )
        blocks.extend(_parts(content, where, warnings))
        results: list[Block] = []
        for j, call in enumerate(rec.get("toolCalls") or ()):
            if not isinstance(call, Mapping):
                skipped["tool call that is not an object"] += 1
                continue
            call_id = str(call.get("id") or f"{mid}-call{j}")
            args = call.get("args")
            blocks.append(
                ToolCall(
                    call_id,
                    str(call.get("name") or "unknown"),
                    dict(args) if isinstance(args, Mapping) else {"args": args},
                )
            )
            result = call.get("result")
            content = _parts(result, f"{where} call {call_id}", warnings)
            if result is None and isinstance(call.get("resultDisplay"), str):
                # Older records keep only what the UI showed.
                content = [TextBlock(call["resultDisplay"])]
            if result is None and not content:
                continue  # no result recorded: left unanswered, and reported below
            results.append(ToolResult(call_id, tuple(content), call.get("status") in _FAILED))
        add(mid, "assistant", blocks, meta)
        if results:
            add(f"{mid}-results", "tool", results, {"gemini_type": "tool results"})
    warnings.extend_counts(f"{path}: skipped messages", skipped)
    return spill.frozen(out), i + 1


class _Records:
    """The message records of a JSONL recording, in order; a record may be replaced
    (same id) or the whole list rewritten. Above ``SPILL_BYTES`` of input they are
    kept as JSON text on disk and parsed again one at a time when read."""

    def __init__(self, spilled: bool) -> None:
        self._file = spill.SpillFile() if spilled else None
        self._held: list[Mapping[str, Any]] = []
        self._where: list[tuple[int, int]] = []  # (offset, length) of each record on disk

    def _store(self, rec: Mapping[str, Any]) -> tuple[int, int]:
        assert self._file is not None
        data = json.dumps(rec, ensure_ascii=False).encode("utf-8", "surrogatepass")
        return self._file.write(data), len(data)

    def __len__(self) -> int:
        return len(self._held) if self._file is None else len(self._where)

    def append(self, rec: Mapping[str, Any]) -> None:
        if self._file is None:
            self._held.append(rec)
        else:
            self._where.append(self._store(rec))

    def __setitem__(self, i: int, rec: Mapping[str, Any]) -> None:
        if self._file is None:
            self._held[i] = rec
        else:
            self._where[i] = self._store(rec)

    def clear(self) -> None:
        self._held, self._where = [], []

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        if self._file is None:
            yield from self._held
            return
        for start, length in self._where:
            yield json.loads(self._file.read(start, length).decode("utf-8", "surrogatepass"))


def _read_jsonl(path: Path, warnings: Warnings) -> tuple[dict[str, Any], _Records]:
    session: dict[str, Any] = {}
    messages = _Records(path.stat().st_size >= spill.SPILL_BYTES)
    at: dict[str, int] = {}
    rewrites = 0
    for _lineno, rec in iter_json_objects(path, warnings, "recording line"):
        # A "$set" line overwrites session fields; a one-line whole record does too.
        update = rec.get("$set") if "$set" in rec else rec if "messages" in rec else None
        if isinstance(update, Mapping):
            for key, value in update.items():
                if key == "messages" and isinstance(value, list):
                    rewrites += 1
                    messages.clear()
                    at = {}
                    for m in value:
                        if isinstance(m, Mapping):
                            at[str(m.get("id"))] = len(messages)
                            messages.append(m)
                else:
                    session[key] = value
        elif "type" in rec and "id" in rec:
            key = str(rec["id"])
            if key in at:
                messages[at[key]] = rec
            else:
                at[key] = len(messages)
                messages.append(rec)
        else:
            session.update(rec)
    if rewrites:
        warnings.add(
            f"{path}: the message list was rewritten {rewrites} time(s) (a rewind or "
            "compression); imported the last version"
        )
    return session, messages


def _is_jsonl(path: Path) -> bool:
    """Is the recording one record per line (newer Gemini CLI) rather than one document?"""
    try:
        with path.open("rb") as fh:
            first = fh.readline(1024 * 1024)
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
    try:
        return isinstance(json.loads(first), dict)
    except (ValueError, RecursionError):
        return False  # a pretty-printed document, or a first line longer than 1 MB


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    """Every conversation in ``path`` that ``options.select`` keeps.

    Parameters
    ----------
    path
        A ``chats/session-*.json`` (or ``.jsonl``) recording.
    options
        ``select`` matches ``id``/``session_id`` and ``agent``.

    Returns
    -------
    list[Conversation]
        One conversation. Problems that leave the rest usable are in its ``warnings``.

    Raises
    ------
    TranscriptError
        When the path cannot be read or holds nothing of this format.
    """
    if path.is_dir():
        raise TranscriptError(f"{path}: is a folder; give one Gemini CLI chats/session-*.json file")
    warnings = Warnings()
    spilled = path.stat().st_size >= spill.SPILL_BYTES
    # By content, not name: session recorders save the one-document form as .jsonl too.
    if _is_jsonl(path):
        session, records = _read_jsonl(path, warnings)
        messages, n_records = _messages(records, path, warnings, spilled)
    else:
        # One document, mostly the messages list: read one message at a time.
        doc = JSONDocument(path, "messages", warnings)
        if not doc.found or doc.shape != "object":
            doc.close()
            raise TranscriptError(
                f"{path}: not a Gemini CLI chat recording (no messages list); "
                "force another format with --format"
            )
        streamed = (m for m in doc.items() if isinstance(m, Mapping))
        messages, n_records = _messages(streamed, path, warnings, spilled)
        session = doc.fields
    if "sessionId" not in session and not n_records:
        raise TranscriptError(
            f"{path}: no Gemini CLI chat records found; force another format with --format"
        )
    add_pairing_warnings(str(path), messages, warnings)
    conv_id = str(session.get("sessionId") or path.stem)
    agent = "subagent" if session.get("kind") == "subagent" else "main"
    meta = {
        k: session[k]
        for k in ("projectHash", "startTime", "lastUpdated", "summary", "kind")
        if session.get(k) is not None
    }
    conv = Conversation(
        id=conv_id,
        messages=messages,
        tip=messages[-1].id if messages else None,
        agent=agent,
        format=NAME,
        source=str(path),
        meta=meta,
        warnings=warnings.tuple(),
    )
    if not matches_select({"id": conv_id, "session_id": conv_id, "agent": agent}, options.select):
        return []
    return [conv]


def score(path: Path, head: bytes) -> float:
    """How sure the head of ``path`` is a Gemini CLI chat recording (0.0 to 1.0).

    ``sessionId`` and ``projectHash`` at the top level are Gemini CLI's own
    pair; a ``messages`` list of ``type: user/gemini`` records is nearly as sure.

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
    text = head_text(head)
    if not text.startswith("{"):
        return 0.0
    start = text[:2048]
    if '"sessionId"' in start and '"projectHash"' in start:
        return 1.0
    records = head_records(head)
    if records and any(r.get("type") == "gemini" and "id" in r for r in records):
        return 0.8  # JSONL message records without the session line
    if '"messages"' in start and ('"type": "gemini"' in text or '"type":"gemini"' in text):
        return 0.6
    return 0.0


def ui_record(path: Path, rec: Any) -> str | None:
    """A label for a recorded message only the terminal showed (``type: info``, an update notice).

    >>> ui_record(Path("c.json"), {"type": "info", "content": "update available"})
    'info message'
    """
    if isinstance(rec, Mapping) and rec.get("type") == "info" and "content" in rec:
        return "info message"
    return None


FORMAT = Format(
    name=NAME,
    description="Gemini CLI chat recording (~/.gemini/tmp/<hash>/chats; calls hold their results)",
    score=score,
    load=load,
    # A call's display name, the tool's description and the rendered diff are the
    # terminal's: the model has the declaration, the arguments and the result.
    unread_keys=frozenset({"displayName", "description", "resultDisplay"}),
    ui_records=ui_record,
)
