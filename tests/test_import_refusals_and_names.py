"""Files that used to import as something they are not (issue 26 items 4 and 6).

- A Qwen Code chat recording shares Claude Code's ``uuid``/``parentUuid`` links
  but carries Gemini ``parts``: it is refused by name, never imported as an
  empty Claude Code session with exit 0. No real Qwen Code recording with a
  licence was found, so the records here are written from the ``ChatRecord``
  type of QwenLM/qwen-code (packages/core/src/services/chatRecordingService.ts).
- A Gemini CLI recording saved as ``.jsonl`` by a session recorder (one JSON
  document, pretty-printed) imports as it does under its own name.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from formats_batch2 import needs_batch2, sample2

from snapshot.cli import main
from snapshot.transcript.formats import AmbiguousFormatError, WrongFormatError, import_path
from snapshot.transcript.importing import import_conversations

QWEN_RECORDS = [
    {
        "uuid": "a",
        "parentUuid": None,
        "sessionId": "s",
        "timestamp": "2026-01-01T00:00:00Z",
        "type": "user",
        "cwd": "/p",
        "version": "0.5.0",
        "message": {"role": "user", "parts": [{"text": "list files"}]},
    },
    {
        "uuid": "b",
        "parentUuid": "a",
        "sessionId": "s",
        "timestamp": "2026-01-01T00:00:01Z",
        "type": "assistant",
        "cwd": "/p",
        "version": "0.5.0",
        "message": {
            "role": "model",
            "parts": [{"functionCall": {"id": "c1", "name": "ls", "args": {"path": "."}}}],
        },
    },
    {
        "uuid": "c",
        "parentUuid": "b",
        "sessionId": "s",
        "timestamp": "2026-01-01T00:00:02Z",
        "type": "tool_result",
        "cwd": "/p",
        "version": "0.5.0",
        "message": {
            "role": "user",
            "parts": [{"functionResponse": {"id": "c1", "name": "ls", "response": {"o": "x"}}}],
        },
    },
]


def _qwen(tmp_path: Path) -> Path:
    path = tmp_path / "chats" / "s.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in QWEN_RECORDS))
    return path


def test_a_qwen_code_recording_is_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _qwen(tmp_path)
    with pytest.raises(AmbiguousFormatError, match="Qwen Code"):
        import_path(path)
    with pytest.raises(WrongFormatError, match="Qwen Code"):
        import_path(path, format="claude-code-jsonl")
    assert main(["import", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Qwen Code" in err and err.count("\n") == 1


def test_a_qwen_code_recording_in_a_folder_is_named_as_skipped(tmp_path: Path) -> None:
    path = _qwen(tmp_path)
    (tmp_path / "pi.jsonl").write_text(
        json.dumps({"type": "session", "version": 3, "id": "p", "cwd": "/"})
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
    report = import_conversations(tmp_path)
    assert [c.id for c in report.conversations] == ["p"]
    assert [(p, "Qwen Code" in why) for p, why in report.skipped] == [(path, True)]


@needs_batch2
@pytest.mark.parametrize(
    "name", ["entire-ab2b97-gemini.json", "entire-9c5378-gemini.json", "entire-12cbfe-gemini.json"]
)
def test_a_gemini_cli_recording_saved_as_jsonl_imports_as_under_its_own_name(
    name: str, tmp_path: Path
) -> None:
    original = sample2(f"gemini-cli/{name}")
    renamed = tmp_path / "full.jsonl"  # as the Entire session recorder stores it
    shutil.copyfile(original, renamed)
    (want,) = import_path(original)
    (got,) = import_path(renamed)
    assert got.format == "gemini-cli-chat"
    assert [m.text() for m in got.path()] == [m.text() for m in want.path()]
    assert sum(len(m.tool_calls()) for m in got.path()) == sum(
        len(m.tool_calls()) for m in want.path()
    )
