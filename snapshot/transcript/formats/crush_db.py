"""Crush project database (``.crush/crush.db``, SQLite) → the neutral model.

Crush forked opencode (Go) and kept its tables; the reader is shared
(:mod:`snapshot.transcript.formats._go_agent_db`): each session one
conversation, tool calls paired with their results by id, a summary message
marked ``meta["summary_message"]``. Recognised by its file name, or by a
``messages`` column only Crush added (``provider``, ``is_summary_message``).

>>> from snapshot.transcript.formats import crush_db
>>> crush_db.score(Path("crush.db"), b"not a database")
0.0
"""

from __future__ import annotations

from pathlib import Path

from snapshot.transcript.formats import Format, ImportOptions
from snapshot.transcript.formats._go_agent_db import (
    CRUSH_ONLY_COLUMNS,
    family_columns,
    load_sessions,
)
from snapshot.transcript.model import Conversation

NAME = "crush-sqlite"


def score(path: Path, head: bytes) -> float:
    """1.0 for ``crush.db`` of this schema, 0.9 for Crush's own columns under another name."""
    found = family_columns(path, head)
    if found is None:
        return 0.0
    if path.name == "crush.db" or path.parent.name == ".crush":
        return 1.0
    return 0.9 if found & CRUSH_ONLY_COLUMNS and path.name != "opencode.db" else 0.0


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    """Every session of the database (``--select id=...`` or ``title=...`` picks some)."""
    return load_sessions(path, options, NAME, "Crush")


FORMAT = Format(
    name=NAME,
    description="Crush project database .crush/crush.db (SQLite; one conversation per session)",
    score=score,
    load=load,
)
