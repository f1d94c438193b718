"""Model evidence from a user's own traffic: the canary's records, read and judged.

``snapshot proxy --canary RATE`` appends one JSON line per transcription canary
(:data:`SCHEMA`, written by :mod:`snapshot.proxy.canary`): the model asked, the
reader that answered (the model id the provider's reply names; an offline
stand-in says so), the layout and page size, the region cut from the page, its
character accuracy and exact hard tokens (scored as whole-page readers are, by
:func:`~snapshot.legibility.page_readers.score_page`), and the call's measured
usage and dollars.

:func:`judge` groups the records by model, reader and layout and pools each
group's characters and hard tokens. Each share gets a Wilson 95 % interval
(:func:`~snapshot.legibility.metrics.wilson_interval`) with every character and
every hard token counted as one trial; errors within a region are not
independent, so the bound is a floor on what was read, not a guarantee. The
densest layout whose lower bounds clear the weakest-reader bar
(:class:`~snapshot.legibility.frontier.Goal`: 0.97 characters, 0.90 exact hard
tokens) is the one that model's own traffic supports.

>>> rec = {"schema": SCHEMA, "model": "m", "reader": "m-2026", "layout": "snap5x9 gray",
...        "chars_per_kpx": 22.2, "chars": 4000, "char_accuracy": 0.995,
...        "hard_tokens": 60, "hard_tokens_exact": 60}
>>> [g] = judge([rec])
>>> g.n, round(g.char_lower, 3), round(g.token_lower, 3), g.readable
(1, 0.992, 0.94, True)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snapshot.errors import InputError

SCHEMA = "snapshot.canary-evidence/1"
FILE = "evidence.jsonl"
STAND_IN = "offline stand-in"

# Fields judge() needs, each with the type it must have.
_NEEDED: dict[str, type | tuple[type, ...]] = {
    "model": str,
    "reader": str,
    "layout": str,
    "chars_per_kpx": (int, float),
    "chars": int,
    "char_accuracy": (int, float),
    "hard_tokens": int,
    "hard_tokens_exact": int,
}


def read_evidence(path: Path) -> list[dict[str, Any]]:
    """Every record of an evidence file; a line that is not one is an :class:`InputError`.

    A torn last line (the proxy killed mid-write) is skipped, as the ledger does.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeError) as exc:
        raise InputError(f"{path}: cannot read the evidence file ({exc})") from None
    lines = text.split("\n")
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        last = number == len(lines) and not text.endswith("\n")
        try:
            rec = json.loads(line)
        except ValueError:
            if last:
                continue
            raise InputError(f"{path}: line {number} is not JSON") from None
        problem = _problem(rec)
        if problem:
            raise InputError(f"{path}: line {number}: {problem}")
        out.append(rec)
    return out


def _problem(rec: Any) -> str | None:
    if not isinstance(rec, dict) or rec.get("schema") != SCHEMA:
        return f"not a canary evidence record (schema {SCHEMA})"
    for key, kind in _NEEDED.items():
        value = rec.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"field {key!r} missing or not a {getattr(kind, '__name__', 'number')}"
    if (
        not 0 <= rec["char_accuracy"] <= 1
        or not 0 <= rec["hard_tokens_exact"] <= rec["hard_tokens"]
    ):
        return "accuracy out of range"
    if rec["chars"] < 0:
        return "negative character count"
    return None


@dataclass(frozen=True)
class Group:
    """One model, reader and layout: its records pooled, with Wilson lower bounds."""

    model: str
    reader: str
    layout: str
    chars_per_kpx: float
    n: int
    chars: int
    chars_read: int
    tokens: int
    tokens_exact: int
    dollars: float
    char_lower: float
    token_lower: float
    readable: bool

    @property
    def char_accuracy(self) -> float:
        return self.chars_read / self.chars if self.chars else 0.0

    @property
    def token_accuracy(self) -> float | None:
        return self.tokens_exact / self.tokens if self.tokens else None

    @property
    def stand_in(self) -> bool:
        return self.reader.startswith(STAND_IN)


def judge(records: Iterable[dict[str, Any]]) -> list[Group]:
    """Records pooled per (model, reader, layout), densest layout first within a model."""
    from snapshot.legibility.frontier import Goal
    from snapshot.legibility.metrics import wilson_interval

    goal = Goal()
    pools: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for rec in records:
        pools.setdefault((rec["model"], rec["reader"], rec["layout"]), []).append(rec)
    out = []
    for (model, reader, layout), recs in pools.items():
        chars = sum(r["chars"] for r in recs)
        read = sum(round(r["char_accuracy"] * r["chars"]) for r in recs)
        tokens = sum(r["hard_tokens"] for r in recs)
        exact = sum(r["hard_tokens_exact"] for r in recs)
        char_lower = wilson_interval(read, chars)[0] if chars else 0.0
        token_lower = wilson_interval(exact, tokens)[0] if tokens else 0.0
        dollars = sum(((r.get("dollars") or {}).get("total") or 0.0) for r in recs)
        out.append(
            Group(
                model,
                reader,
                layout,
                float(recs[-1]["chars_per_kpx"]),
                len(recs),
                chars,
                read,
                tokens,
                exact,
                dollars,
                char_lower,
                token_lower,
                # No hard token read: the token half of the bar is unmeasured, not cleared.
                bool(tokens)
                and char_lower >= goal.char_accuracy
                and token_lower >= goal.hard_tokens,
            )
        )
    return sorted(out, key=lambda g: (g.model, g.reader, -g.chars_per_kpx, g.layout))


def densest_readable(groups: Sequence[Group], model: str, reader: str) -> Group | None:
    """The densest layout whose lower bounds clear the bar for ``model`` read by ``reader``."""
    passing = [g for g in groups if g.model == model and g.reader == reader and g.readable]
    return max(passing, key=lambda g: g.chars_per_kpx, default=None)


def evidence_lines(path: Path, model: str | None = None) -> list[str]:
    """What ``snapshot profiles --evidence FILE`` prints: a table, then each model's pick."""
    from snapshot.legibility.frontier import Goal

    goal = Goal()
    groups = [g for g in judge(read_evidence(path)) if model is None or g.model == model]
    if not groups:
        return [f"{path}: no canary records" + (f" for {model}" if model else "")]
    lines = [
        f"Model evidence from your own traffic ({path}; `snapshot proxy --canary`): "
        "a band of a page just sent, transcribed by the model; Wilson 95 % lower bounds, "
        "each character and hard token one trial (pooled over regions)",
        f"{'model':24} {'layout':36} {'c/kpx':>6} {'n':>4} {'chars':>7} {'acc':>6} "
        f"{'lower':>6} {'tokens':>6} {'t.acc':>6} {'lower':>6} {'$':>8}  verdict",
    ]
    reader = None
    for g in groups:
        if (g.model, g.reader) != reader:
            reader = (g.model, g.reader)
            lines.append(f"-- {g.model} read by {g.reader}")
        tok = "-" if g.token_accuracy is None else f"{g.token_accuracy:.3f}"
        verdict = "clears the bar" if g.readable else "below the bar (or too few records)"
        lines.append(
            f"{g.model:24} {g.layout:36} {g.chars_per_kpx:>6.1f} {g.n:>4} {g.chars:>7} "
            f"{g.char_accuracy:>6.3f} {g.char_lower:>6.3f} {g.tokens:>6} {tok:>6} "
            f"{g.token_lower:>6.3f} {g.dollars:>8.4f}  {verdict}"
        )
    for m, r in dict.fromkeys((g.model, g.reader) for g in groups):
        best = densest_readable(groups, m, r)
        pick = (
            f"{best.layout} ({best.chars_per_kpx:.1f} chars/1000 px², n={best.n})"
            if best
            else "none yet (no layout's lower bounds clear the bar)"
        )
        label = " [offline stand-in, not a model]" if r.startswith(STAND_IN) else ""
        lines.append(f"densest layout {m} reads (by {r}){label}: {pick}")
    lines.append(
        f"bar: lower bound ≥ {goal.char_accuracy:.2f} characters and ≥ {goal.hard_tokens:.2f} "
        "exact hard tokens (the weakest-reader bar); c/kpx = characters per 1000 px²"
    )
    return lines


def evidence_report(path: Path, out: Path | None) -> tuple[Path, str]:
    """``snapshot report --evidence FILE``: the same lines as Markdown in ``OUT/EVIDENCE.md``."""
    from snapshot.report.out_folder import default_report_folder

    body = evidence_lines(path)
    text = "## Model evidence from your own traffic\n\n```\n" + "\n".join(body) + "\n```\n"
    out = default_report_folder() if out is None else out
    out.mkdir(parents=True, exist_ok=True)
    written = out / "EVIDENCE.md"
    written.write_text(text, encoding="utf-8")
    return written, text
