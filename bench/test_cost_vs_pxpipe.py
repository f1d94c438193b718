"""Cost mode against pxpipe 0.13.2 and the native baseline on one recorded Claude Code session
(issue 41 item 7), every arm counted the same way, in one run.

The session: Claude Code 2.1.332 (npm, pinned) driven against ``tests/fake_upstream.py`` with no
proxy (``bench/cost_session.py``: a payments-service investigation, 31 requests, ``claude-fable-5``,
tool results full of commit hashes, UUID request ids, digests and ``path:line`` frames),
recorded once into a cache folder outside the checkout. The same recorded client bodies are
then replayed, in order, through each arm to a fresh fake upstream on 127.0.0.1 that records
what it receives:

- ``direct``: no proxy;
- ``snapshot_default``: ``python -m snapshot proxy`` with no flag beyond ``--upstream``;
- ``snapshot_cost_safe`` / ``snapshot_cost_full``: ``--mode cost --policy safe|full``
  (issue 41 item 1; an arm whose flags this tree's proxy does not have is recorded as
  "not available", its goals missed);
- ``snapshot_window_60000``: ``--mode window --window 60000`` (``--window 60000`` on a tree
  without ``--mode``, today's behaviour);
- ``pxpipe``: pxpipe 0.13.2 (``bench/pxpipe_peer.py``; run as is, ``node bin/cli.js``);
- ``context_editing``: Anthropic's documented tool-result clearing (``clear_tool_uses_20250919``)
  at its documented defaults, applied to the client bodies by :func:`clear_tool_uses` here and
  sent directly: **modelled** (the API applies it server-side; we cannot call it offline).

Counted alike for every arm (``bench/cost_counting.py``): input tokens sent upstream (text by
the package's counter for the model, ctok; pages w·h/750), cache-weighted tokens under a
prefix-cache model (read x0.1, write x1.25; **modelled**), dollars at the package's prices for
the model, exact-id coverage, the proxy process's CPU per request (its process CPU clock,
``clock_getcpuclockid``, ns resolution, sampled before each request and after the proxy has
gone quiet following the reply), and the fidelity diff
(``snapshot.proxy.fidelity.outside_span_diff``) on every request an arm changed (a goal for
cost mode only).

Run: ``nice -n 19 python bench/run.py cost_vs_pxpipe -s``; ``-k "cost_full or default"``
replays only those arms (each prints its proxy CPU p50 / p95 and the load as it ends;
``test_goal`` then skips: the record needs every arm). Needs ``[proxy]``, Claude Code
(``python bench/harness/harness_install.py``) unless a recording is cached, node 20+ and a
built pxpipe (``python bench/pxpipe_peer.py``) for its arm. ``test_goal`` writes
``reports/bench/cost_vs_pxpipe.json`` with issue 41's done-when as goals.
"""

from __future__ import annotations

import contextlib
import copy
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import results
from conftest import record  # before tests/ is on sys.path: its conftest is another

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
pytest.importorskip("aiohttp")

import cost_session  # noqa: E402
import pxpipe_peer  # noqa: E402
from cost_counting import (  # noqa: E402
    PrefixCache,
    conversation_key,
    count_body,
    count_images,
    id_coverage,
    image_tokens,
    image_tokens_of,
    moved_texts,
    text_tokens,
)
from fake_upstream import FakeUpstream  # noqa: E402
from proxy_process import ProxyProcess, free_port  # noqa: E402

from snapshot.billing.prices import price_for  # noqa: E402
from snapshot.profiles import profile_for  # noqa: E402
from snapshot.profiles.cost_policy import cost_policy  # noqa: E402

BENCH = results.bench_name(__file__)
MODEL = cost_session.MODEL
API = "anthropic"
KEY = "sk-ant-costbench-0000"
#: Anthropic's documented defaults of ``clear_tool_uses_20250919`` (read 2026-12-06):
#: "trigger | 100,000 input tokens" (docs.claude.com/en/docs/build-with-claude/context-editing,
#: Configuration options); keep 3 tool uses (the same table; also docs.rs adk-rust
#: ``ContextEdit::ClearToolUses`` "defaults to 3" and LangChain's ``ClearToolUsesEdit``, which
#: mirrors the API, ``keep=3``); clear_at_least none; clear_tool_inputs false (only results).
CLEAR_TRIGGER = 100_000
CLEAR_KEEP = 3
CLEAR_SOURCE = (
    "docs.claude.com/en/docs/build-with-claude/context-editing, Configuration options "
    "(trigger 100,000 input tokens; keep 3 tool uses), read 2026-12-06"
)
#: The placeholder a cleared result gets (the API's own wording is not documented).
CLEARED = "[tool result cleared by context editing]"
ARMS = (
    "direct",
    "snapshot_default",
    "snapshot_cost_safe",
    "snapshot_cost_full",
    "snapshot_window_60000",
    "pxpipe",
    "context_editing",
)
SNAPSHOT_FLAGS = {
    "snapshot_default": [],
    "snapshot_cost_safe": ["--mode", "cost", "--policy", "safe"],
    "snapshot_cost_full": ["--mode", "cost", "--policy", "full"],
    "snapshot_window_60000": ["--mode", "window", "--window", "60000"],
}
#: pxpipe's CPU per request in issue 41 (126-142 ms, its machine): the 30 ms goal as a
#: ratio uses the slower figure, the stricter reading.
PXPIPE_CPU_ISSUE_MS = 142
CPU_RATIO_GOAL = round(30 / PXPIPE_CPU_ISSUE_MS, 3)
SETTLE_S = 0.05  # the proxy is quiet when its CPU clock has not moved for this long
RUNS: dict[str, ArmRun] = {}
REQUESTS: list[cost_session.Request] = []


# --------------------------------------------------------------------------- CPU of a process

_LIBC = ctypes.CDLL(None, use_errno=True)


def process_cpu_ns(pid: int) -> int:
    """The CPU time of process ``pid`` (every thread, ns) from its process CPU clock, plus its
    reaped children's from /proc (clock ticks): what the proxy spent, wherever it spent it."""
    clock = ctypes.c_int()
    if _LIBC.clock_getcpuclockid(pid, ctypes.byref(clock)) != 0:
        raise OSError(ctypes.get_errno(), f"no CPU clock for process {pid}")
    own = time.clock_gettime_ns(clock.value)
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[13]) + int(fields[14])  # cutime + cstime (reaped children)
    live = 0
    for child in _children(pid):
        with contextlib.suppress(OSError, ValueError):  # gone between the listing and the read
            live += process_cpu_ns(child)
    return own + live + ticks * 10**9 // os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    try:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(x) for x in found]


def quiet_cpu_ns(pid: int, limit_s: float = 5.0) -> int:
    """The process's CPU once it has gone quiet (work after the reply, e.g. a store write)."""
    last = process_cpu_ns(pid)
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        time.sleep(SETTLE_S)
        now = process_cpu_ns(pid)
        if now - last < 1_000_000:  # under 1 ms in the interval: idle
            return now
        last = now
    return last


# --------------------------------------------------------------------------- the arms


@dataclass
class ArmRun:
    """What one arm sent upstream for each client request, and what it cost the proxy."""

    name: str
    available: bool = True
    why: str = ""
    flags: list[str] = field(default_factory=list)
    upstream: list[list[dict[str, Any]]] = field(default_factory=list)  # per client request
    statuses: list[int] = field(default_factory=list)  # what the client got
    cpu_ms: list[float] = field(default_factory=list)  # per request, proxy arms only
    count_tokens_calls: int = 0
    rejected: int = 0
    validation_problems: int = 0
    seconds: float = 0.0


def clear_tool_uses(
    body: dict[str, Any], trigger: int = CLEAR_TRIGGER, keep: int = CLEAR_KEEP
) -> dict[str, Any]:
    """``body`` as ``clear_tool_uses_20250919`` at its defaults leaves it (**modelled**): when
    the prompt exceeds ``trigger`` input tokens, every tool result but the ``keep`` most
    recent is replaced by a placeholder, oldest first; tool inputs stay.

    >>> big = "x " * 40
    >>> msgs = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}",
    ...          "content": big}]} for i in range(5)]
    >>> out = clear_tool_uses({"model": "claude-fable-5", "messages": msgs}, trigger=10, keep=3)
    >>> [m["content"][0]["content"] == big for m in out["messages"]]
    [False, False, True, True, True]
    """
    total = sum(b.tokens for b in count_body(body, str(body.get("model") or MODEL)))
    if total <= trigger:
        return body
    out = copy.deepcopy(body)
    results_ = [
        block
        for m in out.get("messages") or []
        if isinstance(m, dict) and isinstance(m.get("content"), list)
        for block in m["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    for block in results_[: max(0, len(results_) - keep)]:
        block["content"] = CLEARED
    return out


def _send(url: str, request: cost_session.Request, body: bytes) -> int:
    headers = {
        k: v
        for k, v in request.headers.items()
        if k.lower() not in ("x-harness-seq", "content-length", "host")
    }
    headers["x-api-key"] = KEY
    req = urllib.request.Request(url + request.path, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=600) as reply:
            reply.read()
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        exc.read()
        return int(exc.code)


def _fake() -> FakeUpstream:
    script = cost_session.CostScript("/work")  # same replies as the recording's
    return FakeUpstream(
        reply=script,
        refuse_invalid=False,
        lifetime=3600,
        max_requests=10_000,
        limit=10**9,
    )


def _replay(run: ArmRun, url: str, fake: FakeUpstream, pid: int | None) -> None:
    started = time.monotonic()
    for request in REQUESTS:
        body = request.body
        if run.name == "context_editing":
            body = json.dumps(clear_tool_uses(json.loads(body)), ensure_ascii=False).encode()
        accepted, seen, rejected = len(fake.accepted), fake.requests, len(fake.rejected)
        before = quiet_cpu_ns(pid) if pid else 0
        run.statuses.append(_send(url, request, body))
        if pid:
            run.cpu_ms.append((quiet_cpu_ns(pid) - before) / 1e6)
        new = fake.accepted[accepted:]
        run.upstream.append([a.body for a in new])
        run.rejected += len(fake.rejected) - rejected
        run.count_tokens_calls += (
            (fake.requests - seen) - len(new) - (len(fake.rejected) - rejected)
        )
    run.seconds = time.monotonic() - started
    run.validation_problems = len(fake.problems)


def _wait_listening(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"exited: {log.read_text(errors='replace')[-800:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("did not start listening")


def _proxy_help() -> str:
    done = subprocess.run(
        [sys.executable, "-m", "snapshot", "proxy", "--help"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(HERE.parent)},
    )
    return done.stdout


def run_arm(name: str, tmp: Path) -> ArmRun:
    """Replay every recorded request through arm ``name``."""
    run = ArmRun(name)
    with _fake() as fake:
        if name in ("direct", "context_editing"):
            _replay(run, fake.url, fake, None)
            return run
        if name in SNAPSHOT_FLAGS:
            flags = list(SNAPSHOT_FLAGS[name])
            have = _proxy_help()
            if "--mode" not in have and name == "snapshot_window_60000":
                flags = ["--window", "60000"]  # today's only behaviour is window mode
            missing = [f for f in flags if f.startswith("--") and f not in have]
            if missing:
                return ArmRun(name, False, f"not available: this tree's proxy has no {missing}")
            run.flags = flags
            proxy = ProxyProcess(fake.url, tmp / name / "store", tmp / name / "ledger")
            proxy.args += flags
            env = {k: v for k, v in os.environ.items() if "KEY" not in k.upper()}
            env["PYTHONPATH"] = str(HERE.parent)
            (tmp / name).mkdir(parents=True, exist_ok=True)
            proxy.start(120, env=env, log=tmp / name / "proxy.log")
            try:
                assert proxy.proc is not None
                _replay(run, proxy.url, fake, proxy.proc.pid)
            finally:
                proxy.stop()
            return run
        assert name == "pxpipe"
        cli = pxpipe_peer.entry()
        if cli is None:
            return ArmRun(name, False, "not available: " + pxpipe_peer.why_missing())
        if shutil.which("node") is None:
            return ArmRun(name, False, "not available: no node on PATH (pxpipe needs node 20+)")
        home = tmp / name / "home"
        home.mkdir(parents=True, exist_ok=True)
        port = free_port()
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "PORT": str(port),
            "HOST": "127.0.0.1",
            "PXPIPE_UPSTREAM": fake.url,
            "PXPIPE_LOG": str(home / "events.jsonl"),
        }
        log = tmp / name / "pxpipe.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                ["node", str(cli)], cwd=cli.parent.parent, env=env, stdout=out, stderr=out
            )
        try:
            _wait_listening(port, proc, log)
            _replay(run, f"http://127.0.0.1:{port}", fake, proc.pid)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        return run


# --------------------------------------------------------------------------- counting


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def count_arm(run: ArmRun) -> dict[str, Any]:
    """Every figure of one arm (the same counting for all)."""
    if not run.available:
        return {"available": False, "why": run.why}
    cache = PrefixCache()
    tokens: list[int] = []
    weighted: list[float] = []
    read_each: list[int] = []
    reads = writes = page_tokens = images_alone = pages = 0
    kept = off = on_pages = dropped = 0
    changed = differing = moved_chars = moved_tokens = 0
    fidelity_lines: list[str] = []
    # The proxy's fidelity rule (issue 38), the package's own: a goal for the snapshot arms,
    # shown for the others (pxpipe rewrites the system prompt and tool docs by design).
    diff: Callable[[Any, Any, str], list[str]] | None = None
    if run.name != "direct":
        from snapshot.proxy.fidelity import outside_span_diff as diff
    for request, sent in zip(REQUESTS, run.upstream, strict=True):
        client = json.loads(request.body)
        for body in sent:
            blocks = count_body(body, MODEL)
            split = cache.add(conversation_key(client), blocks)
            tokens.append(split.total)
            read_each.append(split.read)
            weighted.append(split.weighted)
            reads, writes = reads + split.read, writes + split.write
            page_tokens += sum(b.tokens for b in blocks if b.image)
            images_alone += image_tokens_of(body)
            pages += count_images(body)
            moved = moved_texts(client, body)
            moved_chars += sum(len(t) for t in moved)
            moved_tokens += sum(text_tokens(MODEL, t) for t in moved)
            ids = id_coverage(client, body)
            kept, off = kept + ids.kept, off + ids.off_text
            on_pages, dropped = on_pages + ids.on_pages, dropped + ids.dropped
            if body != client:
                changed += 1
                if diff is not None:
                    lines = diff(client, body, API)
                    differing += bool(lines)
                    fidelity_lines += [f"request {request.n}: {x}" for x in lines[:2]]
    price = price_for(MODEL)
    assert price is not None and price.cache_read is not None and price.cache_write is not None
    return {
        "available": True,
        "flags": run.flags,
        "requests_upstream": len(tokens),
        "client_statuses_not_200": sum(s != 200 for s in run.statuses),
        "tokens": sum(tokens),
        "tokens_per_request": tokens,
        "cache_read_per_request": read_each,
        "cache_read": reads,
        "cache_write": writes,
        "cache_weighted": sum(weighted),
        "dollars_uncached": sum(tokens) * price.input / 1e6,
        "dollars_cached": (reads * price.cache_read + writes * price.cache_write) / 1e6,
        "page_tokens": page_tokens,
        # Of the blocks holding pages, the images alone; the rest is the text beside
        # them (exact-id lines, notes).
        "page_image_tokens": images_alone,
        "page_text_tokens": page_tokens - images_alone,
        "moved_chars": moved_chars,
        "moved_text_tokens": moved_tokens,
        "chars_per_page_token": moved_chars / page_tokens if page_tokens else float("nan"),
        "pages": pages,
        "ids_off_text": off,
        "ids_kept": kept,
        "ids_on_pages_only": on_pages,
        "ids_dropped": dropped,
        "ids_kept_share": kept / off if off else (1.0 if run.upstream else float("nan")),
        "cpu_ms_p50": _pct(run.cpu_ms, 0.5),
        "cpu_ms_p95": _pct(run.cpu_ms, 0.95),
        "cpu_ms_max": max(run.cpu_ms, default=float("nan")),
        "requests_changed": changed,
        "fidelity_checked": diff is not None,
        "fidelity_differing": differing,
        "fidelity_first": fidelity_lines[:6],
        "count_tokens_calls": run.count_tokens_calls,
        "rejected_upstream": run.rejected,
        "fake_validation_problems": run.validation_problems,
        "seconds": round(run.seconds, 2),
    }


# --------------------------------------------------------------------------- the bench


@pytest.fixture(scope="module")
def tmp_root() -> Any:
    with tempfile.TemporaryDirectory(prefix="snapshot-costbench-") as folder:
        yield Path(folder)


@pytest.fixture(scope="module", autouse=True)
def recording() -> Path:
    try:
        folder = cost_session.ensure()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    REQUESTS[:] = cost_session.load(folder)
    return folder


@pytest.mark.parametrize("name", ARMS)
def test_arm(benchmark: Any, name: str, tmp_root: Path) -> None:
    """Replay the session through one arm (one round: the figures are per request inside)."""
    run = record(benchmark, name, lambda: run_arm(name, tmp_root), rounds=1, iterations=1)
    RUNS[name] = run
    if run.cpu_ms:
        print(
            f"\n{name}: proxy CPU ms a request p50 {_pct(run.cpu_ms, 0.5):.1f} / "
            f"p95 {_pct(run.cpu_ms, 0.95):.1f} (load {os.getloadavg()[0]:.1f})"
        )
    if run.available:
        assert len(run.upstream) == len(REQUESTS)
        assert all(s == 200 for s in run.statuses), f"{name}: {run.statuses}"


def densities() -> dict[str, Any]:
    """Characters per text token of the session's parts (the last request), by ctok: imaging a
    part pays only where a page holds more characters per token than its text does."""
    last = json.loads(REQUESTS[-1].body)
    parts: dict[str, list[str]] = {"system_prompt": [], "tool_docs": [], "tool_results": []}
    parts["system_prompt"] = [str(b.get("text", "")) for b in last.get("system") or []]
    parts["tool_docs"] = [str(t.get("description", "")) for t in last.get("tools") or []]
    for m in last.get("messages") or []:
        for b in m.get("content") if isinstance(m.get("content"), list) else []:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                c = b.get("content")
                parts["tool_results"].append(
                    c if isinstance(c, str) else "".join(str(x.get("text", "")) for x in c or [])
                )
    out = {}
    for name, texts in parts.items():
        chars, tokens = sum(map(len, texts)), sum(text_tokens(MODEL, t) for t in texts)
        out[f"chars_per_token_{name}"] = results.figure(
            chars / tokens if tokens else float("nan"),
            "chars",
            f"{name.replace('_', ' ')} of the last request: characters per ctok token "
            "(reconstructed count)",
        )
    return out


def tree() -> str:
    """The tree the snapshot arms ran: its commit and the branches merged into it lately
    (a cost mode measured from another branch says which)."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(HERE.parent), *args], capture_output=True, text=True, check=False
        )
        return done.stdout.strip()

    head = git("log", "-1", "--format=%h %s")
    merges = git("log", "--merges", "--first-parent", "-3", "--format=%s (parents %p)")
    return head + (f"; merges: {'; '.join(merges.splitlines())}" if merges else "")


def _no_nan(row: dict[str, Any]) -> dict[str, Any]:
    """NaN (no proxy process, nothing measured) as None: the record stays strict JSON."""
    return {k: None if isinstance(v, float) and v != v else v for k, v in row.items()}


def _ratio(x: float, base: float) -> float:
    return x / base if base else float("nan")


def test_goal(recording: Path) -> None:
    missing = [a for a in ARMS if a not in RUNS]
    if missing:
        pytest.skip(f"not measured in this run: {', '.join(missing)}")
    counted = {name: _no_nan(count_arm(RUNS[name])) for name in ARMS}
    base = counted["direct"]
    nan = float("nan")

    def get(arm: str, key: str) -> float:
        value = counted[arm].get(key)
        return float(value) if counted[arm].get("available") and value is not None else nan

    rows = []
    figures: dict[str, Any] = {}
    for arm in ARMS:
        row = counted[arm]
        label = arm + (" (modelled)" if arm == "context_editing" else "")
        if not row["available"]:
            rows.append([label, row["why"], "", "", "", "", "", ""])
            continue
        ratio_t = _ratio(row["tokens"], base["tokens"])
        ratio_w = _ratio(row["cache_weighted"], base["cache_weighted"])
        ids = (
            f"{row['ids_kept']}/{row['ids_off_text']}"
            + (f" ({row['ids_dropped']} dropped)" if row["ids_dropped"] else "")
            if row["ids_off_text"]
            else "none left the text"
        )
        cpu = (
            f"{row['cpu_ms_p50']:.0f} / {row['cpu_ms_p95']:.0f}"
            if row["cpu_ms_p50"] is not None
            else "—"
        )
        fidelity = (
            f"{row['fidelity_differing']} of {row['requests_changed']}"
            if row["fidelity_checked"]
            else "—"
        )
        rows.append(
            [
                label,
                f"{row['tokens']:,} ({ratio_t:.2f}x)",
                f"{row['cache_weighted']:,.0f} ({ratio_w:.2f}x)",
                f"${row['dollars_uncached']:.2f} / ${row['dollars_cached']:.2f}",
                f"{row['pages']} ({row['page_tokens']:,}; images {row['page_image_tokens']:,})",
                ids,
                cpu,
                fidelity,
            ]
        )
        figures[f"{arm}_tokens_ratio"] = results.figure(
            ratio_t,
            "x",
            f"{arm}: input tokens sent upstream / direct's (bodies measured; text by ctok, "
            "a reconstruction of Claude's count; pages w·h/750)",
        )
        figures[f"{arm}_cache_weighted_ratio"] = results.figure(
            ratio_w, "x", f"{arm}: cache-weighted tokens / direct's (prefix-cache model: modelled)"
        )
    figures.update(densities())
    for arm in ARMS:
        per = counted[arm].get("chars_per_page_token")
        if per is not None:
            figures[f"{arm}_chars_per_page_token"] = results.figure(
                per,
                "chars",
                f"{arm}: characters of the client texts it took off the text per "
                "page token it sent (bodies measured, ctok; includes what it elided or cleared)",
            )
    goals: dict[str, results.Goal] = {}
    source = "issue 41 done-when"
    # The done-when is `--mode cost` as a user runs it: the model's own policy (its
    # evidence: `snapshot profiles`). The other policy's figures stay in the table.
    default_policy = cost_policy(profile_for(MODEL)).policy
    assert default_policy in ("safe", "full"), f"{MODEL}: cost mode passes it through"
    arm = f"snapshot_cost_{default_policy}"
    goals["cost_tokens"] = results.Goal(
        _ratio(get(arm, "tokens"), base["tokens"]), "<=", 0.45, "x direct", source
    )
    goals["cost_cache_weighted"] = results.Goal(
        _ratio(get(arm, "cache_weighted"), base["cache_weighted"]), "<=", 0.60, "x direct", source
    )
    goals["cost_ids_as_text"] = results.Goal(
        get(arm, "ids_kept_share") * 100, ">=", 95, "%", source
    )
    # CPU as a ratio to the peer in this run: the issue's 30 ms stood beside pxpipe's
    # 126-142 ms on its machine, and pxpipe's own figure here (in the record) shows how far
    # this machine's CPU differs; the ratio travels where the milliseconds do not. The ms
    # are a figure.
    goals["cost_cpu_vs_pxpipe"] = results.Goal(
        _ratio(get(arm, "cpu_ms_p50"), get("pxpipe", "cpu_ms_p50")),
        "<=",
        CPU_RATIO_GOAL,
        "x pxpipe's CPU p50",
        f"{source}: 30 ms beside pxpipe's {PXPIPE_CPU_ISSUE_MS} ms (its slower figure there)",
    )
    figures["cost_cpu_p50_ms"] = results.figure(
        get(arm, "cpu_ms_p50"),
        "ms",
        f"{arm}: proxy CPU per request, p50 (the issue's 30 ms was set where pxpipe took "
        f"126-142 ms; pxpipe here: {get('pxpipe', 'cpu_ms_p50'):.0f} ms in this run)",
    )
    goals["cost_fidelity"] = results.Goal(
        get(arm, "fidelity_differing"), "==", 0, "requests differing", source
    )
    params_policy = (
        f"goals on `--mode cost` with {MODEL}'s own policy ({default_policy}); the other "
        "policy's figures are in the table (`safe` keeps the system prompt and tool docs as "
        "text, so it cannot reach 0.45x on this session)"
    )
    profile = profile_for(MODEL)
    scheme = profile.scheme
    recorded = json.loads((recording / "summary.json").read_text(encoding="utf-8"))
    price = price_for(MODEL)
    assert price is not None
    out = {
        "figures": figures,
        "table": {
            "title": "Each arm on the same recorded session",
            "columns": [
                "arm",
                "input tokens sent (x direct)",
                "cache-weighted (x direct)",
                "dollars uncached / cached",
                "pages (tokens of the blocks holding them; of which images)",
                "exact ids kept as text",
                "proxy CPU ms a request, p50 / p95",
                "fidelity diff: requests differing of those changed",
            ],
            "rows": rows,
        },
        "arms_detail": counted,
        "inputs": {
            "session": f"{recorded['cli']}, {recorded['requests']} requests, {MODEL}, "
            f"recorded {recorded['date']} against tests/fake_upstream.py (offline stand-in), "
            "bench/cost_session.py",
            "pxpipe": f"pxpipe {pxpipe_peer.VERSION} (../shared/peers, MIT), run as is",
            "tree": tree(),
        },
        "params": {
            "counting": "text by ctok (the package's counter for the model), pages w·h/750 "
            "(the bodies measured, ctok's counts reconstructed); cache read x0.1, write x1.25 "
            "by a prefix-cache model (modelled, "
            "bench/cost_counting.py); dollars at "
            f"{price.database} prices (input ${price.input}/M, read ${price.cache_read}/M, "
            f"write ${price.cache_write}/M)",
            "context_editing": f"clear_tool_uses_20250919 at trigger {CLEAR_TRIGGER:,}, keep "
            f"{CLEAR_KEEP} (modelled: applied by this bench; {CLEAR_SOURCE})",
            "page_rule": f"w·h/750 after fitting 1568 px for every arm (issue 41's rule); the "
            f"package's own {MODEL} scheme ({type(scheme).__name__}, {profile.scheme_fact.date}) "
            f"counts a 1568x728 page as {scheme.tokens(1568, 728):,} tokens, not "
            f"{image_tokens(1568, 728):,}",
            "cpu": "the proxy process's CPU clock per request (shared 2-core VM; the run's load is in `load`)",
            "output_tokens": "not counted: the same scripted replies in every arm",
            "goals": params_policy,
        },
    }
    rec = results.finish(BENCH, out, goals)
    results.check(rec)
