"""Scale: every core, bounded memory, the corpus benchmark on 1 and 2 workers.

Side by side in one run (ratios print at the end, see conftest.py):

- ``throughput[...]``: text → PNG bytes for ``b_1m.txt`` through
  :func:`snapshot.rendering.page.iter_pages` on 1 and 2 threads, with the default page
  and the dense layout (snap5x9 gray), against the obvious alternative, a
  process pool doing the rasterizing and PNG encoding (``processes2``: cells
  pickled out, PNG bytes pickled back);
- ``render[...]``: ``snapshot render`` end to end, text file to page files on
  disk, on 1 and 2 workers: in this process (:func:`snapshot.profiles.render_files.render_files`)
  and as the command in a fresh interpreter (start-up and imports included;
  its own peak RSS), for 1 M and 10 M characters;
- ``peak_rss[...]``: ``snapshot render`` of 1 M, 10 M and 100 M characters in a
  subprocess (peak RSS and CPU time), against ``render_document`` holding every
  page (the renderer before streaming) at 1 M and 10 M;
- ``corpus[...]``: the report's benchmark on the first conversations of the
  shared corpus with 1 and 2 worker processes.

``test_goal`` writes ``reports/bench/scale.json`` and asserts issue 15's goals:
>= 20 M chars/s text to PNG bytes on 2 threads (``b_1m.txt``, median), and bounded
memory: ``snapshot render`` of 100 M characters peaks at <= 2x the RSS of 1 M (100x
the text). ``-k "not corpus"`` leaves out the corpus case (the report on 4
conversations, minutes here).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import results
from conftest import (
    INPUTS,
    PEAK_RSS,
    ROOT,
    STATS,
    arms,
    peak_child,
    record,
    shared_dir,
    shared_text,
)

from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import load_font
from snapshot.rendering.page import iter_pages
from snapshot.rendering.raster import rasterize, to_png

#: name -> extra figures for the ratio report (chars, pages, rss, cpu)
FIGURES: dict[str, dict[str, float]] = {}


def _geometry() -> Geometry:
    return Geometry.fit(load_font("snap5x8"), 1568, 728)


def _load() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


@pytest.mark.benchmark(group="throughput")
@pytest.mark.parametrize("profile", ["default", "dense"])
@pytest.mark.parametrize("workers", [1, 2])
def test_throughput_threads(benchmark: Any, workers: int, profile: str) -> None:
    text = shared_text("b_1m.txt")
    g = _geometry()
    if profile == "dense":  # what report's snapshot+dense draws: snap5x9, gray ink
        from snapshot.profiles.dense import dense_geometry

        g = dense_geometry(g)
    list(iter_pages(text, g))  # warm the atlas
    name = f"threads{workers}" + ("_dense" if profile == "dense" else "")
    load = _load()

    cpu: list[float] = []

    def run() -> list[bytes]:
        t = time.process_time()  # every thread of this process
        out = [p.png() for p in iter_pages(text, g, workers=workers, encode=True)]
        cpu.append(time.process_time() - t)
        return out

    pngs = record(benchmark, name, run, rounds=5, iterations=1, warmup_rounds=1)
    FIGURES[name] = {
        "chars": len(text),
        "pages": len(pngs),
        "cpu": min(cpu),
        "workers": workers,
        "load": load,
        "load_end": _load(),
    }


def _encode(job: tuple[Any, Any]) -> bytes:
    grid, size = job
    g = _geometry()
    return to_png(rasterize(grid, g.font, g), size)


@pytest.mark.benchmark(group="throughput")
def test_throughput_processes(benchmark: Any) -> None:
    """The alternative: rasterize + encode in 2 processes (the atlas per process)."""
    text = shared_text("b_1m.txt")
    g = _geometry()
    grids = [p.grid for p in iter_pages(text, g)]  # ASCII: every index the same in a fresh font
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_encode, [(grids[0], g.size)] * 2))  # start and warm the workers

        def run() -> list[bytes]:
            pages = iter_pages(text, g)  # layout in this process, as the threads do
            return list(pool.map(_encode, ((p.grid, g.size) for p in pages), chunksize=2))

        pngs = record(benchmark, "processes2", run, rounds=5, iterations=1, warmup_rounds=1)
    FIGURES["processes2"] = {"chars": len(text), "pages": len(pngs)}


_RENDER = (
    PEAK_RSS
    + """
import json, os, sys
from snapshot.cli import main
code = main(["render", sys.argv[1], "--out", sys.argv[2], "--workers", sys.argv[3], "--json"])
times = os.times()  # CPU of the whole process, interpreter start-up and imports included
print(json.dumps({"code": code, "cpu": times.user + times.system, "rss": peak_rss()}),
    file=sys.stderr)
"""
)


def _child_env(pycache: Path) -> dict[str, str]:
    """The command's environment: bytecode cached outside the checkout, as an install has it.

    (A shell with PYTHONDONTWRITEBYTECODE=1 running from a checkout compiles
    every snapshot module from source on each start, about 0.1 s.)
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SNAPSHOT_NO_PROGRESS": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


@pytest.mark.benchmark(group="render")
@pytest.mark.parametrize(
    ("size", "where"),
    [("1m", "inproc"), ("10m", "inproc"), ("0", "cli"), ("1m", "cli"), ("10m", "cli")],
)
@pytest.mark.parametrize("workers", [1, 2])
def test_render(
    benchmark: Any,
    big_inputs: dict[str, Path],
    tmp_path_factory: pytest.TempPathFactory,
    workers: int,
    where: str,
    size: str,
) -> None:
    """``snapshot render FILE --out DIR --workers N``: text file to page files, end to end.

    Size ``0`` (an empty file, no pages) is what the command costs before any
    text: interpreter start-up and imports.
    """
    from snapshot.profiles.render_files import render_files

    src = big_inputs[size]
    out = tmp_path_factory.mktemp(f"render_{where}{workers}_{size}")
    pycache = tmp_path_factory.getbasetemp() / "pycache"  # shared: warm after the first run
    env = _child_env(pycache)
    seen: dict[str, float] = {}

    def inproc() -> int:
        t = time.process_time()
        done = render_files(str(src), out, workers=workers)
        seen["cpu"] = min(seen.get("cpu", 1e9), time.process_time() - t)
        return len(done.written)

    def cli() -> int:
        args = [sys.executable, "-c", _RENDER, str(src), str(out), str(workers)]
        proc = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
        data = json.loads(proc.stderr.strip().splitlines()[-1])
        assert data["code"] == 0, proc.stderr
        seen["cpu"] = min(seen.get("cpu", 1e9), data["cpu"])
        seen["rss"] = max(seen.get("rss", 0), data["rss"])
        return len(json.loads(proc.stdout)["pages"])

    rounds = 2 if size == "10m" else 5
    load = _load()
    name = f"render_{where}{workers}_{size}"
    pages = record(
        benchmark,
        name,
        inproc if where == "inproc" else cli,
        rounds=rounds,
        iterations=1,
        warmup_rounds=1,
    )
    FIGURES[name] = {
        "chars": len(src.read_text(encoding="utf-8")),
        "pages": pages,
        "workers": workers,
        "load": load,
        "load_end": _load(),
        **seen,
    }


@pytest.fixture(scope="module")
def big_inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = shared_text("b_1m.txt")
    root = tmp_path_factory.mktemp("scale")
    out = {}
    for name, times in (("0", 0), ("1m", 1), ("10m", 10), ("100m", 100)):
        path = root / f"{name}.txt"
        with open(path, "w", encoding="utf-8") as f:
            for _ in range(times):
                f.write(base)
        out[name] = path
    return out


_MEASURE = (
    PEAK_RSS
    + """
import json, sys, time
from pathlib import Path
t = time.process_time()
if sys.argv[1] == "stream":
    from snapshot.cli import main
    code = main(["render", sys.argv[2], "--out", sys.argv[3], "--json"])
else:  # every page held until the end: the renderer before streaming
    from snapshot.rendering.geometry import Geometry
    from snapshot.rendering.glyphs import load_font
    from snapshot.rendering.page import render_document
    text = Path(sys.argv[2]).read_text(encoding="utf-8")
    pages = render_document(text, Geometry.fit(load_font("snap5x8"), 1568, 728)).pages
    pngs = [p.png() for p in pages]
    code = 0
cpu = time.process_time() - t
rss = peak_rss()
print(json.dumps({"code": code, "rss": rss, "cpu": cpu}), file=sys.stderr)
"""
)


@pytest.mark.benchmark(group="memory")
@pytest.mark.parametrize(
    ("kind", "size"),
    [("stream", "1m"), ("stream", "10m"), ("stream", "100m"), ("held", "1m"), ("held", "10m")],
)
def test_peak_rss(
    benchmark: Any, big_inputs: dict[str, Path], tmp_path: Path, kind: str, size: str
) -> None:
    src = big_inputs[size]
    result: dict[str, float] = {}

    def run() -> None:
        result.update(peak_child(_MEASURE, kind, str(src), str(tmp_path / "out")))

    record(benchmark, f"rss_{kind}_{size}", run, rounds=1, iterations=1)
    FIGURES[f"rss_{kind}_{size}"] = {"chars": src.stat().st_size, **result}


@pytest.mark.benchmark(group="corpus")
@pytest.mark.parametrize("workers", [1, 2])
def test_corpus_workers(benchmark: Any, workers: int) -> None:
    base = shared_dir()
    manifest = base / "corpus" / "benchmark.manifest.json" if base else None
    if manifest is None or not manifest.is_file():
        pytest.skip("corpus/benchmark.manifest.json not found under ../shared")
    from snapshot.report.run import run

    n = 4
    result = record(
        benchmark,
        f"corpus{workers}",
        lambda: run(manifest, workers=workers, limit=n),
        rounds=1,
        iterations=1,
    )
    assert not result.errors, result.errors
    FIGURES[f"corpus{workers}"] = {"conversations": len(result.sources)}


def test_goal() -> None:
    a = arms("threads1", "threads2", "processes2")
    if "rss_stream_1m" not in FIGURES or "rss_stream_100m" not in FIGURES:
        pytest.skip("not measured in this run: test_peak_rss[stream-1m] and [stream-100m]")
    f = FIGURES
    rate = {
        k: f[k]["chars"] / STATS[k]["median_s"] / 1e6
        for k in STATS
        if k in f and "chars" in f[k] and k.startswith(("threads", "processes", "render_"))
    }
    rss = f["rss_stream_100m"]["rss"] / f["rss_stream_1m"]["rss"]
    figures = {
        f"{k}_mchars_s": results.figure(r, "M chars/s", "text to PNG bytes / page files (median)")
        for k, r in sorted(rate.items())
        if f[k]["chars"]
    }
    figures |= {  # the empty file: what the command costs before any text
        f"{k}_s": results.figure(STATS[k]["median_s"], "s", "snapshot render of an empty file")
        for k in sorted(rate)
        if not f[k]["chars"]
    }
    figures |= {
        f"{k}_peak_rss_mb": results.figure(x["rss"] / 1e6, "MB", f"{x['chars'] / 1e6:.0f} M chars")
        for k, x in sorted(f.items())
        if k.startswith("rss_")
    }
    figures |= {
        f"{k}_conversations_per_min": results.figure(
            x["conversations"] / STATS[k]["median_s"] * 60, "conversations/min", "report, corpus"
        )
        for k, x in sorted(f.items())
        if k.startswith("corpus") and k in STATS
    }
    ratios = {
        "threads2_over_threads1": results.figure(
            a["threads1"]["median_s"] / a["threads2"]["median_s"], "x", "2 threads vs 1 (medians)"
        ),
        "processes2_over_threads2": results.figure(
            a["processes2"]["median_s"] / a["threads2"]["median_s"],
            "x",
            "2 processes vs 2 threads (medians): the obvious alternative",
        ),
        "rss_100m_over_1m": results.figure(
            rss, "x", "snapshot render peak RSS, 100 M vs 1 M chars"
        ),
    }
    record = results.finish(
        results.bench_name(__file__),
        {
            "arms": dict(sorted(STATS.items())),
            "ratios": ratios,
            "figures": figures,
            "inputs": {k: v for k, v in INPUTS.items() if k == "b_1m.txt"},
        },
        {
            "threads2_mchars_s": results.Goal(rate["threads2"], ">=", 20, "M chars/s", "issue 15"),
            "render_100m_memory": results.Goal(
                rss, "<=", 2, "x the 1 M run", "issue 15 (bounded memory)"
            ),
        },
    )
    results.check(record)
