"""An offline stand-in for the providers' APIs behind ``snapshot proxy``: a real aiohttp
server on 127.0.0.1 (random port) inside the test.

It speaks Anthropic Messages (+ count_tokens), OpenAI Chat Completions and
Responses, and Gemini generateContent / streamGenerateContent, streams
server-sent events in each provider's own event format with usage, and:

- enforces a context limit with each provider's real error body (Anthropic 413
  ``request_too_large`` over ``byte_limit`` and 400 "prompt is too long: N
  tokens > M maximum"; OpenAI chat 400 ``context_length_exceeded`` with the
  figures, Responses 400 ``context_length_exceeded`` without them, as the real
  API words it; Gemini 400 ``INVALID_ARGUMENT`` "The input token count (N)
  exceeds the maximum number of tokens allowed (M).");
- counts tokens by its own rule (:func:`fake_tokens`, over the history, system
  prompt and tool definitions), deliberately not the proxy's, so the proxy must
  learn a correction;
- validates every body it accepts with ``snapshot.transcript.validate`` (the
  streaming flag removed: the validators check the non-streaming params) and
  refuses an invalid one with a 400 naming the problems (kept on the record);
- reports ``cache_read`` usage as the tokens of the longest item prefix it saw
  before (a prompt cache), and records every accepted body;
- with ``ocr`` set (a whole-page reader, e.g. ``ppocrv6-small``), answers a
  transcription request (the canary's: an image and
  :data:`~snapshot.readability.transcribe.TRANSCRIBE_PROMPT`) with a real reading of the
  image it received by that OCR engine, nobody's code here, and names itself in
  the reply's model field as ``offline stand-in: ...``: it has no vision model.

The server is bounded: ``max_requests`` requests, then 429; it stops after
``lifetime`` seconds.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

_GEMINI = re.compile(r"^/(?:v1|v1beta)/models/([^/:]+):(generateContent|streamGenerateContent)$")
_IMAGE_DATA = re.compile(
    r'"(data|url|image_url)"\s*:\s*"(data:[^"]{0,40};base64,)?[A-Za-z0-9+/=]{200,}"'
)


ImageTokens = Callable[[int, int], int]
"""(width, height) of a PNG → the tokens it counts as."""


def fake_tokens(history: list[Any], extra: Any = None, image: ImageTokens | None = None) -> int:
    """The fake's own count: JSON characters (base64 image data left out) over 3, + 2500 per image
    (near the large pages the providers bill), or ``image(width, height)`` per PNG when given."""
    text = json.dumps([history, extra], ensure_ascii=False)
    found = _IMAGE_DATA.finditer(text)
    per_image = [2500 if image is None else image(*_png_size(m.group(0))) for m in found]
    return len(_IMAGE_DATA.sub('"data":""', text)) // 3 + sum(per_image)


def _png_size(match: str) -> tuple[int, int]:
    """Width and height from the IHDR of a base64 PNG in a matched JSON field (0, 0 if none)."""
    import base64

    data = match.rsplit('"', 2)[-2].split("base64,")[-1]
    try:
        head = base64.b64decode(data[:32] + "=" * (-len(data[:32]) % 4))
    except ValueError:
        return 0, 0
    if head[:8] != b"\x89PNG\r\n\x1a\n" or len(head) < 24:
        return 0, 0
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


@dataclass
class Accepted:
    api: str
    path: str
    body: dict[str, Any]
    tokens: int
    cached: int
    headers: dict[str, str]
    raw: bytes
    problems: tuple[str, ...] = ()  # what the validator found in this body


ReplyMaker = Callable[[str, dict[str, Any]], dict[str, Any]]
"""(api, body) → ``{"text": str}`` or ``{"call": (name, arguments dict[, call_id])}``; for the
Responses API also ``{"custom_call": (name, input str, call_id)}`` (a custom tool's free-form
call, as Codex's ``exec`` and ``apply_patch`` take) and ``"reasoning": str`` (an opaque reasoning
item with that ``encrypted_content`` before the output); for Gemini ``"signature": str``, the
``thoughtSignature`` of the call's part."""


def default_reply(_api: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"text": "ok, noted."}


@dataclass
class FakeUpstream:
    limit: int = 100_000
    model_limits: dict[str, int] = field(default_factory=dict)  # a model's own, over ``limit``
    byte_limit: int = 32 * 1024 * 1024
    reply: ReplyMaker = default_reply
    max_requests: int = 400
    lifetime: float = 120.0
    validate: bool = True
    refuse_invalid: bool = True  # False: problems are recorded, the request still answered
    chunk_delay: float = 0.0
    piece: int = 8  # characters per streamed delta
    accepted: list[Accepted] = field(default_factory=list)
    rejected: list[tuple[str, int, dict[str, Any]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seen_auth: list[str] = field(default_factory=list)
    requests: int = 0
    ocr: str | None = None  # a page reader's name: transcription requests read by it
    # (api, width, height) → an image's tokens; None: a flat 2500 per image (fake_tokens)
    image_tokens: Callable[[str, int, int], int] | None = None
    pad_errors: int = 0  # characters added to each rejection's message (an oversized error body)
    transcribed: list[tuple[bytes, str]] = field(default_factory=list)  # (png, reading)

    def __post_init__(self) -> None:
        self._prefixes: list[list[str]] = []
        self._server = _ServerThread(self._app, self.lifetime)

    # -- lifecycle ----------------------------------------------------------------

    def __enter__(self) -> FakeUpstream:
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.port}"

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=256 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        return app

    # -- handling -----------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.requests += 1
        if self.requests > self.max_requests:
            return web.json_response({"error": {"message": "fake: too many requests"}}, status=429)
        auth = (
            request.headers.get("x-api-key")
            or request.headers.get("authorization")
            or request.headers.get("x-goog-api-key")
        )
        self.seen_auth.append(auth or "")
        raw = await request.read()
        path = request.path
        if request.method == "GET" and path == "/v1/models":
            return web.json_response(
                {"object": "list", "data": [{"id": "fake-model", "object": "model"}]}
            )
        if path == "/v1/messages/count_tokens":
            body = json.loads(raw)
            return web.json_response(
                {"input_tokens": fake_tokens(body.get("messages") or [], body.get("system"))}
            )
        if path == "/v1/messages":
            return await self._api(request, "anthropic", raw, "messages")
        if path == "/v1/chat/completions":
            return await self._api(request, "openai", raw, "messages")
        if path == "/v1/responses":
            return await self._api(request, "openai-responses", raw, "input")
        found = _GEMINI.match(path)
        if found:
            return await self._api(
                request,
                "gemini",
                raw,
                "contents",
                model=found.group(1),
                stream=found.group(2) == "streamGenerateContent",
            )
        return web.json_response({"error": {"message": f"fake: no route {path}"}}, status=404)

    async def _api(
        self,
        request: web.Request,
        api: str,
        raw: bytes,
        key: str,
        *,
        model: str | None = None,
        stream: bool | None = None,
    ) -> web.StreamResponse:
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return self._reject(api, 400, unreadable_body(api), {})
        history = body.get(key) or []
        system = body.get("system") or body.get("instructions") or body.get("systemInstruction")
        model = model or body.get("model")
        rule = self.image_tokens
        per_image = None if rule is None else functools.partial(rule, api)
        # Tool definitions count, as the providers count them (Claude Code's are ~12 k tokens).
        tools = body.get("tools")
        tokens = fake_tokens(history, system if tools is None else [system, tools], per_image)
        if api == "anthropic" and len(raw) > self.byte_limit:
            return self._reject(
                api,
                413,
                {
                    "type": "error",
                    "error": {
                        "type": "request_too_large",
                        "message": "Request exceeds the maximum allowed number of bytes. The maximum "
                        "request size is 32 MB for standard API requests.",
                    },
                },
                body,
            )
        limit = self.model_limits.get(model or "", self.limit)
        if tokens > limit:
            return self._reject(api, 400, overflow_body(api, tokens, limit), body)
        problems: list[str] = []
        if self.validate:
            # A Messages request with a beta header (Claude Code's) is read with the beta types.
            beta = api == "anthropic" and (
                request.query.get("beta") == "true" or "anthropic-beta" in request.headers
            )
            problems = await asyncio.get_running_loop().run_in_executor(
                None, _problems, api, body, model, beta
            )
            self.problems.extend(problems)
            if problems and self.refuse_invalid:
                return self._reject(
                    api,
                    400,
                    {
                        "error": {
                            "message": "; ".join(problems[:5]),
                            "type": "invalid_request_error",
                        }
                    },
                    body,
                )
        items = [json.dumps(i, sort_keys=True) for i in history]
        cached_items = max((_common(items, p) for p in self._prefixes), default=0)
        cached = fake_tokens(history[:cached_items], None, per_image) if cached_items else 0
        self._prefixes.append(items)
        headers = {
            k.lower(): (
                "***" if k.lower() in ("x-api-key", "authorization", "x-goog-api-key") else v
            )
            for k, v in request.headers.items()
        }
        self.accepted.append(
            Accepted(api, request.path, body, tokens, cached, headers, raw, tuple(problems))
        )
        # Each reply its own message id: Claude Code merges the content of replies that share one.
        reply = {"message_id": f"msg_fake{self.requests:05d}", **self.reply(api, body)}
        png = _image_of(body) if self.ocr is not None and _TRANSCRIBE in raw else None
        if png is not None:
            assert self.ocr is not None
            text, model = await asyncio.get_running_loop().run_in_executor(
                None, ocr_reading, self.ocr, png
            )
            self.transcribed.append((png, text))
            reply = {"text": text}
        streaming = stream if stream is not None else body.get("stream") is True
        usage = (tokens - cached, cached, 7)
        if not streaming:
            return web.json_response(_whole(api, model, reply, usage))
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        try:
            for event in _events(api, model, reply, usage, body, self.piece):
                await response.write(event.encode())
                if self.chunk_delay:
                    await asyncio.sleep(self.chunk_delay)
            await response.write_eof()
        except ConnectionError:
            pass  # the proxy was killed mid-stream (the crash tests)
        return response

    def _reject(
        self, api: str, status: int, error: dict[str, Any], body: dict[str, Any]
    ) -> web.Response:
        if self.pad_errors and isinstance(error.get("error"), dict):
            inner = error["error"]
            error = {
                **error,
                "error": {**inner, "message": inner["message"] + " " * self.pad_errors},
            }
        self.rejected.append((api, status, error))
        return web.json_response(error, status=status)


def unreadable_body(api: str) -> dict[str, Any]:
    """A provider's 400 for a body that is not a JSON object (the fake's wording)."""
    message = "fake: the request body is not a JSON object"
    if api == "anthropic":
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    if api == "gemini":
        return {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}
    return {
        "error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    }


def overflow_body(api: str, tokens: int, limit: int) -> dict[str, Any]:
    """Each provider's real "too long" error body."""
    if api == "anthropic":
        return {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": f"prompt is too long: {tokens} tokens > {limit} maximum",
            },
            "request_id": "req_011CfakeFAKEfake",
        }
    if api == "openai":
        return {
            "error": {
                "message": f"This model's maximum context length is {limit} tokens. "
                f"However, your messages resulted in {tokens} tokens. Please reduce the length "
                "of the messages.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        }
    if api == "openai-responses":
        return {
            "error": {
                "message": "Your input exceeds the context window of this model. "
                "Please adjust your input and try again.",
                "type": "invalid_request_error",
                "param": "input",
                "code": "context_length_exceeded",
            }
        }
    return {
        "error": {
            "code": 400,
            "message": f"The input token count ({tokens}) exceeds the "
            f"maximum number of tokens allowed ({limit}).",
            "status": "INVALID_ARGUMENT",
        }
    }


_TRANSCRIBE = b"Transcribe all the text in this image"


def _image_of(body: Any) -> bytes | None:
    """The first base64 PNG of a body, in any of the four shapes."""
    import base64

    if isinstance(body, str) and body.startswith("data:image/png;base64,"):
        return base64.b64decode(body.split(",", 1)[1])
    if isinstance(body, dict):
        mime = body.get("media_type") or body.get("mimeType") or body.get("mime_type")
        if mime == "image/png" and isinstance(body.get("data"), str):
            # Standard or URL-safe (google-genai sends URL-safe; proto3 JSON takes both).
            return base64.urlsafe_b64decode(body["data"].replace("+", "-").replace("/", "_"))
        items: Any = body.values()
    elif isinstance(body, list):
        items = body
    else:
        return None
    for item in items:
        found = _image_of(item)
        if found is not None:
            return found
    return None


DETECTOR_SIDE = 736  # PP-OCR's detector scales a shorter short side up to this (page_readers)


@functools.cache
def ocr_reading(reader_name: str, png: bytes) -> tuple[str, str]:
    """(text, label): the image read by a real OCR engine, labelled as the stand-in it is.

    A canary's band is a few rows of a full-width page (e.g. 64 x 1552 px); PP-OCR's
    detector would scale its short side up to 736 px, a ~13 MP image, ~4x the CPU of
    reading it at its own scale. So the band is read as the top of a page of paper
    ``DETECTOR_SIDE`` px high, as a whole-page reader reads any page. The same image is
    read once per process (the reader is deterministic).
    """
    import io

    import numpy as np
    from PIL import Image

    from snapshot.legibility.page_readers import load_page_reader

    reader = load_page_reader(reader_name)
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("L"))
    if pixels.shape[0] < DETECTOR_SIDE:
        paper = int(np.bincount(pixels.ravel()).argmax())
        page = np.full((DETECTOR_SIDE, pixels.shape[1]), paper, np.uint8)
        page[: pixels.shape[0]] = pixels
        pixels = page
    info = reader.info
    return reader.read_page(
        pixels
    ), f"offline stand-in: {info.name} {info.version} (OCR, not a model)"


def _common(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _problems(api: str, body: dict[str, Any], model: str | None, beta: bool = False) -> list[str]:
    from snapshot.transcript.validate import validate

    checked = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
    shape = {
        "openai": "openai",
        "openai-responses": "openai-responses",
        "anthropic": "anthropic",
        "gemini": "gemini",
    }[api]
    found = validate(checked, shape, model=model, beta=beta).problems
    return [f"{p.where}: {p.message}" for p in found]


# -- replies -----------------------------------------------------------------------


def _whole(
    api: str, model: Any, reply: dict[str, Any], usage: tuple[int, int, int]
) -> dict[str, Any]:
    fresh, cached, out = usage
    text, call = reply.get("text"), reply.get("call")
    if api == "anthropic":
        content: list[Any] = [{"type": "text", "text": text}] if text else []
        if call:
            content.append(
                {
                    "type": "tool_use",
                    "id": call[2] if len(call) > 2 else "toolu_01",
                    "name": call[0],
                    "input": call[1],
                }
            )
        return {
            "id": reply.get("message_id", "msg_fake"),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": "tool_use" if call else "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": fresh,
                "cache_read_input_tokens": cached,
                "cache_creation_input_tokens": 0,
                "output_tokens": out,
            },
        }
    if api == "openai":
        message: dict[str, Any] = {"role": "assistant", "content": text or None, "refusal": None}
        if call:
            message["tool_calls"] = [
                {
                    "id": call[2] if len(call) > 2 else "call_1",
                    "type": "function",
                    "function": {"name": call[0], "arguments": json.dumps(call[1])},
                }
            ]
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1764633600,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if call else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": fresh + cached,
                "completion_tokens": out,
                "total_tokens": fresh + cached + out,
                "prompt_tokens_details": {"cached_tokens": cached},
            },
        }
    if api == "openai-responses":
        output: list[Any] = []
        custom = reply.get("custom_call")  # (name, free-form input, call_id): a custom tool
        named = call if call and len(call) > 2 else custom
        suffix = str(named[2]) if named else "1"
        if reply.get("reasoning"):  # an opaque reasoning item, as reasoning models send
            output.append(
                {
                    "type": "reasoning",
                    "id": f"rs_fake_{suffix}",
                    "summary": [],
                    "encrypted_content": reply["reasoning"],
                }
            )
        if text:
            output.append(
                {
                    "type": "message",
                    "id": reply.get("message_id", "msg_fake"),
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            )
        if custom:
            output.append(
                {
                    "type": "custom_tool_call",
                    "id": f"ctc_fake_{custom[2]}",
                    "call_id": custom[2],
                    "name": custom[0],
                    "input": custom[1],
                    "status": "completed",
                }
            )
        if call:
            output.append(
                {
                    "type": "function_call",
                    "id": f"fc_fake_{suffix}",
                    "call_id": call[2] if len(call) > 2 else "call_1",
                    "name": call[0],
                    "arguments": json.dumps(call[1]),
                    "status": "completed",
                }
            )
        return {
            "id": "resp_fake",
            "object": "response",
            "created_at": 1764633600,
            "status": "completed",
            "model": model,
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": fresh + cached,
                "input_tokens_details": {"cached_tokens": cached},
                "output_tokens": out,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": fresh + cached + out,
            },
        }
    parts: list[Any] = [{"text": text}] if text else []
    if call:
        part = {"functionCall": {"name": call[0], "args": call[1]}}
        if reply.get("signature"):  # Gemini 3 models sign each model step; clients send it back
            part["thoughtSignature"] = reply["signature"]
        parts.append(part)
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": fresh + cached,
            "cachedContentTokenCount": cached,
            "candidatesTokenCount": out,
            "totalTokenCount": fresh + cached + out,
        },
        "modelVersion": model,
    }


def _sse(data: Any, event: str | None = None) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def _events(
    api: str,
    model: Any,
    reply: dict[str, Any],
    usage: tuple[int, int, int],
    body: dict[str, Any],
    piece_size: int = 8,
) -> list[str]:
    fresh, cached, out = usage
    text, call = reply.get("text") or "", reply.get("call")
    if api == "anthropic":
        events = [
            _sse(
                {
                    "type": "message_start",
                    "message": {
                        "id": reply.get("message_id", "msg_fake"),
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {
                            "input_tokens": fresh,
                            "cache_read_input_tokens": cached,
                            "cache_creation_input_tokens": 0,
                            "output_tokens": 1,
                        },
                    },
                },
                "message_start",
            )
        ]
        index = 0
        if text:
            events.append(
                _sse(
                    {
                        "type": "content_block_start",
                        "index": 0,
                        "content_block": {"type": "text", "text": ""},
                    },
                    "content_block_start",
                )
            )
            for piece in _pieces(text, piece_size):
                events.append(
                    _sse(
                        {
                            "type": "content_block_delta",
                            "index": 0,
                            "delta": {"type": "text_delta", "text": piece},
                        },
                        "content_block_delta",
                    )
                )
            events.append(_sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
            index = 1
        if call:
            events.append(
                _sse(
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {
                            "type": "tool_use",
                            "id": call[2] if len(call) > 2 else "toolu_01",
                            "name": call[0],
                            "input": {},
                        },
                    },
                    "content_block_start",
                )
            )
            args = json.dumps(call[1])
            for piece in _pieces(args):
                events.append(
                    _sse(
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "input_json_delta", "partial_json": piece},
                        },
                        "content_block_delta",
                    )
                )
            events.append(
                _sse({"type": "content_block_stop", "index": index}, "content_block_stop")
            )
        events.append(
            _sse(
                {
                    "type": "message_delta",
                    "delta": {
                        "stop_reason": "tool_use" if call else "end_turn",
                        "stop_sequence": None,
                    },
                    "usage": {"output_tokens": out},
                },
                "message_delta",
            )
        )
        events.append(_sse({"type": "message_stop"}, "message_stop"))
        return events
    if api == "openai":
        base = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 1764633600,
            "model": model,
        }
        events = [
            _sse(
                {
                    **base,
                    "choices": [
                        {
                            "index": 0,
                            "delta": {"role": "assistant", "content": ""},
                            "finish_reason": None,
                        }
                    ],
                }
            )
        ]
        for piece in _pieces(text, piece_size):
            events.append(
                _sse(
                    {
                        **base,
                        "choices": [
                            {"index": 0, "delta": {"content": piece}, "finish_reason": None}
                        ],
                    }
                )
            )
        if call:
            events.append(
                _sse(
                    {
                        **base,
                        "choices": [
                            {
                                "index": 0,
                                "delta": {
                                    "tool_calls": [
                                        {
                                            "index": 0,
                                            "id": call[2] if len(call) > 2 else "call_1",
                                            "type": "function",
                                            "function": {"name": call[0], "arguments": ""},
                                        }
                                    ]
                                },
                                "finish_reason": None,
                            }
                        ],
                    }
                )
            )
            for piece in _pieces(json.dumps(call[1])):
                events.append(
                    _sse(
                        {
                            **base,
                            "choices": [
                                {
                                    "index": 0,
                                    "delta": {
                                        "tool_calls": [
                                            {"index": 0, "function": {"arguments": piece}}
                                        ]
                                    },
                                    "finish_reason": None,
                                }
                            ],
                        }
                    )
                )
        events.append(
            _sse(
                {
                    **base,
                    "choices": [
                        {"index": 0, "delta": {}, "finish_reason": "tool_calls" if call else "stop"}
                    ],
                }
            )
        )
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append(
                _sse(
                    {
                        **base,
                        "choices": [],
                        "usage": {
                            "prompt_tokens": fresh + cached,
                            "completion_tokens": out,
                            "total_tokens": fresh + cached + out,
                            "prompt_tokens_details": {"cached_tokens": cached},
                        },
                    }
                )
            )
        events.append("data: [DONE]\n\n")
        return events
    if api == "openai-responses":
        whole = _whole(api, model, reply, usage)
        events = [
            _sse(
                {
                    "type": "response.created",
                    "sequence_number": 0,
                    "response": {**whole, "status": "in_progress", "output": [], "usage": None},
                },
                "response.created",
            )
        ]

        def add(kind: str, **data: Any) -> None:
            events.append(_sse({"type": kind, "sequence_number": len(events), **data}, kind))

        for index, item in enumerate(whole["output"]):
            if item["type"] == "message":
                add(
                    "response.output_item.added",
                    output_index=index,
                    item={**item, "status": "in_progress", "content": []},
                )
                part = {"type": "output_text", "text": "", "annotations": []}
                add(
                    "response.content_part.added",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    part=part,
                )
                for piece in _pieces(text, piece_size):
                    add(
                        "response.output_text.delta",
                        item_id=item["id"],
                        output_index=index,
                        content_index=0,
                        delta=piece,
                        logprobs=[],
                    )
                add(
                    "response.output_text.done",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    text=text,
                    logprobs=[],
                )
                add(
                    "response.content_part.done",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    part=item["content"][0],
                )
            elif item["type"] == "reasoning":
                add("response.output_item.added", output_index=index, item=item)
            else:  # a function or custom tool call: its argument text streams in pieces
                field, kind = (
                    ("input", "custom_tool_call_input")
                    if item["type"] == "custom_tool_call"
                    else ("arguments", "function_call_arguments")
                )
                add(
                    "response.output_item.added",
                    output_index=index,
                    item={**item, "status": "in_progress", field: ""},
                )
                for piece in _pieces(item[field]):
                    add(
                        f"response.{kind}.delta",
                        item_id=item["id"],
                        output_index=index,
                        delta=piece,
                    )
                add(
                    f"response.{kind}.done",
                    item_id=item["id"],
                    output_index=index,
                    **{field: item[field]},
                )
            add("response.output_item.done", output_index=index, item=item)
        add("response.completed", response=whole)
        return events
    whole = _whole(api, model, reply, usage)
    parts = whole["candidates"][0]["content"]["parts"]
    chunks = []
    for i, part in enumerate(parts):
        chunk: dict[str, Any] = {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}],
            "modelVersion": model,
        }
        if i == len(parts) - 1:
            chunk["candidates"][0]["finishReason"] = "STOP"
            chunk["usageMetadata"] = whole["usageMetadata"]
        chunks.append(_sse(chunk))
    return chunks


def _pieces(text: str, size: int = 8) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


# -- a server in a thread --------------------------------------------------------


class _ServerThread:
    """Runs an aiohttp app on 127.0.0.1:0 in a daemon thread, for at most ``lifetime`` s."""

    def __init__(self, make_app: Callable[[], web.Application], lifetime: float) -> None:
        self.make_app = make_app
        self.lifetime = lifetime
        self.port = 0
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("server thread did not start")

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        runner = web.AppRunner(self.make_app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self.port = runner.addresses[0][1]  # the port the OS picked for port 0
        self._ready.set()
        try:
            await asyncio.wait_for(self._stop.wait(), self.lifetime)
        except TimeoutError:
            pass
        finally:
            await runner.cleanup()


def serve_in_thread(
    make_app: Callable[[], web.Application], lifetime: float = 120.0
) -> _ServerThread:
    """Start ``make_app()`` on 127.0.0.1 in a thread (the proxy under test uses this too)."""
    server = _ServerThread(make_app, lifetime)
    server.start()
    return server
