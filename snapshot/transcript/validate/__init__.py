"""Is a request body one the provider accepts? Published schemas plus documented rules.

- OpenAI chat and Responses bodies against OpenAI's OpenAPI spec (``jsonschema``) and
  the ``openai`` SDK's request TypedDicts;
- Anthropic Messages bodies against the ``anthropic`` SDK's request TypedDicts (its beta
  request types for a request with an ``anthropic-beta`` header: ``beta=True``);
- Gemini ``generateContent`` bodies against ``google-genai``'s pydantic types;
- and, for every shape, the rules in :mod:`snapshot.transcript.validate.rules`.

The schemas read the body as the provider does: fields a provider's own client sends
that its published types omit are listed, with their source, in
:mod:`snapshot.transcript.validate.clients`.

A schema that is not on this machine (the OpenAI spec lives outside the
project) is skipped and named in :attr:`Validation.skipped`; the rules still run.

>>> from snapshot.transcript.model import linear, TextBlock
>>> from snapshot.transcript.export import export
>>> conv = linear("c", [("u", "user", [TextBlock("hi")]), ("a", "assistant", [TextBlock("yo")])])
>>> validate(export(conv, "anthropic").body, "anthropic").problems
()
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from snapshot.errors import SnapshotError
from snapshot.transcript.validate.clients import as_read
from snapshot.transcript.validate.problems import Problem
from snapshot.transcript.validate.rules import GEMINI_SIGNATURE_SENTINEL, check_rules

SHAPES = ("anthropic", "openai", "openai-responses", "gemini")

__all__ = [
    "GEMINI_SIGNATURE_SENTINEL",
    "SHAPES",
    "ExportReport",
    "Problem",
    "Validation",
    "export_checked",
    "export_report",
    "limit_notes",
    "validate",
]


@dataclass(frozen=True)
class Validation:
    """What checking one body found: its problems, what checked it, what could not."""

    shape: str
    problems: tuple[Problem, ...]
    checked_by: tuple[str, ...]
    skipped: tuple[str, ...] = ()
    not_checked_by: tuple[str, ...] = ()  # the checkers of ``skipped``, by name

    def summary(self) -> str:
        """The count line: problems found, what checked, and what could not.

        >>> Validation("openai", (), ("documented rules",), ("x",), ("OpenAI OpenAPI spec",)).summary()
        '0 problem(s); checked by documented rules; NOT checked by OpenAI OpenAPI spec (see above)'
        """
        line = f"{len(self.problems)} problem(s); checked by {', '.join(self.checked_by)}"
        if self.not_checked_by:
            line += f"; NOT checked by {', '.join(self.not_checked_by)} (see above)"
        return line

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        """The record ``snapshot compact --check`` writes."""
        return {
            "shape": self.shape,
            "ok": self.ok,
            "problems": [str(p) for p in self.problems],
            "checked_by": list(self.checked_by),
            "skipped": list(self.skipped),
            "not_checked_by": list(self.not_checked_by),
        }


def _checkers(shape: str, beta: bool = False) -> list[tuple[str, Callable[[Any], list[Problem]]]]:
    """``(name, check)`` for each published schema or SDK type set that covers ``shape``."""
    from snapshot.transcript.validate import gemini_types, openai_spec, sdk_types

    if shape == "gemini":
        return [(gemini_types.SOURCE, gemini_types.validate_gemini)]
    out: list[tuple[str, Callable[[Any], list[Problem]]]] = []
    if shape != "anthropic":
        out.append((openai_spec.SOURCE, lambda body: openai_spec.validate_openai(body, shape)))
    types = "anthropic-beta" if shape == "anthropic" and beta else shape
    out.append((sdk_types.source_of(types), lambda body: sdk_types.validate_sdk(body, types)))
    return out


def validate(body: Any, shape: str, *, model: str | None = None, beta: bool = False) -> Validation:
    """Check a request body of ``shape`` (one of :data:`SHAPES`).

    Parameters
    ----------
    body
        The JSON body as Python data.
    shape
        ``anthropic``, ``openai``, ``openai-responses`` or ``gemini``.
    model
        The model the body is for (Gemini 3's signature rule; an unnamed Gemini model is held to it).
    beta
        An Anthropic request sent with an ``anthropic-beta`` header (Claude Code's are): checked
        against the SDK's beta request types, which hold the beta fields.

    Returns
    -------
    Validation
        Problems found (empty when the provider would accept the body).

    Raises
    ------
    SnapshotError
        ``shape`` is not a request shape.
    """
    if shape not in SHAPES:
        raise SnapshotError(f"cannot validate a {shape!r} body; shapes: {', '.join(SHAPES)}")
    problems: list[Problem] = []
    checked: list[str] = []
    skipped: list[str] = []
    unchecked: list[str] = []
    read = as_read(body, shape)
    for name, check in _checkers(shape, beta):
        try:
            problems += check(read)
        except (SnapshotError, ImportError) as exc:
            skipped.append(f"{name} check skipped: {exc}")
            unchecked.append(name)
            continue
        checked.append(name)
    problems += check_rules(body, shape, model=model)
    checked.append("documented rules")
    return Validation(shape, tuple(problems), tuple(checked), tuple(skipped), tuple(unchecked))


def export_checked(conv: Any, shape: str, *, model: str | None = None) -> tuple[Any, Validation]:
    """Export ``conv`` as a ``shape`` body and validate it: ``(Export, Validation)``.

    What ``snapshot export --check`` runs; the validation is for ``model``
    when given (Gemini 3's signature rule), else the strictest reading.

    >>> from snapshot.transcript.model import linear, TextBlock
    >>> conv = linear("c", [("u", "user", [TextBlock("hi")])])
    >>> exported, checked = export_checked(conv, "gemini")
    >>> checked.ok, checked.checked_by
    (True, ('google-genai types', 'documented rules'))
    """
    from snapshot.transcript.export import export

    exported = export(conv, shape, model=model)
    return exported, validate(exported.body, shape, model=model)


def limit_notes(body: object, target: str) -> list[str]:
    """Where a body exceeds its provider's documented request limits (it would be refused).

    >>> limit_notes({"messages": []}, "anthropic"), limit_notes("# md", "markdown")
    ([], [])
    """
    from snapshot.transcript.validate.rules import LIMIT_RULES, ROUTES

    if target not in ROUTES:
        return []
    return [p.message for p in check_rules(body, target) if p.rule in LIMIT_RULES]


@dataclass(frozen=True)
class ExportReport:
    """What ``snapshot export`` prints: the body, notes, and with ``--check`` its problems.

    ``problems`` are lines for the user (what could not be checked, each problem, and
    a count naming the checkers); ``ok`` is False when a check found a problem.
    """

    body: Any
    notes: tuple[str, ...]
    problems: tuple[str, ...] = ()
    ok: bool = True


def export_report(
    conv: Any,
    to: str,
    *,
    model: str | None = None,
    check: bool = False,
    whole_history: bool = False,
) -> ExportReport:
    """Export ``conv`` as ``to`` and say what a provider would make of it.

    Parameters
    ----------
    conv : Conversation
    to : str
        ``anthropic``, ``openai``, ``openai-responses``, ``gemini`` or ``markdown``.
    model : str, optional
        The model id written into the body (and checked against, with ``check``).
    check : bool
        Validate the body (:func:`export_checked`) and that no result it had text for
        was emptied; Markdown is never checked. Without it the notes name any
        documented request limit the body exceeds.
    whole_history : bool
        A session its harness already compacted is exported from its live context
        (:func:`snapshot.transcript.export.live.live_context`) unless this is set;
        the first notes say which.

    Returns
    -------
    ExportReport

    Examples
    --------
    >>> from snapshot.transcript.model import linear, TextBlock
    >>> conv = linear("c", [("u", "user", [TextBlock("hi")])])
    >>> done = export_report(conv, "gemini", check=True)
    >>> done.ok, done.problems[-1]
    (True, '0 problem(s); checked by google-genai types, documented rules')
    >>> export_report(conv, "markdown").body.startswith("#")
    True
    """
    from snapshot.transcript.export import export
    from snapshot.transcript.export.live import history_for_export

    conv, history = history_for_export(conv, to, whole_history)
    if check and to != "markdown":
        from snapshot.transcript.export.results import emptied_results

        result, checked = export_checked(conv, to, model=model)
        emptied = emptied_results(conv, result.body, to)
        problems = [*checked.skipped, *map(str, checked.problems), *emptied, checked.summary()]
        if emptied:
            problems[-1] += f"; {len(emptied)} lost-result problem(s)"
        ok = checked.ok and not emptied
        return ExportReport(result.body, (*history, *result.notes), tuple(problems), ok)
    result = export(conv, to, model=model)
    notes = [*history, *result.notes]
    if not isinstance(result.body, str) and not check:
        notes += limit_notes(result.body, to)  # --check reports them among its problems
    return ExportReport(result.body, tuple(notes))
