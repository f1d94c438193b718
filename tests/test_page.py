"""Pages: text spans, rows, boxes, PNG determinism, render summaries."""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys

import numpy as np
from PIL import Image

import snapshot
from snapshot.rendering.geometry import Geometry, default_geometry
from snapshot.rendering.page import Page, render, render_document
from snapshot.rendering.text import normalize

SAMPLE = '$ ls -la\ntotal 8\n{"ok": true, "n": 3}\ndef f(x):\n    return x  # ő ű Ж λ\n' * 40


def test_public_surface_renders() -> None:
    font = snapshot.load_font("snap5x8")
    pages = snapshot.render("hello, world", snapshot.Geometry(font, cols=80, rows=10))
    assert len(pages) == 1 and isinstance(pages[0], snapshot.Page)
    assert pages[0].text == "hello, world"


def test_empty_input_gives_zero_pages(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=20, rows=4)
    assert render("", g) == []
    doc = render_document("\u200b", g)  # only a zero-width space: empty after normalizing
    assert doc.pages == () and doc.chars == 0


def test_pages_cover_the_text_in_order(dense) -> None:  # type: ignore[no-untyped-def]
    for flow in (True, False):
        g = Geometry(dense, cols=37, rows=9, flow=flow)
        doc = render_document(SAMPLE, g)
        assert len(doc.pages) > 2
        assert "".join(p.text for p in doc.pages) == normalize(SAMPLE).text == doc.text
        assert [p.number for p in doc.pages] == list(range(1, len(doc.pages) + 1))
        assert {p.total for p in doc.pages} == {len(doc.pages)}
        assert doc.chars == len(doc.text)


def test_pixels_png_and_size_agree(dense) -> None:  # type: ignore[no-untyped-def]
    g = default_geometry(dense)
    page = render(SAMPLE, g)[0]
    assert page.pixels.shape == (728, 1568) and page.pixels.dtype == np.uint8
    assert set(np.unique(page.pixels)) == {0, 255}
    with Image.open(io.BytesIO(page.png())) as im:
        assert im.size == (1568, 728) and im.mode == "1"
        assert np.array_equal(np.asarray(im.convert("L")), page.pixels)


def test_header_row_names_page_font_and_grid(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=80, rows=5)
    pages = render(SAMPLE[:600], g)
    assert pages[0].header.startswith(f"page 1/{len(pages)} flow snap5x8 80x5")
    header_ink = pages[0].pixels[2:10, 2:]
    assert (header_ink == 0).any()
    no_header = render("abc", Geometry(dense, cols=80, rows=5, header=False))[0]
    assert no_header.header == "" and no_header.header_box() is None


def test_rows_and_row_boxes(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=12, rows=6, flow=False, row_gap=1)
    page = render("first line\nsecond one wraps\n\nend", g)[0]
    assert page.rows == ("first line", "second one w", "raps", "", "end")
    boxes = page.row_boxes()
    assert len(boxes) == len(page.rows)
    pw, ph = g.pitch
    for (x0, y0, x1, y1), text in zip(boxes, page.rows, strict=True):
        assert (x1 - x0, y1 - y0) == (g.cols * pw, 8)
        crop = page.pixels[y0:y1, x0:x1]
        assert (crop == 0).any() == bool(text.strip())
    assert boxes[1][1] - boxes[0][1] == ph


def test_flow_rows_show_newline_markers_as_newlines(dense) -> None:  # type: ignore[no-untyped-def]
    page = render("ab\ncd", Geometry(dense, cols=10, rows=3))[0]
    assert page.rows == ("ab\ncd",)


def test_replacement_is_counted_and_visible(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=20, rows=3)
    doc = render_document("x\ue001y\ue001", g)
    assert doc.replaced == {"\ue001": 2}
    plain = render_document("x y ", g).pages[0].pixels
    assert (doc.pages[0].pixels != plain).any()


def test_keep_mode_lists_spans_and_draws_the_kept_marker(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=20, rows=3)
    doc = render_document("a\ue010\ue011b", g, unrenderable="keep")
    assert doc.replaced == {}
    assert [k.text for k in doc.kept] == ["\ue010\ue011"]
    assert doc.pages[0].text == "a\ue010\ue011b"
    assert doc.pages[0].rows == ("a\ue002b",)


def test_same_text_same_png_bytes_across_processes(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=60, rows=12)
    here = [hashlib.sha256(p.png()).hexdigest() for p in render(SAMPLE, g)]
    code = (
        "import hashlib, sys, snapshot\n"
        "text = sys.stdin.read()\n"
        "g = snapshot.Geometry(snapshot.load_font('snap5x8'), cols=60, rows=12)\n"
        "print(' '.join(hashlib.sha256(p.png()).hexdigest() for p in snapshot.render(text, g)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], input=SAMPLE, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == here


def test_page_value_semantics(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=20, rows=3)
    a, b = render("same", g)[0], render("same", g)[0]
    assert isinstance(a, Page)
    assert a == b and a.png() == b.png()
