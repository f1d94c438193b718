"""Helpers for the speed benchmarks: shared inputs, a full default page, ratio report.

Run one bench with ``python bench/run.py NAME`` (bench/README.md): side by side in
one run, the ratios printed at the end, the results written to
``reports/bench/NAME.json`` by the module's closing ``test_goal`` (bench/results.py).
The 1 M-char inputs live in ``../shared/bench`` (or ``$SNAPSHOT_SHARED/bench``);
where a file is absent a built stand-in of the same size takes its place and the
results say so (:data:`INPUTS`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import results

os.environ.setdefault("SNAPSHOT_NO_PROGRESS", "1")

ROOT = Path(__file__).resolve().parent.parent
#: benchmark name -> median / min seconds, filled by ``record``
MEDIANS: dict[str, float] = {}
MINS: dict[str, float] = {}
#: benchmark name -> pytest-benchmark's statistics (results.arm), filled by ``record``
STATS: dict[str, dict[str, Any]] = {}
#: input file name -> where it came from (the shared file, or a built stand-in)
INPUTS: dict[str, str] = {}


@pytest.fixture(scope="module", autouse=True)
def _bench_load(request: pytest.FixtureRequest) -> None:
    """The load average when a bench module starts, for its results file."""
    results.begin(results.bench_name(str(request.path)))


def arms(*names: str) -> dict[str, dict[str, Any]]:
    """The statistics of ``names`` for a results file, or skip the goal saying which are missing.

    Missing means not run in this session (``-k``, a skipped input) or run with
    ``--benchmark-disable``: a goal is then not measured, and no file is written.
    """
    missing = [name for name in names if name not in STATS]
    if missing:
        pytest.skip(f"not measured in this run: {', '.join(missing)}")
    return {name: STATS[name] for name in names}


def shared_dir() -> Path | None:
    """The shared data dir: $SNAPSHOT_SHARED, else ../shared next to the checkout."""
    env = os.environ.get("SNAPSHOT_SHARED")
    candidates = [Path(env)] if env else []
    candidates.append(ROOT.parent / "shared")
    for path in candidates:
        if path.is_dir():
            return path
    return None


def shared_text(name: str) -> str:
    """A file from shared/bench as text; where it is absent, a built stand-in (see INPUTS)."""
    base = shared_dir()
    if base is not None and (base / "bench" / name).is_file():
        INPUTS[name] = f"shared/bench/{name}"
        return (base / "bench" / name).read_text(encoding="utf-8")
    if name not in STAND_INS:
        where = os.environ.get("SNAPSHOT_SHARED") or str(ROOT.parent / "shared")
        pytest.skip(f"benchmark input bench/{name} not found under {where} (set SNAPSHOT_SHARED)")
    INPUTS[name] = f"built stand-in: shared/bench/{name} absent ({STAND_INS[name][1]})"
    return STAND_INS[name][0]()


def shared_path(name: str, tmp: Path) -> Path:
    """:func:`shared_text` as a file: the shared one, or the stand-in written under ``tmp``."""
    base = shared_dir()
    if base is not None and (base / "bench" / name).is_file():
        INPUTS[name] = f"shared/bench/{name}"
        return base / "bench" / name
    path = tmp / name
    path.write_text(shared_text(name), encoding="utf-8")
    return path


#: Agent-transcript-like lines (shell output, JSON, Python, prose), cycled with a counter.
_LINES = (
    "$ python -m pytest -q tests/test_io.py::test_case_{n}  # exit 0",
    '{{"ok": true, "n": {n}, "id": "0x{n:05x}", "path": "src/pkg/mod_{m}.py", "lines": {k}}}',
    "    def handle_{m}(self, request: Request) -> Response:  # line {k}",
    "        return self.cache.get(key_{m}, default=None) or compute({n}, {k})",
    "The tool returned {k} lines; the function at src/pkg/mod_{m}.py:{n} reads the file once.",
    "drwxr-xr-x  4 agent agent  4096 Dec  {m:2d} 10:{k:02d} build_{n}",
    "ERROR  tests/test_mod_{m}.py::test_{n} - AssertionError: {k} != {m}",
)
#: Non-ASCII pieces for the c_1m_nonascii stand-in (accented Latin, Greek, Cyrillic, CJK, emoji).
_NON_ASCII = ("ő", "ű", "é", "ß", "λ", "Ж", "я", "中", "文", "✓", "😀", "ñ", "ø", "Ω")


def _agent_like(chars: int, non_ascii: bool) -> str:
    """Deterministic text of exactly ``chars`` characters; 5 % non-ASCII when asked."""
    out: list[str] = []
    size = n = 0
    while size < chars:
        m, k = n % 97, (n * 37) % 60
        line = _LINES[n % len(_LINES)].format(n=n, m=m, k=k)
        if non_ascii:  # every 20th character replaced: 5 % of the text
            line = "".join(
                _NON_ASCII[(i + n) % len(_NON_ASCII)] if (i + n) % 20 == 0 else c
                for i, c in enumerate(line)
            )
        out.append(line + "\n")
        size += len(line) + 1
        n += 1
    return "".join(out)[:chars]


#: input name -> (builder, what it is) for the inputs a checkout may lack
STAND_INS: dict[str, tuple[Callable[[], str], str]] = {
    "a_100k.txt": (
        lambda: _agent_like(100_000, False),
        "100,000 ASCII chars of agent-like lines, conftest._agent_like",
    ),
    "b_1m.txt": (
        lambda: _agent_like(1_000_000, False),
        "1,000,000 ASCII chars of agent-like lines, conftest._agent_like",
    ),
    "c_1m_nonascii.txt": (
        lambda: _agent_like(1_000_000, True),
        "1,000,000 chars, 5 % non-ASCII incl. CJK and emoji, conftest._agent_like",
    ),
}


def wchar() -> int:
    """Bytes this process has written so far (``wchar`` of /proc/self/io; 0 where there is none)."""
    try:
        text = Path("/proc/self/io").read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    return 0


def module_at(commit: str, path: str) -> Any:
    """The module ``path`` (a .py file of this repo) as ``commit`` had it, imported under its
    own name (``<stem>_<commit>``) beside today's package; skips when git or the commit is absent.
    """
    import importlib.util
    import subprocess
    import sys

    try:
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{commit}:{path}"],
            capture_output=True,
            check=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"{path} of {commit} is not in this checkout's git history: {exc}")
    name = f"{Path(path).stem}_{commit}"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while it runs
    exec(compile(source, f"{commit}:{path}", "exec"), module.__dict__)
    return module


def record(benchmark: Any, name: str, fn: Callable[[], Any], **pedantic: Any) -> Any:
    """Run ``fn`` under pytest-benchmark and remember its median for the ratio report."""
    result = benchmark.pedantic(fn, **pedantic) if pedantic else benchmark(fn)
    stats = getattr(getattr(benchmark, "stats", None), "stats", None)
    if stats is not None:
        MEDIANS[name] = float(stats.median)
        MINS[name] = float(stats.min)
        STATS[name] = results.arm(stats)
    return result


def page_text() -> str:
    """About one dense page of agent-like text: the shared 100k input, or a built one."""
    base = shared_dir()
    if base is not None and (base / "bench" / "a_100k.txt").is_file():
        INPUTS["page"] = "shared/bench/a_100k.txt"
        return (base / "bench" / "a_100k.txt").read_text(encoding="utf-8")
    INPUTS["page"] = (
        f"built stand-in: shared/bench/a_100k.txt absent ({STAND_INS['a_100k.txt'][1]})"
    )
    return STAND_INS["a_100k.txt"][0]()


def _ratio_lines(m: dict[str, float]) -> list[str]:
    out = []
    if "rasterize" in m and "pillow_imagedraw" in m:
        out.append(
            f"rasterize vs Pillow ImageDraw.text: {m['pillow_imagedraw'] / m['rasterize']:.1f}x faster (target >= 20x)"
        )
    if "rasterize" in m and "numpy_copy" in m:
        out.append(
            f"rasterize vs numpy copy of the page (H x W uint8): {m['rasterize'] / m['numpy_copy']:.1f}x slower (target <= 25x)"
        )
    if "rasterize" in m and "numpy_copy_packed" in m:
        out.append(
            f"rasterize vs numpy copy of the packed 1-bit page: {m['rasterize'] / m['numpy_copy_packed']:.1f}x slower"
        )
    if "rasterize_pixels" in m and "pillow_imagedraw" in m:
        out.append(
            f"rasterize + unpack to H x W uint8 vs Pillow: {m['pillow_imagedraw'] / m['rasterize_pixels']:.1f}x faster"
        )
    if "rasterize" in m:
        out.append(f"rasterize one page: {m['rasterize'] * 1e3:.3f} ms")
    for name in ("b_1m", "c_1m_nonascii"):
        key = f"end_to_end_{name}"
        if key in m:
            out.append(
                f"text -> PNG bytes, {name}.txt: {1e6 / m[key] / 1e6:.2f} M chars/s (target >= 3)"
            )
    if "rasterize_gray" in m and "rasterize_1bit_pixels_same_grid" in m:  # gray ink
        out.append(
            "rasterize_gray vs rasterize + unpack, same grid: "
            f"{m['rasterize_gray'] / m['rasterize_1bit_pixels_same_grid']:.1f}x the time"
        )
    if "png_gray" in m and "png_1bit_same_grid" in m:
        out.append(
            f"8-bit gray PNG vs 1-bit PNG, same grid: {m['png_gray'] / m['png_1bit_same_grid']:.1f}x the time"
        )
    if "json_document_items" in m and "json_load_whole" in m:
        out.append(
            "JSONDocument element by element vs json.load of the whole file: "
            f"{m['json_document_items'] / m['json_load_whole']:.2f}x the time"
        )
    if "json_document_items" in m and "ijson_items" in m:
        out.append(
            "JSONDocument element by element vs ijson (yajl2_c): "
            f"{m['json_document_items'] / m['ijson_items']:.2f}x the time"
        )
    if "png_encode" in m:
        out.append(f"PNG encode of one page: {m['png_encode'] * 1e3:.2f} ms")
    crops = m.get("rapidocr crops given rows")
    for name in ("ppocrv6-small", "ppocrv5", "rapidocr-v4", "tesseract-x2"):
        if name in m:
            vs = f" ({m[name] / crops:.1f}x crops given the rows)" if crops else ""
            out.append(f"{name} whole page (1568x728 snap8x16): {m[name]:.2f} s{vs}")
    if "import_checked" in m and "import_load_only" in m:
        out.append(
            "import with the text-kept check vs the importer's load alone: "
            f"{m['import_checked'] / m['import_load_only']:.1f}x the time"
        )
    return out + _scale_lines(m)


def _import_memory_lines() -> list[str]:
    """Issue 9's import memory figures (bench/test_import_memory*.py)."""
    out: list[str] = []
    for module in ("test_import_memory", "test_import_memory_formats", "test_import_huge_line"):
        try:
            out += __import__(module).summary_lines()
        except ImportError:
            continue
    return out


def _scale_lines(m: dict[str, float]) -> list[str]:
    """Issue 15's figures (bench/test_scale.py)."""
    try:
        from test_scale import FIGURES
    except ImportError:
        return []
    out = []
    for key in ("threads1", "threads2", "processes2", "threads1_dense", "threads2_dense"):
        if key in m:
            f = FIGURES[key]
            out.append(
                f"{key}: b_1m.txt text -> PNG bytes: {f['chars'] / m[key] / 1e6:.1f} M chars/s, "
                f"{f['pages'] / m[key]:.0f} pages/s"
                + (
                    f"; CPU {f['cpu'] * 1e3:.0f} ms per run (min), "
                    f"{f['chars'] / f['cpu'] / 1e6:.1f} M chars per CPU s"
                    if "cpu" in f
                    else ""
                )
                + (f"; load {f['load']:.1f} -> {f['load_end']:.1f}" if "load" in f else "")
            )
    for suffix in ("", "_dense"):
        one, two = f"threads1{suffix}", f"threads2{suffix}"
        if one in m and two in m:
            out.append(
                f"2 threads vs 1{suffix.replace('_', ', ')}: {m[one] / m[two]:.2f}x "
                f"({FIGURES[two]['chars'] / m[two] / 1e6:.1f} M chars/s on 2; goal 20)"
            )
    if "threads2" in m and "processes2" in m:
        out.append(f"2 threads vs 2 processes: {m['processes2'] / m['threads2']:.2f}x faster")
    cores = os.cpu_count() or 1
    for key in sorted(k for k in FIGURES if k.startswith("render_")):
        if key not in m:
            continue
        f = FIGURES[key]
        if not f["chars"]:  # the empty file: the command's fixed cost
            out.append(
                f"{key}: {m[key]:.2f} s, CPU {f['cpu']:.2f} s, peak RSS "
                f"{f['rss'] / 2**20:.0f} MB (start-up and imports, no text); "
                f"load {f['load']:.1f} -> {f['load_end']:.1f}"
            )
            continue
        rate = f["chars"] / m[key]
        used = min(int(f["workers"]), cores)
        line = (
            f"{key}: {rate / 1e6:.1f} M chars/s, {rate / used / 1e6:.1f} M per core "
            f"({used}), {f['pages'] / m[key]:.0f} pages/s, CPU {f['cpu']:.2f} s "
            f"({f['chars'] / f['cpu'] / 1e6:.1f} M chars per CPU s)"
        )
        if "rss" in f:
            mb = f["rss"] / 2**20
            line += f", peak RSS {mb:.0f} MB ({mb / (f['chars'] / 1e6):.1f} MB per M chars)"
        out.append(line + f"; load {f['load']:.1f} -> {f['load_end']:.1f}")
    for where in ("inproc", "cli"):
        for size in ("0", "1m", "10m"):
            one, two = f"render_{where}1_{size}", f"render_{where}2_{size}"
            if one in m and two in m:
                out.append(f"render {where} {size}: 2 workers vs 1: {m[one] / m[two]:.2f}x")
    for key in sorted(k for k in FIGURES if k.startswith("rss_")):
        f = FIGURES[key]
        mb = f["rss"] / 2**20
        out.append(
            f"{key}: peak RSS {mb:.0f} MB ({mb / (f['chars'] / 1e6):.1f} MB per M chars), "
            f"CPU {f['cpu']:.1f} s ({f['chars'] / f['cpu'] / 1e6:.1f} M chars per CPU s)"
        )
    for key in ("corpus1", "corpus2"):
        if key in m:
            n = FIGURES[key]["conversations"]
            out.append(f"{key}: {n / m[key] * 60:.1f} conversations/min ({n} conversations)")
    if "corpus1" in m and "corpus2" in m:
        out.append(f"corpus 2 workers vs 1: {m['corpus1'] / m['corpus2']:.2f}x")
    return out


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not MEDIANS:
        return
    tr = terminalreporter
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    tr.section(
        f"snapshot speed ratios (this run; load average {load:.1f} on {os.cpu_count()} cores)"
    )
    tr.write_line("by median:")
    for line in _ratio_lines(MEDIANS):
        tr.write_line("  " + line)
    tr.write_line("by min (least disturbed by other processes):")
    for line in _ratio_lines(MINS):
        tr.write_line("  " + line)
    for title, module in (
        ("report speed:", "test_report_speed"),  # issue 29: CPU seconds of whole report runs
        ("render speed:", "test_render_speed"),  # issue 29 items 3 and 5: main beside this tree
        ("dense speed:", "test_dense_speed"),  # issue 29 item 3: gray pages beside 1-bit ones
        ("ctok line by line:", "test_ctok_lines"),  # issue 29 item 2: Claude counts
    ):
        # Only a bench module this run imported (an import by name could find tests/'s
        # namesake first when a bench put tests/ on sys.path).
        ran = sys.modules.get(module)
        summary = getattr(ran, "summary_lines", None)
        lines = summary() if summary is not None else []
        if lines:
            tr.write_line(title)
            for line in lines:
                tr.write_line("  " + line)
    memory = _import_memory_lines()  # one run each: not a median or a min
    if memory:
        tr.write_line("peak memory:")
        for line in memory:
            tr.write_line("  " + line)


#: Peak RSS of the measuring child, read where exec does not carry it over: Linux
#: keeps ``ru_maxrss`` across ``exec``, so a child of pytest (itself 150+ MB) reported
#: pytest's peak; ``VmHWM`` belongs to the new process image alone.
PEAK_RSS = """
def peak_rss():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
"""


def peak_child(script: str, *args: str) -> dict[str, float]:
    """Run ``python -c script args…`` with the checkout on the path; its last stderr line as JSON.

    The script prints ``{"code": 0, "rss": …, …}`` (``rss`` from :data:`PEAK_RSS`'s
    ``peak_rss()``) as its last line on stderr.
    """
    import json
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(ROOT), "SNAPSHOT_NO_PROGRESS": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", script, *args], env=env, capture_output=True, text=True, check=False
    )
    data: dict[str, float] = json.loads(proc.stderr.strip().splitlines()[-1])
    assert data["code"] == 0, proc.stderr
    return data
