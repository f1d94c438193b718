"""The upstream side: which headers go on, and the one HTTP client session.

Every request header goes upstream as the client sent it (the auth headers
``Authorization``, ``x-api-key`` and ``x-goog-api-key`` included: they go
nowhere else), except hop-by-hop headers, ``Host`` and ``Content-Length``
(the client library sets them for the body actually sent) and
``Accept-Encoding``, asked as ``identity`` so the reply can be read as it
passes. The proxy's own ``X-Snapshot-Conversation`` header stays here.

>>> sorted(request_headers({"Authorization": "Bearer k", "Host": "x", "Connection": "close",
...                         "X-Snapshot-Conversation": "c", "anthropic-version": "2023-06-01"}))
['Accept-Encoding', 'Authorization', 'anthropic-version']
>>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
(True, True, False)

The proxy's own small requests (``--summarizer``, ``--canary``) go through the
providers' SDKs to the same upstream: :func:`sdk_base_url` is that URL as each
SDK wants it (OpenAI's with ``/v1``).

>>> sdk_base_url("http://127.0.0.1:9", "openai"), sdk_base_url("http://127.0.0.1:9", "anthropic")
('http://127.0.0.1:9/v1', 'http://127.0.0.1:9')
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

# RFC 9110 §7.6.1 hop-by-hop fields, plus what the HTTP client writes itself.
_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
    "accept-encoding",
    "x-snapshot-conversation",
}
_REPLY_DROP = {*_HOP, "content-encoding"}

# Headers whose values are secrets: never logged, stored or echoed.
AUTH_HEADERS = ("authorization", "x-api-key", "x-goog-api-key", "api-key", "proxy-authorization")


def request_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The client's headers as they go upstream."""
    out = {k: v for k, v in headers.items() if k.lower() not in _HOP}
    out["Accept-Encoding"] = "identity"
    return out


def reply_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The upstream reply's headers as they go back to the client."""
    return {k: v for k, v in headers.items() if k.lower() not in _REPLY_DROP}


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def sdk_base_url(upstream: str, provider: str) -> str | None:
    """``upstream`` as the base URL of ``provider``'s SDK (None: the SDK's default)."""
    if not upstream:
        return None
    if provider != "openai" or upstream.endswith("/v1"):
        return upstream
    return upstream + "/v1"
