"""What a harness run proved: each check computed from the two taps' records, not the proxy's logs.

A client request is *compacted* when an upstream body that carries its sequence number differs
from the client's JSON. Every compacted upstream body goes through
``snapshot.proxy.fidelity.outside_span_diff(client_body, upstream_body, api)`` (issue 38 item 1),
imported lazily so this suite runs on trees that do not have it yet and says so. Beside it, a
coarse structural summary (top-level fields, the verbatim head and tail, item kinds that went
missing) names what differed, for the findings list.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

HISTORY = {"anthropic": "messages", "openai-responses": "input", "gemini": "contents"}
_IMAGE = re.compile(
    r'"(?:data|image_url|url)"\s*:\s*"(?:data:[^"]{0,40};base64,)?([A-Za-z0-9+/=_-]{200,})"'
)
MISSING_FIDELITY = (
    "snapshot.proxy.fidelity.outside_span_diff is missing on this tree "
    "(issue 38 item 1, helper fidelity38): the fidelity diff cannot run"
)


def fidelity_function() -> tuple[Callable[[Any, Any, str], Any] | None, str]:
    """``outside_span_diff`` if this tree has it, else None and why."""
    try:
        from snapshot.proxy import fidelity  # type: ignore[attr-defined]
    except ImportError:
        return None, MISSING_FIDELITY
    found = getattr(fidelity, "outside_span_diff", None)
    if found is None:
        return None, MISSING_FIDELITY
    return found, ""


def _kind(api: str, item: Any) -> str:
    """A history item's kind: role or type, the way each API spells it."""
    if not isinstance(item, dict):
        return type(item).__name__
    if api == "openai-responses":
        kind = str(item.get("type") or "message")
        return f"message:{item.get('role')}" if kind == "message" else kind
    if api == "gemini":
        parts = item.get("parts") or []
        keys = sorted({k for p in parts if isinstance(p, dict) for k in p})
        return f"{item.get('role')}:{'+'.join(keys)}"
    return str(item.get("role"))


# Kinds the package may draw inside the span (as snapshot.proxy.fidelity counts them: a
# reasoning item by its summary, a custom tool call like a function call); any other kind that
# goes missing is a finding.
_DRAWABLE = re.compile(
    r"^(message:user|message:assistant|user|assistant|reasoning"
    r"|(custom_tool|function)_call(_output)?|(user|model):.*)$"
)


def _output(api: str, item: Any) -> bool:
    """Whether a history item is the model's (where the verbatim head ends)."""
    if not isinstance(item, dict):
        return False
    if api == "openai-responses":
        return item.get("role") == "assistant" or item.get("type") in (
            "function_call",
            "custom_tool_call",
            "reasoning",
        )
    return item.get("role") in ("assistant", "model")


def coarse_diff(client: dict[str, Any], upstream: dict[str, Any], api: str) -> list[str]:
    """What differs outside the history and at its verbatim ends, in a few words each."""
    key = HISTORY[api]
    out = []
    for field in sorted(set(client) | set(upstream)):
        if field != key and client.get(field) != upstream.get(field):
            what = (
                "dropped"
                if field not in upstream
                else "added"
                if field not in client
                else "changed"
            )
            out.append(f"top-level {field} {what}")
    before, after = client.get(key) or [], upstream.get(key) or []
    head = next((i for i, item in enumerate(before) if _output(api, item)), len(before))
    if after[:head] != before[:head]:
        kept = sum(1 for a, b in zip(before[:head], after[:head], strict=False) if a == b)
        out.append(f"verbatim head: {kept} of its {head} items kept as sent")
    if before and (not after or after[-1] != before[-1]):
        out.append("last history item not as sent")
    had, has = Counter(_kind(api, i) for i in before), Counter(_kind(api, i) for i in after)
    for kind, n in sorted(had.items()):
        if not _DRAWABLE.match(kind) and has.get(kind, 0) < n:
            out.append(f"{kind}: {n} sent, {has.get(kind, 0)} went upstream")
    ids = _item_fields(before, ("id", "status"))
    if ids and not _item_fields(after, ("id", "status")):
        out.append(f"item id/status: {ids} sent, none went upstream")
    return out


def _common_suffix(a: list[Any], b: list[Any]) -> int:
    """Trailing items equal up to spelling (a string content is one text block; cache markers aside)."""
    n = 0
    while n < min(len(a), len(b)) and _same(a[-1 - n], b[-1 - n]):
        n += 1
    return n


def _same(a: Any, b: Any) -> bool:
    return _normal(a) == _normal(b)


def _normal(x: Any) -> Any:
    if isinstance(x, dict):
        # cache_control moves to the newest message every turn: not part of an item's identity
        out = {
            k: _normal(v)
            for k, v in x.items()
            if k != "cache_control" and not (k == "is_error" and v is False)
        }
        if isinstance(out.get("content"), str) and ("role" in out or "tool_use_id" in out):
            out["content"] = [{"type": "text", "text": out["content"]}]
        return out
    if isinstance(x, list):
        return [_normal(v) for v in x]
    return x


def _item_fields(items: list[Any], names: tuple[str, ...]) -> int:
    return sum(1 for i in items if isinstance(i, dict) and any(n in i for n in names))


def images(body: bytes) -> list[str]:
    """Short hashes of the base64 images of a body, in order."""
    return [
        hashlib.sha256(m.group(1).encode()).hexdigest()[:16]
        for m in _IMAGE.finditer(body.decode("utf-8", "replace"))
    ]


def _ledger_reuse(client: list[Any], ledger: list[dict[str, Any]]) -> dict[int, bool]:
    """The proxy's own ``reused_pass`` per client request, where the ledger lines up one to one.

    The ledger writes one record per upstream answer in order; records after a rejection
    (``recovered_from``) belong to the same request, so only the last record of each counts.
    """
    answers = ledger
    out: dict[int, bool] = {}
    posts = [ex for ex in client if ex.method == "POST" and ex.body]
    i = 0
    for ex in posts:
        if i >= len(answers):
            break
        record = answers[i]
        # a rejected-then-retried request wrote two records: the refusal and the retry
        if record.get("recovery_tried") == "retried once compacted" and i + 1 < len(answers):
            i += 1
            record = answers[i]
        if ex.seq is not None:
            out[ex.seq] = bool((record.get("plan") or {}).get("reused_pass"))
        i += 1
    return out


def key_leaks(key: str, places: list[Path]) -> list[str]:
    """Files under ``places`` that contain ``key`` (as text or bytes)."""
    needle = key.encode()
    found = []
    for place in places:
        files = [place] if place.is_file() else sorted(p for p in place.rglob("*") if p.is_file())
        for path in files:
            try:
                if needle in path.read_bytes():
                    found.append(str(path))
            except OSError:
                continue
    return found


def analyse(
    api: str,
    client: list[Any],
    upstream: list[Any],
    *,
    ledger: list[dict[str, Any]] | None = None,
    keep: int = 25,
) -> dict[str, Any]:
    """Fidelity, reuse, rejections from the taps' exchanges (see :mod:`harness_tap`)."""
    diff, why_missing = fidelity_function()
    proxy_reused = _ledger_reuse(client, ledger or [])
    by_seq: dict[int, list[Any]] = {}
    for ex in upstream:
        if ex.seq is not None:
            by_seq.setdefault(ex.seq, []).append(ex)
    compacted: list[dict[str, Any]] = []
    findings: list[str] = []
    fidelity_failures = 0
    repeated_refusals = 0
    previous: list[str] | None = None  # the last pass's items, as JSON
    reused = 0
    api_requests = 0
    for ex in client:
        if ex.method != "POST" or not ex.body:
            continue
        try:
            sent = json.loads(ex.body)
        except ValueError:
            continue
        api_requests += 1
        went = by_seq.get(ex.seq or -1, [])
        for a, b in pairwise(went):
            if a.status >= 400 and a.body == b.body:
                repeated_refusals += 1
                findings.append(
                    f"request {ex.seq}: the retry is byte-identical to the refused body"
                )
        changed = [u for u in went if u.body != ex.body and json.loads(u.body) != sent]
        if not changed:
            continue
        final = changed[-1]
        row: dict[str, Any] = {
            "request": ex.seq,
            "upstream_status": [u.status for u in went],
            "items": [
                len(sent.get(HISTORY[api]) or []),
                len(json.loads(final.body).get(HISTORY[api]) or []),
            ],
        }
        went_up = json.loads(final.body).get(HISTORY[api]) or []
        row["pages"] = len(images(final.body))
        # The pass's part of the history: everything before the tail kept as the client sent
        # it. The next compacted request reuses it when its history starts with those items,
        # byte for byte (so the provider's cached prefix survives).
        tail = _common_suffix(sent.get(HISTORY[api]) or [], went_up)
        replaced = [json.dumps(i, sort_keys=True) for i in went_up[: len(went_up) - tail]]
        if previous is not None:
            now = [json.dumps(i, sort_keys=True) for i in went_up[: len(previous)]]
            row["reuses_previous_pass"] = bool(previous) and now == previous
            reused += row["reuses_previous_pass"]
        previous = replaced
        coarse = coarse_diff(sent, json.loads(final.body), api)
        row["coarse"] = coarse
        row["proxy_says_reused"] = proxy_reused.get(ex.seq) if ex.seq is not None else None
        if diff is not None:
            differences = diff(sent, json.loads(final.body), api)
            row["fidelity_diff"] = [str(d) for d in (differences or [])][:10]
            if differences:
                fidelity_failures += 1
                if len(findings) < keep:
                    findings.append(
                        f"request {ex.seq}: outside the span: {row['fidelity_diff'][:3]}"
                    )
        elif coarse and len(findings) < keep:
            findings.append(f"request {ex.seq}: {'; '.join(coarse[:4])}")
        compacted.append(row)
    client_rejections = [
        {"request": ex.seq, "status": ex.status, "reply": ex.reply[:300].decode("utf-8", "replace")}
        for ex in client
        if ex.status >= 400
    ]
    return {
        "client_requests": api_requests,
        "upstream_requests": len(upstream),
        "upstream_rejections": sum(1 for u in upstream if u.status >= 400),
        "client_rejections": len(client_rejections),
        "client_rejection_samples": client_rejections[:5],
        "compacted_requests": len(compacted),
        "reuse": {
            "measured_from": "bodies: the next compacted history starts with the last pass's items",
            "proxy_ledger_reused": sum(1 for r in compacted if r["proxy_says_reused"]),
            "reused": reused,
            "of": max(len(compacted) - 1, 0),
            "share": round(reused / (len(compacted) - 1), 3) if len(compacted) > 1 else None,
        },
        "fidelity": {
            "available": diff is not None,
            "missing": why_missing or None,
            "requests_with_differences": fidelity_failures if diff is not None else None,
            "coarse_differences": sum(1 for r in compacted if r["coarse"]),
        },
        "repeated_refusals": repeated_refusals,
        "compacted": compacted,
        "findings": findings[:keep],
    }
