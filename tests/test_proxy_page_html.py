"""The proxy page's document and guards, without a browser (``test_proxy_page`` has one).

Escaping, the figures a record lacks ("not recorded" / "not measured"), the
fields a later cost mode adds (``counterfactual.dollars``, ``plan.exact_ids``),
and the loopback and same-origin guards of the routes.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any
from unittest import mock

import pytest

pytest.importorskip("aiohttp")

from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from snapshot.proxy.page import LivePage


def _record(**extra: Any) -> dict[str, Any]:
    plan = {
        "compacted": True,
        "reused_pass": False,
        "rungs": ["elide"],
        "tokens_before": {"tokens": 1000, "label": "exact"},
        "tokens_after": {"tokens": 400, "label": "exact"},
        **extra.pop("plan", {}),
    }
    return {
        "time": 1.0,
        "conversation": "c1",
        "agent": "main",
        "model": "gpt-5.5",
        "status": 200,
        "plan": plan,
        "usage": {"input": 380, "cache_read": 0, "cache_write": 0, "output": 5},
        "dollars": {"total": 0.002},
        **extra,
    }


def _row(html: str, name: str) -> str:
    found = re.search(rf"<th>{re.escape(name)}</th><td class=fig>([^<]*)</td>", html)
    assert found, name
    return found.group(1)


def test_every_value_is_escaped() -> None:
    page = LivePage("http://user:secret@127.0.0.1:9/")
    hostile = "<script>alert('x')</script>"
    page.observe(_record(conversation=hostile, agent='"><img src=x>', model=hostile))
    html = page.html()
    assert "<script>" not in html and "<img src=x>" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert "secret" not in html and "user" not in html  # the upstream's userinfo is dropped


def test_missing_figures_say_so_and_no_figure_is_made_up() -> None:
    page = LivePage()
    page.observe(_record(usage=None, dollars=None))
    html = page.html()
    assert _row(html, "tokens saved, counted") == "600 tokens"
    assert _row(html, "prompt tokens, measured") == "not recorded"
    assert _row(html, "dollars paid") == "not recorded"
    assert _row(html, "dollars as the client&#x27;s text") == "not recorded"
    assert _row(html, "dollars saved") == "not recorded"
    assert _row(html, "exact-id coverage") == "not measured"


def test_a_cost_modes_fields_show_when_recorded() -> None:
    page = LivePage()
    page.observe(
        _record(
            counterfactual={"dollars": {"total": 0.005}},
            plan={"exact_ids": {"on_pages": 40, "as_text": 38}},
        )
    )
    html = page.html()
    assert _row(html, "dollars paid") == "$0.0020"
    assert _row(html, "dollars as the client&#x27;s text") == "$0.0050"
    assert _row(html, "dollars saved") == "$0.0030"
    assert _row(html, "exact-id coverage").startswith("95.0% (38 of 40")


def test_canary_calls_are_not_traffic() -> None:
    page = LivePage()
    page.observe({"kind": "canary", "conversation": "c1", "model": "gpt-5.5"})
    assert "No request yet." in page.html()


def _request(method: str, path: str, remote: str, **headers: str) -> web.Request:
    transport = mock.Mock()
    transport.get_extra_info.side_effect = lambda name, default=None: (
        (remote, 5555) if name == "peername" else default
    )
    return make_mocked_request(method, path, headers=headers, transport=transport)


def test_only_loopback_sees_the_page() -> None:
    page = LivePage()

    async def status(request: web.Request) -> int:
        return (await page._index(request)).status

    assert asyncio.run(status(_request("GET", "/", "127.0.0.1", Host="127.0.0.1:8787"))) == 200
    assert asyncio.run(status(_request("GET", "/", "::1", Host="localhost:8787"))) == 200
    assert asyncio.run(status(_request("GET", "/", "10.1.2.3", Host="127.0.0.1:8787"))) == 403
    # DNS rebinding: loopback peer, a foreign host name.
    assert asyncio.run(status(_request("GET", "/", "127.0.0.1", Host="evil.example:8787"))) == 403


def test_the_switch_refuses_another_origin() -> None:
    page = LivePage()
    request = _request(
        "POST", "/_snapshot/passthrough", "127.0.0.1", Host="127.0.0.1:8787", Origin="http://x.y"
    )
    assert asyncio.run(page._switch(request)).status == 403
    assert not page.passthrough
