"""The decoder: exact round trips, shifts, gray and noisy pixels, wrong fonts, PNG loading."""

from __future__ import annotations

import io
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from snapshot.errors import ImageError
from snapshot.rendering.decode import decodable_chars, load_png, read
from snapshot.rendering.geometry import Geometry, default_geometry
from snapshot.rendering.glyphs import load_font
from snapshot.rendering.page import render, render_document
from snapshot.rendering.raster import to_png
from snapshot.rendering.text import normalize

CODE = (
    'def parse(line: str) -> dict[str, int]:\n    """Split "k=v;k2=v2" into a dict."""\n'
    "    return {k: int(v) for k, v in (p.split('=') for p in line.split(';') if p)}\n"
    "$ grep -rn 'TODO' src/ | wc -l\n42\n"
    '{"id": "0x5f3e1a9c", "ok": false, "tags": ["ő", "ű", "Ж", "λ"]}\n'
)


def _read_all(pages, font, geometry=None) -> str:  # type: ignore[no-untyped-def]
    return "".join(read(p.pixels, font, geometry=geometry) for p in pages)


def test_default_page_reads_back_exactly(dense) -> None:  # type: ignore[no-untyped-def]
    text = CODE * 300
    doc = render_document(text, default_geometry(dense))
    assert len(doc.pages) >= 2
    assert _read_all(doc.pages, dense) == doc.text == normalize(text).text


def test_each_page_reads_as_its_text(dense) -> None:  # type: ignore[no-untyped-def]
    for flow in (True, False):
        g = Geometry(dense, cols=29, rows=7, flow=flow)
        for page in render(CODE * 3, g):
            assert read(page.pixels, dense) == page.text


def test_medium_font_reads_back(medium) -> None:  # type: ignore[no-untyped-def]
    pages = render(CODE, Geometry(medium, cols=60, rows=12))
    assert _read_all(pages, medium) == normalize(CODE).text


def _alphabet() -> str:
    from snapshot.rendering.glyphs import load_font as lf

    return decodable_chars(lf("snap5x8"))


@given(
    text=st.text(alphabet=st.sampled_from(_alphabet() + "\n\n  \x00\x07\x7f\t"), max_size=400),
    cols=st.integers(18, 50),
    rows=st.integers(2, 6),
    flow=st.booleans(),
)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_property_round_trip_over_the_repertoire(
    text: str, cols: int, rows: int, flow: bool
) -> None:
    font = load_font("snap5x8")
    g = Geometry(font, cols=cols, rows=rows, flow=flow)
    pages = render(text, g)
    norm = normalize(text).text
    assert _read_all(pages, font) == norm
    assert _read_all(pages, font, geometry=g) == norm


@given(
    text=st.text(alphabet="ab c\n", max_size=60),
    cols=st.integers(3, 12),
    flow=st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_narrow_pages_read_with_a_given_geometry(text: str, cols: int, flow: bool) -> None:
    font = load_font("snap5x8")
    g = Geometry(font, cols=cols, rows=40, flow=flow)  # one page: no page number needed
    pages = render(text, g)
    assert len(pages) <= 1
    assert _read_all(pages, font, geometry=g) == normalize(text).text


def test_small_shifts_are_tolerated(dense) -> None:  # type: ignore[no-untyped-def]
    page = render(CODE, Geometry(dense, cols=70, rows=10))[0]
    for dx, dy in ((1, 0), (2, 1), (0, 2), (-1, -1), (2, 2)):
        shifted = np.full_like(page.pixels, 255)
        src = page.pixels[
            max(0, -dy) : page.pixels.shape[0] - max(0, dy),
            max(0, -dx) : page.pixels.shape[1] - max(0, dx),
        ]
        shifted[max(0, dy) : max(0, dy) + src.shape[0], max(0, dx) : max(0, dx) + src.shape[1]] = (
            src
        )
        assert read(shifted, dense) == page.text, (dx, dy)


def test_gray_rgb_and_noisy_pixels(dense) -> None:  # type: ignore[no-untyped-def]
    page = render(CODE, Geometry(dense, cols=70, rows=10))[0]
    gray = np.where(page.pixels == 0, 60, 230).astype(np.uint8)  # low contrast
    assert read(gray, dense) == page.text
    rgb = np.repeat(page.pixels[:, :, None], 3, axis=2)
    assert read(rgb, dense) == page.text
    rng = np.random.default_rng(0)
    noisy = np.clip(page.pixels.astype(np.float32) + rng.normal(0, 40, page.pixels.shape), 0, 255)
    assert read(noisy.astype(np.uint8), dense) == page.text
    floats = page.pixels.astype(np.float64) / 255.0
    assert read(floats, dense) == page.text


def test_jpeg_and_upscale_restore(dense) -> None:  # type: ignore[no-untyped-def]
    page = render(CODE, Geometry(dense, cols=70, rows=10))[0]
    buf = io.BytesIO()
    Image.fromarray(page.pixels).save(buf, "JPEG", quality=70)
    assert read(np.asarray(Image.open(io.BytesIO(buf.getvalue()))), dense) == page.text
    w, h = page.size
    up = Image.fromarray(page.pixels).resize((w * 2, h * 2), Image.BICUBIC)
    restored = np.asarray(up.resize((w, h), Image.BILINEAR))
    assert read(restored, dense) == page.text


def test_white_on_black(dense) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=50, rows=8, ink="white-on-black")
    page = render(CODE, g)[0]
    assert (page.pixels == 0).mean() > 0.5
    assert read(page.pixels, dense) == page.text


def test_page_from_another_font_is_refused(dense, system_font) -> None:  # type: ignore[no-untyped-def]
    other = system_font("spleen-5x8")
    g_other = Geometry.fit(other, 800, 200)
    page = render(CODE * 4, g_other)[0]
    with pytest.raises(ImageError, match=r"spleen-5x8|another font|header"):
        read(page.pixels, dense)
    with pytest.raises(ImageError, match="does not match font snap5x8"):
        read(page.pixels, dense, geometry=Geometry.fit(dense, 800, 200))


def test_medium_page_read_with_dense_font_names_the_mismatch(dense, medium) -> None:  # type: ignore[no-untyped-def]
    page = render(CODE, Geometry(medium, cols=60, rows=10))[0]
    with pytest.raises(ImageError):
        read(page.pixels, dense)


def test_blank_image_has_no_header(dense) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ImageError, match="no page header"):
        read(np.full((100, 200), 255, np.uint8), dense)
    with pytest.raises(ImageError):
        read(np.zeros((0, 0), np.uint8), dense)


# --------------------------------------------------------------------------- load_png


def test_load_png_round_trip(dense, tmp_path) -> None:  # type: ignore[no-untyped-def]
    page = render(CODE, Geometry(dense, cols=40, rows=6))[0]
    path = tmp_path / "p.png"
    path.write_bytes(page.png())
    assert np.array_equal(load_png(path), page.pixels)
    assert np.array_equal(load_png(page.png()), page.pixels)
    assert read(load_png(path), dense) == page.text


def test_load_png_refuses_truncated_and_corrupt(dense, tmp_path) -> None:  # type: ignore[no-untyped-def]
    png = render(CODE, Geometry(dense, cols=40, rows=6))[0].png()
    with pytest.raises(ImageError):
        load_png(png[: len(png) // 2])
    with pytest.raises(ImageError):
        load_png(b"not a png at all")
    with pytest.raises(ImageError, match="no such file"):
        load_png(tmp_path / "missing.png")


def _bomb(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims a huge 1-bit image."""
    import struct

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    raw = zlib.compress(b"\x00" * 64)
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def test_load_png_refuses_decompression_bombs() -> None:
    with pytest.raises(ImageError, match="limit"):
        load_png(_bomb(100_000, 100_000))
    with pytest.raises(ImageError, match="limit"):
        load_png(to_png(np.zeros((10, 10), np.uint8), (10, 10)), max_pixels=50)


def test_load_png_refuses_odd_modes() -> None:
    buf = io.BytesIO()
    Image.new("CMYK", (4, 4)).save(buf, "TIFF")
    with pytest.raises(ImageError, match="mode"):
        load_png(buf.getvalue())


@pytest.mark.parametrize(("padding", "col_gap", "row_gap"), [(5, 1, 2), (0, 0, 0), (9, 2, 1)])
def test_header_configures_gaps_and_padding(
    dense, padding: int, col_gap: int, row_gap: int
) -> None:  # type: ignore[no-untyped-def]
    g = Geometry(dense, cols=60, rows=8, padding=padding, col_gap=col_gap, row_gap=row_gap)
    pages = render(CODE * 2, g)
    assert _read_all(pages, dense) == normalize(CODE * 2).text


def test_matching_shortcuts_never_change_the_answer(dense) -> None:  # type: ignore[no-untyped-def]
    from snapshot.rendering.decode import _as_ink, _cells, _match, _templates

    page = render(CODE * 6, Geometry(dense, cols=80, rows=12))[0]
    rng = np.random.default_rng(7)
    variants = [page.pixels]
    for q in (95, 60, 30):
        buf = io.BytesIO()
        Image.fromarray(page.pixels).save(buf, "JPEG", quality=q)
        variants.append(np.asarray(Image.open(io.BytesIO(buf.getvalue()))))
    for sigma in (20, 60, 100):
        noise = rng.normal(0, sigma, page.pixels.shape)
        variants.append(np.clip(page.pixels + noise, 0, 255).astype(np.uint8))
    tpl = _templates(dense)
    g = page.geometry
    for px in variants:
        cells = _cells(_as_ink(px, None), 2, 2, g, range(0, g.rows))
        fast, fast_ssd = _match(cells, tpl)
        slow, slow_ssd = _match(cells, tpl, shortcuts=False)
        assert np.array_equal(fast, slow)
        assert np.allclose(fast_ssd, slow_ssd, atol=1e-3)
