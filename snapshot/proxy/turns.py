"""Persisting a turn at its boundary: the client's history plus the reply, into the store.

Called once a reply has completed (never while it streams), with the history
the client sent (not the compacted body: the store keeps every turn) and the
reply's items. The conversation is read by the package's importer for the
request's shape and stored under its conversation id and agent. A reply whose
tool calls await their results is stored as a message, the tip staying on the
last answered message (the store saves only at turn boundaries); the next
request, which carries the results, moves the tip past it.

>>> import tempfile
>>> from snapshot.transcript.store import Store
>>> from snapshot.proxy.shapes import OPENAI_CHAT
>>> with tempfile.TemporaryDirectory() as d:
...     store = Store(d)
...     body = {"model": "gpt-5.5", "messages": [{"role": "user", "content": "hi"}]}
...     _ = record_turn(store, OPENAI_CHAT, body, [{"role": "assistant", "content": "hello"}],
...                     conversation="c1", agent="main")
...     [m.text() for m in store.load("c1").path()]
['hi', 'hello']
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from snapshot.proxy.bodies import conversation_of
from snapshot.proxy.shapes import Shape
from snapshot.transcript.store import Store
from snapshot.transcript.tree import open_calls


def record_turn(
    store: Store,
    shape: Shape,
    body: dict[str, Any],
    reply: list[Any],
    *,
    conversation: str,
    agent: str,
) -> Path:
    """Store the client's history and the reply as conversation ``conversation`` / ``agent``."""
    history = shape.history(body) or []
    whole = {**body, shape.history_key: [*history, *reply]}
    conv = replace(conversation_of(shape, whole, conversation), agent=agent)
    if open_calls(conv):
        # The reply's calls are answered by the next request: stored, but not yet the tip.
        path = conv.path()
        answered = next(
            (m.id for m in reversed(path) if not open_calls(conv, m.id)),
            None,
        )
        conv = replace(conv, tip=answered)
    return store.save(conv)
