"""Request bodies against the provider SDKs' request TypedDicts.

Anthropic Messages bodies against ``anthropic``'s ``MessageCreateParamsNonStreaming``,
OpenAI chat and Responses bodies against ``openai``'s ``CompletionCreateParams`` /
``ResponseCreateParams`` (beside OpenAI's OpenAPI spec). The SDKs' pydantic path
validates ``Iterable`` fields lazily, so nothing under ``messages`` would be
checked; this module walks the TypedDicts itself: required keys, unknown keys
(the APIs refuse them), literals, unions (the branch whose ``type`` or ``role``
literal matches is the one reported), lists and scalars.

>>> from typing import Literal
>>> check_value({"a": 1}, dict[str, int], ("x",))
[]
>>> [p.message for p in check_value("b", Literal["a"], ("x",))]
["'b' is not one of ['a']"]
"""

from __future__ import annotations

import collections.abc
import importlib
import os
import types
import typing
from dataclasses import replace
from functools import cache
from typing import Any, Literal, Union, get_args, get_origin

from snapshot.transcript.validate.problems import Problem, json_path
from snapshot.transcript.validate.typeddicts import (
    REQUEST_TYPES,
    is_typeddict,
    type_name,
    typeddict_fields,
    unwrap,
)

# Keys whose literal value names an object's variant in a union.
_DISCRIMINATORS = ("type", "role")


def _literals(td: Any, key: str) -> tuple[Any, ...]:
    """The literal values a TypedDict's ``key`` field admits (empty when not a literal)."""
    if not is_typeddict(td):
        return ()
    fields, _ = typeddict_fields(td)
    tp = fields.get(key)
    if tp is not None and get_origin(tp) is Literal:
        return get_args(tp)
    return ()


def _check_typeddict(value: Any, td: type, path: tuple[str | int, ...]) -> list[Problem]:
    if not isinstance(value, dict):
        return [_problem(path, f"expected an object ({type_name(td)}), got {type(value).__name__}")]
    fields, required = typeddict_fields(td)
    problems = [
        _problem(path, f"{key!r} is a required property of {type_name(td)}")
        for key in sorted(required - value.keys())
    ]
    for key, item in value.items():
        if key not in fields:
            problems.append(_problem((*path, key), f"{type_name(td)} has no field {key!r}"))
            continue
        problems.extend(check_value(item, fields[key], (*path, key)))
    return problems


def _flatten(options: tuple[Any, ...]) -> tuple[Any, ...]:
    """Union members, nested unions spread out; the SDK's response models dropped (a JSON
    body is checked against the request TypedDicts beside them)."""
    out: list[Any] = []
    for option in options:
        inner, _ = unwrap(option)
        if get_origin(inner) is Union or get_origin(inner) is types.UnionType:
            out.extend(_flatten(get_args(inner)))
        elif not (isinstance(inner, type) and hasattr(inner, "model_fields")):
            out.append(inner)
    return tuple(out)


def _check_union(
    value: Any, options: tuple[Any, ...], path: tuple[str | int, ...]
) -> list[Problem]:
    options = _flatten(options) or options
    for key in _DISCRIMINATORS:
        kind = value.get(key) if isinstance(value, dict) else None
        if not isinstance(kind, str):
            continue
        # Discriminated: the branch the object's own tag names is the one that counts.
        tags = [_literals(unwrap(o)[0], key) for o in options]
        if not any(tags):
            continue
        named = tuple(o for o, t in zip(options, tags, strict=True) if kind in t)
        untagged = tuple(o for o, t in zip(options, tags, strict=True) if not t)
        if not named and not untagged:
            kinds = sorted({str(v) for t in tags for v in t})
            return [_problem((*path, key), f"{kind!r} is not one of {kinds}")]
        if named and untagged:
            # The tagged branch is the one meant, but an untagged one (Anthropic's tool
            # ``input_schema`` is its typed form or any object) may still accept it.
            found = _check_union(value, named, path)
            if found and any(not check_value(value, o, path) for o in untagged):
                return []
            return found
        options = named or untagged
        if len(options) == 1:
            return check_value(value, options[0], path)
    # Otherwise report the branch whose shape fits (its problems lie deeper than here).
    here = json_path(path)
    best: list[Problem] | None = None
    best_rank: tuple[bool, int] = (False, 0)
    for option in options:
        problems = check_value(value, option, path)
        if not problems:
            return []
        rank = (any(p.where != here for p in problems), -len(problems))
        if best is None or rank > best_rank:
            best, best_rank = problems, rank
    return best or [_problem(path, "matches no allowed type")]


def check_value(value: Any, tp: Any, path: tuple[str | int, ...]) -> list[Problem]:
    """Problems with ``value`` as an instance of the annotation ``tp``."""
    tp, _ = unwrap(tp)
    if tp is Any or tp is object:
        return []
    if tp is None or tp is type(None):
        return [] if value is None else [_problem(path, f"expected null, got {value!r:.60}")]
    if is_typeddict(tp):
        return _check_typeddict(value, tp, path)
    origin = get_origin(tp)
    args = get_args(tp)
    if origin is Literal:
        return (
            [] if value in args else [_problem(path, f"{value!r:.60} is not one of {list(args)}")]
        )
    if origin is Union or origin is types.UnionType:
        return _check_union(value, args, path)
    if origin in (list, collections.abc.Iterable, collections.abc.Sequence, tuple):
        if not isinstance(value, list):
            return [_problem(path, f"expected an array, got {type(value).__name__}")]
        item = args[0] if args else Any
        return [p for i, v in enumerate(value) for p in check_value(v, item, (*path, i))]
    if origin in (dict, collections.abc.Mapping):
        if not isinstance(value, dict):
            return [_problem(path, f"expected an object, got {type(value).__name__}")]
        return []
    if tp is str:
        return [] if isinstance(value, str) else [_problem(path, "expected a string")]
    if tp is bool:
        return [] if isinstance(value, bool) else [_problem(path, "expected a boolean")]
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [_problem(path, "expected an integer")]
    if tp is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [_problem(path, "expected a number")]
    if tp is os.PathLike or origin is typing.IO or tp is typing.IO:
        return [_problem(path, f"a JSON body cannot carry a {type_name(tp)}")]
    if isinstance(tp, type) and hasattr(tp, "model_fields"):
        # The SDK's response models are accepted in Python, but a JSON body is
        # checked against the request TypedDicts beside them.
        return [_problem(path, f"{type_name(tp)} is a response type, not a request type")]
    return [_problem(path, f"no JSON form of {type_name(tp)} to check against")]


def _problem(path: tuple[str | int, ...], message: str) -> Problem:
    return Problem(json_path(path), "schema", message, "SDK request types")


@cache
def _request_type(shape: str) -> type:
    module, name = REQUEST_TYPES[shape]
    found: type = getattr(importlib.import_module(module), name)
    return found


def source_of(shape: str) -> str:
    """``"anthropic SDK MessageCreateParamsNonStreaming"``: whose types checked a shape."""
    module, name = REQUEST_TYPES[shape]
    return f"{module.split('.')[0]} SDK {name}"


def validate_sdk(body: Any, shape: str) -> list[Problem]:
    """Problems the provider SDK's request TypedDicts find in a ``shape`` body.

    Raises
    ------
    ImportError
        The provider's SDK is not installed (``pip install 'snapshot[validate]'``).
    """
    from snapshot.transcript.validate import type_tree

    source = source_of(shape)
    tree = type_tree.current(shape)
    # The SDK's types as data give the verdict without importing the SDK; a body they
    # find a problem in is checked by the SDK's own types, whose problems are reported.
    if tree is not None and not type_tree.check(body, tree, shape):
        return []
    return [replace(p, source=source) for p in check_value(body, _request_type(shape), ())]
