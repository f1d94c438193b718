"""Messages kept on disk (issue 9, bounded memory): the spill, and the pipeline reading it lazily."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snapshot.errors import TranscriptError
from snapshot.transcript.encodable import encodable_conversation
from snapshot.transcript.importing import (
    OUT_FORMAT,
    OUT_VERSION,
    write_conversations,
)
from snapshot.transcript.model import (
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
    conversation_to_dict,
)
from snapshot.transcript.spill import SpilledMessages, message_texts


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


def _messages() -> list[Message]:
    return [
        Message("m1", None, "user", (TextBlock("hi \ud83d half an emoji"),), {"t": 1}),
        Message(
            "m2",
            "m1",
            "assistant",
            (ThinkingBlock("hm", "sig"), ToolCall("c1", "Bash", {"command": "ls", "n": 1.5})),
            {"usage": {"input_tokens": 3}},
        ),
        Message(
            "m3",
            "m2",
            "user",
            (ToolResult("c1", (TextBlock("a.txt"), ImageBlock("image/png", b"\x89PNG")), True),),
        ),
    ]


# --- the spill itself ----------------------------------------------------------------


def test_spilled_messages_read_back_equal_what_was_stored() -> None:
    msgs = _messages()
    s = SpilledMessages(msgs)
    assert len(s) == 3
    assert list(s) == msgs and s == msgs and s == tuple(msgs)
    assert s[-1] == msgs[2] and s[1:] == tuple(msgs[1:])
    assert s[0].blocks[0].text == "hi \ud83d half an emoji"  # a lone surrogate survives
    assert s[2].blocks[0].content[1].data == b"\x89PNG"  # type: ignore[union-attr]
    with pytest.raises(IndexError):
        s[3]
    assert [s.parent_id(i) for i in range(3)] == [None, "m1", "m2"]
    assert list(message_texts(s)) == list(message_texts(msgs))
    s.close()


def test_a_replaced_message_is_read_in_its_place() -> None:
    s = SpilledMessages(_messages())
    longer = Message("m2", "m1", "assistant", (TextBlock("x" * 5000),))
    s[1] = longer
    assert [m.id for m in s] == ["m1", "m2", "m3"]
    assert s[1] == longer and s[2].id == "m3"
    with pytest.raises(ValueError, match="is not 'm2'"):
        s[1] = Message("other", None, "user", ())


def test_a_conversation_on_disk_finds_messages_and_walks_its_path() -> None:
    msgs = [
        *_messages(),
        Message("b1", "m1", "assistant", (TextBlock("a branch"),)),
        # A parent that comes later in the sequence, and one that is not there.
        Message("late", "m9", "user", ()),
        Message("m9", None, "user", ()),
    ]
    s = SpilledMessages(msgs)
    spilled = Conversation(id="c", messages=s, tip="m3")
    held = Conversation(id="c", messages=tuple(msgs), tip="m3")
    assert spilled == held
    for tip in ("m3", "b1", "late"):
        assert spilled.path_ids(tip) == held.path_ids(tip)
        assert spilled.path(tip) == held.path(tip)
    assert "b1" in spilled.index and "nope" not in spilled.index
    assert spilled.get("b1") == msgs[3] and len(spilled.index) == len(msgs)
    with pytest.raises(TranscriptError, match="has no message 'nope'"):
        spilled.get("nope")
    with pytest.raises(TranscriptError, match="tip 'nope' is not a message"):
        Conversation(id="c", messages=s, tip="nope")
    orphan = SpilledMessages([Message("x", "gone", "user", ())])
    with pytest.raises(TranscriptError, match="has no message 'gone'"):
        Conversation(id="c", messages=orphan, tip="x").path()
    cycle = SpilledMessages([Message("p", "q", "user", ()), Message("q", "p", "user", ())])
    with pytest.raises(TranscriptError, match="parent cycle"):
        Conversation(id="c", messages=cycle, tip="q").path_ids()


def test_an_unencodable_spilled_conversation_is_cleaned_and_stays_on_disk() -> None:
    msgs = _messages()
    held = encodable_conversation(Conversation(id="c", messages=tuple(msgs), tip="m3"))
    spilled = encodable_conversation(Conversation(id="c", messages=SpilledMessages(msgs), tip="m3"))
    assert isinstance(spilled.messages, SpilledMessages)
    assert spilled == held and spilled.warnings == held.warnings
    assert held.warnings[-1].startswith("1 unencodable character(s)")
    assert spilled.messages[0].text() == "hi \ufffd half an emoji"


def test_the_saved_document_is_what_json_dump_writes(tmp_path: Path) -> None:
    """The document is written a message at a time; the bytes are one ``json.dump`` of it."""
    clean = _messages()[1:]
    convs = [
        Conversation(id="c1", messages=tuple(clean), tip="m3", meta={"é": [1, None]}),
        Conversation(id="c2", messages=(), tip=None, warnings=("w",)),
        Conversation(id="c3", messages=SpilledMessages(clean), tip="m2", agent="sub"),
    ]
    for subset in (convs, convs[1:2], []):
        target = tmp_path / "out.json"
        write_conversations(target, subset)
        doc = {
            "format": OUT_FORMAT,
            "version": OUT_VERSION,
            "conversations": [conversation_to_dict(c) for c in subset],
        }
        assert target.read_text(encoding="utf-8") == json.dumps(doc, ensure_ascii=False)
