"""``snapshot proxy --canary RATE``: a small transcription request after a compaction.

For a share ``RATE`` of the compaction passes that draw pages (chosen from the
pass id and a seed, so a run is reproducible), once the client's reply has
completed, the proxy cuts a band of :data:`BAND_ROWS` text rows out of one page
it just sent, asks the same model at the same upstream, in the same provider's
API, for a verbatim transcription (:func:`snapshot.providers.live.ask`, the
page's own image options, :data:`~snapshot.readability.transcribe.TRANSCRIBE_PROMPT`),
and scores the reply against the band's source text, known exactly from the
page (:func:`~snapshot.readability.scoring.score_page`). One record goes to
the evidence file (:mod:`snapshot.proxy.evidence`), one to the ledger (kind
``canary``, the call's measured usage and dollars).

It runs in the background on its own small thread pool, never before the
client's reply and never changing it; at most :data:`MAX_PENDING` are in
flight, the rest are skipped. A failure is one log line. The call uses the key the client
sent with the request (else the provider's key from the environment); the key
goes to the SDK only, never to the evidence, the ledger or the log.

>>> pick("pass-1", 0.0), pick("pass-1", 1.0) is not None
(None, True)
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from snapshot.errors import SnapshotError
from snapshot.proxy.evidence import SCHEMA

BAND_ROWS = 8
#: Every canary record says what the model was shown (issue 40 item 6).
SCOPE = "band crop"
MIN_BAND_CHARS = 40  # a band with less text says little
PAPER_PAD = 8  # fresh paper around the crop, as a text detector expects
MAX_PENDING = 4
WORKERS = 2


def pick(pass_id: str, rate: float, seed: int = 0) -> int | None:
    """A pass's canary draw: None (not chosen), else bits to pick page and band with."""
    digest = hashlib.sha256(f"{seed}:{pass_id}".encode()).digest()
    draw = int.from_bytes(digest[:8], "big") / 2**64
    return int.from_bytes(digest[8:16], "big") if draw < rate else None


@dataclass(frozen=True)
class Region:
    """A band of rows of one page: its image and the text drawn there."""

    page: int  # 1-based, in the pass's page order
    first_row: int
    rows: int
    png: bytes
    size: tuple[int, int]
    expected: str


def cut_region(pages: Sequence[Any], bits: int, band_rows: int = BAND_ROWS) -> Region | None:
    """A band of ``band_rows`` rows holding text, from the page ``bits`` picks.

    The source text is the page's own rows (a line-break marker cell stands as a
    space, as :func:`~snapshot.readability.scoring.page_expected_text` has it).
    """
    from snapshot.rendering.raster import to_png_gray

    if not pages:
        return None
    index = bits % len(pages)
    page = pages[index]
    rows = [r.rstrip("\n").replace("\n", " ") for r in page.rows]
    k = min(band_rows, len(rows))
    if k == 0:
        return None
    starts = len(rows) - k + 1
    first = (bits // len(pages)) % starts
    for start in [*range(first, starts), *range(first)]:
        band = rows[start : start + k]
        if sum(len(r.strip()) for r in band) >= MIN_BAND_CHARS:
            break
    else:
        return None
    boxes = page.row_boxes()
    x0, y0 = boxes[start][0], boxes[start][1]
    x1, y1 = boxes[start + k - 1][2], boxes[start + k - 1][3]
    crop = np.asarray(page.pixels)[y0:y1, x0:x1]
    paper = int(np.bincount(crop.ravel()).argmax())  # a band of text is mostly paper
    out = np.full((crop.shape[0] + 2 * PAPER_PAD, crop.shape[1] + 2 * PAPER_PAD), paper, np.uint8)
    out[PAPER_PAD : PAPER_PAD + crop.shape[0], PAPER_PAD : PAPER_PAD + crop.shape[1]] = crop
    return Region(
        index + 1, start, k, to_png_gray(out), (out.shape[1], out.shape[0]), "\n".join(band)
    )


def client_key(headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
    """The API key the client sent (x-api-key, x-goog-api-key, a bearer token, Gemini's ``key``).

    >>> client_key({"Authorization": "Bearer sk-1"}, {}), client_key({}, {"key": "g-2"})
    ('sk-1', 'g-2')
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    for name in ("x-api-key", "x-goog-api-key", "api-key"):
        if lowered.get(name):
            return lowered[name]
    auth = lowered.get("authorization", "")
    if auth.lower().startswith("bearer ") and auth[7:].strip():
        return auth[7:].strip()
    return query.get("key") or None


def layout_key(geometry: Any) -> str:
    """The page's layout as the readings name it (font shade gap page size)."""
    from snapshot.readability.layout import layout_key as key

    g = geometry
    return key(
        g.font.name, None, g.shade, col_gap=g.col_gap, row_gap=g.row_gap, page=g.size, ink=g.ink
    )


class Canary:
    """The canary of one proxy: draws, sends in the background, writes the records."""

    def __init__(
        self,
        rate: float,
        evidence: Path,
        *,
        upstream: str,
        ledger: Any = None,
        seed: int = 0,
        band_rows: int = BAND_ROWS,
        log: Callable[[str], None] = print,
    ) -> None:
        if not 0 <= rate <= 1:
            raise SnapshotError(f"--canary {rate}: the rate must be in [0, 1]")
        self.rate = rate
        self.seed = seed
        self.band_rows = band_rows
        self.evidence = evidence
        self.upstream = upstream
        self.ledger = ledger
        self.log = log
        self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="canary")
        self._tasks: set[asyncio.Future[None]] = set()
        self._lock = threading.Lock()

    def after_reply(
        self,
        plan: Any,
        model: str,
        api: str,
        headers: Mapping[str, str],
        query: Mapping[str, str],
    ) -> None:
        """Called at the turn boundary of a completed reply: maybe start one canary."""
        if plan.pass_id is None or not plan.sheets or self.rate <= 0:
            return
        bits = pick(plan.pass_id, self.rate, self.seed)
        if bits is None:
            return
        if len(self._tasks) >= MAX_PENDING:
            self.log(f"{model}: canary skipped ({MAX_PENDING} already in flight)")
            return
        key = client_key(headers, query)
        loop = asyncio.get_running_loop()
        sheets = plan.sheets
        task = loop.run_in_executor(self._pool, lambda: self._run(sheets, bits, model, api, key))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self) -> None:
        """Wait for the canaries in flight (the proxy's shutdown), then stop the pool."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=30)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _run(self, sheets: Sequence[Any], bits: int, model: str, api: str, key: str | None) -> None:
        try:
            self._measure(sheets, bits, model, api, key)
        except Exception as exc:  # the background boundary: one line, never raised
            from snapshot.providers.keys import redact

            line = " ".join(str(exc).split())[:300]
            self.log(redact(f"{model}: canary failed ({type(exc).__name__}): {line}", (key or "",)))
            self._ledger(model, api, None, "failed", type(exc).__name__, "")

    def _measure(
        self, sheets: Sequence[Any], bits: int, model: str, api: str, key: str | None
    ) -> None:
        from snapshot.profiles.probe_target import probe_target_for
        from snapshot.providers.live import CHAT_DETAILS, ask, key_from_env
        from snapshot.proxy.ledger import usage_dollars
        from snapshot.proxy.upstream import sdk_base_url
        from snapshot.readability.scoring import canonical, score_page
        from snapshot.readability.transcribe import TRANSCRIBE_PROMPT, reply_rows

        region = cut_region(sheets, bits, self.band_rows)
        if region is None:
            self.log(f"{model}: canary skipped (no page band with text)")
            return
        # the canary speaks the client's own API (a chat client's canary is a chat request)
        sdk_api = {"openai-responses": "responses", "openai": "chat"}.get(api)
        target = probe_target_for(model, api=sdk_api)
        if target.api == "chat" and target.detail not in CHAT_DETAILS:
            # A band is far inside the "high" box and patch budget: its pixels go unscaled.
            target = dataclasses.replace(target, detail="high")
        key = key or key_from_env(target.provider, model=model)
        reply = ask(
            target,
            region.png,
            TRANSCRIBE_PROMPT,
            api_key=key,
            base_url=sdk_base_url(self.upstream, target.provider),
            max_retries=0,
        )
        read = "\n".join(reply_rows(reply.text, region.rows))
        score = score_page(region.expected, read)
        usage = {
            "input": reply.usage.get("input_tokens", 0),
            "cache_read": 0,
            "cache_write": 0,
            "output": reply.usage.get("output_tokens", 0),
        }
        dollars = usage_dollars(model, usage) if reply.usage else None
        page = sheets[region.page - 1]
        g = page.geometry
        reader = reply.served or model
        record = {
            "schema": SCHEMA,
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "model": model,
            "reader": reader,
            "provider": target.provider,
            "api": api,
            "profile": target.profile,
            "layout": layout_key(g),
            # What the model read: a band cut out of the page with fresh margins, not the
            # page as sent (its figures say how the band reads, labelled so wherever used).
            "scope": SCOPE,
            "font": g.font.name,
            "shade": g.shade,
            "page_size": list(g.size),
            "grid": [g.cols, g.rows],
            "chars_per_kpx": round(g.chars_per_kpx, 3),
            "image_options": target.image_options(),
            "region": {
                "page": region.page,
                "pages": len(sheets),
                "first_row": region.first_row,
                "rows": region.rows,
                "size": list(region.size),
            },
            "chars": len(canonical(region.expected)),
            "char_accuracy": round(score.char_accuracy, 6),
            "hard_tokens": score.hard_tokens,
            "hard_tokens_exact": score.hard_tokens_exact,
            "usage": usage if reply.usage else None,
            "usage_label": "measured" if reply.usage else None,
            "dollars": dollars,
            "seconds": round(reply.duration_s, 3),
        }
        self._append(record)
        self._ledger(model, api, record["usage"], "ok", None, reader, dollars)
        self.log(
            f"{model}: canary read page {region.page} rows {region.first_row}+{region.rows} "
            f"({layout_key(g)}) at {score.char_accuracy:.3f} characters by {reader}"
        )

    def _append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, sort_keys=True)
        with self._lock:
            self.evidence.parent.mkdir(parents=True, exist_ok=True)
            with open(self.evidence, "a", encoding="utf-8") as out:
                out.write(line + "\n")
                out.flush()
                os.fsync(out.fileno())

    def _ledger(
        self,
        model: str,
        api: str,
        usage: dict[str, int] | None,
        status: str,
        error: str | None,
        reader: str,
        dollars: dict[str, Any] | None = None,
    ) -> None:
        if self.ledger is None:
            return
        self.ledger.write(
            {
                "kind": "canary",
                "model": model,
                "api": api,
                "status": status,
                "error": error,
                "reader": reader,
                "evidence": str(self.evidence),
                "usage": usage,
                "usage_label": "measured" if usage else None,
                "dollars": dollars,
            }
        )
