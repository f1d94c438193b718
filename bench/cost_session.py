"""A real Claude Code session recorded for the cost bench (issue 41 item 7), no proxy in between.

    Claude Code 2.1.332 ──▶ tap (numbers requests) ──▶ tests/fake_upstream.py (scripted)

The workspace is a small payments service built here (:func:`write_workspace`): a git
repository whose twelve commits have fixed dates, so their 40-hex hashes are the same on every
run; source files read with line numbers; service logs with UUID request ids and hex trace
ids; a manifest of sha256 digests; a stack trace with ``path:line`` frames. The scripted model
(:class:`CostScript`, an offline stand-in: it reads nothing) walks a fixed list of
:data:`STEPS`, one Bash or Read call a turn with a sentence of prose before it, finding its
place by the number of tool results in the request (the history is whole: no proxy), then
writes a closing summary. So the bodies carry what makes exact-id coverage mean something:
hex ids, UUIDs, digests, long numbers and ``path:line`` references, in real tool results the
CLI produced by running the commands.

The recording lives outside the checkout (:func:`cache_folder`; tens of MB of bodies). Every
client request is kept as Claude Code sent it (``client/NNNN.body`` with its path and headers
in ``client/index.json``, auth as ``***``), as ``bench/harness/harness_run.py`` writes them.

Run: ``python bench/cost_session.py [OUT]`` records a session (prints its summary).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import secrets
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE / "harness"))

from fake_upstream import FakeUpstream  # noqa: E402
from harness_clis import invocation  # noqa: E402
from harness_install import installed  # noqa: E402
from harness_model import published_image_tokens, tool_names  # noqa: E402
from harness_run import _dump  # noqa: E402
from harness_tap import Tap  # noqa: E402

#: The model of the recorded session: the one issue 41's measurement used (1 M window; pxpipe
#: 0.13.2 images it by default).
MODEL = "claude-fable-5"
#: Bump when the workspace, the steps or the script change: a new recording is made.
RECORDING_VERSION = "1"
DONE = "COST-BENCH-DONE"
_EPOCH = dt.datetime(2026, 11, 2, 9, 0, tzinfo=dt.UTC)

#: One turn each: (tool, input, the prose the model says before calling it). ``{root}`` is the
#: workspace's absolute path (Read takes absolute paths).
STEPS: tuple[tuple[str, dict[str, str], str], ...] = (
    ("Bash", {"command": "git log --stat -n 12"}, "Let me start with the recent history."),
    ("Bash", {"command": "ls -la src/payments tests logs data"}, "Now the layout."),
    ("Read", {"file_path": "{root}/src/payments/ledger.py"}, "The ledger module first."),
    ("Bash", {"command": "grep -rn 'def \\|class ' src/"}, "Every definition in the source."),
    ("Bash", {"command": "head -150 logs/app.log"}, "The service log around the failure."),
    ("Bash", {"command": "grep -n 'ERROR\\|WARN' logs/app.log"}, "Only the errors and warnings."),
    ("Bash", {"command": "sha256sum data/*.bin"}, "Checking the fixture digests."),
    ("Read", {"file_path": "{root}/data/manifest.json"}, "And the manifest they should match."),
    ("Bash", {"command": "git show --stat HEAD~3"}, "What the settlement change touched."),
    ("Read", {"file_path": "{root}/src/payments/api.py"}, "The API handlers."),
    ("Bash", {"command": "cat logs/trace.txt"}, "The stack trace from the incident."),
    ("Read", {"file_path": "{root}/src/payments/settle.py"}, "The settlement code it points at."),
    ("Bash", {"command": "git diff HEAD~4 HEAD -- src/payments/settle.py"}, "The recent diff."),
    ("Bash", {"command": "head -120 logs/worker.log"}, "The worker's side of it."),
    ("Read", {"file_path": "{root}/tests/test_ledger.py"}, "The tests that cover it."),
    ("Bash", {"command": "git log --format='%H %an %s' -n 12"}, "Full hashes with authors."),
    ("Bash", {"command": "grep -rn 'idempotency' src/ tests/"}, "Where idempotency keys go."),
    ("Read", {"file_path": "{root}/src/payments/models.py"}, "The data model."),
    ("Bash", {"command": "cat data/accounts.csv"}, "The account fixtures."),
    ("Bash", {"command": "tail -150 logs/app.log"}, "The end of the service log."),
    ("Read", {"file_path": "{root}/src/payments/retry.py"}, "The retry policy."),
    ("Bash", {"command": "git blame -s src/payments/settle.py"}, "Who wrote each line."),
    ("Bash", {"command": "grep -n 'trace=' logs/worker.log"}, "Trace ids on the worker."),
    ("Read", {"file_path": "{root}/src/payments/webhooks.py"}, "The webhook handler."),
    ("Bash", {"command": "cat logs/migrations.txt"}, "The migration history."),
    ("Bash", {"command": "tail -120 logs/worker.log"}, "The worker log's end."),
    ("Read", {"file_path": "{root}/tests/test_settle.py"}, "The settlement tests."),
    ("Bash", {"command": "grep -rn 'TODO\\|FIXME' src/"}, "Open notes in the code."),
    ("Bash", {"command": "git log -p -n 2 -- src/payments/ledger.py"}, "Last two ledger patches."),
    ("Bash", {"command": "wc -l src/payments/*.py tests/*.py"}, "Sizes, for the write-up."),
)
TASK = (
    "Investigate the duplicate-settlement incident in this payments service: read the history, "
    "the code, the logs and the fixtures, one command at a time, then summarize the root cause "
    f"with the exact commit hashes, request ids and file:line references, and end with {DONE}."
)


# --------------------------------------------------------------------------- the workspace


def _hex(seed: str, n: int) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:n]


def _uuid(seed: str) -> str:
    return str(uuid.UUID(hashlib.md5(seed.encode()).hexdigest()))


_NAMES = ("ledger", "settle", "api", "models", "retry", "webhooks")
_WORDS = [
    "amount",
    "currency",
    "account",
    "batch",
    "cursor",
    "ledger",
    "entry",
    "posting",
    "reversal",
    "fee",
    "payout",
    "balance",
    "window",
    "merchant",
    "settlement",
    "partner",
    "invoice",
    "refund",
    "hold",
    "release",
]


def _module(name: str, lines: int = 170) -> str:
    """A Python module of plausible code with ids in its constants and comments."""
    out = [f'"""payments.{name}: {" ".join(_WORDS[i % len(_WORDS)] for i in range(6))}."""', ""]
    out += ["from __future__ import annotations", "", "import logging", "import uuid", ""]
    out += [f'LOG = logging.getLogger("payments.{name}")', ""]
    n = 0
    while len(out) < lines:
        w = _WORDS[(n * 7 + len(name)) % len(_WORDS)]
        v = _WORDS[(n * 3 + 1) % len(_WORDS)]
        ref = _hex(f"{name}/{n}", 12)
        out += [
            f"PARTNER_{w.upper()}_{n} = {_uuid(name + str(n))!r}  # partner id, see ops/{ref}",
            "",
            f"def {w}_{v}_{n}(entry: dict, cursor: int = {10_000 + n * 137}) -> dict:",
            f'    """Post the {w} of ``entry`` to the {v} (ticket PAY-{4100 + n})."""',
            f"    key = entry.get('idempotency_key') or uuid.uuid5(uuid.NAMESPACE_URL, {ref!r})",
            f"    if entry['amount_minor'] > {250_000 + n * 991}:",
            f"        LOG.warning('large {w}: %s key=%s', entry['id'], key)",
            "    # TODO: the retry below re-posts when the first write timed out",
            f"    return {{'id': entry['id'], 'key': str(key), 'cursor': cursor + {n + 1}}}",
            "",
        ]
        n += 1
    return "\n".join(out[:lines]) + "\n"


def _log(name: str, lines: int) -> str:
    out = []
    t = _EPOCH
    for i in range(lines):
        t += dt.timedelta(milliseconds=731 * (i % 7 + 1))
        level = "ERROR" if i % 23 == 5 else "WARN" if i % 11 == 3 else "INFO"
        rid = _uuid(f"{name}/req/{i}")
        trace = _hex(f"{name}/trace/{i}", 16)
        what = _WORDS[i % len(_WORDS)]
        amount = 1_000 + (i * 7919) % 900_000
        out.append(
            f"{t:%Y-%m-%dT%H:%M:%S.%f}Z {level:5} {name} request_id={rid} trace={trace} "
            f"{what} posted amount_minor={amount} batch={_hex(f'{name}/b/{i // 9}', 8)} "
            f"at src/payments/{_NAMES[i % len(_NAMES)]}.py:{40 + (i * 13) % 160}"
        )
    return "\n".join(out) + "\n"


def _trace() -> str:
    rid = _uuid("incident")
    frames = [
        f'  File "/srv/app/src/payments/{_NAMES[i % len(_NAMES)]}.py", line {33 + i * 17}, '
        f"in {_WORDS[i]}_{_WORDS[i + 3]}_{i}\n    entry = post(entry, key={_hex(f'k{i}', 10)!r})"
        for i in range(14)
    ]
    return (
        f"incident INC-20261102-{_hex('inc', 6)} request_id={rid}\n"
        "Traceback (most recent call last):\n" + "\n".join(frames) + "\n"
        f"payments.errors.DuplicateSettlement: batch {_hex('dup', 8)} settled twice "
        f"(first {_uuid('first')}, second {_uuid('second')}, amount_minor=1,516,925)\n"
    )


def _git(root: Path, *args: str, when: dt.datetime | None = None) -> str:
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(root.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Dana Ruiz",
        "GIT_AUTHOR_EMAIL": "dana@example.com",
        "GIT_COMMITTER_NAME": "Dana Ruiz",
        "GIT_COMMITTER_EMAIL": "dana@example.com",
    }
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when.isoformat()
    done = subprocess.run(
        ["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def write_workspace(root: Path) -> str:
    """Build the workspace under ``root`` (a git repository, deterministic); its HEAD hash."""
    root.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "-q", "-b", "main")
    for i, name in enumerate((*_NAMES, "settle", "ledger", "retry", "settle", "api", "ledger")):
        for d in ("src/payments", "tests", "logs", "data"):
            (root / d).mkdir(parents=True, exist_ok=True)
        (root / "src/payments" / f"{name}.py").write_text(_module(name, 150 + 4 * i))
        if i == 0:
            for t in ("ledger", "settle"):
                (root / "tests" / f"test_{t}.py").write_text(_module(f"test_{t}", 140))
            (root / "logs/app.log").write_text(_log("app", 420))
            (root / "logs/worker.log").write_text(_log("worker", 330))
            (root / "logs/trace.txt").write_text(_trace())
            (root / "logs/migrations.txt").write_text(
                "\n".join(
                    f"{_hex(f'mig{k}', 12)} 2026-{1 + k % 11:02d}-{1 + k % 27:02d} "
                    f"{_WORDS[k % len(_WORDS)]}_{_WORDS[(k + 5) % len(_WORDS)]} applied "
                    f"rows={12_345 + k * 7_777} checksum={_hex(f'sum{k}', 32)}"
                    for k in range(60)
                )
                + "\n"
            )
            rows = ["account_id,partner,currency,balance_minor,opened"]
            rows += [
                f"{_uuid(f'acct{k}')},{_hex(f'p{k}', 10)},"
                f"{('EUR', 'USD', 'GBP')[k % 3]},{(k * 104_729) % 9_000_000},"
                f"2026-0{1 + k % 9}-1{k % 9}"
                for k in range(90)
            ]
            (root / "data/accounts.csv").write_text("\n".join(rows) + "\n")
            manifest = {}
            for k in range(8):
                blob = hashlib.sha512(f"fixture{k}".encode()).digest() * (40 + k)
                (root / "data" / f"fixture{k}.bin").write_bytes(blob)
                manifest[f"data/fixture{k}.bin"] = {
                    "sha256": hashlib.sha256(blob).hexdigest(),
                    "bytes": len(blob),
                    "uploaded_by": _uuid(f"up{k}"),
                }
            (root / "data/manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        _git(root, "add", "-A")
        when = _EPOCH + dt.timedelta(hours=7 * i)
        msg = f"{name}: {_WORDS[i]} {_WORDS[i + 4]} fix (PAY-{4100 + i * 3})"
        _git(root, "commit", "-q", "-m", msg, when=when)
    return _git(root, "rev-parse", "HEAD").strip()


# --------------------------------------------------------------------------- the scripted model


def _tool_results(body: dict[str, Any]) -> int:
    return sum(
        1
        for m in body.get("messages") or []
        if isinstance(m, dict) and isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    )


@dataclass
class CostScript:
    """A :data:`fake_upstream.ReplyMaker`: the next step of :data:`STEPS`, then a summary."""

    root: str
    calls: int = 0
    side: int = 0
    log: list[str] = field(default_factory=list)

    def __call__(self, api: str, body: dict[str, Any]) -> dict[str, Any]:
        if "Bash" not in tool_names(api, body):
            self.side += 1
            self.log.append("side request")
            return {"text": "Duplicate settlement investigation"}
        step = _tool_results(body)
        if step >= len(STEPS):
            self.log.append(f"summary after {step} results")
            return {"text": _summary()}
        tool, args, prose = STEPS[step]
        self.calls += 1
        self.log.append(f"step {step + 1}: {tool}")
        filled = {k: v.replace("{root}", self.root) for k, v in args.items()}
        if tool == "Bash":
            filled["description"] = prose.rstrip(".")
        return {"text": prose, "call": (tool, filled, f"toolu_01cost{step + 1:03d}")}


def _summary() -> str:
    return (
        "Root cause: the settlement retry re-posts a batch when the first write timed out "
        f"(src/payments/settle.py:84, src/payments/retry.py:41), so batch {_hex('dup', 8)} "
        f"settled twice (first {_uuid('first')}, second {_uuid('second')}). The change came "
        "with the settlement commit three back from HEAD; the idempotency key is generated per "
        f"attempt instead of per batch (src/payments/ledger.py:23). {DONE}"
    )


# --------------------------------------------------------------------------- recording


def cache_folder() -> Path:
    """Where the recording lives: ``$SNAPSHOT_COST_RECORDING``, else
    ``${XDG_CACHE_HOME:-~/.cache}/snapshot/bench/cost_vs_pxpipe/v<RECORDING_VERSION>``."""
    override = os.environ.get("SNAPSHOT_COST_RECORDING")
    if override:
        return Path(override)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "snapshot" / "bench" / "cost_vs_pxpipe" / f"v{RECORDING_VERSION}"


def record(out: Path, timeout: float = 900.0) -> dict[str, Any]:
    """Run Claude Code on the workspace against the fake, no proxy; keep every client request."""
    have = installed("claude")
    if have is None:
        raise RuntimeError(
            "Claude Code is not installed: run python bench/harness/harness_install.py"
        )
    out.mkdir(parents=True, exist_ok=True)
    work = out / "work"
    head = write_workspace(work)
    script = CostScript(str(work))
    key = "sk-costbench-" + secrets.token_hex(16)
    started = time.time()
    with (
        FakeUpstream(
            reply=script,
            refuse_invalid=False,
            lifetime=timeout + 60,
            max_requests=2000,
            limit=10**9,
            image_tokens=published_image_tokens,
        ) as fake,
        Tap(fake.url, number=True, lifetime=timeout + 60) as front,
    ):
        how = invocation("claude", have.bin, MODEL, front.url, key, out / "home", TASK)
        done = subprocess.run(
            how.argv,
            env=how.env,
            cwd=work,
            capture_output=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    _dump(out / "client", front.exchanges)
    (out / "cli.stdout").write_bytes(done.stdout)
    (out / "cli.stderr").write_bytes(done.stderr)
    summary = {
        "cli": f"{have.package}@{have.version}",
        "model": MODEL,
        "recording_version": RECORDING_VERSION,
        "workspace_head": head,
        "exit_code": done.returncode,
        "finished": DONE.encode() in done.stdout,
        "requests": len(front.exchanges),
        "tool_calls": script.calls,
        "side_requests": script.side,
        "fake_validation_problems": len(fake.problems),
        "seconds": round(time.time() - started, 1),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "upstream": "tests/fake_upstream.py with bench/cost_session.CostScript (an offline "
        "stand-in for the provider: it reads nothing)",
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


@dataclass(frozen=True)
class Request:
    """One recorded client request: its number, path, headers (auth as ``***``) and body."""

    n: int
    path: str
    headers: dict[str, str]
    body: bytes


def load(folder: Path) -> list[Request]:
    """The recorded ``POST /v1/messages`` requests of a recording, in the order sent."""
    index = json.loads((folder / "client" / "index.json").read_text(encoding="utf-8"))
    return [
        Request(
            int(row["n"]),
            str(row["path"]),
            dict(row["headers"]),
            (folder / "client" / f"{int(row['n']):04d}.body").read_bytes(),
        )
        for row in index
        if row["method"] == "POST" and str(row["path"]).split("?")[0] == "/v1/messages"
    ]


def ensure(folder: Path | None = None) -> Path:
    """The recording's folder, recorded first when it is not there yet."""
    folder = folder or cache_folder()
    if not (folder / "summary.json").is_file():
        summary = record(folder)
        if summary["exit_code"] != 0 or not summary["finished"]:
            raise RuntimeError(f"the recording did not finish: {summary} (see {folder})")
    return folder


if __name__ == "__main__":
    where = Path(sys.argv[1]) if len(sys.argv) > 1 else cache_folder()
    print(json.dumps(record(where), indent=1))
