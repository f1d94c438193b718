"""``snapshot import``: output shape, --select, --out, folders, and errors on one line."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from snapshot import cli
from snapshot.transcript.model import conversation_from_dict

REPO = Path(__file__).resolve().parents[1]
SESSION = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"


@pytest.fixture(autouse=True)
def _only_this_command(monkeypatch: pytest.MonkeyPatch) -> None:
    # Other command groups land independently; test ours alone so a broken
    # neighbour does not hide (or cause) a failure here.
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("snapshot.cli.transcripts",))
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def claude_session(folder: Path, name: str = SESSION) -> Path:
    base = {"sessionId": name, "isSidechain": False}
    records = [
        {
            **base,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "message": {"role": "user", "content": "hi"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "hello"},
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
                ],
            },
        },
        {
            **base,
            "type": "user",
            "uuid": "r1",
            "parentUuid": "a1",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}],
            },
        },
        {"type": "progress", "uuid": "p1", "parentUuid": "r1"},
    ]
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_json_summary_has_exactly_the_promised_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = claude_session(tmp_path)
    code, out, err = run(capsys, "import", str(path), "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert list(doc) == ["conversations"]
    [row] = doc["conversations"]
    required = {"id", "format", "messages", "tool_calls", "images", "chars", "warnings"}
    assert required <= set(row)
    assert row["id"] == SESSION and row["format"] == "claude-code-jsonl"
    assert (row["messages"], row["tool_calls"], row["images"]) == (3, 1, 0)
    assert row["chars"] == len("hi") + len("hello") + len('{"command": "ls"}') + len("x")
    assert isinstance(row["warnings"], list)
    assert any("progress (UI only): 1" in w for w in row["warnings"])


def test_table_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "import", str(claude_session(tmp_path)))
    assert code == 0
    header, row = out.splitlines()[:2]
    assert header.split()[:3] == ["conversation", "agent", "format"]
    assert row.split()[:5] == [SESSION, "main", "claude-code-jsonl", "3", "1"]


def test_out_writes_conversations_that_load_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out.json"
    code, _, err = run(capsys, "import", str(claude_session(tmp_path)), "--out", str(target))
    assert code == 0, err
    doc = json.loads(target.read_text(encoding="utf-8"))
    assert doc["format"] == "snapshot-conversations" and doc["version"] == 1
    [conv] = [conversation_from_dict(d) for d in doc["conversations"]]
    assert conv.id == SESSION and [m.id for m in conv.path()] == ["u1", "a1", "r1"]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's private 0600


def test_out_into_a_missing_folder_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "nope" / "out.json"
    code, _, err = run(capsys, "import", str(claude_session(tmp_path)), "--out", str(target))
    assert code == 2
    assert err.count("\n") == 1 and "does not exist" in err


def test_select_picks_and_reports_no_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = claude_session(tmp_path)
    code, out, _ = run(capsys, "import", str(path), "--select", "agent=main", "--json")
    assert code == 0 and len(json.loads(out)["conversations"]) == 1
    code, _, err = run(capsys, "import", str(path), "--select", "agent=ghost")
    assert code == 2 and "no conversation matches --select agent=ghost" in err
    code, _, err = run(capsys, "import", str(path), "--select", "novalue")
    assert code == 2 and "KEY=VALUE" in err


def test_folder_of_logs_imports_every_recognised_file_and_reports_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claude_session(tmp_path)
    sub = tmp_path / SESSION / "subagents"
    sub.mkdir(parents=True)
    claude_session(sub, "agent-x1")
    (tmp_path / "notes.txt").write_text("not a log", encoding="utf-8")
    broken = tmp_path / "broken.traj"
    broken.write_text('{"history": [', encoding="utf-8")
    code, out, err = run(capsys, "import", str(tmp_path), "--json")
    doc = json.loads(out)
    rows = doc["conversations"]
    assert sorted(r["agent"] for r in rows) == ["main", "x1"]
    assert code == 1  # something failed, the rest still imported
    assert len(doc["errors"]) == 1 and "broken.traj:1: malformed JSON" in doc["errors"][0]
    assert "broken.traj" in err


def test_folder_with_nothing_importable_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.txt").write_text("hello", encoding="utf-8")
    code, out, err = run(capsys, "import", str(tmp_path))
    assert code == 2 and out == ""
    assert "no importable conversations" in err


def test_unrecognised_missing_and_unknown_format_fail_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = tmp_path / "odd.bin"
    odd.write_bytes(b"\x00\x01binary")
    for argv, needle in (
        (["import", str(odd)], "not a format snapshot recognises"),
        (["import", str(tmp_path / "missing.jsonl")], "no such file or folder"),
        (["import", str(odd), "--format", "nope"], "unknown format 'nope'"),
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == ""
        assert err.startswith("snapshot: error:") and err.count("\n") == 1, err
        assert needle in err
        assert "Traceback" not in err


def test_forcing_a_format_on_the_wrong_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = claude_session(tmp_path)
    code, _, err = run(capsys, "import", str(path), "--format", "codex-exec-jsonl")
    assert code == 2 and "no Codex exec events" in err


def _corpus() -> Path | None:
    env = os.environ.get("SNAPSHOT_CORPUS")
    candidate = Path(env) if env else REPO.parent / "shared" / "corpus"
    return candidate if (candidate / "benchmark.manifest.json").is_file() else None


@pytest.mark.skipif(_corpus() is None, reason="benchmark corpus not found (SNAPSHOT_CORPUS)")
def test_corpus_session_summary_matches_the_manifest(capsys: pytest.CaptureFixture[str]) -> None:
    corpus = _corpus()
    assert corpus is not None
    entry = next(e for e in _manifest(corpus) if e["dataset"] == "claude_code_spotter")
    code, out, _ = run(capsys, "import", str(corpus / entry["path"]), "--json")
    assert code == 0
    [row] = json.loads(out)["conversations"]
    assert row["tool_calls"] == entry["tool_calls"]
    assert row["compact_boundaries"] == entry["compact_boundaries"]
    assert row["path_messages"] == row["messages"]


@pytest.mark.skipif(_corpus() is None, reason="benchmark corpus not found (SNAPSHOT_CORPUS)")
def test_corpus_file_with_many_conversations_imports_all_unless_selected(
    capsys: pytest.CaptureFixture[str],
) -> None:
    corpus = _corpus()
    assert corpus is not None
    entry = next(e for e in _manifest(corpus) if e.get("select") and "trial" in e["select"])
    path = str(corpus / entry["path"])
    code, out, err = run(capsys, "import", path, "--json")
    if code == 2 and "not a format snapshot recognises" in err:
        pytest.skip(f"no registered format reads {entry['path']} yet")
    assert code == 0, err
    assert len(json.loads(out)["conversations"]) > 1
    picks = [f"--select={k}={v}" for k, v in entry["select"].items()]
    code, out, err = run(capsys, "import", path, *picks, "--json")
    assert code == 0, err
    [row] = json.loads(out)["conversations"]
    assert row["messages"] == entry["messages"]


def _manifest(corpus: Path) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(
        (corpus / "benchmark.manifest.json").read_text(encoding="utf-8")
    )
    return data
