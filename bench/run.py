"""Run one bench the one way: ``python bench/run.py NAME [pytest options]``.

NAME is a bench module without ``test_`` (``raster_speed`` runs
``bench/test_raster_speed.py``). Writes pytest-benchmark's JSON to
``reports/bench/pytest-benchmark/NAME.json`` and, through the module's
``test_goal``, the bench's own ``reports/bench/NAME.json``; exits as pytest does
(1 when a goal is missed). ``--list`` names the benches.

>>> "raster_speed" in benches()
True
>>> command("raster_speed", ["-k", "pillow"])[1:3], command("raster_speed", ["-k", "pillow"])[-2:]
(['-m', 'pytest'], ['-k', 'pillow'])
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def benches() -> list[str]:
    return sorted(p.stem.removeprefix("test_") for p in (ROOT / "bench").glob("test_*.py"))


def benchmark_json(name: str) -> Path:
    return ROOT / "reports" / "bench" / "pytest-benchmark" / f"{name}.json"


def drop_samples(path: Path) -> None:
    """pytest-benchmark's file without the per-round samples (megabytes; the stats stay)."""
    if not path.is_file():
        return
    data = json.loads(path.read_text(encoding="utf-8"))
    for bench in data.get("benchmarks", []):
        bench.get("stats", {}).pop("data", None)
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def command(name: str, extra: list[str]) -> list[str]:
    out = benchmark_json(name)
    out.parent.mkdir(parents=True, exist_ok=True)
    return [
        sys.executable,
        "-m",
        "pytest",
        str(ROOT / "bench" / f"test_{name}.py"),
        "-o",
        "addopts=",
        "-p",
        "no:cacheprovider",
        "-q",
        "-rs",
        f"--benchmark-json={out}",
        *extra,
    ]


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    if argv[0] == "--list":
        print("\n".join(benches()))
        return 0
    name, extra = argv[0], argv[1:]
    if name not in benches():
        print(f"bench/run.py: no bench {name!r}; one of: {', '.join(benches())}", file=sys.stderr)
        return 2
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    code = subprocess.call(command(name, extra), cwd=ROOT, env=env)
    drop_samples(benchmark_json(name))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
