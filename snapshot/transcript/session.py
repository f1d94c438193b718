"""The session commands as store transactions: branch, fork, checkpoint, rewind, retry, resume.

:mod:`snapshot.transcript.tree` says *what* each operation does to a
conversation (pure functions); this module does it to a stored one: each
function holds the store's lock of the conversation from reload to save, so
two commands never undo each other, and returns a small frozen result saying
what happened (the CLI prints from it and decides nothing).

A session works on a :class:`~snapshot.transcript.resolve.ConversationHandle`,
what CONV resolved to (:func:`snapshot.transcript.resolve.resolve_conversation`)
opened by :func:`open_handle`: a stored conversation, or a file's conversation
not stored yet. The first function that changes an imported file stores it (the
result's ``imported`` says so and the handle's ``note`` announces it, so the change
persists); importing the same file again finds that stored copy. Under the
lock the stored state is reloaded: a file a concurrent command stored in the
meantime is changed in its stored form, with its checkpoints, never
overwritten by a fresh import.

>>> import tempfile
>>> from snapshot.transcript.model import linear, TextBlock
>>> from snapshot.transcript.resolve import resolve_conversation
>>> ws = tempfile.mkdtemp()
>>> _ = Store(ws).save(linear("c1", [("m1", "user", [TextBlock("hi")]),
...                                  ("m2", "assistant", [TextBlock("yo")])]))
>>> t = open_handle(resolve_conversation("c1", workspace=ws), writes=True)
>>> branch(t, "m1").after.tip, Store(ws).load("c1").tip
('m1', 'm1')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from snapshot.errors import TranscriptError
from snapshot.transcript import tree
from snapshot.transcript.model import Conversation, Message
from snapshot.transcript.resolve import ConversationHandle
from snapshot.transcript.store import MAX_ID_LENGTH, Store, safe_id, validate_id
from snapshot.transcript.tree import (
    Checkpoint,
    CheckpointReport,
    DroppedCheckpoint,
    RetryPoint,
    Rewind,
    Trim,
)

# --- opening ----------------------------------------------------------------------------


def open_handle(
    found: ConversationHandle,
    *,
    writes: bool = False,
    note: Callable[[str], None] | None = None,
) -> ConversationHandle:
    """A resolved CONV readied for a change: the stored copy of a file stored before, if any.

    Parameters
    ----------
    found : ConversationHandle
        What :func:`~snapshot.transcript.resolve.resolve_conversation` found.
    writes : bool
        The caller will change the conversation: the workspace must be
        writable, checked now, before anything is done.
    note : callable, optional
        Receives one line for each announcement (see
        :class:`~snapshot.transcript.resolve.ConversationHandle`); default: ``found.note``.

    Returns
    -------
    ConversationHandle
        Ids that cannot be file names are mapped by
        :func:`~snapshot.transcript.store.safe_id` (and noted); a file whose
        conversation is stored already yields the stored copy.

    Raises
    ------
    TranscriptError
        An unwritable workspace (``writes``), or an unreadable stored copy.

    Examples
    --------
    >>> import tempfile
    >>> from snapshot.transcript.model import linear, TextBlock
    >>> store = Store(tempfile.mkdtemp())
    >>> conv = linear("a b", [("m1", "user", [TextBlock("hi")])])
    >>> found = ConversationHandle(conv, store, stored=False, path=Path("log.jsonl"))
    >>> t = open_handle(found, note=print)
    'a b'/'main' is stored as a_b-c8687a08aa/main (safe file names)
    >>> t.stored, t.source, t.name
    (False, 'log.jsonl', 'a_b-c8687a08aa/main')
    """
    note = found.note if note is None else note
    if found.stored:
        if writes:
            found.store.check_writable()
        return replace(found, note=note)
    store, conv, path = found.store, found.conv, found.path
    if writes:
        store.check_writable()
    # File names come from ids; an id that cannot be one is mapped, not refused.
    new_id, new_agent = safe_id(conv.id), safe_id(conv.agent)
    if (new_id, new_agent) != (conv.id, conv.agent):
        note(f"{conv.id!r}/{conv.agent!r} is stored as {new_id}/{new_agent} (safe file names)")
        conv = replace(conv, id=new_id, agent=new_agent)
    if store.exists(conv.id, conv.agent):
        note(
            f"using the stored copy of {path} at {store.path_for(conv.id, conv.agent)} "
            f"(refer to it as {conv.id})"
        )
        stored_copy = store.load(conv.id, conv.agent)
        return ConversationHandle(stored_copy, store, stored=True, path=path, note=note)
    return ConversationHandle(conv, store, stored=False, path=path, note=note)


def _current(t: ConversationHandle) -> tuple[Conversation, bool]:
    """The conversation as it is now, and whether it is stored; call under the lock.

    A file imported before the lock was taken may have been stored by a
    concurrent command since: then its stored copy is what is changed.
    """
    if t.stored or t.store.exists(t.conv.id, t.conv.agent):
        return t.store.load(t.conv.id, t.conv.agent), True
    return t.conv, False


def _checkpoints(t: ConversationHandle, conv: Conversation, stored: bool) -> tuple[Checkpoint, ...]:
    return t.store.load_checkpoints(conv.id, conv.agent) if stored else ()


def _announce_import(t: ConversationHandle) -> None:
    fmt = f" ({t.conv.format})" if t.conv.format else ""
    t.note(
        f"imported {t.source}{fmt} and stored it as {t.conv.id} in "
        f"{t.store.path_for(t.conv.id, t.conv.agent)} so tree operations persist; "
        f"refer to it as {t.conv.id} from now on"
    )


# --- reading --------------------------------------------------------------------------


@dataclass(frozen=True)
class TreeSummary:
    """What ``snapshot tree`` shows besides the messages: labels and branch points."""

    labels: Mapping[str, tuple[str, ...]]  # message id -> its checkpoint labels, in order
    branch_points: int  # messages with more than one child


def tree_summary(t: ConversationHandle) -> TreeSummary:
    """The checkpoint labels by message (a stored target's only) and the number of branch points.

    Examples
    --------
    >>> import tempfile
    >>> from snapshot.transcript.model import Conversation, Message, TextBlock
    >>> store = Store(tempfile.mkdtemp())
    >>> conv = Conversation("c1", (Message("m1", None, "user", (TextBlock("hi"),)),
    ...                            Message("a", "m1", "assistant", (TextBlock("yes"),)),
    ...                            Message("b", "m1", "assistant", (TextBlock("no"),))), "b")
    >>> _ = store.save(conv)
    >>> _ = store.save_checkpoints("c1", "main", [Checkpoint("start", "m1")])
    >>> tree_summary(ConversationHandle(conv, store, stored=True))
    TreeSummary(labels={'m1': ('start',)}, branch_points=1)
    """
    conv = t.conv
    labels: dict[str, tuple[str, ...]] = {}
    for c in _checkpoints(t, conv, t.stored):
        labels[c.message] = (*labels.get(c.message, ()), c.label)
    # Counting parents once: Conversation.children() scans every message per call.
    fanout = Counter(m.parent for m in conv.messages if m.parent is not None)
    return TreeSummary(labels, sum(1 for n in fanout.values() if n > 1))


def list_checkpoints(t: ConversationHandle) -> CheckpointReport:
    """The target's checkpoints: those whose message exists, and the stale ones with the reason.

    A conversation not stored yet has none. Nothing is written.

    Examples
    --------
    >>> import tempfile
    >>> from snapshot.transcript.model import linear, TextBlock
    >>> store = Store(tempfile.mkdtemp())
    >>> conv = linear("c1", [("m1", "user", [TextBlock("hi")])])
    >>> _ = store.save(conv)
    >>> _ = store.save_checkpoints("c1", "main", [Checkpoint("a", "m1"), Checkpoint("b", "gone")])
    >>> report = list_checkpoints(ConversationHandle(conv, store, stored=True))
    >>> [c.label for c in report.kept], [d.reason for d in report.dropped]
    (['a'], ["its message 'gone' is not in the conversation"])
    """
    return tree.reconcile_checkpoints(t.conv, _checkpoints(t, t.conv, t.stored))


# --- branch -------------------------------------------------------------------------


@dataclass(frozen=True)
class Branched:
    """``before``: the conversation when the lock was taken; ``after``: as saved."""

    before: Conversation
    after: Conversation
    imported: bool  # this call stored the target's file for the first time


def branch(t: ConversationHandle, to: str) -> Branched:
    """Move the stored tip to message ``to``; nothing is deleted.

    Parameters
    ----------
    t : ConversationHandle
    to : str
        The new tip: a message id of the conversation, ending a clean turn.

    Returns
    -------
    Branched

    Raises
    ------
    TranscriptError
        An unknown message, or one whose tool calls wait for results.

    Examples
    --------
    >>> import tempfile
    >>> from snapshot.transcript.model import linear, TextBlock
    >>> store = Store(tempfile.mkdtemp())
    >>> conv = linear("c1", [("m1", "user", [TextBlock("hi")]),
    ...                      ("m2", "assistant", [TextBlock("yo")])])
    >>> done = branch(ConversationHandle(conv, store, stored=False), "m1")
    >>> done.before.tip, done.after.tip, done.imported, store.load("c1").tip
    ('m2', 'm1', True, 'm1')
    """
    with t.store.lock(t.conv.id, t.conv.agent):
        conv, stored = _current(t)
        new = tree.branch(conv, to)
        t.store.save(new)
        if not stored:
            _announce_import(t)
    return Branched(conv, new, imported=not stored)


# --- fork ---------------------------------------------------------------------------


def free_fork_id(store: Store, base: str, agent: str = "main") -> str:
    """The first ``<base>-fork<k>`` (k = 1, 2, …) not stored for ``agent``, a safe id.

    Examples
    --------
    >>> import tempfile
    >>> from snapshot.transcript.model import linear, TextBlock
    >>> store = Store(tempfile.mkdtemp())
    >>> free_fork_id(store, "c1")
    'c1-fork1'
    >>> _ = store.save(linear("c1-fork1", [("m1", "user", [TextBlock("hi")])]))
    >>> free_fork_id(store, "c1")
    'c1-fork2'
    """
    stem = base[: MAX_ID_LENGTH - 12]
    for k in range(1, 10_000):
        candidate = safe_id(f"{stem}-fork{k}")
        if not store.exists(candidate, agent):
            return candidate
    raise AssertionError("unreachable: 10,000 forks of one conversation")


@dataclass(frozen=True)
class Forked:
    """The new conversation as stored, the source message it copies up to, and its file."""

    conversation: Conversation
    at: str | None
    path: Path


def _refuse_taken(store: Store, new_id: str, agent: str) -> None:
    if store.exists(new_id, agent):
        raise TranscriptError(
            f"conversation {new_id}/{agent} already exists in {store.root}; choose another --id"
        )


def fork(t: ConversationHandle, new_id: str | None = None, *, at: str | None = None) -> Forked:
    """Store a copy of the path to ``at`` (default: the tip) as a new conversation, fresh ids.

    The source, stored or a file, is left unchanged.

    Parameters
    ----------
    t : ConversationHandle
    new_id : str, optional
        The new conversation's id (default: :func:`free_fork_id`).
    at : str, optional
        The last message copied (default: the tip); it must end a clean turn.

    Returns
    -------
    Forked

    Raises
    ------
    TranscriptError
        A bad or taken ``new_id``, an unknown ``at``, or a fork that would be mid-turn;
        all checked before anything is written.

    Examples
    --------
    >>> import tempfile
    >>> from snapshot.transcript.model import linear, TextBlock
    >>> store = Store(tempfile.mkdtemp())
    >>> conv = linear("c1", [("m1", "user", [TextBlock("hi")]),
    ...                      ("m2", "assistant", [TextBlock("yo")])])
    >>> _ = store.save(conv)
    >>> done = fork(ConversationHandle(conv, store, stored=True), at="m1")
    >>> done.conversation.id, done.at, len(done.conversation.messages), store.conversations()
    ('c1-fork1', 'm1', 1, ['c1', 'c1-fork1'])
    """
    src = t.conv
    if new_id is None:
        return _fork_to_a_free_id(t, at)
    validate_id(new_id, "--id")
    # Everything that can refuse runs before the lock makes the new folder.
    forked = tree.fork(src, new_id, at=at)
    tree.check_turn_boundary(forked)
    _refuse_taken(t.store, new_id, src.agent)
    with t.store.lock(new_id, src.agent):
        _refuse_taken(t.store, new_id, src.agent)
        path = t.store.save(forked)
    return Forked(forked, at or src.tip, path)


# Concurrent forks without --id each take the next free id; this many in a row
# taken by others between the look and the lock means something else is wrong.
_FREE_ID_TRIES = 100


def _fork_to_a_free_id(t: ConversationHandle, at: str | None) -> Forked:
    """:func:`fork` without ``new_id``: the first free id, checked again under its lock.

    Another process may take the same id between :func:`free_fork_id` and the
    lock; the user gave no id, so the next free one is taken rather than refused.
    """
    src = t.conv
    for _ in range(_FREE_ID_TRIES):
        new_id = free_fork_id(t.store, src.id, src.agent)
        forked = tree.fork(src, new_id, at=at)
        tree.check_turn_boundary(forked)
        with t.store.lock(new_id, src.agent):
            if t.store.exists(new_id, src.agent):
                continue
            path = t.store.save(forked)
        return Forked(forked, at or src.tip, path)
    raise TranscriptError(
        f"{t.store.root}: {_FREE_ID_TRIES} fork ids in a row were taken by other commands "
        "while forking; give one with --id"
    )


# --- checkpoints --------------------------------------------------------------------


@dataclass(frozen=True)
class Checkpointed:
    """The new checkpoint, all stored now (it last), and the stale ones dropped on the way."""

    checkpoint: Checkpoint
    checkpoints: tuple[Checkpoint, ...]
    dropped: tuple[DroppedCheckpoint, ...]
    imported: bool  # this call stored the target's file for the first time


def checkpoint(t: ConversationHandle, label: str, *, at: str | None = None) -> Checkpointed:
    """Label message ``at`` (default: the tip) ``label`` and store the checkpoints.

    Checkpoints whose message is gone are dropped (and reported), never moved.

    Parameters
    ----------
    t : ConversationHandle
    label : str
        A new, printable one-line label.
    at : str, optional
        The message (default: the tip); it must end a clean turn.

    Returns
    -------
    Checkpointed

    Raises
    ------
    TranscriptError
        A bad or taken label, an unknown or mid-turn message.

    Examples
    --------
    >>> import tempfile
    >>> from snapshot.transcript.model import linear, TextBlock
    >>> store = Store(tempfile.mkdtemp())
    >>> conv = linear("c1", [("m1", "user", [TextBlock("hi")]),
    ...                      ("m2", "assistant", [TextBlock("yo")])])
    >>> _ = store.save(conv)
    >>> checkpoint(ConversationHandle(conv, store, stored=True), "start", at="m1").checkpoint
    Checkpoint(label='start', message='m1')
    >>> store.load_checkpoints("c1")
    (Checkpoint(label='start', message='m1'),)
    """
    with t.store.lock(t.conv.id, t.conv.agent):
        conv, stored = _current(t)
        report = tree.reconcile_checkpoints(conv, _checkpoints(t, conv, stored))
        updated = tree.add_checkpoint(conv, report.kept, label, at=at)
        if not stored:
            t.store.save(conv)
            _announce_import(t)
        t.store.save_checkpoints(conv.id, conv.agent, updated)
    return Checkpointed(updated[-1], updated, report.dropped, imported=not stored)


# --- rewind -------------------------------------------------------------------------


@dataclass(frozen=True)
class Rewound:
    """``before``: the conversation when the lock was taken; ``result``: the rewind saved."""

    before: Conversation
    result: Rewind


def rewind(t: ConversationHandle, label: str) -> Rewound:
    """Move the stored tip back to checkpoint ``label``, keeping an extract of what was explored.

    Parameters
    ----------
    t : ConversationHandle
    label : str
        A stored checkpoint's label.

    Returns
    -------
    Rewound

    Raises
    ------
    TranscriptError
        No such checkpoint (a conversation not stored has none), or its message is gone.

    Examples
    --------
    >>> import tempfile
    >>> from snapshot.transcript.model import linear, TextBlock
    >>> store = Store(tempfile.mkdtemp())
    >>> conv = linear("c1", [("m1", "user", [TextBlock("hi")]),
    ...                      ("m2", "assistant", [TextBlock("yo")])])
    >>> _ = store.save(conv)
    >>> _ = store.save_checkpoints("c1", "main", [Checkpoint("start", "m1")])
    >>> done = rewind(ConversationHandle(conv, store, stored=True), "start")
    >>> done.before.tip, done.result.abandoned, store.load("c1").tip
    ('m2', ('m2',), 'm1')
    """
    with t.store.lock(t.conv.id, t.conv.agent):
        conv, stored = _current(t)
        result = tree.rewind(conv, _checkpoints(t, conv, stored), label)
        t.store.save(result.conversation)
    return Rewound(conv, result)


# --- retry --------------------------------------------------------------------------


@dataclass(frozen=True)
class Retried:
    """Where a retry restarts; ``after`` is the saved conversation, None when nothing was done."""

    before: Conversation
    point: RetryPoint
    after: Conversation | None
    imported: bool  # this call stored the target's file for the first time


def retry(t: ConversationHandle) -> Retried:
    """Move the stored tip back to the latest prompt, so its reply can be redone.

    When there is no prompt to retry nothing is written (``after`` is None and
    ``point.reason`` says why).

    Examples
    --------
    >>> import tempfile
    >>> from snapshot.transcript.model import linear, TextBlock
    >>> store = Store(tempfile.mkdtemp())
    >>> conv = linear("c1", [("m1", "user", [TextBlock("hi")]),
    ...                      ("m2", "assistant", [TextBlock("yo")])])
    >>> _ = store.save(conv)
    >>> done = retry(ConversationHandle(conv, store, stored=True))
    >>> done.point.message, done.after.tip, store.load("c1").tip
    ('m1', 'm1', 'm1')
    """
    with t.store.lock(t.conv.id, t.conv.agent):
        conv, stored = _current(t)
        point = tree.retry_point(conv)
        if not point.ready or point.message is None:
            return Retried(conv, point, None, imported=False)
        new = tree.branch(conv, point.message)
        t.store.save(new)
        if not stored:
            _announce_import(t)
    return Retried(conv, point, new, imported=not stored)


# --- resume -------------------------------------------------------------------------


@dataclass(frozen=True)
class Resumed:
    """A resume trim of ``before``; ``path`` is where it was stored (None: a dry run, or nothing to trim)."""

    before: Conversation
    trim: Trim
    estimate: str  # how tokens were estimated, in words
    path: Path | None
    imported: bool  # this call stored the target's file for the first time

    @property
    def off_path(self) -> int:
        """Messages of ``before`` on abandoned branches (not on the path to its tip)."""
        on_path = len(self.before.path()) if self.before.tip is not None else 0
        return len(self.before.messages) - on_path

    @property
    def first_kept(self) -> str | None:
        """The message the kept tail starts at, when anything was trimmed."""
        if not self.trim.dropped:
            return None
        first = self.trim.conversation.meta.get("resume_trim", {}).get("first_kept")
        return first if isinstance(first, str) else None


def trim_to_budget(
    t: ConversationHandle,
    budget: int,
    *,
    estimate: tuple[Callable[[Message], int], str] | None = None,
    save: bool = False,
) -> Resumed:
    """Trim to the newest messages that fit ``budget`` tokens; store the trim only with ``save``.

    ``snapshot resume`` calls it through :func:`snapshot.ladder.resume.resume`, which
    counts with a model's own counter; here the count is the caller's.

    Parameters
    ----------
    t : ConversationHandle
    budget : int
        Tokens the kept conversation may cost.
    estimate : (callable, str), optional
        Tokens per message and words saying how (default: characters / 4 and 1200
        tokens an image, :func:`snapshot.transcript.tree.estimate_tokens`).
    save : bool
        Store the trimmed conversation, and the checkpoints that survive, in
        place of the full one (when anything was trimmed).

    Returns
    -------
    Resumed

    Examples
    --------
    >>> import tempfile
    >>> from snapshot.transcript.model import linear, TextBlock
    >>> store = Store(tempfile.mkdtemp())
    >>> conv = linear("c1", [("m1", "user", [TextBlock("x" * 400)]),
    ...                      ("m2", "assistant", [TextBlock("y" * 40)])])
    >>> _ = store.save(conv)
    >>> done = trim_to_budget(ConversationHandle(conv, store, stored=True), 50)
    >>> done.trim.dropped, done.first_kept, done.trim.tokens, done.path, done.estimate
    (('m1',), 'm2', 10, None, 'chars/4, 1200 an image')
    >>> len(store.load("c1").messages)
    2
    """
    if estimate is None:
        estimate = (tree.estimate_tokens, f"chars/4, {tree.IMAGE_TOKEN_ESTIMATE} an image")
    count, how = estimate
    path = None
    with t.store.lock(t.conv.id, t.conv.agent):
        conv, stored = _current(t)
        trim = tree.trim_for_resume(
            conv, budget, estimate=count, checkpoints=_checkpoints(t, conv, stored)
        )
        if save and trim.dropped:
            t.store.save_all(trim.conversation, trim.checkpoints.kept)
            if not stored:
                _announce_import(t)
            path = t.store.path_for(trim.conversation.id, trim.conversation.agent)
    return Resumed(conv, trim, how, path, imported=path is not None and not stored)
