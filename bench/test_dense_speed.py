"""Issue 29 item 3: the dense (gray) page's CPU per character beside the 1-bit page's,
main e5ba136 ("before") beside this tree ("after") in one run.

"before" is main e5ba136's ``snapshot/`` (``git archive``, into pytest's temp
folder) with this tree's ``fonts/`` (a symlink): both trees draw the same faces.
One fresh interpreter per (tree, workers) runs ``iter_pages(b_1m.txt, workers=N,
encode=True)`` (text to PNG bytes) for every layout, **interleaved round by round**
(default, dense, ... then again), so a change of the machine's load falls on all
layouts alike; the figures are the least CPU time of the rounds (every thread) and
the median wall clock. Layouts:

- ``default``: the 1-bit page, snap5x8 on 1568 x 728;
- ``gray``: the dense layout as ``snapshot+dense`` draws it (``profiles.dense``:
  snap5x9v2, 8-bit gray, 51 levels), same page;
- ``gray16`` / ``gray4`` (this tree only): the same face with its coverage in 16 / 4
  levels, a 4-bit / 2-bit PNG (new pixels: ``bench/dense_shade_readings.py`` reads them).

``gray`` pages must have the same decoded pixels in both trees (asserted); the
summary counts pages whose PNG bytes differ. Ratios print at the end of the run
with the load average (conftest.py); no timing assertions. One command (from the
checkout)::

    uptime; .venv/bin/python -m pytest bench/test_dense_speed.py --benchmark-only \\
        -o addopts="" -p no:cacheprovider; uptime
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, record, shared_dir

#: main when this stop began.
BASELINE = "e5ba136"
ROUNDS = 7
LAYOUTS = {"before": ("default", "gray"), "after": ("default", "gray", "gray16", "gray4")}

#: (tree, workers) -> layout -> figures, for the summary
FIGURES: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}

_CHILD = """
import dataclasses, hashlib, io, json, os, statistics, sys, time
import numpy as np
from PIL import Image
from snapshot.geometry import Geometry
from snapshot.glyphs import load_font
from snapshot.page import iter_pages
from snapshot.profiles.dense import dense_geometry
path, workers, rounds, layouts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
text = open(path, encoding="utf-8").read()
default = Geometry.fit(load_font("snap5x8"), 1568, 728)
dense = dense_geometry(default)
geoms = {name: default if name == "default" else dataclasses.replace(dense, shade=name)
         for name in layouts.split(",")}
out = {}
for name, g in geoms.items():
    pngs = [p.png() for p in iter_pages(text, g, workers=workers, encode=True)]
    pixels = hashlib.sha256()  # decoded: equal pixels with other deflate bytes are told apart
    for png in pngs:
        pixels.update(np.asarray(Image.open(io.BytesIO(png))).tobytes())
    out[name] = {"cpus": [], "walls": [], "pages": len(pngs), "chars": len(text),
                 "png": [hashlib.sha256(p).hexdigest() for p in pngs],
                 "bytes": sum(map(len, pngs)), "pixels": pixels.hexdigest()}
for _ in range(rounds):
    for name, g in geoms.items():
        c, w = time.process_time(), time.perf_counter()
        for page in iter_pages(text, g, workers=workers, encode=True):
            pass  # encoded on the workers
        out[name]["walls"].append(time.perf_counter() - w)
        out[name]["cpus"].append(time.process_time() - c)
out["load"] = os.getloadavg()[0]
print(json.dumps(out), file=sys.stderr)
"""


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
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
        pytest.skip("benchmark input bench/b_1m.txt not found (set SNAPSHOT_SHARED)")
    return path


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


def _per_char(x: dict[str, Any]) -> float:
    return float(x["cpu"]) / float(x["chars"])


def summary_lines() -> list[str]:
    """The run's figures and ratios, for conftest's closing summary."""
    out = []
    for (tree, workers), figs in sorted(
        FIGURES.items(), key=lambda kv: (kv[0][0] != "before", kv[0][1])
    ):
        label = f"main {BASELINE}" if tree == "before" else "this tree"
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
            label = f"main {BASELINE}" if tree == "before" else "this tree"
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
                    f"{name}, {workers} worker(s): this tree vs main: CPU "
                    f"{b[name]['cpu'] / a[name]['cpu']:.2f}x less; pages with the same PNG bytes "
                    f"{same} of {a[name]['pages']}, same pixels: {a[name]['pixels'] == b[name]['pixels']}"
                )
    return out
