"""What a Claude Code or Agent SDK record is: the record types, the message being built
from one or more records of an API message, and what a message keeps of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from snapshot.transcript.formats._common import (
    str_field,
)
from snapshot.transcript.model import (
    Block,
    Message,
    Role,
)

NAME = "claude-code-jsonl"

# Records that become messages; every other type is skipped and counted
# (compact boundaries excepted, see the module docstring).
MESSAGE_TYPES = ("user", "assistant")
CC_KEYS = ("parentUuid", "sessionId", "uuid", "leafUuid", "messageId")
CC_TYPES = {
    "user",
    "assistant",
    "system",
    "summary",
    "file-history-snapshot",
    "progress",
    "attachment",
    "queue-operation",
    "permission-mode",
    "last-prompt",
}
SDK_TYPES = {"system", "assistant", "user", "result", "stream_event"}


@dataclass
class Draft:
    """A message being assembled from one or more records."""

    id: str
    role: Role
    parent: str | None
    blocks: list[Block]
    meta: dict[str, Any]
    line: int
    api_id: str | None = None

    @classmethod
    def of(cls, m: Message) -> Draft:
        """A message already built, open again to absorb a late record of its API message."""
        return cls(m.id, m.role, m.parent, list(m.blocks), dict(m.meta), 0)

    def message(self) -> Message:
        return Message(self.id, self.parent, self.role, tuple(self.blocks), self.meta)

    def absorb(self, blocks: list[Block], msg: Mapping[str, Any]) -> None:
        """Take in another record of the same API message: its blocks, the latest usage."""
        self.blocks.extend(blocks)
        if isinstance(msg.get("usage"), dict):
            self.meta["usage"] = msg["usage"]


# Skipped records the model never saw: the UI's and the harness's own bookkeeping.
# A ``queue-operation`` repeats a prompt its ``queued_command`` attachment carries.
UI_ONLY_KINDS = (
    "file-history-snapshot",
    "progress",
    "queue-operation",
    "summary",
    "last-prompt",
    "permission-mode",
    "system/turn_duration",
    "system/stop_hook_summary",
    "system/local_command",
    "system/api_error",
    "duplicate uuid",
)


def record_kind(rec: Mapping[str, Any]) -> str:
    """How a skipped record is counted: its type, with its subtype (progress or attachment kind).

    >>> record_kind({"type": "attachment", "attachment": {"type": "todo_reminder"}})
    'attachment/todo_reminder'
    """
    kind = str_field(rec, "type")
    data = rec.get("data")
    if kind == "progress" and isinstance(data, dict) and isinstance(data.get("type"), str):
        return f"progress/{data['type']}"
    att = rec.get("attachment")
    if kind == "attachment" and isinstance(att, dict) and isinstance(att.get("type"), str):
        return f"attachment/{att['type']}"
    return str(kind) if rec.get("subtype") is None else f"{kind}/{rec['subtype']}"


def seen_label(kind: str) -> str:
    """``kind`` with whether the model saw such a record, for the skipped-records warning.

    Attachments are shown to the model as system reminders; the UI's records are not.

    >>> seen_label("queue-operation"), seen_label("attachment/todo_reminder")
    ('queue-operation (UI only)', 'attachment/todo_reminder (the model saw it)')
    """
    if "(" in kind:  # already says what became of it
        return kind
    if kind.startswith("attachment"):
        return f"{kind} (the model saw it)"
    if any(kind == k or kind.startswith(f"{k}/") for k in UI_ONLY_KINDS):
        return f"{kind} (UI only)"
    return f"{kind} (the model may have seen it)"


def queued_prompt(rec: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """``(text, meta)`` of a ``queued_command`` attachment: what the user typed mid-turn,
    or a background task's notification, both given to the model as a user message.

    >>> queued_prompt({"type": "attachment", "attachment": {"type": "queued_command",
    ...     "prompt": "no wait", "commandMode": "prompt", "origin": {"kind": "human"}}})
    ('no wait', {'queued_command': True, 'command_mode': 'prompt', 'origin': 'human'})
    """
    att = rec.get("attachment")
    if str_field(rec, "type") != "attachment" or not isinstance(att, dict):
        return None
    if att.get("type") != "queued_command":
        return None
    prompt = att.get("prompt")
    if isinstance(prompt, list):  # content blocks: their text
        prompt = "\n".join(
            str(b.get("text") or "") for b in prompt if isinstance(b, dict) and b.get("text")
        )
    if not isinstance(prompt, str) or not prompt:
        return None
    meta: dict[str, Any] = {"queued_command": True}
    if isinstance(att.get("commandMode"), str):
        meta["command_mode"] = att["commandMode"]
    origin = att.get("origin")
    if isinstance(origin, dict) and isinstance(origin.get("kind"), str):
        meta["origin"] = origin["kind"]
    return prompt, meta


def api_meta(msg: Mapping[str, Any], api_id: Any) -> dict[str, Any]:
    """What a message keeps of the API message it carries: id, model, usage."""
    m: dict[str, Any] = {}
    if api_id:
        m["api_id"] = api_id
    if msg.get("model"):
        m["model"] = msg["model"]
    if isinstance(msg.get("usage"), dict):
        m["usage"] = msg["usage"]
    return m


def is_sdk(records: Sequence[Mapping[str, Any]]) -> bool:
    return any(
        str_field(r, "type") in SDK_TYPES
        and "session_id" in r
        and ("parent_tool_use_id" in r or r.get("subtype") == "init")
        for r in records
    )
