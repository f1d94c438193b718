"""The rewind digest reaches the model: every exporter sends it as a note after the rewind point."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from snapshot.transcript.export import TARGETS, export
from snapshot.transcript.formats import import_path
from snapshot.transcript.model import Conversation, TextBlock
from snapshot.transcript.tree import Checkpoint, rewind


def _demo() -> Conversation:
    with resources.as_file(
        resources.files("snapshot.demo").joinpath("transcripts", "demo-coding.json")
    ) as p:
        [conv] = import_path(Path(p))
    return conv


def _rewound() -> tuple[Conversation, str]:
    conv = _demo()
    path = conv.path()
    # The message just before the second user prompt ends a clean turn: the checkpoint.
    at = next(
        m.id
        for i, m in enumerate(path[:-3])
        if i > 1 and path[i + 1].role == "user" and not path[i + 1].tool_results()
    )
    done = rewind(conv, [Checkpoint("before-fix", at)], "before-fix")
    # Work continues after the rewind point: a new user turn.
    new = done.conversation
    from snapshot.transcript.model import Message

    nxt = Message("retry-1", at, "user", (TextBlock("try another way"),))
    return new.with_messages([*new.messages, nxt], tip="retry-1"), done.extract


@pytest.mark.parametrize("target", TARGETS)
def test_every_exporter_sends_the_rewind_digest(target: str) -> None:
    conv, extract = _rewound()
    assert extract
    body = export(conv, target).body
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    assert "rewound here (checkpoint 'before-fix')" in text
    assert json.dumps(extract, ensure_ascii=False)[1:-1][:60] in text or extract[:60] in text


def test_no_rewind_no_note() -> None:
    conv = _demo()
    for target in TARGETS:
        body = export(conv, target).body
        text = body if isinstance(body, str) else json.dumps(body)
        assert "rewound here" not in text
