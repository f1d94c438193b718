"""JSONL logs that an agent may still be writing: complete records, and a word about the rest.

An agent appends one record per line and flushes as it goes, so a session
read while the agent runs usually ends in half a line. That is not damage:
the complete records before it are the conversation so far. This reader
streams the file line by line (bounded memory, via
:func:`~snapshot.transcript.formats._common.iter_json_objects`) and turns the
"malformed JSON" warning for an unterminated last line into one that says
what happened.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "s.jsonl"
>>> _ = p.write_text('{"a": 1}\\n{"b": 2}\\n{"c": ', encoding="utf-8")
>>> w = Warnings()
>>> [r for _, r in iter_live_records(p, w)]
[{'a': 1}, {'b': 2}]
>>> "last line" in w.items[0] and "still be writing" in w.items[0]
True
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from snapshot.transcript.formats._common import Warnings, iter_json_objects, tail_bytes

# The warning kind iter_json_lines gives malformed JSON.
_JSON_KIND = "json"


class _HoldLastJsonWarning(Warnings):
    """Passes warnings on, holding back a malformed-JSON one until it is known not to be last."""

    def __init__(self, target: Warnings) -> None:
        super().__init__()
        self.target = target
        self.held: tuple[str, str | None] | None = None

    def add(self, message: str, kind: str | None = None) -> None:
        self.release()
        if kind == _JSON_KIND:
            self.held = (message, kind)
        else:
            self.target.add(message, kind)

    def release(self) -> None:
        if self.held is not None:
            self.target.add(*self.held)
            self.held = None


def ends_unterminated(path: Path) -> bool:
    """Does the file end without a newline (a record cut off mid-write)?"""
    tail = tail_bytes(path, 1)
    return bool(tail) and tail != b"\n"


def iter_live_records(
    path: Path, warnings: Warnings, what: str = "record"
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each complete record of a JSONL file.

    Parameters
    ----------
    path
        The JSONL file; it may be growing while it is read.
    warnings
        Where problems go: malformed lines as usual, and one line saying the
        last line was partial when the file ends in an unterminated record.
    what
        What one line holds, for the warning about non-object lines.

    Returns
    -------
    Iterator[tuple[int, dict]]
        The records in file order.
    """
    holder = _HoldLastJsonWarning(warnings)
    count = 0
    for lineno, record in iter_json_objects(path, holder, what):
        holder.release()  # a record followed it: that bad line was not the last
        count += 1
        yield lineno, record
    if holder.held is not None and ends_unterminated(path):
        warnings.add(
            f"{path}: the last line is a partial record (the agent may still be writing "
            f"this file); imported the {count} complete records before it",
            "partial",
        )
        holder.held = None
    holder.release()
