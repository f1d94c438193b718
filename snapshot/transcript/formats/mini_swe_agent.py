"""mini-swe-agent trajectories (``trajectory_format: mini-swe-agent-1``) → the neutral model.

A trajectory is one JSON document: ``messages`` (OpenAI-style ``role`` /
``content``), ``info`` (exit status, submission, cost) and ``instance_id``.
There are no tool-call ids: the agent answers with text holding exactly one
fenced ```` ```bash ```` block, mini-swe-agent runs it, and the next user
message is its output. So each assistant turn with exactly one bash block
gets a :class:`ToolCall` ``bash`` with id ``call-<n>`` (n counting calls from
1, stable across imports), and the next user message becomes its
:class:`ToolResult` (``is_error`` when ``<returncode>`` is not 0).

The assistant's text is kept whole, bash block included: it is what the model
wrote and what it saw again on the next turn. A turn with no or several bash
blocks was rejected by mini-swe-agent (its "format error" reply follows as a
plain user message); it gets no call, and ``Conversation.meta["format_errors"]``
counts such turns. Reasoning returned by the provider
(``extra.response.choices[0].message.reasoning``) is kept as thinking.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import (
    Warnings,
    add_pairing_warnings,
    content_text,
    matches_select,
    tail_bytes,
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

NAME = "mini-swe-agent-1"

# mini-swe-agent's own action regex (DefaultAgent.parse_action); newer releases fence the
# action as ```mswea_bash_command.
ACTION_RE = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.DOTALL)
_RETURNCODE_RE = re.compile(r"<returncode>(-?\d+)</returncode>")


def _reasoning(msg: dict[str, Any]) -> str | None:
    try:
        r = msg["extra"]["response"]["choices"][0]["message"].get("reasoning")
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    return r if isinstance(r, str) and r else None


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: is a folder; give one mini-swe-agent .traj.json file")
    warnings = Warnings()
    # One document, mostly the messages list (a bare list in early releases and
    # the test data): read one message at a time.
    doc = JSONDocument(path, "messages", warnings)
    if not doc.found:
        raise TranscriptError(
            f"{path}: not a mini-swe-agent trajectory (expected an object with a 'messages' list)"
        )
    warnings_before = len(warnings.items)
    # A long run keeps its messages on disk (spill.py).
    messages = spill.message_sink(path.stat().st_size >= spill.SPILL_BYTES)
    last: str | None = None
    open_call: str | None = None
    n_calls = 0
    format_errors = 0
    for i, raw in enumerate(doc.items()):
        where = f"{path}: messages[{i}]"
        if not isinstance(raw, dict):
            warnings.add(f"{where} is not an object; skipped", "record")
            continue
        role = raw.get("role")
        out_role: Role
        text = content_text(raw.get("content"))
        blocks: list[Block] = []
        meta: dict[str, Any] = {}
        if role == "assistant":
            out_role = "assistant"
            if open_call is not None:
                warnings.add(f"{where}: tool call {open_call!r} has no result", "unanswered")
                open_call = None
            reasoning = _reasoning(raw)
            if reasoning:
                blocks.append(ThinkingBlock(reasoning))
            blocks.append(TextBlock(text))
            actions = ACTION_RE.findall(text)
            if len(actions) == 1:
                n_calls += 1
                open_call = f"call-{n_calls}"
                blocks.append(ToolCall(open_call, "bash", {"command": actions[0]}))
            else:
                format_errors += 1
                meta["format_error"] = True
                meta["bash_blocks"] = len(actions)
        elif role == "user" and open_call is not None:
            out_role = "user"
            m = _RETURNCODE_RE.search(text)
            failed = m is not None and m.group(1) != "0"
            blocks.append(ToolResult(open_call, (TextBlock(text),), failed))
            open_call = None
        elif role == "system" or role == "user":
            out_role = role
            blocks.append(TextBlock(text))
        elif role == "tool":
            warnings.add(f"{where}: role 'tool' in a mini-swe-agent run; kept as a user message")
            out_role = "user"
            blocks.append(TextBlock(text))
        else:
            warnings.add(f"{where}: unknown role {role!r}; skipped", "role")
            continue
        messages.append(Message(f"m{i}", last, out_role, tuple(blocks), meta))
        last = f"m{i}"

    if last is None:
        raise TranscriptError(f"{path}: the trajectory holds no messages")
    fmt = doc.fields.get("trajectory_format")  # written after the messages
    if fmt not in (None, NAME):
        # Said before the messages' warnings, as when the document was read whole.
        warnings.items.insert(warnings_before, f"{path}: trajectory_format {fmt!r}, read as {NAME}")
    raw_info = doc.fields.get("info")
    info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
    conv_id = str(doc.fields.get("instance_id") or path.name.removesuffix(".traj.json"))
    add_pairing_warnings(str(path), messages, warnings)
    conv_meta: dict[str, Any] = {"format_errors": format_errors, "instance_id": conv_id}
    for key in ("exit_status", "mini_version", "model_stats"):
        if key in info:
            conv_meta[key] = info[key]
    if isinstance(info.get("submission"), str):
        conv_meta["submission_chars"] = len(info["submission"])
    conv = Conversation(
        id=conv_id,
        messages=spill.frozen(messages),
        tip=last,
        format=NAME,
        source=str(path),
        meta=conv_meta,
        warnings=warnings.tuple(),
    )
    if not matches_select({"id": conv_id, "instance_id": conv_id}, options.select):
        return []
    return [conv]


def _has_marker(path: Path, head: bytes) -> bool:
    if path.is_dir() or not head.lstrip().startswith(b"{"):
        return False
    # The marker sits at the end of the document, after the messages.
    marker = b'"trajectory_format": "mini-swe-agent'
    compact = b'"trajectory_format":"mini-swe-agent'
    tail = tail_bytes(path)
    return any(m in chunk for m in (marker, compact) for chunk in (head, tail))


def score(path: Path, head: bytes) -> float:
    """1.0 with the ``trajectory_format`` marker; 0.9 for the bare message list mini-swe-agent
    wrote before it (its own action fence or ``<returncode>`` observations); else 0.

    >>> score(Path("t.json"), b'[{"role": "system", "content": "```mswea_bash_command"}]')
    0.9
    >>> score(Path("t.json"), b'[{"role": "user", "content": "hi"}]')
    0.0
    """
    if _has_marker(path, head):
        return 1.0
    start = head.lstrip()[:1]
    if path.is_dir() or start != b"[" or b'"role"' not in head:
        return 0.0
    return 0.9 if b"mswea_bash_command" in head or b"<returncode>" in head else 0.0


FORMAT = Format(
    name=NAME,
    description="mini-swe-agent trajectory (one fenced bash block per assistant turn)",
    load=load,
    score=score,
)
