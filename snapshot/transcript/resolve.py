"""What a conversation reference means: one resolver for every command that takes CONV.

The order, documented once and used by ``export``, ``compact``, ``tree``,
``checkpoint`` and the other session commands alike:

1. ``store:ID`` names a stored conversation, whatever files exist.
2. An existing file or folder wins: a store file (``<ws>/<id>/<agent>.jsonl``)
   is read through its own workspace, any other file is imported.
3. Otherwise the reference is a stored conversation id in the workspace.

A bare name (no path separator) that is both a file in the working directory
and a stored id is ambiguous: the error names both and says how to pick
(``./NAME`` for the file, ``store:NAME`` for the stored copy).

>>> import tempfile
>>> from snapshot.transcript.model import linear, TextBlock
>>> from snapshot.transcript.store import Store
>>> ws = tempfile.mkdtemp()
>>> _ = Store(ws).save(linear("c1", [("m1", "user", [TextBlock("hi")])]))
>>> r = resolve_conversation("store:c1", workspace=ws)
>>> (r.stored, r.conv.id, r.conv.tip)
(True, 'c1', 'm1')
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from snapshot.errors import TranscriptError
from snapshot.transcript.model import Conversation
from snapshot.transcript.store import Store, is_store_file, read_log, validate_id
from snapshot.transcript.store_legacy import read_document

#: The prefix that forces a reference to mean a stored conversation id.
STORE_PREFIX = "store:"


def _quiet(text: str) -> None:
    """The default ``note``: announcements go nowhere."""


@dataclass(frozen=True)
class ConversationHandle:
    """A conversation CONV named, the store it belongs in, and whether that store holds it yet.

    The one object every command that takes CONV works on: :func:`resolve_conversation`
    finds it, :func:`snapshot.transcript.session.open_handle` readies it for a change
    (safe file names, the stored copy of a file stored before), and the session
    functions and ``compact --save`` change it.

    ``stored``: ``conv`` was read from ``store``; otherwise it was imported from
    ``path`` and is not stored yet (``path`` is also kept when a file's stored copy
    stands in for it). ``note`` receives the announcements (a file stored for the
    first time, an id mapped to a safe file name, a stored copy used in place of
    the file) as they happen, one line each.

    >>> from snapshot.transcript.model import linear, TextBlock
    >>> conv = linear("c1", [("m1", "user", [TextBlock("hi")])])
    >>> h = ConversationHandle(conv, Store("ws"), stored=False, path=Path("log.jsonl"))
    >>> h.name, h.source, h.stored
    ('c1/main', 'log.jsonl', False)
    """

    conv: Conversation
    store: Store
    stored: bool
    path: Path | None = None
    note: Callable[[str], None] = field(default=_quiet, repr=False, compare=False)

    @property
    def name(self) -> str:
        """``<id>/<agent>``, how the commands name the conversation."""
        return f"{self.conv.id}/{self.conv.agent}"

    @property
    def source(self) -> str:
        """The file the conversation was imported from, as given (empty: read from the store)."""
        return "" if self.path is None else str(self.path)


def pick(convs: list[Conversation], agent: str | None, what: str) -> Conversation:
    """The one conversation of a file's many that ``agent`` (or the default) names.

    Raises
    ------
    TranscriptError
        When the file holds none, several conversation ids, or an agent must be picked.
    """
    if not convs:
        raise TranscriptError(f"{what}: holds no conversation")
    ids = list(dict.fromkeys(c.id for c in convs))
    if len(ids) > 1:
        shown = ", ".join(ids[:5]) + (" …" if len(ids) > 5 else "")
        raise TranscriptError(
            f"{what} holds {len(ids)} conversations ({shown}); pick one with --select KEY=VALUE"
        )
    return next(c for c in convs if c.agent == pick_agent([c.agent for c in convs], agent, what))


def pick_agent(agents: list[str], wanted: str | None, what: str) -> str:
    """``wanted`` if present, else ``main``, else the only agent; raises when it cannot choose."""
    if wanted is not None:
        if wanted not in agents:
            raise TranscriptError(
                f"{what} has no agent {wanted!r}; agents: {', '.join(agents) or 'none'}"
            )
        return wanted
    if "main" in agents:
        return "main"
    if len(agents) == 1:
        return agents[0]
    raise TranscriptError(f"{what} has several agents ({', '.join(agents)}); pick one with --agent")


def _stored_agents(store: Store, ident: str) -> list[str]:
    try:
        validate_id(ident)
        return store.agents(ident)
    except (TranscriptError, OSError):
        return []


def _load_stored(store: Store, ident: str, agent: str | None) -> ConversationHandle:
    agents = _stored_agents(store, ident)
    if not agents:
        raise TranscriptError(
            f"no conversation {ident!r} is stored in {store.root}; "
            "give a stored id or the path of a transcript to import"
        )
    chosen = pick_agent(agents, agent, f"stored conversation {ident!r}")
    return ConversationHandle(store.load(ident, chosen), store, stored=True)


def _load_store_file(path: Path) -> ConversationHandle:
    """A store file, read through its workspace (migrations, checks) when it sits in one."""
    home = Store(path.parent.parent)  # <workspace>/<conversation id>/<agent>.jsonl
    try:
        return ConversationHandle(home.load(path.parent.name, path.stem), home, stored=True)
    except TranscriptError as exc:
        # A store file copied out of its workspace: read on its own. Its images
        # may come from the file's own folder only, whatever ``source`` it names.
        from snapshot.transcript.encodable import encodable_conversation

        try:
            read = read_document if path.suffix == ".json" else lambda p, _: read_log(p)
            conv = read(path, path.stem)
        except (OSError, TranscriptError):
            raise exc from None
        return ConversationHandle(encodable_conversation(conv), home, stored=False, path=path)


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # a name too long for the file system, a NUL byte
        return False


def resolve_conversation(
    ref: str,
    *,
    workspace: str | os.PathLike[str] = ".snapshot",
    agent: str | None = None,
    format: str | None = None,
    select: Mapping[str, str] | None = None,
) -> ConversationHandle:
    """The conversation ``ref`` names, by the order in this module's docstring.

    Parameters
    ----------
    ref : str
        ``store:ID``, a file or folder path, or a stored conversation id.
    workspace : path
        The store consulted for ids (a store file is read through its own workspace).
    agent : str, optional
        Which agent's transcript (default: ``main``, or the only one).
    format : str, optional
        Force the importer when ``ref`` is a file.
    select : mapping, optional
        ``--select`` KEY=VALUE pairs picking one conversation from a file of many.

    Returns
    -------
    ConversationHandle

    Raises
    ------
    TranscriptError
        Nothing by that name, an ambiguous bare name, or an unusable file.
    """
    from snapshot.transcript.formats import import_path

    store = Store(workspace)
    if ref.startswith(STORE_PREFIX):
        return _load_stored(store, ref[len(STORE_PREFIX) :], agent)
    path = Path(ref)
    if _exists(path):
        bare = os.sep not in ref and "/" not in ref
        if bare and _stored_agents(store, ref):
            raise TranscriptError(
                f"{ref!r} is both a file here and a conversation stored in {store.root}; "
                f"give ./{ref} for the file or {STORE_PREFIX}{ref} for the stored one"
            )
        if is_store_file(path):
            return _load_store_file(path)
        convs = import_path(path, format=format, select=select)
        return ConversationHandle(pick(convs, agent, str(path)), store, stored=False, path=path)
    if _stored_agents(store, ref):
        return _load_stored(store, ref, agent)
    raise TranscriptError(
        f"{ref!r} is neither a file nor a conversation stored in {store.root}; "
        "give a transcript file or a stored conversation id"
    )
