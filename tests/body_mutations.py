"""Seeded breakages of a JSON request body, for checking a fast validator against a slow one."""

from __future__ import annotations

import copy
import random
from typing import Any


def places(body: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every JSON path in ``body`` (objects' keys and arrays' items).

    >>> places({"a": [1]})
    [(), ('a',), ('a', 0)]
    """
    out = [path]
    items: Any = ()
    if isinstance(body, dict):
        items = body.items()
    elif isinstance(body, list):
        items = enumerate(body)
    for key, value in items:
        out += places(value, (*path, key))
    return out


def broken(body: Any, rng: random.Random) -> Any:
    """``body`` with one seeded breakage at a random place: a key dropped, an unknown
    key, a wrong type tag, a wrong scalar, a null, a value wrapped in a list, or a
    string made into one no decoder or enum reads.

    >>> broken({"a": 1}, random.Random(0)) != {"a": 1}
    True
    """
    body = copy.deepcopy(body)
    place = rng.choice(places(body)[1:] or [()])
    if not place:
        return {**body, "no_such_field": 1}
    parent: Any = body
    for key in place[:-1]:
        parent = parent[key]
    key = place[-1]
    kind = rng.randrange(7)
    if kind == 0 and isinstance(parent, dict):
        del parent[key]
    elif kind == 1 and isinstance(parent[key], dict):
        parent[key]["no_such_field"] = "x"
    elif kind == 2 and isinstance(parent[key], dict):
        parent[key]["type"] = "no_such_type"
    elif kind == 3:
        parent[key] = 7
    elif kind == 4:
        parent[key] = None
    elif kind == 5 and isinstance(parent[key], str):
        parent[key] = parent[key] + "!="
    else:
        parent[key] = [parent[key]]
    return body
