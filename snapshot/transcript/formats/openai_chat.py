"""OpenAI chat messages: ``tool_calls``, ``role: tool``, ``image_url`` parts.

Accepts a JSON list of messages, a chat-completions request body
(``{"model": ..., "messages": [...]}``) or a JSON object with a ``messages``
list. A tau-bench trajectories file (a list of runs with ``traj``) is handed to
:mod:`snapshot.transcript.formats.tau_bench`, so ``--format openai-chat`` works
on it too.

The messages themselves are read by
:mod:`snapshot.transcript.formats._openai_messages` (pairing by
``tool_calls[].id`` = ``tool_call_id``; legacy ``function_call`` by position).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._common import head_text, load_json, starts_like_tau_runs
from snapshot.transcript.formats._openai_messages import OPENAI_CHAT, conversation_from_openai
from snapshot.transcript.formats.tau_bench import conversations_from_runs
from snapshot.transcript.model import Conversation

NAME = OPENAI_CHAT


def _is_tau_bench(data: Any) -> bool:
    return (
        isinstance(data, list) and bool(data) and isinstance(data[0], Mapping) and "traj" in data[0]
    )


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: a folder; openai-chat imports a JSON file of messages")
    data = load_json(path)
    if _is_tau_bench(data):
        return conversations_from_runs(data, path, options)
    meta: dict[str, Any] = {}
    if isinstance(data, Mapping):
        records = data.get("messages")
        if not isinstance(records, list):
            raise TranscriptError(f"{path}: a JSON object without a 'messages' list")
        for key in ("model", "tools"):
            if key in data:
                meta[key] = data[key]
        reply = _logged_reply(data)
        if reply is not None:
            # A LiteLLM completion log keeps the answer beside the request.
            records = [*records, reply]
            meta["reply_from"] = "response.choices[0].message"
    elif isinstance(data, list):
        records = data
    else:
        raise TranscriptError(f"{path}: expected a list of messages or an object with 'messages'")
    if options.select:
        raise TranscriptError(f"{path}: holds one conversation; --select is for files holding many")
    return [
        conversation_from_openai(
            records, conv_id=path.stem, source=str(path), where=str(path), meta=meta
        )
    ]


def _logged_reply(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The assistant message of a logged ``response`` (a chat completion), if any."""
    response = data.get("response")
    if not isinstance(response, Mapping):
        return None
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        return None
    message = choices[0].get("message")
    return message if isinstance(message, Mapping) and message.get("role") == "assistant" else None


_ROLE_RE = re.compile(rb'"role"\s*:\s*"(system|developer|user|assistant|tool|function)"')
# A list whose first object has a role before any nested object: a list of messages,
# not a list of events that merely mention a role deep inside.
_LIST_OF_MESSAGES = re.compile(r'^\[\s*\{[^{}]*"role"\s*:')
_MESSAGES_KEY = re.compile(r'"messages"\s*:\s*\[')


def sniff(path: Path, head: bytes) -> bool:
    if path.is_dir():
        return False
    text = head_text(head)
    if text.startswith("["):
        return _LIST_OF_MESSAGES.match(text) is not None or starts_like_tau_runs(text)
    if text.startswith("{"):
        return _MESSAGES_KEY.search(text) is not None and _ROLE_RE.search(head) is not None
    return False


FORMAT = Format(
    name=NAME,
    description="OpenAI chat messages (tool_calls, role: tool, image_url data URLs)",
    sniff=sniff,
    load=load,
)
