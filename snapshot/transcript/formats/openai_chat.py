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
from collections.abc import Iterator, Mapping
from itertools import chain
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript import spill
from snapshot.transcript.formats import (
    Format,
    ImportOptions,
    anthropic_messages,
    gemini_content,
    openai_responses,
)
from snapshot.transcript.formats._common import head_text, starts_like_tau_runs
from snapshot.transcript.formats._json_stream import JSONDocument
from snapshot.transcript.formats._openai_messages import OPENAI_CHAT, conversation_from_openai
from snapshot.transcript.formats.tau_bench import conversations_from_runs
from snapshot.transcript.model import Conversation

NAME = OPENAI_CHAT
_EMPTY = object()  # what an empty list's first element is


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: a folder; openai-chat imports a JSON file of messages")
    # One document, mostly its list of messages: read one message at a time.
    doc = JSONDocument(path, "messages")
    meta: dict[str, Any] = {}
    records: Iterator[Any]
    if doc.shape == "array":
        items = doc.items()
        first = next(items, _EMPTY)
        if isinstance(first, Mapping) and "traj" in first:  # a tau-bench list of runs
            return conversations_from_runs(chain([first], items), path, options)
        records = chain([first], items) if first is not _EMPTY else iter(())
    elif doc.shape == "object":
        if not doc.found:
            raise TranscriptError(f"{path}: a JSON object without a 'messages' list")

        def request_then_reply() -> Iterator[Any]:
            yield from doc.items()
            data = doc.fields  # complete once the messages are read
            for key in ("model", "tools"):
                if key in data:
                    meta[key] = data[key]
            reply = _logged_reply(data)
            if reply is not None:
                # A LiteLLM completion log keeps the answer beside the request.
                meta["reply_from"] = "response.choices[0].message"
                yield reply

        records = request_then_reply()
    else:
        raise TranscriptError(f"{path}: expected a list of messages or an object with 'messages'")
    if options.select:
        doc.close()
        raise TranscriptError(f"{path}: holds one conversation; --select is for files holding many")
    file = spill.SpillFile() if path.stat().st_size >= spill.SPILL_BYTES else None
    return [
        conversation_from_openai(
            records,
            conv_id=path.stem,
            source=str(path),
            where=str(path),
            meta=meta,
            spill_file=file,
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


def score(path: Path, head: bytes) -> float:
    """0.6 for a list (or ``messages`` list) of role objects; 0.5 when a more specific
    chat API claims the same head (its content blocks, ``parts`` or Responses items):
    openai-chat reads those shapes too, so it stays a candidate, behind them.

    >>> score(Path("m.json"), b'[{"role": "user", "content": "hi"}]')
    0.6
    >>> score(Path("m.json"), b'[{"role": "user", "parts": [{"text": "hi"}]}]')
    0.5
    """
    if path.is_dir():
        return 0.0
    text = head_text(head)
    ours = False
    if text.startswith("["):
        ours = _LIST_OF_MESSAGES.match(text) is not None or starts_like_tau_runs(text)
    elif text.startswith("{"):
        ours = _MESSAGES_KEY.search(text) is not None and _ROLE_RE.search(head) is not None
    if not ours:
        return 0.0
    return 0.5 if any(other(path, head) for other in _MORE_SPECIFIC) else 0.6


# The chat APIs whose bodies are lists of role objects too, with marks of their own.
_MORE_SPECIFIC = (anthropic_messages.score, gemini_content.score, openai_responses.score)


FORMAT = Format(
    name=NAME,
    description="OpenAI chat messages (tool_calls, role: tool, image_url data URLs)",
    score=score,
    load=load,
)
