"""Crash safety: a writer killed with SIGKILL at random moments never loses a saved turn.

A writer process (forked, so no interpreter start-up per run) continues the
stored conversation, appending complete turns (user, assistant tool call,
tool result, assistant answer) and writing each turn's number to a pipe only
after ``Store.save`` returned; every third turn it also saves a checkpoint.
The test kills it with SIGKILL after a random delay, loads the file, checks
it, and starts the next writer from what was loaded. Over at least 200 saves
and at least 50 kills, every load must give a complete turn (the tip ends a
turn, every tool call answered) with every acknowledged turn present and
intact: at most the one turn in flight may be missing. Checkpoints (saved
after the transcript) must only name messages the transcript holds.
"""

from __future__ import annotations

import os
import random
import signal
import time
import traceback
from pathlib import Path

import pytest

from snapshot.errors import TranscriptError
from snapshot.transcript.model import (
    Conversation,
    Message,
    TextBlock,
    ToolCall,
    ToolResult,
    tool_pairing,
)
from snapshot.transcript.store import Store
from snapshot.transcript.tree import Checkpoint

MIN_SAVES = 200
MIN_KILLS = 50
MAX_RUNS = 1000


def body(t: int, j: int) -> str:
    return f"t{t}-{j} " + chr(97 + (t + j) % 26) * 20


def turn_messages(t: int, parent: str | None) -> list[Message]:
    ids = [f"t{t}-{j}" for j in range(4)]
    return [
        Message(ids[0], parent, "user", (TextBlock(body(t, 0)),)),
        Message(ids[1], ids[0], "assistant", (ToolCall(f"call{t}", "bash", {"cmd": body(t, 1)}),)),
        Message(ids[2], ids[1], "tool", (ToolResult(f"call{t}", (TextBlock(body(t, 2)),)),)),
        Message(ids[3], ids[2], "assistant", (TextBlock(body(t, 3)),)),
    ]


def writer(ws: Path, ack: int) -> None:
    """The writer process: continue from the store, save turn after turn, acknowledge each."""
    store = Store(ws)
    try:
        conv = store.load("crash")
        cps = list(store.load_checkpoints("crash"))
    except TranscriptError:
        conv, cps = Conversation("crash", (), None), []
    msgs = list(conv.messages)
    t = len(msgs) // 4
    while True:
        t += 1
        new = turn_messages(t, conv.tip)
        msgs.extend(new)
        conv = conv.with_messages(msgs, new[-1].id)
        store.save(conv)
        os.write(ack, f"{t}\n".encode())  # acknowledged: must survive any later kill
        if t % 3 == 0:
            cps.append(Checkpoint(f"turn{t}", new[-1].id))
            store.save_checkpoints("crash", "main", cps)


def run_writer(ws: Path, delay: float) -> tuple[int, bytes]:
    """Fork a writer, SIGKILL it after ``delay`` seconds; its wait status and acknowledgements."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child never returns into pytest
        status = 1
        try:
            os.close(r)
            writer(ws, w)
        except BaseException:
            traceback.print_exc()
            status = 3
        finally:
            os._exit(status)
    os.close(w)
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    chunks = []
    while chunk := os.read(r, 65536):
        chunks.append(chunk)
    os.close(r)
    return status, b"".join(chunks)


def check_turns(conv: Conversation, turns: int) -> None:
    """The stored conversation is exactly turns 1..``turns``, each intact, tip at the last."""
    assert len(conv.messages) == 4 * turns
    assert conv.tip == (f"t{turns}-3" if turns else None)
    path = conv.path() if conv.tip else ()
    assert len(path) == 4 * turns
    assert tool_pairing(path).ok  # a complete turn: no call waits for its result
    for k, m in enumerate(path):
        t, j = k // 4 + 1, k % 4
        assert m.id == f"t{t}-{j}"
        block = m.blocks[0]
        if isinstance(block, TextBlock):
            assert block.text == body(t, j)
        elif isinstance(block, ToolCall):
            assert block.input == {"cmd": body(t, j)} and block.id == f"call{t}"
        else:
            assert isinstance(block, ToolResult) and block.text() == body(t, j)


def stored_turns(store: Store) -> int:
    try:
        conv = store.load("crash")
    except TranscriptError as exc:
        assert "no stored conversation" in str(exc)  # never a corrupted file
        return 0
    turns = len(conv.messages) // 4
    check_turns(conv, turns)
    labels = store.load_checkpoints("crash")
    for c in labels:
        assert c.message in conv.index, f"checkpoint {c} names a message the transcript lacks"
    return turns


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork to start writers cheaply")
def test_sigkill_at_random_moments_never_loses_a_saved_turn(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    store = Store(ws)
    rng = random.Random(20261130)
    acknowledged = 0  # the highest turn known to be saved
    kills = 0
    for _ in range(MAX_RUNS):
        # Each turn on disk is one completed save (some completed just before
        # a kill, unacknowledged), so the stored turn count counts the saves.
        if acknowledged >= MIN_SAVES and kills >= MIN_KILLS:
            break
        # Now and then kill at once (during the writer's load), mostly a few
        # saves in: the delay is random, so kills land at random points of
        # serialise / write / fsync / rename / fsync-dir.
        delay = rng.uniform(0.0, 0.005) if rng.random() < 0.1 else rng.uniform(0.0, 0.25)
        status, out = run_writer(ws, delay)
        assert os.WIFSIGNALED(status), f"the writer failed on its own (status {status})"
        assert os.WTERMSIG(status) == signal.SIGKILL
        kills += 1
        # Only complete lines were acknowledged; a half-written number was not.
        acked = [int(line) for line in out.decode().split("\n")[:-1] if line]
        if acked:
            acknowledged = max(acknowledged, acked[-1])
        turns = stored_turns(store)
        assert turns >= acknowledged, f"turn {acknowledged} was saved, then lost"
        assert turns <= acknowledged + 1  # at most the one turn in flight, complete
        acknowledged = turns  # the next writer continues from what is on disk
    assert acknowledged >= MIN_SAVES, f"only {acknowledged} saves in {kills} runs"
    assert kills >= MIN_KILLS
    # Temp files of killed writers never shadow the store; none but ours are there.
    leftovers = [p.name for p in (ws / "crash").iterdir() if p.name.endswith(".tmp")]
    assert all(name.startswith(".main.") for name in leftovers)
