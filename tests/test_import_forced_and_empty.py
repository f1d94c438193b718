"""A forced format that reads none of a file's tool calls is an error, and an empty
file says "empty" (issue 26 items 8 and 9)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from formats_batch2 import needs_batch2, sample2

from snapshot.cli import main
from snapshot.errors import TranscriptError
from snapshot.transcript.formats import WrongFormatError, emptiness, import_path
from snapshot.transcript.importing import import_conversations


@needs_batch2
def test_forcing_anthropic_on_an_openai_log_that_has_calls_is_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = sample2("openai-chat/oh-sdk-gpt4omini-87a0.json")
    (right,) = import_path(path)
    calls = sum(len(m.tool_calls()) for m in right.messages)
    assert calls == 3
    with pytest.raises(WrongFormatError, match=f"read none of the {calls} tool calls"):
        import_path(path, format="anthropic-messages")
    assert main(["import", str(path), "--format", "anthropic-messages"]) == 2
    err = capsys.readouterr().err
    assert "--format openai-chat" in err and err.count("\n") == 1


def test_a_forced_format_on_a_log_without_structured_calls_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(
        json.dumps(
            [
                {"role": "user", "content": "hello there, how are you doing today?"},
                {"role": "assistant", "content": "fine, thanks for asking about it"},
            ]
        )
    )
    (conv,) = import_path(path, format="anthropic-messages")
    assert len(conv.messages) == 2


@pytest.mark.parametrize(
    ("content", "said"), [(b"", "empty (0 bytes)"), (b"\n  \n", "empty (only whitespace)")]
)
def test_an_empty_file_says_empty(
    content: bytes, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(content)
    for fmt in (None, "claude-code-jsonl", "gemini-cli-chat"):
        with pytest.raises(TranscriptError, match=re.escape(f"the file is {said}")):
            import_path(path, format=fmt)
    assert main(["import", str(path)]) == 2
    assert f"the file is {said}" in capsys.readouterr().err
    assert emptiness(path, content) == f"the file is {said}"


def test_an_empty_file_in_a_folder_is_skipped_as_empty(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_bytes(b"")
    with pytest.raises(TranscriptError, match=r"a\.jsonl: not a transcript .*empty \(0 bytes\)"):
        import_conversations(tmp_path)
