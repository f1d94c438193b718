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


def record_kind(rec: Mapping[str, Any]) -> str:
    """How a skipped record is counted: its type, with its subtype (or progress kind) when it has one."""
    kind = str_field(rec, "type")
    data = rec.get("data")
    if kind == "progress" and isinstance(data, dict) and isinstance(data.get("type"), str):
        return f"progress/{data['type']}"
    return str(kind) if rec.get("subtype") is None else f"{kind}/{rec['subtype']}"


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
