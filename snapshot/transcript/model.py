"""The neutral conversation model every importer produces and every consumer reads.

A :class:`Conversation` is one agent's transcript: a tree of :class:`Message`
objects (each names the message it continues from) and a tip (the message the
conversation is at now). The path from the root to the tip is the linear
history a provider would be sent. Blocks inside a message are text, thinking,
tool calls, tool results and images; images stay bytes (or a file reference)
until someone needs pixels.

All value objects are frozen; operations return new objects.

>>> from snapshot.transcript.model import Conversation, Message, TextBlock
>>> m1 = Message(id="m1", parent=None, role="user", blocks=(TextBlock("hi"),))
>>> m2 = Message(id="m2", parent="m1", role="assistant", blocks=(TextBlock("hello"),))
>>> conv = Conversation(id="c1", messages=(m1, m2), tip="m2")
>>> [m.id for m in conv.path()]
['m1', 'm2']
"""

from __future__ import annotations

import base64
import json
import os
from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TypeAlias

from snapshot.errors import TranscriptError
from snapshot.transcript.image_header import referenced_image_bytes

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]
ROLES: tuple[Role, ...] = ("system", "user", "assistant", "tool")


@dataclass(frozen=True)
class TextBlock:
    text: str


@dataclass(frozen=True)
class ThinkingBlock:
    text: str
    signature: str | None = None


@dataclass(frozen=True)
class ImageBlock:
    """An image: raw bytes (not base64) or a reference to a file.

    ``origin`` says where it came from (a file name, "inline", "tool_result"),
    so a placeholder can name it once the image is dropped. The bytes of a
    referenced file are read only through
    :func:`snapshot.transcript.images.read_image`, which checks where the file
    is and what it holds; the block itself never opens it.
    """

    media_type: str
    data: bytes | None = None
    path: str | None = None
    width: int | None = None
    height: int | None = None
    origin: str = ""

    @property
    def size(self) -> int:
        """Encoded size in bytes: of the inline bytes, or of the referenced file when it is an image.

        A referenced file that is missing, not a regular file or not an image
        counts 0, so a path pointing elsewhere (a key file, a device) never
        has even its size shown in a placeholder.
        """
        if self.data is not None:
            return len(self.data)
        if self.path is None:
            return 0
        return referenced_image_bytes(Path(self.path))


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    input: Mapping[str, Any] = field(default_factory=dict)

    def arguments_json(self) -> str:
        return json.dumps(self.input, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class ToolResult:
    call_id: str
    content: tuple[TextBlock | ImageBlock, ...] = ()
    is_error: bool = False

    def text(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))

    def images(self) -> tuple[ImageBlock, ...]:
        return tuple(b for b in self.content if isinstance(b, ImageBlock))


Block: TypeAlias = TextBlock | ThinkingBlock | ToolCall | ToolResult | ImageBlock


@dataclass(frozen=True)
class Message:
    """One message. ``parent`` is the id of the message it continues from.

    ``meta`` holds format-specific facts worth keeping (timestamps, model,
    ``"kind": "compact_boundary"``, ``"compact_summary": True``, ...).

    Examples
    --------
    Every importer returns its messages as these (exported as ``snapshot.Message``):

    >>> from importlib import resources
    >>> import snapshot
    >>> demo = resources.files("snapshot.demo") / "transcripts" / "demo-coding.json"
    >>> first = snapshot.import_conversation(demo).path()[1]
    >>> isinstance(first, snapshot.Message), first.role, first.parent is not None
    (True, 'user', True)

    Made by hand, blocks are :class:`TextBlock`, :class:`ToolCall`, ... from this module:

    >>> m = Message(id="m1", parent=None, role="user", blocks=(TextBlock("fix the build"),))
    >>> m.text(), m.chars(), m.images()
    ('fix the build', 13, ())
    """

    id: str
    parent: str | None
    role: Role
    blocks: tuple[Block, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise TranscriptError(f"message {self.id!r}: unknown role {self.role!r}")

    def text(self) -> str:
        """The plain text of the message's text blocks."""
        return "\n".join(b.text for b in self.blocks if isinstance(b, TextBlock))

    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(b for b in self.blocks if isinstance(b, ToolCall))

    def tool_results(self) -> tuple[ToolResult, ...]:
        return tuple(b for b in self.blocks if isinstance(b, ToolResult))

    def images(self) -> tuple[ImageBlock, ...]:
        """Images in the message, including those inside tool results."""
        out: list[ImageBlock] = []
        for b in self.blocks:
            if isinstance(b, ImageBlock):
                out.append(b)
            elif isinstance(b, ToolResult):
                out.extend(b.images())
        return tuple(out)

    def chars(self) -> int:
        """Characters of text, thinking, tool-call arguments and tool-result text."""
        return sum(block_chars(b) for b in self.blocks)


def block_chars(block: Block) -> int:
    if isinstance(block, TextBlock | ThinkingBlock):
        return len(block.text)
    if isinstance(block, ToolCall):
        return len(block.arguments_json())
    if isinstance(block, ToolResult):
        return sum(len(b.text) for b in block.content if isinstance(b, TextBlock))
    return 0


class IndexedMessages(Sequence[Message]):
    """Messages held somewhere other than in memory, that find a message and its parent by id.

    What a :class:`Conversation` asks of a sequence that is not a tuple: the
    position of an id, the parent id at a position and a by-id mapping, all
    without parsing a message, so :meth:`Conversation.path_ids` walks the
    path without reading the messages; and :meth:`mapped`, a copy with some
    messages changed that leaves the others as stored. The model does not
    know where or how they are kept: the store and the importers' large-input
    path (:class:`snapshot.transcript.spill.SpilledMessages`) implement it.
    """

    @abstractmethod
    def position(self, message_id: str) -> int | None:
        """Where the message ``message_id`` is (the last one, for a repeated id), or ``None``."""

    @abstractmethod
    def parent_id(self, i: int) -> str | None:
        """The parent id of message ``i``, without parsing it."""

    @abstractmethod
    def ids(self) -> Mapping[str, Message]:
        """The messages by id, parsed on access."""

    @abstractmethod
    def mapped(self, change: Callable[[Message], Message], marker: str) -> IndexedMessages:
        """A copy with ``change`` applied to each message whose JSON form holds ``marker``.

        The JSON form is :func:`message_to_dict` as ``json.dumps`` writes it;
        the other messages are copied as they are kept, unread. ``self`` when
        no message holds ``marker``.
        """


@dataclass(frozen=True)
class Conversation:
    """One agent's transcript: every message ever recorded, and the current tip.

    ``messages`` is in recording order and may hold abandoned branches; the
    live history is :meth:`path`. Two agents of one conversation (a main
    session and its subagent) are two ``Conversation`` objects with the same
    ``id`` and different ``agent``.

    ``image_folders`` are the folders its path-referenced images may be read
    from (:func:`snapshot.transcript.images.image_roots`). Whoever reads a
    conversation from a record sets them from where the record lies (a stored
    conversation: its own folder in the store), never from what the record
    says, so a hand-edited store file cannot widen them; they are not written
    by :func:`conversation_to_dict`. ``None``, for a conversation an importer
    made, means the folder of ``source``, which the importer set to the file
    it read.

    Examples
    --------
    What every import returns (exported as ``snapshot.Conversation``):

    >>> from importlib import resources
    >>> import snapshot
    >>> demo = resources.files("snapshot.demo") / "transcripts" / "demo-coding.json"
    >>> conv = snapshot.import_conversation(demo)
    >>> isinstance(conv, snapshot.Conversation), conv.agent, conv.path()[-1].id == conv.tip
    (True, 'main', True)

    A branch: two messages continue from one; the tip picks the live path.

    >>> a = Message("a", None, "user", (TextBlock("hi"),))
    >>> b1 = Message("b1", "a", "assistant", (TextBlock("first try"),))
    >>> b2 = Message("b2", "a", "assistant", (TextBlock("second try"),))
    >>> tree = Conversation(id="c", messages=(a, b1, b2), tip="b2")
    >>> [m.id for m in tree.path()], [m.id for m in tree.children("a")]
    (['a', 'b2'], ['b1', 'b2'])
    """

    id: str
    messages: Sequence[Message]
    tip: str | None
    agent: str = "main"
    format: str = ""
    source: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    image_folders: tuple[str, ...] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.tip is not None and self.tip not in self.index:
            raise TranscriptError(f"conversation {self.id!r}: tip {self.tip!r} is not a message")

    @property
    def index(self) -> Mapping[str, Message]:
        """The messages by id (for messages kept on disk, parsed on access)."""
        cached: Mapping[str, Message] | None = self.__dict__.get("_index")
        if cached is None:
            if isinstance(self.messages, IndexedMessages):
                cached = self.messages.ids()
            else:
                cached = {m.id: m for m in self.messages}
            object.__setattr__(self, "_index", cached)
        return cached

    def get(self, message_id: str) -> Message:
        try:
            return self.index[message_id]
        except KeyError:
            raise TranscriptError(
                f"conversation {self.id!r} has no message {message_id!r}"
            ) from None

    def path_ids(self, tip: str | None = None) -> list[str]:
        """Ids of the messages from the root to ``tip`` (default: the current tip).

        For messages kept elsewhere (:class:`IndexedMessages`) nothing is
        parsed: read the messages one at a time with :meth:`get`.

        Examples
        --------
        >>> conv = linear("c", [("a", "user", []), ("b", "assistant", [])])
        >>> conv.path_ids(), conv.path_ids("a")
        (['a', 'b'], ['a'])
        """
        spill = self.messages if isinstance(self.messages, IndexedMessages) else None
        node = self.tip if tip is None else tip
        out: list[str] = []
        seen: set[str] = set()
        while node is not None:
            if node in seen:
                raise TranscriptError(f"conversation {self.id!r}: parent cycle at {node!r}")
            seen.add(node)
            pos = None if spill is None else spill.position(node)
            # get() parses a message (and raises for a missing one); a spill's index does not
            parent = self.get(node).parent if spill is None or pos is None else spill.parent_id(pos)
            out.append(node)
            node = parent
        out.reverse()
        return out

    def iter_path(self, tip: str | None = None) -> Iterator[Message]:
        """The messages of :meth:`path`, one at a time (for messages on disk: one parsed at a time).

        Examples
        --------
        >>> conv = linear("c", [("a", "user", [TextBlock("hi")]), ("b", "assistant", [])])
        >>> [m.role for m in conv.iter_path()]
        ['user', 'assistant']
        """
        for mid in self.path_ids(tip):
            yield self.get(mid)

    def path(self, tip: str | None = None) -> tuple[Message, ...]:
        """Messages from the root to ``tip`` (default: the current tip).

        Every message of the path, parsed and held at once, even for messages
        kept on disk: for those who need them all together (the ladder cuts,
        counts and renders the path; the exporters and the report read it
        whole). A caller that looks at one message at a time uses
        :meth:`iter_path` (or :meth:`path_ids`) and keeps a spill's memory.
        """
        return tuple(self.iter_path(tip))

    def children(self, message_id: str | None) -> tuple[Message, ...]:
        return tuple(m for m in self.messages if m.parent == message_id)

    def with_messages(self, messages: Sequence[Message], tip: str | None) -> Conversation:
        """A copy holding ``messages`` with ``tip``; the index is rebuilt."""
        kept = messages if isinstance(messages, IndexedMessages) else tuple(messages)
        fresh = replace(self, messages=kept, tip=tip)
        fresh.__dict__.pop("_index", None)
        return fresh


def linear(
    conv_id: str,
    messages: Iterable[tuple[str, Role, Sequence[Block]]],
    **kwargs: Any,
) -> Conversation:
    """Build a conversation whose messages each continue from the previous one."""
    built: list[Message] = []
    parent: str | None = None
    for mid, role, blocks in messages:
        built.append(Message(id=mid, parent=parent, role=role, blocks=tuple(blocks)))
        parent = mid
    return Conversation(id=conv_id, messages=tuple(built), tip=parent, **kwargs)


# --- tool-call pairing -------------------------------------------------------


@dataclass(frozen=True)
class Pairing:
    """How the tool calls and results on a path pair up.

    ``orphan_results``: results whose call does not appear earlier on the path.
    ``unanswered_calls``: calls with no result later on the path.
    """

    orphan_results: tuple[str, ...]
    unanswered_calls: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.orphan_results and not self.unanswered_calls


def tool_pairing(messages: Iterable[Message]) -> Pairing:
    # A count per id: redacted logs give many calls one id, each answered in turn.
    open_calls: dict[str, int] = {}
    orphans: list[str] = []
    for msg in messages:
        for block in msg.blocks:
            if isinstance(block, ToolCall):
                open_calls[block.id] = open_calls.get(block.id, 0) + 1
            elif isinstance(block, ToolResult):
                if open_calls.get(block.call_id):
                    open_calls[block.call_id] -= 1
                else:
                    orphans.append(block.call_id)
    unanswered = tuple(cid for cid, n in open_calls.items() for _ in range(n))
    return Pairing(orphan_results=tuple(orphans), unanswered_calls=unanswered)


# --- statistics --------------------------------------------------------------


@dataclass(frozen=True)
class Stats:
    messages: int
    tool_calls: int
    tool_results: int
    images: int
    chars: int
    tool_result_chars: int


def stats(messages: Iterable[Message]) -> Stats:
    n = calls = results = images = chars = result_chars = 0
    for m in messages:
        n += 1
        calls += len(m.tool_calls())
        results += len(m.tool_results())
        images += len(m.images())
        chars += m.chars()
        result_chars += sum(block_chars(r) for r in m.tool_results())
    return Stats(n, calls, results, images, chars, result_chars)


# --- JSON form (used by the store) ---------------------------------------------


def block_to_dict(block: Block) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ThinkingBlock):
        d: dict[str, Any] = {"type": "thinking", "text": block.text}
        if block.signature is not None:
            d["signature"] = block.signature
        return d
    if isinstance(block, ToolCall):
        return {"type": "tool_call", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ToolResult):
        return {
            "type": "tool_result",
            "call_id": block.call_id,
            "is_error": block.is_error,
            "content": [block_to_dict(b) for b in block.content],
        }
    d = {"type": "image", "media_type": block.media_type, "origin": block.origin}
    if block.data is not None:
        d["data"] = base64.b64encode(block.data).decode("ascii")
    if block.path is not None:
        d["path"] = block.path
    if block.width is not None:
        d["width"] = block.width
    if block.height is not None:
        d["height"] = block.height
    return d


def block_from_dict(d: Mapping[str, Any]) -> Block:
    kind = d.get("type")
    try:
        if kind == "text":
            return TextBlock(str(d["text"]))
        if kind == "thinking":
            return ThinkingBlock(str(d["text"]), d.get("signature"))
        if kind == "tool_call":
            return ToolCall(str(d["id"]), str(d["name"]), dict(d.get("input") or {}))
        if kind == "tool_result":
            content = tuple(block_from_dict(b) for b in d.get("content", ()))
            for b in content:
                if not isinstance(b, TextBlock | ImageBlock):
                    raise TranscriptError("tool result content must be text or images")
            return ToolResult(str(d["call_id"]), content, bool(d.get("is_error", False)))  # type: ignore[arg-type]
        if kind == "image":
            data, path = d.get("data"), d.get("path")
            if path is not None and not isinstance(path, str):
                raise TranscriptError(f"image path must be a string, not {path!r}")
            return ImageBlock(
                media_type=str(d["media_type"]),
                data=base64.b64decode(data) if data is not None else None,
                path=path,
                width=d.get("width"),
                height=d.get("height"),
                origin=str(d.get("origin", "")),
            )
    except (KeyError, TypeError, ValueError) as exc:
        raise TranscriptError(f"malformed {kind!r} block: {exc}") from exc
    raise TranscriptError(f"unknown block type {kind!r}")


def message_to_dict(m: Message) -> dict[str, Any]:
    return {
        "id": m.id,
        "parent": m.parent,
        "role": m.role,
        "blocks": [block_to_dict(b) for b in m.blocks],
        "meta": dict(m.meta),
    }


def message_from_dict(d: Mapping[str, Any]) -> Message:
    try:
        return Message(
            id=str(d["id"]),
            parent=None if d.get("parent") is None else str(d["parent"]),
            role=d["role"],
            blocks=tuple(block_from_dict(b) for b in d.get("blocks", ())),
            meta=dict(d.get("meta") or {}),
        )
    except KeyError as exc:
        raise TranscriptError(f"message record lacks {exc}") from exc


def conversation_head_to_dict(c: Conversation) -> dict[str, Any]:
    """:func:`conversation_to_dict` without ``messages`` (its last key), for writing them one by one.

    Examples
    --------
    >>> list(conversation_head_to_dict(linear("c", [("a", "user", [])])))
    ['id', 'agent', 'format', 'source', 'tip', 'meta', 'warnings']
    """
    return {
        "id": c.id,
        "agent": c.agent,
        "format": c.format,
        "source": c.source,
        "tip": c.tip,
        "meta": dict(c.meta),
        "warnings": list(c.warnings),
    }


def conversation_to_dict(c: Conversation) -> dict[str, Any]:
    """The whole record of ``c``, every message as a dict, all in memory at once.

    For a conversation kept on disk (:mod:`snapshot.transcript.spill`) that
    is every message parsed; whoever writes one out (``--out``, the store)
    writes :func:`conversation_head_to_dict` and then each message's text
    (:func:`~snapshot.transcript.spill.message_texts`) instead, to the same bytes.
    """
    return {
        **conversation_head_to_dict(c),
        "messages": [message_to_dict(m) for m in c.messages],
    }


def conversation_from_dict(
    d: Mapping[str, Any],
    folder: str | os.PathLike[str] | None = None,
    *,
    messages: Sequence[Message] | None = None,
) -> Conversation:
    """The conversation a record (:func:`conversation_to_dict`) describes.

    Parameters
    ----------
    d : mapping
        The record.
    folder : path, optional
        The folder the record was read from (a store file's own folder): the
        one folder its path-referenced images may come from, and the folder a
        relative image path is relative to. Without it no folder is trusted;
        the record's ``source`` never is.
    messages : sequence of Message, optional
        The messages, already read (a spill the store filled one record at a
        time), instead of the record's ``messages``.

    Returns
    -------
    Conversation
        With ``image_folders`` set to ``(folder,)``, or ``()``.

    Raises
    ------
    TranscriptError
        A record that lacks a required field or holds a malformed block.

    Examples
    --------
    >>> rec = conversation_to_dict(linear("c", [("m", "user", [ImageBlock("image/png", path="a.png")])]))
    >>> c = conversation_from_dict(rec, folder="/store/c")
    >>> c.image_folders, c.messages[0].blocks[0].path
    (('/store/c',), '/store/c/a.png')
    >>> conversation_from_dict(rec | {"source": "/home/me/.ssh/x"}).image_folders
    ()
    """
    try:
        conv = Conversation(
            id=str(d["id"]),
            agent=str(d.get("agent", "main")),
            format=str(d.get("format", "")),
            source=str(d.get("source", "")),
            tip=d.get("tip"),
            meta=dict(d.get("meta") or {}),
            warnings=tuple(d.get("warnings", ())),
            messages=(
                tuple(message_from_dict(m) for m in d["messages"]) if messages is None else messages
            ),
            image_folders=() if folder is None else (str(folder),),
        )
    except KeyError as exc:
        raise TranscriptError(f"conversation record lacks {exc}") from exc
    if folder is None:
        return conv
    base = Path(folder)

    def rooted(img: ImageBlock) -> ImageBlock:
        if img.path is None or Path(img.path).is_absolute():
            return img
        return replace(img, path=str(base / img.path))

    return map_images(conv, rooted)


#: Every image block's JSON text holds this (block_to_dict puts "type" first,
#: json.dumps writes ": " between key and value); text inside a string cannot hold
#: its unescaped quotes, so a message whose text lacks it has no image.
IMAGE_JSON = '"type": "image"'


def map_images(conv: Conversation, change: Callable[[ImageBlock], ImageBlock]) -> Conversation:
    """``conv`` with every image block (in messages and in tool results) replaced by ``change(block)``.

    Messages kept elsewhere (:class:`IndexedMessages`) stay there: only those
    holding an image are read and changed (:meth:`IndexedMessages.mapped`).

    Examples
    --------
    >>> img = ImageBlock("image/png", path="a.png")
    >>> conv = linear("c", [("m", "user", [img]), ("n", "user", [TextBlock("x")])])
    >>> out = map_images(conv, lambda b: replace(b, path="b.png"))
    >>> out.messages[0].blocks[0].path, out.messages[1] is conv.messages[1]
    ('b.png', True)
    """

    # A block or message nothing changed stays the same object (a store skips those unread).
    def one(b: Block) -> Block:
        if isinstance(b, ImageBlock):
            return change(b)
        if isinstance(b, ToolResult) and b.images():
            content = tuple(change(x) if isinstance(x, ImageBlock) else x for x in b.content)
            same = all(x is y for x, y in zip(content, b.content, strict=True))
            return b if same else replace(b, content=content)
        return b

    def changed(m: Message) -> Message:
        if not m.images():
            return m
        blocks = tuple(one(b) for b in m.blocks)
        return (
            m
            if all(x is y for x, y in zip(blocks, m.blocks, strict=True))
            else replace(m, blocks=blocks)
        )

    if isinstance(conv.messages, IndexedMessages):
        return conv.with_messages(conv.messages.mapped(changed, IMAGE_JSON), conv.tip)
    return conv.with_messages([changed(m) for m in conv.messages], conv.tip)


def iter_blocks(messages: Iterable[Message]) -> Iterator[tuple[Message, Block]]:
    for m in messages:
        for b in m.blocks:
            yield m, b
