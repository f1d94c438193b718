"""What ``snapshot proxy`` adds: latency p50/p99 of a pass-through and of a compacting request,
side by side with calling the upstream directly in one run; peak memory with 20 concurrent
streams. The upstream is ``tests/fake_upstream`` (an offline stand-in, validation off so it
measures the proxy, not the validators).

Run: ``nice -n 19 python bench/run.py proxy_latency -s``. ``test_goal`` writes
``reports/bench/proxy_latency.json`` with both arms of each pair and asserts the claims
issue 24's figures made (bench journal, 2026-12-02, quiet machine): the proxy adds at
most 1.5 ms at p50 to a pass-through request (measured then: 1.1-1.3 ms), and 20
concurrent 1 MB streams raise its peak RSS by less than the 20 MB they carry
(then: +7.6 MiB): no stream is held whole per client.
"""

from __future__ import annotations

import http.client
import json
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import results

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
pytest.importorskip("aiohttp")

from fake_upstream import FakeUpstream, serve_in_thread
from proxy_process import ProxyProcess

from snapshot.proxy.app import Proxy, ProxyConfig

ROUNDS = 200
#: benchmark name -> p50 / p99 in ms, rounds; "streams" -> the memory case's figures
FIGURES: dict[str, dict[str, float]] = {}
SMALL = json.dumps(
    {"model": "gpt-5.5", "messages": [{"role": "user", "content": "hello there"}]}
).encode()


def _long_body(turns: int = 40) -> bytes:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "bench agent"},
        {"role": "user", "content": "audit"},
    ]
    for t in range(turns):
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{t}",
                        "type": "function",
                        "function": {"name": "cat", "arguments": json.dumps({"path": f"f{t}"})},
                    }
                ],
            }
        )
        lines = "\n".join(f"f{t} line {i}: value {t * 97 + i}" for i in range(40))
        messages.append({"role": "tool", "tool_call_id": f"call_{t}", "content": lines})
    return json.dumps({"model": "gpt-5.5", "messages": messages}).encode()


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Any]]:
    with FakeUpstream(validate=False, max_requests=100_000, lifetime=3600) as fake:
        proxy = Proxy(ProxyConfig(upstream=fake.url, window=20_000), log=lambda _l: None)
        server = serve_in_thread(proxy.app, lifetime=3600)
        yield {"direct": fake.url, "proxy": f"http://127.0.0.1:{server.port}"}
        server.stop()


def _poster(base: str, body: bytes, headers: dict[str, str] | None = None) -> Any:
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=120)
    head = {
        "content-type": "application/json",
        "authorization": "Bearer sk-bench",
        **(headers or {}),
    }

    def post() -> None:
        conn.request("POST", "/v1/chat/completions", body=body, headers=head)
        reply = conn.getresponse()
        reply.read()
        assert reply.status == 200, reply.status

    return post


def _percentiles(benchmark: Any) -> None:
    data = sorted(benchmark.stats.stats.data)
    benchmark.extra_info["p50_ms"] = round(data[len(data) // 2] * 1000, 3)
    benchmark.extra_info["p99_ms"] = round(
        data[min(len(data) - 1, int(len(data) * 0.99))] * 1000, 3
    )
    benchmark.extra_info["load"] = Path("/proc/loadavg").read_text().split()[:3]
    FIGURES[benchmark.name] = {
        "p50_ms": benchmark.extra_info["p50_ms"],
        "p99_ms": benchmark.extra_info["p99_ms"],
        "rounds": len(data),
    }
    print(f"\n{benchmark.name}: {benchmark.extra_info}")


@pytest.mark.parametrize("route", ["proxy", "direct", "proxy-again", "direct-again"])
def test_pass_through(benchmark: Any, servers: dict[str, Any], route: str) -> None:
    base = servers[route.removesuffix("-again")]
    benchmark.pedantic(_poster(base, SMALL), rounds=ROUNDS, warmup_rounds=5)
    _percentiles(benchmark)


@pytest.mark.parametrize("route", ["direct", "proxy"])
def test_compacting(benchmark: Any, servers: dict[str, Any], route: str) -> None:
    """A request over the threshold (40 tool results, ~20k tokens against a 20k window):
    through the proxy each one is compacted (the same conversation: the pass is reused)."""
    body = _long_body()
    benchmark.pedantic(
        _poster(servers[route], body, {"X-Snapshot-Conversation": "bench"}),
        rounds=ROUNDS // 4,
        warmup_rounds=2,
    )
    _percentiles(benchmark)


def test_compacting_new_pass(benchmark: Any, servers: dict[str, Any]) -> None:
    """The same request as a new conversation every time: a whole ladder pass each round."""
    body = _long_body()
    count = iter(range(10**6))

    def post() -> None:
        _poster(servers["proxy"], body, {"X-Snapshot-Conversation": f"new{next(count)}"})()

    benchmark.pedantic(post, rounds=10, warmup_rounds=1)
    _percentiles(benchmark)


def _vm_hwm(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def test_peak_memory_20_streams(tmp_path: Path) -> None:
    """20 concurrent streams of ~1 MB each through a proxy process: its peak RSS."""
    text = "z" * 1_000_000
    with FakeUpstream(
        validate=False, lifetime=600, piece=4096, reply=lambda _a, _b: {"text": text}
    ) as fake:
        proxy = ProxyProcess(fake.url, tmp_path / "store", tmp_path / "ledger")
        proxy.start()
        assert proxy.proc is not None
        try:
            idle = _vm_hwm(proxy.proc.pid)
            body = json.dumps(
                {
                    "model": "gpt-5.5",
                    "stream": True,
                    "stream_options": {"include_usage": True},
                    "messages": [{"role": "user", "content": "stream"}],
                }
            ).encode()
            got: list[int] = []

            def one() -> None:
                req = urllib.request.Request(
                    proxy.url + "/v1/chat/completions",
                    data=body,
                    headers={"content-type": "application/json", "authorization": "Bearer k"},
                )
                with urllib.request.urlopen(req, timeout=600) as reply:
                    got.append(sum(len(line) for line in reply))

            one()  # warm-up: the first turn loads the model's tables, importers and store
            warm = _vm_hwm(proxy.proc.pid)
            started = time.monotonic()
            threads = [threading.Thread(target=one) for _ in range(20)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(600)
            peak = _vm_hwm(proxy.proc.pid)
        finally:
            proxy.stop()
    print(
        f"\n20 concurrent streams, {sum(got) / 1e6:.1f} MB streamed in "
        f"{time.monotonic() - started:.1f} s: proxy peak RSS {peak / 1024:.1f} MiB "
        f"(idle {idle / 1024:.1f} MiB; after one warm-up stream {warm / 1024:.1f} MiB, "
        f"+{(peak - warm) / 1024:.1f} for the 20); "
        f"load {Path('/proc/loadavg').read_text().split()[:3]}"
    )
    assert len(got) == 21
    FIGURES["streams"] = {
        "peak_mib": peak / 1024,
        "idle_mib": idle / 1024,
        "warm_mib": warm / 1024,
        "streamed_mb": sum(got[1:]) / 1e6,
    }


def test_goal() -> None:
    f = FIGURES
    pairs = [
        ("test_pass_through[proxy]", "test_pass_through[direct]"),
        ("test_pass_through[proxy-again]", "test_pass_through[direct-again]"),
    ]
    needed = [*{n for pair in pairs for n in pair}, "streams"]
    missing = [n for n in needed if n not in f]
    if missing:
        pytest.skip(f"not measured in this run: {', '.join(missing)}")
    added = [f[p]["p50_ms"] - f[d]["p50_ms"] for p, d in pairs]
    added_p50 = sum(added) / len(added)
    s = f["streams"]
    growth_mb = (s["peak_mib"] - s["warm_mib"]) * 1.048576
    figures = {
        f"{name}_{q}": results.figure(x[q], "ms", f"{q[:3]} latency, {x['rounds']:.0f} rounds")
        for name, x in sorted(f.items())
        if name != "streams"
        for q in ("p50_ms", "p99_ms")
    }
    figures |= {
        f"streams_{k}": results.figure(
            v,
            k.rsplit("_", 1)[1].replace("mib", "MiB").replace("mb", "MB"),
            "20 concurrent 1 MB streams through a proxy process",
        )
        for k, v in s.items()
    }
    ratios = {
        "pass_through_added_p50_ms": results.figure(
            added_p50, "ms", "proxy p50 - direct p50, pass-through (mean of two interleaved pairs)"
        )
    }
    if "test_compacting[proxy]" in f and "test_compacting[direct]" in f:
        ratios["compacting_added_p50_ms"] = results.figure(
            f["test_compacting[proxy]"]["p50_ms"] - f["test_compacting[direct]"]["p50_ms"],
            "ms",
            "proxy p50 - direct p50, a request reusing its pass",
        )
    record = results.finish(
        results.bench_name(__file__),
        {
            "ratios": ratios,
            "figures": figures,
            "params": {"upstream": "tests/fake_upstream (offline stand-in)"},
        },
        {
            "pass_through_added_p50": results.Goal(
                added_p50, "<=", 1.5, "ms", "issue 24 figures (1.1-1.3 ms quiet, 2026-12-02)"
            ),
            "streams_memory_growth": results.Goal(
                growth_mb,
                "<",
                s["streamed_mb"],
                "MB",
                "issue 24 (bounded with 20 concurrent streams)",
            ),
        },
    )
    results.check(record)
