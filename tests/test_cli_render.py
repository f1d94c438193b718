"""``snapshot render``, ``snapshot read`` and ``snapshot fonts`` end to end."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from PIL import Image

from snapshot.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_render_demo_by_default(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "render", "--out", str(tmp_path))
    assert code == 0
    assert "bundled demo session" in out and "snap5x8" in out and "1568x728" in out
    pages = sorted(tmp_path.glob("page-*.png"))
    assert pages and pages[0].name == "page-001.png"
    with Image.open(pages[0]) as im:
        assert im.size == (1568, 728) and im.mode == "1"


def test_render_json_schema(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.txt"
    src.write_text("hello ✓ world\n" * 500 + "\ue000\ue000\ue001", encoding="utf-8")
    code, out, _ = run(
        capsys,
        "render",
        str(src),
        "--out",
        str(tmp_path / "o"),
        "--json",
        "--cols",
        "80",
        "--rows",
        "20",
    )
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"pages", "chars", "replaced"}
    assert data["replaced"] == {"\ue000": 2, "\ue001": 1}
    assert data["chars"] == sum(p["chars"] for p in data["pages"])
    for rec in data["pages"]:
        assert set(rec) >= {"file", "width", "height", "chars"}
        with Image.open(rec["file"]) as im:
            assert im.size == (rec["width"], rec["height"]) == (80 * 5 + 4, 20 * 8 + 4)


def test_render_then_read_round_trip(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.txt"
    text = "def f(x):\n    return {'a': x}  # ő ű Ж λ\n$ echo ok\nok\n"
    src.write_text(text, encoding="utf-8")
    for mode in ([], ["--lines"]):
        out_dir = tmp_path / f"o{len(mode)}"
        assert run(capsys, "render", str(src), "--out", str(out_dir), "--cols", "30", *mode)[0] == 0
        (page,) = sorted(out_dir.glob("page-*.png"))
        code, out, _ = run(capsys, "read", str(page))
        assert (code, out) == (0, text)


def test_read_with_explicit_font(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.txt"
    src.write_text("plain words", encoding="utf-8")
    run(capsys, "render", str(src), "--out", str(tmp_path), "--font", "snap8x16", "--cols", "40")
    code, out, _ = run(capsys, "read", str(tmp_path / "page-001.png"), "--font", "snap8x16")
    assert (code, out) == (0, "plain words\n")
    code, _, err = run(capsys, "read", str(tmp_path / "page-001.png"), "--font", "snap5x8")
    assert code == 2 and err.startswith("snapshot: error:") and err.count("\n") == 1


def test_stdin_and_empty_input(capsys, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    code, out, _ = run(capsys, "render", "-", "--out", str(tmp_path), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["pages"] == [] and data["chars"] == 0
    assert not list(tmp_path.glob("*.png"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"from stdin\n")))
    code, out, _ = run(capsys, "render", "-", "--out", str(tmp_path))
    assert code == 0 and "stdin" in out


def test_invalid_utf8_and_control_bytes(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "bad.bin"
    src.write_bytes(b"ok \xff\xfe done\x00\x07\r\n")
    code, out, _ = run(capsys, "render", str(src), "--out", str(tmp_path), "--json", "--cols", "40")
    data = json.loads(out)
    assert code == 0 and data["invalid_utf8"] == 2 and data["replaced"] == {}
    code, out, _ = run(capsys, "read", str(tmp_path / "page-001.png"))
    assert out == "ok \ufffd\ufffd done␀␇\n"


def test_a_5mb_line_renders(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "long.txt"
    src.write_bytes(b"0123456789" * 500_000)
    code, out, _ = run(capsys, "render", str(src), "--out", str(tmp_path / "o"), "--json")
    data = json.loads(out)
    assert code == 0 and data["chars"] == 5_000_000
    assert len(data["pages"]) == -(-5_000_000 // (312 * 89))


def test_unknown_font_lists_available(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "render", "--font", "nope", "--out", str(tmp_path))
    assert code == 2
    assert "unknown font 'nope'" in err and "snap5x8" in err and "snap8x16" in err
    assert err.count("\n") == 1


def test_missing_input_file(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "render", str(tmp_path / "nope.txt"), "--out", str(tmp_path))
    assert code == 2 and "cannot read" in err


def test_read_of_a_non_image(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "x.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\nnope")
    code, _, err = run(capsys, "read", str(bad))
    assert code == 2 and "not a readable image" in err


def test_keep_flag_lists_kept_runs(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "k.txt"
    src.write_text("a\ue000\ue001b", encoding="utf-8")
    code, out, _ = run(capsys, "render", str(src), "--out", str(tmp_path), "--json", "--keep")
    data = json.loads(out)
    assert (
        code == 0
        and data["replaced"] == {}
        and [k["text"] for k in data["kept"]] == ["\ue000\ue001"]
    )


def test_model_flag_uses_the_profile_page(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from snapshot import profiles

    size = profiles.profile_for("claude-sonnet-4-5").geometry().size
    code, out, _ = run(
        capsys, "render", "--model", "claude-sonnet-4-5", "--out", str(tmp_path), "--json"
    )
    assert code == 0
    rec = json.loads(out)["pages"][0]
    assert (rec["width"], rec["height"]) == size


def test_fonts_json(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "fonts", "--json")
    assert code == 0
    fonts = {f["name"]: f for f in json.loads(out)}
    dense = fonts["snap5x8"]
    assert set(dense) >= {"name", "path", "cell", "glyphs", "closest"}
    assert dense["cell"] == [5, 8] and dense["glyphs"] > 500
    assert Path(dense["path"]).is_file()
    a, b, d = dense["closest"][0]
    assert isinstance(a, str) and isinstance(b, str) and d >= 3
    code, out, _ = run(capsys, "fonts")
    assert code == 0 and "snap5x8" in out and "snap8x16" in out


def test_a_fresh_process_reads_control_pictures(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]

    src = tmp_path / "ctl.txt"
    src.write_bytes(b"nul\x00 bell\x07 del\x7f\n")
    assert run(capsys, "render", str(src), "--out", str(tmp_path), "--cols", "40")[0] == 0
    proc = subprocess.run(
        [sys.executable, "-m", "snapshot", "read", str(tmp_path / "page-001.png")],
        capture_output=True,
        text=True,
        env={**os.environ, "SNAPSHOT_NO_PROGRESS": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "nul␀ bell␇ del␡\n"
