"""``snapshot proxy`` as a real process, killed with SIGKILL mid-stream and restarted.

Shared by ``tests/test_proxy_crash.py`` (a few kills) and ``bench/test_proxy_kill.py``
(at least 50). Each round streams one Anthropic turn through the proxy from
``fake_upstream`` (slowed so the kill lands mid-stream), kills the proxy after the
first events, checks the store, restarts the proxy and sends the same turn again.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snapshot.transcript.store import Store


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ProxyProcess:
    def __init__(self, upstream: str, store: Path, ledger: Path) -> None:
        self.port = free_port()
        self.args = [
            sys.executable,
            "-m",
            "snapshot",
            "proxy",
            "--upstream",
            upstream,
            "--listen",
            f"127.0.0.1:{self.port}",
            "--store",
            str(store),
            "--ledger",
            str(ledger),
        ]
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(
        self, timeout: float = 300.0, *, env: dict[str, str] | None = None, log: Path | None = None
    ) -> None:
        """Start and wait until it listens; ``log``: its output goes to that file (a long run
        would fill a pipe nobody reads)."""
        out = log.open("wb") if log is not None else None
        self.proc = subprocess.Popen(
            self.args,
            stdout=out or subprocess.DEVNULL,
            stderr=subprocess.STDOUT if out else subprocess.PIPE,
            env=env,
        )
        if out is not None:
            out.close()  # the child holds its own copy
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                said = log.read_bytes() if log is not None else b""
                if self.proc.stderr:
                    said = self.proc.stderr.read()
                raise RuntimeError(f"proxy exited: {said.decode(errors='replace')}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("proxy did not start listening")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def _body(turns: list[str], replies: list[str]) -> bytes:
    messages = []
    for i, text in enumerate(turns):
        messages.append({"role": "user", "content": text})
        if i < len(replies):
            messages.append({"role": "assistant", "content": replies[i]})
    return json.dumps(
        {
            "model": "claude-sonnet-5-5",
            "max_tokens": 64,
            "stream": True,
            "system": "kill test",
            "messages": messages,
        }
    ).encode()


def _stream(url: str, data: bytes, *, stop_after: int | None) -> str:
    req = urllib.request.Request(
        url + "/v1/messages",
        data=data,
        headers={
            "x-api-key": "sk-kill-test",
            "content-type": "application/json",
            "X-Snapshot-Conversation": "killtest",
        },
    )
    text = []
    with urllib.request.urlopen(req, timeout=60) as reply:
        for n, line in enumerate(reply):
            if stop_after is not None and n >= stop_after:
                return ""
            if line.startswith(b"data: ") and b"text_delta" in line:
                text.append(json.loads(line[6:])["delta"]["text"])
    return "".join(text)


@dataclass
class KillReport:
    kills: int = 0
    lost_acknowledged_turns: int = 0
    half_turns: int = 0
    unreadable_stores: int = 0
    notes: list[str] = field(default_factory=list)


def kill_rounds(
    upstream: str, folder: Path, rounds: int, *, reply_text: str, say: Any = None
) -> KillReport:
    """``rounds`` turns, each killed once mid-stream and then completed after a restart."""
    store_dir, ledger = folder / "store", folder / "ledger"
    proxy = ProxyProcess(upstream, store_dir, ledger)
    report = KillReport()
    turns: list[str] = []
    replies: list[str] = []
    try:
        proxy.start()
        for r in range(rounds):
            turns.append(f"turn {r}: go on")
            data = _body(turns, replies)
            try:
                _stream(proxy.url, data, stop_after=4)  # a few events in, then kill
            except OSError as exc:
                report.notes.append(f"round {r}: {type(exc).__name__}")
            proxy.kill()
            report.kills += 1
            try:
                stored = Store(store_dir).load("killtest") if r else None
            except Exception as exc:  # any failure to read is what this counts
                report.unreadable_stores += 1
                report.notes.append(f"round {r}: store unreadable: {exc}")
                stored = None
            if stored is not None:
                texts = [m.text() for m in stored.path() if m.role != "system"]
                expected = [t for pair in zip(turns[:-1], replies, strict=True) for t in pair]
                if texts[: len(expected)] != expected:
                    report.lost_acknowledged_turns += 1
                if len(texts) != len(expected):
                    report.half_turns += 1
            proxy.start()
            replies.append(_stream(proxy.url, data, stop_after=None))
            if say is not None:
                say(f"round {r + 1}/{rounds}: {report}")
        final = [m.text() for m in Store(store_dir).load("killtest").path() if m.role != "system"]
        expected = [t for pair in zip(turns, replies, strict=True) for t in pair]
        if final != expected:
            report.lost_acknowledged_turns += 1
            report.notes.append(f"final store {len(final)} messages, expected {len(expected)}")
    finally:
        proxy.stop()
    return report
