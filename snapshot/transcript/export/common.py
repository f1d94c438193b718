"""What every exporter shares: the result type, placeholders, tool definitions, images."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.images import ImageRefused, image_roots, read_image
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    TextBlock,
    ToolResult,
)

# Placeholders for the body's model field; the caller names the real model.
DEFAULT_MODEL = {
    "anthropic": "claude-sonnet-4-5",
    "openai": "gpt-4o",
    "openai-responses": "gpt-4o",
}
DEFAULT_MAX_TOKENS = 4096

SYNTHETIC_RESULT = "[no result was recorded for this tool call; added on export]"

# What an assistant turn that held only thinking says where the target has no
# field for thinking (an empty assistant message is refused).
THINKING_LEFT_OUT = "[thinking not included]"

# Message meta key: {call id: Gemini thoughtSignature} as the source recorded them.
THOUGHT_SIGNATURES = "thought_signatures"

# Media types all three providers take for images.
IMAGE_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


@dataclass(frozen=True)
class Export:
    """An exported body (a dict for request bodies, a str for Markdown) and its repair notes."""

    body: Any
    notes: tuple[str, ...] = ()
    # Exported ids of the calls answered by a synthetic error result (the log has none).
    synthetic_results: tuple[str, ...] = ()


def _tool_schemas(conv: Conversation) -> dict[str, tuple[str, dict[str, Any]]]:
    """Known tool definitions (name → description, JSON schema) from the conversation's meta."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    tools = conv.meta.get("tools")
    if not isinstance(tools, list):
        return out
    for t in tools:
        if not isinstance(t, Mapping):
            continue
        fn = t.get("function") if isinstance(t.get("function"), Mapping) else t
        assert isinstance(fn, Mapping)
        name = fn.get("name")
        schema = fn.get("parameters") or fn.get("input_schema")
        if isinstance(name, str) and isinstance(schema, Mapping) and schema.get("type") == "object":
            out[name] = (str(fn.get("description") or ""), dict(schema))
    return out


def tool_definitions(
    conv: Conversation, names: Iterable[str]
) -> list[tuple[str, str, dict[str, Any]]]:
    """``(name, description, schema)`` for each exported tool name, in the order given.

    A tool the conversation's meta does not define gets a bare object schema
    (a fresh one each, so no two tools of a body share a dict).
    """
    known = _tool_schemas(conv)
    out: list[tuple[str, str, dict[str, Any]]] = []
    for name in names:
        description, schema = known.get(name) or (
            "Recovered from the transcript; the original definition was not recorded.",
            {"type": "object"},
        )
        out.append((name, description, schema))
    return out


def nothing_to_export(conv: Conversation) -> TranscriptError:
    return TranscriptError(f"conversation {conv.id!r} has no user or assistant content to export")


def add_turn(turns: list[dict[str, Any]], role: str, key: str, parts: list[dict[str, Any]]) -> None:
    """Append a turn, or extend the last one if it has the same role.

    For the APIs that want user and assistant turns to alternate (Anthropic,
    Gemini); ``key`` is where a turn keeps its parts there.
    """
    if not parts:
        return
    if turns and turns[-1]["role"] == role:
        turns[-1][key].extend(parts)
    else:
        turns.append({"role": role, key: parts})


def images_after_results(
    results: Sequence[ToolResult], after: str, notes: list[str]
) -> list[Block]:
    """The images tool results returned, to follow the results in a user message.

    For the OpenAI APIs, whose tool results take only text; each result with
    images gets a note saying they were moved ``after`` the results.
    """
    returned: list[Block] = []
    for r in results:
        if r.images():
            notes.append(
                f"result {r.call_id}: {len(r.images())} image(s) sent in a user message after {after}"
            )
            returned.append(TextBlock(f"[images returned by tool call {r.call_id}]"))
            returned.extend(r.images())
    return returned


def data_url(p: tuple[str, str]) -> str:
    return f"data:{p[0]};base64,{p[1]}"


def joined_text(blocks: Sequence[Block]) -> str:
    return "\n\n".join(b.text for b in blocks if isinstance(b, TextBlock))


def result_text(r: ToolResult) -> str:
    text = r.text()
    return f"[error] {text}" if r.is_error else text


class ExportImages:
    """Loads image bytes for export, turning unusable images into notes."""

    def __init__(self, notes: list[str], conv: Conversation) -> None:
        self.notes = notes
        self.roots, self.refused = image_roots(conv), dict[int, str]()  # only from its folder

    def payload(self, img: ImageBlock, where: str) -> tuple[str, str] | None:
        """``(media type, base64)`` or None (a note was added)."""
        if img.media_type not in IMAGE_MEDIA_TYPES:
            self.notes.append(
                f"{where}: image of type {img.media_type} left out (providers take png, jpeg, gif, webp)"
            )
            return None
        try:
            data = read_image(img, self.roots)
        except ImageRefused as exc:
            self.notes.append(f"{where}: image left out: {exc}")
            self.refused[id(img)] = exc.reason
            return None
        return img.media_type, base64.b64encode(data).decode("ascii")

    def placeholder(self, img: ImageBlock) -> str:
        # The file's name only: a local folder path says nothing to the model and
        # is the user's own (``/home/me/...``), not something to send a provider.
        raw = img.origin or img.path or "image"
        name = re.split(r"[\\/]", raw.rstrip("/\\"))[-1] or "image"
        why = f": {self.refused[id(img)]}" if id(img) in self.refused else ""
        return f"[image {name} not included{why}]"

    def in_assistant(self, img: ImageBlock, turn_id: str) -> str:
        """The text an image in an assistant turn becomes (noted): only Gemini takes one there."""
        self.notes.append(f"{turn_id}: image in an assistant message sent as a text note")
        return self.placeholder(img)


def body_image_sizes(body: Any) -> list[int]:
    """Base64 length of every image a request body carries (any provider's shape).

    For checking a body against a route's limits (images per request, bytes
    per image) before it is sent.
    """
    sizes: list[int] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            source = value.get("source")
            if value.get("type") == "image" and isinstance(source, dict):
                sizes.append(len(str(source.get("data") or "")))
                return
            url = value.get("image_url")
            if isinstance(url, dict):
                url = url.get("url")
            if value.get("type") in ("image_url", "input_image") and isinstance(url, str):
                sizes.append(len(url.partition(",")[2]))
                return
            inline = value.get("inlineData")
            if isinstance(inline, dict):
                sizes.append(len(str(inline.get("data") or "")))
                return
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(body)
    return sizes
