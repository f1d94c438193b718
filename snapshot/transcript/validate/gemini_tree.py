"""``google-genai``'s request types as data: a body they certainly accept, without importing them.

Importing ``google.genai`` builds hundreds of pydantic models (about a second of
CPU), and the report validates a Gemini body per conversation. The fields of the
types a ``generateContent`` body holds are data: :func:`build` writes them
(``python -m snapshot.transcript.validate.gemini_tree``) into
``gemini_request_types.json`` beside this module with the ``google-genai`` and
``pydantic`` versions, and :func:`accepts` says whether a body is one pydantic
certainly accepts: every key a field (by its camelCase alias or its name, once),
every required field present, every value of its field's type (JSON strings for
``str``, canonical base64 for ``bytes``, an enum's values, ...). It never says yes
to a body pydantic refuses; what it cannot vouch for (a model with a validator of
its own, a constrained field, a type it does not model) it leaves to pydantic:
:func:`.gemini_types.validate_gemini` validates every body it does not accept
with the SDK's types, as before (``tests/test_validate_gemini_tree.py``).

>>> accepts({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}, _example())
True
>>> accepts({"contents": [{"role": "user", "parts": [{"text": 7}]}]}, _example())
False
"""

from __future__ import annotations

import base64
import binascii
import enum
import math
import re
import types
import typing
from functools import cache
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

# generateContent's request fields and the SDK type of each (REST camelCase names).
FIELDS = {
    "contents": "list[Content]",
    "systemInstruction": "Content",
    "tools": "list[Tool]",
    "toolConfig": "ToolConfig",
    "generationConfig": "GenerationConfig",
    "safetySettings": "list[SafetySetting]",
    "cachedContent": "str",
}

#: The compiled types, written by ``python -m snapshot.transcript.validate.gemini_tree``.
DATA = Path(__file__).with_name("gemini_request_types.json")
#: The distributions whose code the data stands for.
DISTRIBUTIONS = ("google-genai", "pydantic")
# The validator every google-genai model inherits: it only logs a warning.
_HARMLESS_VALIDATORS = frozenset({"_check_field_type_mismatches"})
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_URLSAFE = re.compile(r"[A-Za-z0-9_-]*={0,2}")

Node = dict[str, Any]
Tree = dict[str, Any]


def _example() -> Tree:
    """A two-model tree for the examples (Content → Part with a text field)."""
    part = {"k": "model", "ref": "Part"}
    return {
        "roots": {"contents": {"k": "list", "item": {"k": "model", "ref": "Content"}}},
        "defs": {
            "Content": {
                "opaque": False,
                "fields": {
                    "role": {"k": "union", "of": [{"k": "str"}, {"k": "none"}]},
                    "parts": {"k": "union", "of": [{"k": "list", "item": part}, {"k": "none"}]},
                },
                "keys": {"role": "role", "parts": "parts"},
                "required": [],
            },
            "Part": {
                "opaque": False,
                "fields": {"text": {"k": "union", "of": [{"k": "str"}, {"k": "none"}]}},
                "keys": {"text": "text"},
                "required": [],
            },
        },
    }


# --- compiling ---------------------------------------------------------------------------


def compile_tree(roots: dict[str, Any]) -> Tree:
    """``{"roots": {key: node}, "defs": {model: {...}}}`` for pydantic types."""
    defs: dict[str, Any] = {}

    def ref_of(model: Any) -> str:
        ref = f"{model.__module__}.{model.__qualname__}"
        if ref in defs:
            return ref
        defs[ref] = None  # reserved first: recursive models refer to themselves
        decorators = model.__pydantic_decorators__
        own = {
            name
            for kind in ("validators", "field_validators", "root_validators", "model_validators")
            for name in getattr(decorators, kind, {})
        } | set(getattr(decorators, "field_serializers", {}))
        config = model.model_config
        fields: dict[str, Node] = {}
        keys: dict[str, str] = {}
        required: list[str] = []
        opaque = bool(own - _HARMLESS_VALIDATORS) or config.get("extra") != "forbid"
        for name, info in model.model_fields.items():
            moved = info.validation_alias not in (None, info.alias)  # AliasChoices, AliasPath
            if info.metadata or info.discriminator is not None or moved:
                opaque = True
            fields[name] = node(info.annotation)
            keys[name] = name if config.get("populate_by_name") else ""
            if info.alias:
                keys[info.alias] = name
            if info.is_required():
                required.append(name)
        defs[ref] = {
            "opaque": opaque,
            "fields": fields,
            "keys": {k: v for k, v in keys.items() if v},
            "required": sorted(required),
        }
        return ref

    def node(tp: Any) -> Node:
        origin, args = get_origin(tp), get_args(tp)
        if tp is Any:
            return {"k": "any"}
        if tp is None or tp is type(None):
            return {"k": "none"}
        if origin is typing.Annotated:
            return {"k": "opaque"}  # constraints or validators in the annotation
        if origin is Union or origin is types.UnionType:
            return {"k": "union", "of": [node(a) for a in args]}
        if origin is Literal:
            ok = all(isinstance(v, str | int | bool) or v is None for v in args)
            return {"k": "lit", "v": list(args)} if ok else {"k": "opaque"}
        if origin is list:
            return {"k": "list", "item": node(args[0])} if args else {"k": "opaque"}
        if origin is dict:
            return {"k": "dict", "value": node(args[1])} if args else {"k": "opaque"}
        for scalar in (str, bool, int, float):
            if tp is scalar:
                return {"k": scalar.__name__}
        if tp is bytes:
            return {"k": "base64"}
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            values = [m.value for m in tp]
            if all(isinstance(v, str) for v in values):
                return {"k": "enum", "v": values}
            return {"k": "opaque"}
        if isinstance(tp, type) and hasattr(tp, "model_fields"):
            return {"k": "model", "ref": ref_of(tp)}
        return {"k": "opaque"}

    return {"roots": {key: node(tp) for key, tp in roots.items()}, "defs": defs}


def versions() -> dict[str, str | None]:
    """The installed version of each distribution the data stands for (None: absent)."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for dist in DISTRIBUTIONS:
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = None
    return out


def build() -> Tree:
    """The ``generateContent`` fields' types, compiled from the installed ``google-genai``."""
    from google.genai import types as genai

    roots: dict[str, Any] = {}
    for key, spec in FIELDS.items():
        name = spec.removeprefix("list[").removesuffix("]")
        tp: Any = str if name == "str" else getattr(genai, name)
        roots[key] = list[tp] if spec.startswith("list[") else tp
    return {**compile_tree(roots), "versions": versions()}


def write(path: Path = DATA) -> Path:
    """Compile the installed types into ``path``."""
    from snapshot.transcript.validate.type_tree import save

    return save(build(), path)


# --- checking ----------------------------------------------------------------------------


@cache
def current() -> Tree | None:
    """The compiled types when they were written from the installed versions, else None."""
    from snapshot.transcript.validate.type_tree import load

    tree = load(DATA)
    if tree is None:
        return None
    installed = versions()
    if None in installed.values() or tree.get("versions") != installed:
        return None
    return tree


def accepts(body: Any, tree: Tree) -> bool:
    """True only when pydantic certainly accepts ``body`` as a ``generateContent`` body."""
    roots = tree["roots"]
    if not isinstance(body, dict) or "contents" not in body:
        return False
    walker = _Walker(tree["defs"])
    return all(key in roots and walker.value(v, roots[key]) for key, v in body.items())


class _Walker:
    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs

    def value(self, value: Any, node: Node) -> bool:
        k = node["k"]
        if k == "any":
            return True
        if k == "none":
            return value is None
        if k == "union":
            return any(self.value(value, o) for o in node["of"])
        if k == "str":
            return isinstance(value, str)
        if k == "bool":
            return isinstance(value, bool)
        if k == "int":
            return isinstance(value, int) and not isinstance(value, bool)
        if k == "float":
            if isinstance(value, bool) or not isinstance(value, int | float):
                return False
            return math.isfinite(value)
        if k == "base64":
            return isinstance(value, str) and _canonical_base64(value)
        if k in ("lit", "enum"):
            return any(type(value) is type(v) and value == v for v in node["v"])
        if k == "list":
            return isinstance(value, list) and all(self.value(v, node["item"]) for v in value)
        if k == "dict":
            return isinstance(value, dict) and all(
                self.value(v, node["value"]) for v in value.values()
            )
        if k == "model":
            return self.model(value, self.defs[node["ref"]])
        return False  # opaque: pydantic decides

    def model(self, value: Any, model: dict[str, Any]) -> bool:
        if model["opaque"] or not isinstance(value, dict):
            return False
        keys, fields = model["keys"], model["fields"]
        named = [keys.get(key) for key in value]
        if None in named or len(set(named)) != len(named):
            return False  # an unknown key, or one field given twice
        if not set(model["required"]) <= set(named):
            return False
        return all(self.value(v, fields[keys[key]]) for key, v in value.items())


def _canonical_base64(text: str) -> bool:
    """Padded base64, standard or URL-safe alphabet, that re-encodes to itself (pydantic
    reads both; Google's documented ``skip_thought_signature_validator`` is URL-safe)."""
    if len(text) % 4:
        return False
    for pattern, encode, decode in (
        (_BASE64, base64.b64encode, base64.b64decode),
        (_URLSAFE, base64.urlsafe_b64encode, base64.urlsafe_b64decode),
    ):
        if pattern.fullmatch(text):
            try:
                if encode(decode(text)).decode() == text:
                    return True
            except (binascii.Error, ValueError):
                continue
    return False


if __name__ == "__main__":
    print(f"wrote {write()}")
