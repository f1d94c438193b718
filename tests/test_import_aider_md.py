"""Aider chat-history importer, on the real histories in ../shared/corpus/formats."""

from __future__ import annotations

from pathlib import Path

import pytest
from format_samples import SKIP, assert_exports, imported, load_as, near, sample, samples

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import aider_md, import_path
from snapshot.transcript.model import ThinkingBlock

FMT = aider_md.NAME


def _user_messages(convs: list) -> list:  # type: ignore[type-arg]
    return [
        m for c in convs for m in c.path() if m.role == "user" and not m.meta.get("aider_output")
    ]


@SKIP
@pytest.mark.parametrize("entry", samples("aider-md"))
def test_history_counts_match_the_manifest(entry: str) -> None:
    path, expected = sample(entry)
    convs = imported(path, FMT)
    users = _user_messages(convs)
    if "user_messages" in expected:
        assert near(len(users), expected["user_messages"])
    lines = sum(len(m.text().split("\n")) for m in users)
    assert near(lines, expected["user_lines"])
    assert convs[0].meta["sessions_in_file"] == expected["sessions"]
    if len(convs) < expected["sessions"]:
        assert any("sessions skipped" in w for w in convs[0].warnings)
    if "aider_versions" in expected:
        assert {c.meta.get("aider_version") for c in convs} <= set(expected["aider_versions"])
    if expected.get("assistant_messages") == 0:
        assert not any(m.role == "assistant" for c in convs for m in c.path())
    for conv in convs:
        assert_exports(conv)


@SKIP
def test_reasoning_tags_become_thinking_and_output_is_kept_marked() -> None:
    convs = imported(sample("aider-md/mozgoslav.aider.chat.history.md")[0], FMT)
    thinking = [
        b for c in convs for m in c.path() for b in m.blocks if isinstance(b, ThinkingBlock)
    ]
    assert thinking and all("thinking-content" not in b.text for b in thinking)
    replies = [m for c in convs for m in c.path() if m.role == "assistant"]
    assert all("<thinking-content" not in m.text() for m in replies)
    outputs = [m for c in convs for m in c.path() if m.meta.get("aider_output")]
    assert any("Tokens:" in m.text() for m in outputs)


@SKIP
def test_sessions_are_selectable() -> None:
    path, _ = sample("aider-md/afi-core.aider.chat.history.md")
    (conv,) = import_path(path, select={"session": "2"})
    assert conv.id.endswith("#2") and conv.meta["edit_format"] == "diff"


def test_quoted_lines_inside_a_reply_fence_stay_in_the_reply(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "\n# aider chat started at 2025-01-01 10:00:00\n\n> Aider v0.86.2  \n\n"
        "#### fix it  \n#### please  \n\nHere:\n\n```\n> not aider output\n```\n\n"
        "> Applied edit to a.py  \n",
        encoding="utf-8",
    )
    (conv,) = load_as(path, FMT)
    banner, user, reply, applied = conv.path()
    assert banner.meta["aider_output"] and conv.meta["aider_version"] == "0.86.2"
    assert user.text() == "fix it\nplease"
    assert "> not aider output" in reply.text()
    assert applied.text() == "Applied edit to a.py"


def test_markdown_without_a_session_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\n#### a heading\n", encoding="utf-8")
    assert aider_md.score(path, path.read_bytes()) == 0.0
    with pytest.raises(TranscriptError, match="no Aider chat"):
        load_as(path, FMT)
