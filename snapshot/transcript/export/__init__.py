"""Exporters: a conversation's live path → provider request bodies, or Markdown.

Every body is one a provider accepts as is:

- every tool call is answered, right after the assistant turn that made it
  (Anthropic: ``tool_result`` blocks first in the next user message; OpenAI
  chat: ``role: tool`` messages right after the assistant's ``tool_calls``;
  Responses: ``function_call_output`` items; Gemini: ``functionResponse``
  parts in the next user turn);
- no result without its call; roles in the order the provider wants
  (Anthropic and Gemini: alternating, consecutive same-role turns merged).

Real logs break these rules (a run killed mid-call, a result logged after the
user interrupted, ids another provider would reject), so the exporter repairs
them the way the providers require and says so: a call without a result gets
a synthetic error result carrying the call's own id; a result without a call
becomes a text note; an id or tool name outside the provider's character set
is replaced by a stable derived one. Each repair is one line in
:attr:`Export.notes`; nothing is changed silently.

Gemini 3 refuses a function call of the current turn without a
``thoughtSignature``: a signature the source recorded (a Gemini history) is
sent back unchanged, and a call Gemini did not make carries the dummy value
Google documents for that case (noted). Responses function tools carry the
``strict`` flag the API requires, and earlier assistant text goes as an input
message.

Images go as base64 blocks (Anthropic), data URLs (OpenAI) or inline data
(Gemini); an image whose file is missing or whose type a provider does not
take becomes a text note (and a note).

One module per body shape (:mod:`.anthropic`, :mod:`.openai_chat`,
:mod:`.openai_responses`, :mod:`.gemini`, :mod:`.markdown`), all written from
the one plan of the path (:mod:`.plan`) with the pieces they share
(:mod:`.common`); every name is importable from here.

>>> from snapshot.transcript.model import linear, TextBlock, ToolCall
>>> conv = linear("c", [("u", "user", [TextBlock("hi")]),
...                     ("a", "assistant", [ToolCall("t1", "ls", {})])])
>>> out = export_anthropic(conv)
>>> [m["role"] for m in out.body["messages"]]
['user', 'assistant', 'user']
>>> out.notes
('a: tool call t1 (ls) has no result; answered with a synthetic error result',)
"""

from __future__ import annotations

from snapshot.errors import TranscriptError
from snapshot.transcript.export.anthropic import export_anthropic, to_anthropic
from snapshot.transcript.export.common import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    IMAGE_MEDIA_TYPES,
    SYNTHETIC_RESULT,
    THINKING_LEFT_OUT,
    THOUGHT_SIGNATURES,
    Export,
    body_image_sizes,
)
from snapshot.transcript.export.gemini import export_gemini, to_gemini
from snapshot.transcript.export.markdown import export_markdown, to_markdown
from snapshot.transcript.export.openai_chat import export_openai, to_openai
from snapshot.transcript.export.openai_responses import (
    export_openai_responses,
    to_openai_responses,
)
from snapshot.transcript.model import Conversation

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_MODEL",
    "IMAGE_MEDIA_TYPES",
    "SYNTHETIC_RESULT",
    "TARGETS",
    "THINKING_LEFT_OUT",
    "THOUGHT_SIGNATURES",
    "Export",
    "body_image_sizes",
    "export",
    "export_anthropic",
    "export_gemini",
    "export_markdown",
    "export_openai",
    "export_openai_responses",
    "to_anthropic",
    "to_gemini",
    "to_markdown",
    "to_openai",
    "to_openai_responses",
]

TARGETS = ("anthropic", "openai", "openai-responses", "gemini", "markdown")


def export(conv: Conversation, target: str, *, model: str | None = None) -> Export:
    """Export to one of :data:`TARGETS`."""
    if target == "anthropic":
        return export_anthropic(conv, model=model)
    if target == "openai":
        return export_openai(conv, model=model)
    if target == "openai-responses":
        return export_openai_responses(conv, model=model)
    if target == "gemini":
        return export_gemini(conv)
    if target == "markdown":
        return export_markdown(conv)
    raise TranscriptError(f"unknown export target {target!r}; choose one of {', '.join(TARGETS)}")
