"""Persisting a turn at its boundary: the client's history plus the reply, into the store.

Called once a reply has completed (never while it streams), with the history
the client sent (not the compacted body: the store keeps every turn) and the
reply's items. The conversation is read by the package's importer for the
request's shape and stored under its conversation id and agent. A reply whose
tool calls await their results is stored as a message, the tip staying on the
last answered message (the store saves only at turn boundaries); the next
request, which carries the results, moves the tip past it.

Cost: :class:`TurnRecorder` remembers which message ids each conversation's log
holds, so a turn is one :meth:`Store.append` of the new messages (O(turn)); the
first turn of a conversation this process has not seen goes through
:meth:`Store.save`, which appends only what differs from the log.

>>> import tempfile
>>> from snapshot.transcript.store import Store
>>> from snapshot.proxy.shapes import OPENAI_CHAT
>>> with tempfile.TemporaryDirectory() as d:
...     store = Store(d)
...     turns = TurnRecorder(store)
...     body = {"model": "gpt-5.5", "messages": [{"role": "user", "content": "hi"}]}
...     turns.record(OPENAI_CHAT, body, [{"role": "assistant", "content": "hello"}],
...                  conversation="c1", agent="main")
...     body["messages"] += [{"role": "assistant", "content": "hello"},
...                          {"role": "user", "content": "more"}]
...     turns.record(OPENAI_CHAT, body, [{"role": "assistant", "content": "sure"}],
...                  conversation="c1", agent="main")
...     [m.text() for m in store.load("c1").path()]
['hi', 'hello', 'more', 'sure']
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.proxy.bodies import conversation_of
from snapshot.proxy.shapes import Shape
from snapshot.transcript.store import Store
from snapshot.transcript.tree import open_calls


class TurnRecorder:
    """Stores turns; one per proxy (thread-safe: the store locks each conversation)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._known: dict[tuple[str, str], set[str]] = {}
        self._lock = threading.Lock()

    def record(
        self,
        shape: Shape,
        body: dict[str, Any],
        reply: list[Any],
        *,
        conversation: str,
        agent: str,
    ) -> None:
        """Store the client's history and the reply as ``conversation`` / ``agent``."""
        history = shape.history(body) or []
        whole = {**body, shape.history_key: [*history, *reply]}
        conv = replace(conversation_of(shape, whole, conversation), agent=agent)
        tip = conv.tip
        if open_calls(conv):
            # The reply's calls are answered by the next request: stored, not yet the tip.
            tip = next((m.id for m in reversed(conv.path()) if not open_calls(conv, m.id)), None)
        key = (conversation, agent)
        with self._lock:
            known = self._known.get(key)
        ids = {m.id for m in conv.messages}
        if known is not None:
            new = [m for m in conv.messages if m.id not in known]
            try:
                self.store.append(conversation, new, agent=agent, tip=tip)
            except TranscriptError:
                known = None  # the log holds something else: let save work out the difference
        if known is None:
            self.store.save(replace(conv, tip=tip))
        with self._lock:
            self._known[key] = (known or set()) | ids
