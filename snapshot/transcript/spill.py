"""Messages kept on disk: a conversation too large to hold as Python objects.

A Claude Code session of 500 MB holds hundreds of MB of tool results and
metadata once parsed. :class:`SpilledMessages` is a ``Sequence[Message]``
whose messages live serialized in an anonymous temporary file (never in the
user's folders; the system removes it when it is closed or the process
ends), each as the JSON text :func:`~snapshot.transcript.model.message_to_dict`
gives and ``json.dumps(..., ensure_ascii=False)`` writes. In memory it holds
only, per message, its id, its parent's position and where its text lies, so
a :class:`~snapshot.transcript.model.Conversation` can find a message by id
and walk the path from the tip without parsing anything; a message is parsed
when it is asked for, and iterating parses one at a time.

Importers spill only above a size (:data:`SPILL_BYTES` of input): a small
import stays a tuple, as fast as before. :func:`message_texts` gives the JSON
text of each message of any sequence (the stored text of a spill, unparsed),
which is how a conversation is written out message by message. A spill
pickles (and deep-copies) as its stored texts, which the copy writes into a
temporary file of its own.

>>> from snapshot.transcript.model import Conversation, Message, TextBlock
>>> spill = SpilledMessages()
>>> spill.append(Message("m1", None, "user", (TextBlock("hi"),)))
>>> spill.append(Message("m2", "m1", "assistant", (TextBlock("hello"),)))
>>> conv = Conversation(id="c", messages=spill, tip="m2")
>>> conv.path_ids(), conv.get("m2").text(), len(conv.messages)
(['m1', 'm2'], 'hello', 2)
>>> spill[1] = Message("m2", "m1", "assistant", (TextBlock("hello again"),))
>>> [m.text() for m in conv.messages]
['hi', 'hello again']
>>> next(message_texts(spill))
'{"id": "m1", "parent": null, "role": "user", "blocks": [{"type": "text", "text": "hi"}], "meta": {}}'
>>> spill.close()
"""

from __future__ import annotations

import json
import tempfile
import threading
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, overload

from snapshot.transcript.model import IndexedMessages, Message, message_from_dict, message_to_dict

__all__ = [
    "SPILL_BYTES",
    "SpillFile",
    "SpilledMessages",
    "frozen",
    "message_sink",
    "message_texts",
]

#: Inputs at least this large import into a :class:`SpilledMessages`; smaller ones stay tuples.
SPILL_BYTES = 32 * 1024 * 1024

# Lone surrogates (half an emoji cut by a JavaScript writer) must survive the
# round trip to disk unchanged: the encodability check after the import sees
# and counts them, as it does for a tuple.
_CODEC = "surrogatepass"

_NO_PARENT = -1
_PARENT_BY_ID = -2  # the parent was not (yet) a message here: looked up by id when walked


def _dumps(message: Message) -> str:
    # The exact text json.dump writes for the message inside a whole document.
    return json.dumps(message_to_dict(message), ensure_ascii=False)


class SpillFile:
    """The anonymous temporary file spills write to; several spills can share one.

    An importer that makes a conversation per agent shares one file among
    them, so a log with thousands of subagents does not hold a file (a
    descriptor) per agent.

    >>> from snapshot.transcript.model import Message
    >>> f = SpillFile()
    >>> a, b = SpilledMessages(file=f), SpilledMessages(file=f)
    >>> a.append(Message("x", None, "user", ())); b.append(Message("y", None, "user", ()))
    >>> a[0].id, b[0].id, len(a), len(b)
    ('x', 'y', 1, 1)
    """

    def __init__(self) -> None:
        # Open for the object's life (closed by close() or when collected).
        self.file = tempfile.TemporaryFile(prefix="snapshot-spill-")  # noqa: SIM115
        # A seek and the read or write after it are one step: the page pipeline's
        # threads may read one conversation at once.
        self.lock = threading.Lock()
        self.end = 0

    def write(self, data: bytes | memoryview) -> int:
        """Store ``data`` after the rest; where it starts."""
        with self.lock:
            self.file.seek(self.end)
            self.file.write(data)
            start, self.end = self.end, self.end + len(data)
        return start

    def read(self, start: int, length: int) -> bytes:
        with self.lock:
            self.file.seek(start)
            return self.file.read(length)

    def close(self) -> None:
        self.file.close()


class SpilledMessages(IndexedMessages):
    """A sequence of messages stored as JSON text in an anonymous temporary file.

    Append messages in order (:meth:`append`), change one already stored
    (``spill[i] = message``, same id); read them like a tuple. Per message only its id, its
    parent's position and its offset and length stay in memory. ``file``: a
    :class:`SpillFile` shared with other spills (by default one of its own).

    Examples
    --------
    >>> from snapshot.transcript.model import Message, TextBlock
    >>> s = SpilledMessages([Message("a", None, "user", (TextBlock("x"),))])
    >>> s[0].text(), s[-1].id, s.position("a"), s.position("zz"), s.parent_id(0)
    ('x', 'a', 0, None, None)
    """

    def __init__(self, messages: Iterable[Message] = (), *, file: SpillFile | None = None) -> None:
        self._file = SpillFile() if file is None else file
        self._offsets = array("q")
        self._lengths = array("q")
        self._parents = array("q")  # position of the parent, or _NO_PARENT / _PARENT_BY_ID
        self._parent_ids: dict[int, str] = {}  # position -> parent id, for _PARENT_BY_ID
        self._ids: list[str] = []
        self._positions: dict[str, int] = {}  # last position of each id, as a dict would keep
        for m in messages:
            self.append(m)

    # --- writing -----------------------------------------------------------------

    def _write(self, data: bytes | memoryview) -> tuple[int, int]:
        return self._file.write(data), len(data)

    def _link(self, i: int, parent: str | None) -> int:
        self._parent_ids.pop(i, None)
        if parent is None:
            return _NO_PARENT
        pos = self._positions.get(parent)
        if pos is None or pos >= i:
            self._parent_ids[i] = parent
            return _PARENT_BY_ID
        return pos

    def append(self, message: Message) -> None:
        """Store ``message`` after the others."""
        self._append_stored(message.id, message.parent, _dumps(message).encode("utf-8", _CODEC))

    def append_text(self, message_id: str, parent: str | None, text: str) -> None:
        """Store, after the others, a message given as its stored JSON text (not parsed).

        ``text`` must be what this module stores for a message with that id and
        parent: :meth:`text` of another spill, or an item of :func:`message_texts`.
        It is how a spill is copied without parsing what does not change.
        """
        self._append_stored(message_id, parent, text.encode("utf-8", _CODEC))

    def _append_stored(self, message_id: str, parent: str | None, data: bytes | memoryview) -> None:
        start, length = self._write(data)
        i = len(self._ids)
        self._offsets.append(start)
        self._lengths.append(length)
        self._parents.append(self._link(i, parent))
        self._ids.append(message_id)
        self._positions[message_id] = i

    def __setitem__(self, i: int, message: Message) -> None:
        """Store ``message`` at position ``i`` instead (same id): a late change to a message.

        The new text is written at the end of the file and the old one is no
        longer read; memory stays the same.
        """
        if message.id != self._ids[i]:
            raise ValueError(f"replace at {i}: id {message.id!r} is not {self._ids[i]!r}")
        start, length = self._write(_dumps(message).encode("utf-8", _CODEC))
        self._offsets[i], self._lengths[i] = start, length
        self._parents[i] = self._link(i, message.parent)

    def close(self) -> None:
        """Remove the file now (it also goes when the object is collected); a shared one for all."""
        self._file.close()

    # --- pickling ------------------------------------------------------------------

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the stored texts: the copy writes them into a temporary file of its own.

        An open file cannot cross a process (nor outlive its own), so the pickle
        carries the bytes of each message's current text, in order, with each
        id and parent id; texts replaced by ``spill[i] = ...`` are not carried.
        A spill stays a spill on the other side, at the same memory cost, and
        reads back equal (``copy.deepcopy`` goes the same way). The pickle itself
        is as large as the messages' JSON text, and is built in memory: sending
        a conversation to another process costs that whatever its form (the
        report's workers are sent paths and import for themselves).

        >>> import pickle
        >>> from snapshot.transcript.model import Message
        >>> s = SpilledMessages([Message("a", None, "user", ()), Message("b", "a", "user", ())])
        >>> copy = pickle.loads(pickle.dumps(s))
        >>> type(copy).__name__, copy == s, copy.parent_id(1)
        ('SpilledMessages', True, 'a')
        """
        data = bytearray()  # one buffer, not a list of chunks joined (twice the memory)
        for start, length in zip(self._offsets, self._lengths, strict=True):
            data += self._file.read(start, length)
        parents = [self.parent_id(i) for i in range(len(self))]
        return (_restored, (list(self._ids), parents, array("q", self._lengths), data))

    # --- reading -------------------------------------------------------------------

    def text(self, i: int) -> str:
        """The stored JSON text of message ``i``."""
        return self._file.read(self._offsets[i], self._lengths[i]).decode("utf-8", _CODEC)

    def texts(self) -> Iterator[str]:
        """The stored JSON text of each message, in order (none parsed)."""
        for i in range(len(self)):
            yield self.text(i)

    def id_at(self, i: int) -> str:
        """The id of message ``i``, without parsing it."""
        return self._ids[i]

    def __len__(self) -> int:
        return len(self._ids)

    @overload
    def __getitem__(self, i: int) -> Message: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Message, ...]: ...

    def __getitem__(self, i: int | slice) -> Message | tuple[Message, ...]:
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("message index out of range")
        return message_from_dict(json.loads(self.text(i)))

    def __iter__(self) -> Iterator[Message]:
        for i in range(len(self)):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SpilledMessages({len(self)} messages)"

    # --- the index a Conversation uses ------------------------------------------------

    def position(self, message_id: str) -> int | None:
        """Where the message ``message_id`` is (the last one, for a repeated id), or ``None``."""
        return self._positions.get(message_id)

    def parent_id(self, i: int) -> str | None:
        """The parent id of message ``i``, without parsing it."""
        p = self._parents[i]
        if p == _NO_PARENT:
            return None
        if p == _PARENT_BY_ID:
            return self._parent_ids[i]
        return self._ids[p]

    def ids(self) -> Mapping[str, Message]:
        """The messages by id, parsed on access (what ``Conversation.index`` is for a spill)."""
        return _ById(self)

    def mapped(self, change: Callable[[Message], Message], marker: str) -> SpilledMessages:
        """A new spill with ``change`` applied to each message whose stored text holds ``marker``.

        The other messages are copied as their stored text, unparsed; ``self``
        when none holds it.

        >>> from snapshot.transcript.model import Message, TextBlock
        >>> s = SpilledMessages([Message("a", None, "user", (TextBlock("x"),))])
        >>> s.mapped(lambda m: m, "nothing") is s
        True
        >>> s.mapped(lambda m: Message(m.id, None, "user", ()), '"x"')[0].blocks
        ()
        """
        if not any(marker in text for text in self.texts()):
            return self
        out = SpilledMessages()
        for i, text in enumerate(self.texts()):
            if marker in text:
                out.append(change(message_from_dict(json.loads(text))))
            else:
                out.append_text(self.id_at(i), self.parent_id(i), text)
        return out


def _restored(
    ids: list[str], parents: list[str | None], lengths: array[int], data: bytearray
) -> SpilledMessages:
    """The spill :meth:`SpilledMessages.__reduce__` describes, in a new temporary file."""
    out = SpilledMessages()
    view = memoryview(data)
    start = 0
    for message_id, parent, length in zip(ids, parents, lengths, strict=True):
        out._append_stored(message_id, parent, view[start : start + length])
        start += length
    return out


class _ById(Mapping[str, Message]):
    def __init__(self, spill: SpilledMessages) -> None:
        self._spill = spill

    def __getitem__(self, key: str) -> Message:
        pos = self._spill.position(key)
        if pos is None:
            raise KeyError(key)
        return self._spill[pos]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._spill.position(key) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._spill._positions)

    def __len__(self) -> int:
        return len(self._spill._positions)


def message_texts(messages: Sequence[Message]) -> Iterator[str]:
    """The JSON text of each message, as ``json.dump`` writes it inside a document.

    A spill's stored text is given as it is (not parsed); any other sequence's
    messages are serialized one at a time.

    Examples
    --------
    >>> from snapshot.transcript.model import Message
    >>> m = Message("m", None, "user", ())
    >>> list(message_texts((m,))) == list(message_texts(SpilledMessages([m])))
    True
    """
    if isinstance(messages, SpilledMessages):
        yield from messages.texts()
    else:
        for m in messages:
            yield _dumps(m)


def message_sink(spill: bool, file: SpillFile | None = None) -> list[Message] | SpilledMessages:
    """An empty place to append messages to: a list, or a :class:`SpilledMessages`.

    :func:`frozen` turns it into what a ``Conversation`` holds. ``file``: the
    :class:`SpillFile` a spill writes to, when several share one.

    Examples
    --------
    >>> type(message_sink(False)).__name__, type(message_sink(True)).__name__
    ('list', 'SpilledMessages')
    """
    return SpilledMessages(file=file) if spill else []


def frozen(sink: list[Message] | SpilledMessages) -> Sequence[Message]:
    """A sink as a conversation's messages: a list becomes a tuple, a spill stays itself.

    >>> frozen([])
    ()
    """
    return tuple(sink) if isinstance(sink, list) else sink
