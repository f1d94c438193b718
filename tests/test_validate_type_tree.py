"""The SDKs' request types as data (``type_tree``) give the SDK types' own verdicts.

On real bodies (every format sample of ``../shared/corpus/formats`` exported to
each SDK-checked shape) and on seeded breakages of them (a key dropped, an unknown
key, a wrong type tag, a wrong scalar), the data's problems equal
``sdk_types.check_value``'s problem for problem. The data must also be the one the
installed SDKs compile to today.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from body_mutations import broken as break_body

from snapshot.transcript.validate import sdk_types, type_tree

REPO = Path(__file__).resolve().parents[1]
_ENV = os.environ.get("SNAPSHOT_CORPUS")
CORPUS = Path(_ENV) if _ENV else REPO.parent / "shared" / "corpus"
SHAPES = tuple(sdk_types.REQUEST_TYPES)
#: Format samples whose exports are checked (small: a few seconds for all of them).
SAMPLES = 8


def _tree() -> type_tree.Tree:
    tree = type_tree.load()
    assert tree is not None, f"{type_tree.DATA} is missing"
    if any(type_tree.current(shape) is None for shape in SHAPES):
        pytest.skip(
            f"the installed SDKs ({type_tree.sdk_versions()}) are not the ones the data was "
            f"written from ({tree['versions']}): run python -m snapshot.transcript.validate.type_tree"
        )
    return tree


def _unordered(node: Any) -> Any:
    """The tree with each literal's values sorted: ``typing`` caches ``Literal["a", "b"]``
    and ``Literal["b", "a"]`` as one object, in whichever order a module made it first."""
    if isinstance(node, dict):
        out = {k: _unordered(v) for k, v in node.items()}
        if out.get("k") == "lit":
            out["v"] = sorted(out["v"], key=repr)
        return out
    if isinstance(node, list):
        return [_unordered(v) for v in node]
    return node


def _messages(problems: list[Any]) -> list[tuple[str, str]]:
    """(where, message) with a literal list's order left out (see :func:`_unordered`)."""
    out = []
    for p in problems:
        head, sep, tail = p.message.partition(" is not one of [")
        if sep:
            tail = "[" + ", ".join(sorted(tail.rstrip("]").split(", "))) + "]"
        out.append((p.where, head + sep + tail))
    return out


def test_the_data_is_what_the_installed_sdks_compile_to() -> None:
    tree = _tree()
    assert _unordered(json.loads(json.dumps(type_tree.build()))) == _unordered(tree)


def _bodies() -> list[tuple[str, str, Any]]:
    from snapshot.errors import SnapshotError
    from snapshot.transcript.export import export
    from snapshot.transcript.formats import import_path
    from snapshot.transcript.validate.corpus import corpus_files

    if not (CORPUS / "formats" / "MANIFEST.json").is_file():
        pytest.skip(f"corpus not found at {CORPUS}: set SNAPSHOT_CORPUS")
    files = [f for f in corpus_files(CORPUS) if "formats" in f.path.parts][:SAMPLES]
    out = []
    for entry in files:
        try:
            convs = import_path(entry.path)
        except SnapshotError:
            continue
        for conv in convs[:1]:
            for shape in SHAPES:
                try:
                    out.append((f"{entry.path.name} {shape}", shape, export(conv, shape).body))
                except SnapshotError:
                    continue
    assert out, "no format sample exported"
    return out


def test_the_data_and_the_sdk_types_find_the_same_problems() -> None:
    tree = _tree()
    rng = random.Random(29)
    checked = broken = 0
    for label, shape, body in _bodies():
        sdk = sdk_types._request_type(shape)
        cases = [body] + [break_body(body, rng) for _ in range(6)]
        for case in cases:
            want = sdk_types.check_value(case, sdk, ())
            assert _messages(type_tree.check(case, tree, shape)) == _messages(want), label
            checked += 1
            broken += bool(want)
    assert broken > 0 and checked > broken  # both verdicts were met


def test_validate_sdk_reports_the_sdk_types_problems(monkeypatch: pytest.MonkeyPatch) -> None:
    _tree()
    body = {"model": "m", "max_tokens": "many", "messages": [{"role": "bot", "content": "x"}]}
    with_data = sdk_types.validate_sdk(body, "anthropic")
    monkeypatch.setattr(type_tree, "current", lambda shape: None)
    assert with_data == sdk_types.validate_sdk(body, "anthropic") != []
