"""``snapshot render``, ``snapshot read`` and ``snapshot fonts`` end to end."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
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


# -- limits and careless input (issue 10's render part)


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("snapshot: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this system")
def test_a_device_is_refused_not_read(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "render", "/dev/zero", "--out", str(tmp_path / "o"))
    assert code == 2
    assert "/dev/zero is a character device, not a regular file" in _one_error_line(err)
    assert not (tmp_path / "o").exists()


def test_a_fifo_is_refused_without_hanging(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "render", str(fifo), "--out", str(tmp_path / "o"))
    assert code == 2 and "is a FIFO" in _one_error_line(err)


def test_stdin_over_max_input_is_refused(capsys, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x" * 5000)))
    out = tmp_path / "o"
    code, _, err = run(capsys, "render", "-", "--out", str(out), "--max-input", "4096")
    assert code == 2
    assert "over the input limit of 4,096 bytes" in _one_error_line(err)
    assert not list(out.glob("*")) if out.exists() else True


def test_a_file_beyond_max_input_is_refused(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "big.txt"
    src.write_text("y" * 3000, encoding="utf-8")
    code, _, err = run(capsys, "render", str(src), "--out", str(tmp_path), "--max-input", "1000")
    assert code == 2 and "3,000 bytes is over the input limit" in _one_error_line(err)


@pytest.mark.parametrize(
    "flags",
    [["--rows", "1000000000"], ["--cols", "0"], ["--cols", "2"], ["--workers", "0"]],
)
def test_numbers_out_of_range_are_usage_errors(capsys, tmp_path: Path, flags: list[str]) -> None:  # type: ignore[no-untyped-def]
    # A usage error: one line from the argument parser, exit 2 (main returns it).
    assert main(["render", "--out", str(tmp_path), *flags]) == 2
    assert "must be between" in capsys.readouterr().err


def test_a_page_over_the_pixel_limit_is_refused_before_drawing(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "render", "--out", str(tmp_path), "--cols", "9000", "--rows", "9000")
    assert code == 2 and "px a page may have" in _one_error_line(err)
    assert not list(tmp_path.glob("page-*.png"))


def test_stale_pages_are_removed_and_nothing_else(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "page-099.png").write_bytes(b"old")
    (tmp_path / "page-1000.png").write_bytes(b"old")
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    (tmp_path / "page-7.png").write_bytes(b"not our naming")
    src = tmp_path / "in.txt"
    src.write_text("short\n", encoding="utf-8")
    assert run(capsys, "render", str(src), "--out", str(tmp_path))[0] == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["in.txt", "notes.txt", "page-001.png", "page-7.png"]


@pytest.mark.parametrize("workers", ["1", "2"])  # 2: pages written by worker processes
def test_a_full_disk_leaves_no_page_behind(
    capsys, tmp_path: Path, monkeypatch, workers: str
) -> None:  # type: ignore[no-untyped-def]
    import errno

    import snapshot.rendering.pagefiles as pagefiles

    real_open = open

    class HalfWriter:
        def __init__(self, path: Path) -> None:
            self.f = real_open(path, "wb")
            self.full = "page-003" in Path(path).name

        def __enter__(self):  # type: ignore[no-untyped-def]
            return self

        def __exit__(self, *exc: object) -> None:
            self.f.close()

        def write(self, data: bytes) -> int:
            if self.full:  # the third page hits a full disk halfway
                self.f.write(data[: len(data) // 2])
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return self.f.write(data)

    monkeypatch.setattr(pagefiles, "open", lambda path, mode: HalfWriter(path), raising=False)
    src = tmp_path / "in.txt"
    src.write_text("a full disk\n" * 3000, encoding="utf-8")
    out = tmp_path / "o"
    code, _, err = run(
        capsys,
        "render",
        str(src),
        "--out",
        str(out),
        "--cols",
        "80",
        "--rows",
        "20",
        "--workers",
        workers,
    )
    line = _one_error_line(err)
    assert code == 2 and "No space left on device" in line and "page-003.png" in line
    # pages are written on two threads, or by two processes a few pages at a time:
    # the ones after page 3 may be done too
    removed = re.search(r"removed the (\d+) page\(s\) this run wrote", line)
    most = 2 + pagefiles.WRITES_AHEAD if workers == "1" else 24  # 24 pages in all
    assert removed is not None and 2 <= int(removed[1]) <= most
    assert list(out.iterdir()) == []


def test_pages_read_would_refuse_are_not_written(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "zeros.txt"
    src.write_bytes(b"\x00" * 40000)  # control pictures: reverse video, 63 % ink
    code, _, err = run(capsys, "render", str(src), "--out", str(tmp_path / "o"))
    assert code == 2 and "ink" in _one_error_line(err)
    assert not list((tmp_path / "o").glob("page-*.png"))


def test_render_workers_give_identical_files(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "in.txt"
    src.write_text("workers do not change a byte ✓\n" * 4000, encoding="utf-8")
    for n in ("1", "3"):
        assert run(capsys, "render", str(src), "--out", str(tmp_path / n), "--workers", n)[0] == 0
    one = sorted((tmp_path / "1").glob("page-*.png"))
    three = sorted((tmp_path / "3").glob("page-*.png"))
    assert len(one) > 1 and [p.read_bytes() for p in one] == [p.read_bytes() for p in three]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this system")
def test_stdin_that_is_a_device_is_refused(tmp_path: Path) -> None:
    env = {**os.environ, "SNAPSHOT_NO_PROGRESS": "1"}
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run(
            [sys.executable, "-m", "snapshot", "render", "-", "--out", str(tmp_path / "o")],
            stdin=zero,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
    assert proc.returncode == 2
    assert "stdin is a device" in _one_error_line(proc.stderr)
