"""Every package in the source tree is listed in pyproject.toml, so the wheel carries it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_is_listed_in_pyproject() -> None:
    pyproject = ROOT / "pyproject.toml"
    if not pyproject.exists():
        pytest.skip("not running from a source checkout")
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "snapshot").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    on_disk.add("snapshot.fonts")  # mapped from the top-level fonts/ folder
    assert on_disk <= listed, f"add to [tool.setuptools] packages: {sorted(on_disk - listed)}"
