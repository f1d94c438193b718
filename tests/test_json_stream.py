"""One JSON document read element by element (issue 9, bounded memory): the same values
and the same errors as reading it whole, wherever the chunks happen to be cut."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import _json_stream
from snapshot.transcript.formats._common import (
    JSON_LIMIT_ERRORS,
    Warnings,
    json_limit_error,
    load_json,
)
from snapshot.transcript.formats._json_stream import JSONDocument

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("SNAPSHOT_CORPUS") or REPO.parent / "shared" / "corpus")
# Chunks of 1 and 7 bytes cut every value and every UTF-8 sequence somewhere.
CHUNKS = [1, 7, 1 << 20]


def read_json_document(path: Path, warnings: Warnings) -> Any:
    """The lenient whole-document reader the importers used before they streamed: the
    oracle for the errors and warnings a streamed read must give."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        warnings.add(
            f"{path}:{line}: invalid UTF-8 at byte {exc.start}; undecodable bytes "
            "replaced with U+FFFD"
        )
        text = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptError(
            f"{path}:{exc.lineno}: malformed JSON ({exc.msg} at column {exc.colno}); "
            "the file holds one JSON document, so nothing can be imported"
        ) from exc
    except JSON_LIMIT_ERRORS as exc:
        raise json_limit_error(path, text, exc) from exc


def _whole(path: Path, key: str | None, chunk: int, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The document rebuilt from a streamed read (what json.loads would give)."""
    monkeypatch.setattr(_json_stream, "CHUNK_BYTES", chunk)
    doc = JSONDocument(path, key, Warnings())
    items = list(doc.items())
    if doc.shape == "array":
        return items
    if doc.shape == "other":
        return doc.value
    out = dict(doc.fields)
    if doc.found:
        out[key] = items  # type: ignore[index]
    return out


def _corpus_documents() -> list[Path]:
    if not (CORPUS / "formats").is_dir():
        pytest.skip(f"corpus not found under {CORPUS} (set SNAPSHOT_CORPUS)")
    return sorted(p for p in (CORPUS / "formats").rglob("*.json") if p.stat().st_size < 4_000_000)


@pytest.mark.parametrize("chunk", [7, 1 << 20])
def test_every_corpus_document_reads_as_json_loads_reads_it(
    chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _corpus_documents()
    assert len(docs) > 20
    for path in docs:
        expected = json.loads(path.read_text("utf-8"))
        for key in ("messages", "history", None):
            got = _whole(path, key, chunk, monkeypatch)
            assert got == expected, (path, key)
            if isinstance(expected, dict):
                assert sorted(got) == sorted(expected)


def test_fields_keep_their_order_and_the_list_is_read_lazily(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text('{"b": 1, "messages": [{"n": 1}, {"n": 2}], "a": [3]}')
    doc = JSONDocument(path, "messages")
    assert (doc.shape, doc.found, doc.fields) == ("object", True, {"b": 1})
    it = doc.items()
    assert next(it) == {"n": 1}
    assert doc.fields == {"b": 1}  # nothing after the list read yet
    assert list(it) == [{"n": 2}]
    assert list(doc.fields.items()) == [("b", 1), ("a", [3])]
    with pytest.raises(RuntimeError, match="once"):
        list(doc.items())


@pytest.mark.parametrize(
    ("text", "shape", "found"),
    [
        ('{"messages": {"a": 1}}', "object", False),
        ('{"other": []}', "object", False),
        ("{}", "object", False),
        ('"a string"', "other", False),
        ("[]", "array", True),
    ],
)
def test_a_document_without_the_list_says_so(
    tmp_path: Path, text: str, shape: str, found: bool
) -> None:
    path = tmp_path / "d.json"
    path.write_text(text)
    doc = JSONDocument(path, "messages")
    assert (doc.shape, doc.found) == (shape, found)
    assert list(doc.items()) == []


BROKEN = [
    b'{"a": 1, "messages": [{"x": 1}, {"x": }]}',
    b'{"a": 1,\n "messages": [{"x": 1},\n {"x": 2},]}',
    b'{"a": 1, "messages": [1, 2] "b": 3}',
    b'{"a" 1}',
    b"[1, 2, 3] x",
    b'{"messages": [{"t": "abc',  # cut while being written
    b'{"messages": [1,2',
    b'{"a": 1,}',
    b'\n\n   {"messages": [\n  {"s": "caf\xe9"}, {"t": 1}]}',  # Latin-1 byte
    b'{"messages": [{"s": "\xe2\x82"}]}',  # a cut UTF-8 sequence
    b"",
    b"  ",
    b'{"messages": [' + b"[" * 3000 + b"]" * 3000 + b"]}",
    b'{"messages": [1' + b"1" * 5000 + b"]}",
    b'{"messages": [1, ]}',
    b'{"messages": [\n{"a": 1},\n\n  {"b": 2} 3]}',
]


def _outcome(read: Any) -> tuple[str, Any]:
    try:
        return "ok", read()
    except TranscriptError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
@pytest.mark.parametrize("data", BROKEN, ids=range(len(BROKEN)))
def test_errors_and_warnings_are_those_of_reading_the_document_whole(
    data: bytes, strict: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "d.json"
    path.write_bytes(data)

    def whole() -> list[str]:
        w = Warnings()
        load_json(path) if strict else read_json_document(path, w)
        return w.items

    expected = _outcome(whole)
    for chunk in CHUNKS:
        monkeypatch.setattr(_json_stream, "CHUNK_BYTES", chunk)

        def streamed() -> list[str]:
            w = Warnings()
            list(JSONDocument(path, "messages", None if strict else w).items())
            return w.items

        assert _outcome(streamed) == expected, chunk


def test_a_byte_order_mark_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "d.json"
    path.write_bytes(b'\xef\xbb\xbf{"messages": [1]}')
    for chunk in CHUNKS:
        assert _whole(path, "messages", chunk, monkeypatch) == {"messages": [1]}


def test_a_value_larger_than_the_document_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_json_stream, "MAX_DOCUMENT_BYTES", 100)
    monkeypatch.setattr(_json_stream, "CHUNK_BYTES", 16)
    path = tmp_path / "d.json"
    path.write_text('{"messages": [1, "' + "x" * 300 + '"]}')
    doc = JSONDocument(path, "messages")
    with pytest.raises(TranscriptError, match=r"d\.json:1: a single JSON value of more than 100"):
        list(doc.items())


def test_an_unreadable_file_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="cannot be read"):
        JSONDocument(tmp_path / "missing.json", "messages")


def test_a_skipped_list_is_read_through_and_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.traj"
    path.write_text('{"trajectory": [{"a": 1}, [2]], "info": {"x": 1}, "history": [3, 4], "n": 5}')
    for chunk in CHUNKS:
        monkeypatch.setattr(_json_stream, "CHUNK_BYTES", chunk)
        doc = JSONDocument(path, "history", skip={"trajectory"})
        assert list(doc.items()) == [3, 4]
        assert doc.fields == {"info": {"x": 1}, "n": 5}
    path.write_text('{"trajectory": [1 2], "history": []}')
    with pytest.raises(TranscriptError, match=r"1:19: malformed JSON: Expecting ',' delimiter"):
        JSONDocument(path, "history", skip={"trajectory"})


@pytest.mark.parametrize("unread", [frozenset(), frozenset({"messages", "history", "tools"})])
def test_the_text_kept_check_reads_every_string_of_a_document_streamed(
    unread: frozenset[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``coverage`` reads a JSON document's strings list by list: the strings parsing it whole gives."""
    from snapshot.transcript import coverage

    monkeypatch.setattr(_json_stream, "CHUNK_BYTES", 7)
    docs = _corpus_documents()
    for path in docs:
        whole = sorted(coverage._strings(json.loads(path.read_text("utf-8")), unread))
        assert sorted(coverage._document_strings(path, unread)) == whole, path
