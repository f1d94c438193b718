"""Issue 29 item 3: the dense (gray) page's CPU per character beside the 1-bit page's,
a baseline tree ("before") beside this tree ("after") in one run.

"before" is the checkout named by ``SNAPSHOT_BASELINE_TREE`` (its name in the
summary: ``SNAPSHOT_BASELINE_NAME``), else main d6e97d1's ``snapshot/`` (``git
archive``, into pytest's temp folder); either way with this tree's ``fonts/``
(a symlink): both trees draw the same faces.
One fresh interpreter per (tree, workers) runs ``iter_pages(b_1m.txt, workers=N,
encode=True)`` (text to PNG bytes) for every layout, **interleaved round by round**
(default, dense, ... then again), so a change of the machine's load falls on all
layouts alike; the figures are the least CPU time of the rounds (every thread) and
the median wall clock. Layouts:

- ``default``: the 1-bit page, snap5x8 on 1568 x 728;
- ``gray``: the dense layout as ``snapshot+dense`` draws it (``profiles.dense``:
  snap5x9v2, 8-bit gray, 51 levels), same page;
- ``gray16`` / ``gray4`` (this tree only): the same face with its coverage in 16 / 4
  levels, a 4-bit / 2-bit PNG (new pixels: ``bench/dense_shade_readings.py`` reads them);
- ``gray@isal0`` / ``gray@stored`` (this tree only): ``gray``'s pixels, its PNG
  deflated another way (what-ifs, not what the package writes): ISA-L level 0
  (static Huffman codes), or ``raster.STORED`` (not compressed: stored deflate
  blocks, the Adler-32 by ISA-L): the least CPU an 8-bit PNG of these pixels can cost.

Every ``gray@...`` page decodes to ``gray``'s pixels, and ``gray`` to the baseline's
(asserted); the summary counts pages whose PNG bytes differ and the most gray
levels one ``gray`` page holds (exact: more than 16 rules out a 4-bit palette).
Ratios print at the end of the run with the load average (conftest.py);
``test_goal`` writes ``reports/bench/dense_speed.json`` and asserts issue 29 item 3:
this tree's ``gray`` page at <= 1.5x the 1-bit page's CPU per character (1 worker),
and faster on 2 workers than on 1 (wall). One command (from the checkout)::

    python bench/run.py dense_speed
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import results
from conftest import INPUTS, ROOT, STATS, record, shared_dir

#: main when this stop began (used when SNAPSHOT_BASELINE_TREE is not set).
BASELINE = "d6e97d1"
BASE_NAME = os.environ.get("SNAPSHOT_BASELINE_NAME") or f"main {BASELINE}"
ROUNDS = 7
LAYOUTS = {
    "before": ("default", "gray"),
    "after": ("default", "gray", "gray@isal0", "gray@stored", "gray16", "gray4"),
}

#: (tree, workers) -> layout -> figures, for the summary
FIGURES: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}

_CHILD = """
import dataclasses, hashlib, io, json, os, statistics, sys, time
import numpy as np
from PIL import Image
try:
    from snapshot.rendering import geometry as geometry_mod, glyphs, page as page_mod, raster
except ImportError:  # a tree from before the render core moved into snapshot/rendering/
    from snapshot import geometry as geometry_mod, glyphs, page as page_mod, raster
Geometry, load_font, iter_pages = geometry_mod.Geometry, glyphs.load_font, page_mod.iter_pages
from snapshot.profiles.dense import dense_geometry
path, workers, rounds, layouts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
text = open(path, encoding="utf-8").read()
default = Geometry.fit(load_font("snap5x8"), 1568, 728)
dense = dense_geometry(default)
package_png = getattr(page_mod, "gray_png", None)  # None: a tree from before it

def isal0_png(scanlines, geometry):
    return package_png(scanlines, geometry, level=0)

def stored_png(scanlines, geometry):
    return package_png(scanlines, geometry, level=raster.STORED)

ENCODERS = {"": None, "isal0": isal0_png, "stored": stored_png}

def layout(name):
    shade, _, enc = name.partition("@")
    g = default if shade == "default" else dataclasses.replace(dense, shade=shade)
    return g, ENCODERS[enc]

def pages(g, encoder):
    if package_png is not None:  # what Page.png() calls for a gray page
        page_mod.gray_png = encoder or package_png
    return iter_pages(text, g, workers=workers, encode=True)

geoms = {name: layout(name) for name in layouts.split(",")}
out = {}
for name, (g, enc) in geoms.items():
    pngs, levels = [], 0
    pixels = hashlib.sha256()  # decoded: equal pixels with other deflate bytes are told apart
    for page in pages(g, enc):
        pngs.append(page.png())
        decoded = np.asarray(Image.open(io.BytesIO(pngs[-1])))
        pixels.update(decoded.tobytes())
        levels = max(levels, len(np.unique(decoded)))
    out[name] = {"cpus": [], "walls": [], "pages": len(pngs), "chars": len(text),
                 "png": [hashlib.sha256(p).hexdigest() for p in pngs], "levels": levels,
                 "bytes": sum(map(len, pngs)), "pixels": pixels.hexdigest()}
for _ in range(rounds):
    for name, (g, enc) in geoms.items():
        c, w = time.process_time(), time.perf_counter()
        for page in pages(g, enc):
            pass  # encoded on the workers
        out[name]["walls"].append(time.perf_counter() - w)
        out[name]["cpus"].append(time.process_time() - c)
out["load"] = os.getloadavg()[0]
print(json.dumps(out), file=sys.stderr)
"""


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    given = os.environ.get("SNAPSHOT_BASELINE_TREE")
    if given:
        if not (Path(given) / "snapshot").is_dir():
            pytest.skip(f"SNAPSHOT_BASELINE_TREE {given} holds no snapshot/ package")
        base = tmp_path_factory.mktemp("baseline")
        (base / "snapshot").symlink_to(Path(given).resolve() / "snapshot")
        (base / "fonts").symlink_to(ROOT / "fonts")  # the same faces: only the renderer differs
        return {"before": base, "after": ROOT}
    base = tmp_path_factory.mktemp(f"main-{BASELINE}")
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", BASELINE, "snapshot"], capture_output=True, check=False
    )
    if archive.returncode != 0:
        pytest.skip(f"main {BASELINE} is not in this checkout's git history")
    subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
    (base / "fonts").symlink_to(ROOT / "fonts")  # the same faces: only the renderer differs
    return {"before": base, "after": ROOT}


def _input() -> Path:
    shared = shared_dir()
    path = shared / "bench" / "b_1m.txt" if shared else None
    if path is None or not path.is_file():
        return _stand_in()
    INPUTS["b_1m.txt"] = "shared/bench/b_1m.txt"
    return path


def _stand_in() -> Path:
    """conftest's built b_1m.txt stand-in, written once under the system temp folder."""
    import tempfile

    from conftest import shared_path

    folder = Path(tempfile.gettempdir()) / f"snapshot-bench-{os.getuid()}"
    folder.mkdir(exist_ok=True)
    return shared_path("b_1m.txt", folder)


@pytest.mark.benchmark(group="dense-speed")
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("tree", ["before", "after"])
def test_dense_beside_one_bit(
    benchmark: Any,
    trees: dict[str, Path],
    tmp_path_factory: pytest.TempPathFactory,
    tree: str,
    workers: int,
) -> None:
    src = _input()
    pycache = tmp_path_factory.getbasetemp() / f"pycache-{tree}"
    pycache.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(trees[tree]), "SNAPSHOT_NO_PROGRESS": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    seen: dict[str, Any] = {}
    load = os.getloadavg()[0]

    def run() -> None:
        args = [str(src), str(workers), str(ROUNDS), ",".join(LAYOUTS[tree])]
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, *args],
            cwd=pycache,  # not the checkout: ``snapshot`` comes from PYTHONPATH alone
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        seen.update(json.loads(proc.stderr.strip().splitlines()[-1]))

    record(benchmark, f"dense_{tree}_{workers}", run, rounds=1, iterations=1)
    end = seen.pop("load")
    FIGURES[(tree, workers)] = {
        name: {
            **x,
            "cpu": min(x["cpus"]),
            "wall": statistics.median(x["walls"]),
            "load": load,
            "load_end": end,
        }
        for name, x in seen.items()
    }
    other = FIGURES.get(("before", workers))
    if tree == "after" and other is not None:
        assert seen["gray"]["pixels"] == other["gray"]["pixels"], "gray pixels differ from main's"
        assert seen["default"]["pixels"] == other["default"]["pixels"], "1-bit pixels differ"
        assert seen["default"]["png"] == other["default"]["png"], "1-bit PNG bytes differ"
    if tree == "after":
        for name in seen:
            if name.startswith("gray@"):
                assert seen[name]["pixels"] == seen["gray"]["pixels"], f"{name} pixels differ"


#: encoder name -> CPU ms a page (least of the rounds), KB a page; for the summary
ENCODINGS: dict[str, tuple[float, float]] = {}
_FILTERS = {"none": 0, "sub": 1, "up": 2}


def _filtered(scanlines: Any, kind: str) -> Any:
    """PNG filter ``kind`` applied to every scanline (8-bit pixels: 1 byte a pixel)."""
    import numpy as np

    out = np.array(scanlines, copy=True)
    out[:, 0] = _FILTERS[kind]
    px, src = out[:, 1:], scanlines[:, 1:]
    if kind == "sub":
        px[:, 1:] = src[:, 1:] - src[:, :-1]
    elif kind == "up":
        px[1:] = src[1:] - src[:-1]
    return out


@pytest.mark.benchmark(group="dense-encodings")
def test_gray_encodings(benchmark: Any) -> None:
    """Deflate alone, on this tree's ``gray`` scanlines of b_1m.txt: PNG filter x deflater.

    ``none + isal level 1`` is what the package writes (the reference row); every
    other row is a what-if with the same decoded pixels (each inflates to its own
    filtered scanlines, checked; the filter byte tells a PNG reader how to undo
    them). The filter's own numpy cost is left out (it would only add); rounds
    interleave the encoders.
    """
    import time
    import zlib

    from isal import isal_zlib

    from snapshot.profiles.dense import dense_geometry
    from snapshot.rendering.geometry import Geometry
    from snapshot.rendering.glyphs import load_font
    from snapshot.rendering.page import iter_pages
    from snapshot.rendering.raster import _stored, gray_scanlines

    text = _input().read_text(encoding="utf-8")
    g = dense_geometry(Geometry.fit(load_font("snap5x8"), 1568, 728))
    pages = [gray_scanlines(p.grid, g.font, g) for p in iter_pages(text, g, encode=False)]

    def isal(level: int) -> Callable[[Any], bytes]:
        def enc(raw: Any) -> bytes:
            comp = isal_zlib.compressobj(level, isal_zlib.DEFLATED, 15, 9)
            return bytes(comp.compress(raw.data) + comp.flush())

        return enc

    def zlib_with(strategy: int) -> Callable[[Any], bytes]:
        def enc(raw: Any) -> bytes:
            comp = zlib.compressobj(1, zlib.DEFLATED, 15, 9, strategy)
            return comp.compress(raw.data) + comp.flush()

        return enc

    deflaters: dict[str, Callable[[Any], bytes]] = {
        **{f"isal level {n}": isal(n) for n in range(4)},
        "zlib level 1": zlib_with(zlib.Z_DEFAULT_STRATEGY),
        "zlib level 1 Z_RLE": zlib_with(zlib.Z_RLE),
        "zlib level 1 Z_HUFFMAN_ONLY": zlib_with(zlib.Z_HUFFMAN_ONLY),
        "stored (raster.STORED)": lambda raw: bytes(_stored(raw)),
    }
    inputs = {kind: [_filtered(x, kind) for x in pages] for kind in _FILTERS}
    cpus: dict[str, list[float]] = {}
    sizes: dict[str, float] = {}

    def run() -> None:
        for _ in range(3):
            for kind, raws in inputs.items():
                for name, enc in deflaters.items():
                    if kind != "none" and name.startswith("stored"):
                        continue  # a filter changes no stored byte count
                    c = time.process_time()
                    out = [enc(raw) for raw in raws]
                    cpus.setdefault(f"{kind} + {name}", []).append(time.process_time() - c)
                    sizes[f"{kind} + {name}"] = sum(map(len, out)) / len(out)
                    assert zlib.decompress(out[0]) == raws[0].tobytes()

    record(benchmark, "dense_encodings", run, rounds=1, iterations=1)
    for name, c in cpus.items():
        ENCODINGS[name] = (min(c) * 1e3 / len(pages), sizes[name] / 1e3)


def _per_char(x: dict[str, Any]) -> float:
    return float(x["cpu"]) / float(x["chars"])


def summary_lines() -> list[str]:
    """The run's figures and ratios, for conftest's closing summary."""
    out = []
    for (tree, workers), figs in sorted(
        FIGURES.items(), key=lambda kv: (kv[0][0] != "before", kv[0][1])
    ):
        label = BASE_NAME if tree == "before" else "this tree"
        one = figs["default"]
        for name, x in figs.items():
            ratio = _per_char(x) / _per_char(one)
            out.append(
                f"{label}, {workers} worker(s), {name}: CPU {x['cpu'] * 1e3:.0f} ms "
                f"({_per_char(x) * 1e9:.0f} ns a char, {x['pages']} pages, "
                f"{x['bytes'] / x['pages'] / 1e3:.0f} KB a page), wall {x['wall'] * 1e3:.0f} ms"
                + (
                    ""
                    if name == "default"
                    else f"; CPU per char {ratio:.2f}x the 1-bit page's (goal <= 1.5)"
                )
                + f"; load {x['load']:.1f} -> {x['load_end']:.1f}"
            )
    for tree in ("before", "after"):
        d1, d2 = FIGURES.get((tree, 1)), FIGURES.get((tree, 2))
        if d1 and d2:
            label = BASE_NAME if tree == "before" else "this tree"
            for name in d1:
                if name != "default":
                    out.append(
                        f"{label}: {name}, 2 workers vs 1: "
                        f"{d1[name]['wall'] / d2[name]['wall']:.2f}x faster (wall; goal > 1)"
                    )
    for workers in (1, 2):
        b, a = FIGURES.get(("before", workers)), FIGURES.get(("after", workers))
        if a and b:
            for name in b:
                same = sum(x == y for x, y in zip(a[name]["png"], b[name]["png"], strict=True))
                out.append(
                    f"{name}, {workers} worker(s): this tree vs {BASE_NAME}: CPU "
                    f"{b[name]['cpu'] / a[name]['cpu']:.2f}x less; pages with the same PNG bytes "
                    f"{same} of {a[name]['pages']}, same pixels: {a[name]['pixels'] == b[name]['pixels']}"
                )
    ref = ENCODINGS.get("none + isal level 1")
    for name, (ms, kb) in sorted(ENCODINGS.items(), key=lambda kv: kv[1][0]):
        rel = f", {ms / ref[0]:.2f}x the CPU of none + isal level 1" if ref else ""
        out.append(f"deflate alone, {name}: {ms:.2f} ms a page, {kb:.0f} KB a page{rel}")
    gray = FIGURES.get(("after", 1), {}).get("gray")
    if gray:
        out.append(f"gray: at most {gray['levels']} gray levels on one page (exact)")
    return out


def test_goal() -> None:
    one, two = FIGURES.get(("after", 1)), FIGURES.get(("after", 2))
    if one is None or two is None:
        pytest.skip("not measured in this run: this tree on 1 and 2 workers")
    ratio = _per_char(one["gray"]) / _per_char(one["default"])
    speedup = one["gray"]["wall"] / two["gray"]["wall"]
    figures: dict[str, dict[str, Any]] = {}
    for (tree, workers), figs in sorted(FIGURES.items()):
        for name, x in figs.items():
            key = f"{tree}_{name}_{workers}w"
            figures[f"{key}_cpu_ns_per_char"] = results.figure(
                _per_char(x) * 1e9,
                "ns/char",
                f"CPU per character, {tree} tree, {name}, {workers} worker(s)",
            )
            figures[f"{key}_wall_ms"] = results.figure(
                x["wall"] * 1e3, "ms", "median wall, b_1m.txt"
            )
            figures[f"{key}_kb_per_page"] = results.figure(
                x["bytes"] / x["pages"] / 1e3, "KB", "PNG bytes a page"
            )
    ratios = {
        f"{name}_over_default_cpu_{w}w": results.figure(
            _per_char(x) / _per_char(FIGURES[("after", w)]["default"]),
            "x",
            f"this tree: {name} CPU per character / the 1-bit page's, {w} worker(s)",
        )
        for w in (1, 2)
        for name, x in FIGURES[("after", w)].items()
        if name != "default"
    }
    ratios["gray_2w_over_1w_wall"] = results.figure(speedup, "x", "gray, 2 workers vs 1 (wall)")
    before = FIGURES.get(("before", 1))
    if before:
        ratios["before_over_after_gray_cpu_1w"] = results.figure(
            before["gray"]["cpu"] / one["gray"]["cpu"], "x", f"{BASE_NAME} vs this tree, gray CPU"
        )
    record = results.finish(
        results.bench_name(__file__),
        {
            "arms": {k: v for k, v in STATS.items() if k.startswith("dense_")},
            "ratios": ratios,
            "figures": figures,
            "params": {"rounds": ROUNDS, "baseline": BASE_NAME},
            "inputs": {k: v for k, v in INPUTS.items() if k == "b_1m.txt"},
        },
        {
            "gray_cpu_per_char": results.Goal(
                ratio, "<=", 1.5, "x the 1-bit page", "issue 29 item 3"
            ),
            "gray_two_workers": results.Goal(speedup, ">", 1, "x", "issue 29 item 3"),
        },
    )
    results.check(record)
