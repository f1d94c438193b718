"""Fonts, atlases, markers and the fallback chain."""

from __future__ import annotations

import threading
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from snapshot.errors import UnknownFontError
from snapshot.rendering import glyphs
from snapshot.rendering.glyphs import (
    CONTINUE,
    CONTINUE_MARK,
    KEPT,
    KEPT_MARK,
    MIN_DISTANCE,
    NEWLINE,
    NEWLINE_MARK,
    REPLACEMENT,
    SPACE,
    available_fonts,
    closest_pairs,
    distinct_glyph,
    find_cjk_font,
    load_font,
)


def _min_distance_to_others(font: glyphs.Font, index: int) -> int:
    flat = font.atlas.reshape(len(font.atlas), -1)
    others = np.delete(flat, index, axis=0)
    return int((others != flat[index]).sum(axis=1).min())


def test_bundled_fonts_load_with_their_cells(dense, medium) -> None:  # type: ignore[no-untyped-def]
    assert (dense.name, dense.cell) == ("snap5x8", (5, 8))
    assert (medium.name, medium.cell) == ("snap8x16", (8, 16))
    assert dense.path.name == "snap5x8.bdf" and dense.path.is_file()
    assert dense.atlas.shape[1:] == (8, 5)
    assert dense.atlas.dtype == np.uint8 and set(np.unique(dense.atlas)) <= {0, 1}


def test_load_font_is_cached_per_font_and_size(dense) -> None:  # type: ignore[no-untyped-def]
    assert load_font("snap5x8") is dense
    assert load_font(dense.path) is not None


def test_fixed_atlas_entries(dense) -> None:  # type: ignore[no-untyped-def]
    assert dense.chars[SPACE] == " "
    assert dense.chars[REPLACEMENT] == "\ufffd"
    assert dense.chars[NEWLINE] == NEWLINE_MARK
    assert dense.chars[CONTINUE] == CONTINUE_MARK
    assert dense.chars[KEPT] == KEPT_MARK
    assert dense.atlas[SPACE].sum() == 0
    assert dense.index_of(" ") == SPACE
    assert dense.index_of("A") is not None and dense.chars[dense.index_of("A")] == "A"


@pytest.mark.parametrize("name", ["snap5x8", "snap8x16", "misc-5x8", "spleen-5x8", "misc-6x12"])
def test_markers_and_replacement_stay_clear_of_every_glyph(name: str, system_font) -> None:  # type: ignore[no-untyped-def]
    font = load_font(name) if name.startswith("snap") else system_font(name)
    for index in (REPLACEMENT, NEWLINE, CONTINUE, KEPT):
        assert font.atlas[index].sum() > 0, "markers are visible"
        assert _min_distance_to_others(font, index) >= MIN_DISTANCE, font.chars[index]


def test_marker_code_points_in_text_are_never_drawn(dense) -> None:  # type: ignore[no-untyped-def]
    for cp in (0xE000, 0xE001, 0xE002, 0xE0FF):
        assert dense.index_of(chr(cp)) is None
    assert dense.index_of("\ud800") is None  # a lone surrogate


def test_path_loading_of_each_format(tmp_path: Path, system_font) -> None:  # type: ignore[no-untyped-def]
    misc = system_font("misc-5x8")
    assert misc.path.suffix == ".gz"  # gzipped PCF straight through freetype
    assert load_font(misc.path).cell == (5, 8)
    bundled = available_fonts()["snap5x8"]
    copy = tmp_path / "mine.bdf"
    copy.write_bytes(bundled.read_bytes())
    mine = load_font(copy)
    assert mine.name == "mine" and mine.cell == (5, 8)
    otb = Path("/usr/share/fonts/opentype/terminus/terminus-normal.otb")
    if otb.is_file():
        assert load_font(otb, pixel_size=12).cell[1] >= 12
    mono = available_fonts().get("dejavu-sans-mono")
    if mono is None:
        pytest.skip("matplotlib's DejaVu Sans Mono not found")
    ttf = load_font(mono, pixel_size=16)
    assert ttf.pixel_size == 16 and ttf.cell[0] < ttf.cell[1]
    spleen_otf = Path("/usr/share/fonts/opentype/spleen/spleen-6x12.otf")
    if spleen_otf.is_file():
        assert load_font(spleen_otf, pixel_size=12).cell[0] in (5, 6, 7)


def test_unknown_font_lists_the_available_names() -> None:
    with pytest.raises(UnknownFontError) as err:
        load_font("comic-sans-5x8")
    message = str(err.value)
    assert "comic-sans-5x8" in message
    assert "snap5x8" in message and "snap8x16" in message


def test_a_corrupt_font_file_is_a_font_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken.bdf"
    bad.write_text("STARTFONT 2.1\nthis is not a font\n")
    with pytest.raises(UnknownFontError, match="cannot load font"):
        load_font(bad)


def test_fallback_draws_what_the_font_lacks(dense) -> None:  # type: ignore[no-untyped-def]
    ch = "∀"  # in DejaVu Sans Mono, not in the project font
    assert not dense.covers(ch)
    idx = dense.index_of(ch)
    assert idx is not None and idx >= 5
    assert dense.chars[idx] == ch
    assert dense.atlas[idx].sum() > 0
    assert dense.covers("ő") and dense.covers("Ж")


def test_control_pictures_are_drawn_even_without_a_font_glyph(dense) -> None:  # type: ignore[no-untyped-def]
    for cp in (0x2400, 0x2407, 0x241B, 0x2421):
        idx = dense.index_of(chr(cp))
        assert idx is not None and dense.atlas[idx].sum() > 0
    # NUL and BEL pictures differ from each other and from the letters they come from
    a, b = dense.index_of("\u2400"), dense.index_of("\u2407")
    assert a is not None and b is not None
    assert (dense.atlas[a] != dense.atlas[b]).any()


def test_wide_characters_take_two_cells() -> None:
    if find_cjk_font() is None:
        pytest.skip("no CJK font installed (apt: fonts-noto-cjk)")
    font = load_font("snap5x8")
    idx = font.index_of("中")
    assert idx is not None
    assert font.wide[idx] and not font.wide[idx + 1]
    assert font.chars[idx + 1] == glyphs.WIDE_TAIL
    both = np.concatenate([font.atlas[idx], font.atlas[idx + 1]], axis=1)
    assert both[:, :5].sum() > 0 and both[:, 5:].sum() > 0
    assert unicodedata.east_asian_width("中") == "W"


def test_glyph_pixels_do_not_depend_on_history() -> None:
    path = available_fonts()["snap5x8"]
    first = glyphs._build("h1", path, None)
    second = glyphs._build("h2", path, None)
    order = ["∀", "∃", "中", "☃", "Ω"]
    a = {c: first.index_of(c) for c in order}
    b = {c: second.index_of(c) for c in reversed(order)}
    for c in order:
        ia, ib = a[c], b[c]
        assert (ia is None) == (ib is None)
        if ia is not None and ib is not None:
            assert np.array_equal(first.atlas[ia], second.atlas[ib]), c


def test_concurrent_lookups_agree() -> None:
    path = available_fonts()["snap5x8"]
    font = glyphs._build("threads", path, None)
    chars = [chr(c) for c in range(0x2200, 0x2260)]
    results: list[dict[str, int | None]] = []

    def work(seq: list[str]) -> None:
        results.append({c: font.index_of(c) for c in seq})

    threads = [threading.Thread(target=work, args=(chars[::step],)) for step in (1, -1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for res in results:
        for c, idx in res.items():
            assert idx == font.index_of(c)
            if idx is not None:
                assert font.chars[idx] == c


def test_lookup_is_vectorized_and_marks_undrawable(dense) -> None:  # type: ignore[no-untyped-def]
    cps = np.array([ord(c) for c in "Az\ue000"], np.uint32)
    idx, atlas = dense.lookup(cps)
    assert [atlas.chars[i] for i in idx[:2]] == ["A", "z"]
    assert idx[2] < 0


def test_distinct_glyph_reaches_the_distance() -> None:
    rng = np.random.default_rng(0)
    others = rng.integers(0, 2, (200, 8, 5)).astype(np.uint8)
    design = others[0].copy()
    out = distinct_glyph(design, others, 3)
    assert ((others.reshape(200, -1) != out.reshape(1, -1)).sum(axis=1)).min() >= 3


def test_closest_pairs_are_sorted_and_measured(dense) -> None:  # type: ignore[no-untyped-def]
    pairs = closest_pairs(dense, limit=6)
    assert len(pairs) == 6
    dists = [d for _, _, d in pairs]
    assert dists == sorted(dists)
    a, b, d = pairs[0]
    ia, ib = dense.index_of(a), dense.index_of(b)
    assert ia is not None and ib is not None
    assert int((dense.atlas[ia] != dense.atlas[ib]).sum()) == d
    # the project font's design floor over printable ASCII
    assert d >= 3


def test_dejavu_is_found_without_importing_matplotlib() -> None:
    """Finding the fallback fonts must not cost `render` matplotlib's import (0.2 s)."""
    import json
    import os
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "from snapshot.rendering.glyphs import _matplotlib_font, available_fonts\n"
        "fonts = available_fonts()\n"
        "print(json.dumps([str(_matplotlib_font('DejaVuSans.ttf')), "
        "'dejavu-sans-mono' in fonts, 'matplotlib' in sys.modules]))\n"
    )
    root = str(Path(glyphs.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    path, mono, imported = json.loads(out.stdout)
    import matplotlib

    assert Path(path) == Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    assert mono and not imported
