"""A local fake of the three vision APIs, for offline tests of the live adapters.

It listens on 127.0.0.1 (random port) and speaks just enough of

- Anthropic Messages (``POST /v1/messages``),
- OpenAI Chat Completions (``POST /v1/chat/completions``) and Responses
  (``POST /v1/responses``),
- Gemini generateContent (``POST /v1beta|v1/models/<model>:generateContent``)

for each official SDK to parse a reply. Every request is recorded and its
shape validated the way the real service would reject it, plus this
project's own rules: exactly one PNG page, sent as the provider expects, with
the key only in the auth header (never in the URL, the body or another
header). A request with problems gets a provider-style 400 naming them, so a
broken adapter fails loudly in the SDK, and the problems stay on the record
for the test to assert.

The server is bounded: it answers at most ``max_requests`` requests (then 429)
and shuts itself down after ``lifetime`` seconds, so a hung test cannot leave
it running.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

OPENAI_DETAILS = ("low", "high", "auto", "original")
GEMINI_LEVELS = (
    "MEDIA_RESOLUTION_UNSPECIFIED",
    "MEDIA_RESOLUTION_LOW",
    "MEDIA_RESOLUTION_MEDIUM",
    "MEDIA_RESOLUTION_HIGH",
    "MEDIA_RESOLUTION_ULTRA_HIGH",
)
_GEMINI_PATH = re.compile(r"^/(v1|v1beta|v1alpha)/models/([^/:]+):generateContent$")


@dataclass
class Recorded:
    """One request as the fake saw it, and what it found wrong with it."""

    provider: str  # "anthropic" | "openai" | "gemini" | "unknown"
    api: str  # "messages" | "chat" | "responses" | "generate_content" | "unknown"
    path: str
    headers: dict[str, str]  # lower-cased names; the auth header's value masked
    body: Any
    model: str | None = None
    png: bytes | None = None
    prompt: str | None = None
    detail: str | None = None
    media_resolution: str | None = None
    media_resolution_scope: str | None = None
    auth_header: str | None = None  # which header carried the key
    problems: list[str] = field(default_factory=list)


Reply = Callable[[Recorded], str]


class FakeProvider:
    """The fake server. Use as a context manager; see the module docstring."""

    def __init__(
        self,
        keys: dict[str, str],
        reply: Reply | str = "",
        *,
        max_requests: int = 16,
        lifetime: float = 60.0,
        fail_status: int | None = None,
        fail_message: str = "",
        text_only: bool = False,
        input_tokens: Callable[[Recorded], int] | None = None,
    ) -> None:
        self.keys = dict(keys)
        # Text-only requests (a live summary) skip the one-PNG-page shape checks;
        # the key checks still apply.
        self.text_only = text_only
        if callable(reply):
            self.reply: Reply = reply
        else:
            canned = reply
            self.reply = lambda _rec: canned
        self.max_requests = max_requests
        self.lifetime = lifetime
        # When set, every valid request is answered with this HTTP status and a
        # provider-style error carrying fail_message (may quote the key, as
        # some real providers do, to test redaction).
        self.fail_status = fail_status
        self.fail_message = fail_message
        # The usage.input_tokens a reply reports, computed from the request (a usage probe's
        # stand-in bill); None keeps the fixed figures below.
        self.input_tokens = input_tokens
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    # -- lifecycle ----------------------------------------------------------

    def __enter__(self) -> FakeProvider:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self._timer = threading.Timer(self.lifetime, self.stop)
        self._timer.daemon = True
        self._timer.start()

    def stop(self) -> None:
        server, self._server = self._server, None
        if self._timer is not None and self._timer is not threading.current_thread():
            self._timer.cancel()
        if server is not None:
            server.shutdown()
            server.server_close()

    @property
    def port(self) -> int:
        assert self._server is not None, "fake provider is not running"
        return int(self._server.server_address[1])

    def base_url(self, provider: str) -> str:
        """The base URL each SDK expects: OpenAI's includes the /v1 prefix."""
        root = f"http://127.0.0.1:{self.port}"
        return f"{root}/v1" if provider == "openai" else root

    @property
    def problems(self) -> list[str]:
        return [p for r in self.requests for p in r.problems]

    # -- handling -----------------------------------------------------------

    def handle(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, dict[str, Any]]:
        rec = _route(path)
        with self._lock:
            over = len(self.requests) >= self.max_requests
            if not over:
                self.requests.append(rec)
        if over:
            return 429, _error(rec.provider, 429, "fake provider: request budget exhausted")
        rec.headers = headers
        try:
            rec.body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            rec.problems.append("body is not JSON")
            rec.body = None
        self._check_key(rec, path, headers, raw)
        if rec.provider == "unknown":
            rec.problems.append(f"unknown endpoint {path}")
        elif isinstance(rec.body, dict) and self.text_only:
            rec.model = rec.body.get("model")
        elif isinstance(rec.body, dict):
            {
                "anthropic": _check_anthropic,
                "openai": _check_openai,
                "gemini": _check_gemini,
            }[rec.provider](rec, rec.body)
        elif rec.body is not None:
            rec.problems.append("body is not a JSON object")
        if not headers.get("content-type", "").startswith("application/json"):
            rec.problems.append(f"content-type is {headers.get('content-type')!r}")
        if rec.problems:
            return 400, _error(rec.provider, 400, "; ".join(rec.problems))
        if self.fail_status is not None:
            return self.fail_status, _error(rec.provider, self.fail_status, self.fail_message)
        body = _success(rec, self.reply(rec))
        if self.input_tokens is not None:
            _bill(body, rec.api, self.input_tokens(rec))
        return 200, body

    def _check_key(self, rec: Recorded, path: str, headers: dict[str, str], raw: bytes) -> None:
        key = self.keys.get(rec.provider)
        if key is None:
            return
        if key in path or key in parse_qs(urlsplit(path).query).get("key", []):
            rec.problems.append("API key appears in the URL")
        if key.encode() in raw:
            rec.problems.append("API key appears in the request body")
        allowed = {
            "anthropic": {"x-api-key": key, "authorization": f"Bearer {key}"},
            "openai": {"authorization": f"Bearer {key}"},
            "gemini": {"x-goog-api-key": key},
        }[rec.provider]
        for name, value in headers.items():
            if key not in value:
                continue
            if allowed.get(name) == value and rec.auth_header is None:
                rec.auth_header = name
            else:
                rec.problems.append(f"API key appears in header {name!r}")
        if rec.auth_header is None:
            rec.problems.append(
                f"no valid {rec.provider} auth header (expected one of {sorted(allowed)})"
            )
        # Mask the key in what the test can read back.
        rec.headers = {k: ("<key>" if key in v else v) for k, v in headers.items()}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeProvider
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        status, payload = self.fake.handle(self.path, headers, raw)
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.send_error(405)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean; requests are recorded instead


def _route(path: str) -> Recorded:
    bare = urlsplit(path).path
    if bare == "/v1/messages":
        return Recorded("anthropic", "messages", path, {}, None)
    if bare == "/v1/chat/completions":
        return Recorded("openai", "chat", path, {}, None)
    if bare == "/v1/responses":
        return Recorded("openai", "responses", path, {}, None)
    m = _GEMINI_PATH.match(bare)
    if m:
        return Recorded("gemini", "generate_content", path, {}, None, model=m.group(2))
    return Recorded("unknown", "unknown", path, {}, None)


# -- shape checks -------------------------------------------------------------


def _decode_png(rec: Recorded, data: Any, where: str) -> None:
    if not isinstance(data, str) or not data:
        rec.problems.append(f"{where}: image data missing")
        return
    try:
        if rec.provider == "gemini" and ("-" in data or "_" in data or len(data) % 4):
            # Gemini's JSON mapping of bytes (proto3) accepts URL-safe base64
            # with or without padding, and google-genai sends it that way.
            png = base64.b64decode(data + "=" * (-len(data) % 4), altchars=b"-_", validate=True)
        else:
            png = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        rec.problems.append(f"{where}: image data is not valid base64")
        return
    if not png.startswith(PNG_SIGNATURE):
        rec.problems.append(f"{where}: image data is not a PNG")
    if rec.png is not None:
        rec.problems.append(f"{where}: more than one image in the request")
    rec.png = png


def _data_url(rec: Recorded, url: Any, where: str) -> None:
    prefix = "data:image/png;base64,"
    if not isinstance(url, str) or not url.startswith(prefix):
        rec.problems.append(f"{where}: image_url is not a data:image/png;base64 URL")
        return
    _decode_png(rec, url[len(prefix) :], where)


def _text(rec: Recorded, text: Any, where: str) -> None:
    if not isinstance(text, str) or not text.strip():
        rec.problems.append(f"{where}: empty text part")
    else:
        rec.prompt = text


def _one_user_message(rec: Recorded, messages: Any, where: str) -> list[Any]:
    if not isinstance(messages, list) or len(messages) != 1:
        rec.problems.append(f"{where}: expected exactly one message")
        return []
    msg = messages[0]
    if not isinstance(msg, dict) or msg.get("role") != "user":
        rec.problems.append(f"{where}: the message is not from the user")
        return []
    content = msg.get("content")
    if not isinstance(content, list):
        rec.problems.append(f"{where}: content is not a list of parts")
        return []
    return content


def _check_anthropic(rec: Recorded, body: dict[str, Any]) -> None:
    rec.model = body.get("model")
    if not isinstance(rec.model, str) or not rec.model:
        rec.problems.append("anthropic: model missing")
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] <= 0:
        rec.problems.append("anthropic: max_tokens must be a positive integer")
    if "anthropic-version" not in rec.headers:
        rec.problems.append("anthropic: anthropic-version header missing")
    for block in _one_user_message(rec, body.get("messages"), "anthropic"):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "image":
            src = block.get("source") or {}
            if src.get("type") != "base64" or src.get("media_type") != "image/png":
                rec.problems.append("anthropic: image source must be base64 image/png")
            _decode_png(rec, src.get("data"), "anthropic")
        elif kind == "text":
            _text(rec, block.get("text"), "anthropic")
        else:
            rec.problems.append(f"anthropic: unexpected content block {kind!r}")
    _require_both(rec)


def _check_openai(rec: Recorded, body: dict[str, Any]) -> None:
    rec.model = body.get("model")
    if not isinstance(rec.model, str) or not rec.model:
        rec.problems.append("openai: model missing")
    if rec.api == "chat":
        for part in _one_user_message(rec, body.get("messages"), "openai chat"):
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "image_url":
                image = part.get("image_url") or {}
                _data_url(rec, image.get("url"), "openai chat")
                rec.detail = image.get("detail")
            elif kind == "text":
                _text(rec, part.get("text"), "openai chat")
            else:
                rec.problems.append(f"openai chat: unexpected part {kind!r}")
    else:
        for part in _one_user_message(rec, body.get("input"), "openai responses"):
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "input_image":
                _data_url(rec, part.get("image_url"), "openai responses")
                rec.detail = part.get("detail")
            elif kind == "input_text":
                _text(rec, part.get("text"), "openai responses")
            else:
                rec.problems.append(f"openai responses: unexpected part {kind!r}")
    if rec.png is not None and rec.detail not in OPENAI_DETAILS:
        rec.problems.append(f"openai: detail {rec.detail!r} is not one of {OPENAI_DETAILS}")
    _require_both(rec)


def _check_gemini(rec: Recorded, body: dict[str, Any]) -> None:
    contents = body.get("contents")
    if not isinstance(contents, list) or len(contents) != 1 or not isinstance(contents[0], dict):
        rec.problems.append("gemini: expected exactly one content")
        return
    if contents[0].get("role") not in (None, "user"):
        rec.problems.append("gemini: content role must be user")
    for part in contents[0].get("parts") or []:
        inline = part.get("inlineData") or part.get("inline_data")
        if inline is not None:
            mime = inline.get("mimeType") or inline.get("mime_type")
            if mime != "image/png":
                rec.problems.append(f"gemini: inline data mime type {mime!r}, not image/png")
            _decode_png(rec, inline.get("data"), "gemini")
            level = (part.get("mediaResolution") or part.get("media_resolution") or {}).get("level")
            if level is not None:
                rec.media_resolution, rec.media_resolution_scope = level, "part"
        elif "text" in part:
            _text(rec, part.get("text"), "gemini")
        else:
            rec.problems.append(f"gemini: unexpected part {sorted(part)}")
    config = body.get("generationConfig") or body.get("generation_config") or {}
    level = config.get("mediaResolution") or config.get("media_resolution")
    if level is not None:
        if rec.media_resolution is not None:
            rec.problems.append("gemini: media resolution set both per part and per request")
        rec.media_resolution, rec.media_resolution_scope = level, "request"
    if rec.media_resolution is not None and rec.media_resolution not in GEMINI_LEVELS:
        rec.problems.append(f"gemini: unknown media resolution {rec.media_resolution!r}")
    _require_both(rec)


def _require_both(rec: Recorded) -> None:
    if rec.png is None:
        rec.problems.append(f"{rec.provider}: no image in the request")
    if rec.prompt is None:
        rec.problems.append(f"{rec.provider}: no text prompt in the request")


# -- responses ------------------------------------------------------------------


def _success(rec: Recorded, text: str) -> dict[str, Any]:
    model = rec.model or "fake-model"
    if rec.api == "messages":
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 1500, "output_tokens": 42},
        }
    if rec.api == "chat":
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1500, "completion_tokens": 42, "total_tokens": 1542},
        }
    if rec.api == "responses":
        return {
            "id": "resp_fake",
            "object": "response",
            "created_at": 0,
            "model": model,
            "status": "completed",
            "output": [
                {
                    "type": "message",
                    "id": "msg_fake",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": 1500,
                "output_tokens": 42,
                "total_tokens": 1542,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
        ],
        "usageMetadata": {
            "promptTokenCount": 1100,
            "candidatesTokenCount": 42,
            "totalTokenCount": 1142,
        },
        "modelVersion": model,
    }


def _bill(body: dict[str, Any], api: str, input_tokens: int) -> None:
    """Set the reply's input-token count where each API reports it."""
    key = {"messages": "input_tokens", "chat": "prompt_tokens", "responses": "input_tokens"}
    if api in key:
        body["usage"][key[api]] = input_tokens
    else:
        body["usageMetadata"]["promptTokenCount"] = input_tokens


def _error(provider: str, status: int, message: str) -> dict[str, Any]:
    if provider == "anthropic":
        kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}
        return {
            "type": "error",
            "error": {"type": kind.get(status, "api_error"), "message": message},
        }
    if provider == "gemini":
        return {"error": {"code": status, "message": message, "status": "INVALID_ARGUMENT"}}
    return {"error": {"message": message, "type": "invalid_request_error", "code": None}}


LOOPBACK = ("127.0.0.1", "::1", "localhost")


def loopback_only(monkeypatch: Any) -> None:
    """Fail any socket connection that is not to loopback (where the fake server is)."""
    import socket

    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if self.family in (socket.AF_INET, socket.AF_INET6) and host not in LOOPBACK:
            raise AssertionError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
