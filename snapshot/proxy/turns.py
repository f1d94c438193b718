"""Persisting a turn at its boundary: the client's history plus the reply, into the store.

Called once a reply has completed (never while it streams), with the history
the client sent (not the compacted body: the store keeps every turn) and the
reply's items. The conversation is read by the package's importer for the
request's shape and stored under its conversation id and agent. A reply whose
tool calls await their results is stored as a message, the tip staying on the
last answered message (the store saves only at turn boundaries); the next
request, which carries the results, moves the tip past it.

Identity: the importer numbers a request's messages by position; before
storing, every message is renamed by its content (role, content, parent:
:func:`~snapshot.transcript.tree.keyed_by_content`), or by the producer's
tool-call ids where it carries them. So a history that diverges from the
stored one (an edited or rewound prompt, Claude Code's compaction turn, a
second session that opened alike) is a branch beside it, and a restarted
proxy recognizes every message it stored before: the store is extended
(:meth:`~snapshot.transcript.store.Store.extend`), never trimmed or
overwritten. Gemini's calls may come without ids; the next request carries
the CLI's own ids for them (on the call or its response), and since a Gemini
call counts by name and arguments, that request names the same stored
message and records it again with the ids linked: the export answers it.

Cost: one import of the request per turn (the planner imports each request
already); the messages the last turn of the conversation sent unchanged are
neither hashed nor written again, so the rest costs the turn.

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
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from snapshot.proxy.bodies import conversation_of
from snapshot.proxy.shapes import Shape
from snapshot.transcript.model import Conversation, Message
from snapshot.transcript.store import Store
from snapshot.transcript.tree import keyed_by_content, open_calls


class ContentKeys:
    """Request bodies read as conversations whose message ids are the store's.

    The planner reads each request through one (so the references its
    placeholders give, ``<message id>#<block>``, are ids ``snapshot show``
    finds in the store), the recorder each turn through another. Each
    remembers the last conversation it read per (conversation, agent), for the
    :func:`~snapshot.transcript.tree.keyed_by_content` reuse: a request costs
    its new messages. Thread-safe.

    >>> from snapshot.proxy.shapes import OPENAI_CHAT
    >>> keys = ContentKeys()
    >>> body = {"messages": [{"role": "user", "content": "hi"}]}
    >>> first = keys.of(OPENAI_CHAT, body, ("c", "main"))
    >>> body["messages"].append({"role": "assistant", "content": "hello"})
    >>> later = keys.of(OPENAI_CHAT, body, ("c", "main"))
    >>> later.messages[0] is first.messages[0], later.tip != first.tip
    (True, True)
    """

    #: Conversations whose last read is remembered.
    REMEMBERED = 32

    def __init__(self) -> None:
        # key → the last read's messages as imported and as keyed; newest last.
        self._last: OrderedDict[tuple[str, str], tuple[Sequence[Message], Sequence[Message]]]
        self._last = OrderedDict()
        self._lock = threading.Lock()

    def of(self, shape: Shape, body: dict[str, Any], key: tuple[str, str]) -> Conversation:
        """``body``'s conversation (id and agent from ``key``), its messages keyed by content."""
        read = replace(conversation_of(shape, body, key[0]), agent=key[1])
        with self._lock:
            previous = self._last.get(key)
        # Gemini's calls may carry no id until the client names them: they count by content.
        conv = keyed_by_content(read, call_ids=shape.name != "gemini", previous=previous)
        with self._lock:
            self._last[key] = (read.messages, conv.messages)
            self._last.move_to_end(key)
            while len(self._last) > self.REMEMBERED:
                self._last.popitem(last=False)
        return conv


class TurnRecorder:
    """Stores turns; one per proxy (thread-safe: the store locks each conversation)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.keys = ContentKeys()

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
        conv = self.keys.of(shape, whole, (conversation, agent))
        tip = conv.tip
        if open_calls(conv):
            # The reply's calls are answered by the next request: stored, not yet the tip.
            tip = next((m.id for m in reversed(conv.path()) if not open_calls(conv, m.id)), None)
        if tip is None:
            return  # nothing answered yet: the next request stores the turn whole
        self.store.extend(replace(conv, tip=tip))
