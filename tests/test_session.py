"""``snapshot.transcript.session``: the session commands' store transactions, without the CLI.

Each function is checked for what it returns, what it leaves in the store,
and what it announces; and each ``snapshot`` session command body is read
from the source to be one call into it (the CLI parses, resolves and prints).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from one_library_call import assert_one_library_call, module_level_library_imports

from snapshot.cli import session as cli_session
from snapshot.errors import TranscriptError
from snapshot.ladder.resume import resume
from snapshot.transcript.model import (
    Conversation,
    Message,
    TextBlock,
    ToolCall,
    ToolResult,
)
from snapshot.transcript.resolve import ConversationHandle
from snapshot.transcript.session import (
    TreeSummary,
    branch,
    checkpoint,
    fork,
    free_fork_id,
    list_checkpoints,
    open_handle,
    retry,
    rewind,
    tree_summary,
)
from snapshot.transcript.store import MAX_ID_LENGTH, Store
from snapshot.transcript.tree import Checkpoint


def demo(conv_id: str = "demo", tip: str = "a4") -> Conversation:
    """A system prompt, two turns with tool calls, and a second branch (u3) off a2."""
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
        Message("u3", "a2", "user", (TextBlock("show it"),)),
    ]
    return Conversation(conv_id, tuple(msgs), tip, format="fake")


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "ws")


def stored(store: Store, conv: Conversation | None = None) -> ConversationHandle:
    conv = conv or demo()
    store.save(conv)
    return ConversationHandle(conv, store, stored=True)


def from_file(store: Store, conv: Conversation, notes: list[str]) -> ConversationHandle:
    """The target of a file's conversation, as resolving ``log.fake.json`` gives it."""
    found = ConversationHandle(conv, store, stored=False, path=Path("log.fake.json"))
    return open_handle(found, writes=True, note=notes.append)


def import_note(store: Store, conv_id: str = "demo") -> str:
    return (
        f"imported log.fake.json (fake) and stored it as {conv_id} in "
        f"{store.path_for(conv_id, 'main')} so tree operations persist; "
        f"refer to it as {conv_id} from now on"
    )


# --- the command bodies are one library call --------------------------------------------

ONE_CALL = {
    "cmd_tree": "snapshot.transcript.session.tree_summary",
    "cmd_branch": "snapshot.transcript.session.branch",
    "cmd_fork": "snapshot.transcript.session.fork",
    "cmd_checkpoint": "snapshot.transcript.session.checkpoint",
    "_list_checkpoints": "snapshot.transcript.session.list_checkpoints",
    "cmd_rewind": "snapshot.transcript.session.rewind",
    "cmd_retry": "snapshot.transcript.session.retry",
    "cmd_resume": "snapshot.ladder.resume.resume",
    "cmd_context": "snapshot.ladder.context.context_use",
    "_resolve": "snapshot.transcript.session.open_handle",
}


@pytest.mark.parametrize("name", list(ONE_CALL))
def test_session_command_body_is_one_library_call(name: str) -> None:
    func = getattr(cli_session, name)
    assert_one_library_call(func, ONE_CALL[name])


def test_session_cli_module_imports_no_library_at_run_time() -> None:
    assert module_level_library_imports(cli_session) == []


# --- open_handle -------------------------------------------------------------------------


def test_open_handle_of_a_stored_conversation_is_that_conversation(store: Store) -> None:
    store.save(demo())
    notes: list[str] = []
    t = open_handle(ConversationHandle(store.load("demo"), store, stored=True), note=notes.append)
    assert (t.stored, t.source, t.name, t.conv.tip, notes) == (True, "", "demo/main", "a4", [])


def test_open_handle_maps_an_unsafe_id_and_then_finds_the_stored_copy(store: Store) -> None:
    notes: list[str] = []
    t = from_file(store, demo("../etc/passwd"), notes)
    renamed = "'../etc/passwd'/'main' is stored as etc_passwd-7fef78f534/main (safe file names)"
    assert t.conv.id == "etc_passwd-7fef78f534" and not t.stored and notes == [renamed]
    assert t.source == "log.fake.json" and not store.root.exists()  # opening writes nothing
    branch(t, "u3")
    notes.clear()
    again = from_file(store, demo("../etc/passwd"), notes)
    assert again.stored and again.conv.tip == "u3"  # the stored copy, not the file's tip
    assert notes == [
        renamed,
        f"using the stored copy of log.fake.json at {store.path_for(t.conv.id, 'main')} "
        "(refer to it as etc_passwd-7fef78f534)",
    ]


def test_open_handle_for_writing_refuses_a_workspace_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "ws").write_text("")
    found = ConversationHandle(demo(), Store(tmp_path / "ws"), stored=False, path=Path("x"))
    with pytest.raises(TranscriptError, match="is not a folder; pick another workspace"):
        open_handle(found, writes=True)
    assert open_handle(found).stored is False  # reading only: not checked


# --- tree_summary and list_checkpoints ------------------------------------------------------


def test_tree_summary_counts_branch_points_and_groups_labels(store: Store) -> None:
    t = stored(store)
    store.save_checkpoints("demo", "main", [Checkpoint("x", "a2"), Checkpoint("y", "a2")])
    assert tree_summary(t) == TreeSummary({"a2": ("x", "y")}, 1)
    # A file's conversation not stored yet has no labels, whatever the store holds.
    assert tree_summary(ConversationHandle(demo(), store, stored=False)) == TreeSummary({}, 1)


def test_list_checkpoints_keeps_live_ones_and_reports_stale_ones(store: Store) -> None:
    t = stored(store)
    store.save_checkpoints("demo", "main", [Checkpoint("x", "a2"), Checkpoint("old", "zz")])
    report = list_checkpoints(t)
    assert report.kept == (Checkpoint("x", "a2"),)
    assert [(d.checkpoint.label, d.reason) for d in report.dropped] == [
        ("old", "its message 'zz' is not in the conversation")
    ]
    assert store.load_checkpoints("demo") == (Checkpoint("x", "a2"), Checkpoint("old", "zz"))
    assert list_checkpoints(ConversationHandle(demo(), store, stored=False)).kept == ()


# --- branch -----------------------------------------------------------------------------------


def test_branch_moves_the_stored_tip_and_keeps_every_message(store: Store) -> None:
    notes: list[str] = []
    t = ConversationHandle(demo(), store, stored=True, note=notes.append)
    store.save(demo())
    done = branch(t, "u3")
    assert (done.before.tip, done.after.tip, done.imported, notes) == ("a4", "u3", False, [])
    assert store.load("demo").tip == "u3" and len(store.load("demo").messages) == 10


def test_branch_of_a_file_stores_it_once_and_announces_it(store: Store) -> None:
    notes: list[str] = []
    t = from_file(store, demo(), notes)
    done = branch(t, "u1")
    assert done.imported and notes == [import_note(store)]
    assert store.load("demo").tip == "u1"


def test_branch_under_the_lock_changes_a_copy_stored_concurrently(store: Store) -> None:
    notes: list[str] = []
    t = from_file(store, demo(), notes)  # opened while nothing is stored
    store.save(demo(tip="u3"))  # another command stores the same file first
    done = branch(t, "a2")
    assert (done.before.tip, done.imported, notes) == ("u3", False, [])


def test_branch_to_a_mid_turn_message_writes_nothing(store: Store) -> None:
    t = stored(store)
    with pytest.raises(TranscriptError, match="is mid-turn at 'a1'"):
        branch(t, "a1")
    assert store.load("demo").tip == "a4"


# --- fork -------------------------------------------------------------------------------------


def test_fork_stores_a_new_conversation_and_leaves_the_source(store: Store) -> None:
    t = stored(store)
    done = fork(t, at="a2")
    assert done.conversation.id == "demo-fork1" and done.at == "a2"
    assert done.path == store.path_for("demo-fork1", "main")
    assert len(store.load("demo-fork1").messages) == 5
    assert store.load("demo-fork1").meta["forked_from"]["at"] == "a2"
    assert store.load("demo") == demo() and fork(t).conversation.id == "demo-fork2"
    assert fork(t).at == "a4"


def test_fork_refuses_a_taken_or_bad_id_before_writing(store: Store) -> None:
    t = stored(store)
    store.save(demo("taken"))
    with pytest.raises(TranscriptError) as taken:
        fork(t, "taken")
    assert str(taken.value) == (
        f"conversation taken/main already exists in {store.root}; choose another --id"
    )
    with pytest.raises(TranscriptError, match="--id"):
        fork(t, "../x")
    with pytest.raises(TranscriptError, match="mid-turn"):
        fork(t, "new", at="a1")
    assert store.conversations() == ["demo", "taken"]


def test_free_fork_id_skips_taken_ids_and_stays_a_valid_length(store: Store) -> None:
    store.save(demo("c-fork1"))
    assert free_fork_id(store, "c") == "c-fork2"
    assert free_fork_id(store, "c", "other-agent") == "c-fork1"
    long = free_fork_id(store, "x" * MAX_ID_LENGTH)
    assert long == "x" * (MAX_ID_LENGTH - 12) + "-fork1"


# --- checkpoint and rewind ----------------------------------------------------------------------


def test_checkpoint_stores_the_label_and_drops_stale_ones(store: Store) -> None:
    t = stored(store)
    store.save_checkpoints("demo", "main", [Checkpoint("old", "gone"), Checkpoint("a", "a2")])
    done = checkpoint(t, "b", at="u3")
    assert done.checkpoint == Checkpoint("b", "u3") and not done.imported
    assert done.checkpoints == (Checkpoint("a", "a2"), Checkpoint("b", "u3"))
    assert [d.checkpoint.label for d in done.dropped] == ["old"]
    assert store.load_checkpoints("demo") == done.checkpoints


def test_checkpoint_of_a_file_stores_the_conversation_first(store: Store) -> None:
    notes: list[str] = []
    done = checkpoint(from_file(store, demo(), notes), "here")
    assert done.imported and notes == [import_note(store)]
    assert store.load("demo").tip == "a4"
    assert store.load_checkpoints("demo") == (Checkpoint("here", "a4"),)


def test_checkpoint_refusals_write_nothing(store: Store) -> None:
    notes: list[str] = []
    t = from_file(store, demo(), notes)
    with pytest.raises(TranscriptError, match="'a3' is mid-turn"):
        checkpoint(t, "x", at="a3")
    assert not store.exists("demo") and notes == []


def test_rewind_moves_back_and_records_what_was_explored(store: Store) -> None:
    t = stored(store)
    store.save_checkpoints("demo", "main", [Checkpoint("start", "a2")])
    done = rewind(t, "start")
    assert done.before.tip == "a4" and done.result.checkpoint == Checkpoint("start", "a2")
    assert done.result.abandoned == ("u2", "a3", "r3", "a4")
    after = store.load("demo")
    assert after.tip == "a2" and after.meta["rewinds"][-1]["extract"] == done.result.extract


def test_rewind_of_a_file_not_stored_has_no_checkpoint(store: Store) -> None:
    with pytest.raises(TranscriptError, match="no checkpoint labelled 'x'; checkpoints: none"):
        rewind(from_file(store, demo(), []), "x")
    assert not store.exists("demo")


# --- retry and resume ---------------------------------------------------------------------------


def test_retry_moves_to_the_latest_prompt(store: Store) -> None:
    done = retry(stored(store))
    assert (done.before.tip, done.point.message, done.after and done.after.tip) == (
        "a4",
        "u2",
        "u2",
    )
    assert store.load("demo").tip == "u2"


def test_retry_with_no_prompt_writes_nothing(store: Store) -> None:
    only_system = Conversation("sys", (Message("s", None, "system", (TextBlock("be"),)),), "s")
    store.save(only_system)
    before = store.path_for("sys").read_bytes()
    done = retry(ConversationHandle(only_system, store, stored=True))
    assert done.after is None and not done.point.ready and not done.imported
    assert (
        done.point.reason == "conversation 'sys' has no user prompt on its path: nothing to retry"
    )
    assert store.path_for("sys").read_bytes() == before


def test_resume_is_a_dry_run_unless_saved(store: Store) -> None:
    t = stored(store)
    store.save_checkpoints("demo", "main", [Checkpoint("early", "a2"), Checkpoint("late", "a4")])
    dry = resume(t, 16)  # s costs 4 (always kept), u2..a4 cost 12, a2 would add 2
    assert dry.path is None and dry.estimate == "chars/4, 1200 an image" and dry.trim.tokens == 16
    assert dry.first_kept == "u2" and dry.off_path == 1
    assert dry.trim.dropped == ("u1", "a1", "r1", "a2", "u3")
    assert len(store.load("demo").messages) == 10  # nothing written
    done = resume(t, 16, save=True)
    assert done.path == store.path_for("demo") and done.trim == dry.trim
    assert [m.id for m in store.load("demo").messages] == ["s", "u2", "a3", "r3", "a4"]
    assert store.load_checkpoints("demo") == (Checkpoint("late", "a4"),)


def test_resume_with_nothing_to_trim_writes_nothing_even_with_save(store: Store) -> None:
    notes: list[str] = []
    linear = Conversation("demo", demo().messages[:9], "a4", format="fake")  # no branch: u3 off
    done = resume(from_file(store, linear, notes), 10_000, save=True)
    assert done.trim.dropped == () and done.path is None and done.first_kept is None
    assert not done.imported and notes == [] and not store.exists("demo")
