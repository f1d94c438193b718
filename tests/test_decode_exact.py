"""The exact cell-lookup decoder reads the package's own pages as the searching decoder does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from snapshot.profiles import profile_for
from snapshot.rendering.decode import read
from snapshot.rendering.decode_exact import read_exact, round_trip
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import load_font
from snapshot.rendering.page import Rendering, render_document

SESSION = Path(
    "/work/shared/corpus/claude_code_log_real/-Users-dain-workspace-danieldemmel-me-next/"
    "9e953218-585f-4692-89df-9e0747a31c68.jsonl"
)


@pytest.fixture(scope="module")
def session_text() -> str:
    """24 k characters of what a reader of a real Claude Code session gets as text."""
    if not SESSION.is_file():
        pytest.skip(f"real corpus session absent: {SESSION}")
    from snapshot.report.readability import visible_text
    from snapshot.report.sources import path_sources
    from snapshot.transcript.discover import find

    refs, _ = path_sources(find([str(SESSION)]))
    return visible_text(refs[0].load().conversation.path())[:24_000]


def _geometries() -> list[tuple[str, Geometry]]:
    return [
        ("claude 1-bit", profile_for("claude-sonnet-4-6").geometry()),
        ("snap5x8 1-bit", Geometry.fit(load_font("snap5x8"), 800, 400)),
        ("snap5x8 gray", Geometry.fit(load_font("snap5x8"), 800, 400, shade="gray")),
        # the versioned dense face (issue 25 item 5): its redrawn glyphs read back too
        ("snap5x9v2 gray", Geometry.fit(load_font("snap5x9v2"), 800, 400, shade="gray")),
        # the dense face in 16 and 4 levels (4-bit and 2-bit PNGs, issue 29 item 3)
        ("snap5x9v2 gray16", Geometry.fit(load_font("snap5x9v2"), 800, 400, shade="gray16")),
        ("snap5x9v2 gray4", Geometry.fit(load_font("snap5x9v2"), 800, 400, shade="gray4")),
        ("snap5x9v3 gray", Geometry.fit(load_font("snap5x9v3"), 800, 400, shade="gray")),
        ("snap5x9v4 gray", Geometry.fit(load_font("snap5x9v4"), 800, 400, shade="gray")),
        (
            "snap5x8 gaps white-on-black",
            Geometry.fit(
                load_font("snap5x8"), 700, 300, col_gap=1, row_gap=2, ink="white-on-black"
            ),
        ),
    ]


@pytest.mark.parametrize(("label", "g"), _geometries(), ids=[n for n, _ in _geometries()])
def test_same_text_as_the_searching_decoder_on_real_pages(
    session_text: str, label: str, g: Geometry
) -> None:
    doc = render_document(session_text, g)
    assert len(doc.pages) >= 2, label
    exact = [read_exact(p.pixels, g) for p in doc.pages]
    searched = [read(p.pixels, g.font, geometry=g) for p in doc.pages]
    assert exact == searched
    assert "".join(t or "" for t in exact) == _drawn(doc)


def _drawn(doc: Rendering) -> str:
    """The text as drawn: characters no font has are the replacement glyph."""
    return doc.text.translate({ord(c): "\ufffd" for c in doc.replaced})


def test_gray_pages_the_searching_decoder_refuses_are_read_exactly(session_text: str) -> None:
    # anti-aliased dejavu: too far from the 1-bit templates for the search, exact for the lookup
    g = Geometry.fit(load_font("dejavu-sans-mono", pixel_size=8), 600, 300, shade="gray")
    doc = render_document(session_text[:8_000], g)
    assert "".join(read_exact(p.pixels, g) or "?" for p in doc.pages) == _drawn(doc)


def test_a_page_that_is_no_drawing_of_the_geometry_is_left_to_the_search() -> None:
    g = Geometry.fit(load_font("snap5x8"), 300, 120)
    page = render_document("def f(x):\n    return x + 1\n" * 20, g).pages[0]
    shifted = np.roll(page.pixels, 1, axis=1)
    assert read_exact(shifted, g) is None
    assert round_trip(shifted, g) == read(shifted, g.font, geometry=g)
    noisy = page.pixels.copy()
    noisy[g.origin[1] + 20, g.origin[0] + 3] ^= 0xFF  # one flipped pixel inside the grid
    assert read_exact(noisy, g) is None
    assert read_exact(page.pixels[:-30], g) is None  # cropped
    assert read_exact(page.pixels.astype(np.float32), g) is None  # not the renderer's pixels
