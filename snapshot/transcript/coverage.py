"""How much of a transcript file's text an import kept.

An importer that misreads a file (the wrong format forced, an unknown record
type skipped) loses text without failing. This module measures the loss: the
*text* of a file is every distinct string value in it that reads as prose or
code (it holds whitespace, and is not base64), and an import *keeps* such a
string in the share of its runs of three consecutive words that appear in the
imported conversations (what the model saw: message text, thinking, tool-call
arguments and tool results, plus the conversations' own header metadata such
as instructions; never a message's bookkeeping); strings of one or two words count
by their words. Strings that are JSON documents themselves (tool arguments
are often stored as a JSON string) are looked into. Word runs survive an
importer trimming a label or appending a suffix; repeated strings count once
(formats that re-send the whole history each step are not penalised for
keeping it once). Characters are counted without whitespace.

Only model-visible text is judged: a format names the records the tool keeps
for itself (``Format.ui_records``: progress streams, UI event copies, file
snapshots) and the keys (``Format.unread_keys``); their text is counted apart,
by kind, in :attr:`Coverage.ui_only`, and said separately in the warning.

JSON lines are read one line at a time, and the kept side is a bounded sample
of word-run hashes, so measuring a large session needs little memory beyond
the conversation itself.

>>> from snapshot.transcript.model import linear, TextBlock
>>> conv = linear("c", [("m1", "user", [TextBlock("hello there")])])
>>> kept_share(["hello there", "a lost sentence"], [conv]).share
0.435
"""

from __future__ import annotations

import html
import json
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snapshot.errors import TranscriptError
from snapshot.transcript.files import bounded_lines, check_inside
from snapshot.transcript.model import (
    Conversation,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResult,
)

# Below this share of a file's text kept, an import says so in its warnings.
WARN_SHARE = 0.90

# A file with less text than this is too small to judge by its share
# (a stray label is a large part of it): it counts as fully kept.
MIN_JUDGED_CHARS = 400

# Files larger than this are not measured (a whole-document format would have
# to be parsed a second time); the import itself is unaffected.
MAX_MEASURED_BYTES = 1 << 30

# The first line is parsed to tell JSON lines from one document only up to this long.
_FIRST_LINE_BYTES = 1 << 20

# Suffixes of files inside a folder log that hold its text (not images, and not
# the tool's own diagnostic .log files).
_TEXT_SUFFIXES = {".json", ".jsonl", ".md", ".txt", ".yaml", ".yml"}

_BASE64 = re.compile(r"[A-Za-z0-9+/=_\-\s]+")
# A Markdown line's heading or blockquote marker.
_MD_MARKER = re.compile(r"^ {0,3}(#{1,6}|>)(?=\s|$) ?")


@dataclass(frozen=True)
class Coverage:
    """``kept`` of ``total`` text characters; ``share`` is 1.0 for a file with no text."""

    total: int
    kept: int
    # Characters of UI-only text (records and keys the model never saw), by kind.
    ui_only: Mapping[str, int] = field(default_factory=dict)

    @property
    def share(self) -> float:
        return 1.0 if self.total == 0 else round(self.kept / self.total, 3)

    @property
    def judged(self) -> bool:
        """Is there enough text for the share to mean something?"""
        return self.total >= MIN_JUDGED_CHARS

    def warning(self, path: Path | str) -> str:
        """The line an import below :data:`WARN_SHARE` carries.

        >>> print(Coverage(1000, 800, {"progress": 50}).warning("s.jsonl"))
        ... # doctest: +NORMALIZE_WHITESPACE
        s.jsonl: the import kept 80% of the file's model-visible text (800 of 1,000 characters);
        the rest was not read; UI-only text, not measured: 50 characters (progress: 50)
        """
        line = (
            f"{path}: the import kept {self.share:.0%} of the file's model-visible text "
            f"({self.kept:,} of {self.total:,} characters); the rest was not read"
        )
        return line + self.ui_note()

    def ui_note(self) -> str:
        """``"; UI-only text, not measured: N characters (kind: n, ...)"`` or ``""``."""
        if not self.ui_only:
            return ""
        detail = ", ".join(f"{k}: {n:,}" for k, n in sorted(self.ui_only.items()))
        return f"; UI-only text, not measured: {sum(self.ui_only.values()):,} characters ({detail})"


_SPACE_INSIDE = re.compile(r"\S\s+\S")


def _is_text(s: str) -> bool:
    if len(s) < 3 or _SPACE_INSIDE.search(s) is None:
        return False
    if s.startswith("data:"):
        return False
    # Long runs of base64 (screenshots, encrypted reasoning) wrap with newlines.
    return not (len(s) > 200 and _BASE64.fullmatch(s) is not None)


def _strings(value: Any, unread: frozenset[str] = frozenset()) -> Iterator[str]:
    """Every string value (not key) in a JSON value, looking into JSON-in-a-string.

    Values under a key in ``unread`` are left out.
    """
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            # JSON kept as a string (tool arguments): its own strings are the text.
            if v[:1] in ("{", "[") and v[-1:] in ("}", "]"):
                try:
                    stack.append(json.loads(v))
                    continue
                except (ValueError, RecursionError):
                    pass
            yield v
        elif isinstance(v, Mapping):
            stack.extend(x for k, x in v.items() if k not in unread)
        elif isinstance(v, list):
            stack.extend(v)


# Kept text is remembered as hashes of runs of three words (and of single
# words); past this many only a consistent sample is kept, the same sample on
# both sides, so a huge session costs a bounded set (about 50 MB at most).
MAX_SHINGLES = 1_000_000


def stable_hash(text: str) -> int:
    """A hash that is the same in every process (``hash`` of a str is salted per process).

    The sample of a huge session is taken by hash value, so it must not change from
    run to run: the same file gives the same share.

    >>> stable_hash("word") == stable_hash("word")
    True
    """
    data = text.encode("utf-8", "surrogatepass")
    return (zlib.crc32(data) << 32) | zlib.adler32(data)


@dataclass
class KeptText:
    """What the conversations hold as text: hashes of word runs and of words."""

    shingles: set[int]
    words: set[int]
    every: int = 1  # keep the hashes that are a multiple of this

    def sampled(self, h: int) -> bool:
        return h % self.every == 0

    def hash(self, word: str) -> int:
        # Without sampling the process's own hash is enough (and fastest): only
        # membership is asked. A sample is chosen by value, so it takes a stable one.
        return hash(word) if self.every == 1 else stable_hash(word)

    def runs(self, words: Sequence[str]) -> Iterator[int]:
        """Hashes of every run of three consecutive words."""
        triples = zip(words, words[1:], words[2:], strict=False)
        if self.every == 1:
            return map(hash, triples)
        return (stable_hash("\x00".join(t)) for t in triples)


def _conversation_strings(conversations: Iterable[Conversation]) -> Iterator[str]:
    """What the conversations hold that a model sees: message blocks, and the header
    text an importer keeps in ``meta`` (instructions). A message's own ``meta`` is
    bookkeeping, never counted (a result lost from the blocks is lost)."""
    for conv in conversations:
        yield from _strings(dict(conv.meta))
        for m in conv.messages:
            for b in m.blocks:
                if isinstance(b, TextBlock | ThinkingBlock):
                    yield from _strings(b.text)  # JSON kept as text: its strings, as the file's
                elif isinstance(b, ToolCall):
                    yield b.name
                    yield from _strings(dict(b.input))
                elif isinstance(b, ToolResult):
                    yield from _strings(b.text())


def kept_text(conversations: Sequence[Conversation]) -> KeptText:
    """The word runs and words of everything the conversations hold as text."""
    n_words = sum(len(t.split()) for t in _conversation_strings(conversations))
    every = max(1, n_words // MAX_SHINGLES)
    kept = KeptText(set(), set(), every)
    for text in _conversation_strings(conversations):
        words = text.split()
        if every == 1:  # the common case: no sampling, no per-hash test
            kept.words.update(map(hash, words))
            kept.shingles.update(kept.runs(words))
        else:
            kept.words.update(h for h in map(kept.hash, words) if h % every == 0)
            kept.shingles.update(h for h in kept.runs(words) if h % every == 0)
    return kept


def _by_words(words: Sequence[str], size: int, kept: KeptText) -> float | None:
    """Kept characters of a string judged by its (sampled) words; None when none is sampled."""
    hashes = [(h, len(w)) for w in words if kept.sampled(h := kept.hash(w))]
    if not hashes:
        return None
    chars = sum(n for _, n in hashes)
    return size * sum(n for h, n in hashes if h in kept.words) / max(1, chars)


def _measure(strings: Iterable[str], kept: KeptText) -> Coverage:
    seen: set[int] = set()
    total = kept_chars = 0.0
    for s in strings:
        if not _is_text(s):
            continue
        h = hash(s)
        if h in seen:
            continue
        seen.add(h)
        words = s.split()
        size = len("".join(words))
        runs = list(kept.runs(words))
        if kept.every > 1:
            runs = [r for r in runs if r % kept.every == 0]
        if runs:
            total += size
            kept_chars += size * len(kept.shingles.intersection(runs)) / len(set(runs))
            continue
        by_words = _by_words(words, size, kept)  # too short for a sampled run
        if by_words is not None:
            total += size
            kept_chars += by_words
    return Coverage(round(total), round(kept_chars))


def kept_share(strings: Iterable[str], conversations: Sequence[Conversation]) -> Coverage:
    """Coverage of ``strings`` (a file's text values) by ``conversations``."""
    return _measure(strings, kept_text(conversations))


# Says whether a top-level record of a file is UI-only (a label for it) or not (None).
UiRecords = Callable[[Path, Any], "str | None"]


class _Apart:
    """The UI-only records met while reading a file, their text counted by label."""

    def __init__(self, ui: UiRecords | None) -> None:
        self.ui = ui
        self.chars: dict[str, int] = {}
        self.path = Path()

    def keep(self, record: Any, unread: frozenset[str]) -> bool:
        """False (and the record's text counted) for a UI-only record."""
        if self.ui is None:
            return True
        try:
            label = self.ui(self.path, record)
        except Exception:  # a classifier must never stop a measure
            label = None
        if label is None:
            return True
        size = sum(len("".join(t.split())) for t in _strings(record, unread) if _is_text(t))
        if size:
            self.chars[label] = self.chars.get(label, 0) + size
        return False


def _file_strings(
    path: Path, unread: frozenset[str] = frozenset(), apart: _Apart | None = None
) -> Iterator[str]:
    """The string values of one file: JSON lines, one JSON document, or text by line.

    A first line that is a whole JSON value (or one too long to parse here,
    followed by more lines) means JSON lines, read one at a time; otherwise a
    JSON document, its top-level lists one element at a time. A line over the
    importers' record limit is skipped as they skip it, never held whole.
    """
    from snapshot.transcript.formats._common import MAX_RECORD_BYTES

    with path.open("rb") as fh:
        first = fh.readline(_FIRST_LINE_BYTES)
        start = first.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
        if start in (b"{", b"["):
            if len(first) < _FIRST_LINE_BYTES or first.endswith(b"\n"):
                try:
                    lines = json.loads(first.decode("utf-8", errors="replace")) is not None
                except (ValueError, RecursionError):
                    lines = False
            else:  # a long first line: JSON lines when another line follows it
                rest = bounded_lines(fh, 1)
                next(rest, None)  # the rest of the first line, skipped a piece at a time
                following = next(rest, None)
                lines = following is not None and following[0] not in (b"\n", b"\r\n")
            if lines:
                fh.seek(0)
                for raw, _ in bounded_lines(fh, MAX_RECORD_BYTES):
                    if raw is None:
                        continue
                    try:
                        record = json.loads(raw.decode("utf-8", errors="replace"))
                    except (ValueError, RecursionError):
                        continue
                    if apart is None or apart.keep(record, unread):
                        yield from _strings(record, unread)
                return
            yield from _document_strings(path, unread, apart)
            return
        fh.seek(0)
        markdown = path.suffix.lower() == ".md"
        for raw, _ in bounded_lines(fh, MAX_RECORD_BYTES):
            if raw is None:
                continue
            line = raw.decode("utf-8", errors="replace")
            if apart is not None and not apart.keep(line, unread):
                continue
            # Markdown's text is what it renders: a heading's or a quote's words, an
            # entity's character (an importer of Markdown reads it so).
            yield html.unescape(_MD_MARKER.sub("", line)) if markdown else line


def _document_strings(
    path: Path, unread: frozenset[str], apart: _Apart | None = None
) -> Iterator[str]:
    """The string values of one JSON document; a malformed one ends them where it breaks
    (its importer has refused it already)."""
    # Imported when used: the importers' package imports this module to measure an
    # import, and loading the importers with it at module level would be backwards.
    from snapshot.transcript.formats._common import Warnings
    from snapshot.transcript.formats._json_stream import EVERY_LIST, JSONDocument

    try:
        doc = JSONDocument(path, EVERY_LIST, Warnings(), skip=unread)
        for item in doc.items():
            if apart is None or apart.keep(item, unread):
                yield from _strings(item, unread)
    except TranscriptError:
        return
    yield from _strings(doc.value if doc.shape == "other" else doc.fields, unread)


def _is_database(path: Path) -> bool:
    """An SQLite database (opencode's and Crush's stores): binary pages, not text."""
    with path.open("rb") as fh:
        return fh.read(16) == b"SQLite format 3\x00"


def _text_files(path: Path) -> list[Path]:
    if not path.is_dir():
        return [path]
    return sorted(
        p
        for p in path.rglob("*")
        if p.suffix.lower() in _TEXT_SUFFIXES and _inside_regular(p, path)
    )


def _inside_regular(path: Path, folder: Path) -> bool:
    """Through the guarded reader's gate: a regular file that resolves inside ``folder``."""
    try:
        check_inside(path, folder, None)
    except (FileNotFoundError, TranscriptError):
        return False
    return True


def measure(
    path: Path,
    conversations: Sequence[Conversation],
    unread: frozenset[str] = frozenset(),
    ui_records: UiRecords | None = None,
) -> Coverage | None:
    """How much of the text in ``path`` (a file, or a folder log) ``conversations`` kept.

    Parameters
    ----------
    path
        The file (or folder log) the conversations were imported from.
    conversations
        What the import produced.
    unread
        Keys whose values the tool keeps for itself (UI copies of tool
        results, file snapshots), never sent to the model: not the file's text.
    ui_records
        Says which top-level records (JSON lines, or a document's list items)
        the model never saw, with a label; their text is counted apart
        (:attr:`Coverage.ui_only`).

    Returns
    -------
    Coverage or None
        ``None`` when the file is larger than :data:`MAX_MEASURED_BYTES` or
        cannot be read again.

    Examples
    --------
    >>> import tempfile
    >>> from snapshot.transcript.model import linear, TextBlock
    >>> p = Path(tempfile.mkdtemp()) / "log.json"
    >>> _ = p.write_text('[{"text": "kept words stay here"}, {"text": "lost words go away"}]')
    >>> conv = linear("c", [("m", "user", [TextBlock("kept words stay here")])])
    >>> measure(p, [conv]).share  # 17 of 32 characters (whitespace not counted)
    0.531
    """
    files = _text_files(path)
    try:
        if sum(os.stat(f).st_size for f in files) > MAX_MEASURED_BYTES:
            return None
        if any(_is_database(f) for f in files):
            return None  # pages of a database, not text: its importer counts rows instead
        kept = kept_text(conversations)
        apart = _Apart(ui_records)

        def strings() -> Iterator[str]:
            for f in files:
                apart.path = f
                yield from _file_strings(f, unread, apart)

        found = _measure(strings(), kept)
        return Coverage(found.total, found.kept, dict(apart.chars))
    except OSError:
        return None
