"""Issue 29: the report's round-trip check, the one-session report and the quick start, beside an earlier tree's code.

- ``test_round_trip[searching|exact]``: every page the one-session report
  decodes (the session's visible text on the three default profiles' pages and
  their dense gray pages), read by today's searching decoder
  (``decode.read``, what main 1e38e1a's report called) and by the exact cell
  lookup (``decode_exact.round_trip``, what the report calls now). Same text,
  checked.
- ``test_one_session_report[baseline|this|this-cached]``: ``snapshot report
  SESSION --no-legibility --workers 1`` in a fresh interpreter, from bytecode
  (compiled by an untimed run first, as an installed package has it); its CPU
  seconds (user + sys, from ``RUSAGE_CHILDREN``), which survive a busy machine
  better than wall time. ``baseline`` runs the checkout named by
  ``SNAPSHOT_BASELINE_TREE`` (make one with ``git worktree add --detach DIR
  d110cdd``, or ``git archive d110cdd | tar -x -C DIR``; ``SNAPSHOT_BASELINE_NAME``
  names it in the summary); ``this-cached`` is a second run on the same
  ``--out`` (every result read back from the cache).
- ``test_quick_start[baseline|this|this-cached]``: the README quick start
  (``snapshot report --out DIR``: the demo, the quick legibility lab, every core),
  the same way.
  After this tree's run of each, the baseline's and this tree's results.json
  are compared field for field, the measured seconds and the command line left
  out (a faster report must report the same); for the quick start the legibility
  lab's files too (its two .md files, date stamps aside, and its two PNGs, byte
  for byte, when both trees lay figures out the same way: see ``_lab_files``).

Run: ``SNAPSHOT_BASELINE_TREE=DIR python bench/run.py report_speed --benchmark-timer
time.process_time``. ``test_goal`` writes ``reports/bench/report_speed.json`` and asserts
issue 29 item 2's goals for this tree's first runs: the one-session report <= 2 s of CPU,
the README quick start <= 10 s of CPU for the whole command (both missed when last
measured: see the journal; since issue 40 the quick start's figure includes its whole-page
readers, which issue 29's goal predates), and issue 40 item 3's: the quick start's fixed
reader sample (a band per profile and its control, read by the fast readers) <= 15 s of
reader CPU, as the run's own ``results.json`` measures it (``reader_cpu_s``).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import results
from conftest import ROOT, STATS, record, shared_dir

from snapshot.rendering.geometry import Geometry
from snapshot.rendering.page import Page
from snapshot.transcript.validate.openai_spec import SPEC_ENV, SchemaUnavailable, spec_path

SESSION = (shared_dir() or ROOT.parent / "shared") / (
    "corpus/claude_code_log_real/-Users-dain-workspace-danieldemmel-me-next/"
    "9e953218-585f-4692-89df-9e0747a31c68.jsonl"
)
#: name -> {"cpu": seconds, "load": load average at the start, ...}
FIGURES: dict[str, dict[str, float]] = {}
#: name -> the --out folder of that run (for test_same_results)
OUTS: dict[str, Path] = {}
BASE = os.environ.get("SNAPSHOT_BASELINE_NAME", "the baseline tree")


def _load() -> float:
    return os.getloadavg()[0]


@pytest.fixture(scope="module")
def report_pages() -> list[tuple[Page, Geometry]]:
    if not SESSION.is_file():
        pytest.skip(f"the one-session report's session is absent: {SESSION}")
    from snapshot.profiles import profile_for
    from snapshot.profiles.dense import dense_geometry
    from snapshot.rendering.page import render_document
    from snapshot.report.readability import visible_text
    from snapshot.report.run import DEFAULT_MODELS
    from snapshot.report.sources import path_sources
    from snapshot.transcript.discover import find

    refs, _ = path_sources(find([str(SESSION)]))
    text = visible_text(refs[0].load().conversation.path())
    out = []
    for model in DEFAULT_MODELS:
        g = profile_for(model).geometry()
        for geometry in (g, dense_geometry(g)):
            out += [(p, geometry) for p in render_document(text, geometry).pages]
    for page, _ in out:
        _ = page.pixels  # drawn before timing: the report has them drawn already
    return out


@pytest.mark.benchmark(group="round_trip")
@pytest.mark.parametrize("decoder", ["searching", "exact"])
def test_round_trip(
    benchmark: Any, report_pages: list[tuple[Page, Geometry]], decoder: str
) -> None:
    from snapshot.rendering.decode import read
    from snapshot.rendering.decode_exact import round_trip

    def searching() -> list[str]:
        return [read(p.pixels, g.font, geometry=g) for p, g in report_pages]

    def exact() -> list[str]:
        return [round_trip(p.pixels, g) for p, g in report_pages]

    load = _load()
    texts = record(
        benchmark,
        f"round_trip_{decoder}",
        searching if decoder == "searching" else exact,
        rounds=3,
        iterations=1,
    )
    FIGURES[f"round_trip_{decoder}"] = {"pages": len(report_pages), "load": load}
    assert texts == searching()


def _baseline_tree() -> Path:
    given = os.environ.get("SNAPSHOT_BASELINE_TREE")
    if not given or not (Path(given) / "snapshot").is_dir():
        pytest.skip("set SNAPSHOT_BASELINE_TREE to a checkout of the code to compare with")
    return Path(given)


def _spec_env() -> dict[str, str]:
    """Both trees validate OpenAI requests against the same spec file.

    Without it the lookup walks up from each tree: it finds ``../shared`` beside this
    checkout but nothing beside a baseline unpacked under /tmp, which then skipped
    validation (0.3-0.6 CPU s of the one-session report) and looked faster.
    """
    try:
        return {SPEC_ENV: str(spec_path())}
    except SchemaUnavailable:
        return {}  # nowhere beside this checkout: nor beside a baseline


def _child_cpu(args: list[str], cwd: Path, pythonpath: Path, pycache: Path | None = None) -> float:
    """CPU seconds (user + sys) of one command run to its end.

    ``pycache``: run with bytecode kept in that folder (``PYTHONPYCACHEPREFIX``),
    even where the shell sets ``PYTHONDONTWRITEBYTECODE`` (this machine's does: each
    run then compiles every module of the tree from source again, which no installed
    package does).
    """
    env = {**os.environ, "PYTHONPATH": str(pythonpath), "SNAPSHOT_NO_PROGRESS": "1"}
    env.pop(SPEC_ENV, None)
    env.update(_spec_env())
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


@pytest.fixture(scope="module")
def pycache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One bytecode folder for both trees' runs (their paths differ: no clash)."""
    return tmp_path_factory.mktemp("pycache")


@pytest.mark.benchmark(group="one_session_report")
@pytest.mark.parametrize("code", ["baseline", "this", "this-cached"])
def test_one_session_report(
    benchmark: Any, tmp_path_factory: pytest.TempPathFactory, pycache: Path, code: str
) -> None:
    """Both trees as an installed package runs them: from bytecode. An untimed run
    first (into another folder, so the measured run is still a first run, no cache)
    compiles each tree's modules and the libraries it imports into ``pycache``."""
    if not SESSION.is_file():
        pytest.skip(f"the one-session report's session is absent: {SESSION}")
    tree = _baseline_tree() if code == "baseline" else ROOT
    out = tmp_path_factory.mktemp(f"report_{code}")
    OUTS[f"one_session_{code}"] = out

    def args_to(folder: Path) -> list[str]:
        args = [sys.executable, "-m", "snapshot", "report", str(SESSION), "--out", str(folder)]
        return [*args, "--no-legibility", "--workers", "1"]

    args = args_to(out)
    if code == "this-cached":
        _child_cpu(args, tree, tree, pycache)  # fills the cache; the measured run reads it back
    else:
        _child_cpu(args_to(tmp_path_factory.mktemp(f"warm_{code}")), tree, tree, pycache)
    seen: dict[str, float] = {}

    def run() -> None:
        seen["cpu"] = _child_cpu(args, tree, tree, pycache)

    load = _load()
    record(benchmark, f"report_{code}", run, rounds=1, iterations=1)
    FIGURES[f"report_{code}"] = {**seen, "load": load, "load_end": _load()}
    if code == "this":
        _compare_with_baseline("one_session")


@pytest.mark.benchmark(group="quick_start")
@pytest.mark.parametrize("code", ["baseline", "this", "this-cached"])
def test_quick_start(
    benchmark: Any, tmp_path_factory: pytest.TempPathFactory, pycache: Path, code: str
) -> None:
    """The README quick start's ``snapshot report`` (demo, quick lab, every core): CPU
    seconds, from bytecode as an installed package runs (an untimed first run compiles,
    as in :func:`test_one_session_report`)."""
    tree = _baseline_tree() if code == "baseline" else ROOT
    out = tmp_path_factory.mktemp(f"quick_start_{code}")
    OUTS[f"quick_start_{code}"] = out

    def args_to(folder: Path) -> list[str]:
        return [sys.executable, "-m", "snapshot", "report", "--out", str(folder)]

    args = args_to(out)
    if code == "this-cached":
        _child_cpu(args, tree, tree, pycache)  # fills the cache; the measured run reads it back
    else:
        _child_cpu(args_to(tmp_path_factory.mktemp(f"warm_quick_{code}")), tree, tree, pycache)
    seen: dict[str, float] = {}

    def run() -> None:
        seen["cpu"] = _child_cpu(args, tree, tree, pycache)

    load = _load()
    record(benchmark, f"quick_start_{code}", run, rounds=1, iterations=1)
    FIGURES[f"quick_start_{code}"] = {**seen, "load": load, "load_end": _load()}
    if code == "this":
        _compare_with_baseline("quick_start")


@pytest.mark.benchmark(group="quick_start")
@pytest.mark.parametrize("code", ["baseline", "this"])
def test_quick_lab(
    benchmark: Any, tmp_path_factory: pytest.TempPathFactory, pycache: Path, code: str
) -> None:
    """The quick start's legibility lab alone (``write_sections(DIR, "quick")`` in a fresh
    interpreter): CPU seconds with its tesseract children, then the same files as the
    baseline's. Printed here (the closing summary is other benches' to extend)."""
    tree = _baseline_tree() if code == "baseline" else ROOT
    out = tmp_path_factory.mktemp(f"quick_lab_{code}")
    OUTS[f"quick_lab_{code}"] = out
    script = (
        "import sys; from pathlib import Path; "
        "from snapshot.legibility.report import write_sections; "
        "write_sections(Path(sys.argv[1]), 'quick')"
    )
    args = [sys.executable, "-c", script]
    _child_cpu([*args, str(tmp_path_factory.mktemp(f"warm_lab_{code}"))], tree, tree, pycache)
    seen: dict[str, float] = {}

    def run() -> None:
        seen["cpu"] = _child_cpu([*args, str(out)], tree, tree, pycache)

    load = _load()
    record(benchmark, f"quick_lab_{code}", run, rounds=1, iterations=1)
    FIGURES[f"quick_lab_{code}"] = {**seen, "load": load, "load_end": _load()}
    base = OUTS.get("quick_lab_baseline")
    if code == "this" and base is not None:
        same = _same_layout(_baseline_tree())
        assert _lab_files(out, same) == _lab_files(base, same), "the legibility lab's files differ"
        b, t = FIGURES["quick_lab_baseline"], FIGURES["quick_lab_this"]
        print(
            f"\nquick legibility lab alone: {BASE} {b['cpu']:.1f} CPU s (load {b['load']:.1f}), "
            f"this tree {t['cpu']:.1f} CPU s (load {t['load']:.1f}): {b['cpu'] / t['cpu']:.2f}x less; "
            "same files"
        )


def _untimed(out: Path) -> dict[str, Any]:
    import json

    data: dict[str, Any] = json.loads((out / "results.json").read_text(encoding="utf-8"))
    rows = [{k: v for k, v in r.items() if k != "seconds"} for r in data["rows"]]
    return {**{k: v for k, v in data.items() if k not in ("seconds", "command")}, "rows": rows}


#: Strategies whose pages use the dense layout's face.
DENSE_FACE_ROWS = ("snapshot+dense", "snapshot+foveate")


def _keys_of(base: Any, this: Any) -> Any:
    """``this`` cut to the keys ``base`` has, at every depth: fields added since the
    baseline (e.g. a new setting or row field) are not a change of result."""
    if isinstance(base, dict) and isinstance(this, dict):
        return {k: _keys_of(base[k], this[k]) if k in base else this[k] for k in this if k in base}
    if isinstance(base, list) and isinstance(this, list) and len(base) == len(this):
        return [_keys_of(b, t) for b, t in zip(base, this, strict=True)]
    return this


def _compare_with_baseline(run: str) -> None:
    """After this tree's run: the baseline's results.json and this one's, timings aside."""
    base, this = OUTS.get(f"{run}_baseline"), OUTS.get(f"{run}_this")
    if base is None or this is None or not (base / "results.json").is_file():
        return
    before, after = _untimed(base), _untimed(this)
    if os.environ.get("SNAPSHOT_BASELINE_NAME", "").startswith("main d110cdd"):
        # Since d110cdd the dense layout draws snap5x9v2 (issue 25 item 5): the rows
        # drawing it differ by the face (page bytes, +1-2 tokens for its name in the
        # request text), and so do the GPT ranges pooled over them. Not a speed change.
        for data in (before, after):
            data["rows"] = [r for r in data["rows"] if r["strategy"] not in DENSE_FACE_ROWS]
            data.pop("ranges", None)
    assert _keys_of(before, after) == before, f"{run}: results.json differs from the baseline's"
    if run == "one_session" and not os.environ.get("SNAPSHOT_BASELINE_NAME", "").startswith(
        "main d110cdd"
    ):
        assert _report_text(this) == _report_text(base), "REPORT.md differs (timings aside)"
    if run == "quick_start":
        same = _same_layout(_baseline_tree())
        assert _lab_files(this, same) == _lab_files(base, same), "the legibility lab's files differ"
    FIGURES[f"same_{run}"] = {"same": 1.0}


def _report_text(out: Path) -> str:
    """REPORT.md with its measured seconds, the run's folder and the lines drawn from the
    committed OCR readings (``reports/frontier-points.jsonl``, not this run's) left out."""
    import re

    text = (out / "REPORT.md").read_text(encoding="utf-8").replace(str(out), "OUT")
    text = re.sub(
        r"^  - (readability \(OCR, whole page|OCR evidence:).*$", "  - OCR", text, flags=re.M
    )
    # This stop's report reads x0.9 (issue 25) and says so in this sentence: not a speed matter.
    text = re.sub(
        r"^- The round-trip check is the project's own decoder.*$", "- trust", text, flags=re.M
    )
    text = re.sub(r"worker\(s\), \d+ s\.", "worker(s), N s.", text)
    # Issue 29's fifth stop: the characters-per-token figure counts the report's own
    # conversations (no demo text) and says so under it: a changed figure, not a speed matter.
    text = re.sub(
        r"^Per profile of this report: the characters a full page.*\n\n", "", text, flags=re.M
    )
    return re.sub(r"\| \d+\.\d \|$", "| N |", text, flags=re.MULTILINE)


#: The legibility lab's files in a quick start's folder.
LAB_FILES = (
    "legibility.md",
    "font_comparison.md",
    "legibility_vs_scale.png",
    "generational_loss.png",
)


def _lab_files(out: Path, pngs: bool = True) -> dict[str, bytes]:
    """The lab's files, their "Generated <date> UTC" stamps aside: a faster lab
    must read the same text and draw the same figures. Its PNGs are compared only
    between trees that lay figures out the same way: since issue 29's fifth stop
    (``snapshot/plot_layout.py``) they have fixed margins instead of ``tight_layout``'s,
    the same numbers in other pixels; the .md files carry every measured figure."""
    import re

    names = [n for n in LAB_FILES if pngs or n.endswith(".md")]
    files = {name: (out / name).read_bytes() for name in names if (out / name).is_file()}
    return {
        name: re.sub(rb"Generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", b"Generated", data)
        for name, data in files.items()
    }


def _same_layout(base: Path) -> bool:
    """Whether ``base`` lays figures out as this tree does (see :func:`_lab_files`)."""
    fixed = Path("snapshot") / "plot_layout.py"
    return (base / fixed).is_file() == (ROOT / fixed).is_file()


def summary_lines() -> list[str]:
    """The ratios of this module's figures, for the run's closing summary."""
    f = FIGURES
    out = []
    s, e = f.get("round_trip_searching"), f.get("round_trip_exact")
    if s and e:
        from conftest import MEDIANS

        if "round_trip_searching" in MEDIANS and "round_trip_exact" in MEDIANS:
            a, b = MEDIANS["round_trip_searching"], MEDIANS["round_trip_exact"]
            out.append(
                f"round-trip check of the one-session report's {int(e['pages'])} pages: "
                f"searching {a:.2f} s, exact lookup {b:.2f} s ({a / b:.1f}x less; load {e['load']:.1f})"
            )
    base, this, cached = f.get("report_baseline"), f.get("report_this"), f.get("report_this-cached")
    for name, fig in (
        (BASE, base),
        ("this tree", this),
        ("this tree, cached re-run", cached),
    ):
        if fig:
            out.append(
                f"one-session report, {name}: {fig['cpu']:.1f} CPU s "
                f"(load {fig['load']:.1f} -> {fig['load_end']:.1f})"
            )
    if base and this:
        out.append(f"one-session report CPU, {BASE} / this tree: {base['cpu'] / this['cpu']:.2f}x")
    qb, qt = f.get("quick_start_baseline"), f.get("quick_start_this")
    qc = f.get("quick_start_this-cached")
    for name, fig in ((BASE, qb), ("this tree", qt), ("this tree, cached re-run", qc)):
        if fig:
            out.append(
                f"README quick start, {name}: {fig['cpu']:.1f} CPU s "
                f"(load {fig['load']:.1f} -> {fig['load_end']:.1f})"
            )
    if qb and qt:
        out.append(f"README quick start CPU, {BASE} / this tree: {qb['cpu'] / qt['cpu']:.2f}x")
    if qb and qc:
        out.append(
            f"README quick start CPU, {BASE} / this tree's cached re-run: {qb['cpu'] / qc['cpu']:.1f}x"
        )
    for run in ("one_session", "quick_start"):
        if f.get(f"same_{run}"):
            lab = " and REPORT.md"
            if run == "quick_start":
                alike = _same_layout(_baseline_tree())
                lab = " and the legibility lab's " + (
                    "files" if alike else ".md files (its PNGs: other margins)"
                )
            out.append(f"{run}: results.json{lab} of {BASE} and this tree equal (timings aside)")
    if base and cached:
        out.append(f"... / cached re-run: {base['cpu'] / cached['cpu']:.1f}x")
    return out


def _reader_goal() -> dict[str, results.Goal]:
    """Issue 40 item 3: the reader CPU the quick start's own results.json measured for
    its fixed sample (none when the run wrote no results.json)."""
    import json

    from snapshot.report.reader_plan import QUICK_BUDGET_S

    out = OUTS.get("quick_start_this")
    path = None if out is None else out / "results.json"
    if path is None or not path.is_file():
        return {}
    cpu = json.loads(path.read_text(encoding="utf-8")).get("reader_cpu_s")
    if cpu is None:
        return {}
    return {
        "quick_start_reader_cpu": results.Goal(
            float(cpu),
            "<=",
            QUICK_BUDGET_S,
            "s",
            "issue 40 item 3: reader CPU of the quick start's fixed sample (the fast readers, "
            "a band per profile and its control), from its results.json",
        )
    }


def test_goal() -> None:
    f = FIGURES
    if "report_this" not in f or "quick_start_this" not in f:
        pytest.skip("not measured in this run: report_this and quick_start_this")
    figures = {
        f"{k}_cpu_s": results.figure(x["cpu"], "s", "CPU (user + sys) of the command")
        for k, x in sorted(f.items())
        if "cpu" in x
    }
    ratios = {}
    for run in ("report", "quick_start", "quick_lab"):
        b, t = f.get(f"{run}_baseline"), f.get(f"{run}_this")
        if b and t:
            ratios[f"{run}_baseline_over_this"] = results.figure(
                b["cpu"] / t["cpu"], "x", f"CPU, {BASE} vs this tree"
            )
    record = results.finish(
        results.bench_name(__file__),
        {
            "arms": dict(sorted(STATS.items())),
            "ratios": ratios,
            "figures": figures,
            "params": {
                "baseline": BASE,
                "same_results": sorted(k for k in f if k.startswith("same_")),
            },
        },
        {
            "one_session_cpu": results.Goal(
                f["report_this"]["cpu"], "<=", 2, "s", "issue 29 item 2"
            ),
            "quick_start_cpu": results.Goal(
                f["quick_start_this"]["cpu"],
                "<=",
                10,
                "s",
                "issue 29 item 2: CPU of the whole quick start command, its readers included",
            ),
            **_reader_goal(),
        },
    )
    results.check(record)
