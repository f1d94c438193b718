"""A recording pass-through on 127.0.0.1: every request and reply between two parties, as sent.

Two taps sit in a harness run: one between the agent CLI and ``snapshot proxy`` (it numbers
each client request with an ``X-Harness-Seq`` header, which the proxy passes upstream like any
header) and one between the proxy and the fake upstream (it reads that number back). So every
upstream body pairs with the client body it came from, retries included, without trusting the
proxy's own logs. Auth headers are recorded as ``***``: a tap's records never hold a key.
"""

from __future__ import annotations

import itertools
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from fake_upstream import serve_in_thread

SEQ_HEADER = "X-Harness-Seq"
_AUTH = {"authorization", "x-api-key", "x-goog-api-key", "api-key", "proxy-authorization"}
_HOP = {
    "connection",
    "keep-alive",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
    "accept-encoding",
    "te",
    "trailer",
}


@dataclass
class Exchange:
    """One request through a tap and the reply that came back."""

    seq: int | None  # the client request it belongs to (None: the proxy's own call)
    method: str
    path: str  # with the query string
    headers: dict[str, str]  # auth values replaced by ***
    body: bytes
    status: int = 0
    reply: bytes = b""
    started: float = 0.0
    seconds: float = 0.0
    client_gone: bool = False


@dataclass
class Tap:
    """Forward everything to ``target``; ``number`` adds the sequence header, else reads it."""

    target: str
    number: bool
    lifetime: float = 3600.0
    exchanges: list[Exchange] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._count = itertools.count(1)
        self._lock = threading.Lock()
        self._server: Any = None
        self._session: aiohttp.ClientSession | None = None

    def __enter__(self) -> Tap:
        self._server = serve_in_thread(self._app, lifetime=self.lifetime)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.port}"

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=512 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        app.on_startup.append(self._start)
        app.on_cleanup.append(self._stop)
        return app

    async def _start(self, _app: web.Application) -> None:
        self._session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=None, sock_read=900), auto_decompress=False
        )

    async def _stop(self, _app: web.Application) -> None:
        if self._session is not None:
            await self._session.close()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP}
        headers["Accept-Encoding"] = "identity"
        if self.number:
            with self._lock:
                seq: int | None = next(self._count)
            headers[SEQ_HEADER] = str(seq)
        else:
            found = request.headers.get(SEQ_HEADER)
            seq = int(found) if found and found.isdigit() else None
        record = Exchange(
            seq,
            request.method,
            request.rel_url.raw_path_qs,
            {k: ("***" if k.lower() in _AUTH else v) for k, v in headers.items()},
            body,
            started=time.time(),
        )
        self.exchanges.append(record)
        async with self._session.request(
            request.method,
            self.target + request.rel_url.raw_path_qs,
            data=body or None,
            headers=headers,
        ) as upstream:
            record.status = upstream.status
            reply = web.StreamResponse(
                status=upstream.status,
                headers={
                    k: v
                    for k, v in upstream.headers.items()
                    if k.lower() not in _HOP and k.lower() != "content-encoding"
                },
            )
            await reply.prepare(request)
            chunks = bytearray()
            try:
                async for chunk in upstream.content.iter_any():
                    chunks += chunk
                    await reply.write(chunk)
                await reply.write_eof()
            except ConnectionError:
                record.client_gone = True  # the client hung up after what it needed (Codex does)
            record.reply = bytes(chunks)
        record.seconds = time.time() - record.started
        return reply
