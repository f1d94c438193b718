"""``snapshot tree|branch|fork|checkpoint|rewind|context`` end to end through the CLI's main()."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snapshot.cli import main
from snapshot.transcript.formats import Format, ImportOptions, registry
from snapshot.transcript.model import (
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ToolCall,
    ToolResult,
    conversation_from_dict,
    conversation_to_dict,
)
from snapshot.transcript.store import Store

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def demo(conv_id: str = "demo") -> Conversation:
    msgs = [
        Message("s", None, "system", (TextBlock("you are helpful"),)),
        Message("u1", "s", "user", (TextBlock("list files"),)),
        Message("a1", "u1", "assistant", (ToolCall("c1", "bash", {"cmd": "ls"}),)),
        Message("r1", "a1", "tool", (ToolResult("c1", (TextBlock("a.txt"),)),)),
        Message("a2", "r1", "assistant", (TextBlock("one file"),)),
        Message("u2", "a2", "user", (TextBlock("delete it"),)),
        Message("a3", "u2", "assistant", (ToolCall("c2", "rm", {"f": "a.txt"}),)),
        Message("r3", "a3", "tool", (ToolResult("c2", (TextBlock("denied"),), is_error=True),)),
        Message("a4", "r3", "assistant", (TextBlock("could not"),)),
        Message(
            "u3",
            "a2",
            "user",
            (TextBlock("show it"), ImageBlock("image/png", b"x", width=800, height=600)),
        ),
    ]
    return Conversation(conv_id, tuple(msgs), "a4")


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.chdir(tmp_path)  # the default workspace is .snapshot/ here
    store = Store(tmp_path / ".snapshot")
    store.save(demo())
    return store


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, err: str) -> str:
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("snapshot: error: "), err
    return lines[0]


# --- tree -------------------------------------------------------------------------------


def test_tree_marks_the_tip_and_indents_branches(
    ws: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "tree", "demo")
    assert code == 0
    lines = out.splitlines()
    assert "demo/main (stored): 10 messages, 1 branch point, tip a4" in lines[0]
    body = lines[1:]
    assert body[0].startswith("• s system")
    tip = next(line for line in body if " a4 " in line)
    assert tip.startswith("  * a4 assistant") and "← tip" in tip
    # The two continuations of a2 sit one level deeper than the chain above them.
    assert next(line for line in body if " u2 " in line).startswith("  • u2")
    assert next(line for line in body if " u3 " in line).startswith("    u3 user")
    assert "[image image/png 800×600]" in out and "→ rm(" in out and "← c2 error: denied" in out


def test_tree_shows_checkpoint_labels_and_clips_lines(
    ws: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "checkpoint", "demo", "first", "--at", "a2")
    code, out, _ = run(capsys, "tree", "demo", "--width", "30")
    assert code == 0
    assert any("a2 assistant [first]" in line for line in out.splitlines())
    assert all(len(line) <= 30 for line in out.splitlines()[1:])


# --- branch ------------------------------------------------------------------------------


def test_branch_moves_the_tip_persistently_and_back(
    ws: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    before = ws.load("demo")
    code, out, _ = run(capsys, "branch", "demo", "--to", "u3")
    assert code == 0 and "tip moved from a4 to u3" in out and "--to a4 switches back" in out
    after = ws.load("demo")
    assert after.tip == "u3" and after.messages == before.messages
    run(capsys, "branch", "demo", "--to", "a4")
    assert ws.load("demo") == before


def test_branch_to_a_mid_turn_message_is_refused_and_changes_nothing(
    ws: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = ws.path_for("demo").read_bytes()
    code, _, err = run(capsys, "branch", "demo", "--to", "a3")
    assert "mid-turn at 'a3'" in one_line_error(code, err)
    assert ws.path_for("demo").read_bytes() == raw
    code, _, err = run(capsys, "branch", "demo", "--to", "zz")
    assert "no message 'zz'" in one_line_error(code, err)


# --- fork ---------------------------------------------------------------------------------


def test_fork_stores_a_new_conversation_with_fresh_ids(
    ws: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "fork", "demo", "--at", "a2")
    assert code == 0 and "into demo-fork1/main" in out
    forked = ws.load("demo-fork1")
    assert len(forked.messages) == 5
    assert not {m.id for m in forked.messages} & {m.id for m in demo().messages}
    code, out, _ = run(capsys, "fork", "demo")
    assert "demo-fork2" in out and len(ws.load("demo-fork2").messages) == 9
    code, out, _ = run(capsys, "fork", "demo", "--id", "mine")
    assert code == 0 and ws.load("mine").meta["forked_from"]["conversation"] == "demo"
    code, _, err = run(capsys, "fork", "demo", "--id", "mine")
    assert "already exists" in one_line_error(code, err)
    code, _, err = run(capsys, "fork", "demo", "--id", "../escape")
    assert "path separator" in one_line_error(code, err)
    assert ws.load("demo") == demo()  # the source is untouched


# --- checkpoint and rewind ------------------------------------------------------------------


def test_checkpoint_list_rewind_and_restart(ws: Store, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "checkpoint", "demo", "start", "--at", "u1")
    assert code == 0 and "checkpoint 'start' on u1" in out
    code, out, _ = run(capsys, "checkpoint", "demo", "end")
    assert "on a4" in out
    code, out, _ = run(capsys, "checkpoint", "demo")
    assert out.splitlines()[0].startswith("start\tu1\t") and "end\ta4" in out
    code, out, _ = run(capsys, "rewind", "demo", "start")
    assert code == 0 and "rewound to 'start' (u1), tip was a4" in out
    assert "7 message(s) stay on the abandoned branch" in out
    assert "kept extract: explored 7 messages" in out and "rm (1 failed)" in out
    # A new process (a new Store) sees the rewound tip, the extract and the labels.
    fresh = Store(ws.root)
    conv = fresh.load("demo")
    assert conv.tip == "u1" and conv.meta["rewinds"][-1]["label"] == "start"
    assert [c.label for c in fresh.load_checkpoints("demo")] == ["start", "end"]
    code, out, _ = run(capsys, "rewind", "demo", "end")
    assert fresh.load("demo").tip == "a4"


def test_checkpoint_refusals(ws: Store, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "checkpoint", "demo", "x", "--at", "a3")
    assert "mid-turn" in one_line_error(code, err)
    run(capsys, "checkpoint", "demo", "x")
    code, _, err = run(capsys, "checkpoint", "demo", "x", "--at", "u1")
    assert "already exists" in one_line_error(code, err)
    code, _, err = run(capsys, "rewind", "demo", "nope")
    assert "no checkpoint labelled 'nope'" in one_line_error(code, err)


def test_a_stale_checkpoint_is_dropped_and_reported(
    ws: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    from snapshot.transcript.tree import Checkpoint

    ws.save_checkpoints("demo", "main", [Checkpoint("gone", "trimmed-msg")])
    code, out, _ = run(capsys, "checkpoint", "demo")
    assert "gone\ttrimmed-msg\t(stale:" in out
    code, out, err = run(capsys, "checkpoint", "demo", "new")
    assert code == 0 and "dropped checkpoint 'gone'" in err
    assert [c.label for c in ws.load_checkpoints("demo")] == ["new"]


# --- context -------------------------------------------------------------------------------


def test_context_splits_tokens_by_kind(ws: Store, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "branch", "demo", "--to", "u3")
    code, out, _ = run(capsys, "context", "demo", "--model", "claude-sonnet-4-5")
    assert code == 0
    for kind in ("system", "user", "assistant", "thinking", "tool calls", "tool results"):
        assert any(line.startswith(kind) for line in out.splitlines()), kind
    assert "(reconstruction)" in out  # the model's own counter (ctok), as compact and report
    assert "images in user: 1, 1 bytes (800×600)" in out
    from snapshot.profiles import image_tokens

    assert f"billed {image_tokens('claude-sonnet-4-5', 800, 600):,} tokens" in out


def test_context_unknown_model_is_one_line(ws: Store, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "context", "demo", "--model", "no-such-model-9")
    assert "no-such-model-9" in one_line_error(code, err)


# --- CONV as a file --------------------------------------------------------------------------


@pytest.fixture
def fake_format(monkeypatch: pytest.MonkeyPatch) -> None:
    """An importer for ``*.fake.json`` (a list of neutral conversation dicts), so these
    tests do not depend on any real importer."""

    def load(path: Path, options: ImportOptions) -> list[Conversation]:
        convs = [conversation_from_dict(d) for d in json.loads(path.read_text())]
        return [c for c in convs if all(c.meta.get(k) == v for k, v in options.select.items())]

    fake = Format("fake", "test format", lambda p, head: float(p.name.endswith(".fake.json")), load)
    monkeypatch.setattr(registry, "_registry", lambda: (fake,))


def write_fake(path: Path, *convs: Conversation) -> Path:
    path.write_text(json.dumps([conversation_to_dict(c) for c in convs]))
    return path


def test_a_file_is_imported_and_stored_only_when_something_changes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fake_format: None,
) -> None:
    monkeypatch.chdir(tmp_path)
    log = write_fake(tmp_path / "log.fake.json", demo("from-file"))
    code, out, _ = run(capsys, "tree", str(log))
    assert code == 0 and "imported from" in out and "not stored" in out
    assert not (tmp_path / ".snapshot").exists()
    code, out, err = run(capsys, "branch", str(log), "--to", "u3")
    assert code == 0 and "stored it as from-file" in err and "so tree operations persist" in err
    store = Store(tmp_path / ".snapshot")
    assert store.load("from-file").tip == "u3"
    # The second time the same file finds the stored copy: the branch is not undone.
    code, out, err = run(capsys, "tree", str(log))
    assert "using the stored copy" in err and "tip u3" in out
    code, out, err = run(capsys, "checkpoint", str(log), "here")
    assert code == 0 and store.load_checkpoints("from-file")[0].message == "u3"


def test_a_file_with_an_unsafe_id_or_many_conversations(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fake_format: None,
) -> None:
    monkeypatch.chdir(tmp_path)
    log = write_fake(tmp_path / "odd.fake.json", demo("../../etc/passwd"))
    code, _, err = run(capsys, "fork", str(log), "--workspace", "ws")
    assert code == 0 and "stored as" in err
    assert not (tmp_path / "etc").exists()
    stored = [p.parent.name for p in (tmp_path / "ws").glob("*/main.jsonl")]
    assert len(stored) == 1 and stored[0].startswith("etc_passwd-") and "fork" in stored[0]
    a = Conversation("a", demo().messages, "a4", meta={"task": "1"})
    b = Conversation("b", demo().messages, "a4", meta={"task": "2"})
    many = write_fake(tmp_path / "many.fake.json", a, b)
    code, _, err = run(capsys, "branch", str(many), "--to", "u1")
    assert "holds 2 conversations" in one_line_error(code, err) and "--select" in err
    code, _, _ = run(capsys, "branch", str(many), "--to", "u1", "--select", "task=2")
    assert code == 0 and Store(tmp_path / ".snapshot").load("b").tip == "u1"


def test_a_mid_turn_file_cannot_be_stored_until_moved(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fake_format: None,
) -> None:
    monkeypatch.chdir(tmp_path)
    cut = Conversation("cut", demo().messages, "a3")  # the log ends waiting for c2's result
    log = write_fake(tmp_path / "cut.fake.json", cut)
    code, _, err = run(capsys, "checkpoint", str(log), "x", "--at", "u1")
    assert "mid-turn" in one_line_error(code, err)
    code, _, _ = run(capsys, "branch", str(log), "--to", "a2")
    assert code == 0 and Store(tmp_path / ".snapshot").load("cut").tip == "a2"


# --- bad input -------------------------------------------------------------------------------


def test_bad_conv_arguments_and_store_files(ws: Store, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "tree", "../outside")
    assert "is neither a file nor a conversation stored" in one_line_error(code, err)
    code, _, err = run(capsys, "tree", "demo", "--agent", "sub")
    assert "has no agent 'sub'" in one_line_error(code, err)
    path = ws.path_for("demo")
    path.write_text('{"snapshot_store": 2, "type": "conversation", "id": \n')
    code, _, err = run(capsys, "tree", "demo")
    line = one_line_error(code, err)
    assert ".snapshot/demo/main.jsonl:1: corrupted store log" in line
    path.write_text(json.dumps({"snapshot_store": 99, "type": "conversation"}) + "\n")
    code, _, err = run(capsys, "branch", "demo", "--to", "u1")
    assert "newer than this snapshot understands" in one_line_error(code, err)
    # A store of the one-document format: its own errors, as before.
    path.unlink()
    old = path.with_suffix(".json")
    old.write_text('{"schema_version": 1, "conversation": {')
    code, _, err = run(capsys, "tree", "demo")
    assert ".snapshot/demo/main.json: corrupted store file" in one_line_error(code, err)
    old.write_text(json.dumps({"schema_version": 99, "conversation": {}}))
    code, _, err = run(capsys, "branch", "demo", "--to", "u1")
    assert "newer than this snapshot understands" in one_line_error(code, err)


def test_several_agents_need_a_choice(ws: Store, capsys: pytest.CaptureFixture[str]) -> None:
    from dataclasses import replace

    ws.save(replace(demo("two"), agent="a"))
    ws.save(replace(demo("two"), agent="b"))
    code, _, err = run(capsys, "tree", "two")
    assert "several agents (a, b)" in one_line_error(code, err)
    code, out, _ = run(capsys, "tree", "two", "--agent", "b")
    assert code == 0 and out.startswith("two/b")


@pytest.mark.corpus
def test_tree_and_context_of_a_real_claude_code_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = sorted((CORPUS / "claude_code_log_real").glob("*/*.jsonl")) if CORPUS.is_dir() else []
    if not logs:
        pytest.skip(f"no Claude Code logs under {CORPUS}")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "tree", str(logs[0]))
    assert code == 0 and "*" in out
    code, out, _ = run(capsys, "context", str(logs[0]), "--model", "claude-sonnet-4-5")
    assert code == 0 and "tool results" in out


# --- resume and retry ------------------------------------------------------------------------


def test_resume_is_a_dry_run_until_save_and_reports_dropped_checkpoints(
    ws: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "checkpoint", "demo", "start", "--at", "u1")
    run(capsys, "checkpoint", "demo", "late", "--at", "r3")
    raw = ws.path_for("demo").read_bytes()
    code, out, _ = run(capsys, "resume", "demo", "--budget", "13")
    assert code == 0 and "dry run: nothing written" in out
    assert ws.path_for("demo").read_bytes() == raw
    # s (4) + a3 (4) + r3 (2) + a4 (3) = 13 tokens; r3 alone cannot lead (its call is a3).
    assert "keeps 4 of 10 messages, ~13 of 13 tokens" in out and "starts at a3" in out
    assert "checkpoint 'start' dropped: its message 'u1' was trimmed away" in out
    assert "checkpoint 'late' kept on r3" in out
    code, out, _ = run(capsys, "resume", "demo", "--budget", "13", "--save")
    assert code == 0 and "stored the trimmed conversation" in out
    conv = ws.load("demo")
    assert [m.id for m in conv.path()] == ["s", "a3", "r3", "a4"]
    assert [c.label for c in ws.load_checkpoints("demo")] == ["late"]  # kept, not moved
    code, out, _ = run(capsys, "resume", "demo", "--budget", "13")
    assert "nothing to trim" in out


def test_resume_over_budget_says_why(ws: Store, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "resume", "demo", "--budget", "0")
    assert code == 0 and "over budget" in out and "keeps 2 of 10" in out


def test_retry_moves_back_to_the_latest_prompt_or_says_there_is_none(
    ws: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "retry", "demo")
    assert code == 0 and "tip moved from a4 to u2" in out and "regenerates the reply" in out
    assert ws.load("demo").tip == "u2"
    ws.save(Conversation("sys-only", demo().messages[:1], "s"))
    code, out, _ = run(capsys, "retry", "sys-only")
    assert code == 1 and "nothing to retry" in out


def test_a_store_file_path_works_in_its_own_workspace(
    ws: Store, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = ws.path_for("demo")
    code, out, _ = run(
        capsys, "branch", str(path), "--to", "u1", "--workspace", str(tmp_path / "x")
    )
    assert code == 0 and "tip moved from a4 to u1" in out and ws.load("demo").tip == "u1"
    assert not (tmp_path / "x").exists()
