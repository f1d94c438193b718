"""The proxy server (aiohttp): one handler, every path.

A request on one of the four API paths (:mod:`snapshot.proxy.shapes`) is
planned (:class:`~snapshot.proxy.planner.Planner`: as it came, byte-identical,
or compacted), sent upstream, and its reply streamed back as it arrives while
:class:`~snapshot.proxy.reply.ReplyReader` reads usage and the assistant turn
from it. A "too large" rejection (:func:`~snapshot.proxy.recovery.parse_overflow`)
is learned from and recovered once, aimed at the limit it taught (the free rungs,
the dense layout, then a summary with ``--summarizer``); a retry is strictly
smaller than the refused body, and a refused retry is never resent. When nothing
fits, the provider's error goes back unchanged (so the harness's own compaction
can run) with an ``X-Snapshot-Recovery`` header saying what was tried; each
rejection is its own ledger record (``kind: rejection``). Once the reply has
completed, the turn is stored (:func:`~snapshot.proxy.turns.record_turn`) and
one ledger record written. Any other path is forwarded unchanged, except the
proxy's own page (:mod:`snapshot.proxy.page`: ``GET /`` and ``/_snapshot/...``,
loopback only), whose switch makes every request pass through untouched.

Errors of the proxy's own (a body over ``--max-body``, an upstream that is
down or slow) are answered in the provider's error shape with one log line,
never a traceback. A body it cannot read or represent (not JSON, no model, a
history the importer refuses) goes upstream untouched with one log line; a
model no table knows goes as it came until a window is known (``--window``,
or the provider's first "too large").
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import ClientError, ClientSession, ClientTimeout, TCPConnector, web

from snapshot.errors import InputError, SnapshotError
from snapshot.providers.overflow import Overflow, parse_overflow
from snapshot.proxy.bodies import parse_checked, representable
from snapshot.proxy.canary import Canary
from snapshot.proxy.costmode import MODES, CostMode
from snapshot.proxy.counterfactual import Counterfactual
from snapshot.proxy.errors import ProxyError, error_body
from snapshot.proxy.identity import identify
from snapshot.proxy.ledger import Ledger, usage_dollars
from snapshot.proxy.page import LivePage
from snapshot.proxy.planner import Planner, RequestPlan, SummarizerFactory
from snapshot.proxy.recovery import LearnedLimits
from snapshot.proxy.reply import MAX_READ_BYTES, ReplyReader
from snapshot.proxy.shapes import Shape, provider_for_path, shape_for
from snapshot.proxy.summarizer import ClientRoute
from snapshot.proxy.turns import TurnRecorder
from snapshot.proxy.upstream import reply_headers, request_headers
from snapshot.transcript.store import Store

RECOVERY_HEADER = "X-Snapshot-Recovery"
DEFAULT_MAX_BODY = 64 * 1024 * 1024
# An upstream error body the proxy reads (to recover from an overflow) is at most
# this long; a longer one is replaced by an error in the provider's shape saying so.
MAX_ERROR_BYTES = 1024 * 1024


async def read_capped(content: Any, limit: int) -> tuple[bytes, bool]:
    """Up to ``limit`` bytes of a stream, and whether that was all of it.

    ``StreamReader.read(n)`` may return fewer bytes than are left, so it reads
    until ``limit + 1`` bytes or the end.
    """
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = await content.read(limit + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    raw = b"".join(chunks)
    return raw[:limit], len(raw) <= limit


@dataclass(frozen=True)
class ProxyConfig:
    """What ``snapshot proxy`` was started with."""

    upstream: str
    store: Path | None = None
    threshold: float = 0.8
    ledger: Path | None = None
    max_body: int = DEFAULT_MAX_BODY
    summarizer: str | None = None
    window: int | None = None
    connect_timeout: float = 10.0
    read_timeout: float = 600.0
    # --canary RATE: that share of page-drawing passes gets a transcription canary,
    # its records in ``evidence`` (default: evidence.jsonl in the ledger, else the store).
    canary: float = 0.0
    evidence: Path | None = None
    canary_seed: int = 0
    canary_rows: int = 8  # rows in the band a canary cuts (snapshot.proxy.canary.BAND_ROWS)
    # --mode: "window" compacts at the wall (the threshold), "cost" also draws pages on
    # every request where the bill says they pay (snapshot.proxy.costmode), "off" forwards
    # every request byte for byte. --policy: cost mode's "safe" or "full" for every model
    # whose evidence allows pages (None: each model's own default).
    mode: str = "window"
    policy: str | None = None


def _log(message: str) -> None:
    print(f"snapshot proxy: {message}", file=sys.stderr, flush=True)


class Proxy:
    """The proxy's state: planner, store, ledger and the upstream client session."""

    def __init__(self, config: ProxyConfig, *, log: Callable[[str], None] = _log) -> None:
        if config.mode not in MODES:
            raise InputError(f"--mode {config.mode!r}: expected one of {', '.join(MODES)}")
        self.config = config
        self.upstream = config.upstream.rstrip("/")
        self.turns = TurnRecorder(Store(config.store)) if config.store is not None else None
        limits_file = config.store / "proxy-limits.json" if config.store is not None else None
        self.planner = Planner(
            threshold=config.threshold,
            limits=LearnedLimits(limits_file),
            upstream=self.upstream,
            window=config.window,
            summarizer=config.summarizer,
        )
        # Each request as sent and as the client's text would have cost (offline counts).
        self.book = Counterfactual()
        self.ledger = Ledger(config.ledger) if config.ledger is not None else None
        self.log = log
        self.session: ClientSession | None = None
        self.canary = self._canary(config)
        self.cost = (
            CostMode(
                self.book,
                policy=config.policy,
                limits=self.planner.limits,
                upstream=self.upstream,
                window=config.window,
                evidence=self.canary.evidence if self.canary is not None else config.evidence,
            )
            if config.mode == "cost"
            else None
        )
        # GET / (loopback): the live page, and its switch to pass-through.
        self.page = LivePage(self.upstream, mode=config.mode)
        # The last overflow rejection per model: (status, headers, body, what it said).
        self._refusals: dict[str, tuple[int, dict[str, str], bytes, Overflow]] = {}

    def _canary(self, config: ProxyConfig) -> Canary | None:
        if config.canary <= 0:
            return None
        from snapshot.proxy.evidence import FILE

        evidence = config.evidence
        if evidence is None:
            folder = config.ledger if config.ledger is not None else config.store
            if folder is None:
                raise InputError("--canary needs --evidence FILE, --ledger DIR or --store DIR")
            evidence = folder / FILE
        return Canary(
            config.canary,
            evidence,
            upstream=self.upstream,
            ledger=self.ledger,
            seed=config.canary_seed,
            band_rows=config.canary_rows,
            log=self.log,
        )

    def app(self) -> web.Application:
        app = web.Application(client_max_size=self.config.max_body + 1)
        self.page.add_routes(app)  # before the catch-all: GET / and /_snapshot/...
        app.router.add_route("*", "/{tail:.*}", self.handle)
        app.on_startup.append(self._start)
        app.on_cleanup.append(self._stop)
        return app

    async def _start(self, _app: web.Application) -> None:
        # The importers and exporters the first turn needs, loaded before it waits on them.
        import snapshot.transcript.export
        import snapshot.transcript.formats.anthropic_messages
        import snapshot.transcript.formats.gemini_content
        import snapshot.transcript.formats.openai_chat
        import snapshot.transcript.formats.openai_responses  # noqa: F401

        timeout = ClientTimeout(
            total=None, sock_connect=self.config.connect_timeout, sock_read=self.config.read_timeout
        )
        self.session = ClientSession(
            timeout=timeout, connector=TCPConnector(limit=256), auto_decompress=False
        )

    async def _stop(self, _app: web.Application) -> None:
        if self.canary is not None:
            await self.canary.drain()
        if self.session is not None:
            await self.session.close()

    # -- the handler -----------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.rel_url.raw_path
        shape = shape_for(request.method, request.path)
        provider = shape.provider if shape else provider_for_path(request.path)
        try:
            raw = await self._read_body(request)
            if self.page.passthrough or self.config.mode == "off":
                # --mode off, or the page's switch: forwarded untouched, byte for byte,
                # nothing recorded.
                self.page.passed_through += 1
                return await self._forward(request, raw, None)
            if shape is None:
                return await self._forward(request, raw, None)
            return await self._api(request, shape, raw)
        except ProxyError as exc:
            self.log(f"{request.method} {path}: {exc.status} {exc.message}")
            return web.json_response(
                error_body(provider, exc.status, exc.message), status=exc.status
            )
        except (ConnectionError, asyncio.CancelledError):
            raise  # the client went away: nothing to answer
        except Exception as exc:
            # The server boundary: a fault of the proxy is one line and a 500 in the
            # provider's shape, never a traceback in the agent's terminal.
            line = str(exc).splitlines()[0] if str(exc) else ""
            self.log(f"{request.method} {path}: 500 {type(exc).__name__}: {line}")
            message = f"snapshot proxy failed on this request ({type(exc).__name__})"
            return web.json_response(error_body(provider, 500, message), status=500)

    async def _read_body(self, request: web.Request) -> bytes:
        limit = self.config.max_body
        if request.content_length is not None and request.content_length > limit:
            raise ProxyError(
                413,
                f"request body of {request.content_length:,} bytes is over --max-body {limit:,}",
            )
        chunks = bytearray()
        async for chunk in request.content.iter_any():
            chunks += chunk
            if len(chunks) > limit:
                raise ProxyError(413, f"request body is over --max-body {limit:,} bytes")
        return bytes(chunks)

    async def _api(self, request: web.Request, shape: Shape, raw: bytes) -> web.StreamResponse:
        # A body the proxy cannot read or represent goes upstream untouched, with one log
        # line: the provider answers it in its own words; the proxy never "repairs" it.
        # --mode cost re-writes most requests: the body is parsed once with the checks
        # representable() makes (not once for the plan and again before sending).
        checked = self.config.mode == "cost"
        unrepresentable: str | None = None
        try:
            if checked:
                body, unrepresentable = parse_checked(raw)
            else:
                body = json.loads(raw)
        except ValueError as exc:
            return await self._untouched(request, raw, f"not JSON ({exc})")
        if not isinstance(body, dict):
            return await self._untouched(request, raw, "not a JSON object")
        model = shape.model_of(body, request.path)
        if model is None:
            return await self._untouched(request, raw, "it names no model")
        key = identify(shape, body, request.headers)
        route = ClientRoute(
            self.upstream,
            request.rel_url.raw_path_qs,
            shape,
            model,
            request_headers(request.headers),
            self.config.read_timeout,
        )
        summarizer = self.planner.summarizers(route)
        loop = asyncio.get_running_loop()
        try:
            plan, extra = await loop.run_in_executor(
                None, lambda: self._plan(shape, body, model, key, raw, summarizer)
            )
        except SnapshotError as exc:
            line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return await self._untouched(request, raw, f"not representable ({line})")
        sent = raw
        if plan.changed:
            why = unrepresentable if checked else representable(raw)
            if why is not None:
                return await self._untouched(request, raw, f"not representable ({why})")
            sent = plan.data or _encode(plan.body)
        pending = None if extra else self._counterfactual(key, shape, model, body, plan)
        context = _Turn(
            shape,
            body,
            model,
            key,
            plan,
            raw=raw,
            summarizer=summarizer,
            extra=extra,
            pending=pending,
        )
        refusal = self._refusals.get(model) if plan.over_limit else None
        if refusal is not None:
            # The provider already refused this much: its rejection, not another round trip.
            status, headers, error, overflow = refusal
            tried = (
                f"not sent: {plan.tokens_after:,} tokens is over the limit the provider taught "
                f"({self.planner.window(model):,}); its last rejection, unchanged"
            )
            self.log(f"{model}: {tried}")
            self._write_rejection(context, overflow, tried, reached_client=True, replayed=True)
            return web.Response(
                status=status, body=error, headers={**headers, RECOVERY_HEADER: tried}
            )
        self.page.compaction(key, model, plan)
        return await self._forward(request, sent, context)

    def _plan(
        self,
        shape: Shape,
        body: dict[str, Any],
        model: str,
        key: tuple[str, str],
        raw: bytes,
        summarizer: SummarizerFactory | None,
    ) -> tuple[RequestPlan, dict[str, Any]]:
        """The window planner's plan, then the cost mode's (``--mode cost``); with the
        ledger's fields beside it (``counterfactual``, ``cost_mode``)."""
        plan = self.planner.plan(
            shape, body, model, key, raw_bytes=len(raw), summarizer=summarizer, raw=raw
        )
        target = self.planner.target(model)
        if self.cost is not None:
            return self.cost.plan(shape, body, model, key, raw, target, plan)
        return plan, {}

    def _counterfactual(
        self,
        turn_key: tuple[str, str],
        shape: Shape,
        model: str,
        body: dict[str, Any],
        plan: RequestPlan,
    ) -> asyncio.Future[dict[str, Any]]:
        """The window mode's ledger ``counterfactual``, counted while the request is upstream:
        on a 340 KB body it costs ~17 ms of CPU, which a pass-through request must not wait for."""
        target = self.planner.target(model)
        return asyncio.get_running_loop().run_in_executor(
            None,
            lambda: {
                "counterfactual": self.book.record(turn_key, shape.name, target, body, plan.body)
            },
        )

    async def _untouched(self, request: web.Request, raw: bytes, why: str) -> web.StreamResponse:
        """Forward a body the proxy cannot plan as it came, saying so in one log line."""
        self.log(f"{request.method} {request.rel_url.raw_path}: forwarded untouched: {why}")
        return await self._forward(request, raw, None)

    # -- upstream --------------------------------------------------------------------

    async def _forward(
        self, request: web.Request, data: bytes, turn: _Turn | None
    ) -> web.StreamResponse:
        assert self.session is not None
        url = self.upstream + request.rel_url.raw_path_qs
        headers = request_headers(request.headers)
        try:
            upstream = await self.session.request(
                request.method, url, data=data if data else None, headers=headers
            )
        except TimeoutError:
            raise ProxyError(504, f"the upstream {self.upstream} did not answer in time") from None
        except ClientError as exc:
            raise ProxyError(
                502, f"the upstream {self.upstream} is unreachable: {type(exc).__name__}"
            ) from None
        try:
            if turn is not None and upstream.status >= 400:
                retried = await self._maybe_recover(request, upstream, turn, data)
                if retried is not None:
                    return retried
            return await self._relay(request, upstream, turn)
        finally:
            upstream.release()

    async def _read_error(
        self, upstream: Any, turn: _Turn
    ) -> tuple[bytes, dict[str, str], str | None, Overflow | None]:
        """(body, headers, what was done, the overflow it states) of an upstream error."""
        raw, whole = await read_capped(upstream.content, MAX_ERROR_BYTES)
        headers = reply_headers(upstream.headers)
        if not whole:
            # Never a truncated body the client would misread: an error in the
            # provider's own shape, keeping the status, saying what happened.
            message = (
                f"snapshot proxy: the upstream error body (HTTP {upstream.status}) was larger than "
                f"{MAX_ERROR_BYTES:,} bytes, too large to pass whole; it was replaced by this error"
            )
            headers["Content-Type"] = "application/json"
            body = json.dumps(error_body(turn.shape.provider, upstream.status, message)).encode()
            return body, headers, "error body too large", None
        try:
            error = json.loads(raw)
        except ValueError:
            error = None
        overflow = parse_overflow(turn.shape.provider, upstream.status, error)
        if overflow is not None:
            kept = dict(headers)
            kept.pop("Content-Length", None)
            self._refusals[turn.model] = (upstream.status, kept, raw, overflow)
        return raw, headers, None, overflow

    async def _maybe_recover(
        self, request: web.Request, upstream: Any, turn: _Turn, sent: bytes
    ) -> web.StreamResponse:
        """On an overflow: learn, re-plan to the limit it taught, retry once; else the
        provider's error, unchanged."""
        raw, headers, done, overflow = await self._read_error(upstream, turn)
        if overflow is None:
            return self._finish_error(upstream.status, headers, raw, turn, done)
        loop = asyncio.get_running_loop()
        try:
            plan = await loop.run_in_executor(
                None,
                lambda: self.planner.recover(
                    turn.shape,
                    turn.body,
                    turn.model,
                    turn.key,
                    overflow,
                    turn.plan,
                    refused=sent,
                    summarizer=turn.summarizer,
                ),
            )
        except SnapshotError as exc:
            plan = None
            tried = f"recovery failed: {str(exc).splitlines()[0]}"
        unrepresentable = representable(turn.raw) if turn.raw else None
        if unrepresentable is not None:
            plan, tried = None, f"not retried: the body is not representable ({unrepresentable})"
        if plan is not None and plan.changed and plan.fits:
            self.log(
                f"{turn.model}: provider rejected {overflow.counted or '?'} > {overflow.limit or '?'} "
                f"tokens; retrying once compacted to {plan.tokens_after:,} ({', '.join(plan.rungs)})"
            )
            self._write_rejection(turn, overflow, "retried once compacted", reached_client=False)
            self.page.compaction(turn.key, turn.model, plan)
            retry = _Turn(
                turn.shape,
                turn.body,
                turn.model,
                turn.key,
                plan,
                recovered=overflow,
                raw=turn.raw,
                summarizer=turn.summarizer,
                extra=turn.extra,
                pending=turn.pending,
            )
            return await self._forward_once(request, plan.data or _encode(plan.body), retry)
        if plan is not None:
            rungs = ", ".join(plan.rungs) or "no rung changed the request"
            tried = plan.failure or ""
            if not plan.failure or "not retried" not in plan.failure:
                tried = (
                    f"free rungs ({rungs}) reach {plan.tokens_after:,} tokens, over the goal of "
                    f"{plan.budget or 0:,} (limit {overflow.limit or 'not stated'} less the "
                    "margin); not retried"
                )
        headers[RECOVERY_HEADER] = tried
        self.log(f"{turn.model}: provider rejected the request as too large; {tried}")
        self._write_rejection(turn, overflow, tried, reached_client=True)
        headers.pop("Content-Length", None)
        return web.Response(status=upstream.status, body=raw, headers=headers)

    async def _forward_once(
        self, request: web.Request, data: bytes, turn: _Turn
    ) -> web.StreamResponse:
        """The one retry: its reply goes back as it is, whatever it says (a refused retry
        is learned from, never resent)."""
        assert self.session is not None
        url = self.upstream + request.rel_url.raw_path_qs
        try:
            upstream = await self.session.request(
                request.method, url, data=data, headers=request_headers(request.headers)
            )
        except TimeoutError:
            raise ProxyError(504, f"the upstream {self.upstream} did not answer in time") from None
        except ClientError as exc:
            raise ProxyError(
                502, f"the upstream {self.upstream} is unreachable: {type(exc).__name__}"
            ) from None
        try:
            if upstream.status >= 400:
                raw, headers, done, overflow = await self._read_error(upstream, turn)
                if overflow is None:
                    return self._finish_error(upstream.status, headers, raw, turn, done)
                await asyncio.get_running_loop().run_in_executor(
                    None,
                    lambda: self.planner.learn(
                        turn.shape, turn.model, turn.key, overflow, turn.plan, refused=data
                    ),
                )
                tried = "the compacted retry was refused too; not resent"
                headers[RECOVERY_HEADER] = tried
                self.log(f"{turn.model}: {tried}")
                self._write_rejection(turn, overflow, tried, reached_client=True)
                headers.pop("Content-Length", None)
                return web.Response(status=upstream.status, body=raw, headers=headers)
            return await self._relay(request, upstream, turn)
        finally:
            upstream.release()

    def _finish_error(
        self, status: int, headers: dict[str, str], raw: bytes, turn: _Turn, tried: str | None
    ) -> web.Response:
        self._write_ledger(turn, status, None, tried)
        headers.pop("Content-Length", None)
        return web.Response(status=status, body=raw, headers=headers)

    def _write_rejection(
        self,
        turn: _Turn,
        overflow: Overflow,
        tried: str,
        *,
        reached_client: bool,
        replayed: bool = False,
    ) -> None:
        """A provider's overflow, recorded apart from forwarded requests."""
        if self.ledger is None:
            return
        learned = self.planner.limits.get(self.upstream, turn.model)
        self.ledger.write(
            {
                "kind": "rejection",
                "conversation": turn.key[0],
                "agent": turn.key[1],
                "model": turn.model,
                "api": turn.shape.name,
                "status": overflow.status,
                "plan": turn.plan.record(),
                "rejection": {
                    "kind": overflow.kind,
                    "counted": overflow.counted,
                    "limit": overflow.limit,
                    "retry_refused": turn.recovered is not None,
                    "reached_client": reached_client,
                    # Answered from the provider's last rejection: nothing went upstream.
                    "replayed": replayed,
                    "learned": {
                        "limit": learned.limit,
                        "correction": learned.correction,
                        "too_many_bytes": learned.too_many_bytes,
                    },
                },
                "recovery_tried": tried,
            }
        )

    async def _relay(
        self, request: web.Request, upstream: Any, turn: _Turn | None
    ) -> web.StreamResponse:
        """Stream the upstream reply to the client as it arrives, reading it on the way."""
        headers = reply_headers(upstream.headers)
        if turn is not None and turn.recovered is not None:
            headers[RECOVERY_HEADER] = (
                f"retried once after the provider's overflow ({turn.recovered.kind}); "
                f"rungs: {', '.join(turn.plan.rungs)}"
            )
        streaming = "text/event-stream" in upstream.headers.get("Content-Type", "")
        reader = (
            ReplyReader(turn.shape.name, streaming=streaming)
            if turn is not None and upstream.status < 400
            else None
        )
        small = (upstream.content_length or 0) <= MAX_READ_BYTES
        if turn is not None and not streaming and small:
            # A whole JSON reply: the turn is stored before the client has it, so a turn
            # the client saw is never lost to a crash.
            try:
                data = await upstream.content.read()
            except (TimeoutError, ClientError) as exc:
                raise ProxyError(
                    502, f"the upstream reply broke off ({type(exc).__name__})"
                ) from None
            if reader is not None:
                reader.feed(data)
            await self._turn_done(turn, upstream.status, reader, request)
            headers.pop("Content-Length", None)
            return web.Response(status=upstream.status, body=data, headers=headers)
        response = web.StreamResponse(status=upstream.status, headers=headers)
        await response.prepare(request)
        ended = False
        try:
            async for chunk in upstream.content.iter_any():
                if reader is not None:
                    reader.feed(chunk)
                    if reader.done and not ended and turn is not None:
                        # The closing event waits for the store (a few ms), never the first byte.
                        ended = True
                        await self._turn_done(turn, upstream.status, reader, request)
                await response.write(chunk)
            await response.write_eof()
        except (TimeoutError, ClientError, ConnectionError) as exc:
            # Either side went away mid-reply: no turn boundary, nothing stored.
            self.log(f"{request.method} {request.path}: reply cut short ({type(exc).__name__})")
            if turn is not None and not ended:
                self._write_ledger(turn, upstream.status, None, None, False)
            return response
        if turn is not None and not ended:
            await self._turn_done(turn, upstream.status, reader, request)
        return response

    async def _turn_done(
        self, turn: _Turn, status: int, reader: ReplyReader | None, request: web.Request
    ) -> None:
        """The turn boundary: store the turn (a completed reply only), write the ledger, and
        maybe start a canary (in the background: the reply never waits for it)."""
        reply = reader.finish() if reader is not None else None
        stored = None
        if reply is not None and reply.complete and self.turns is not None:
            turns = self.turns
            try:
                await asyncio.get_running_loop().run_in_executor(
                    None,
                    lambda: turns.record(
                        turn.shape,
                        turn.body,
                        reply.items,
                        conversation=turn.key[0],
                        agent=turn.key[1],
                    ),
                )
                stored = True
            except (SnapshotError, OSError) as exc:
                stored = False
                self.log(
                    f"{turn.key[0]}/{turn.key[1]}: turn not stored: {str(exc).splitlines()[0]}"
                )
        if turn.pending is not None:
            with contextlib.suppress(Exception):  # a failed count leaves the field out
                await turn.pending
        self._write_ledger(turn, status, reader.usage if reader else None, None, stored)
        if self.canary is not None and reply is not None and reply.complete:
            self.canary.after_reply(
                turn.plan, turn.model, turn.shape.name, request.headers, request.rel_url.query
            )

    def _write_ledger(
        self,
        turn: _Turn,
        status: int,
        usage: dict[str, int] | None,
        tried: str | None,
        stored: bool | None = None,
    ) -> None:
        fields = turn.ledger_fields()
        record: dict[str, Any] = {
            "conversation": turn.key[0],
            "agent": turn.key[1],
            "model": turn.model,
            "api": turn.shape.name,
            "status": status,
            "plan": turn.plan.record(),
            "recovered_from": None
            if turn.recovered is None
            else {
                "status": turn.recovered.status,
                "kind": turn.recovered.kind,
                "counted": turn.recovered.counted,
                "limit": turn.recovered.limit,
            },
            "recovery_tried": tried,
            "usage": usage,
            "usage_label": "measured" if usage else None,
            "dollars": usage_dollars(turn.model, usage),
            "stored": stored,
            "mode": self.config.mode,
            **fields,
            "cache_prefix_share": _prefix_share(fields.get("counterfactual"), usage),
        }
        if self.ledger is not None:
            self.ledger.write(record)
        self.page.observe({"time": round(time.time(), 3), **record})


@dataclass(frozen=True)
class _Turn:
    """One API request in flight: what the client sent and what the planner chose."""

    shape: Shape
    body: dict[str, Any]
    model: str
    key: tuple[str, str]
    plan: RequestPlan
    recovered: Overflow | None = None  # the overflow a retry answers
    raw: bytes = b""  # the client's body as it came (a retry re-writes it only if representable)
    summarizer: SummarizerFactory | None = None
    # What the request hooks add to its ledger record (counterfactual, cost_mode).
    extra: dict[str, Any] = field(default_factory=dict)
    # More of it, still being counted while the request is upstream (window mode).
    pending: asyncio.Future[dict[str, Any]] | None = None

    def ledger_fields(self) -> dict[str, Any]:
        """``extra`` and whatever of ``pending`` is counted by now (never waited for here)."""
        if self.pending is None or not self.pending.done() or self.pending.cancelled():
            return self.extra
        if self.pending.exception() is not None:
            return self.extra
        return {**self.extra, **self.pending.result()}


def _prefix_share(
    counterfactual: dict[str, Any] | None, usage: dict[str, int] | None
) -> dict[str, Any]:
    """The share of the prompt read from the provider's cache: modelled (the
    counterfactual's count) and measured (the reply's ``usage``), each None when unknown."""
    measured = None
    if usage:
        prompt = usage.get("input", 0) + usage.get("cache_read", 0) + usage.get("cache_write", 0)
        measured = round(usage.get("cache_read", 0) / prompt, 4) if prompt else None
    modelled = (counterfactual or {}).get("cache_prefix_share")
    return {"modelled": modelled, "measured": measured}


def _encode(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False).encode()


#: The collector's thresholds while serving (generation 0 allocations, then passes).
GC_THRESHOLDS = (20_000, 20, 40)


def run(config: ProxyConfig, host: str, port: int) -> None:
    """Serve until interrupted (what ``snapshot proxy`` runs)."""
    proxy = Proxy(config)
    policy = f", --policy {config.policy}" if config.policy else ""
    _log(
        f"listening on http://{host}:{port} → {proxy.upstream} (--mode {config.mode}{policy}); "
        "its page: GET / (loopback)"
    )
    # Each request body parses into tens of thousands of containers, and with the default
    # thresholds (700, 10, 10) the collector ran about ten times a request, its older
    # generations walking every long-lived object (ctok's vocabulary trie): about a tenth
    # of cost mode's CPU per request (bench/test_cost_vs_pxpipe.py). Few of a request's
    # objects form cycles; reference counting frees them.
    gc.set_threshold(*GC_THRESHOLDS)
    web.run_app(proxy.app(), host=host, port=port, access_log=None, print=None)
