"""A text file's flow pages laid out span by span (snapshot.rendering.spans) are the pages
the one-stream layout gives: same cells, text, spans, PNG bytes and counts, at 1
and 2 workers, with spans small enough that pages straddle many of them."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import snapshot.rendering.spans as spans
from snapshot.errors import InputError
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import load_font
from snapshot.rendering.page import PageStream
from snapshot.rendering.text import TextReader, decode_bytes

BASE = "def f(x):\n    return x + 1  \n# a comment   \nprint(f(41))\n" * 40

CASES: dict[str, bytes] = {
    "plain": BASE.encode(),
    "no final newline": (BASE + "tail   ").encode(),
    "tabs and CRLF": BASE.replace("    ", "\t").replace("\n", "\r\n").encode(),
    "controls": (BASE + "a\x07b\x00c\x7f\n" * 30).encode(),
    "non-ASCII": (BASE + "café naïve → ∑ ✓ e\u0301 a\u200bb\n" * 30).encode(),
    "undrawable": (BASE + "x\ue000y\n" * 20).encode(),
    "invalid UTF-8": BASE.encode() + b"\xff\xfe bad \xc3 \xef\xbf\xbd ok\n" * 20,
    "one long line": ("y" * 5000 + "\n").encode() + BASE.encode(),
    "empty": b"",
    "exactly two pages": (("z" * 39 + "\n") * 20).encode(),
}


def _geometry() -> Geometry:
    return Geometry(load_font("snap5x8"), cols=40, rows=11)


def _pages(stream: PageStream) -> list[tuple[object, ...]]:
    return [(p.number, p.total, p.text, p.header, p.grid.tolist(), p.png(), p.ink) for p in stream]


@pytest.fixture(autouse=True)
def small_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spans, "SPAN_BYTES", 97)  # pages straddle spans; spans end mid-page


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("name", list(CASES))
def test_spans_give_the_pages_of_one_stream(tmp_path: Path, name: str, workers: int) -> None:
    data = CASES[name]
    path = tmp_path / "in.txt"
    path.write_bytes(data)
    g = _geometry()
    reader = TextReader(path)
    by_spans = PageStream(reader, g, workers=workers, encode=True)
    assert by_spans.total >= 0
    assert by_spans._plan is not None, "this text should be laid out span by span"
    text, invalid = decode_bytes(data)
    whole = PageStream(text, g, workers=1, encode=True)
    assert _pages(by_spans) == _pages(whole)
    assert (by_spans.total, by_spans.chars) == (whole.total, whole.chars)
    assert by_spans.replaced == whole.replaced
    assert by_spans.normalized.changes() == whole.normalized.changes()
    assert reader.invalid_utf8 == invalid


@pytest.mark.parametrize(
    ("name", "text", "lines", "keep"),
    [
        ("escape sequences", "a\x1b]0;title\nmore\x07b\n" * 30, False, False),
        ("wide glyphs", "漢字テスト\n" * 30, False, False),
        ("lines mode", BASE, True, False),
        ("kept runs", BASE + "x\ue000y\n", False, True),
    ],
)
def test_texts_not_one_cell_a_character_take_one_stream(
    tmp_path: Path, name: str, text: str, lines: bool, keep: bool
) -> None:
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8")
    g = Geometry(load_font("snap5x8"), cols=40, rows=11, flow=not lines)
    unrenderable = "keep" if keep else "replace"
    stream = PageStream(TextReader(path), g, unrenderable=unrenderable, workers=2, encode=True)
    assert stream.total > 0
    assert stream._plan is None, name
    whole = PageStream(text, g, unrenderable=unrenderable, encode=True)
    assert _pages(stream) == _pages(whole)


def test_a_file_changed_between_the_passes_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_text(BASE, encoding="utf-8")
    stream = PageStream(TextReader(path), _geometry(), workers=2, encode=True)
    assert stream.total > 1
    path.write_text(BASE.replace("comment", "remark!"), encoding="utf-8")
    with pytest.raises(InputError, match="changed while it was drawn"):
        list(stream)


def test_a_file_over_the_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_text(BASE, encoding="utf-8")
    reader = TextReader(path, max_bytes=len(BASE) + 10)
    os.truncate(path, 0)
    with open(path, "w", encoding="utf-8") as f:
        f.write(BASE * 2)
    with pytest.raises(InputError, match="over the input limit"):
        PageStream(reader, _geometry()).total  # noqa: B018


def test_the_last_page_is_padded_with_blank_cells(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_text("abc", encoding="utf-8")
    g = _geometry()
    (page,) = list(PageStream(TextReader(path), g))
    body = page.grid[1:]
    assert body.shape == (g.text_rows, g.cols)
    assert np.count_nonzero(body) == 3  # SPACE is index 0
