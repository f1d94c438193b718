"""`snapshot legibility` and `snapshot tune` from the command line, bad input included."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from snapshot.cli import build_parser, main
from snapshot.errors import ImageError


def test_commands_are_registered() -> None:
    parser = build_parser()
    for cmd in ("legibility", "tune"):
        assert parser.parse_args([cmd, "--model", "m"]).func is not None


def test_legibility_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "legibility", "--model", "gemini-3.5-flash", "--reader", "oracle",
            "--font", "misc-5x8", "--font", "no-such-font", "--lines", "3",
            "--scale", "1", "0.75", "--filter", "bicubic", "--json",
        ]
    )  # fmt: skip
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["model"] == "gemini-3.5-flash"
    acc = {(r["font"], r["scale"]): r for r in doc["accuracy"]}
    assert acc[("misc-5x8", 1.0)]["char_accuracy"] == 1.0
    assert acc[("misc-5x8", 0.75)]["filter"] == "bicubic"
    assert any("no-such-font" in s for s in doc["skipped"])
    conf = {(c["font"], c["scale"]): c for c in doc["confusable"]}
    assert conf[("misc-5x8", 1.0)]["floor"] == 1
    assert conf[("misc-5x8", 1.0)]["nearest"][0][2] == 1


def test_legibility_table_text(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["legibility", "--model", "gemini-3.5-flash", "--reader", "oracle",
         "--font", "spleen-5x8", "--lines", "2"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "spleen-5x8" in out and "H~K 1" in out  # the one-pixel pair Spleen is known for


def test_unknown_model_and_bad_values(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["legibility", "--model", "no-such-model-xyz", "--reader", "oracle"]) == 2
    assert "snapshot: error:" in capsys.readouterr().err
    assert main(["legibility", "--model", "gemini-3.5-flash", "--lines", "0"]) == 2
    assert main(["legibility", "--model", "gemini-3.5-flash", "--reader", "oracle",
                 "--font", "misc-5x8", "--scale", "0"]) == 2  # fmt: skip


def _page_png(tmp_path: Path, font: str = "misc-5x8") -> Path:
    from snapshot.rendering.geometry import Geometry
    from snapshot.rendering.glyphs import load_font
    from snapshot.rendering.page import render

    g = Geometry(load_font(font), cols=40, rows=6, flow=False)
    page = render("sha 9bd658382e55b53a\nreq_q2mZ0BM1cS8\nx = {'a': [1, 2]}", g)[0]
    path = tmp_path / f"{font}.png"
    path.write_bytes(page.png())
    return path


def test_measure_an_existing_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _page_png(tmp_path)
    code = main(
        ["legibility", "--model", "gemini-3.5-flash", "--reader", "oracle", "--font", "misc-5x8",
         "--page", str(path), "--scale", "1", "0.9", "--filter", "bicubic", "--json"]
    )  # fmt: skip
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rows"] == 3
    assert doc["accuracy"][0]["char_accuracy"] == 1.0


def _bomb_png() -> bytes:
    """A valid PNG header claiming 30000×30000 px, with almost no data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", 30000, 30000, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0"))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    "case", ["corrupt", "truncated", "wrong-mode", "bomb", "other-font", "missing"]
)
def test_bad_pages_give_clear_errors(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from snapshot.rendering.decode import load_png

    good = _page_png(tmp_path)
    path = tmp_path / f"{case}.png"
    if case == "corrupt":
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 20)
    elif case == "truncated":
        path.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    elif case == "wrong-mode":
        Image.fromarray(np.zeros((8, 8, 4), np.uint8) + 255, mode="RGBA").convert("CMYK").save(
            path, format="TIFF"
        )
    elif case == "bomb":
        path.write_bytes(_bomb_png())
    elif case == "other-font":
        path = _page_png(tmp_path, "spleen-5x8")
    if case != "other-font":
        with pytest.raises(ImageError):
            load_png(path)
    code = main(
        ["legibility", "--model", "gemini-3.5-flash", "--reader", "oracle",
         "--font", "misc-5x8", "--page", str(path)]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("snapshot: error:") and len(err.strip().splitlines()) == 1
    if case == "bomb":
        assert "limit" in err
    if case == "other-font":
        assert "font" in err
    if case == "wrong-mode":
        assert "mode" in err


def test_page_needs_one_font(tmp_path: Path) -> None:
    assert (
        main(["legibility", "--model", "gemini-3.5-flash", "--page", str(_page_png(tmp_path))]) == 2
    )


def test_tune_writes_a_loadable_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from snapshot.legibility import tune

    # the report's check of the winner passes here without reading (tests/test_tune_confirm.py)
    monkeypatch.setattr(
        tune, "confirm", lambda entry, readers=(), minimum=None: tune.Confirmation(True, "ok")
    )
    out = tmp_path / "tuned.json"
    code = main(
        ["tune", "--model", "claude-sonnet-4-5", "--reader", "oracle", "--target", "0.99",
         "--font", "misc-5x8", "--font", "misc-6x12", "--col-gap", "0", "--row-gap", "0",
         "--ink", "black-on-white", "--lines", "3", "--out", str(out)]
    )  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0, text
    assert "WIN" in text and str(out) in text
    from snapshot.profiles import load_profiles

    prof = load_profiles(out)["claude-sonnet-4-5"]
    assert prof.font == "misc-5x8"  # the denser font reads perfectly for the oracle


def test_tune_target_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["tune", "--model", "claude-sonnet-4-5", "--reader", "oracle", "--target", "2"]) == 2
    )


def test_tune_font_styles_name_every_shade() -> None:
    from snapshot.cli.legibility import _style
    from snapshot.errors import SnapshotError

    assert _style("snap5x9v2:gray4") == ("snap5x9v2", None, "gray4")
    assert _style("dejavu-sans-mono@8:gray16") == ("dejavu-sans-mono", 8, "gray16")
    assert _style("snap5x8") == ("snap5x8", None, "1-bit")
    with pytest.raises(SnapshotError, match="gray, gray16, gray4"):
        _style("snap5x8:grey")
