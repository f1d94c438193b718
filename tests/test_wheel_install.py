"""A built wheel, installed into a fresh venv, renders outside the checkout: the
project fonts and the demo text ship inside the wheel."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def _source_copy(dest: Path) -> Path:
    """The checkout's sources, copied: an in-tree build would leave build/ behind,
    and a stale build/lib can smuggle deleted files into later wheels."""
    skip = shutil.ignore_patterns(
        ".git",
        ".venv",
        ".ci-venv",
        "build",
        "dist",
        "*.egg-info",
        "__pycache__",
        ".*_cache",
        ".hypothesis",
        ".benchmarks",
        ".snapshot",
        "out",
    )
    src = dest / "src"
    shutil.copytree(ROOT, src, ignore=skip)
    return src


def _build_wheel(dest: Path) -> Path:
    source = _source_copy(dest)
    base = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dest), str(source)]
    # no build isolation reuses this environment's setuptools (offline); without
    # wheel/setuptools here, pip fetches them into an isolated build environment
    attempts = [[*base, "--no-build-isolation"], base]
    errors = []
    for cmd in attempts:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=dest)
        wheels = sorted(dest.glob("snapshot-*.whl"))
        if proc.returncode == 0 and wheels:
            return wheels[-1]
        errors.append(proc.stderr[-2000:])
    pytest.fail("could not build a wheel:\n" + "\n---\n".join(errors))


def test_wheel_installs_and_renders_outside_the_checkout(tmp_path: Path) -> None:
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("not running from a source checkout")
    wheel = _build_wheel(tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # dependencies (numpy, pillow, freetype-py, ...) come from this environment;
    # appended after the venv's own site-packages, so the wheel's snapshot wins
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    Path(purelib, "_snapshot_test_deps.pth").write_text("\n".join(deps) + "\n")
    subprocess.run(
        # --ignore-installed: the snapshot visible through the .pth above must not
        # count as "already installed", or the wheel would never land in this venv
        [
            str(py),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--ignore-installed",
            str(wheel),
        ],
        check=True,
    )
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["SNAPSHOT_NO_PROGRESS"] = "1"

    def run(*args: str) -> str:
        proc = subprocess.run([str(py), *args], cwd=work, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    where = run(
        "-c",
        "import snapshot, snapshot.rendering.glyphs as g; "
        "print(snapshot.__file__); print(g.available_fonts()['snap5x8'])",
    ).split()
    assert all(Path(p).is_relative_to(venv) for p in where), where
    summary = json.loads(run("-m", "snapshot", "render", "--out", "pages", "--json"))
    assert summary["font"] == "snap5x8" and summary["pages"]
    first = Path(work, summary["pages"][0]["file"])
    assert first.is_file() and first.stat().st_size > 1000
    text = run("-m", "snapshot", "read", str(first))
    assert text.startswith("== snapshot demo session")
    # the readings the profiles rest on ship too: the lab's verdicts, not "not measured"
    said = run(
        "-c",
        "from snapshot.profiles.readability import default_choice, readability_of; "
        "print(readability_of('claude-sonnet-5-5')['measured'], "
        "default_choice('gemini-3.8-flash')['kind'])",
    )
    assert said.split() == ["True", "model", "evidence"], said
