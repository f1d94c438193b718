"""OpenAI chat messages: ``tool_calls``, ``role: tool``, ``image_url`` parts.

Accepts a JSON list of messages, a chat-completions request body
(``{"model": ..., "messages": [...]}``) or a JSON object with a ``messages``
list. A tau-bench trajectories file (a list of runs with ``traj``) is handed to
:mod:`snapshot.transcript.formats.tau_bench`, so ``--format openai-chat`` works
on it too.

Pairing: ``tool_calls[].id`` = ``tool_call_id`` of a ``role: "tool"`` message;
the legacy ``function_call`` / ``role: "function"`` pair by position.

This module also holds the small helpers the other JSON-based importers of
this family share (JSON loading that names the line, data URLs, image headers).
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.model import (
    Block,
    Conversation,
    ImageBlock,
    Message,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
    tool_pairing,
)

NAME = "openai-chat"

# Images larger than this many pixels are refused at import: a header claiming
# 50 000 x 50 000 is a decompression bomb waiting for whoever decodes it later.
MAX_IMAGE_PIXELS = 1 << 28

# What providers accept as image media types.
IMAGE_MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")

_PIL_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


# --- shared helpers ---------------------------------------------------------------


def load_json(path: Path) -> Any:
    """Parse a whole JSON file; a syntax error names the file, line and column."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TranscriptError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptError(
            f"{path}:{exc.lineno}:{exc.colno}: malformed JSON: {exc.msg}; "
            "fix the file or import another one"
        ) from exc
    except RecursionError as exc:
        raise TranscriptError(f"{path}: JSON nested too deeply to import") from exc


def iter_jsonl(path: Path, warnings_out: list[str]) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every line of a JSON-lines file.

    A malformed line is reported in ``warnings_out`` (file and line) and the
    rest is still read, so one torn write does not lose a whole log.
    """
    try:
        fh = path.open("r", encoding="utf-8", errors="replace")
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
    with fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError as exc:
                warnings_out.append(f"{path}:{lineno}: malformed JSON line skipped ({exc.msg})")
            except RecursionError:
                warnings_out.append(f"{path}:{lineno}: JSON nested too deeply; line skipped")


def head_text(head: bytes) -> str:
    return head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")


def image_header(data: bytes) -> tuple[str, int, int]:
    """``(media type, width, height)`` from an encoded image's header.

    Pillow's ``open`` reads only the header; pixels are never decoded here.
    Raises :class:`TranscriptError` when the bytes are not a PNG/JPEG/GIF/WebP
    image or claim more than :data:`MAX_IMAGE_PIXELS` pixels.
    """
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's bomb warning: we apply our own cap
            with Image.open(io.BytesIO(data)) as img:
                fmt = img.format or ""
                width, height = img.size
    except Image.DecompressionBombError as exc:
        raise TranscriptError(f"image too large to be safe: {exc}") from exc
    except Exception as exc:  # Pillow raises many types for garbage bytes
        raise TranscriptError(
            f"not an image ({len(data)} bytes starting {data[:8]!r}): {exc}"
        ) from exc
    media_type = _PIL_FORMATS.get(fmt)
    if media_type is None:
        raise TranscriptError(f"unsupported image format {fmt or 'unknown'!r}")
    if width * height > MAX_IMAGE_PIXELS:
        raise TranscriptError(f"image claims {width}x{height} pixels, more than is safe to keep")
    return media_type, width, height


def image_file_header(path: Path) -> tuple[str, int, int]:
    """Like :func:`image_header` for a file, reading only its first bytes."""
    try:
        with path.open("rb") as fh:
            head = fh.read(256 * 1024)  # headers (even JPEG's EXIF) sit at the start
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
    try:
        return image_header(head)
    except TranscriptError as exc:
        raise TranscriptError(f"{path}: {exc}") from exc


_DATA_URL = re.compile(r"^data:([\w.+/-]*)((?:;[\w=.+-]+)*?)(;base64)?,", re.IGNORECASE)


def image_from_bytes(data: bytes, origin: str) -> ImageBlock:
    """An :class:`ImageBlock` whose media type and size come from the header.

    The header is trusted over any declared type: a PNG labelled image/jpeg
    is common in real logs and providers reject the mismatch.
    """
    media_type, width, height = image_header(data)
    return ImageBlock(media_type=media_type, data=data, width=width, height=height, origin=origin)


def image_from_data_url(url: str, origin: str) -> ImageBlock:
    """Decode a ``data:image/...;base64,...`` URL; raises TranscriptError when it is not one."""
    m = _DATA_URL.match(url)
    if m is None or not m.group(3):
        raise TranscriptError(f"not a base64 data URL ({url[:40]!r}...)")
    payload = url[m.end() :]
    try:
        data = base64.b64decode(payload, validate=False)
    except (binascii.Error, ValueError) as exc:
        raise TranscriptError(f"data URL is not valid base64: {exc}") from exc
    return image_from_bytes(data, origin)


def image_or_note(url: str, origin: str, where: str, warns: list[str]) -> Block:
    """An image from a URL, or a text note (and a warning) when it cannot be kept.

    Remote URLs are not fetched (no network at import); they stay as a note.
    """
    if url.startswith("data:"):
        try:
            return image_from_data_url(url, origin)
        except TranscriptError as exc:
            warns.append(f"{where}: image dropped: {exc}")
            return TextBlock(f"[image not kept: {exc}]")
    warns.append(f"{where}: remote image URL kept as text (not fetched)")
    return TextBlock(f"[image: {url}]")


def pairing_warnings(messages: Sequence[Message], where: str) -> list[str]:
    """Warnings for tool results without calls and calls without results."""
    pairing = tool_pairing(messages)
    out: list[str] = []
    if pairing.orphan_results:
        ids = ", ".join(pairing.orphan_results[:5])
        out.append(
            f"{where}: {len(pairing.orphan_results)} tool result(s) without a call ({ids}); "
            "exporters turn them into text"
        )
    if pairing.unanswered_calls:
        ids = ", ".join(pairing.unanswered_calls[:5])
        out.append(
            f"{where}: {len(pairing.unanswered_calls)} tool call(s) without a result ({ids}); "
            "exporters answer them with an error result"
        )
    return out


def parse_arguments(raw: Any, where: str, warns: list[str]) -> dict[str, Any]:
    """Tool-call arguments: a JSON object string (or already an object)."""
    if isinstance(raw, Mapping):
        return dict(raw)
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            warns.append(f"{where}: tool-call arguments are not JSON; kept as a string")
            return {"_raw_arguments": raw}
        if isinstance(value, dict):
            return value
        return {"_arguments": value}
    return {"_arguments": raw}


# --- OpenAI chat parsing -------------------------------------------------------------


def _content_blocks(
    content: Any, where: str, warns: list[str], skipped: dict[str, int]
) -> list[Block]:
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(content)] if content else []
    if isinstance(content, Mapping):
        content = [content]
    if not isinstance(content, list):
        warns.append(f"{where}: content of type {type(content).__name__} kept as text")
        return [TextBlock(str(content))]
    out: list[Block] = []
    for i, part in enumerate(content):
        if isinstance(part, str):
            out.append(TextBlock(part))
            continue
        if not isinstance(part, Mapping):
            skipped["non-object content part"] = skipped.get("non-object content part", 0) + 1
            continue
        kind = part.get("type")
        if kind in ("text", "input_text", "output_text"):
            out.append(TextBlock(str(part.get("text") or "")))
        elif kind in ("image_url", "input_image"):
            ref = part.get("image_url")
            url = ref.get("url") if isinstance(ref, Mapping) else ref
            if not isinstance(url, str):
                warns.append(f"{where}: part {i}: image_url without a URL skipped")
                continue
            out.append(image_or_note(url, "inline", f"{where}: part {i}", warns))
        elif kind == "refusal":
            out.append(TextBlock(str(part.get("refusal") or "")))
        else:
            key = f"content part {kind!r}"
            skipped[key] = skipped.get(key, 0) + 1
    return out


def messages_from_openai(
    records: Sequence[Any],
    *,
    where: str,
    id_prefix: str = "m",
    warns: list[str] | None = None,
) -> tuple[list[Message], list[str], dict[str, int]]:
    """Neutral messages (each continuing from the previous) from OpenAI chat messages.

    Returns ``(messages, warnings, skipped)`` where ``skipped`` counts what was
    not understood (unknown roles, unknown content parts) by kind.
    """
    warns = [] if warns is None else warns
    skipped: dict[str, int] = {}
    out: list[Message] = []
    parent: str | None = None
    pending_function: list[str] = []  # legacy function_call ids waiting for role=function
    for i, rec in enumerate(records):
        at = f"{where}: message {i}"
        if not isinstance(rec, Mapping):
            skipped["non-object message"] = skipped.get("non-object message", 0) + 1
            warns.append(f"{at}: not a JSON object; skipped")
            continue
        role = rec.get("role")
        blocks: list[Block] = []
        meta: dict[str, Any] = {}
        nrole: Role
        if role in ("system", "developer"):
            nrole = "system"
            blocks = _content_blocks(rec.get("content"), at, warns, skipped)
            if role == "developer":
                meta["openai_role"] = "developer"
        elif role == "user":
            nrole = "user"
            blocks = _content_blocks(rec.get("content"), at, warns, skipped)
        elif role == "assistant":
            nrole = "assistant"
            reasoning = rec.get("reasoning_content") or rec.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                blocks.append(ThinkingBlock(reasoning))
            blocks.extend(_content_blocks(rec.get("content"), at, warns, skipped))
            if isinstance(rec.get("refusal"), str) and rec["refusal"]:
                blocks.append(TextBlock(rec["refusal"]))
            for j, call in enumerate(rec.get("tool_calls") or ()):
                if not isinstance(call, Mapping):
                    warns.append(f"{at}: tool call {j} is not an object; skipped")
                    continue
                raw_fn = call.get("function")
                fn: Mapping[str, Any] = raw_fn if isinstance(raw_fn, Mapping) else {}
                call_id = str(call.get("id") or f"{id_prefix}{i}-call{j}")
                blocks.append(
                    ToolCall(
                        id=call_id,
                        name=str(fn.get("name") or call.get("name") or "unknown"),
                        input=parse_arguments(fn.get("arguments"), f"{at} call {call_id}", warns),
                    )
                )
            legacy = rec.get("function_call")
            if isinstance(legacy, Mapping):
                call_id = f"{id_prefix}{i}-function"
                pending_function.append(call_id)
                blocks.append(
                    ToolCall(
                        id=call_id,
                        name=str(legacy.get("name") or "unknown"),
                        input=parse_arguments(legacy.get("arguments"), at, warns),
                    )
                )
        elif role in ("tool", "function"):
            nrole = "tool"
            if role == "tool":
                call_id = str(rec.get("tool_call_id") or "")
                if not call_id:
                    warns.append(f"{at}: tool message without tool_call_id")
                    call_id = f"{id_prefix}{i}-missing-call"
            else:  # legacy: answers the oldest open function_call by position
                call_id = pending_function.pop(0) if pending_function else f"{id_prefix}{i}-orphan"
            content = _content_blocks(rec.get("content"), at, warns, skipped)
            result_content = tuple(b for b in content if isinstance(b, TextBlock | ImageBlock))
            blocks = [ToolResult(call_id=call_id, content=result_content)]
            if rec.get("name"):
                meta["name"] = rec["name"]
        else:
            key = f"role {role!r}"
            skipped[key] = skipped.get(key, 0) + 1
            continue
        mid = f"{id_prefix}{i}"
        out.append(Message(id=mid, parent=parent, role=nrole, blocks=tuple(blocks), meta=meta))
        parent = mid
    if skipped:
        what = ", ".join(f"{n} × {k}" for k, n in sorted(skipped.items()))
        warns.append(f"{where}: skipped what is not OpenAI chat: {what}")
    return out, warns, skipped


def conversation_from_openai(
    records: Sequence[Any],
    *,
    conv_id: str,
    source: str,
    where: str,
    format_name: str = NAME,
    meta: Mapping[str, Any] | None = None,
) -> Conversation:
    messages, warns, skipped = messages_from_openai(records, where=where)
    warns.extend(pairing_warnings(messages, where))
    full_meta = dict(meta or {})
    if skipped:
        full_meta["skipped"] = skipped
    return Conversation(
        id=conv_id,
        messages=tuple(messages),
        tip=messages[-1].id if messages else None,
        format=format_name,
        source=source,
        meta=full_meta,
        warnings=tuple(warns),
    )


def _is_tau_bench(data: Any) -> bool:
    return (
        isinstance(data, list) and bool(data) and isinstance(data[0], Mapping) and "traj" in data[0]
    )


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    if path.is_dir():
        raise TranscriptError(f"{path}: a folder; openai-chat imports a JSON file of messages")
    data = load_json(path)
    if _is_tau_bench(data):
        from snapshot.transcript.formats import tau_bench

        return tau_bench.conversations_from_runs(data, path, options)
    meta: dict[str, Any] = {}
    if isinstance(data, Mapping):
        records = data.get("messages")
        if not isinstance(records, list):
            raise TranscriptError(f"{path}: a JSON object without a 'messages' list")
        for key in ("model", "tools"):
            if key in data:
                meta[key] = data[key]
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
        return _LIST_OF_MESSAGES.match(text) is not None or _is_tau_head(text)
    if text.startswith("{"):
        return _MESSAGES_KEY.search(text) is not None and _ROLE_RE.search(head) is not None
    return False


def _is_tau_head(text: str) -> bool:
    return re.match(r'^\[\s*\{\s*"(task_id|reward|info|traj|trial)"', text) is not None


FORMAT = Format(
    name=NAME,
    description="OpenAI chat messages (tool_calls, role: tool, image_url data URLs)",
    sniff=sniff,
    load=load,
)
