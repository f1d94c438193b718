"""kill -9 while the store writes, and 16 writers on one conversation: what survives (issue 23).

Two runs, each printing its counts:

``kill``: ``--kills`` times (default 300) a forked writer works on one
conversation, mixing at random appends of a turn (``Store.append``),
checkpoint labels (``Store.save_checkpoints``, the whole list plus one),
forks (``tree.fork`` saved as a new conversation, which starts its own log)
and notes (``Store.record``), and reports each on a pipe only after the call
returned. Once it has acknowledged its first call it is killed with SIGKILL
after a random 0-50 ms. Then every log of the workspace must load, and every
acknowledged turn, label, fork and note must be there. The next writer starts
from what is stored.

``writers``: ``--writers`` processes (default 16) at once append ``--turns``
turns each (and a note every fifth turn) to one conversation, each continuing
its own branch; then the log must hold every turn and note.

Run: ``nice -n 19 .venv/bin/python bench/store_kill.py [--kills N] [--writers N --turns N]``.
Exit status 1 when anything acknowledged was lost or a log did not load.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

from snapshot.errors import TranscriptError
from snapshot.transcript.model import Message, TextBlock, ToolCall, ToolResult
from snapshot.transcript.store import Store
from snapshot.transcript.tree import Checkpoint, fork

CONV = "c"


def turn(tag: str, parent: str | None) -> list[Message]:
    """A complete turn: question, tool call, its result, answer (ids from ``tag``)."""
    text = f"{tag} " + "lorem ipsum dolor sit amet " * 40
    return [
        Message(f"{tag}-0", parent, "user", (TextBlock(text),)),
        Message(f"{tag}-1", f"{tag}-0", "assistant", (ToolCall(f"k{tag}", "ls", {"p": tag}),)),
        Message(f"{tag}-2", f"{tag}-1", "user", (ToolResult(f"k{tag}", (TextBlock(text),)),)),
        Message(f"{tag}-3", f"{tag}-2", "assistant", (TextBlock(text),)),
    ]


def _writer(ws: Path, run: int, ack: int) -> None:
    rng = random.Random(run)
    store = Store(ws)
    try:
        tip = store.load(CONV).tip
    except TranscriptError:
        tip = None
    k = 0
    while True:
        k += 1
        tag = f"r{run}k{k}"
        what = rng.random() if tip is not None else 0.0
        if what < 0.55:
            new = turn(tag, tip)
            store.append(CONV, new)
            tip = new[-1].id
            os.write(ack, f"T {tip}\n".encode())
        elif what < 0.75:
            labels = [*store.load_checkpoints(CONV), Checkpoint(tag, str(tip))]
            store.save_checkpoints(CONV, "main", labels)
            os.write(ack, f"C {tag}\n".encode())
        elif what < 0.85:
            forked = fork(store.load(CONV), f"fork-{tag}")
            store.save(forked)
            os.write(ack, f"F fork-{tag}\n".encode())
        else:
            store.record(CONV, {"type": "note", "tag": tag})
            os.write(ack, f"N {tag}\n".encode())


def _run_killed(ws: Path, run: int, delay: float) -> list[str]:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.close(r)
            _writer(ws, run, w)
        except BaseException:
            traceback.print_exc()
            status = 3
        finally:
            os._exit(status)
    os.close(w)
    # Wait for its first acknowledgement, so the kill lands while it works, not while it starts.
    first = b""
    while not first.endswith(b"\n"):
        got = os.read(r, 1)
        if not got:
            break
        first += got
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    chunks = [first]
    while chunk := os.read(r, 65536):
        chunks.append(chunk)
    os.close(r)
    return b"".join(chunks).decode().split("\n")


def kill_run(kills: int, seed: int = 23) -> dict[str, int]:
    rng = random.Random(seed)
    ws = Path(tempfile.mkdtemp(prefix="store-kill-"))
    counts = dict.fromkeys(
        ["kills", "turns", "labels", "forks", "notes", "lost_turns", "lost_records"], 0
    )
    counts["unreadable_logs"] = 0
    turns: set[str] = set()
    labels: set[str] = set()
    forks: set[str] = set()
    notes: set[str] = set()
    for run in range(kills):
        acked = _run_killed(ws, run, rng.uniform(0.0, 0.05))
        counts["kills"] += 1
        for line in acked:
            kind, _, what = line.partition(" ")
            {"T": turns, "C": labels, "F": forks, "N": notes}.get(kind, set()).add(what)
        store = Store(ws)
        if not store.exists(CONV):
            continue  # killed before its first append returned: nothing acknowledged
        try:
            conv = store.load(CONV)
            have_labels = {c.label for c in store.load_checkpoints(CONV)}
            have_notes = {n["tag"] for n in store.records(CONV, kind="note")}
        except TranscriptError as exc:
            print(f"run {run}: {exc}", file=sys.stderr)
            counts["unreadable_logs"] += 1
            continue
        counts["lost_turns"] = len(turns - set(conv.index))
        counts["lost_records"] = len(labels - have_labels) + len(notes - have_notes)
        for fork_id in list(forks):
            try:
                store.load(fork_id)
            except TranscriptError as exc:
                print(f"run {run}: fork {fork_id}: {exc}", file=sys.stderr)
                counts["unreadable_logs"] += 1
                forks.discard(fork_id)
    counts.update(turns=len(turns), labels=len(labels), forks=len(forks), notes=len(notes))
    return counts


def _appender(ws: str, worker: int, count: int) -> None:
    store = Store(ws)
    parent = "root"
    for k in range(count):
        new = turn(f"w{worker}k{k}", parent)
        store.append(CONV, new)
        parent = new[-1].id
        if k % 5 == 4:
            store.record(CONV, {"type": "note", "tag": f"w{worker}k{k}"})


def writers_run(writers: int, count: int) -> dict[str, int]:
    ws = Path(tempfile.mkdtemp(prefix="store-writers-"))
    Store(ws).append(CONV, [Message("root", None, "user", (TextBlock("start"),))])
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_appender, args=(str(ws), w, count)) for w in range(writers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    store = Store(ws)
    conv = store.load(CONV)
    want = {f"w{w}k{k}-{j}" for w in range(writers) for k in range(count) for j in range(4)}
    notes = {n["tag"] for n in store.records(CONV, kind="note")}
    want_notes = {f"w{w}k{k}" for w in range(writers) for k in range(count) if k % 5 == 4}
    return {
        "writers": writers,
        "failed_writers": sum(p.exitcode != 0 for p in procs),
        "records_written": len(want) + len(want_notes),
        "lost_records": len(want - set(conv.index)) + len(want_notes - notes),
        "messages_loaded": len(conv.messages),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=300)
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--turns", type=int, default=25)
    args = parser.parse_args()
    started = time.time()
    load = Path("/proc/loadavg").read_text().split()[0]
    kill = kill_run(args.kills) if args.kills else {}
    print(f"kill: {kill} (load average {load} at the start, {time.time() - started:.0f} s)")
    started = time.time()
    many = writers_run(args.writers, args.turns) if args.writers else {}
    load = Path("/proc/loadavg").read_text().split()[0]
    print(f"writers: {many} (load average {load} at the end, {time.time() - started:.0f} s)")
    bad = kill.get("lost_turns", 0) + kill.get("lost_records", 0) + kill.get("unreadable_logs", 0)
    bad += many.get("lost_records", 0) + many.get("failed_writers", 0)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
