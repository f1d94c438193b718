"""The fidelity rule checked on every compacted request a proxy test makes.

:class:`ClientBodies` is an httpx request hook for the official SDKs (anthropic,
openai, google-genai all take an httpx ``Client``): it numbers each request the
client sends in a header (:data:`HEADER`, which the proxy passes upstream like any
other) and keeps the body the client sent. :func:`check_fidelity` pairs each body
the fake upstream accepted with the client's by that number and runs
:func:`snapshot.proxy.fidelity.outside_span_diff` on every one the proxy changed;
it also checks that the proxy made no body invalid the client's was not (the
fake's validator, the providers' published schemas and documented rules).
"""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from fake_upstream import FakeUpstream

from snapshot.proxy.fidelity import outside_span_diff

try:  # the SDKs' HTTP client (httpx2 is what anthropic, openai and google-genai pin here)
    import httpx2 as httpx
except ImportError:  # pragma: no cover - an older SDK set
    import httpx  # type: ignore[no-redef]

HEADER = "x-test-client-request"


@dataclass
class ClientBodies:
    """What the client sent, by request number."""

    bodies: dict[str, bytes] = field(default_factory=dict)
    _numbers: itertools.count[int] = field(default_factory=itertools.count)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def hook(self, request: httpx.Request) -> None:
        with self._lock:
            number = str(next(self._numbers))
        request.headers[HEADER] = number
        self.bodies[number] = request.read()

    def client(self, **kwargs: Any) -> httpx.Client:
        """An httpx client that records through :meth:`hook` (give it to an SDK)."""
        return httpx.Client(event_hooks={"request": [self.hook]}, **kwargs)


@dataclass(frozen=True)
class FidelityReport:
    accepted: int  # upstream bodies paired with what the client sent
    compacted: int  # of them, bodies the proxy changed (each checked)


def _problems(api: str, body: Any, model: str | None) -> set[str]:
    from snapshot.transcript.validate import validate

    if not isinstance(body, dict):
        return set()
    checked = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
    return {p.message for p in validate(checked, api, model=model).problems}


def check_fidelity(fake: FakeUpstream, sent: ClientBodies) -> FidelityReport:
    """Assert the rule on every accepted body the proxy changed; say how many there were."""
    paired = compacted = 0
    for accepted in fake.accepted:
        number = accepted.headers.get(HEADER)
        if number is None or number not in sent.bodies:
            continue
        paired += 1
        raw = sent.bodies[number]
        if accepted.raw == raw:
            continue
        compacted += 1
        client = json.loads(raw)
        diff = outside_span_diff(client, accepted.body, accepted.api)
        assert not diff, f"request {number} ({accepted.api}): {diff[:5]}"
        # The client's cache_control markers: never multiplied (moved: the diff's business).
        assert raw.count(b'"cache_control"') >= accepted.raw.count(b'"cache_control"'), number
        model = accepted.body.get("model") if isinstance(accepted.body, dict) else None
        if accepted.api == "gemini":
            model = accepted.path.split("/models/")[-1].split(":")[0]
        new = _problems(accepted.api, accepted.body, model) - _problems(accepted.api, client, model)
        assert not new, f"request {number} ({accepted.api}): the proxy made it invalid: {new}"
    return FidelityReport(paired, compacted)
