"""``snapshot import FOLDER`` names every file it left out, and why (issue 26 item 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snapshot.cli import main
from snapshot.transcript.importing import import_conversations


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "s.jsonl").write_text(
        json.dumps({"type": "session", "version": 3, "id": "s", "cwd": "/"})
        + "\n"
        + json.dumps(
            {
                "type": "message",
                "id": "m1",
                "parentId": None,
                "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            }
        )
        + "\n"
    )
    (tmp_path / "notes.txt").write_text("shopping list")
    (tmp_path / ".hidden.jsonl").write_text("{}\n")
    return tmp_path


def test_the_report_names_each_skipped_file_with_its_reason(tmp_path: Path) -> None:
    report = import_conversations(_folder(tmp_path))
    assert [c.id for c in report.conversations] == ["s"]
    skipped = {p.name: why for p, why in report.skipped}
    assert skipped["notes.txt"] == "not a transcript format snapshot reads"


def test_text_and_json_output_list_the_skipped_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    assert main(["import", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "skipped" in out and f"{folder / 'notes.txt'}: not a transcript" in out
    assert main(["import", str(folder), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    entry = next(s for s in data["skipped"] if s["path"].endswith("notes.txt"))
    assert entry["reason"] == "not a transcript format snapshot reads"


def test_a_forced_format_names_what_it_does_not_recognise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    assert main(["import", str(folder), "--format", "pi", "--json"]) == 0
    reasons = {
        Path(s["path"]).name: s["reason"] for s in json.loads(capsys.readouterr().out)["skipped"]
    }
    assert reasons["notes.txt"] == "--format pi does not recognise it"
    assert reasons[".hidden.jsonl"] == "a hidden file; not read"
