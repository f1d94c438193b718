"""Every name in ``snapshot.__all__`` has a worked example that CI runs as a doctest.

A name's own docstring must hold a ``>>>`` example, found by the doctest finder
in the module that defines it (what ``pytest --doctest-modules snapshot`` runs;
an example in a re-exporting module's docstring would never run). A plain value
(``__version__``) has no docstring of its own: its example is in the package's.
The examples themselves run in CI's ``--doctest-modules`` pass, not here.
"""

from __future__ import annotations

import doctest
import importlib
import inspect

import pytest

import snapshot


def _is_plain_value(value: object) -> bool:
    return not (inspect.isclass(value) or inspect.isroutine(value) or inspect.ismodule(value))


def _collected_examples(value: object) -> list[doctest.Example]:
    """The examples ``--doctest-modules`` collects from ``value``'s own docstring."""
    module = importlib.import_module(value.__module__)
    name = f"{module.__name__}.{value.__qualname__}"  # type: ignore[attr-defined]
    tests = doctest.DocTestFinder(recurse=True).find(module)
    return [e for t in tests if t.name == name for e in t.examples]


def missing_example(name: str, value: object) -> str | None:
    """Why ``value`` (exported as ``name``) has no worked example CI runs; None when it has."""
    if _is_plain_value(value):
        package = doctest.DocTestFinder(recurse=False).find(snapshot)[0]
        if any(name in e.source for e in package.examples):
            return None
        return f"snapshot.{name} is a value: the package docstring needs a >>> example using it"
    own = value.__doc__ or ""  # a class's own docstring (a dataclass's generated one has no >>>)
    if ">>>" not in own:
        return f"snapshot.{name} needs a docstring with a worked (>>>) example"
    if not _collected_examples(value):
        where = value.__module__
        return f"snapshot.{name}: its example is not collected by --doctest-modules in {where}"
    return None


@pytest.mark.parametrize("name", snapshot.__all__)
def test_public_name_has_a_worked_example(name: str) -> None:
    assert missing_example(name, getattr(snapshot, name)) is None


def _bare() -> None:
    """A docstring without an example."""


def _shown() -> None:
    """A docstring with one.

    >>> 1 + 1
    2
    """


def test_the_check_names_what_is_missing() -> None:
    assert (
        missing_example("_bare", _bare)
        == "snapshot._bare needs a docstring with a worked (>>>) example"
    )
    assert missing_example("_shown", _shown) is None
    assert "package docstring" in (missing_example("not_shown", "0.1") or "")
