"""One JSON document read a piece at a time: the long list in it element by element.

A session recorded as one JSON document (a Gemini CLI chat, a Cline task, a
Continue session, a browser-use history) is mostly one long list: the
messages. :class:`JSONDocument` reads the file in chunks and parses each
element of that list on its own, so memory holds one element and a buffer,
never the whole document or all its parsed elements. Everything else at the
top level (the session's id, times, title) is parsed whole into
:attr:`JSONDocument.fields`.

The values are exactly what :func:`json.loads` gives, and its errors and
warnings are worded as the whole-document readers it replaced worded them
(lenient: bad UTF-8 is one warning; strict, as
:func:`~snapshot.transcript.formats._common.load_json`: bad UTF-8 is an error),
naming the file, line and column.

>>> import tempfile
>>> from pathlib import Path
>>> from snapshot.transcript.formats._common import Warnings
>>> path = Path(tempfile.mkdtemp()) / "chat.json"
>>> _ = path.write_text('{"sessionId": "s1", "messages": [{"n": 1}, {"n": 2}], "end": true}')
>>> doc = JSONDocument(path, "messages", Warnings())
>>> doc.shape, doc.found, doc.fields
('object', True, {'sessionId': 's1'})
>>> [m["n"] for m in doc.items()], doc.fields
([1, 2], {'sessionId': 's1', 'end': True})
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Literal

from snapshot.errors import TranscriptError
from snapshot.transcript.formats._common import (
    JSON_LIMIT_ERRORS,
    MAX_DOCUMENT_BYTES,
    Warnings,
    json_limit_error,
)

__all__ = ["EVERY_LIST", "JSONDocument"]

# Bytes read at a time; a value longer than the buffer doubles the read.
CHUNK_BYTES = 1 << 20

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
# A parse error this close to the end of the buffer may be the end of the data
# so far, not of the value: read more and try again. (Further back it is final:
# JSON is read left to right, and only an unterminated string is reported at its
# start rather than where the data ran out.)
_NEAR_END = 32

Shape = Literal["object", "array", "other"]

#: ``key`` that streams every top-level list, one after the other (for reading a
#: document's text without knowing its format).
EVERY_LIST = "\x00every list"


class JSONDocument:
    """A JSON file whose long list (top-level key ``key``, or the top-level array) is read lazily.

    Opening reads up to the start of that list. Iterate :meth:`items` once to
    the end; the file is closed then, and :attr:`fields` holds every other
    top-level key by then (those before the list already at opening).

    Parameters
    ----------
    path
        The file.
    key
        The top-level key of the list to read element by element; ``None``
        streams only a top-level array; :data:`EVERY_LIST` streams each
        top-level list in turn. A tuple of keys names objects to go into first,
        then the list: ``("conversation", "messages")``; the objects' other keys
        are in :attr:`fields` as dicts (``fields["conversation"]["id"]``).
    warnings
        Lenient reading (bad UTF-8 is replaced with U+FFFD and warned about
        once here); ``None`` reads strictly (bad UTF-8 is an error).
    skip
        Top-level keys whose lists are read element by element and dropped
        (a second copy of the history the importer does not use), absent from
        :attr:`fields`.

    Attributes
    ----------
    shape
        ``"object"``, ``"array"`` or ``"other"``: the top-level value's kind.
    found
        Whether the list is there (a top-level array, or ``key`` holds an array).
    fields
        The top-level object's other keys, parsed whole.
    value
        The whole top-level value when it is neither an object nor an array.

    Raises
    ------
    TranscriptError
        On opening or while iterating: the file cannot be read, is not UTF-8
        (strict), is malformed JSON (file, line and column), holds a single value
        larger than ``MAX_DOCUMENT_BYTES``, or a value Python will not hold.

    Examples
    --------
    A top-level array streams whatever the key; a malformed element is an error
    that names its line:

    >>> import tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "history.json"
    >>> _ = path.write_text('[{"role": "user"},\\n {"role": }]')
    >>> doc = JSONDocument(path, "messages")
    >>> doc.shape, doc.found
    ('array', True)
    >>> it = doc.items()
    >>> next(it)
    {'role': 'user'}
    >>> next(it)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    snapshot.errors.TranscriptError: ...history.json:2:11: malformed JSON: Expecting value; ...
    """

    def __init__(
        self,
        path: Path,
        key: str | tuple[str, ...] | None,
        warnings: Warnings | None = None,
        skip: Collection[str] = (),
    ) -> None:
        self.path = path
        # A tuple key names objects to go into, then the list: ("conversation", "messages").
        self._nest: tuple[str, ...] = tuple(key[:-1]) if isinstance(key, tuple) else ()
        self.key = key[-1] if isinstance(key, tuple) else key
        self._inside: list[dict[str, Any]] = []  # the objects gone into, innermost last
        self._skip = skip
        self._streamed = False  # a list under ``key`` was streamed (a repeat is a field)
        self.fields: dict[str, Any] = {}
        self.value: Any = None
        self.found = False
        self.shape: Shape = "other"
        self._warnings = warnings
        self._decode = codecs.getincrementaldecoder("utf-8")("strict").decode
        self._started = False  # any text decoded yet
        self._bytes_read = 0
        self._newlines_decoded = 0
        self._buf = ""
        self._pos = 0
        self._eof = False
        # Where the buffer starts in the file's text: lines before it, and the
        # column its first character is at (for error messages).
        self._line0 = 0
        self._col0 = 0
        try:
            self._fh: BinaryIO = path.open("rb")
        except OSError as exc:
            raise TranscriptError(f"{path}: cannot be read: {exc}") from exc
        self._iterated = False
        try:
            self._open()
        except BaseException:
            self._fh.close()
            raise
        if not self.found:
            self._fh.close()

    # --- reading the file ----------------------------------------------------------

    def _more(self) -> bool:
        """Append the next chunk to the buffer (dropping what is parsed); False at the end."""
        if self._eof:
            return False
        if self._pos:
            done = self._buf[: self._pos]
            newlines = done.count("\n")
            if newlines:
                self._line0 += newlines
                self._col0 = len(done) - done.rfind("\n") - 1
            else:
                self._col0 += len(done)
            self._buf, self._pos = self._buf[self._pos :], 0
        if len(self._buf) > MAX_DOCUMENT_BYTES:
            raise TranscriptError(
                f"{self.path}:{self._line0 + 1}: a single JSON value of more than "
                f"{MAX_DOCUMENT_BYTES} bytes; it cannot be imported"
            )
        try:
            raw = self._fh.read(max(CHUNK_BYTES, len(self._buf)))
        except OSError as exc:
            raise TranscriptError(f"{self.path}: cannot be read: {exc}") from exc
        text = self._text(raw, final=not raw)
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")  # a byte-order mark is not part of the JSON
        self._bytes_read += len(raw)
        self._newlines_decoded += text.count("\n")
        self._buf += text
        if not raw:
            self._eof = True
        return bool(raw) or bool(text)

    def _text(self, raw: bytes, final: bool) -> str:
        try:
            return self._decode(raw, final)
        except UnicodeDecodeError as exc:
            # The decoder's input is the bytes it held back from the last chunk, then raw.
            at = self._bytes_read - (len(exc.object) - len(raw)) + exc.start
            if self._warnings is None:
                raise TranscriptError(
                    f"{self.path}: not UTF-8 text ({exc.reason} at byte {at})"
                ) from exc
            line = self._newlines_decoded + exc.object.count(b"\n", 0, exc.start) + 1
            self._warnings.add(
                f"{self.path}:{line}: invalid UTF-8 at byte {at}; undecodable bytes "
                "replaced with U+FFFD"
            )
            self._decode = codecs.getincrementaldecoder("utf-8")("replace").decode
            return self._decode(exc.object, final)

    # --- parsing ---------------------------------------------------------------------

    def _where(self, pos: int) -> tuple[int, int]:
        """(line, column) of buffer position ``pos``, both from 1."""
        nl = self._buf.rfind("\n", 0, pos)
        line = self._line0 + self._buf.count("\n", 0, pos) + 1
        col = pos - nl if nl >= 0 else self._col0 + pos + 1
        return line, col

    def _malformed(self, msg: str, pos: int) -> TranscriptError:
        line, col = self._where(pos)
        if self._warnings is None:
            return TranscriptError(
                f"{self.path}:{line}:{col}: malformed JSON: {msg}; fix the file or import another one"
            )
        return TranscriptError(
            f"{self.path}:{line}: malformed JSON ({msg} at column {col}); "
            "the file holds one JSON document, so nothing can be imported"
        )

    def _peek(self) -> str:
        """The next character that is not whitespace ('' at the end), not consumed."""
        while True:
            m = _WHITESPACE.match(self._buf, self._pos)
            assert m is not None  # the pattern matches the empty string
            self._pos = m.end()
            if self._pos < len(self._buf):
                return self._buf[self._pos]
            if not self._more():
                return ""

    def _expect(self, allowed: str, msg: str) -> str:
        c = self._peek()
        if not c or c not in allowed:
            raise self._malformed(msg, self._pos)
        self._pos += 1
        return c

    def _value(self) -> Any:
        """The whole JSON value at the current position."""
        self._peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError as exc:
                maybe_cut = exc.pos >= len(self._buf) - _NEAR_END or exc.msg.startswith(
                    "Unterminated string"
                )
                if maybe_cut and not self._eof:
                    self._more()  # then parse again: the buffer has moved
                    continue
                raise self._malformed(exc.msg, exc.pos) from exc
            except JSON_LIMIT_ERRORS as exc:
                line = self._where(self._pos)[0]
                error = json_limit_error(self.path, self._buf[self._pos :], exc)
                raise TranscriptError(_shift_line(str(error), self.path, line - 1)) from exc
            # A number may go on in the next chunk: only a following character proves it ended.
            if end >= len(self._buf) and not self._eof:
                self._more()
                continue
            self._pos = end
            return value

    def _open(self) -> None:
        c = self._peek()
        if c == "[":
            self.shape, self.found = "array", True
            self._pos += 1
            return
        if c != "{":
            self.value = self._value()
            self._end()
            return
        self.shape = "object"
        self._pos += 1
        if self._peek() == "}":
            self._pos += 1
            self._end()
            return
        self._fields_until_list()

    def _fields_until_list(self) -> None:
        """Parse ``key: value`` pairs until the list starts or the (top-level) object ends."""
        while True:
            if self._peek() != '"':
                raise self._malformed(
                    "Expecting property name enclosed in double quotes", self._pos
                )
            name = self._value()
            self._expect(":", "Expecting ':' delimiter")
            depth = len(self._inside)
            target = self._inside[-1] if self._inside else self.fields
            if depth < len(self._nest):
                if name == self._nest[depth] and name not in target and self._peek() == "{":
                    self._pos += 1
                    inner: dict[str, Any] = {}
                    target[name] = inner
                    self._inside.append(inner)
                    if self._peek() != "}":
                        continue  # the inner object's first key
                    self._pos += 1
                    self._inside.pop()
                    if self._closed():
                        return
                    continue
                streams = False
            else:
                streams = name not in self._skip and (
                    self.key == EVERY_LIST or (name == self.key and not self._streamed)
                )
            if streams and self._peek() == "[":
                self._pos += 1
                self.found = self._streamed = True
                return
            if name in self._skip and self._peek() == "[":
                self._pos += 1
                for _ in self._elements():
                    pass
            else:
                target[name] = self._value()
            if self._closed():
                return

    def _closed(self) -> bool:
        """After a member: True once the top-level object is closed (and nothing follows)."""
        while self._expect(",}", "Expecting ',' delimiter") == "}":
            if not self._inside:
                self._end()
                return True
            self._inside.pop()
        return False

    def _end(self) -> None:
        if self._peek():
            raise self._malformed("Extra data", self._pos)

    def items(self) -> Iterator[Any]:
        """Each element of the list, parsed one at a time; then the rest of the document."""
        if self._iterated:
            raise RuntimeError("JSONDocument.items() reads the file once")
        self._iterated = True
        if not self.found:
            return
        try:
            yield from self._elements()
            while self.shape == "object":
                if self._closed():
                    break
                self.found = False
                self._fields_until_list()  # to the next list streamed, or the end
                if not self.found:
                    break
                yield from self._elements()
            else:
                self._end()
            self.found = True
        finally:
            self._fh.close()

    def _elements(self) -> Iterator[Any]:
        """The elements of the list just opened, through its closing bracket."""
        if self._peek() == "]":
            self._pos += 1
            return
        while True:
            yield self._value()
            if self._expect(",]", "Expecting ',' delimiter") == "]":
                return
            if self._peek() == "]":
                raise self._malformed("Expecting value", self._pos)

    def close(self) -> None:
        """Close the file without reading the list (it is closed anyway once :meth:`items` ends)."""
        self._fh.close()


def _shift_line(message: str, path: Path, lines: int) -> str:
    """``message`` with the line after ``path:`` moved down by ``lines``."""
    prefix = f"{path}:"
    if not lines or not message.startswith(prefix):
        return message
    rest = message[len(prefix) :]
    number, sep, tail = rest.partition(":")
    if not number.isdigit():
        return message
    return f"{prefix}{int(number) + lines}{sep}{tail}"
