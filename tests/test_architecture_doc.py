"""docs/ARCHITECTURE.md describes the package as it is: a section per component, every module
it names exists, its layer rules are the ones tests/test_layers.py enforces, and no history."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "snapshot"
FOUNDATION = ("errors", "progress", "plot_layout", "out_folder")


def _doc() -> str:
    path = ROOT / "docs" / "ARCHITECTURE.md"
    if not path.is_file():
        pytest.skip("not a source checkout: docs/ is not installed")
    return path.read_text(encoding="utf-8")


def _sections(doc: str) -> dict[str, str]:
    """Each component section by the package its heading names (``snapshot/x/``)."""
    out = {}
    for part in doc.split("\n## ")[1:]:
        heading, _, body = part.partition("\n")
        named = re.search(r"`snapshot/(\w+)/`", heading)
        if named:
            out[named.group(1)] = body
    return out


def test_every_package_has_its_section() -> None:
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py") if p.parent.name != "demo"}
    assert packages - set(_sections(_doc())) == set()
    assert all(f"`{name}`" in _doc() for name in FOUNDATION)


def test_every_module_a_section_names_exists() -> None:
    missing = []
    for package, body in _sections(_doc()).items():
        for name in re.findall(r"`([\w/]+\.py|\w+/)`", body):
            if name.startswith(("snapshot/", "tests/", "docs/", "reports/")):
                continue  # a path from the checkout's root: checked below
            # a module of the package, of one of its subpackages, or of the foundation
            inside = any(
                p.as_posix().endswith(name.rstrip("/")) for p in (PACKAGE / package).rglob("*")
            )
            if not inside and not (PACKAGE / name).exists():
                missing.append(f"{package}: {name}")
    for path in re.findall(r"`((?:snapshot|tests|docs|reports)/[\w/.-]*\w)`", _doc()):
        if not (ROOT / path).exists():
            missing.append(path)
    assert missing == []


def test_the_layer_rules_are_written_and_enforced() -> None:
    doc = " ".join(_doc().split())
    for rule in (
        "a lower layer never imports a higher one",
        "applications import only lower layers (cli may import all)",
        "no import of another package's private (`_x`) name",
        "no import cycles, lazy imports included",
        "enforced by `tests/test_layers.py`",
    ):
        assert rule in doc, rule
    from test_layers import LAYERS

    drawn = {
        int(n): frozenset(p.strip() for p in parts.split("·"))
        for n, parts in re.findall(r"^ level (\d+) +(.+?)  ", _doc(), re.M)
    }
    assert [drawn.get(i) for i in range(len(LAYERS))] == list(LAYERS), "the diagram is not LAYERS"


def test_it_tells_no_history() -> None:
    assert re.findall(r"\bissue \d+|\(issue|\bstop\b", _doc()) == []
