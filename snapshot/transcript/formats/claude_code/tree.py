"""The ``parentUuid`` tree of a Claude Code session, resolved while the file is read."""

from __future__ import annotations

from snapshot.transcript.model import (
    Role,
)

# A link to a record that is not in the file (yet).
UNRESOLVED = object()


class Tree:
    """Resolves ``parentUuid`` links to kept messages while the file is read.

    Skipped records and the continuation records of a merged API message are
    transparent: a link to one of them means a link to its own parent. The
    results of one assistant message's tool calls all point at that message
    (at the record holding their call), i.e. they are siblings in the raw
    tree; we chain them one after the other in file order instead (the
    message's *group*), and whatever continues from any member of the group
    continues from its last member, so the live path holds every result.
    """

    def __init__(self) -> None:
        # uuids of kept messages (message id = uuid), each mapped to itself so
        # that links to it can share the one string
        self.kept: dict[str, str] = {}
        self.through: dict[str, str | None] = {}  # transparent uuid -> parentUuid (resolved)
        self.group_of: dict[str, str] = {}  # message id -> assistant message id
        self.tail: dict[str, str] = {}  # assistant message id -> last member

    def known(self, ref: str) -> bool:
        return ref in self.kept or ref in self.through

    def resolve(self, ref: str | None) -> str | object | None:
        seen: set[str] = set()
        while ref is not None:
            if ref in self.kept:
                return self.kept[ref]
            if ref in seen:
                return None  # a cycle of transparent records: treat as a root
            if ref not in self.through:
                return UNRESOLVED
            seen.add(ref)
            ref = self.through[ref]
        return None

    def skip(self, uuid: str, parent: str | None) -> None:
        """Make ``uuid`` transparent: a link to it is a link to ``parent``.

        Stored resolved when ``parent`` already resolves (to a kept message, or
        a root): the answer cannot change later (a uuid is recorded once), and
        the kept message's own id string is shared instead of a copy per
        record, which matters for the hundreds of thousands of ``progress``
        records of a large session.
        """
        found = self.resolve(parent)
        self.through[uuid] = found if found is None or isinstance(found, str) else parent

    def attach(self, ref: str | None) -> str | object | None:
        """The message a new message continues from (the tail of a group)."""
        found = self.resolve(ref)
        if isinstance(found, str) and found in self.group_of:
            return self.tail[self.group_of[found]]
        return found

    def add(self, mid: str, role: Role, parent: str | None, has_results: bool) -> None:
        self.kept[mid] = mid
        if role == "assistant":
            self.group_of[mid] = mid
            self.tail[mid] = mid
        elif has_results and parent is not None and parent in self.group_of:
            group = self.group_of[parent]
            self.group_of[mid] = group
            self.tail[group] = mid
