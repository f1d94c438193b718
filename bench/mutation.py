"""Mutation run over the ladder, billing and decoder modules (mutmut 3; not part of CI).

How many planted faults does the test suite catch? mutmut copies the tree into
``mutants/`` (git-ignored), plants one fault per mutant in the files that
``[tool.mutmut] only_mutate`` names, and per mutant runs only the selected tests
(``pytest_add_cli_args_test_selection``) that reach the mutated function.

All the mutants of the three modules (about 5,100) take hours on two cores, so a
run mutates a seeded sample: ``--per-module N`` mutants drawn uniformly from each
module's pool (``snapshot/ladder/``, ``snapshot/billing/``, ``snapshot/rendering/decode.py``)
with ``--seed``. The same seed and source give the same sample.

    python bench/mutation.py                       # sample 50 per module, run, report
    python bench/mutation.py --per-module 0        # every mutant (hours)
    python bench/mutation.py --report              # the table of the last run only
    python bench/mutation.py --rerun NAME [NAME..] # re-run named mutants (after a new test)
    python bench/mutation.py --confirm             # re-check the last run's not-killed mutants

The run is niced (``nice -n 19``; ``--nice N``) with ``--workers`` parallel children (default 2).
The report counts each module's sampled mutants by outcome; the kill rate is
``killed / sampled``: a mutant no selected test reaches, a timeout and a mutant
not run all count against it (on a shared, niced machine a timeout is more often
a starved worker than a mutant that loops).
Per mutant mutmut runs only the tests its stats run saw reaching the mutated
function. Code that runs at import (the provider tables, cached templates) is
credited to whichever test imported the module first, so a mutant there meets
one unrelated test and "survives"; a mutant that breaks the import can show as
a timeout of the fork server. ``--confirm`` therefore runs every selected test
file again for each mutant the run did not kill, in a fresh interpreter with
``MUTANT_UNDER_TEST`` set (what mutmut's trampolines read at call time): a
failure there is a kill, counted in its own column of the table.

Requires ``pip install mutmut==3.8.1``; the project need not be installed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tomllib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MUTANTS = REPO / "mutants"
SAMPLE = MUTANTS / "sample.txt"
CONFIRMED = MUTANTS / "confirmed.json"
MODULES = {
    "snapshot/ladder/": "snapshot.ladder.",
    "snapshot/billing/": "snapshot.billing.",
    "snapshot/rendering/decode.py": "snapshot.rendering.decode.",
}
# mutmut's exit codes (mutmut/stats.py), folded into the report's columns.
OUTCOME = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests"}
OUTCOME |= {36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout"}
OUTCOME |= {None: "not run", 37: "killed"}


def _mutmut() -> Path:
    return Path(sys.executable).parent / "mutmut"


def _env() -> dict[str, str]:
    env = dict(os.environ, SNAPSHOT_NO_PROGRESS="1")
    corpus = REPO.parent / "shared" / "corpus"
    # The corpus tests look beside the repository, which inside mutants/ is the
    # repository itself: point them at the real one.
    if "SNAPSHOT_CORPUS" not in env and corpus.is_dir():
        env["SNAPSHOT_CORPUS"] = str(corpus)
    return env


def _results() -> dict[str, int | None]:
    """Every generated mutant's recorded exit code (None: not run yet)."""
    codes: dict[str, int | None] = {}
    for meta in sorted((MUTANTS / "snapshot").rglob("*.py.meta")):
        codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    return codes


def _module(name: str) -> str:
    return next(m for m, prefix in MODULES.items() if name.startswith(prefix))


def _generate() -> None:
    """Write mutants/ (mutmut's own generation step, without a test run)."""
    code = (
        "from mutmut.__main__ import create_mutants\n"
        "from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir\n"
        "import os; os.makedirs('mutants', exist_ok=True)\n"
        "copy_src_dir(); copy_also_copy_files(); create_mutants(1)\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, stdout=subprocess.DEVNULL)


def _sample(per_module: int, seed: int) -> list[str]:
    by_module: dict[str, list[str]] = {m: [] for m in MODULES}
    for name in sorted(_results()):
        by_module[_module(name)].append(name)
    chosen: list[str] = []
    for names in by_module.values():
        if per_module and len(names) > per_module:
            names = random.Random(seed).sample(names, per_module)
        chosen += sorted(names)
    return chosen


NICE = 19  # default of --nice: a shared machine's other work goes first


def _run(names: list[str], workers: int, nice: int = NICE) -> None:
    cmd = ["nice", "-n", str(nice), str(_mutmut()), "run", "--max-children", str(workers), *names]
    subprocess.run(cmd, cwd=REPO, env=_env(), check=False)


def _selection() -> list[str]:
    """The test files and pytest options ``[tool.mutmut]`` gives mutmut."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mutmut"]
    return [*config["pytest_add_cli_args"], *config["pytest_add_cli_args_test_selection"]]


def _confirm_one(name: str, timeout: float, nice: int = NICE) -> str:
    """``killed`` / ``survived`` / ``timeout`` for one mutant, every selected test, fresh process."""
    env = dict(_env(), MUTANT_UNDER_TEST=name, PYTHONPATH=str(MUTANTS))
    cmd = ["nice", "-n", str(nice), sys.executable, "-m", "pytest", "-x", "-q", *_selection()]
    try:
        done = subprocess.run(
            cmd,
            cwd=MUTANTS,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return "timeout"
    return "survived" if done.returncode == 0 else "killed"


def confirm(names: list[str], workers: int, timeout: float, nice: int = NICE) -> dict[str, str]:
    """Re-check each of ``names`` in a fresh interpreter; saved to ``mutants/confirmed.json``."""
    with ThreadPoolExecutor(max(1, workers)) as pool:
        outcomes = dict(
            zip(names, pool.map(lambda n: _confirm_one(n, timeout, nice), names), strict=True)
        )
    for name, outcome in outcomes.items():
        print(f"{outcome:9s} {name}", flush=True)
    CONFIRMED.write_text(json.dumps(outcomes, indent=1, sort_keys=True) + "\n")
    return outcomes


def _outcome(name: str, codes: dict[str, int | None], confirmed: dict[str, str]) -> str:
    outcome = OUTCOME.get(codes.get(name), "other")
    if outcome != "killed" and confirmed.get(name) == "killed":
        return "killed, fresh process"
    return outcome


def _confirmed() -> dict[str, str]:
    return json.loads(CONFIRMED.read_text()) if CONFIRMED.exists() else {}


def report(names: list[str]) -> str:
    """The per-module table of the sampled mutants' outcomes (markdown)."""
    codes = _results()
    confirmed = _confirmed()
    generated = Counter(_module(n) for n in codes)
    rows = [
        "| module | generated | sampled | killed | of which in a fresh process | survived "
        "| no tests | timeout | not run | kill rate |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    total: Counter[str] = Counter()
    for module in MODULES:
        outcomes = Counter(
            _outcome(n, codes, confirmed) for n in names if _module(n) == module and n in codes
        )
        sampled = sum(outcomes.values())
        total.update(outcomes)
        rows.append(_row(module, generated[module], sampled, outcomes))
    rows.append(_row("**all**", sum(generated.values()), sum(total.values()), total))
    return "\n".join(rows)


def _row(label: str, generated: int, sampled: int, c: Counter[str]) -> str:
    killed = c["killed"] + c["killed, fresh process"]
    rate = f"{100 * killed / sampled:.1f} %" if sampled else "-"
    cells = [killed, c["killed, fresh process"], c["survived"], c["no tests"], c["timeout"]]
    cells.append(c["not run"])
    return f"| {label} | {generated} | {sampled} | " + " | ".join(map(str, cells)) + f" | {rate} |"


def survivors(names: list[str]) -> list[str]:
    """The mutants neither mutmut nor ``--confirm`` killed."""
    codes = _results()
    confirmed = _confirmed()
    return [n for n in names if not _outcome(n, codes, confirmed).startswith("killed")]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--per-module", type=int, default=50, help="mutants per module (0: all)")
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--report", action="store_true", help="print the last run's table only")
    p.add_argument("--rerun", nargs="+", metavar="NAME", help="re-run these mutants only")
    p.add_argument(
        "--confirm", action="store_true", help="re-check the not-killed mutants in fresh processes"
    )
    p.add_argument("--timeout", type=float, default=1200.0, help="seconds per --confirm run")
    p.add_argument("--nice", type=int, default=NICE, help="niceness of the runs (default 19)")
    args = p.parse_args(argv)

    if args.rerun:
        _run(args.rerun, args.workers, args.nice)
        print(report(args.rerun))
        return 0
    if not (args.report or args.confirm):  # both read the last run
        _generate()
        names = _sample(args.per_module, args.seed)
        SAMPLE.write_text("\n".join(names) + "\n")
        print(f"{len(names)} mutants sampled (seed {args.seed}) → {SAMPLE.relative_to(REPO)}")
        _run(names, args.workers, args.nice)
        CONFIRMED.unlink(missing_ok=True)  # a new run: earlier confirmations do not apply
    names = SAMPLE.read_text().split()
    if args.confirm:
        codes = _results()
        left = [n for n in names if OUTCOME.get(codes.get(n)) != "killed"]
        confirm(left, args.workers, args.timeout, args.nice)
    print(report(names))
    left = survivors(names)
    print(f"\n{len(left)} not killed: `mutmut show NAME` for the diff")
    print("\n".join(left))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
