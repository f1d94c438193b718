"""The store under hostile and careless use: concurrent first imports, odd files, read-only folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from snapshot import cli
from snapshot.errors import TranscriptError
from snapshot.transcript.model import TextBlock, linear
from snapshot.transcript.store import Store

ROOT = Path(__file__).resolve().parents[1]
BODY = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 100,
    "messages": [
        {"role": "user", "content": "list the files"},
        {"role": "assistant", "content": "a.txt b.txt"},
        {"role": "user", "content": "thanks"},
        {"role": "assistant", "content": "you are welcome"},
    ],
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(code: int, err: str) -> str:
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def body_file(tmp_path: Path) -> Path:
    p = tmp_path / "s.json"
    p.write_text(json.dumps(BODY))
    return p


def test_three_concurrent_first_imports_keep_every_checkpoint(
    tmp_path: Path, body_file: Path
) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for trial in range(3):
        ws = tmp_path / f"ws{trial}"
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "snapshot",
                    "checkpoint",
                    "--workspace",
                    str(ws),
                    str(body_file),
                    f"L{i}",
                ],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for i in range(3)
        ]
        results = [p.communicate(timeout=120) for p in procs]
        assert all(p.returncode == 0 for p in procs), results
        store = Store(ws)
        (conv_id,) = store.conversations()
        labels = sorted(c.label for c in store.load_checkpoints(conv_id))
        assert labels == ["L0", "L1", "L2"], (trial, results)


def test_label_after_options(
    tmp_path: Path, body_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = str(tmp_path / "ws")
    code, out, err = run(capsys, "checkpoint", str(body_file), "--workspace", ws, "start")
    assert code == 0, err
    assert "checkpoint 'start'" in out


def test_check_writable_refuses_a_file_valued_workspace(tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(TranscriptError, match="not a folder"):
        Store(f).check_writable()


def _stored(tmp_path: Path) -> Store:
    store = Store(tmp_path / "ws")
    store.save(linear("c1", [("m1", "user", [TextBlock("hi")])]))
    return store


def test_dangling_lock_symlink_is_refused_and_nothing_is_created_outside(tmp_path: Path) -> None:
    store = _stored(tmp_path)
    lock = store.conversation_dir("c1") / "main.lock"
    if lock.exists():
        lock.unlink()
    outside = tmp_path / "outside"
    lock.symlink_to(outside)
    with pytest.raises(TranscriptError, match="symlink"):
        store.save(linear("c1", [("m1", "user", [TextBlock("again")])]))
    assert not outside.exists()


def test_lock_path_that_is_a_folder_is_a_clear_error(tmp_path: Path) -> None:
    store = _stored(tmp_path)
    lock = store.conversation_dir("c1") / "main.lock"
    if lock.exists():
        lock.unlink()
    lock.mkdir()
    with pytest.raises(TranscriptError, match="not a plain file"):
        store.update("c1", "main", lambda c: c)


def test_fifo_as_store_file_does_not_hang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = _stored(tmp_path)
    path = store.path_for("c1")
    path.unlink()
    os.mkfifo(path)
    with pytest.raises(TranscriptError, match="FIFO"):
        store.load("c1")
    code, _, err = run(capsys, "tree", "c1", "--workspace", str(store.root))
    assert "FIFO" in one_line(code, err)


def test_store_file_linked_to_dev_zero(tmp_path: Path) -> None:
    store = _stored(tmp_path)
    path = store.path_for("c1")
    path.unlink()
    path.symlink_to("/dev/zero")
    with pytest.raises(TranscriptError, match="device"):
        store.load("c1")


def test_overlong_name_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "tree", "x" * 300, "--workspace", str(tmp_path / "ws"))
    assert "neither a file nor a conversation" in one_line(code, err)


def test_lone_surrogate_survives_import_store_and_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = dict(
        BODY, messages=[{"role": "user", "content": "cut emoji \ud83d"}, *BODY["messages"][1:]]
    )
    p = tmp_path / "emoji.json"
    p.write_text(json.dumps(body))  # json.dumps writes the surrogate as \ud83d
    ws = str(tmp_path / "ws")
    code, _, err = run(capsys, "checkpoint", str(p), "--workspace", ws, "here")
    assert code == 0, err
    code, out, err = run(capsys, "tree", str(p), "--workspace", ws)
    assert code == 0 and "cut emoji \ufffd" in out, err
    code, out, err = run(capsys, "export", str(p), "--to", "anthropic")
    assert code == 0, err
    assert "cut emoji \ufffd" in out
    store = Store(ws)
    (cid,) = store.conversations()
    assert any("U+FFFD" in w for w in store.load(cid).warnings)


def test_refused_fork_leaves_no_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = _stored(tmp_path)
    code, _, err = run(
        capsys, "fork", "c1", "--workspace", str(store.root), "--at", "nope", "--id", "newone"
    )
    one_line(code, err)
    assert not (store.root / "newone").exists()


def test_control_characters_in_labels_and_text_are_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(tmp_path / "ws")
    store.save(linear("c1", [("m1", "user", [TextBlock("title \x1b]0;pwned\x07 \x1b[2J")])]))
    ws = str(store.root)
    code, _, err = run(capsys, "checkpoint", "c1", "--workspace", ws, "lab\x1b[31mel")
    assert "control character" in one_line(code, err)  # a new label must be printable
    # An old or hand-written checkpoints file may still hold one: shown escaped.
    from snapshot.transcript.tree import Checkpoint

    store.save_checkpoints("c1", "main", [Checkpoint(label="lab\x1b[31mel", message="m1")])
    for argv in (("tree", "c1"), ("checkpoint", "c1"), ("rewind", "c1", "lab\x1b[31mel")):
        code, out, err = run(capsys, *argv, "--workspace", ws)
        assert code == 0, err
        assert "\x1b" not in out and "\x07" not in out and "\x1b" not in err
        assert "\\x1b" in out


def test_ambiguous_bare_name_names_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = Store(tmp_path / ".snapshot")
    store.save(linear("c1", [("m1", "user", [TextBlock("stored")])]))
    (tmp_path / "c1").write_text(json.dumps(BODY))
    code, _, err = run(capsys, "tree", "c1")
    line = one_line(code, err)
    assert "./c1" in line and "store:c1" in line
    code, out, _ = run(capsys, "tree", "store:c1")
    assert code == 0 and "stored" in out
    code, out, _ = run(capsys, "export", "./c1", "--to", "anthropic")
    assert code == 0 and "list the files" in out


def _shed_root_powers() -> None:
    """In a child about to exec: drop the capabilities that let root write anywhere.

    Root writes into a 0555 folder because of CAP_DAC_OVERRIDE (and reads past
    modes by CAP_DAC_READ_SEARCH). Dropped from the bounding set, they are gone
    from the program exec'd next, so the kernel refuses it as it would anyone.
    The uid stays 0 rather than becoming ``nobody``: the interpreter and the
    package may live in a folder only root can enter (``/root/.pyenv`` here),
    and as uid 0 they are still readable by their owner's mode bits.
    """
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    pr_capbset_drop, cap_dac_override, cap_dac_read_search = 24, 1, 2
    for cap in (cap_dac_override, cap_dac_read_search):
        if libc.prctl(pr_capbset_drop, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) refused")


@pytest.mark.parametrize("missing", [False, True], ids=["read-only store", "in a read-only folder"])
def test_read_only_store_is_refused_before_any_work_even_as_root(
    tmp_path: Path, body_file: Path, missing: bool
) -> None:
    # No faked answers: the folder is really 0555 and the CLI runs in a process
    # the kernel really refuses (as root: without the capabilities that override modes).
    if os.name != "posix":  # pragma: no cover
        pytest.skip("folder modes make a folder read-only on POSIX only")
    as_root = os.geteuid() == 0
    if as_root and not sys.platform.startswith("linux"):  # pragma: no cover
        pytest.skip("dropping root's override needs Linux capabilities")
    locked = tmp_path / "locked"
    locked.mkdir()
    ws = locked / "ws" if missing else locked
    locked.chmod(0o555)
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "snapshot",
                "checkpoint",
                str(body_file),
                "--workspace",
                str(ws),
                "x",
            ],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            preexec_fn=_shed_root_powers if as_root else None,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert "cannot be written" in one_line(proc.returncode, proc.stderr)
        assert str(locked) in proc.stderr
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o755)


def test_a_store_file_spelling_a_lone_surrogate_loads_and_exports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = _stored(tmp_path)
    path = store.path_for("c1")
    path.write_text(path.read_text().replace('"hi"', '"hi \\ud83d"'))  # as a JS writer would
    conv = store.load("c1")
    assert conv.messages[0].blocks[0].text == "hi \ufffd"
    assert any("U+FFFD" in w for w in conv.warnings)
    code, out, err = run(capsys, "export", "c1", "--workspace", str(store.root), "--to", "openai")
    assert code == 0 and "hi \ufffd" in out, err


def test_the_store_imports_without_fcntl(tmp_path: Path) -> None:
    """Windows has no fcntl: the store (and so the package) must import and lock without it."""
    code = (
        "import sys; sys.modules['fcntl'] = None\n"
        "from snapshot.transcript.store import Store\n"
        "from snapshot.transcript.model import linear, TextBlock\n"
        f"s = Store({str(tmp_path / 'ws')!r})\n"
        "s.save(linear('c', [('m', 'user', [TextBlock('hi')])]))\n"
        "print(s.load('c').tip)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.strip() == "m", done.stderr


def test_a_lock_held_too_long_is_a_clear_error_not_a_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    import snapshot.transcript.store as store_module

    store = _stored(tmp_path)
    monkeypatch.setattr(store_module, "LOCK_TIMEOUT_S", 0.2)
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with Store(store.root).lock("c1"):  # another Store: another holder
            holding.set()
            release.wait(30)

    t = threading.Thread(target=hold)
    t.start()
    try:
        holding.wait(30)
        with pytest.raises(TranscriptError, match="held this conversation's lock"):
            store.update("c1", "main", lambda c: c)
    finally:
        release.set()
        t.join()
