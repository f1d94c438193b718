"""The rewind digest, sent: a note after each rewind point on the exported path.

``snapshot rewind`` keeps an extract of the abandoned path in
``meta["rewinds"]``; without this the model never sees it and may try the same
thing again. Every exporter plans from :func:`with_rewind_notes`, which puts one
user note right after each rewind point still on the path (a rewind point ends
a clean turn, so no call is parted from its result).

>>> from snapshot.transcript.model import linear, TextBlock
>>> conv = linear("c", [("u1", "user", [TextBlock("try A")]), ("a1", "assistant", [TextBlock("ok")]),
...                     ("u2", "user", [TextBlock("try B")])])
>>> from dataclasses import replace
>>> conv = replace(conv, meta={"rewinds": [{"label": "start", "to": "a1", "abandoned": 4,
...                                         "extract": "explored tools: bash×3 (1 failed)"}]})
>>> [m.id for m in with_rewind_notes(conv).path()]
['u1', 'a1', 'rewind-1-a1', 'u2']
>>> with_rewind_notes(conv).path()[2].text()[:60]
"[note: the conversation was rewound here (checkpoint 'start'"
"""

from __future__ import annotations

from typing import Any

from snapshot.transcript.model import Conversation, Message, TextBlock

REWIND_NOTE_KIND = "rewind_note"


def rewind_note(entry: dict[str, Any], number: int) -> Message:
    """The note a model reads after rewind point ``entry["to"]``."""
    text = (
        f"[note: the conversation was rewound here (checkpoint {entry.get('label')!r}); "
        f"{entry.get('abandoned', 0)} messages after this point were tried and abandoned: "
        f"{entry.get('extract', '')}]"
    )
    return Message(
        id=f"rewind-{number}-{entry['to']}",
        parent=None,
        role="user",
        blocks=(TextBlock(text),),
        meta={"kind": REWIND_NOTE_KIND},
    )


def with_rewind_notes(conv: Conversation) -> Conversation:
    """``conv`` with a note after each rewind point on its path (unchanged without rewinds)."""
    rewinds = conv.meta.get("rewinds")
    if not isinstance(rewinds, list) or not rewinds or conv.tip is None:
        return conv
    after: dict[str, list[Message]] = {}
    for k, entry in enumerate(rewinds, start=1):
        if isinstance(entry, dict) and isinstance(entry.get("to"), str):
            after.setdefault(entry["to"], []).append(rewind_note(entry, k))
    path = conv.path()
    if not any(m.id in after for m in path):
        return conv
    out: list[Message] = []
    parent: str | None = None
    for message in [x for m in path for x in (m, *after.get(m.id, ()))]:
        if message.parent != parent:
            message = Message(message.id, parent, message.role, message.blocks, message.meta)
        out.append(message)
        parent = message.id
    return conv.with_messages(out, tip=parent)
