"""Cursor "Export chat" Markdown importer, on the real export in ../shared/corpus/formats."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from format_samples import SKIP, assert_exports, imported, load_as, sample

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import cursor_md

FMT = cursor_md.NAME


@SKIP
def test_export_turns_match_the_manifest() -> None:
    path, expected = sample("cursor-md/gemini-cli-cursor_understanding_the_codebase_archi.md")
    (conv,) = imported(path, FMT)
    roles = Counter(m.role for m in conv.path())
    assert (roles["user"], roles["assistant"]) == (
        expected["user_turns"],
        expected["assistant_turns"],
    )
    assert sum(len(m.tool_calls()) for m in conv.path()) == expected["tool_calls"]
    assert conv.meta["cursor_version"] == "1.3.9"
    assert conv.meta["title"] == "Understanding the codebase architecture"
    assert not any(m.text().endswith("---") for m in conv.path())
    assert any("leave tool calls out" in w for w in conv.warnings)
    assert_exports(conv)


def test_role_lines_in_code_stay_text(tmp_path: Path) -> None:
    path = tmp_path / "cursor_x.md"
    path.write_text(
        "# x\n_Exported on 1/1/2025 at 10:00:00 UTC from Cursor (1.3.9)_\n\n---\n\n**User**\n\nhi\n\n"
        "---\n\n**Cursor**\n\n```md\n**User**\n```\n\n---\n",
        encoding="utf-8",
    )
    (conv,) = load_as(path, FMT)
    assert [m.role for m in conv.path()] == ["user", "assistant"]
    assert "**User**" in conv.path()[1].text()


def test_markdown_without_turns_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.md"
    path.write_text("# notes\n", encoding="utf-8")
    assert cursor_md.score(path, path.read_bytes()) == 0.0
    with pytest.raises(TranscriptError, match="no \\*\\*User\\*\\*"):
        load_as(path, FMT)
