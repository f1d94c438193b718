"""Drive one agent CLI through ``snapshot proxy`` against the fake upstream, recording both sides.

    CLI ──▶ tap (numbers requests) ──▶ snapshot proxy (real process) ──▶ tap ──▶ fake upstream

The fake (``tests/fake_upstream.py``, a real aiohttp server on 127.0.0.1 with each provider's
current overflow bodies) answers through :class:`harness_model.ScriptedModel`: one shell call per
part file, ``--parts`` turns, then ``HARNESS-DONE``. The fake's limit is set on the session's
first shell request to that request's size (in the fake's own count) plus about
``--grow-parts`` parts, so the session crosses it once midway: the proxy, which does not know
that limit (no ``--window``), gets one overflow rejection, has to learn from it and compact every
request from then on.

Run: ``python bench/harness/harness_run.py claude [--model M] [--out DIR]`` (one run; prints its
summary as JSON); ``python bench/harness/harness_run.py all`` runs every CLI with its default
model and one other and writes ``reports/bench/harness.json`` and the README section.
``--direct`` leaves the proxy out (the CLI against the fake alone: the control).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(HERE))

from fake_upstream import FakeUpstream, fake_tokens  # noqa: E402
from harness_checks import analyse, key_leaks  # noqa: E402
from harness_clis import API, RUNS, Run, invocation, task  # noqa: E402
from harness_install import PINS, installed  # noqa: E402
from harness_model import DONE, PART, ScriptedModel, published_image_tokens, write_parts  # noqa: E402
from harness_tap import Tap  # noqa: E402
from proxy_process import ProxyProcess  # noqa: E402

PARTS = 42  # shell turns per session (issue 38: >= 40)
GROW_PARTS = 18  # the fake's limit: the first shell request plus about this many parts
PART_TOKENS = 1400  # one part's result in the fake's count (a ~3.7 KB file, JSON over 3)
CLI_TIMEOUT = 1200.0
REPORT = ROOT / "reports" / "bench" / "harness.json"


def snapshot_tree() -> Path:
    """The tree whose ``snapshot`` this process imports: the proxy and the exporter run it too
    (``PYTHONPATH=OTHER_TREE python bench/harness/harness_run.py …`` tries another branch)."""
    import snapshot

    return Path(snapshot.__file__).resolve().parents[1]


README = HERE / "README.md"


def _start_proxy(upstream: str, run: Path, window: int | None) -> ProxyProcess:
    """``python -m snapshot proxy`` of :func:`snapshot_tree`, its output in ``run/proxy.log``;
    no key in its environment (it forwards the client's)."""
    proxy = ProxyProcess(upstream, run / "store", run / "ledger")
    proxy.args += ["--window", str(window)] if window else []
    env = {k: v for k, v in os.environ.items() if "KEY" not in k.upper()}
    env["PYTHONPATH"] = str(snapshot_tree())
    proxy.start(120, env=env, log=run / "proxy.log")
    return proxy


def _dump(folder: Path, exchanges: list[Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for n, ex in enumerate(exchanges, 1):
        name = f"{n:04d}"
        (folder / f"{name}.body").write_bytes(ex.body)
        (folder / f"{name}.reply").write_bytes(ex.reply)
        index.append(
            {
                "n": n,
                "seq": ex.seq,
                "method": ex.method,
                "path": ex.path,
                "status": ex.status,
                "bytes": len(ex.body),
                "seconds": round(ex.seconds, 3),
                "headers": ex.headers,
            }
        )
    (folder / "index.json").write_text(json.dumps(index, indent=1), encoding="utf-8")


def run_one(
    cli: str,
    model: str | None,
    run: Path,
    *,
    parts: int = PARTS,
    grow_parts: int = GROW_PARTS,
    window: int | None = None,
    direct: bool = False,
    timeout: float = CLI_TIMEOUT,
) -> dict[str, Any]:
    """One session; its records under ``run``; its summary (also ``run/summary.json``)."""
    have = installed(cli)
    if have is None:
        raise RuntimeError(f"{cli} is not installed: run python bench/harness/harness_install.py")
    run.mkdir(parents=True, exist_ok=True)
    work = run / "work"
    write_parts(work / "parts", parts)
    key = "sk-harness-" + secrets.token_hex(20)
    script = ScriptedModel(parts)
    api = API[cli]
    limit_set: list[int] = []

    def reply(request_api: str, body: dict[str, Any]) -> dict[str, Any]:
        answer = script(request_api, body)
        if not limit_set and ("call" in answer or "custom_call" in answer):
            history = (
                body.get({"anthropic": "messages", "gemini": "contents"}.get(request_api, "input"))
                or []
            )
            system = body.get("system") or body.get("instructions") or body.get("systemInstruction")
            fake.limit = fake_tokens(history, system) + grow_parts * PART_TOKENS
            limit_set.append(fake.limit)
        return answer

    started = time.time()
    load = os.getloadavg()
    with (
        FakeUpstream(
            reply=reply,
            refuse_invalid=False,
            lifetime=timeout + 120,
            max_requests=5000,
            limit=10**9,
            image_tokens=published_image_tokens,
        ) as fake,
        Tap(fake.url, number=False, lifetime=timeout + 120) as behind,
    ):
        proxy = None if direct else _start_proxy(behind.url, run, window)
        try:
            front_target = behind.url if proxy is None else proxy.url
            with Tap(front_target, number=True, lifetime=timeout + 120) as front:
                how = invocation(
                    cli, have.bin, model, front.url, key, run / "home", task(parts, "parts")
                )
                try:
                    done = subprocess.run(
                        how.argv,
                        env=how.env,
                        cwd=work,
                        capture_output=True,
                        timeout=timeout,
                        stdin=subprocess.DEVNULL,
                        check=False,
                    )
                    code, out, err = done.returncode, done.stdout, done.stderr
                except subprocess.TimeoutExpired as exc:
                    code, out, err = -9, exc.stdout or b"", exc.stderr or b""
        finally:
            if proxy is not None:
                proxy.stop()
    seconds = time.time() - started
    (run / "cli.stdout").write_bytes(out)
    (run / "cli.stderr").write_bytes(err)
    _dump(run / "client", front.exchanges)
    _dump(run / "upstream", behind.exchanges)
    (run / "model.log").write_text("\n".join(script.log) + "\n", encoding="utf-8")
    models = sorted(
        {
            str(json.loads(e.body).get("model"))
            for e in front.exchanges
            if e.body.startswith(b"{") and b'"model"' in e.body[:4000]
        }
    )
    if api == "gemini":
        models = sorted(
            {
                e.path.split("/models/")[1].split(":")[0]
                for e in front.exchanges
                if "/models/" in e.path
            }
        )
    from snapshot.proxy.ledger import read_ledger

    ledger = read_ledger(run / "ledger") if (run / "ledger").is_dir() else []
    checked = analyse(api, front.exchanges, behind.exchanges, ledger=ledger)
    leaks = key_leaks(key, [run / "store", run / "ledger", run / "proxy.log"])
    summary: dict[str, Any] = {
        "cli": cli,
        "package": have.package,
        "version": have.version,
        "model": model or "default",
        "models_seen": models,
        "through_proxy": not direct,
        "exit_code": code,
        "seconds": round(seconds, 1),
        "load_at_start": [round(x, 2) for x in load],
        "parts": parts,
        "shell_turns": script.calls,
        "highest_part": script.highest,
        "finished": script.finished > 0 and DONE.encode() in out,
        "side_requests": script.side,
        "cli_own_compactions": script.summaries,
        "fake_limit": limit_set[0] if limit_set else None,
        "fake_validation_problems": len(fake.problems),
        "fake_validation_samples": sorted(set(fake.problems))[:5],
        **proxy_made_problems(fake.accepted, front.exchanges),
        "key_leaks": leaks,
        "store": None if direct else store_export(run / "store", api, parts),
        **checked,
    }
    summary["passed"] = verdict(summary)
    (run / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return summary


def proxy_made_problems(accepted: list[Any], client: list[Any]) -> dict[str, Any]:
    """The fake validator's problems in bodies the proxy changed (paired with the client's
    body by ``X-Harness-Seq``): the ones the proxy made, or kept from the client's body in
    a compacted request. A body forwarded as the client sent it carries only the client's."""
    sent = {ex.seq: ex.body for ex in client if ex.seq is not None}
    found: list[str] = []
    for body in accepted:
        seq = body.headers.get("x-harness-seq")
        if body.problems and seq is not None and body.raw != sent.get(int(seq)):
            found.extend(body.problems)
    return {
        "fake_validation_problems_in_changed_bodies": len(found),
        "fake_validation_samples_in_changed_bodies": sorted(set(found))[:5],
    }


def store_export(store: Path, api: str, parts: int) -> dict[str, Any]:
    """Each stored conversation exported with ``snapshot export --to API``: the exporter's notes
    (calls with no result, results with no call) and how many parts' real text the export holds."""
    rows: list[dict[str, Any]] = []
    for conv in sorted(p.name for p in store.iterdir() if p.is_dir()) if store.is_dir() else []:
        env = {**os.environ, "PYTHONPATH": str(snapshot_tree()), "SNAPSHOT_NO_PROGRESS": "1"}
        argv = [sys.executable, "-m", "snapshot", "export", conv, "--workspace", str(store)]
        done = subprocess.run(
            [*argv, "--to", api],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            check=False,
        )
        notes = [line for line in done.stderr.splitlines() if line.startswith("snapshot: note:")]
        rows.append(
            {
                "conversation": conv,
                "exit_code": done.returncode,
                "unanswered_calls": sum("has no result" in n for n in notes),
                "orphan_results": sum("has no call" in n for n in notes),
                "parts": len({m.group(1) for m in PART.finditer(done.stdout)}),
                "notes": notes[:3],
            }
        )
    most = max((int(r["parts"]) for r in rows), default=0)
    return {
        "conversations": len(rows),
        "unanswered_calls": sum(r["unanswered_calls"] for r in rows),
        "orphan_results": sum(r["orphan_results"] for r in rows),
        "parts_in_largest": most,
        "answers_every_call": bool(rows)
        and all(
            r["exit_code"] == 0 and not r["unanswered_calls"] and not r["orphan_results"]
            for r in rows
        )
        and most >= parts,
        "rows": rows,
    }


def verdict(s: dict[str, Any]) -> dict[str, bool | None]:
    """Each check of issue 38 item 8, True / False (None: could not be decided on this tree)."""
    fidelity = s["fidelity"]
    return {
        "every_turn_done": s["finished"] and s["highest_part"] >= s["parts"],
        "exit_0": s["exit_code"] == 0,
        "crossed_threshold": s["compacted_requests"] > 0,
        "fidelity_diff_empty": (
            None if not fidelity["available"] else fidelity["requests_with_differences"] == 0
        )
        if s["compacted_requests"]
        else None,
        "reuse_share_at_least_half": None
        if s["reuse"]["share"] is None
        else s["reuse"]["share"] >= 0.5,
        "no_rejection_reaches_client": s["client_rejections"] == 0,
        "no_refused_body_resent": s["repeated_refusals"] == 0,
        "key_never_written": not s["key_leaks"],
        "store_export_answers_every_call": None
        if s["store"] is None
        else s["store"]["answers_every_call"],
    }


def machine() -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "node": subprocess.run(
            ["node", "--version"], capture_output=True, text=True, check=False
        ).stdout.strip(),
    }


def commit(tree: Path | None = None) -> str:
    """The short commit of ``tree`` (default: the tree under test)."""
    done = subprocess.run(
        ["git", "-C", str(tree or snapshot_tree()), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip()


def run_all(out: Path, runs: list[Run]) -> dict[str, Any]:
    load = os.getloadavg()
    started = time.time()
    results = []
    for run in runs:
        print(f"harness: {run.name} …", file=sys.stderr, flush=True)
        try:
            result = run_one(run.cli, run.model, out / run.name, window=run.window)
        except RuntimeError as exc:
            result = {"cli": run.cli, "model": run.model or "default", "error": str(exc)}
        result |= {"run": run.name, "window_flag": run.window, "required": run.required}
        results.append(result)
        shown = result.get("passed") or result.get("error")
        print(f"harness: {run.name}: {json.dumps(shown)}", file=sys.stderr, flush=True)
    report = {
        "bench": "harness conformance (issue 38 item 8)",
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit(),
        "tree": str(snapshot_tree()),
        "harness_commit": commit(ROOT),
        "branch": subprocess.run(
            ["git", "-C", str(snapshot_tree()), "branch", "--show-current"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip(),
        "machine": machine(),
        "load": {
            "start": [round(x, 2) for x in load],
            "end": [round(x, 2) for x in os.getloadavg()],
        },
        "seconds": round(time.time() - started, 1),
        "versions": {cli: (installed(cli).version if installed(cli) else None) for cli in PINS},  # type: ignore[union-attr]
        "pins": {cli: f"{pkg}@{ver}" for cli, (pkg, ver) in PINS.items()},
        "upstream": "tests/fake_upstream.py with the scripted model (an offline stand-in for the providers)",
        "goal": {
            "every_turn_done": True,
            "exit_0": True,
            "fidelity_diff_empty": True,
            "reuse_share_at_least": 0.5,
            "client_rejections": 0,
            "key_never_written": True,
            "store_export_answers_every_call": True,
        },
        "results": results,
    }
    report["passed"] = all(
        r.get("passed") and all(v is True for v in r["passed"].values())
        for r in results
        if r["required"]
    )
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cli", choices=[*PINS, "all"])
    parser.add_argument("--model", default=None)
    parser.add_argument("--out", type=Path, default=None, help="keep the run's records here")
    parser.add_argument("--parts", type=int, default=PARTS)
    parser.add_argument("--window", type=int, default=None, help="pass --window to the proxy")
    parser.add_argument("--direct", action="store_true", help="no proxy: the CLI against the fake")
    parser.add_argument("--report", type=Path, default=REPORT, help="with all: the JSON")
    parser.add_argument("--readme", type=Path, default=README, help="with all: the README")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="snapshot-harness-"))
    if args.cli == "all":
        report = run_all(out, list(RUNS))
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        from harness_readme import write_section

        write_section(report, args.readme)
        print(f"harness: wrote {args.report}; records in {out}", file=sys.stderr)
        return 0 if report["passed"] else 1
    summary = run_one(
        args.cli, args.model, out, parts=args.parts, window=args.window, direct=args.direct
    )
    printed = {k: v for k, v in summary.items() if k != "compacted"}
    print(json.dumps(printed, indent=1))
    print(f"harness: records in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
