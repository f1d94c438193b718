"""Compaction as a session operation: the compacted path stored as the new tip of a branch.

The compacted path is grafted onto the stored tree: messages it shares with
the source (same id, role, blocks and parent) are reused, and from the first
changed one on every message gets a fresh id derived from its content and its
new parent (a message has one parent). The source path stays in the store, one
``snapshot branch`` away, so every placeholder's reference still resolves and a
second ``compact`` runs on the stored result.

>>> import tempfile
>>> from snapshot.transcript.model import linear, TextBlock
>>> from snapshot.transcript.resolve import ConversationHandle
>>> from snapshot.transcript.store import Store
>>> store = Store(tempfile.mkdtemp())
>>> conv = linear("c1", [("m1", "user", [TextBlock("hi")]), ("m2", "assistant", [TextBlock("yo")])])
>>> shorter = linear("c1", [("m1", "user", [TextBlock("hi")]), ("m2", "assistant", [TextBlock("y")])])
>>> saved = save_compacted(ConversationHandle(conv, store, stored=False), shorter)
>>> saved.before_tip, saved.after.tip != "m2", len(store.load("c1").messages)
('m2', True, 3)
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from snapshot.ladder.serialize import serialize_message
from snapshot.transcript.model import Conversation, Message
from snapshot.transcript.resolve import ConversationHandle


@dataclass(frozen=True)
class SavedCompaction:
    """The stored conversation after the save, the tip before it, and what was added."""

    after: Conversation
    before_tip: str | None
    added: int
    imported: bool  # this call stored the target's file for the first time


def graft(conv: Conversation, path: Sequence[Message]) -> tuple[Conversation, int]:
    """``conv`` with ``path`` added as a branch (shared messages reused), tip at its end.

    Returns the new conversation and how many messages were added.
    """
    index = conv.index
    parent: str | None = None
    added: list[Message] = []
    for m in path:
        same = index.get(m.id)
        if same is not None and (same.parent, same.role, same.blocks) == (parent, m.role, m.blocks):
            parent = m.id
            continue
        digest = hashlib.sha256(
            f"{parent}\0{m.id}\0{m.role}\0{serialize_message(m)}".encode()
        ).hexdigest()[:10]
        new_id = f"{m.id}-c{digest}" if same is not None or m.id in index else m.id
        if new_id in index and index[new_id].parent == parent:
            parent = new_id  # saved before, by an identical compaction
            continue
        added.append(Message(new_id, parent, m.role, m.blocks, m.meta))
        parent = new_id
    return conv.with_messages([*conv.messages, *added], tip=parent), len(added)


def save_compacted(t: ConversationHandle, compacted: Conversation) -> SavedCompaction:
    """Store ``compacted``'s path as the new tip of ``t``'s conversation, under its lock."""
    with t.store.lock(t.conv.id, t.conv.agent):
        stored = t.stored or t.store.exists(t.conv.id, t.conv.agent)
        conv = t.store.load(t.conv.id, t.conv.agent) if stored else t.conv
        after, added = graft(conv, compacted.path())
        t.store.save(after)
    return SavedCompaction(after, conv.tip, added, imported=not stored)


def save_result(
    handle: ConversationHandle, compacted: Conversation, fits: bool, anyway: bool
) -> dict[str, object]:
    """``compact --save``: store ``compacted`` when it met its budget (or ``anyway``).

    Returns the record's ``saved`` entry: where it went, or ``{"stored": False,
    "reason": ...}`` for a result that missed its budget and was not stored; one
    stored anyway says ``"missed_budget": True``.
    """
    if not fits and not anyway:
        return {
            "stored": False,
            "reason": "the result missed its budget, so the stored tip was left as it was "
            "(pass --save-anyway to store it)",
        }
    done = save_compacted(handle, compacted)
    saved: dict[str, object] = {
        "stored": True,
        "conversation": done.after.id,
        "agent": done.after.agent,
        "tip": done.after.tip,
        "tip_before": done.before_tip,
        "messages_added": done.added,
        "imported": done.imported,
    }
    if not fits:
        saved["missed_budget"] = True
    return saved
