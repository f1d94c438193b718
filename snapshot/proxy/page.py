"""The proxy's local page: ``GET /`` shows, live, what the proxy did per conversation.

Served by the proxy itself (aiohttp routes beside its one handler), to loopback
only: a request from another address, or naming a host that is not a loopback
one (a DNS-rebinding page), is refused with 403. The page is one HTML document
with inline CSS, no script, no external asset; every value in it is
HTML-escaped, and it never shows a header or a key (it is built from the
ledger records, which hold none).

Per conversation (and agent), since the proxy started:

- tokens: the client's text as the planner counted it (the counterfactual),
  what was sent, the difference saved, each with its counter's label; beside
  them the provider's own ``usage`` (measured), with how many replies carried one;
- dollars: paid (measured usage at the pinned prices) beside the counterfactual's,
  the client's text counted offline and priced with the prompt cache counted
  (``counterfactual.dollars``, modelled: :mod:`snapshot.proxy.counterfactual`),
  else "not recorded"; the cache-prefix share, modelled (``counterfactual``)
  beside measured (``usage.cache_read`` over the prompt);
- each compaction (a new pass) with its pages beside the text they hold; the
  PNGs are served at ``/_snapshot/pages/{id}/{n}.png``, drawn again from the
  page's cells on each request (the bytes sent upstream: identical cells draw
  identical pages); only the newest :data:`MAX_COMPACTIONS` are kept;
- the exact-id coverage where a record carries ``plan.exact_ids``
  (``{"on_pages": n, "as_text": m}``), else "not measured";
- the switch: ``POST /_snapshot/passthrough`` (form field ``on`` = ``1`` or
  ``0``) flips the proxy to forwarding every request untouched, byte for byte
  (no planning, no store, no ledger), and back.

>>> page = LivePage("http://127.0.0.1:9")
>>> page.observe({"conversation": "c1", "agent": "main", "model": "gpt-5.5", "status": 200,
...     "plan": {"compacted": True, "reused_pass": False,
...              "tokens_before": {"tokens": 900, "label": "exact"},
...              "tokens_after": {"tokens": 300, "label": "exact"}},
...     "usage": {"input": 280, "cache_read": 20, "cache_write": 0, "output": 10},
...     "dollars": {"total": 0.0012}})
>>> html = page.html()
>>> "600" in html and "not recorded" in html and "not measured" in html
True
"""

from __future__ import annotations

import asyncio
import html as _html
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from ipaddress import ip_address
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from aiohttp import web

#: Compactions whose pages the page keeps (oldest dropped first).
MAX_COMPACTIONS = 16
#: Conversations shown (the least recently active dropped first).
MAX_CONVERSATIONS = 100
#: Requests listed per conversation (the totals count every one).
RECENT_REQUESTS = 12
#: Seconds between the page's own reloads (a meta refresh: no script).
REFRESH_SECONDS = 5
PAGES_PATH = "/_snapshot/pages"
SWITCH_PATH = "/_snapshot/passthrough"
NOT_RECORDED = "not recorded"
NOT_MEASURED = "not measured"


def _e(value: object) -> str:
    return _html.escape(str(value), quote=True)


def _n(value: int | float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:,.4f}"


@dataclass
class _Compaction:
    """One new pass: its pages (cells kept, pixels drawn on request) and figures."""

    id: str
    key: tuple[str, str]
    model: str
    when: float
    rungs: tuple[str, ...]
    tokens_before: int
    tokens_after: int
    label: str
    pages: tuple[Any, ...]  # snapshot.rendering.page.Page
    exact_ids: dict[str, int] | None = None


@dataclass
class _Conversation:
    """Totals of one conversation and agent, from its ledger records."""

    key: tuple[str, str]
    models: set[str] = field(default_factory=set)
    requests: int = 0
    compacted: int = 0
    counted_before: int = 0
    counted_after: int = 0
    count_labels: set[str] = field(default_factory=set)
    saved_labels: set[str] = field(default_factory=set)  # of the compacted requests' counts
    with_usage: int = 0
    usage: dict[str, int] = field(
        default_factory=lambda: {"input": 0, "cache_read": 0, "cache_write": 0, "output": 0}
    )
    with_dollars: int = 0
    dollars: float = 0.0
    with_counterfactual: int = 0
    counterfactual_dollars: float = 0.0
    modelled_sent_tokens: int = 0
    modelled_prefix_tokens: int = 0
    exact_on_pages: int = 0
    exact_as_text: int = 0
    exact_measured: int = 0
    recent: list[dict[str, Any]] = field(default_factory=list)


class LivePage:
    """What ``GET /`` shows: fed every ledger record and every new pass of this proxy."""

    def __init__(self, upstream: str = "", mode: str = "window") -> None:
        self.upstream = upstream
        self.mode = mode  # snapshot proxy --mode
        self.passthrough = False
        self.passed_through = 0  # requests forwarded untouched while the switch was on
        self.started = time.time()
        self._conversations: OrderedDict[tuple[str, str], _Conversation] = OrderedDict()
        self._compactions: OrderedDict[str, _Compaction] = OrderedDict()

    # -- fed by the proxy ------------------------------------------------------------

    def observe(self, record: dict[str, Any]) -> None:
        """One ledger record (the dict the proxy writes; a canary's is not traffic)."""
        if record.get("kind") == "canary":
            return
        key = (str(record.get("conversation") or "?"), str(record.get("agent") or "?"))
        conv = self._conversations.setdefault(key, _Conversation(key))
        self._conversations.move_to_end(key)
        while len(self._conversations) > MAX_CONVERSATIONS:
            self._conversations.popitem(last=False)
        conv.requests += 1
        conv.models.add(str(record.get("model") or "?"))
        plan = record.get("plan") or {}
        before = plan.get("tokens_before") or {}
        after = plan.get("tokens_after") or {}
        if plan.get("compacted"):
            conv.compacted += 1
        if isinstance(before.get("tokens"), int) and isinstance(after.get("tokens"), int):
            conv.counted_before += before["tokens"]
            conv.counted_after += after["tokens"]
            conv.count_labels.add(str(before.get("label") or "estimated"))
            if plan.get("compacted"):
                conv.saved_labels.add(str(before.get("label") or "estimated"))
        usage = record.get("usage")
        if isinstance(usage, dict):
            conv.with_usage += 1
            for part in conv.usage:
                conv.usage[part] += int(usage.get(part) or 0)
        total = (record.get("dollars") or {}).get("total")
        if isinstance(total, int | float):
            conv.with_dollars += 1
            conv.dollars += total
        counterfactual = ((record.get("counterfactual") or {}).get("dollars") or {}).get("total")
        if isinstance(counterfactual, int | float):
            conv.with_counterfactual += 1
            conv.counterfactual_dollars += counterfactual
        sent = (record.get("counterfactual") or {}).get("sent") or {}
        if isinstance(sent.get("tokens"), int) and isinstance(sent.get("cache_read"), int):
            conv.modelled_sent_tokens += sent["tokens"]
            conv.modelled_prefix_tokens += sent["cache_read"]
        exact = plan.get("exact_ids")
        if isinstance(exact, dict) and not plan.get("reused_pass"):
            conv.exact_measured += 1
            conv.exact_on_pages += int(exact.get("on_pages") or 0)
            conv.exact_as_text += int(exact.get("as_text") or 0)
        conv.recent.append(record)
        del conv.recent[:-RECENT_REQUESTS]

    def compaction(self, key: tuple[str, str], model: str, plan: Any) -> None:
        """A new pass (``plan``: a :class:`~snapshot.proxy.planner.RequestPlan` with a
        ``pass_id``): its pages kept as cells, their pixels dropped until asked for."""
        if plan.pass_id is None or not plan.sheets:
            return
        ident = plan.pass_id[:16]
        record = plan.record()
        self._compactions[ident] = _Compaction(
            ident,
            key,
            model,
            time.time(),
            tuple(plan.rungs),
            plan.tokens_before,
            plan.tokens_after,
            record["tokens_before"]["label"],
            tuple(replace(p) for p in plan.sheets),  # a copy holds no drawn pixels
            record.get("exact_ids"),
        )
        self._compactions.move_to_end(ident)
        while len(self._compactions) > MAX_COMPACTIONS:
            self._compactions.popitem(last=False)

    # -- routes ----------------------------------------------------------------------

    def add_routes(self, app: web.Application) -> None:
        """Register the page's routes (before the proxy's catch-all)."""
        app.router.add_get("/", self._index)
        app.router.add_get(PAGES_PATH + "/{ident}/{number:[0-9]+}.png", self._png)
        app.router.add_post(SWITCH_PATH, self._switch)

    async def _index(self, request: web.Request) -> web.StreamResponse:
        refused = _refuse(request)
        if refused is not None:
            return refused
        return web.Response(
            text=self.html(),
            content_type="text/html",
            charset="utf-8",
            headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"},
        )

    async def _png(self, request: web.Request) -> web.StreamResponse:
        refused = _refuse(request)
        if refused is not None:
            return refused
        found = self._compactions.get(request.match_info["ident"])
        number = int(request.match_info["number"])
        if found is None or not 1 <= number <= len(found.pages):
            return web.Response(status=404, text="no such page (only the newest are kept)\n")
        page = replace(found.pages[number - 1])  # drawn now, nothing kept after
        data = await asyncio.get_running_loop().run_in_executor(None, page.png)
        return web.Response(
            body=data,
            content_type="image/png",
            headers={"Cache-Control": "private, max-age=3600", "X-Content-Type-Options": "nosniff"},
        )

    async def _switch(self, request: web.Request) -> web.StreamResponse:
        refused = _refuse(request, post=True)
        if refused is not None:
            return refused
        form = await request.post()
        wanted = str(form.get("on", ""))
        if wanted not in ("0", "1"):
            return web.Response(status=400, text="give on=1 (pass through) or on=0 (compact)\n")
        self.passthrough = wanted == "1"
        raise web.HTTPSeeOther("/")

    # -- the document ----------------------------------------------------------------

    def html(self) -> str:
        """The whole page (every value escaped)."""
        started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.started))
        parts = [
            "<!doctype html><html lang=en><head><meta charset=utf-8>",
            f'<meta http-equiv="refresh" content="{REFRESH_SECONDS}">',
            "<title>snapshot proxy</title><style>",
            _CSS,
            "</style></head><body>",
            "<h1>snapshot proxy</h1>",
            f"<p class=sub>forwarding to <code>{_e(_without_userinfo(self.upstream))}</code> · "
            f"since {_e(started)} · this page reloads every {REFRESH_SECONDS} s</p>",
            self._switch_html(),
        ]
        if not self._conversations:
            parts.append("<p>No request yet.</p>")
        for conv in reversed(self._conversations.values()):  # the most recently active first
            parts.append(self._conversation_html(conv))
        parts.append(
            "<p class=note>Counted tokens are the proxy's own counts before sending "
            "(label: exact, reconstructed or estimated). Measured figures are the provider's "
            "<code>usage</code>; dollars are measured usage at the pinned genai-prices rates.</p>"
        )
        parts.append("</body></html>")
        return "\n".join(parts)

    def _switch_html(self) -> str:
        if self.passthrough:
            state = (
                "<span class='state off' id=mode>pass-through</span> every request is forwarded "
                f"untouched ({self.passed_through:,} so far)"
            )
            button = "<button name=on value=0 id=switch>Resume compacting</button>"
        else:
            what = {
                "cost": "on every request where the bill says pages pay (--mode cost)",
                "window": "over the threshold (--mode window)",
            }.get(self.mode, f"--mode {self.mode}")
            state = f"<span class='state on' id=mode>compacting</span> {_e(what)}"
            button = "<button name=on value=1 id=switch>Switch to pass-through</button>"
        return (
            f"<form class=switch method=post action='{SWITCH_PATH}'><p>{state}</p>{button}</form>"
        )

    def _conversation_html(self, conv: _Conversation) -> str:
        saved = conv.counted_before - conv.counted_after
        label = "/".join(sorted(conv.count_labels)) or "-"
        measured_prompt = conv.usage["input"] + conv.usage["cache_read"] + conv.usage["cache_write"]
        usage_note = f"{conv.with_usage} of {conv.requests} replies carried usage"
        paid = f"${conv.dollars:.4f}" if conv.with_dollars else NOT_RECORDED
        if conv.with_counterfactual:
            would = f"${conv.counterfactual_dollars:.4f}"
            saved_dollars = (
                f"${conv.counterfactual_dollars - conv.dollars:.4f}"
                if conv.with_counterfactual == conv.with_dollars
                else NOT_RECORDED
            )
        else:
            would = saved_dollars = NOT_RECORDED
        if conv.exact_measured and conv.exact_on_pages:
            coverage = (
                f"{conv.exact_as_text / conv.exact_on_pages:.1%} "
                f"({conv.exact_as_text:,} of {conv.exact_on_pages:,} ids on pages also as text)"
            )
        else:
            coverage = NOT_MEASURED
        prefix = (
            f"{conv.modelled_prefix_tokens / conv.modelled_sent_tokens:.0%} modelled"
            if conv.modelled_sent_tokens
            else NOT_RECORDED
        )
        if conv.with_usage and measured_prompt:
            prefix += f" · {conv.usage['cache_read'] / measured_prompt:.0%} measured"
        name, agent = conv.key
        rows = [
            ("requests", f"{conv.requests:,} ({conv.compacted:,} compacted)", ""),
            ("client's text, counted", f"{conv.counted_before:,} tokens", label),
            ("sent, counted", f"{conv.counted_after:,} tokens", label),
            (
                "tokens saved, counted",
                f"{saved:,} tokens",
                "/".join(sorted(conv.saved_labels)) or "-",
            ),
            (
                "prompt tokens, measured",
                f"{measured_prompt:,} (input {conv.usage['input']:,}, cache read "
                f"{conv.usage['cache_read']:,}, cache write {conv.usage['cache_write']:,}); "
                f"output {conv.usage['output']:,}"
                if conv.with_usage
                else NOT_RECORDED,
                f"measured · {usage_note}",
            ),
            ("dollars paid", paid, "measured usage × price"),
            (
                "dollars as the client's text",
                would,
                "counterfactual: counted offline, prompt cache counted (modelled)",
            ),
            ("dollars saved", saved_dollars, "counterfactual − paid"),
            ("cache prefix share", prefix, "read from the provider's cache / prompt"),
            ("exact-id coverage", coverage, ""),
        ]
        table = "".join(
            f"<tr><th>{_e(a)}</th><td class=fig>{_e(b)}</td><td class=lab>{_e(c)}</td></tr>"
            for a, b, c in rows
        )
        models = ", ".join(sorted(conv.models))
        out = [
            "<section class=conv>",
            f"<h2>{_e(name)} <span class=agent>/ {_e(agent)}</span></h2>",
            f"<p class=sub>{_e(models)}</p>",
            f"<table class=figures>{table}</table>",
            self._requests_html(conv.recent),
        ]
        for comp in reversed(self._compactions.values()):
            if comp.key == conv.key:
                out.append(self._compaction_html(comp))
        out.append("</section>")
        return "\n".join(out)

    def _requests_html(self, records: Iterable[dict[str, Any]]) -> str:
        head = (
            "<tr><th>time</th><th>model</th><th>status</th><th>plan</th>"
            "<th>client's text</th><th>sent</th><th>measured prompt</th><th>measured $</th>"
            "<th>client's text $ (modelled)</th></tr>"
        )
        rows = []
        for rec in reversed(list(records)):
            plan = rec.get("plan") or {}
            before = (plan.get("tokens_before") or {}).get("tokens")
            after = (plan.get("tokens_after") or {}).get("tokens")
            what = "as it came"
            if plan.get("compacted"):
                what = ("reused pass: " if plan.get("reused_pass") else "new pass: ") + ", ".join(
                    str(r) for r in plan.get("rungs") or []
                )
            usage = rec.get("usage")
            prompt = (
                _n(sum(int(usage.get(k) or 0) for k in ("input", "cache_read", "cache_write")))
                if isinstance(usage, dict)
                else NOT_RECORDED
            )
            total = (rec.get("dollars") or {}).get("total")
            would = ((rec.get("counterfactual") or {}).get("dollars") or {}).get("total")
            when = time.strftime("%H:%M:%S", time.gmtime(float(rec.get("time") or 0)))
            rows.append(
                "<tr>"
                + "".join(
                    f"<td>{_e(v)}</td>"
                    for v in (
                        when,
                        rec.get("model") or "?",
                        rec.get("status") or "?",
                        what,
                        _n(before) if isinstance(before, int) else NOT_RECORDED,
                        _n(after) if isinstance(after, int) else NOT_RECORDED,
                        prompt,
                        f"${total:.4f}" if isinstance(total, int | float) else NOT_RECORDED,
                        f"${would:.4f}" if isinstance(would, int | float) else NOT_RECORDED,
                    )
                )
                + "</tr>"
            )
        return f"<table class=requests>{head}{''.join(rows)}</table>"

    def _compaction_html(self, comp: _Compaction) -> str:
        when = time.strftime("%H:%M:%S", time.gmtime(comp.when))
        coverage = NOT_MEASURED
        if comp.exact_ids and comp.exact_ids.get("on_pages"):
            coverage = f"{comp.exact_ids.get('as_text', 0)} of {comp.exact_ids['on_pages']}"
        out = [
            f"<details class=compaction open><summary>compaction {_e(comp.id)} at {_e(when)}: "
            f"{_e(', '.join(comp.rungs))} · {len(comp.pages)} page(s) · "
            f"{comp.tokens_before:,} → {comp.tokens_after:,} tokens ({_e(comp.label)}) · "
            f"exact-id coverage {_e(coverage)}</summary>"
        ]
        for n, page in enumerate(comp.pages, start=1):
            w, h = page.geometry.size
            src = f"{PAGES_PATH}/{comp.id}/{n}.png"
            out.append(
                f"<div class=page><a href='{_e(src)}'><img src='{_e(src)}' width={w} height={h} "
                f"alt='page {n} of compaction {_e(comp.id)}'></a>"
                f"<div><p class=sub>page {n}/{len(comp.pages)} · {w}×{h} px · "
                f"{_e(page.geometry.font.name)} · {len(page.text):,} characters</p>"
                f"<pre>{_e(page.text)}</pre></div></div>"
            )
        out.append("</details>")
        return "\n".join(out)


def _without_userinfo(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _is_loopback(address: str | None) -> bool:
    if not address:
        return False
    try:
        return ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


def _refuse(request: web.Request, *, post: bool = False) -> web.Response | None:
    """403 unless the request comes from loopback and names a loopback host; a POST also
    needs no Origin, or this page's own (a form on another site cannot flip the switch)."""
    host = urlsplit("//" + (request.host or "")).hostname or ""
    if not _is_loopback(request.remote) or not (host == "localhost" or _is_loopback(host)):
        return web.Response(status=403, text="the proxy's page is served to loopback only\n")
    if post:
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"{request.scheme}://{request.host}":
            return web.Response(status=403, text="the switch takes a POST from this page only\n")
    return None


_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;
color:#1b1f24;background:#fafafa}
h1{margin:0;font-size:1.6em}h2{margin:.2em 0;font-size:1.25em}
.sub{color:#57606a;margin:.2em 0 .6em}.agent{color:#57606a;font-weight:normal}
.switch{display:flex;align-items:center;gap:1em;background:#fff;border:1px solid #d0d7de;
border-radius:6px;padding:.4em 1em;margin:1em 0}
.switch p{margin:0;flex:1}.state{font-weight:bold;padding:.1em .5em;border-radius:4px}
.state.on{background:#dafbe1;color:#116329}.state.off{background:#ffebe9;color:#a40e26}
button{font:inherit;padding:.35em .9em;border-radius:6px;border:1px solid #8c959f;
background:#f6f8fa;cursor:pointer}
.conv{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:.8em 1.2em;margin:1em 0}
table{border-collapse:collapse;margin:.5em 0}
td,th{padding:.2em .7em;text-align:left;vertical-align:top}
.figures th{font-weight:normal;color:#57606a}.figures .fig{font-weight:600;
font-variant-numeric:tabular-nums}.figures .lab{color:#57606a;font-size:.9em}
.requests{font-size:.9em;font-variant-numeric:tabular-nums}
.requests th{border-bottom:1px solid #d0d7de}.requests tr:nth-child(even){background:#f6f8fa}
.compaction{margin:.8em 0}.compaction summary{cursor:pointer;font-weight:600}
.page{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1em;margin:.6em 0;
align-items:start}
.page img{max-width:100%;height:auto;border:1px solid #d0d7de;image-rendering:auto}
pre{margin:0;max-height:30em;overflow:auto;background:#f6f8fa;border:1px solid #d0d7de;
padding:.5em;font-size:12px;white-space:pre-wrap;word-break:break-all}
.note{color:#57606a;font-size:.9em}code{font-size:.95em}
"""
