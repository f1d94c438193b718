"""``snapshot render`` of a file on worker processes (snapshot.rendering.span_procs): the same
page files (names and bytes) and summary as one process, whatever the worker count;
a worker's error, a killed worker and Ctrl-C end in one line with no page left, and
no worker outlives its parent."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import snapshot
import snapshot.profiles.render_files as render_files_module
import snapshot.rendering.span_procs as span_procs
import snapshot.rendering.spans as spans
from snapshot.cli import main
from snapshot.errors import InputError
from snapshot.profiles.render_files import render_files
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import load_font
from snapshot.rendering.page import PageStream
from snapshot.rendering.parallel import processes_available
from snapshot.rendering.spans import plan_spans
from snapshot.rendering.text import TextReader

pytestmark = pytest.mark.skipif(not processes_available(), reason="worker processes: Linux only")

# the folder holding the snapshot under test (the checkout, or an installed wheel's site-packages)
PACKAGE_ROOT = Path(snapshot.__file__).resolve().parent.parent
BASE = "def f(x):\n    return x + 1  \n# a comment   \nprint(f(41))\n" * 40

CASES: dict[str, bytes] = {
    "plain": BASE.encode(),
    "no final newline": (BASE + "tail   ").encode(),
    "tabs and CRLF": BASE.replace("    ", "\t").replace("\n", "\r\n").encode(),
    "non-ASCII": (BASE + "café naïve → ∑ ✓ e\u0301 a\u200bb\n" * 30).encode(),
    "undrawable": (BASE + "x\ue000y\n" * 20).encode(),
    "invalid UTF-8": BASE.encode() + b"\xff\xfe bad \xc3 \xef\xbf\xbd ok\n" * 20,
    "empty": b"",
    "one page (drawn in this process)": b"one short page\n",
    "exactly two pages": (("z" * 39 + "\n") * 20).encode(),
}


@pytest.fixture(autouse=True)
def small_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    # pages straddle spans and jobs start mid-span; forked workers inherit the patch
    monkeypatch.setattr(spans, "SPAN_BYTES", 97)
    monkeypatch.setattr(span_procs, "JOB_CHARS", 200)


@pytest.fixture
def on_processes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the renders that took the process path."""
    calls: list[int] = []
    real = render_files_module.write_plan_pages

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["workers"])
        return real(*args, **kwargs)

    monkeypatch.setattr(render_files_module, "write_plan_pages", spy)
    return calls


def _files(out: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in out.iterdir()}


def _summary(done: Any) -> dict[str, Any]:
    summary = done.as_dict()
    summary["pages"] = [{**p, "file": Path(p["file"]).name} for p in summary["pages"]]
    return summary


@pytest.mark.parametrize("name", list(CASES))
def test_processes_write_the_files_of_one_process(
    tmp_path: Path, name: str, on_processes: list[int]
) -> None:
    src = tmp_path / "in.txt"
    src.write_bytes(CASES[name])
    opts: dict[str, Any] = {"font": "snap5x8", "cols": 40, "rows": 11}
    one = render_files(str(src), tmp_path / "w1", workers=1, **opts)
    assert on_processes == [], "--workers 1 stays in this process"
    for workers in (2, 3):
        done = render_files(str(src), tmp_path / f"w{workers}", workers=workers, **opts)
        assert _files(tmp_path / f"w{workers}") == _files(tmp_path / "w1"), workers
        assert _summary(done) == _summary(one)
        assert done.invalid_utf8 == one.invalid_utf8 and done.replaced == one.replaced
    assert on_processes == [2, 3]


def test_texts_that_take_one_stream_stay_on_threads(
    tmp_path: Path, on_processes: list[int]
) -> None:
    src = tmp_path / "in.txt"
    src.write_text("a\x1b]0;title\nmore\x07b\n" * 30, encoding="utf-8")  # escapes over newlines
    one = render_files(str(src), tmp_path / "w1", font="snap5x8", cols=40, rows=11, workers=1)
    two = render_files(str(src), tmp_path / "w2", font="snap5x8", cols=40, rows=11, workers=2)
    assert on_processes == [] and _files(tmp_path / "w2") == _files(tmp_path / "w1")
    assert _summary(two) == _summary(one)


@pytest.mark.parametrize("workers", [1, 2, 3, 8])
def test_page_ranges_cover_every_page_once_in_order(workers: int) -> None:
    for pages in (0, 1, 7, 100, 3602):
        ranges = span_procs.page_ranges(pages, 27_768, workers)
        covered = [first + k for first, count in ranges for k in range(count)]
        assert covered == list(range(pages))
        assert all(count >= 1 for _, count in ranges)


def test_a_range_of_pages_is_those_pages_of_the_whole(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_bytes(CASES["non-ASCII"])
    plan = plan_spans(TextReader(src), Geometry(load_font("snap5x8"), cols=40, rows=11))
    assert plan is not None and plan.pages > 5
    whole = [(c.text, c.span, c.grid.tolist()) for c in plan.cells()]
    for first in range(plan.pages):
        for count in (1, 2, 5):
            part = [(c.text, c.span, c.grid.tolist()) for c in plan.cells(first, count, workers=1)]
            assert part == whole[first : first + count]


def test_the_survey_on_processes_counts_as_on_threads(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_bytes(CASES["invalid UTF-8"] + CASES["undrawable"] + CASES["tabs and CRLF"])
    g = Geometry(load_font("snap5x8"), cols=40, rows=11)
    plans = []
    for processes in (False, True):
        reader = TextReader(src)
        plan = plan_spans(reader, g, workers=2, processes=processes)
        assert plan is not None
        plans.append((plan.spans, plan.chars, plan.replaced, plan.counts, reader.invalid_utf8))
    assert plans[0] == plans[1]


def test_an_unreadable_page_in_a_worker_is_one_line_and_no_page(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    src = tmp_path / "in.txt"
    src.write_bytes(b"fine text\n" * 200 + b"\x00" * 2000 + b"\n")  # reverse video: mostly ink
    out = tmp_path / "o"
    code = main(["render", str(src), "--out", str(out), "--cols", "40", "--rows", "11"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("snapshot: error: page ") and "ink" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "removed the" in err and list(out.iterdir()) == []


def test_a_file_changed_before_the_workers_read_it_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_bytes(CASES["plain"])
    plan = plan_spans(TextReader(src), Geometry(load_font("snap5x8"), cols=40, rows=11))
    assert plan is not None
    src.write_bytes(CASES["plain"].replace(b"comment", b"remark!"))
    with pytest.raises(InputError, match="changed while it was drawn"):
        span_procs.write_plan_pages(plan, tmp_path / "o", workers=2)
    assert list((tmp_path / "o").iterdir()) == []


def _killed_on_page_range(job: tuple[int, int]) -> Any:
    if job[0] > 0:
        os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer would
    return _REAL_DRAW(job)


_REAL_DRAW = span_procs._draw_pages


def test_a_killed_worker_is_one_line_and_no_page(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(span_procs, "_draw_pages", _killed_on_page_range)
    src = tmp_path / "in.txt"
    src.write_bytes(CASES["plain"])
    out = tmp_path / "o"
    code = main(["render", str(src), "--out", str(out), "--cols", "40", "--rows", "11"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "a worker process drawing the pages of" in err and "--workers 1" in err
    assert list(out.iterdir()) == []


# A render whose workers note their process ids and then wait: the test stops the
# parent and watches the workers.
_SLOW_RENDER = """
import os, signal, sys, time
# Ctrl-C as at a terminal: a process started with SIGINT ignored (a background job, or a
# runner that ignores it) keeps it ignored, and the render would run to its end.
signal.signal(signal.SIGINT, signal.default_int_handler)
import snapshot.rendering.span_procs as span_procs
import snapshot.rendering.spans as spans
spans.SPAN_BYTES = 97
span_procs.JOB_CHARS = 200
real = span_procs._draw_pages
def slow(job):
    with open(sys.argv[3], "a") as f:
        f.write(f"{os.getpid()}\\n")
    time.sleep(0.5)
    return real(job)
span_procs._draw_pages = slow
from snapshot.cli import main
sys.exit(main(["render", sys.argv[1], "--out", sys.argv[2], "--cols", "40", "--rows", "11"]))
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def _start_slow_render(tmp_path: Path) -> tuple[subprocess.Popen[str], Path, set[int]]:
    src = tmp_path / "in.txt"
    src.write_bytes(CASES["plain"] * 4)
    pids_file, out = tmp_path / "pids", tmp_path / "o"
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT), "SNAPSHOT_NO_PROGRESS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-c", _SLOW_RENDER, str(src), str(out), str(pids_file)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    for _ in range(1200):  # until both workers are drawing (a minute at most)
        pids = set(map(int, pids_file.read_text().split())) if pids_file.exists() else set()
        if len(pids) >= 2:
            return proc, out, pids
        time.sleep(0.05)
    proc.kill()
    pytest.fail("the workers did not start")


def _gone(pids: set[int]) -> bool:
    for _ in range(600):  # half a minute at most
        if not any(_alive(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return False


def test_no_worker_outlives_a_killed_parent(tmp_path: Path) -> None:
    proc, _, pids = _start_slow_render(tmp_path)
    proc.kill()  # SIGKILL: the parent cleans nothing up
    proc.wait()
    assert _gone(pids), "worker processes outlived their parent"


def test_ctrl_c_stops_the_workers_and_leaves_no_page(tmp_path: Path) -> None:
    proc, out, pids = _start_slow_render(tmp_path)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.strip() == "snapshot: interrupted", err
    assert _gone(pids)
    assert not list(out.glob("*page-*"))


@pytest.mark.parametrize("shade", ["gray", "gray4"])
def test_gray_pages_on_processes_are_the_page_streams(tmp_path: Path, shade: str) -> None:
    src = tmp_path / "in.txt"
    src.write_bytes(CASES["non-ASCII"])
    g = Geometry(load_font("snap5x9v2"), cols=40, rows=11, shade=shade)
    plan = plan_spans(TextReader(src), g)
    assert plan is not None
    written = span_procs.write_plan_pages(plan, tmp_path / "o", workers=2)
    stream = [page.png() for page in PageStream(CASES["non-ASCII"].decode(), g, encode=True)]
    assert [w.path.read_bytes() for w in written] == stream and len(stream) > 5
