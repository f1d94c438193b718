"""Streaming: pieces of any size give exactly the pages of the whole text, in bounded memory."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import find_cjk_font, load_font
from snapshot.rendering.text import LayoutStream, layout_document, normalize

ALPHABET = "ab \n中文\ue000\ue001é\t"


def _cuts(text: str, points: list[int]) -> list[str]:
    edges = sorted({min(p, len(text)) for p in points} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(edges)]


def _streamed(pieces: list[str], g: Geometry, unrenderable: str):  # type: ignore[no-untyped-def]
    stream = LayoutStream(g, unrenderable=unrenderable)
    pages = []
    for piece in pieces:
        pages.extend(stream.feed(piece))
    pages.extend(stream.finish())
    return pages, stream


@pytest.mark.skipif(find_cjk_font() is None, reason="no CJK font installed: wide glyphs untested")
@given(
    st.text(alphabet=ALPHABET, max_size=160),
    st.lists(st.integers(0, 160), max_size=8),
    st.integers(3, 7),
    st.integers(2, 5),
    st.booleans(),
    st.booleans(),
)
@settings(max_examples=300, deadline=None)
def test_layout_in_pieces_equals_layout_at_once(
    text: str, points: list[int], cols: int, rows: int, keep: bool, flow: bool
) -> None:
    g = Geometry(load_font("snap5x8"), cols=cols, rows=rows, flow=flow)
    norm = normalize(text).text
    mode = "keep" if keep else "replace"
    whole = layout_document(norm, g, unrenderable=mode, normalized=True)
    pages, stream = _streamed(_cuts(norm, points), g, mode)
    assert len(pages) == len(whole.grids)
    for p, grid, span, cont in zip(pages, whole.grids, whole.spans, whole.continued, strict=True):
        assert np.array_equal(p.grid, grid)
        assert p.span == span and p.continued == cont
        assert p.text == norm[span[0] : span[1]]
    assert stream.replaced == whole.replaced
    assert tuple(stream.kept) == whole.kept


TRICKY = "ab \t\r\n\x1b[]P\\\x07\x00e\u0301\u200bé中 "


@given(st.text(alphabet=TRICKY, max_size=200), st.lists(st.integers(0, 200), max_size=10))
@settings(max_examples=400, deadline=None)
def test_normalizing_in_pieces_equals_normalizing_at_once(text: str, points: list[int]) -> None:
    from snapshot.rendering.text import NormalizeStream

    stream = NormalizeStream(_cuts(text, points), piece=3)
    whole = normalize(text)
    assert "".join(stream) == whole.text
    assert stream.forced_cuts == 0
    assert stream.counts().changes() == {k: v for k, v in whole.changes().items()}


def _doc_text() -> str:
    line = "def f(x): return {'id': 'req_9bd6', 'n': 42}  # ünïcödé ✓\n"
    return line * 900 + "tail without newline"


@pytest.mark.parametrize("flow", [True, False])
def test_pages_are_identical_whatever_the_worker_count(flow: bool) -> None:
    from snapshot.rendering.page import iter_pages

    g = Geometry(load_font("snap5x8"), cols=120, rows=40, flow=flow)
    text = _doc_text()
    one = [(p.number, p.png()) for p in iter_pages(text, g, workers=1, encode=True)]
    four = [(p.number, p.png()) for p in iter_pages(text, g, workers=4, encode=True)]
    lazy = [(p.number, p.png()) for p in iter_pages(text, g, workers=2)]
    assert len(one) > 5
    assert one == four == lazy


def test_two_pages_encode_at_the_same_time(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """No lock shared by all pages (functools.cached_property's, before Python 3.12)
    keeps a second worker thread out of the encoder while the first is in it."""
    import threading

    import snapshot.rendering.page as page_mod
    from snapshot.rendering.page import iter_pages

    g = Geometry(load_font("snap5x8"), cols=40, rows=5)
    first, second = list(iter_pages("x" * 400, g))[:2]
    both_inside = threading.Barrier(2, timeout=10)
    encode = page_mod.to_png

    def meet_then_encode(*args, **kwargs):  # type: ignore[no-untyped-def]
        both_inside.wait()  # raises BrokenBarrierError if the other page cannot get in
        return encode(*args, **kwargs)

    monkeypatch.setattr(page_mod, "to_png", meet_then_encode)
    other = threading.Thread(target=second.png)
    other.start()
    first.png()
    other.join()
    assert first.png() != second.png() and second.png().startswith(b"\x89PNG")


def test_a_generator_of_chunks_is_never_held_whole(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import snapshot.rendering.page as page_mod
    from snapshot.rendering.page import iter_pages, render_document

    g = Geometry(load_font("snap5x8"), cols=100, rows=30)
    text = _doc_text()
    longest = 0

    def chunks():  # type: ignore[no-untyped-def]
        nonlocal longest
        for start in range(0, len(text), 1000):
            piece = text[start : start + 1000]
            longest = max(longest, len(piece))
            yield piece

    # a tiny budget: most pages' cells wait in the spool file until drawn
    monkeypatch.setattr(page_mod, "LAYOUT_CACHE_BYTES", 50_000)
    stream = iter_pages(chunks(), g, workers=2)
    expected = render_document(text, g)
    assert stream.total == len(expected.pages) > 10
    assert stream._spool is not None and stream._spool.pages == stream.total and not stream._cache
    got = list(stream)
    assert [p.text for p in got] == [p.text for p in expected.pages]
    assert [p.png() for p in got] == [p.png() for p in expected.pages]
    assert stream.chars == expected.chars
    assert longest == 1000


def test_a_file_is_read_once_and_pages_past_the_budget_are_spooled(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import snapshot.rendering.page as page_mod
    from snapshot.rendering.page import iter_pages, render_document
    from snapshot.rendering.text import TextReader

    src = tmp_path / "in.txt"
    src.write_text(_doc_text() + "\u4e2d\u6587 \u0151" * 50, encoding="utf-8")
    g = Geometry(load_font("snap5x8"), cols=100, rows=30, flow=False)
    monkeypatch.setattr(page_mod, "LAYOUT_CACHE_BYTES", 50_000)
    reads = 0

    class Counting(TextReader):
        def __iter__(self):  # type: ignore[no-untyped-def]
            nonlocal reads
            reads += 1
            return super().__iter__()

    stream = iter_pages(Counting(src, max_bytes=10**7, chunk_bytes=777), g)
    pages = list(stream)
    again = list(stream)  # the spool is read again, the file is not
    assert reads == 1
    assert stream._spool is not None and stream._spool.pages > 1
    expected = render_document(src.read_text(encoding="utf-8"), g).pages
    assert [p.png() for p in pages] == [p.png() for p in again] == [p.png() for p in expected]
    assert [p.text for p in pages] == [p.text for p in expected]
    assert all(np.array_equal(p.grid, e.grid) for p, e in zip(pages, expected, strict=True))


@pytest.mark.parametrize("high", [3, 255, 256, 65_535, 65_536, 1 << 30])
def test_the_cell_spool_gives_back_every_grid_and_text(high: int) -> None:
    from snapshot.rendering.page import _CellSpool
    from snapshot.rendering.text import PageCells

    spool = _CellSpool()
    grids = [np.array([[0, high], [1, 2]], np.int32), np.zeros((0, 4), np.int32)]
    pages = [
        PageCells(grid, (7, 9), i == 0, "a\ud800\u4e2d"[: i + 2]) for i, grid in enumerate(grids)
    ]
    for cells in pages:
        spool.write(cells)
    for got in (list(spool), list(spool)):
        assert [(c.span, c.continued, c.text) for c in got] == [
            (c.span, c.continued, c.text) for c in pages
        ]
        assert all(g.grid.dtype == np.int32 for g in got)
        assert all(np.array_equal(a.grid, b.grid) for a, b in zip(got, pages, strict=True))
