"""Request bodies ↔ conversations, keeping every field the proxy does not change.

:func:`conversation_of` reads a body with the package's own importer of its
shape (``anthropic-messages``, ``openai-chat``, ``openai-responses``,
``gemini-content``). :func:`splice` writes a compacted conversation back into
the *original* body: both the original and the compacted conversation are
exported, the items the two exports share at the front and at the back stay
the client's own JSON (``cache_control``, unknown fields and all), and only the
items between them are replaced. Every other top-level field (``system``,
``tools``, ``thinking``, ``metadata``, sampling, ``stream``...) is never touched.

>>> body = {"model": "m", "temperature": 0.2, "metadata": {"user_id": "u"},
...         "messages": [{"role": "user", "content": [
...             {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]}
>>> from snapshot.proxy.shapes import ANTHROPIC
>>> conv = conversation_of(ANTHROPIC, body, "c")
>>> spliced = splice(ANTHROPIC, body, conv, conv)
>>> spliced.body == body, spliced.replaced
(True, (1, 1))
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.proxy.shapes import Shape
from snapshot.transcript.model import Conversation


def conversation_of(shape: Shape, body: dict[str, Any], conv_id: str) -> Conversation:
    """The neutral conversation of a request body, by the package's importer for its shape."""
    from dataclasses import replace

    if shape.name == "anthropic":
        from snapshot.transcript.formats.anthropic_messages import conversation_from_body

        return conversation_from_body(body, conv_id=conv_id, source="proxy request")
    if shape.name == "openai":
        from snapshot.transcript.formats.openai_chat import conversation_from_openai

        items = shape.history(body)
        if items is None:
            raise TranscriptError("request body without a 'messages' list")
        return conversation_from_openai(
            items, conv_id=conv_id, source="proxy request", where="request body"
        )
    # Responses and Gemini bodies are read by importers that stream a file.
    from snapshot.transcript.formats import ImportOptions, get_format

    fd, name = tempfile.mkstemp(prefix="snapshot-proxy-", suffix=".json")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(json.dumps(body, ensure_ascii=False).encode("utf-8"))
        [conv] = get_format(shape.import_as).load(Path(name), ImportOptions())
    finally:
        os.unlink(name)
    return replace(conv, id=conv_id, source="proxy request")


def exported_history(shape: Shape, conv: Conversation, model: str | None) -> list[Any]:
    """The history list the package's exporter writes for ``conv`` in ``shape``."""
    from snapshot.transcript.export import export

    body = export(conv, shape.export_as, model=model).body
    items = body.get(shape.history_key) if isinstance(body, dict) else None
    return list(items) if isinstance(items, list) else []


@dataclass(frozen=True)
class Spliced:
    """The body to send, and which of the original's history items were replaced."""

    body: dict[str, Any]
    replaced: tuple[int, int]  # [start, end) of the original items replaced
    items: tuple[Any, ...]  # what stands for them


def _common_prefix(a: list[Any], b: list[Any]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def splice(
    shape: Shape,
    original: dict[str, Any],
    before: Conversation,
    after: Conversation,
    model: str | None = None,
) -> Spliced:
    """``original`` with the span of history ``after`` changed replaced by its export."""
    items = shape.history(original) or []
    exported_before = exported_history(shape, before, model)
    exported_after = exported_history(shape, after, model)
    if len(exported_before) != len(items):
        # The exporter merged or repaired items: the client's items cannot be matched one
        # to one, so the whole history is the exporter's (other fields still the client's).
        return Spliced(
            {**original, shape.history_key: exported_after},
            (0, len(items)),
            tuple(exported_after),
        )
    front = _common_prefix(exported_before, exported_after)
    limit = min(len(exported_before), len(exported_after)) - front
    back = min(_common_prefix(exported_before[::-1], exported_after[::-1]), limit)
    middle = exported_after[front : len(exported_after) - back]
    body = dict(original)
    body[shape.history_key] = [*items[:front], *middle, *items[len(items) - back :]]
    return Spliced(body, (front, len(items) - back), tuple(middle))
