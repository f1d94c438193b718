"""The SDKs' request TypedDicts as data: the same check as :mod:`.sdk_types` without the import.

Importing ``anthropic`` or ``openai`` to reach their request TypedDicts costs
seconds of CPU (each SDK builds hundreds of pydantic models on import), and the
report validates a body per conversation. The types themselves are data: this
module writes them once (:func:`compile_tree`, ``python -m
snapshot.transcript.validate.type_tree``) into
``sdk_request_types.json`` beside it, with each SDK's version, and
:func:`check` walks that data with the rules of :func:`.sdk_types.check_value`,
message for message.

:func:`.sdk_types.validate_sdk` uses the data only while the installed SDK is
the version it was written from, and only for its verdict: a body the data finds
a problem in is checked again by the SDK's own types, whose problems are the
ones reported (``tests/test_validate_type_tree.py`` checks both agree on real
and broken bodies).

>>> from typing import Literal, TypedDict
>>> class Msg(TypedDict):
...     role: Literal["user"]
...     content: str
>>> tree = compile_tree({"m": Msg})
>>> check({"role": "user", "content": "hi"}, tree, "m")
[]
>>> [p.message for p in check({"role": "bot"}, tree, "m")]
["'content' is a required property of Msg", "'bot' is not one of ['user']"]
"""

from __future__ import annotations

import collections.abc
import importlib
import json
import os
import types
import typing
from functools import cache
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from snapshot.transcript.validate.problems import Problem, json_path
from snapshot.transcript.validate.typeddicts import (
    REQUEST_TYPES,
    is_typeddict,
    type_name,
    typeddict_fields,
    unwrap,
)

#: The compiled request types, written by ``python -m snapshot.transcript.validate.type_tree``.
DATA = Path(__file__).with_name("sdk_request_types.json")

Node = dict[str, Any]
Tree = dict[str, Any]  # {"roots": {shape: node}, "defs": {ref: typeddict}, "versions": {...}}

_DISCRIMINATORS = ("type", "role")


# --- compiling: the SDK's types to data -------------------------------------------------


def compile_tree(roots: dict[str, Any]) -> Tree:
    """``{"roots": {name: node}, "defs": {ref: {"name", "fields", "required"}}}`` for types."""
    defs: dict[str, Any] = {}

    def ref_of(td: type) -> str:
        ref = f"{td.__module__}.{td.__qualname__}"
        if ref not in defs:
            defs[ref] = None  # reserved first: recursive TypedDicts refer to themselves
            fields, required = typeddict_fields(td)
            defs[ref] = {
                "name": type_name(td),
                "fields": {k: node(v) for k, v in fields.items()},
                "required": sorted(required),
            }
        return ref

    def node(tp: Any) -> Node:
        tp, _ = unwrap(tp)
        if tp is Any or tp is object:
            return {"k": "any"}
        if tp is None or tp is type(None):
            return {"k": "none"}
        if is_typeddict(tp):
            return {"k": "td", "ref": ref_of(tp)}
        origin, args = get_origin(tp), get_args(tp)
        if origin is Literal:
            if not all(v is None or isinstance(v, str | int | bool) for v in args):
                raise TypeError(f"a literal JSON cannot hold: {tp}")
            return {"k": "lit", "v": list(args)}
        if origin is Union or origin is types.UnionType:
            return {"k": "union", "of": [node(a) for a in args]}
        if origin in (list, collections.abc.Iterable, collections.abc.Sequence, tuple):
            return {"k": "list", "item": node(args[0]) if args else {"k": "any"}}
        if origin in (dict, collections.abc.Mapping):
            return {"k": "map"}
        for scalar in (str, bool, int, float):
            if tp is scalar:
                return {"k": scalar.__name__}
        if tp is os.PathLike or origin is typing.IO or tp is typing.IO:
            return {"k": "io", "name": type_name(tp)}
        if isinstance(tp, type) and hasattr(tp, "model_fields"):
            return {"k": "model", "name": type_name(tp)}
        return {"k": "unknown", "name": type_name(tp)}

    return {"roots": {name: node(tp) for name, tp in roots.items()}, "defs": defs}


def sdk_versions() -> dict[str, str | None]:
    """The installed version of each SDK whose types the data holds (None: not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for module, _ in REQUEST_TYPES.values():
        dist = module.split(".")[0]
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = None
    return out


def build() -> Tree:
    """Every shape's request TypedDict, compiled from the installed SDKs."""
    roots = {
        shape: getattr(importlib.import_module(module), name)
        for shape, (module, name) in REQUEST_TYPES.items()
    }
    return {**compile_tree(roots), "versions": sdk_versions()}


def save(tree: Tree, path: Path) -> Path:
    """Write compiled types to ``path`` as sorted, stable JSON (one line)."""
    text = json.dumps(tree, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def write(path: Path = DATA) -> Path:
    """Compile the installed SDKs' request types into ``path``."""
    return save(build(), path)


# --- checking: a body against the data ---------------------------------------------------


@cache
def load(path: Path = DATA) -> Tree | None:
    """The compiled types, or None when the file is absent or unreadable."""
    try:
        data: Tree = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data


@cache
def current(shape: str) -> Tree | None:
    """The compiled types for ``shape`` when they were written from the installed SDK."""
    tree = load()
    if tree is None or shape not in tree.get("roots", {}):
        return None
    dist = REQUEST_TYPES[shape][0].split(".")[0]
    installed = sdk_versions().get(dist)
    if installed is None or tree.get("versions", {}).get(dist) != installed:
        return None
    return tree


def check(body: Any, tree: Tree, root: str) -> list[Problem]:
    """Problems with ``body`` as the root type ``root`` of ``tree`` (as ``check_value`` says)."""
    return _Walker(tree["defs"]).value(body, tree["roots"][root], ())


class _Walker:
    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs

    def value(self, value: Any, node: Node, path: tuple[str | int, ...]) -> list[Problem]:
        k = node["k"]
        if k == "any":
            return []
        if k == "none":
            return [] if value is None else [_problem(path, f"expected null, got {value!r:.60}")]
        if k == "td":
            return self.typeddict(value, self.defs[node["ref"]], path)
        if k == "lit":
            args = node["v"]
            ok = any(_same_literal(value, a) for a in args)
            return [] if ok else [_problem(path, f"{value!r:.60} is not one of {args}")]
        if k == "union":
            return self.union(value, node["of"], path)
        if k == "list":
            if not isinstance(value, list):
                return [_problem(path, f"expected an array, got {type(value).__name__}")]
            item = node["item"]
            return [p for i, v in enumerate(value) for p in self.value(v, item, (*path, i))]
        if k == "map":
            if not isinstance(value, dict):
                return [_problem(path, f"expected an object, got {type(value).__name__}")]
            return []
        if k == "str":
            return [] if isinstance(value, str) else [_problem(path, "expected a string")]
        if k == "bool":
            return [] if isinstance(value, bool) else [_problem(path, "expected a boolean")]
        if k == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
            return [] if ok else [_problem(path, "expected an integer")]
        if k == "float":
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            return [] if ok else [_problem(path, "expected a number")]
        if k == "io":
            return [_problem(path, f"a JSON body cannot carry a {node['name']}")]
        if k == "model":
            return [_problem(path, f"{node['name']} is a response type, not a request type")]
        return [_problem(path, f"no JSON form of {node['name']} to check against")]

    def typeddict(
        self, value: Any, td: dict[str, Any], path: tuple[str | int, ...]
    ) -> list[Problem]:
        name = td["name"]
        if not isinstance(value, dict):
            return [_problem(path, f"expected an object ({name}), got {type(value).__name__}")]
        fields = td["fields"]
        problems = [
            _problem(path, f"{key!r} is a required property of {name}")
            for key in sorted(set(td["required"]) - value.keys())
        ]
        for key, item in value.items():
            if key not in fields:
                problems.append(_problem((*path, key), f"{name} has no field {key!r}"))
                continue
            problems.extend(self.value(item, fields[key], (*path, key)))
        return problems

    def literals(self, node: Node, key: str) -> list[Any]:
        if node["k"] != "td":
            return []
        field = self.defs[node["ref"]]["fields"].get(key)
        return field["v"] if field is not None and field["k"] == "lit" else []

    def flatten(self, options: list[Node]) -> list[Node]:
        out: list[Node] = []
        for option in options:
            if option["k"] == "union":
                out.extend(self.flatten(option["of"]))
            elif option["k"] != "model":
                out.append(option)
        return out

    def union(self, value: Any, options: list[Node], path: tuple[str | int, ...]) -> list[Problem]:
        options = self.flatten(options) or options
        for key in _DISCRIMINATORS:
            kind = value.get(key) if isinstance(value, dict) else None
            if not isinstance(kind, str):
                continue
            tags = [self.literals(o, key) for o in options]
            if not any(tags):
                continue
            named = [o for o, t in zip(options, tags, strict=True) if kind in t]
            untagged = [o for o, t in zip(options, tags, strict=True) if not t]
            if not named and not untagged:
                kinds = sorted({str(v) for t in tags for v in t})
                return [_problem((*path, key), f"{kind!r} is not one of {kinds}")]
            if named and untagged:  # as sdk_types._check_union
                found = self.union(value, named, path)
                if found and any(not self.value(value, o, path) for o in untagged):
                    return []
                return found
            options = named or untagged
            if len(options) == 1:
                return self.value(value, options[0], path)
        here = json_path(path)
        best: list[Problem] | None = None
        best_rank: tuple[bool, int] = (False, 0)
        for option in options:
            problems = self.value(value, option, path)
            if not problems:
                return []
            rank = (any(p.where != here for p in problems), -len(problems))
            if best is None or rank > best_rank:
                best, best_rank = problems, rank
        return best or [_problem(path, "matches no allowed type")]


def _same_literal(value: Any, literal: Any) -> bool:
    # ``value in args`` of a typing.Literal: Python equality (True == 1) and hashing alike.
    return bool(value == literal)


def _problem(path: tuple[str | int, ...], message: str) -> Problem:
    return Problem(json_path(path), "schema", message, "SDK request types")


if __name__ == "__main__":
    print(f"wrote {write()}")
