"""Text that round-trips: code points UTF-8 cannot hold replaced, and counted.

JSON may spell a lone surrogate (``"\\ud83d"``, half an emoji, which agents
written in JavaScript leave when they cut a string mid-character). Python
decodes it into a ``str`` that cannot be encoded again, so a conversation
holding one could be imported but never saved, exported or printed. Every
importer's result and every stored record passes through these functions: each
such code point becomes U+FFFD and the count goes into the conversation's
warnings, so the loss is visible, not silent.

>>> encodable_text("ok \\ud83d")
('ok \\ufffd', 1)
>>> encodable_value({"a": ["\\udc00x", 3], "\\ud800": None})
({'a': ['\\ufffdx', 3], '\\ufffd': None}, 2)
"""

from __future__ import annotations

import itertools
import re
from dataclasses import replace
from typing import Any

from snapshot.transcript.model import (
    Conversation,
    conversation_from_dict,
    conversation_head_to_dict,
    message_from_dict,
    message_to_dict,
)
from snapshot.transcript.spill import SpilledMessages, frozen, message_sink, message_texts

# Surrogate code points never stand for a character in a str; UTF-8 refuses them.
_UNENCODABLE = re.compile("[\ud800-\udfff]")


def encodable_text(text: str) -> tuple[str, int]:
    """``text`` with every unencodable code point replaced by U+FFFD, and how many were.

    Parameters
    ----------
    text : str

    Returns
    -------
    (str, int)
    """
    if text.isascii():
        return text, 0
    return _UNENCODABLE.subn("\ufffd", text)


def encodable_value(value: Any) -> tuple[Any, int]:
    """A JSON-like value with :func:`encodable_text` applied to every string (keys too).

    Parameters
    ----------
    value : object
        Dicts, lists, tuples, strings and scalars, as ``json`` produces.

    Returns
    -------
    (object, int)
        The cleaned value (lists for tuples) and the number of replacements.
    """
    if isinstance(value, str):
        return encodable_text(value)
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        total = 0
        for k, v in value.items():
            k2, nk = encodable_text(k) if isinstance(k, str) else (k, 0)
            v2, nv = encodable_value(v)
            out[k2] = v2
            total += nk + nv
        return out, total
    if isinstance(value, list | tuple):
        items = [encodable_value(v) for v in value]
        return [v for v, _ in items], sum(n for _, n in items)
    return value, 0


def _needs_cleaning(conv: Conversation) -> bool:
    # Cheap pre-check: the encoder fails on the first surrogate anywhere. One
    # message at a time: the JSON text of a whole 500 MB session (and its bytes)
    # would cost twice the conversation's own memory just to find none.
    import json

    # The tip is one of the messages' ids, checked with them.
    head = conversation_head_to_dict(replace(conv, messages=(), tip=None))
    try:
        for text in itertools.chain(
            [json.dumps(head, ensure_ascii=False)], message_texts(conv.messages)
        ):
            text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    except (TypeError, ValueError):
        return False
    return False


def encodable_conversation(conv: Conversation) -> Conversation:
    """``conv`` unchanged when it can be written as UTF-8, else cleaned with a warning.

    Parameters
    ----------
    conv : Conversation

    Returns
    -------
    Conversation
        With U+FFFD for each unencodable code point and one warning counting them.

    Examples
    --------
    >>> from snapshot.transcript.model import linear, TextBlock
    >>> c = encodable_conversation(linear("c", [("m1", "user", [TextBlock("a\\ud83d")])]))
    >>> c.messages[0].blocks[0].text, c.warnings[-1]
    ('a\\ufffd', '1 unencodable character(s) (lone surrogates) replaced with U+FFFD at import')
    """
    if not _needs_cleaning(conv):
        return conv
    # Message by message, into the same kind of sequence (a spill stays on disk).
    head, replaced = encodable_value(conversation_head_to_dict(conv))
    sink = message_sink(isinstance(conv.messages, SpilledMessages))
    for m in conv.messages:
        record, n = encodable_value(message_to_dict(m))
        replaced += n
        sink.append(message_from_dict(record))
    bare = conversation_from_dict({**head, "tip": None, "messages": []})
    cleaned = replace(bare, messages=frozen(sink), tip=head["tip"])
    note = f"{replaced} unencodable character(s) (lone surrogates) replaced with U+FFFD at import"
    # The folders its images may come from are the caller's to say, not the record's.
    return replace(cleaned, warnings=(*cleaned.warnings, note), image_folders=conv.image_folders)
