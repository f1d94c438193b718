"""A real harness through ``snapshot proxy``: Claude Code (npm ``@anthropic-ai/claude-code``)
in non-interactive mode, ``ANTHROPIC_BASE_URL`` at the proxy, the proxy in front of
``tests/fake_upstream`` (an offline stand-in for the Anthropic API: it answers the first
turn of each request with a Bash tool call, then with text).

Run: ``python bench/claude_code_harness.py /path/to/node_modules/.bin/claude`` (after
``npm install --prefix DIR @anthropic-ai/claude-code``). Prints what the fake accepted, the
validators' findings on Claude Code's own bodies, the ledger and the stored turns.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fake_upstream import FakeUpstream, serve_in_thread

from snapshot.proxy.app import Proxy, ProxyConfig
from snapshot.proxy.ledger import read_ledger
from snapshot.transcript.store import Store


def _reply(_api: str, body: dict[str, Any]) -> dict[str, Any]:
    """A Bash call when the last user turn holds no tool result, else a closing text."""
    last = body.get("messages", [{}])[-1]
    content = last.get("content")
    answered = isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )
    if answered or not body.get("tools"):
        return {"text": "The command printed its marker; done."}
    return {
        "call": (
            "Bash",
            {"command": "echo snapshot-proxy-marker", "description": "echo"},
            "toolu_01bench",
        )
    }


def main(claude: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        with FakeUpstream(reply=_reply, refuse_invalid=False, lifetime=600) as fake:
            proxy = Proxy(
                ProxyConfig(upstream=fake.url, store=work / "store", ledger=work / "ledger"),
                log=lambda line: print("proxy:", line, file=sys.stderr),
            )
            server = serve_in_thread(proxy.app, lifetime=600)
            env = {
                **os.environ,
                "HOME": str(work / "home"),
                "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.port}",
                "ANTHROPIC_API_KEY": "sk-ant-offline-stand-in",
                "DISABLE_TELEMETRY": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            }
            (work / "home").mkdir()
            done = subprocess.run(
                [
                    claude,
                    "-p",
                    "Run `echo snapshot-proxy-marker` with Bash and tell me what it printed.",
                    "--model",
                    "claude-sonnet-5-5",
                    "--allowedTools",
                    "Bash(echo:*)",
                    "--max-turns",
                    "4",
                    "--output-format",
                    "json",
                ],
                env=env,
                cwd=work,
                capture_output=True,
                text=True,
                timeout=300,
            )
            server.stop()
            print("claude exit:", done.returncode)
            print("claude stdout:", done.stdout[-1500:])
            print("claude stderr:", done.stderr[-1500:])
            print(
                "fake accepted:",
                [
                    (a.api, a.body.get("model"), len(a.body.get("messages", [])))
                    for a in fake.accepted
                ],
            )
            print("fake rejected:", fake.rejected)
            print("validator findings on Claude Code's bodies:", len(fake.problems))
            for finding in sorted(set(fake.problems))[:6]:
                print("  ", finding[:200])
            print(
                "tool results seen by the fake:",
                sum(
                    1
                    for a in fake.accepted
                    for m in a.body.get("messages", [])
                    if isinstance(m.get("content"), list)
                    for b in m["content"]
                    if isinstance(b, dict) and b.get("type") == "tool_result"
                ),
            )
            if (work / "ledger" / "ledger.jsonl").exists():
                for rec in read_ledger(work / "ledger"):
                    print(
                        "ledger:",
                        json.dumps(
                            {
                                k: rec[k]
                                for k in ("conversation", "model", "status", "usage", "stored")
                            }
                        ),
                    )
            store = Store(work / "store")
            for conv in store.conversations():
                for agent in store.agents(conv):
                    path = store.load(conv, agent).path()
                    print(
                        f"stored {conv}/{agent}: {len(path)} messages; roles {[m.role for m in path]}"
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
