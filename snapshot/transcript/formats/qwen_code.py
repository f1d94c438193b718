"""Qwen Code chat recordings: recognised so they are refused by name, not misread.

Qwen Code writes Claude Code-like JSONL records, so without this check its
sessions would import as empty Claude Code sessions. This module imports
nothing of the format registry, so the registry can ask it without a cycle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def is_qwen_code(records: Sequence[Mapping[str, Any]]) -> bool:
    """Do these records come from Qwen Code's chat recorder rather than Claude Code?

    Qwen Code (``~/.qwen/projects/<project>/chats/<session>.jsonl``) writes the
    same ``uuid``/``parentUuid``/``sessionId`` links, but its ``message`` is a
    Gemini ``Content`` (``role`` + ``parts``) and tool results are records of
    type ``tool_result``: read as Claude Code, every message would be empty.

    >>> is_qwen_code([{"type": "user", "uuid": "u", "message": {"role": "user", "parts": []}}])
    True
    >>> is_qwen_code([{"type": "user", "uuid": "u", "message": {"role": "user", "content": "hi"}}])
    False
    """
    for r in records:
        msg = r.get("message")
        if isinstance(msg, dict) and "parts" in msg and "content" not in msg:
            return True
        if r.get("type") == "tool_result" and "uuid" in r and "parentUuid" in r:
            return True
    return False


QWEN_REFUSAL = (
    "a Qwen Code chat recording (Gemini 'parts' in Claude Code-like records); snapshot does "
    "not import Qwen Code yet (no real sample to check an importer against)"
)
