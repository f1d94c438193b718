"""Normalization, headers and layout."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snapshot.errors import InputError
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import CONTINUE, KEPT, NEWLINE, REPLACEMENT, SPACE, find_cjk_font
from snapshot.rendering.text import (
    decode_bytes,
    header_text,
    layout,
    layout_document,
    normalize,
    parse_header,
    read_text,
)


def _chars(font, grid: np.ndarray) -> str:  # type: ignore[no-untyped-def]
    table = {NEWLINE: "⏎", CONTINUE: "↪", KEPT: "▣"}
    return "".join(table.get(int(i), font.chars[int(i)]) for i in grid.ravel())


# --------------------------------------------------------------------------- normalize


def test_crlf_and_lone_cr_fold_to_lf() -> None:
    n = normalize("a\r\nb\rc\n")
    assert n.text == "a\nb\nc\n" and n.crlf == 2


def test_tabs_expand_to_eight_column_stops() -> None:
    n = normalize("a\tb\n\tc\nabcdefgh\ti")
    assert n.text == "a       b\n        c\nabcdefgh        i"
    assert n.tabs == 3


@pytest.mark.parametrize(
    "raw",
    [
        "\x1b[31mred\x1b[0m",
        "\x1b[1;38;5;208mred\x1b[m",
        "\x1b]0;window title\x07red",
        "\x1b]8;;http://x\x1b\\red\x1b]8;;\x1b\\",
        "\x1bPq#0;2;0;0;0\x1b\\red",
        "\x1b(Bred",
        "\x1b7red\x1b8",
    ],
)
def test_ansi_escape_sequences_are_stripped(raw: str) -> None:
    n = normalize(raw)
    assert n.text == "red"
    assert n.ansi >= 1


def test_control_characters_become_visible_pictures() -> None:
    n = normalize("a\x00b\x07c\x7fd\x1b")
    assert n.text == "a␀b␇c␡d"  # a lone ESC is an (empty) escape, stripped
    assert n.controls == 3


def test_zero_width_characters_are_removed() -> None:
    n = normalize("a\u200bb\u200dc\ufeffd\u00ade\u2060f")
    assert n.text == "abcdef" and n.zero_width == 5


def test_nfc_composes() -> None:
    n = normalize("e\u0301o\u030b")
    assert n.text == "éő" and n.nfc_changed


def test_trailing_spaces_are_stripped_per_line() -> None:
    n = normalize("a  \nb \n  c   ")
    assert n.text == "a\nb\n  c" and n.trailing_spaces == 6


def test_normalize_rejects_bytes() -> None:
    with pytest.raises(InputError):
        normalize(b"abc")  # type: ignore[arg-type]


@given(st.text(max_size=200))
@settings(max_examples=200, deadline=None)
def test_normalize_is_idempotent_and_clean(text: str) -> None:
    once = normalize(text).text
    assert normalize(once).text == once
    assert "\r" not in once and "\t" not in once and "\x1b" not in once
    assert not any(line.endswith(" ") for line in once.split("\n"))
    assert all(ch == "\n" or (ord(ch) >= 0x20 and ord(ch) != 0x7F) for ch in once)


def test_invalid_utf8_is_replaced_and_counted(tmp_path: Path) -> None:
    text, bad = decode_bytes(b"caf\xc3\xa9 \xff\xfe ok \xef\xbf\xbd")
    assert text == "café �� ok �"
    assert bad == 2  # the real U+FFFD at the end does not count
    path = tmp_path / "bad.txt"
    path.write_bytes(b"x\x80y\r\n")
    norm = read_text(path)
    assert norm.text == "x�y\n" and norm.invalid_utf8 == 1 and norm.crlf == 1


def test_read_text_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        read_text(tmp_path / "nope.txt")


# --------------------------------------------------------------------------- headers


def test_header_round_trips(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=100, rows=20, padding=3, col_gap=1, row_gap=2, flow=False)
    h = parse_header(header_text(g, 2, 7, continued=True))
    assert h is not None
    assert (h.number, h.total, h.flow, h.continued) == (2, 7, False, True)
    assert (h.font, h.cols, h.rows, h.padding, h.col_gap, h.row_gap) == (
        "snap5x8",
        100,
        20,
        3,
        1,
        2,
    )
    assert h.cell == (5, 8)


def test_cut_header_keeps_page_and_mode(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=16, rows=3)
    text = header_text(g, 1, 2)
    assert len(text) == 16
    h = parse_header(text)
    assert h is not None and h.number == 1 and h.flow and h.cols is None
    assert parse_header("hello world") is None


# --------------------------------------------------------------------------- layout


def test_empty_text_gives_no_pages(dense) -> None:  # type: ignore[no-untyped-def]
    assert layout("", Geometry(dense, cols=10, rows=3)) == []
    assert layout("   \n", Geometry(dense, cols=10, rows=3, flow=False)) != []


def test_flow_mode_draws_newlines_and_runs_on(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=4, rows=3, header=False)
    grids = layout("ab\ncdefgh", g)
    assert len(grids) == 1 and grids[0].shape == (3, 4) and grids[0].dtype == np.int32
    assert _chars(dense, grids[0]) == "ab⏎cdefgh   "


def test_lines_mode_starts_each_line_and_marks_continuations(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=4, rows=10, header=False, flow=False)
    (grid,) = layout("abcdefghij\n\nxy", g)
    rows = [_chars(dense, r) for r in grid]
    assert rows[:5] == ["abcd", "↪efg", "↪hij", "    ", "xy  "]
    assert all(r == "    " for r in rows[5:])


def test_lines_mode_draws_a_final_newline(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=5, rows=4, header=False, flow=False)
    (a,) = layout("ab", g)
    (b,) = layout("ab\n", g)
    assert _chars(dense, a[0]) == "ab   "
    assert _chars(dense, b[0]) == "ab⏎  "


def test_pagination_and_spans(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=5, rows=3)  # 2 text rows: 10 cells a page
    text = "0123456789abcdefghijXY"
    lay = layout_document(text, g)
    assert len(lay.grids) == 3
    assert lay.spans == [(0, 10), (10, 20), (20, 22)]
    assert "".join(text[a:b] for a, b in lay.spans) == text


def test_lines_mode_page_break_inside_a_line(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=4, rows=3, flow=False)  # 2 text rows per page
    text = "abcdefghij\nk"
    lay = layout_document(text, g)
    assert lay.continued == [True, False]
    assert "".join(text[a:b] for a, b in lay.spans) == text
    assert lay.spans[0] == (0, 7)


def test_replaced_characters_are_counted(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=20, rows=3, header=False)
    lay = layout_document("a\ue000b\ue000\U0010fffd", g)
    assert lay.replaced == {"\ue000": 2, "\U0010fffd": 1}
    assert _chars(dense, lay.grids[0])[:5] == "a\ufffdb\ufffd\ufffd"
    assert int(lay.grids[0][0, 1]) == REPLACEMENT


def test_keep_mode_keeps_maximal_runs_as_text(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=20, rows=3)
    text = "ok \ue000\ue001\U0010fffd end \ue005"
    lay = layout_document(text, g, unrenderable="keep")
    assert lay.replaced == {}
    assert [(k.text, k.start, k.end) for k in lay.kept] == [
        ("\ue000\ue001\U0010fffd", 3, 6),
        ("\ue005", 11, 12),
    ]
    assert [(k.page, k.row, k.col) for k in lay.kept] == [(0, 0, 3), (0, 0, 9)]
    assert _chars(dense, lay.grids[0])[:10] == "ok ▣ end ▣"


def test_unknown_unrenderable_mode_is_refused(dense) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError):
        layout_document("x", Geometry(dense, cols=5, rows=3), unrenderable="drop")


def test_a_5mb_single_line_wraps(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry.fit(dense, 1568, 728)
    text = "x" * 5_000_000
    for flow in (True, False):
        geo = Geometry(dense, cols=g.cols, rows=g.rows, flow=flow)
        lay = layout_document(text, geo)
        per_page = g.cols * g.text_rows if flow else (g.cols - 1) * g.text_rows
        assert abs(len(lay.grids) - 5_000_000 / per_page) < 2
        assert lay.spans[-1][1] == 5_000_000


@pytest.mark.skipif(find_cjk_font() is None, reason="no CJK font installed")
@pytest.mark.parametrize("flow", [True, False])
def test_wide_glyphs_never_straddle_a_row_end(dense, flow: bool) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=7, rows=40, header=False, flow=flow)
    text = "ab中文字x\n中中中中中中中中\nabcdef中"
    (grid,) = layout(text, g)
    wide = dense.wide
    assert not wide[grid[:, -1]].any()
    left = np.argwhere(wide[grid])
    for r, c in left:
        assert dense.chars[grid[r, c + 1]] == ""


@given(st.text(alphabet="ab \nxyzé中\ue000", max_size=80), st.integers(3, 9), st.booleans())
@settings(max_examples=150, deadline=None)
def test_spans_cover_the_normalized_text(text: str, cols: int, flow: bool) -> None:
    from snapshot.rendering.glyphs import load_font

    font = load_font("snap5x8")
    g = Geometry(font, cols=cols, rows=4, flow=flow)
    lay = layout_document(text, g)
    norm = normalize(text).text
    assert "".join(norm[a:b] for a, b in lay.spans) == norm
    assert all(grid.shape == (3, cols) for grid in lay.grids)
    assert len(lay.grids) == len(lay.spans) == len(lay.continued)
    if flow:
        tails = np.array([c == "" for c in font.chars])
        drawn = sum(int(((grid != SPACE) & ~tails[grid]).sum()) for grid in lay.grids)
        assert drawn == sum(1 for ch in norm if ch != " ")


def test_lone_surrogates_are_counted_not_fatal(dense) -> None:  # type: ignore[no-untyped-def]
    lay = layout_document("a\ud800b", Geometry(dense, cols=10, rows=3))
    assert lay.replaced == {"\ud800": 1}


def _reference_flow(
    text: str, font, cols: int, per_rows: int, keep: bool
) -> tuple[list[int], list[tuple[int, int, int]]]:  # type: ignore[no-untyped-def]
    """Flow layout one character at a time: the obvious slow version."""
    cells: list[int] = []
    kept_at: list[tuple[int, int, int]] = []
    prev_bad = False
    for ch in text:
        i = NEWLINE if ch == "\n" else font.index_of(ch)
        if i is None:
            if keep:
                if not prev_bad:
                    kept_at.append(len(cells))
                    cells.append(KEPT)
                prev_bad = True
                continue
            i = REPLACEMENT
        prev_bad = False
        if font.wide[i]:
            if len(cells) % cols == cols - 1:
                cells.append(SPACE)
            cells += [i, i + 1]
        else:
            cells.append(i)
    per_page = cols * per_rows
    pos = [(c // per_page, c % per_page // cols, c % cols) for c in kept_at]
    return cells, pos


@pytest.mark.skipif(find_cjk_font() is None, reason="no CJK font installed")
@given(
    st.text(alphabet="ab \n中文字\ue000\ue001é", max_size=120),
    st.integers(3, 9),
    st.integers(2, 5),
    st.booleans(),
)
@settings(max_examples=200, deadline=None)
def test_flow_layout_matches_the_reference(text: str, cols: int, rows: int, keep: bool) -> None:
    from snapshot.rendering.glyphs import load_font

    font = load_font("snap5x8")
    g = Geometry(font, cols=cols, rows=rows)
    norm = normalize(text).text
    lay = layout_document(norm, g, unrenderable="keep" if keep else "replace")
    cells, kept_at = _reference_flow(norm, font, cols, g.text_rows, keep)
    flat = np.concatenate([grid.ravel() for grid in lay.grids]) if lay.grids else np.zeros(0)
    assert flat[: len(cells)].tolist() == cells
    assert (flat[len(cells) :] == SPACE).all()
    assert [(k.page, k.row, k.col) for k in lay.kept] == kept_at
