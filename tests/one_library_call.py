"""Read a CLI command's source and check it makes exactly one call into the library.

Shared by the tests that keep the CLI thin (parsing and printing only): a command
that grows domain logic again imports a second library name and fails there.
"""

from __future__ import annotations

import ast
import inspect

_OWN = ("snapshot.cli", "snapshot.errors")  # the CLI's own modules and the error types


def library_imports(func: object) -> list[str]:
    """``module.name`` of each snapshot name ``func`` imports, but the CLI's own and errors."""
    names = []
    for node in ast.walk(ast.parse(inspect.getsource(func))):  # type: ignore[arg-type]
        module = node.module if isinstance(node, ast.ImportFrom) else None
        if module and module.startswith("snapshot") and not module.startswith(_OWN):
            assert isinstance(node, ast.ImportFrom)
            names += [f"{module}.{a.name}" for a in node.names]
    return names


def is_options_type(qualified: str) -> bool:
    """``module.name`` is a frozen dataclass (options, settings): data the command fills in."""
    import dataclasses
    import importlib

    module, name = qualified.rsplit(".", 1)
    value = getattr(importlib.import_module(module), name, None)
    return (
        isinstance(value, type)
        and dataclasses.is_dataclass(value)
        and value.__dataclass_params__.frozen  # type: ignore[attr-defined]
    )


def assert_one_library_call(func: object, qualified: str) -> None:
    """``func`` imports only ``qualified`` from the library (and the frozen options
    dataclasses it takes, which the command builds from its arguments) and calls it once."""
    assert [n for n in library_imports(func) if not is_options_type(n)] == [qualified]
    short = qualified.rsplit(".", 1)[1]
    calls = [
        n
        for n in ast.walk(ast.parse(inspect.getsource(func)))  # type: ignore[arg-type]
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == short
    ]
    assert len(calls) == 1


def module_level_library_imports(module: object) -> list[str]:
    """Library modules ``module`` imports at import time (a thin CLI imports them lazily)."""
    tree = ast.parse(inspect.getsource(module))  # type: ignore[arg-type]
    return [
        n.module
        for n in tree.body
        if isinstance(n, ast.ImportFrom)
        and n.module
        and n.module.startswith("snapshot")
        and not n.module.startswith(_OWN)
    ]
