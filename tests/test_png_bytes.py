"""PNG bytes depend only on the pixels: not on what the process deflated before, nor on
which process or thread drew the page (docs/journal/bench-2026-11-to-12.md, "PNG bytes that depend only on
pixels")."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np

from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import load_font
from snapshot.rendering.page import iter_pages
from snapshot.rendering.raster import _deflate, _scanlines, gray_png, gray_scanlines

ROOT = Path(__file__).resolve().parents[1]

#: Text for a few full pages: words, code-like lines and blank lines, as a session has.
_WORDS = "def return self import numpy page render the of and to in is a an for 0 1 42 {} [] ()"


def _text(chars: int, seed: int = 7) -> str:
    rng = np.random.default_rng(seed)
    words = _WORDS.split()
    lines = []
    while sum(len(line) + 1 for line in lines) < chars:
        n = int(rng.integers(0, 14))
        lines.append(" " * int(rng.integers(0, 8)) + " ".join(rng.choice(words, n)))
    return "\n".join(lines)[:chars]


def _geometry() -> Geometry:
    # the benches' default page: 1568 x 728 px of snap5x8, header row included
    return Geometry.fit(load_font("snap5x8"), 1568, 728)


def _digests(text: str, workers: int) -> list[str]:
    pages = iter_pages(text, _geometry(), workers=workers, encode=True)
    return [hashlib.sha256(p.png()).hexdigest() for p in pages]


def test_a_page_deflates_to_the_same_bytes_after_other_streams() -> None:
    # igzip keeps its match history in a level buffer python-isal allocates without
    # zeroing: a stream that started from an earlier stream's entries would match
    # differently. Compress X, then inputs of other sizes and levels, then X again.
    pages = [_scanlines(p.packed) for p in iter_pages(_text(60_000), _geometry())]
    assert len(pages) >= 3 and all(p is not None for p in pages)
    x = pages[0]
    first = _deflate(x, 1)
    rng = np.random.default_rng(1)
    for i, other in enumerate(pages[1:]):
        flat = other.reshape(-1)
        for size in (1, 97, 4096, 65_537, flat.size):
            _deflate(flat[:size], i % 4)
        _deflate(rng.integers(0, 256, 70_000, dtype=np.uint8), 1)  # stored instead
        assert _deflate(x, 1) == first


def test_pages_deflate_to_the_same_bytes_on_threads_side_by_side() -> None:
    pages = [_scanlines(p.packed) for p in iter_pages(_text(120_000), _geometry())]
    want = [_deflate(p, 1) for p in pages]
    got: dict[tuple[int, int], bytes] = {}
    start = threading.Barrier(2)

    def run(k: int) -> None:
        start.wait()  # both threads begin their streams together
        for rnd in range(3):
            for i in range(len(pages))[k::2] if rnd % 2 else range(len(pages)):
                got[(k, i)] = _deflate(pages[i], 1)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {i for _, i in got} == set(range(len(pages)))
    assert all(got[key] == want[key[1]] for key in got)


def test_gray_pages_deflate_to_the_same_bytes_after_1bit_ones() -> None:
    font = load_font("snap5x9v2")
    g = Geometry.fit(font, 700, 300, shade="gray4")
    grid = np.random.default_rng(5).integers(0, 90, (g.rows, g.cols))
    lines = gray_scanlines(grid, font, g)
    first = gray_png(lines, g)
    for p in iter_pages(_text(30_000), _geometry()):
        _deflate(_scanlines(p.packed), 1)
    assert gray_png(lines, g) == first


# the child imports this module and snapshot from where this process does
_CHILD = """
import sys
sys.path[:0] = {path!r}
from {module} import _digests, _text
print(" ".join(_digests(_text({chars}), workers=2)))
"""


def test_pages_drawn_on_two_threads_in_a_fresh_process_have_this_process_bytes() -> None:
    # A fresh interpreter draws and encodes on two worker threads; this one on one.
    # (A fresh process is where the rare other bytes were seen: docs/journal/bench-2026-11-to-12.md.)
    chars = 120_000
    code = _CHILD.format(path=sys.path, module=__name__, chars=chars)
    child = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=300,  # a wedged child fails the test instead of stalling the run
    )
    theirs = child.stdout.split()
    ours = _digests(_text(chars), workers=1)
    assert len(ours) >= 5
    assert theirs == ours, (
        "other PNG bytes for the same pixels in a fresh 2-thread process: the known rare "
        "defect (docs/journal/bench-2026-11-to-12.md, 'PNG bytes that depend only on pixels'), seen again"
    )
