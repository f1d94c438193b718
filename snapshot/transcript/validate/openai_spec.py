"""OpenAI request bodies against OpenAI's published OpenAPI spec, with ``jsonschema``.

The spec is read from where it lies (``$SNAPSHOT_OPENAI_SPEC``, or
``shared/specs/openai-openapi/openapi.json`` beside the repository or the
working directory); it is never copied into the project. Its ``oneOf``
unions overlap (a plain message matches several of them), so they are
checked with ``anyOf`` semantics: a value is valid when one branch accepts it.

>>> _any_of({"oneOf": [{"type": "string"}, {"type": "null"}]})
{'anyOf': [{'type': 'string'}, {'type': 'null'}]}
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

from snapshot.errors import SnapshotError
from snapshot.transcript.validate.problems import Problem, json_path

SPEC_ENV = "SNAPSHOT_OPENAI_SPEC"
SPEC_RELATIVE = Path("shared") / "specs" / "openai-openapi" / "openapi.json"
SOURCE = "OpenAI OpenAPI spec"

# The request schema of each body shape.
REQUEST_SCHEMAS = {
    "openai": "CreateChatCompletionRequest",
    "openai-responses": "CreateResponse",
}


# Properties whose value names an object's variant in the spec's unions.
_DISCRIMINATORS = ("type", "role")


class SchemaUnavailable(SnapshotError):
    """A published schema the validator needs is not on this machine."""


def spec_path() -> Path:
    """Where OpenAI's OpenAPI spec lies; :class:`SchemaUnavailable` when it is nowhere.

    Raises
    ------
    SchemaUnavailable
        Neither ``$SNAPSHOT_OPENAI_SPEC`` nor ``shared/specs/openai-openapi/openapi.json``
        in a parent of the working directory or of this package exists.
    """
    env = os.environ.get(SPEC_ENV)
    if env:
        p = Path(env)
        if p.is_file():
            return p
        raise SchemaUnavailable(f"${SPEC_ENV}={env}: no such file (point it at openapi.json)")
    here = Path(__file__).resolve()
    for base in (Path.cwd().resolve(), here):
        for parent in (base, *base.parents):
            candidate = parent / SPEC_RELATIVE
            if candidate.is_file():
                return candidate
    raise SchemaUnavailable(
        "OpenAI's OpenAPI spec was not found: set $SNAPSHOT_OPENAI_SPEC to openapi.json "
        "(github.com/openai/openai-openapi) or put it at ../shared/specs/openai-openapi/"
    )


def _any_of(node: Any) -> Any:
    """The spec with every ``oneOf`` read as ``anyOf``."""
    if isinstance(node, dict):
        return {("anyOf" if k == "oneOf" else k): _any_of(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_any_of(v) for v in node]
    return node


@cache
def _components() -> dict[str, Any]:
    spec = json.loads(spec_path().read_text(encoding="utf-8"))
    components: dict[str, Any] = _any_of(spec["components"])
    return components


def _type_tags(
    schema: Any, schemas: dict[str, Any], key: str = "type", depth: int = 0
) -> frozenset[str] | None:
    """The values of property ``key`` a (sub)schema admits, or None when it does not say."""
    if not isinstance(schema, dict) or depth > 8:
        return None
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        return _type_tags(schemas.get(ref.rsplit("/", 1)[1]), schemas, key, depth + 1)
    tag = (schema.get("properties") or {}).get(key)
    if isinstance(tag, dict):
        if isinstance(tag.get("enum"), list):
            return frozenset(str(v) for v in tag["enum"])
        if "const" in tag:
            return frozenset({str(tag["const"])})
    tags: set[str] = set()
    for part in schema.get("allOf") or []:
        found = _type_tags(part, schemas, key, depth + 1)
        if found is not None:
            return found
    for part in schema.get("anyOf") or []:
        found = _type_tags(part, schemas, key, depth + 1)
        if found is None:
            return None
        tags |= found
    return frozenset(tags) if tags else None


@cache
def _validator(schema_name: str) -> Any:
    from jsonschema import Draft202012Validator, ValidationError
    from jsonschema.validators import extend

    components = _components()
    schemas = components.get("schemas", {})
    tags_of: dict[tuple[int, str], frozenset[str] | None] = {}

    def admits(branch: Any, instance: dict[str, Any]) -> bool:
        for key in _DISCRIMINATORS:
            value = instance.get(key)
            if not isinstance(value, str):
                continue
            slot = (id(branch), key)
            if slot not in tags_of:
                tags_of[slot] = _type_tags(branch, schemas, key)
            tags = tags_of[slot]
            if tags is not None and value not in tags:
                return False
        return True

    def any_of(validator: Any, branches: Any, instance: Any, schema: Any) -> Any:
        # Same verdict as anyOf, faster: a branch whose "type" (or "role") tag excludes
        # the object's own would fail anyway (the spec's discriminators), so it is not tried.
        errors: list[Any] = []
        tried = 0
        for index, branch in enumerate(branches):
            if isinstance(instance, dict) and not admits(branch, instance):
                continue
            tried += 1
            found = list(validator.descend(instance, branch, schema_path=index))
            if not found:
                return
            errors.extend(found)
        if not tried:
            kind = {k: instance.get(k) for k in _DISCRIMINATORS if k in instance}
            yield ValidationError(f"no variant here admits {kind}")
            return
        yield ValidationError(
            f"{instance!r:.200} is not valid under any of the given schemas", context=errors
        )

    cls = extend(Draft202012Validator, {"anyOf": any_of})
    root = {"$ref": f"#/components/schemas/{schema_name}", "components": components}
    return cls(root)


def _wrong_type_tag(error: Any) -> bool:
    """A branch refused for its ``type`` tag: the body did not mean that branch."""
    path = list(error.absolute_path)
    return bool(path) and path[-1] == "type" and error.validator in ("enum", "const")


def _deepest(error: Any) -> Any:
    """The most specific reason inside an ``anyOf`` failure.

    The branch that got furthest into the value (its errors lie deepest) is the
    one the body meant; a branch that failed at the top (wrong type) did not.
    """
    while error.context:
        branches: dict[Any, list[Any]] = {}
        for e in error.context:
            branches.setdefault(e.schema_path[0] if e.schema_path else None, []).append(e)
        group = max(
            branches.values(),
            key=lambda errs: (
                not any(_wrong_type_tag(e) for e in errs),
                max(len(e.absolute_path) for e in errs),
                -len(errs),
            ),
        )
        error = max(group, key=lambda e: len(e.absolute_path))
    return error


def validate_openai(body: Any, shape: str) -> list[Problem]:
    """Problems the OpenAPI spec finds in an ``openai`` or ``openai-responses`` body.

    Raises
    ------
    SchemaUnavailable
        The spec is not on this machine.
    """
    validator = _validator(REQUEST_SCHEMAS[shape])
    problems: list[Problem] = []
    for error in validator.iter_errors(body):
        inner = _deepest(error)
        where = json_path(list(inner.absolute_path))
        message = inner.message
        if len(message) > 300:
            message = message[:300] + "…"
        problems.append(Problem(where, "schema", message, f"{SOURCE} {REQUEST_SCHEMAS[shape]}"))
    return problems
