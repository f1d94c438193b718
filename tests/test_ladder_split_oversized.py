"""A single message larger than the tail is split across pages, not refused (issue 26 item 7).

On the real 950 k-character Aider reply of ../shared/corpus/formats-2026-12
(``opencoder.aider.chat.history.md``, conversation #3): before, the snapshot
rung found "no middle to image" (the reply is the last exchange, which stays
verbatim) and the compaction could only fail.
"""

from __future__ import annotations

import dataclasses

import pytest
from formats_batch2 import needs_batch2, sample2

from snapshot.ladder.cut import SPLIT_MIN_CHARS, find_cut, split_oversized
from snapshot.ladder.sheets import snapshot
from snapshot.ladder.target import target_for
from snapshot.transcript.formats import import_path
from snapshot.transcript.model import Conversation

pytestmark = needs_batch2


@pytest.fixture(scope="module")
def huge() -> Conversation:
    path = sample2("aider-md/opencoder.aider.chat.history.md")
    (conv,) = import_path(path, select={"id": "opencoder.aider.chat.history.md#3"})
    return conv


def test_the_sample_holds_one_950k_character_message(huge: Conversation) -> None:
    assert max(m.chars() for m in huge.path()) == 949_577


def test_the_huge_message_is_cut_into_parts_losing_nothing(huge: Conversation) -> None:
    original = huge.path()[-1]
    parts = split_oversized(huge.path(), tail_share=0.2)
    pieces = [m for m in parts if m.meta.get("split_from") == original.id]
    assert len(pieces) > 2 and all(m.chars() <= SPLIT_MIN_CHARS for m in pieces)
    assert "".join(m.text() for m in pieces) == original.text()
    assert pieces[-1].id == original.id and pieces[0].id == f"{original.id}~pages1"
    assert [m.parent for m in pieces[1:]] == [m.id for m in pieces[:-1]]
    _head, middle, tail = find_cut(parts, keep_turns=2, tail_share=0.2).split(parts)
    assert any(m in pieces for m in middle) and tail[-1].id == original.id


def test_the_snapshot_images_the_huge_message_instead_of_refusing(huge: Conversation) -> None:
    target = dataclasses.replace(target_for("claude-sonnet-4-5"), max_images=10)
    result = snapshot(huge, target)
    assert result.record.data.get("refused") is None, result.record.notes
    assert len(result.pages) == 10
    path = result.conversation.path()
    assert path[-1].id == huge.path()[-1].id  # the reply's last part stays verbatim
