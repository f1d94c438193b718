"""opencode (Go) project database (``.opencode/opencode.db``, SQLite) → the neutral model.

The reader is shared with Crush, which kept opencode's tables
(:mod:`snapshot.transcript.formats._go_agent_db`): each session one
conversation, tool calls paired with their results by id. A database whose
``messages`` table has a column only Crush added (``provider``,
``is_summary_message``) is Crush's, not this format's.

>>> from snapshot.transcript.formats import opencode_db
>>> opencode_db.score(Path("notes.db"), b"not a database")
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

NAME = "opencode-go-sqlite"


def score(path: Path, head: bytes) -> float:
    """1.0 for ``opencode.db`` of this schema, 0.9 for another name; 0 for a Crush database."""
    found = family_columns(path, head)
    if found is None or found & CRUSH_ONLY_COLUMNS or path.name == "crush.db":
        return 0.0
    return 1.0 if path.name == "opencode.db" or path.parent.name == ".opencode" else 0.9


def load(path: Path, options: ImportOptions) -> list[Conversation]:
    """Every session of the database (``--select id=...`` or ``title=...`` picks some)."""
    return load_sessions(path, options, NAME, "opencode (Go)")


FORMAT = Format(
    name=NAME,
    description="opencode (Go) project database .opencode/opencode.db (SQLite; one conversation per session)",
    score=score,
    load=load,
)
