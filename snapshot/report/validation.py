"""The report's validation count: every request body it stands for, checked as a provider would.

Two kinds of body are validated (:mod:`snapshot.transcript.validate`: the
providers' published schema and SDK types, and the rules no schema holds):

- each source conversation exported to every shape (``anthropic``, ``openai``,
  ``openai-responses``, ``gemini``), once per conversation;
- each ladder result, as the request its profile's API takes; and whether the
  ladder answered any call with a synthetic result where the source had a real one.

>>> from snapshot.transcript.model import linear, TextBlock
>>> conv = linear("c", [("u", "user", [TextBlock("hi")]), ("a", "assistant", [TextBlock("yo")])])
>>> sorted(source_validation(conv))
['bodies', 'failures', 'problems']
>>> source_validation(conv)["problems"]
0
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from snapshot.errors import SnapshotError
from snapshot.transcript.model import Conversation

# How many problem lines a count keeps (the count itself is complete).
_KEEP = 5


def source_validation(conv: Conversation) -> dict[str, Any]:
    """The conversation exported to every shape and validated: bodies, problems, first failures."""
    from snapshot.transcript.export import export
    from snapshot.transcript.validate import SHAPES, validate

    bodies = problems = 0
    failures: list[str] = []
    for shape in SHAPES:
        try:
            body = export(conv, shape).body
        except SnapshotError as exc:
            failures.append(f"{shape}: not exported: {exc}")
            continue
        found = validate(body, shape).problems
        bodies += 1
        problems += len(found)
        failures += [f"{shape}: {p}" for p in found[:_KEEP]]
    return {"bodies": bodies, "problems": problems, "failures": failures[:_KEEP]}


def request_validation(
    source: Conversation, compacted: Conversation, target: Any
) -> dict[str, Any]:
    """A ladder result as its profile's request: validated, and synthetic results over real ones."""
    from snapshot.ladder.compact import request_shape
    from snapshot.transcript.export import export
    from snapshot.transcript.validate import validate
    from snapshot.transcript.validate.corpus import synthetic_over_real

    shape = request_shape(target, "chat")
    invented = synthetic_over_real(source, compacted)
    try:
        body = export(compacted, shape, model=target.model).body
    except SnapshotError as exc:
        return {
            "bodies": 0,
            "problems": 1,
            "synthetic_over_real": len(invented),
            "failures": [f"{shape}: not exported: {exc}"],
        }
    found = validate(body, shape, model=target.model).problems
    return {
        "bodies": 1,
        "problems": len(found),
        "synthetic_over_real": len(invented),
        "failures": [f"{shape}: {p}" for p in found[:_KEEP]],
    }


def totals(
    sources: Iterable[Mapping[str, Any]], requests: Iterable[Mapping[str, Any]]
) -> dict[str, Any]:
    """The run's validation count, from per-source and per-ladder-request records.

    >>> totals([{"bodies": 4, "problems": 0, "failures": []}],
    ...        [{"bodies": 1, "problems": 0, "synthetic_over_real": 0, "failures": []}])["line"]
    '4 exported + 1 compacted request bodies validated: 0 problems; 0 synthetic results over real ones'
    """
    src = list(sources)
    req = list(requests)
    exported = sum(int(s.get("bodies", 0)) for s in src)
    compacted = sum(int(r.get("bodies", 0)) for r in req)
    problems = sum(int(x.get("problems", 0)) for x in (*src, *req))
    invented = sum(int(r.get("synthetic_over_real", 0)) for r in req)
    failures = [f for x in (*src, *req) for f in x.get("failures", [])][:20]
    return {
        "exported_bodies": exported,
        "compacted_bodies": compacted,
        "problems": problems,
        "synthetic_over_real": invented,
        "failures": failures,
        "line": (
            f"{exported} exported + {compacted} compacted request bodies validated: "
            f"{problems} problems; {invented} synthetic results over real ones"
        ),
    }
