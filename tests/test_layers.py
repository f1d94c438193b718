"""The package's layering, read from the source (docs/ARCHITECTURE.md draws it).

Every import counts, at module top or inside a function body (a lazy import is still
a dependency), and so does ``importlib.import_module("snapshot....")``. Three rules:

1. **Layers point down.** Each top-level part of ``snapshot/`` has a layer
   (:data:`LAYERS`); a module imports only parts of a lower layer or its own part. Parts
   that share a layer (the applications ``proxy`` and ``legibility``, say) do not import
   each other.
2. **No private name crosses a package**: nothing imports ``_x`` (a module or a name) of
   another package. Dunders (``__version__``) are public.
3. **No cycles**, lazy imports included, between any two modules.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "snapshot"

#: Bottom to top. A part may import its own modules and any part of a lower layer.
LAYERS: tuple[frozenset[str], ...] = (
    # foundation: errors, progress bars, figure layout, the default output folder
    frozenset({"errors", "progress", "plot_layout", "out_folder"}),
    # the render core; what the package knows of the providers' APIs
    frozenset({"rendering", "providers"}),
    # prices and token counts; how a reading of a page is scored
    frozenset({"billing", "readability"}),
    # conversations: the model, importers, the store, export, validation
    frozenset({"transcript"}),
    # sheet profiles per provider and model
    frozenset({"profiles"}),
    # the compaction ladder
    frozenset({"ladder"}),
    # applications: the live proxy and the legibility lab
    frozenset({"proxy", "legibility"}),
    # the benchmark report (it prints the lab's sections)
    frozenset({"report"}),
    # the command line and the public facade
    frozenset({"cli", "api", "demo"}),
    # `python -m snapshot`
    frozenset({"__main__"}),
)

#: The root package may be imported from anywhere for these names (it is imported first
#: whatever a module imports; its other names are re-exported lazily from below).
ROOT_NAMES = frozenset({"__version__"})


def imported_modules(source: str, module: str) -> list[str]:
    """Every module ``source`` (the module ``module``) imports, anywhere in it.

    >>> imported_modules("def f():\\n    from snapshot import ladder\\n", "snapshot.x")
    ['snapshot', 'snapshot.ladder']
    >>> imported_modules("from .tree import trim\\n", "snapshot.transcript.session")
    ['snapshot.transcript.tree', 'snapshot.transcript.tree.trim']
    >>> imported_modules("importlib.import_module('snapshot.ladder.compact')\\n", "snapshot.x")
    ['snapshot.ladder.compact']
    """
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = module.split(".")[: -node.level]
                base = ".".join([*parent, base] if base else parent)
            found.append(base)
            found += [f"{base}.{a.name}" for a in node.names]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append(node.args[0].value)
    return found


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ("snapshot", *path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = modules()


def resolve(name: str) -> str | None:
    """The package module ``name`` refers to (a name inside a module: that module)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports() -> Iterator[tuple[str, str, str]]:
    """(importing module, imported module, the name as written) for every import."""
    for module, path in MODULES.items():
        importer = module if path.name != "__init__.py" else module + ".__init__"
        for name in imported_modules(path.read_text(encoding="utf-8"), importer):
            if name == "snapshot" or name.startswith("snapshot."):
                target = resolve(name)
                if target is None or target == module:
                    continue
                if name == target and module.startswith(target + "."):
                    continue  # ``from pkg import sub`` in pkg's own child: the base is implicit
                yield module, target, name


def part(module: str) -> str:
    """The top-level part of ``snapshot`` a module belongs to (``""``: the root)."""
    return module.split(".")[1] if module.count(".") else ""


def layer_of(module: str) -> int:
    name = part(module)
    for i, parts in enumerate(LAYERS):
        if name in parts:
            return i
    raise AssertionError(f"{module}: its part {name!r} has no layer in LAYERS")


def test_every_part_has_a_layer() -> None:
    for module in MODULES:
        if part(module):
            layer_of(module)


def test_layers_point_down() -> None:
    wrong = []
    for src, dst, written in imports():
        if part(src) == part(dst):
            continue
        if dst == "snapshot":
            if written.rpartition(".")[2] not in ROOT_NAMES and written != "snapshot":
                wrong.append(f"{src} imports {written} from the root package")
            continue
        if layer_of(dst) >= layer_of(src):
            wrong.append(f"{src} imports {written} (layer {layer_of(dst)} >= {layer_of(src)})")
    assert wrong == []


def test_no_private_name_crosses_a_package() -> None:
    wrong = []
    for src, dst, written in imports():
        if part(src) == part(dst):
            continue
        private = [p for p in written.split(".")[1:] if p.startswith("_") and not p.endswith("__")]
        if private:
            wrong.append(f"{src} imports {written}")
    assert wrong == []


def test_no_import_cycles() -> None:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for src, dst, _written in imports():
        graph[src].add(dst)
    cycles = strongly_connected(graph)
    assert cycles == [], "\n".join(" -> ".join(c) for c in cycles)


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one node.

    >>> strongly_connected({"a": {"b"}, "b": {"a"}, "c": {"a"}})
    [['a', 'b']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(found)


@pytest.mark.parametrize(
    ("source", "importer", "wrong"),
    [
        ("def f():\n    from snapshot.legibility.weakest import x\n", "snapshot.profiles.y", True),
        ("from snapshot.billing._models import FACT\n", "snapshot.profiles.y", True),
        ("from snapshot.rendering.page import render\n", "snapshot.ladder.y", False),
    ],
)
def test_the_rules_catch_what_they_should(source: str, importer: str, wrong: bool) -> None:
    names = [n for n in imported_modules(source, importer) if resolve(n)]
    targets = {resolve(n) for n in names} - {None}
    upward = any(layer_of(t) >= layer_of(importer) for t in targets if part(t) != part(importer))
    private = any(p.startswith("_") for n in names for p in n.split(".")[1:])
    assert (upward or private) is wrong
