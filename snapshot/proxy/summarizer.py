"""The summary rung from inside the proxy: ``--summarizer auto`` or ``--summarizer MODEL``.

``auto`` asks the client's own model, through the proxy's upstream, with the
client's own request headers (its credentials; they go nowhere else), in the
request's own API shape, not streamed. ``MODEL`` asks that model through its
official SDK with the key in the proxy's environment.

Either way every summary request fits the limit its model has (the one its
provider stated, when it has): :class:`RollingSummarizer` cuts the span's text into
pieces that fit and summarizes them in order, each request carrying the summary
so far, so a middle of any length is summarized by requests no larger than the
limit less :data:`MARGIN` and the reply's room.

>>> calls = []
>>> def ask(prompt):
...     calls.append(len(prompt))
...     return "so far: " + str(len(calls)), {"input": 1, "cache_read": 0, "cache_write": 0,
...                                          "output": 1}
>>> rolling = RollingSummarizer("m", ask, lambda text: len(text) // 4, limit=2_000,
...                             max_output_tokens=200)
>>> from snapshot.transcript.model import Message, TextBlock
>>> span = [Message(f"m{i}", None, "user", (TextBlock("word " * 400),)) for i in range(6)]
>>> summary = rolling.summarize(None, span)
>>> summary.text, summary.calls, max(calls) // 4 <= rolling.room_tokens
('so far: 2', 2, True)
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from snapshot.errors import SnapshotError
from snapshot.ladder.serialize import serialize
from snapshot.ladder.summary import SUMMARY_PROMPT, Summary
from snapshot.proxy.shapes import Shape
from snapshot.transcript.model import Conversation, Message

# A summary request aims this far below its model's limit (our count is an estimate).
MARGIN = 0.1
MAX_OUTPUT_TOKENS = 4096

Ask = Callable[[str], tuple[str, dict[str, int] | None]]


def _add_usage(total: dict[str, int] | None, usage: dict[str, int] | None) -> dict[str, int] | None:
    if usage is None:
        return total
    if total is None:
        return dict(usage)
    return {k: total.get(k, 0) + usage.get(k, 0) for k in {*total, *usage}}


@dataclass(frozen=True)
class RollingSummarizer:
    """Summaries of any length of text, by requests that each fit ``limit`` tokens.

    ``ask`` makes one request; ``count`` counts a prompt's tokens in the summarizer
    model's (corrected) unit; ``limit`` is that model's limit.
    """

    model: str
    ask: Ask
    count: Callable[[str], int]
    limit: int
    max_output_tokens: int = MAX_OUTPUT_TOKENS
    name: str = "live"

    @property
    def room_tokens(self) -> int:
        """Tokens one summary prompt may take."""
        return int(self.limit * (1 - MARGIN)) - self.output_tokens

    @property
    def output_tokens(self) -> int:
        return min(self.max_output_tokens, max(self.limit // 4, 1))

    def summarize(self, conv: Conversation | None, span: Sequence[Message]) -> Summary:
        text = serialize(span)
        summary = ""
        usage: dict[str, int] | None = None
        calls = sent = largest = 0
        while text or not calls:
            head = f"{SUMMARY_PROMPT}\n\n"
            if summary:
                head += f"The summary so far:\n{summary}\n\nThe conversation goes on:\n"
            room = self.room_tokens - self.count(head)
            if room < 256:
                raise SnapshotError(
                    f"{self.model}: live summary failed: the summary so far leaves no room in "
                    f"its {self.limit:,}-token limit"
                )
            piece = self._piece(text, room)
            prompt = head + piece
            largest = max(largest, self.count(prompt))
            summary, got = self.ask(prompt)
            usage = _add_usage(usage, got)
            text = text[len(piece) :]
            calls += 1
            sent += len(prompt)
        return Summary(
            text=summary,
            source="model",
            input_chars=sent,
            output_chars=len(summary),
            model=self.model,
            note=f"live model call{'s' if calls > 1 else ''}, each within the model's limit",
            usage=usage,
            calls=calls,
            largest_request=largest,
            request_limit=self.limit,
        )

    def _piece(self, text: str, room: int) -> str:
        """The longest leading part of ``text`` (cut at a line end where one is near) that
        counts at most ``room`` tokens."""
        if self.count(text) <= room:
            return text
        size = len(text)
        while size > 1:
            size = max(1, int(size * min(0.9, room / max(self.count(text[:size]), 1))))
            cut = text.rfind("\n", size // 2, size)
            piece = text[: cut + 1 if cut > 0 else size]
            if self.count(piece) <= room:
                return piece
        return text[:1]


# -- auto: the client's own model, through the same upstream ---------------------------


@dataclass(frozen=True)
class ClientRoute:
    """How the client's request reached the upstream, for a summary request to follow."""

    upstream: str
    path: str  # the request's path and query
    shape: Shape
    model: str
    headers: Mapping[str, str]  # as they go upstream (credentials included; never logged)
    timeout: float = 600.0


def summary_request(route: ClientRoute, prompt: str, max_tokens: int) -> tuple[str, dict[str, Any]]:
    """(path and query, body) of a one-message, unstreamed request in the client's shape.

    >>> from snapshot.proxy.shapes import GEMINI
    >>> route = ClientRoute("http://up", "/v1beta/models/g:streamGenerateContent?alt=sse",
    ...                     GEMINI, "g", {})
    >>> summary_request(route, "hi", 100)[0]
    '/v1beta/models/g:generateContent'
    """
    name = route.shape.name
    path = route.path
    if name == "anthropic":
        body: dict[str, Any] = {
            "model": route.model,
            "max_tokens": max_tokens,
            "messages": [{"role": "user", "content": prompt}],
        }
    elif name == "openai":
        body = {"model": route.model, "messages": [{"role": "user", "content": prompt}]}
    elif name == "openai-responses":
        body = {
            "model": route.model,
            "input": [{"role": "user", "content": prompt}],
            "max_output_tokens": max_tokens,
            "store": False,
        }
    else:
        path = path.split("?", 1)[0].replace(":streamGenerateContent", ":generateContent")
        body = {
            "contents": [{"role": "user", "parts": [{"text": prompt}]}],
            "generationConfig": {"maxOutputTokens": max_tokens},
        }
    return path, body


def _reply_text(value: Any) -> str:
    """The text of a reply's assistant items (reasoning left out)."""
    if isinstance(value, list):
        return "".join(_reply_text(v) for v in value)
    if not isinstance(value, dict):
        return ""
    if value.get("type") in ("reasoning", "thinking", "summary_text") or value.get("thought"):
        return ""
    own = value.get("text")
    content = value.get("content")
    text = own if isinstance(own, str) else ""
    if isinstance(content, str):
        return text + content
    return text + "".join(_reply_text(v) for k, v in value.items() if k != "text")


def upstream_ask(route: ClientRoute, max_tokens: int) -> Ask:
    """One summary request through the client's upstream, with its headers."""
    from snapshot.proxy.reply import ReplyReader

    def ask(prompt: str) -> tuple[str, dict[str, int] | None]:
        path, body = summary_request(route, prompt, max_tokens)
        headers = {k: v for k, v in route.headers.items() if k.lower() != "content-type"}
        headers["Content-Type"] = "application/json"
        request = urllib.request.Request(
            route.upstream + path,
            data=json.dumps(body, ensure_ascii=False).encode("utf-8"),
            headers=headers,
            method="POST",
        )
        what = f"{route.model}: live summary failed"
        try:
            with urllib.request.urlopen(request, timeout=route.timeout) as reply:
                data = reply.read()
        except urllib.error.HTTPError as exc:
            # The status only: an error body can echo the request.
            raise SnapshotError(f"{what}: the upstream answered HTTP {exc.code}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise SnapshotError(f"{what}: {type(exc).__name__}") from None
        reader = ReplyReader(route.shape.name, streaming=False)
        reader.feed(data)
        text = _reply_text(reader.finish().items).strip()
        if not text:
            raise SnapshotError(f"{what}: the reply holds no text")
        return text, reader.usage

    return ask
