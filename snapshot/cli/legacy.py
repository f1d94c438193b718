"""Old spellings of commands and flags: each still works and names its new spelling.

A renamed command or flag keeps its old spelling (scripts and READMEs out there
use it), hidden from ``--help``; using it prints one line on standard error:

>>> import contextlib, io
>>> err = io.StringIO()
>>> with contextlib.redirect_stderr(err):
...     notice("snapshot report --ledger DIR", "snapshot ledger DIR")
>>> err.getvalue()
'snapshot: note: `snapshot report --ledger DIR` is now spelled `snapshot ledger DIR` (the old spelling still works)\\n'
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any


def notice(old: str, new: str) -> None:
    """One line on stderr: ``old`` still works, and ``new`` is how to spell it now."""
    print(
        f"snapshot: note: `{old}` is now spelled `{new}` (the old spelling still works)",
        file=sys.stderr,
    )


def old_flag(old: str, new: str, *, dest: str | None = None) -> dict[str, Any]:
    """``add_argument`` keywords for a hidden old flag that says its new spelling when used.

    >>> p = argparse.ArgumentParser()
    >>> _ = p.add_argument("--ledger", **old_flag("snapshot report --ledger", "snapshot ledger"))
    >>> "--ledger" in p.format_help()
    False
    """
    keywords: dict[str, Any] = {"action": old_spelling(old, new), "help": argparse.SUPPRESS}
    if dest is not None:
        keywords["dest"] = dest
    return keywords


def old_spelling(
    old: str, new: str, *, when: Callable[[str], bool] | None = None, to: str | None = None
) -> type[argparse.Action]:
    """An ``add_argument`` action: a value that is ``old``'s says ``new`` and goes to ``to``.

    ``when`` (default: always) tells an old-spelling value from a new one; the old
    one is stored in the flag ``to`` names (default: this flag's own dest).

    >>> import contextlib, io
    >>> p = argparse.ArgumentParser(prog="snapshot cost")
    >>> _ = p.add_argument("--probes")
    >>> _ = p.add_argument("--evidence", action=old_spelling(
    ...     "snapshot cost --evidence DIR", "snapshot cost --probes DIR",
    ...     when=lambda v: v.endswith("/"), to="probes"))
    >>> with contextlib.redirect_stderr(io.StringIO()):
    ...     old = p.parse_args(["--evidence", "reports/probes/"])
    >>> p.parse_args(["--evidence", "e.jsonl"]).evidence, old.probes, old.evidence
    ('e.jsonl', 'reports/probes/', None)
    """

    class _OldSpelling(argparse.Action):
        def __call__(
            self,
            parser: argparse.ArgumentParser,
            namespace: argparse.Namespace,
            values: str | Sequence[Any] | None,
            option_string: str | None = None,
        ) -> None:
            value = True if self.nargs == 0 else values
            if when is not None and not when(str(value)):
                setattr(namespace, self.dest, value)
                return
            notice(old, new)
            setattr(namespace, to or self.dest, value)

    return _OldSpelling


class Jobs(argparse._SubParsersAction):
    """A command's own sub-commands (``report mine``), where one was once positionals.

    ``snapshot report PATH…`` is now ``snapshot report mine PATH…``: a first
    positional that names no job is the old spelling, run as ``default_job`` with
    a notice. Options given before the job name (``report --workers 2 mine …``)
    are kept, not reset to the job's defaults.
    """

    default_job = "mine"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # argparse checks the first positional against the choices before __call__ sees it:
        # every word passes there, and __call__ tells a job from an old-spelling PATH.
        self.choices = _AnyWord()

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        args = list(values or ())
        if args and args[0] not in self._name_parser_map:
            notice(f"{parser.prog} PATH…", f"{parser.prog} {self.default_job} PATH…")
            args.insert(0, self.default_job)
        given = {
            dest: value
            for dest, value in vars(namespace).items()
            if dest != self.dest and value != parser.get_default(dest)
        }
        super().__call__(parser, namespace, args, option_string)
        job = self._name_parser_map[args[0]]
        for dest, value in given.items():
            if getattr(namespace, dest, None) == job.get_default(dest):
                setattr(namespace, dest, value)


class _AnyWord(dict):
    """Choices every word passes (a PATH is checked when it is read; jobs by name in __call__)."""

    def __contains__(self, key: object) -> bool:
        return True
