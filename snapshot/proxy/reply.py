"""A provider's reply, read as it passes through: its usage and the assistant turn.

:class:`ReplyReader` is fed the reply's bytes as they arrive (a server-sent
event stream, or one JSON document) and never holds the stream back: it keeps
only what the turn needs, the assistant's items in the request's own shape (to
append to the history at the turn boundary) and the provider's measured
``usage``, normalized to ``input`` (uncached), ``cache_read``, ``cache_write``
and ``output`` tokens. Event formats: Anthropic ``message_start`` /
``content_block_*`` / ``message_delta``; OpenAI chat chunks (usage in the last
chunk with ``stream_options.include_usage``; the turn ends at ``[DONE]``); Responses ``response.completed``;
Gemini ``streamGenerateContent?alt=sse`` chunks with ``usageMetadata``.

>>> r = ReplyReader("anthropic", streaming=True)
>>> r.feed(b'event: message_start\\ndata: {"type":"message_start","message":{"usage":'
...        b'{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":1}}}\\n\\n')
>>> r.feed(b'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\\n\\n'
...        b'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}\\n\\n'
...        b'data: {"type":"message_delta","delta":{},"usage":{"output_tokens":3}}\\n\\n'
...        b'data: {"type":"message_stop"}\\n\\n')
>>> r.finish().items, r.usage
([{'role': 'assistant', 'content': [{'type': 'text', 'text': 'hi'}]}], {'input': 10, 'cache_read': 5, 'cache_write': 0, 'output': 3})
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

# A non-streamed reply larger than this is passed on but not read (no turn is stored).
MAX_READ_BYTES = 64 * 1024 * 1024


@dataclass
class UpstreamReply:
    """What the reply added to the conversation, and whether it completed."""

    items: list[Any] = field(default_factory=list)
    complete: bool = False


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


class ReplyReader:
    """Reads one reply of ``shape`` (anthropic, openai, openai-responses, gemini)."""

    def __init__(self, shape: str, *, streaming: bool) -> None:
        self.shape = shape
        self.streaming = streaming
        self.usage: dict[str, int] | None = None
        self._buffer = b""
        self._body = bytearray()
        self._too_big = False
        self._blocks: dict[int, dict[str, Any]] = {}
        self._partial_json: dict[int, str] = {}
        self._chat: dict[str, Any] = {"role": "assistant", "content": ""}
        self._calls: dict[int, dict[str, Any]] = {}
        self._parts: list[dict[str, Any]] = []
        self._responses: list[Any] | None = None
        self._done = False

    @property
    def done(self) -> bool:
        """Whether the stream's closing event has been read."""
        return self._done

    # -- input ----------------------------------------------------------------------

    def feed(self, chunk: bytes) -> None:
        if not self.streaming:
            if len(self._body) + len(chunk) > MAX_READ_BYTES:
                self._too_big = True
            elif not self._too_big:
                self._body += chunk
            return
        self._buffer += chunk
        while True:
            cut = self._buffer.find(b"\n")
            if cut < 0:
                break
            line, self._buffer = self._buffer[:cut].rstrip(b"\r"), self._buffer[cut + 1 :]
            if line.startswith(b"data:"):
                self._event(line[5:].strip())

    def _event(self, data: bytes) -> None:
        if data == b"[DONE]":
            self._done = True
            return
        try:
            event = json.loads(data)
        except ValueError:
            return
        if isinstance(event, dict):
            getattr(self, "_" + self.shape.replace("-", "_"))(event)

    # -- per shape ------------------------------------------------------------------

    def _anthropic(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "message_start":
            self._anthropic_usage((event.get("message") or {}).get("usage"))
        elif kind == "content_block_start":
            block = event.get("content_block")
            if isinstance(block, dict):
                self._blocks[_int(event.get("index"))] = dict(block)
        elif kind == "content_block_delta":
            self._anthropic_delta(_int(event.get("index")), event.get("delta") or {})
        elif kind == "content_block_stop":
            index = _int(event.get("index"))
            raw = self._partial_json.pop(index, None)
            if raw is not None and index in self._blocks:
                with contextlib.suppress(ValueError):
                    self._blocks[index]["input"] = json.loads(raw) if raw else {}
        elif kind == "message_delta":
            self._anthropic_usage(event.get("usage"))
        elif kind == "message_stop":
            self._done = True

    def _anthropic_delta(self, index: int, delta: dict[str, Any]) -> None:
        block = self._blocks.get(index)
        if block is None:
            return
        kind = delta.get("type")
        if kind == "text_delta":
            block["text"] = block.get("text", "") + str(delta.get("text", ""))
        elif kind == "input_json_delta":
            self._partial_json[index] = self._partial_json.get(index, "") + str(
                delta.get("partial_json", "")
            )
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + str(delta.get("thinking", ""))
        elif kind == "signature_delta":
            block["signature"] = str(delta.get("signature", ""))

    def _anthropic_usage(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        now = self.usage or {"input": 0, "cache_read": 0, "cache_write": 0, "output": 0}
        for ours, theirs in (
            ("input", "input_tokens"),
            ("cache_read", "cache_read_input_tokens"),
            ("cache_write", "cache_creation_input_tokens"),
            ("output", "output_tokens"),
        ):
            if isinstance(usage.get(theirs), int):
                now[ours] = usage[theirs]
        self.usage = now

    def _openai(self, event: dict[str, Any]) -> None:
        self._openai_usage(event.get("usage"))
        for choice in event.get("choices") or []:
            if not isinstance(choice, dict) or _int(choice.get("index")) != 0:
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                self._chat["content"] += delta["content"]
            for call in delta.get("tool_calls") or []:
                if not isinstance(call, dict):
                    continue
                slot = self._calls.setdefault(
                    _int(call.get("index")),
                    {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
                )
                slot["id"] = call.get("id") or slot["id"]
                fn = call.get("function") or {}
                slot["function"]["name"] += fn.get("name") or ""
                slot["function"]["arguments"] += fn.get("arguments") or ""

    def _openai_usage(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        details = usage.get("prompt_tokens_details") or usage.get("input_tokens_details") or {}
        cached = _int(details.get("cached_tokens")) if isinstance(details, dict) else 0
        prompt = _int(usage.get("prompt_tokens", usage.get("input_tokens")))
        output = _int(usage.get("completion_tokens", usage.get("output_tokens")))
        self.usage = {
            "input": max(prompt - cached, 0),
            "cache_read": cached,
            "cache_write": 0,
            "output": output,
        }

    def _openai_responses(self, event: dict[str, Any]) -> None:
        if event.get("type") in ("response.completed", "response.incomplete"):
            response = event.get("response") or {}
            self._openai_usage(response.get("usage"))
            output = response.get("output")
            self._responses = list(output) if isinstance(output, list) else []
            self._done = event["type"] == "response.completed"

    def _gemini(self, event: dict[str, Any]) -> None:
        meta = event.get("usageMetadata")
        if isinstance(meta, dict):
            cached = _int(meta.get("cachedContentTokenCount"))
            self.usage = {
                "input": max(_int(meta.get("promptTokenCount")) - cached, 0),
                "cache_read": cached,
                "cache_write": 0,
                "output": _int(meta.get("candidatesTokenCount"))
                + _int(meta.get("thoughtsTokenCount")),
            }
        for candidate in event.get("candidates") or []:
            if not isinstance(candidate, dict) or _int(candidate.get("index")) != 0:
                continue
            for part in (candidate.get("content") or {}).get("parts") or []:
                if not isinstance(part, dict):
                    continue
                last = self._parts[-1] if self._parts else None
                plain = set(part) == {"text"}
                if plain and last is not None and set(last) == {"text"}:
                    last["text"] += part["text"]
                else:
                    self._parts.append(dict(part))
            if candidate.get("finishReason"):
                self._done = True

    # -- output ---------------------------------------------------------------------

    def finish(self) -> UpstreamReply:
        """The assistant's items, once the reply has ended (``complete``: it ended well)."""
        if not self.streaming:
            if self._too_big:
                return UpstreamReply()
            try:
                doc = json.loads(bytes(self._body))
            except ValueError:
                return UpstreamReply()
            if not isinstance(doc, dict):
                return UpstreamReply()
            return self._whole(doc)
        return self._streamed()

    def _whole(self, doc: dict[str, Any]) -> UpstreamReply:
        if self.shape == "anthropic":
            self._anthropic_usage(doc.get("usage"))
            content = doc.get("content")
            if isinstance(content, list):
                return UpstreamReply([{"role": "assistant", "content": content}], True)
        elif self.shape == "openai":
            self._openai_usage(doc.get("usage"))
            choices = doc.get("choices") or []
            message = (
                choices[0].get("message") if choices and isinstance(choices[0], dict) else None
            )
            if isinstance(message, dict):
                item = {k: v for k, v in message.items() if v is not None and k != "refusal"}
                return UpstreamReply([item], True)
        elif self.shape == "openai-responses":
            self._openai_usage(doc.get("usage"))
            output = doc.get("output")
            if isinstance(output, list):
                return UpstreamReply(list(output), doc.get("status", "completed") == "completed")
        else:
            self._gemini({k: v for k, v in doc.items() if k == "usageMetadata"})
            candidates = doc.get("candidates") or []
            content = candidates[0].get("content") if candidates else None
            if isinstance(content, dict) and content.get("parts"):
                return UpstreamReply([{"role": "model", "parts": content["parts"]}], True)
        return UpstreamReply()

    def _streamed(self) -> UpstreamReply:
        if not self._done:
            return UpstreamReply()
        if self.shape == "anthropic":
            blocks = [self._blocks[i] for i in sorted(self._blocks)]
            return UpstreamReply([{"role": "assistant", "content": blocks}], True)
        if self.shape == "openai":
            item = dict(self._chat)
            if self._calls:
                item["tool_calls"] = [self._calls[i] for i in sorted(self._calls)]
            if not item["content"]:
                item["content"] = None if self._calls else ""
            return UpstreamReply([{k: v for k, v in item.items() if v is not None}], True)
        if self.shape == "openai-responses":
            return UpstreamReply(list(self._responses or []), True)
        return UpstreamReply([{"role": "model", "parts": self._parts}], bool(self._parts))
