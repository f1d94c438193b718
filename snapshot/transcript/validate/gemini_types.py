"""Gemini ``generateContent`` bodies against ``google-genai``'s pydantic types.

Each top-level field is validated from JSON (so ``thoughtSignature`` and
``inlineData.data`` are read as base64, as the API reads them) by the type the
SDK gives it; the SDK's models forbid extra fields, so an unknown key is an
error, and a top-level key that is no field of the request is one too.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from snapshot.transcript.validate.gemini_tree import FIELDS
from snapshot.transcript.validate.problems import Problem, json_path

SOURCE = "google-genai types"


@cache
def _adapter(spec: str) -> Any:
    from google.genai import types
    from pydantic import TypeAdapter

    name = spec.removeprefix("list[").removesuffix("]")
    tp: Any = str if name == "str" else getattr(types, name)
    return TypeAdapter(list[tp] if spec.startswith("list[") else tp)


def validate_gemini(body: Any) -> list[Problem]:
    """Problems ``google-genai``'s types find in a Gemini request body."""
    from snapshot.transcript.validate import gemini_tree

    tree = gemini_tree.current()
    if tree is not None and gemini_tree.accepts(body, tree):
        return []  # the types as data vouch for it: no import of google-genai
    from pydantic import ValidationError

    if not isinstance(body, dict):
        return [Problem("(body)", "schema", "a request body is a JSON object", SOURCE)]
    problems: list[Problem] = []
    if "contents" not in body:
        problems.append(Problem("(body)", "schema", "'contents' is required", SOURCE))
    for key, value in body.items():
        spec = FIELDS.get(key)
        if spec is None:
            problems.append(Problem(key, "schema", f"generateContent has no field {key!r}", SOURCE))
            continue
        try:
            _adapter(spec).validate_json(json.dumps(value))
        except ValidationError as exc:
            for err in exc.errors():
                loc = [key, *(p for p in err["loc"] if not _is_type_tag(p))]
                problems.append(
                    Problem(json_path(loc), "schema", str(err["msg"]), f"{SOURCE} {spec}")
                )
    return problems


def _is_type_tag(part: Any) -> bool:
    # pydantic puts union branch names ("function-after[...]") into locations.
    return isinstance(part, str) and ("[" in part or part.startswith("function-"))
