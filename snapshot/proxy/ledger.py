"""The ledger: one JSON line per forwarded request, and the savings it measures.

Each record (``schema: snapshot.proxy-ledger/1``) names the conversation,
agent, model and path (a ``--canary`` call is its own record, ``kind: canary``;
a provider's overflow rejection is its own record, ``kind: rejection``, never
counted as a forwarded request, saying whether it reached the client);
what the planner did (rungs, tokens before and after,
each labelled exact / reconstructed / estimated); the provider's own ``usage``
(labelled ``measured``; ``null`` when the reply carried none); and dollars from
the pinned genai-prices database for that usage. No header, key or message
text is ever written.

:func:`summarize` turns a ledger folder into the savings measured on live
traffic: per model, requests, compacted requests and the share of them that
reuse the previous pass (its pages or its whole replacement still in the
prompt, so the provider's cache holds), rejections (and those that reached the
client), the measured input tokens and dollars paid, and the tokens the planner
removed (counted before sending); and, where the records carry it, the
counterfactual: tokens and dollars as sent and as the client's text would have
cost, with the cache-prefix share (modelled, :mod:`snapshot.proxy.counterfactual`).

>>> import tempfile
>>> from pathlib import Path
>>> with tempfile.TemporaryDirectory() as d:
...     ledger = Ledger(Path(d))
...     ledger.write({"model": "gpt-5.5", "status": 200, "plan": {"compacted": True,
...         "tokens_before": {"tokens": 900, "label": "exact"},
...         "tokens_after": {"tokens": 300, "label": "exact"}},
...         "usage": {"input": 280, "cache_read": 0, "cache_write": 0, "output": 10}})
...     s = summarize(Path(d))
>>> s.rows[0]["requests"], s.rows[0]["tokens_removed"], s.rows[0]["measured_input"]
(1, 600, 280)
>>> s.rows[0]["rejections"], s.rows[0]["reuse_share"]
(0, 0.0)
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snapshot.errors import InputError

SCHEMA = "snapshot.proxy-ledger/1"
FILE = "ledger.jsonl"


def usage_dollars(model: str, usage: dict[str, int] | None) -> dict[str, Any] | None:
    """Dollars for a measured usage at the model's genai-prices rates (None: no price)."""
    if not usage:
        return None
    from snapshot.billing.prices import dollars, price_for

    price = price_for(model)
    if price is None:
        return None
    prompt = usage["input"] + usage["cache_read"] + usage["cache_write"]
    rate = price.at(prompt)
    parts = {
        "input": dollars(usage["input"], rate.input),
        "cache_read": dollars(usage["cache_read"], rate.cache_read or rate.input),
        "cache_write": dollars(usage["cache_write"], rate.cache_write or rate.input),
        "output": dollars(usage["output"], rate.output),
    }
    total = sum(v for v in parts.values() if v is not None)
    return {"total": round(total, 9), **parts, "database": price.database}


class Ledger:
    """Appends records to ``DIR/ledger.jsonl`` (one write per record, flushed)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / FILE
        self._lock = threading.Lock()

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps(
            {"schema": SCHEMA, "time": round(time.time(), 3), **record},
            ensure_ascii=False,
            sort_keys=True,
        )
        with self._lock:
            self.folder.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as out:
                out.write(line + "\n")
                out.flush()
                os.fsync(out.fileno())


@dataclass(frozen=True)
class LedgerRead:
    """A ledger's records, and every line that was not one, counted by why.

    ``torn``: the last line was cut short (a kill mid-write), the one bad line
    that is expected and not counted in ``bad``.
    """

    records: list[dict[str, Any]]
    bad: dict[str, int]
    torn: bool = False

    def note(self) -> str:
        """One line for LEDGER.md naming the lines not counted ("" when none)."""
        if not self.bad:
            return ""
        detail = ", ".join(f"{n} {why}" for why, n in sorted(self.bad.items()))
        return (
            f"**{sum(self.bad.values())} ledger line(s) were not read** ({detail}); the figures "
            "below leave them out."
        )


def read_ledger_lines(folder: Path) -> LedgerRead:
    """Every record of a ledger folder; a torn last line skipped, any other bad line counted."""
    path = folder / FILE
    if not path.is_file():
        raise InputError(f"{folder}: no {FILE} here; give the folder passed to --ledger")
    records: list[dict[str, Any]] = []
    bad: dict[str, int] = {}
    pending: str | None = None  # the previous bad line's reason: torn if it was the last

    def count(why: str) -> None:
        bad[why] = bad.get(why, 0) + 1

    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if pending is not None:
                count(pending)
                pending = None
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except (ValueError, RecursionError):
                # Only a last line without its newline can be a write cut short.
                pending = "not JSON" if line.endswith("\n") else "torn"
                continue
            if not isinstance(rec, dict):
                count("not a JSON object")
            elif rec.get("schema") != SCHEMA:
                count(f"schema {rec.get('schema')!r}, not {SCHEMA!r}")
            else:
                records.append(rec)
    torn = pending == "torn"
    if pending is not None and not torn:
        count(pending)
    return LedgerRead(records, bad, torn)


def read_ledger(folder: Path) -> list[dict[str, Any]]:
    """Every record of a ledger folder (a torn last line, from a kill, is skipped).

    :func:`read_ledger_lines` also counts the other lines it could not read.
    """
    return read_ledger_lines(folder).records


@dataclass(frozen=True)
class LedgerSummary:
    """Savings per model from a ledger; every usage figure is the provider's (measured)."""

    records: int
    rows: list[dict[str, Any]]
    unread: str = ""  # LedgerRead.note(): the lines left out, or ""

    def markdown(self) -> str:
        requests = sum(r["requests"] for r in self.rows)
        rejections = sum(r["rejections"] for r in self.rows)
        to_client = sum(r["rejections_to_client"] for r in self.rows)
        lines = [
            "## Savings measured on live traffic (snapshot proxy ledger)",
            "",
            f"{requests} forwarded requests; {rejections} rejected by the provider as too "
            f"large, {to_client} of them reaching the client (counted apart: a rejection "
            "is not a forwarded request). Input tokens and dollars are the providers' "
            "own `usage` (measured); tokens removed are the proxy's counts before sending "
            "(label per row). *Reuse* is the share of compacted requests that keep the "
            "previous pass in the prompt (its pages, or its whole replacement), so the "
            "provider's prompt cache holds (exact: from the bytes sent). A summary call "
            "(`--summarizer`) is its own model's row, its usage measured. Transcription "
            "canaries (`--canary`) are counted apart: their calls and measured dollars, "
            "never in the traffic's figures.",
            "",
            "| model | requests | rejections | rejections to client | summary calls "
            "| compacted | reuse | tokens removed | count label "
            "| measured input | measured cache read | measured output | measured $ "
            "| canary calls | canary $ |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|",
        ]
        if self.unread:
            lines[2:2] = [self.unread, ""]
        for r in self.rows:
            lines.append(
                f"| {r['model']} | {r['requests']} | {r['rejections']} "
                f"| {r['rejections_to_client']} | {r['summary_calls']} | {r['compacted']} "
                f"| {r['reuse_share']:.0%} | {r['tokens_removed']:,} "
                f"| {r['label']} | {r['measured_input']:,} | {r['measured_cache_read']:,} "
                f"| {r['measured_output']:,} | {r['dollars']:.4f} "
                f"| {r['canary_calls']} | {r['canary_dollars']:.4f} |"
            )
        counted = [r for r in self.rows if r["counterfactual_requests"]]
        if counted:
            lines += [
                "",
                "### As sent and as the client's text would have cost",
                "",
                "Counted offline by the model's own counter (no upstream call) and priced with "
                "the prompt cache counted against each conversation's previous request "
                "(`counterfactual` in each record; **modelled**: the documented prefix-cache "
                "rule, not a provider's `usage`, which is the measured table above). Cache "
                "prefix: the share of the sent tokens the provider could read from its cache.",
                "",
                "| model | requests | client's text, tokens | sent, tokens | client's text $ "
                "| sent $ | saved $ | cache prefix | measured $ |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            ]
            for r in counted:
                lines.append(
                    f"| {r['model']} | {r['counterfactual_requests']} "
                    f"| {r['counterfactual_tokens']:,} | {r['modelled_sent_tokens']:,} "
                    f"| {r['counterfactual_dollars']:.4f} | {r['modelled_sent_dollars']:.4f} "
                    f"| {r['counterfactual_dollars'] - r['modelled_sent_dollars']:.4f} "
                    f"| {r['cache_prefix_share']:.0%} | {r['dollars']:.4f} |"
                )
        return "\n".join(lines) + "\n"


def summarize(folder: Path) -> LedgerSummary:
    """Per-model totals of a ledger folder."""
    read = read_ledger_lines(folder)
    records = read.records
    rows: dict[str, dict[str, Any]] = {}

    def row_of(model: str) -> dict[str, Any]:
        return rows.setdefault(
            model,
            {
                "model": model,
                "requests": 0,
                "rejections": 0,
                "rejections_to_client": 0,
                "summary_calls": 0,
                "compacted": 0,
                "reusing": 0,
                "tokens_removed": 0,
                "labels": set(),
                "measured_input": 0,
                "measured_cache_read": 0,
                "measured_output": 0,
                "dollars": 0.0,
                "canary_calls": 0,
                "canary_dollars": 0.0,
                "counterfactual_requests": 0,
                "counterfactual_dollars": 0.0,
                "modelled_sent_dollars": 0.0,
                "modelled_sent_tokens": 0,
                "counterfactual_tokens": 0,
                "prefix_tokens": 0,
            },
        )

    def add_usage(row: dict[str, Any], usage: dict[str, int], dollars: Any) -> None:
        row["measured_input"] += usage.get("input", 0) + usage.get("cache_write", 0)
        row["measured_cache_read"] += usage.get("cache_read", 0)
        row["measured_output"] += usage.get("output", 0)
        row["dollars"] += (dollars or {}).get("total") or 0.0

    def add_counterfactual(row: dict[str, Any], cf: Any) -> None:
        sent = (cf or {}).get("sent") or {}
        text = (cf or {}).get("client_text") or {}
        if not isinstance(sent.get("dollars"), int | float) or not isinstance(
            text.get("dollars"), int | float
        ):
            return
        row["counterfactual_requests"] += 1
        row["counterfactual_dollars"] += text["dollars"]
        row["modelled_sent_dollars"] += sent["dollars"]
        row["counterfactual_tokens"] += int(text.get("tokens") or 0)
        row["modelled_sent_tokens"] += int(sent.get("tokens") or 0)
        row["prefix_tokens"] += int(sent.get("cache_read") or 0)

    for rec in records:
        row = row_of(str(rec.get("model") or "?"))
        if rec.get("kind") == "canary":  # the proxy's own transcription call (--canary)
            row["canary_calls"] += 1
            row["canary_dollars"] += (rec.get("dollars") or {}).get("total") or 0.0
            continue
        if rec.get("kind") == "rejection":  # the provider refused it: not a forwarded request
            row["rejections"] += 1
            row["rejections_to_client"] += bool((rec.get("rejection") or {}).get("reached_client"))
            continue
        row["requests"] += 1
        plan = rec.get("plan") or {}
        if plan.get("compacted"):
            row["compacted"] += 1
            row["reusing"] += bool(plan.get("reuses_previous_pass"))
            before = (plan.get("tokens_before") or {}).get("tokens") or 0
            after = (plan.get("tokens_after") or {}).get("tokens") or 0
            row["tokens_removed"] += max(before - after, 0)
            row["labels"].add((plan.get("tokens_before") or {}).get("label", "estimated"))
        add_usage(row, rec.get("usage") or {}, rec.get("dollars"))
        add_counterfactual(row, rec.get("counterfactual"))
        summary = plan.get("summary")
        if summary:
            called = row_of(str(summary.get("model") or "?"))
            called["summary_calls"] += 1
            add_usage(called, summary.get("usage") or {}, summary.get("dollars"))
    out = []
    for row in rows.values():
        labels = row.pop("labels")
        row["label"] = "/".join(sorted(labels)) or "-"
        row["reuse_share"] = row["reusing"] / row["compacted"] if row["compacted"] else 0.0
        sent = row["modelled_sent_tokens"]
        row["cache_prefix_share"] = row.pop("prefix_tokens") / sent if sent else 0.0
        out.append(row)
    return LedgerSummary(len(records), sorted(out, key=lambda r: r["model"]), read.note())


def ledger_report(folder: Path, out: Path | None) -> tuple[Path, str]:
    """``snapshot report --ledger DIR``: the summary's Markdown, written to ``OUT/LEDGER.md``.

    Without ``out``, the report's default folder (never the current folder).
    """
    from snapshot.out_folder import default_report_folder

    text = summarize(folder).markdown()
    out = default_report_folder() if out is None else out
    out.mkdir(parents=True, exist_ok=True)
    written = out / "LEDGER.md"
    written.write_text(text, encoding="utf-8")
    return written, text
