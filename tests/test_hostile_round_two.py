"""Issue 28 item 5: the small hostile-input findings, each fixed and held by a test."""

from __future__ import annotations

import errno
import json
import multiprocessing
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from snapshot.cli import main
from snapshot.errors import TranscriptError
from snapshot.transcript import session
from snapshot.transcript.export import export
from snapshot.transcript.model import Conversation, ImageBlock, TextBlock, linear
from snapshot.transcript.resolve import ConversationHandle
from snapshot.transcript.session import fork
from snapshot.transcript.store import Store


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


def _demo(name: str) -> Path:
    with resources.as_file(resources.files("snapshot.demo").joinpath("transcripts", name)) as p:
        return Path(p)


def _chat(conv_id: str = "c1") -> Conversation:
    return linear(
        conv_id, [("u1", "user", [TextBlock("hi")]), ("a1", "assistant", [TextBlock("yo")])]
    )


# --- fork without --id -------------------------------------------------------------


def test_fork_without_id_takes_the_next_free_id_when_another_fork_took_it_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path)
    conv = _chat()
    store.save(conv)
    looked = session.free_fork_id

    def raced(st: Store, base: str, agent: str = "main") -> str:
        new_id = looked(st, base, agent)
        if new_id == "c1-fork1":  # another command forks between our look and our lock
            st.save(_chat("c1-fork1"))
        return new_id

    monkeypatch.setattr(session, "free_fork_id", raced)
    done = fork(ConversationHandle(conv, store, stored=True))
    assert done.conversation.id == "c1-fork2"
    assert store.conversations() == ["c1", "c1-fork1", "c1-fork2"]


def _fork_in_a_process(root: str) -> str:
    store = Store(root)
    return fork(ConversationHandle(store.load("c1"), store, stored=True)).conversation.id


def test_concurrent_forks_without_id_all_succeed_with_distinct_ids(tmp_path: Path) -> None:
    Store(tmp_path).save(_chat())
    with multiprocessing.get_context("fork").Pool(4) as pool:
        ids = pool.map(_fork_in_a_process, [str(tmp_path)] * 8)
    assert sorted(ids) == sorted(f"c1-fork{k}" for k in range(1, 9))


def test_fork_with_a_taken_id_is_still_refused(tmp_path: Path) -> None:
    store = Store(tmp_path)
    conv = _chat()
    store.save(conv)
    store.save(_chat("mine"))
    with pytest.raises(TranscriptError, match="choose another --id"):
        fork(ConversationHandle(conv, store, stored=True), "mine")


# --- compact on a full disk ------------------------------------------------------------


def _many_pages(folder: Path) -> list[str]:
    """Options under which compact draws several pages of the demo: elide alone reaches
    most budgets, so a profile with a small page (8x16 cells, 400x300 px) is used."""
    profile = folder / "small-page.toml"
    profile.write_text(
        'model = "claude-sonnet-4-6"\nfont = "snap8x16"\npage = [400, 300]\n', encoding="utf-8"
    )
    return ["--model", "claude-sonnet-4-6", "--profile", str(profile), "--budget", "2200"]


@pytest.mark.parametrize("failing", ["page-002.png", "request.json", "record.json"])
def test_compact_on_a_full_disk_leaves_no_pages(
    failing: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    real_bytes, real_text = Path.write_bytes, Path.write_text

    def full(path: Path) -> None:
        if path.name == failing:
            path.open("wb").close()  # the file was created, then the disk filled
            raise OSError(errno.ENOSPC, "No space left on device")

    def write_bytes(self: Path, data: bytes) -> int:
        full(self)
        return real_bytes(self, data)

    def write_text(self: Path, data: str, *args: Any, **kwargs: Any) -> int:
        full(self)
        return real_text(self, data, *args, **kwargs)

    monkeypatch.setattr(Path, "write_bytes", write_bytes)
    monkeypatch.setattr(Path, "write_text", write_text)
    out = tmp_path / "out"
    args = [*_many_pages(tmp_path), "--out", str(out)]
    code = main(["compact", str(_demo("demo-coding.json")), *args, "--summarizer", "none"])
    err = capsys.readouterr().err
    assert code == 2
    assert "No space left on device" in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1
    assert sorted(p.name for p in out.iterdir()) == []


def test_compact_with_room_writes_pages_request_and_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The control for the full-disk test: the same run writes at least two pages."""
    out = tmp_path / "out"
    args = [*_many_pages(tmp_path), "--out", str(out)]
    main(["compact", str(_demo("demo-coding.json")), *args, "--summarizer", "none"])
    names = {p.name for p in out.iterdir()}
    assert {"page-001.png", "page-002.png", "request.json", "record.json"} <= names


# --- export --to markdown on a terminal ---------------------------------------------


def test_markdown_export_prints_terminal_escapes_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "title\x1b]0;pwned\x07 clear\x1b[2J bell\x07 \u202eevil"
    conv = linear("c1", [("u1", "user", [TextBlock(text)])])
    stored = Store(tmp_path).save(conv)
    assert main(["export", str(stored), "--to", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "\\x1b]0;pwned\\x07 clear\\x1b[2J" in out  # shown, not obeyed, not lost
    assert "\n## user" in out  # the Markdown's own lines stay lines


# --- a refused image's local path ------------------------------------------------------


def test_a_refused_images_absolute_path_is_not_written_into_the_request(tmp_path: Path) -> None:
    secret_folder = tmp_path / "home" / "me" / "private-folder"
    secret_folder.mkdir(parents=True)
    (secret_folder / "shot.png").write_bytes(b"not really a png")
    img = ImageBlock("image/png", path=str(secret_folder / "shot.png"))
    conv = linear("c1", [("u1", "user", [TextBlock("look"), img])])
    for target in ("anthropic", "openai", "openai-responses", "gemini"):
        body = json.dumps(export(conv, target).body)
        assert "private-folder" not in body and str(tmp_path) not in body, target
        assert "[image shot.png not included" in body, target


# --- checkpoints with a schema_version that is not a number -----------------------------


def _one_document_store(root: Path) -> Store:
    """A store whose conversation c1 is kept as before the log: ``main.json`` (its labels beside)."""
    from snapshot.transcript.model import conversation_to_dict

    store = Store(root)
    store.document_path("c1").parent.mkdir(parents=True)
    doc = {"schema_version": 1, "conversation": conversation_to_dict(_chat())}
    store.document_path("c1").write_text(json.dumps(doc))
    return store


@pytest.mark.parametrize("version", [True, 1.0, "1", None])
def test_a_checkpoints_file_whose_schema_version_is_not_an_integer_is_refused(
    version: object, tmp_path: Path
) -> None:
    store = _one_document_store(tmp_path)
    path = store.checkpoints_path("c1")
    path.write_text(json.dumps({"schema_version": version, "checkpoints": []}))
    with pytest.raises(TranscriptError, match="corrupted checkpoints file"):
        store.load_checkpoints("c1")


def test_a_checkpoints_file_of_the_current_version_is_read(tmp_path: Path) -> None:
    store = _one_document_store(tmp_path)
    path = store.checkpoints_path("c1")
    path.write_text(json.dumps({"schema_version": 1, "checkpoints": []}))
    assert store.load_checkpoints("c1") == ()


@pytest.mark.parametrize("version", [True, 2.0, "2"])
def test_a_store_log_record_whose_version_is_not_an_integer_is_refused(
    version: object, tmp_path: Path
) -> None:
    store = Store(tmp_path)
    path = store.save(_chat())
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    first["snapshot_store"] = version
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    with pytest.raises(TranscriptError, match="corrupted"):
        Store(tmp_path).load("c1")
