"""Recording one turn: the append-only log against today's rewrite (1e38e1a), side by side (issue 23).

The conversation is a real Claude Code session grown by
``bench/claude_code_session.py`` to ``SNAPSHOT_STORE_SESSION_MB`` (default 60)
MB of JSONL and imported, which stores as about 33 MB. Each round records one
more turn (a user message with a 2 KB tool result, then a 1 KB assistant
answer, new ids each round):

- ``rewrite_1e38e1a``: ``Store.save`` of the store at commit 1e38e1a (read
  from git), which rewrites the whole file;
- ``append_warm``: ``Store.append`` on a Store object that has written the log
  (a live agent keeps one);
- ``append_cold``: ``Store.append`` on a new Store object (it reads the ids);
- ``save_diff``: ``Store.save`` of the whole conversation plus the turn (what
  the session commands call), which appends only what differs.

Besides pytest-benchmark's wall times, each test prints the median CPU time
(``time.process_time``) and the bytes it wrote (``wchar`` of /proc/self/io)
against the turn's own JSON bytes. ``test_load_500mb_log_peak_memory`` builds
a log of ``SNAPSHOT_STORE_LOG_MB`` (default 500) MB by appending turns and
loads it in a fresh process, printing the peak RSS beside that of a process
that only imports the store.

Run: ``nice -n 19 python bench/run.py store_append -s``. ``test_goal`` writes
``reports/bench/store_append.json`` and asserts issue 23 item 2's goals: appending one
turn to the ~33 MB conversation <= 5 ms CPU and <= 2x the turn's bytes written, side by
side with the rewrite of 1e38e1a; loading the 500 MB log <= 150 MB peak RSS.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import results
from claude_code_session import SAMPLE, build
from conftest import PEAK_RSS, ROOT, arms, module_at, record, shared_dir, wchar

from snapshot.transcript.formats import import_path
from snapshot.transcript.model import (
    Conversation,
    Message,
    TextBlock,
    ToolCall,
    ToolResult,
    message_to_dict,
)
from snapshot.transcript.store import Store

SESSION_MB = float(os.environ.get("SNAPSHOT_STORE_SESSION_MB", "60"))
LOG_MB = float(os.environ.get("SNAPSHOT_STORE_LOG_MB", "500"))
BASELINE = "1e38e1a"
ROUNDS = 7
#: name -> median CPU seconds, bytes written and turn bytes (and the load test's figures)
FIGURES: dict[str, dict[str, float]] = {}


def turn(n: int, parent: str | None) -> list[Message]:
    """One turn: an assistant call, its 2 KB result, the answer (new ids for round ``n``)."""
    out = "\n".join(f"src/module_{i}.py: {i * 37} lines, ok" for i in range(70))[:2000]
    return [
        Message(f"b{n}-call", parent, "assistant", (ToolCall(f"bc{n}", "Bash", {"cmd": "ls"}),)),
        Message(f"b{n}-res", f"b{n}-call", "user", (ToolResult(f"bc{n}", (TextBlock(out),)),)),
        Message(f"b{n}-ans", f"b{n}-res", "assistant", (TextBlock("All modules pass. " * 55),)),
    ]


def turn_bytes(messages: list[Message]) -> int:
    return sum(len(json.dumps(message_to_dict(m), ensure_ascii=False).encode()) for m in messages)


@pytest.fixture(scope="module")
def conversation(tmp_path_factory: pytest.TempPathFactory) -> Conversation:
    base = shared_dir()
    sample = None if base is None else base / SAMPLE
    if sample is None or not sample.is_file():
        pytest.skip(f"the real session {SAMPLE} is not under the shared folder (SNAPSHOT_SHARED)")
    path = tmp_path_factory.mktemp("session") / "session.jsonl"
    build(sample, path, SESSION_MB)
    [conv, *_] = [c for c in import_path(path) if c.agent == "main"]
    return conv


def _old_store() -> Any:
    return module_at(BASELINE, "snapshot/transcript/store.py")


def _measure(
    benchmark: Any, name: str, capsys: pytest.CaptureFixture[str], one: Callable[[int], int]
) -> None:
    """Run ``one(round)`` ROUNDS times under the benchmark; print CPU and bytes written."""
    cpu: list[float] = []
    written: list[int] = []
    turns: list[int] = []
    counter = iter(range(1, 10_000))

    def run() -> None:
        n = next(counter)
        w0, c0 = wchar(), time.process_time()
        turns.append(one(n))
        cpu.append(time.process_time() - c0)
        written.append(wchar() - w0)

    record(benchmark, name, run, rounds=ROUNDS, iterations=1)
    FIGURES[name] = {
        "cpu": statistics.median(cpu),
        "written": statistics.median(written),
        "turn": statistics.median(turns),
    }
    with capsys.disabled():
        print(
            f"\n{name}: median CPU {statistics.median(cpu) * 1e3:.2f} ms, wrote "
            f"{statistics.median(written):,.0f} bytes for a turn of "
            f"{statistics.median(turns):,.0f} bytes "
            f"({statistics.median(written) / statistics.median(turns):.2f}x); "
            f"load average {Path('/proc/loadavg').read_text().split()[0]}"
        )


@pytest.mark.benchmark(group="store-turn")
def test_rewrite_1e38e1a(
    benchmark: Any, conversation: Conversation, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _old_store().Store(tmp_path)
    old.save(conversation)
    with capsys.disabled():
        size = old.path_for(conversation.id, conversation.agent).stat().st_size
        print(f"\nthe stored conversation (1e38e1a's file): {size / 1e6:.1f} MB")
    state = {"conv": conversation}

    def one(n: int) -> int:
        conv = state["conv"]
        new = turn(n, conv.tip)
        conv = conv.with_messages([*conv.messages, *new], new[-1].id)
        old.save(conv)
        state["conv"] = conv
        return turn_bytes(new)

    _measure(benchmark, "rewrite_1e38e1a", capsys, one)


@pytest.mark.benchmark(group="store-turn")
def test_append_warm(
    benchmark: Any, conversation: Conversation, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(tmp_path)
    store.save(conversation)
    with capsys.disabled():
        size = store.path_for(conversation.id, conversation.agent).stat().st_size
        print(f"\nthe stored conversation (log): {size / 1e6:.1f} MB")
    FIGURES["stored"] = {"bytes": size}
    tip = [conversation.tip]

    def one(n: int) -> int:
        new = turn(n, tip[0])
        store.append(conversation.id, new, agent=conversation.agent)
        tip[0] = new[-1].id
        return turn_bytes(new)

    _measure(benchmark, "append_warm", capsys, one)


@pytest.mark.benchmark(group="store-turn")
def test_append_cold(
    benchmark: Any, conversation: Conversation, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Store(tmp_path).save(conversation)
    tip = [conversation.tip]

    def one(n: int) -> int:
        new = turn(n, tip[0])
        Store(tmp_path).append(conversation.id, new, agent=conversation.agent)
        tip[0] = new[-1].id
        return turn_bytes(new)

    _measure(benchmark, "append_cold", capsys, one)


@pytest.mark.benchmark(group="store-turn")
def test_save_diff(
    benchmark: Any, conversation: Conversation, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(tmp_path)
    store.save(conversation)
    state = {"conv": conversation}

    def one(n: int) -> int:
        conv = state["conv"]
        new = turn(n, conv.tip)
        conv = conv.with_messages([*conv.messages, *new], new[-1].id)
        store.save(conv)
        state["conv"] = conv
        return turn_bytes(new)

    _measure(benchmark, "save_diff", capsys, one)


# Peak RSS as VmHWM (conftest.PEAK_RSS): ``ru_maxrss`` carries pytest's own peak over
# ``exec``, so it reported the parent's figure for both children.
_LOAD = (
    PEAK_RSS
    + """
import sys, time
from snapshot.transcript.store import Store
t = time.process_time()
if sys.argv[2] == "load":
    conv = Store(sys.argv[1]).load("big")
    n = sum(1 for _ in conv.path_ids())
else:
    n = 0
print(peak_rss() // 1024, n, time.process_time() - t)
"""
)


def test_load_500mb_log_peak_memory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = shared_dir()
    sample = None if base is None else base / SAMPLE
    if sample is None or not sample.is_file():
        pytest.skip(f"the real session {SAMPLE} is not under the shared folder (SNAPSHOT_SHARED)")
    store = Store(tmp_path)
    path = store.path_for("big")
    # Real text: 200 KB of the session's own lines, as one user message a turn.
    body = sample.read_text(encoding="utf-8")[:200_000]
    parent: str | None = None
    n = 0
    while not path.exists() or path.stat().st_size < LOG_MB * 1e6:
        batch = []
        for _ in range(50):
            batch.append(Message(f"u{n}", parent, "user", (TextBlock(body),)))
            batch.append(Message(f"a{n}", f"u{n}", "assistant", (TextBlock(body[:20_000]),)))
            parent, n = f"a{n}", n + 1
        store.append("big", batch)
    size = path.stat().st_size
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    base = subprocess.run(
        [sys.executable, "-c", _LOAD, str(tmp_path), "import"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.split()
    loaded = subprocess.run(
        [sys.executable, "-c", _LOAD, str(tmp_path), "load"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.split()
    with capsys.disabled():
        print(
            f"\nload of a {size / 1e6:.0f} MB log ({2 * n:,} messages, path {loaded[1]}): peak RSS "
            f"{int(loaded[0]) / 1024:.0f} MB (a process that only imports the store: "
            f"{int(base[0]) / 1024:.0f} MB), CPU {float(loaded[2]):.1f} s; load average "
            f"{Path('/proc/loadavg').read_text().split()[0]}"
        )
    assert int(loaded[1]) == 2 * n
    FIGURES["load_log"] = {
        "bytes": size,
        "rss": int(loaded[0]) * 1024,
        "import_rss": int(base[0]) * 1024,
        "cpu": float(loaded[2]),
    }


def test_goal() -> None:
    a = arms("rewrite_1e38e1a", "append_warm", "append_cold", "save_diff")
    if "load_log" not in FIGURES:
        pytest.skip("not measured in this run: test_load_500mb_log_peak_memory")
    f, log = FIGURES, FIGURES["load_log"]
    warm = f["append_warm"]
    figures = {
        f"{name}_cpu_ms": results.figure(f[name]["cpu"] * 1e3, "ms", f"median CPU a turn, {name}")
        for name in a
    }
    figures |= {
        f"{name}_written_over_turn": results.figure(
            f[name]["written"] / f[name]["turn"],
            "x",
            f"bytes written a turn / the turn's JSON, {name}",
        )
        for name in a
    }
    if "stored" in f:
        figures["stored_conversation_mb"] = results.figure(
            f["stored"]["bytes"] / 1e6, "MB", "the conversation a turn is appended to, as stored"
        )
    figures["log_load_peak_rss_mb"] = results.figure(
        log["rss"] / 1e6, "MB", f"Store.load of a {log['bytes'] / 1e6:.0f} MB log, fresh process"
    )
    figures["log_load_import_only_rss_mb"] = results.figure(
        log["import_rss"] / 1e6, "MB", "a process that only imports the store"
    )
    record = results.finish(
        results.bench_name(__file__),
        {
            "arms": a,
            "ratios": {
                "rewrite_over_append_cpu": results.figure(
                    f["rewrite_1e38e1a"]["cpu"] / warm["cpu"],
                    "x",
                    "CPU a turn: 1e38e1a's rewrite vs append on a warm Store",
                )
            },
            "figures": figures,
            "params": {"session_mb": SESSION_MB, "log_mb": LOG_MB, "rounds": ROUNDS},
        },
        {
            "append_cpu": results.Goal(warm["cpu"] * 1e3, "<=", 5, "ms", "issue 23 item 2"),
            "append_bytes": results.Goal(
                warm["written"] / warm["turn"], "<=", 2, "x the turn", "issue 23 item 2"
            ),
            "log_load_peak_rss": results.Goal(log["rss"] / 1e6, "<=", 150, "MB", "issue 23 item 2"),
        },
    )
    results.check(record)
