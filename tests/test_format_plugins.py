"""A user's own format through the ``snapshot.formats`` entry point group.

Each plugin here is a real installed distribution as far as
``importlib.metadata`` can tell: a module and a ``*.dist-info`` folder (METADATA,
entry_points.txt) on a temporary ``sys.path`` entry. Nothing patches
``entry_points``; the CLI runs in a fresh interpreter that finds the plugin the
way an installed package is found.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from snapshot.errors import TranscriptError
from snapshot.transcript.formats import (
    ENTRY_POINT_GROUP,
    ImportOptions,
    format_names,
    plugin_formats,
)

REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "docs" / "format-plugins.md"


def _guide_example() -> str:
    """The worked example of docs/format-plugins.md (its first Python block), run as is."""
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index("```python\n") + len("```python\n")
    return text[start : text.index("```", start)]


PLUGIN_SOURCE = _guide_example()


def install(site: Path, dist: str, module: str, source: str, entry: str) -> None:
    """Write ``module`` and a dist-info declaring ``entry`` in the snapshot.formats group."""
    (site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = site / f"{dist}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{entry}\n", encoding="utf-8")


def log_file(folder: Path) -> Path:
    path = folder / "session.myfmt"
    path.write_text("MYFMT 1\nwhat is in this folder?\nthree files.\n", encoding="utf-8")
    return path


def snapshot_cli(site: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``python -m snapshot ARGV`` in a fresh interpreter with ``site`` on its path."""
    env = {**os.environ, "SNAPSHOT_NO_PROGRESS": "1"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH")) if p)
    return subprocess.run(
        [sys.executable, "-m", "snapshot", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_an_installed_plugin_is_detected_and_forced_by_the_cli(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    install(site, "myfmt", "myfmt_plugin", PLUGIN_SOURCE, "myfmt = myfmt_plugin:FORMAT")
    path = log_file(tmp_path)

    done = snapshot_cli(site, "import", str(path), "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["conversations"]
    assert [(r["format"], r["messages"]) for r in rows] == [("my-format", 2)]

    forced = snapshot_cli(site, "import", str(path), "--format", "my-format", "--json")
    assert forced.returncode == 0, forced.stderr
    assert json.loads(forced.stdout)["conversations"][0]["format"] == "my-format"
    assert done.stderr == forced.stderr == ""


def test_a_module_exposing_format_is_accepted_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(tmp_path, "myfmt", "myfmt_plugin", PLUGIN_SOURCE, "myfmt = myfmt_plugin")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = plugin_formats()
    assert [f.name for f in found] == ["my-format"]
    (conv,) = found[0].load(log_file(tmp_path), ImportOptions())
    assert [m.role for m in conv.messages] == ["user", "assistant"]


def test_broken_plugins_are_left_out_with_one_line_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(
        tmp_path, "a-broken", "broken_plugin", "import no_such_module_here\n", "a = broken_plugin"
    )
    install(tmp_path, "b-wrong", "wrong_plugin", "FORMAT = 42\n", "b = wrong_plugin:FORMAT")
    clash = PLUGIN_SOURCE.replace('    "my-format",\n', '    "pi",\n')
    assert clash != PLUGIN_SOURCE
    install(tmp_path, "c-clash", "clash_plugin", clash, "c = clash_plugin")
    monkeypatch.syspath_prepend(str(tmp_path))
    lines: list[str] = []
    assert plugin_formats(taken=format_names(), report=lines.append) == []
    assert lines == [
        "format plugin 'a' (broken_plugin) cannot be loaded: ModuleNotFoundError: "
        "No module named 'no_such_module_here'; left out",
        "format plugin 'b' (wrong_plugin:FORMAT) names a int, not a "
        "snapshot.transcript.formats.Format (or a module exposing FORMAT); left out",
        "format plugin 'c' (clash_plugin) uses the format name 'pi', already taken; left out",
    ]


def test_a_broken_plugin_costs_one_warning_line_and_nothing_else(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    install(
        site,
        "broken",
        "broken_plugin",
        "raise RuntimeError('half installed')\n",
        "x = broken_plugin",
    )
    path = log_file(tmp_path)
    pi_log = tmp_path / "pi.jsonl"
    header = {"type": "session", "version": 3, "id": "s", "cwd": "/"}
    pi_log.write_text(json.dumps(header) + "\n", encoding="utf-8")

    done = snapshot_cli(site, "import", str(pi_log), "--json")
    assert done.returncode == 0
    assert json.loads(done.stdout)["conversations"][0]["format"] == "pi"
    assert done.stderr.splitlines() == [
        "snapshot: warning: format plugin 'x' (broken_plugin) cannot be loaded: "
        "RuntimeError: half installed; left out"
    ]
    refused = snapshot_cli(site, "import", str(path))
    assert refused.returncode == 2
    assert "Traceback" not in refused.stderr
    assert len(refused.stderr.splitlines()) == 2  # the warning, then why PATH is not read


def test_a_plugin_load_that_crashes_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    crashing = PLUGIN_SOURCE.replace(
        "    lines = path.read_text", "    raise ValueError('bad row')\n    lines = path.read_text"
    )
    install(tmp_path, "boom", "boom_plugin", crashing, "boom = boom_plugin:FORMAT")
    monkeypatch.syspath_prepend(str(tmp_path))
    (fmt,) = plugin_formats()
    path = log_file(tmp_path)
    with pytest.raises(TranscriptError) as caught:
        fmt.load(path, ImportOptions())
    assert str(caught.value) == (
        f"{path}: format plugin 'boom' (boom_plugin:FORMAT) failed: ValueError: bad row"
    )
