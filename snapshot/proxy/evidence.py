"""Model evidence from a user's own traffic: the canary's records, read and judged.

``snapshot proxy --canary RATE`` appends one JSON line per transcription canary
(:data:`SCHEMA`, written by :mod:`snapshot.proxy.canary`): the model asked, the
reader that answered (the model id the provider's reply names; an offline
stand-in says so), the layout and page size, the region cut from the page, its
character accuracy and exact hard tokens (scored as whole-page readers are, by
:func:`~snapshot.readability.scoring.score_page`), and the call's measured
usage and dollars.

The unit of the verdict is the canary record, not the character. :func:`judge`
groups the records by model, reader and layout; a record *passes* when its own
band reads at the weakest-reader bar (:class:`~snapshot.readability.goal.Goal`:
≥ 0.97 characters and, where the band holds hard tokens, ≥ 0.90 of them exact).
Each record is one trial (bands are drawn from different passes, so records are
close to independent; the characters of one band are not: one blurred row takes
dozens at once). A layout is *readable* by that model when the Wilson 95 % lower
bound of the passing share (:func:`~snapshot.readability.scoring.wilson_interval`
over records) is at least :data:`MOST` (0.5): with 95 % confidence most of its
canaries clear the bar. That needs at least four canaries, all passing; one bad
band in six keeps a layout out. The densest readable layout is the one that
model's own traffic supports.

``char_lower`` and ``token_lower`` keep their names and their computation: Wilson
lower bounds with every character (hard token) of every band one trial. They
are descriptive only, optimistic, and no longer decide ``readable`` (until
2026-12 they did; ``readable`` now means the record-unit bound above).

Worked example: ten canaries of one layout, nine reading 0.99 and one 0.90 (1200
characters and 10 hard tokens each, all exact). Pooled, 11,772 of 12,000
characters read: per-character lower bound 0.978, which would clear 0.97. Per
record, 9 of 10 pass: lower bound 0.596 ≥ 0.5, readable. With three canaries,
all perfect, the per-character bound is 0.999 but 3 of 3 gives 0.439: not yet.

>>> rec = {"schema": SCHEMA, "model": "m", "reader": "m-2026", "layout": "snap5x9 gray",
...        "chars_per_kpx": 22.2, "chars": 1200, "char_accuracy": 0.99,
...        "hard_tokens": 10, "hard_tokens_exact": 10}
>>> [g] = judge([rec] * 9 + [{**rec, "char_accuracy": 0.90}])
>>> g.n, g.passing, round(g.pass_lower, 3), round(g.char_lower, 3), g.readable
(10, 9, 0.596, 0.978, True)
>>> [g] = judge([{**rec, "char_accuracy": 1.0}] * 3)
>>> g.passing, round(g.pass_lower, 3), round(g.char_lower, 3), g.readable
(3, 0.439, 0.999, False)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snapshot.errors import InputError
from snapshot.profiles.default_rule import MOST  # the share the default rule weighs model reads by

SCHEMA = "snapshot.canary-evidence/1"
#: How every output that uses canary records says what they measured (issue 40 item 6).
BAND_ONLY = "band crops, not the whole page as sent"
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
    """One model, reader and layout: its records, the passing share and its lower bound.

    ``passing`` records cleared the bar on their own band; ``pass_lower`` is the Wilson
    95 % lower bound of ``passing / n`` (records as trials) and decides ``readable``.
    ``char_lower`` / ``token_lower`` count characters / hard tokens as trials:
    descriptive, optimistic, not the verdict.
    """

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
    passing: int = 0
    pass_lower: float = 0.0

    @property
    def char_accuracy(self) -> float:
        return self.chars_read / self.chars if self.chars else 0.0

    @property
    def token_accuracy(self) -> float | None:
        return self.tokens_exact / self.tokens if self.tokens else None

    @property
    def stand_in(self) -> bool:
        return self.reader.startswith(STAND_IN)


def passes(record: dict[str, Any]) -> bool:
    """Whether one canary's band reads at the bar (no hard token in it: characters only).

    >>> passes({"char_accuracy": 0.98, "hard_tokens": 10, "hard_tokens_exact": 9})
    True
    >>> passes({"char_accuracy": 0.98, "hard_tokens": 10, "hard_tokens_exact": 8})
    False
    """
    from snapshot.readability.goal import Goal

    goal = Goal()
    tokens, exact = record["hard_tokens"], record["hard_tokens_exact"]
    return record["char_accuracy"] >= goal.char_accuracy and (
        not tokens or exact / tokens >= goal.hard_tokens
    )


def judge(records: Iterable[dict[str, Any]]) -> list[Group]:
    """Records grouped per (model, reader, layout), densest layout first within a model."""
    from snapshot.readability.scoring import wilson_interval

    pools: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for rec in records:
        pools.setdefault((rec["model"], rec["reader"], rec["layout"]), []).append(rec)
    out = []
    for (model, reader, layout), recs in pools.items():
        chars = sum(r["chars"] for r in recs)
        read = sum(round(r["char_accuracy"] * r["chars"]) for r in recs)
        tokens = sum(r["hard_tokens"] for r in recs)
        exact = sum(r["hard_tokens_exact"] for r in recs)
        passing = sum(passes(r) for r in recs)
        pass_lower = wilson_interval(passing, len(recs))[0]
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
                wilson_interval(read, chars)[0] if chars else 0.0,
                wilson_interval(exact, tokens)[0] if tokens else 0.0,
                # No hard token read: the token half of the bar is unmeasured, not cleared.
                bool(tokens) and pass_lower >= MOST,
                passing,
                pass_lower,
            )
        )
    return sorted(out, key=lambda g: (g.model, g.reader, -g.chars_per_kpx, g.layout))


def densest_readable(groups: Sequence[Group], model: str, reader: str) -> Group | None:
    """The densest layout ``model`` reads (by ``reader``): most canaries clear the bar."""
    passing = [g for g in groups if g.model == model and g.reader == reader and g.readable]
    return max(passing, key=lambda g: g.chars_per_kpx, default=None)


def evidence_lines(path: Path, model: str | None = None) -> list[str]:
    """What ``snapshot profiles --evidence FILE`` prints: a table, then each model's pick."""
    from snapshot.readability.goal import Goal

    goal = Goal()
    groups = [g for g in judge(read_evidence(path)) if model is None or g.model == model]
    if not groups:
        return [f"{path}: no canary records" + (f" for {model}" if model else "")]
    lines = [
        f"Model evidence from your own traffic ({path}; `snapshot proxy --canary`): "
        "a band of rows cut out of a page just sent, with fresh margins, transcribed by the "
        "model (band crops: not the whole page as the model received it in the request). "
        "Unit: one canary (a band); "
        "pass = it reads at the bar; verdict: Wilson 95 % lower bound of the passing share "
        f"(canaries as trials) ≥ {MOST:.2f}. The per-character and per-token lower bounds "
        "count each character / hard token as a trial (pooled over bands, not independent): "
        "descriptive only, optimistic",
        f"{'model':24} {'layout':36} {'c/kpx':>6} {'n':>4} {'pass':>4} {'lower':>6} "
        f"{'chars':>7} {'acc':>6} {'c.low':>6} {'tokens':>6} {'t.acc':>6} {'t.low':>6} "
        f"{'$':>8}  verdict",
    ]
    reader = None
    for g in groups:
        if (g.model, g.reader) != reader:
            reader = (g.model, g.reader)
            lines.append(f"-- {g.model} read by {g.reader}")
        tok = "-" if g.token_accuracy is None else f"{g.token_accuracy:.3f}"
        verdict = (
            "most canaries clear the bar"
            if g.readable
            else "not shown: too few canaries, too many below the bar, or no hard token"
        )
        lines.append(
            f"{g.model:24} {g.layout:36} {g.chars_per_kpx:>6.1f} {g.n:>4} {g.passing:>4} "
            f"{g.pass_lower:>6.3f} {g.chars:>7} {g.char_accuracy:>6.3f} {g.char_lower:>6.3f} "
            f"{g.tokens:>6} {tok:>6} {g.token_lower:>6.3f} {g.dollars:>8.4f}  {verdict}"
        )
    for m, r in dict.fromkeys((g.model, g.reader) for g in groups):
        best = densest_readable(groups, m, r)
        pick = (
            f"{best.layout} ({best.chars_per_kpx:.1f} chars/1000 px², "
            f"{best.passing} of {best.n} canaries pass)"
            if best
            else "none yet (no layout has most of its canaries shown to clear the bar)"
        )
        label = " [offline stand-in, not a model]" if r.startswith(STAND_IN) else ""
        lines.append(f"densest layout {m} reads in band crops (by {r}){label}: {pick}")
    lines.append(
        f"bar per canary: ≥ {goal.char_accuracy:.2f} characters and ≥ {goal.hard_tokens:.2f} "
        "exact hard tokens (the weakest-reader bar); c/kpx = characters per 1000 px²"
    )
    return lines


def evidence_report(path: Path, out: Path | None) -> tuple[Path, str]:
    """``snapshot report --evidence FILE``: the same lines as Markdown in ``OUT/EVIDENCE.md``."""
    from snapshot.out_folder import default_report_folder

    body = evidence_lines(path)
    text = "## Model evidence from your own traffic\n\n```\n" + "\n".join(body) + "\n```\n"
    out = default_report_folder() if out is None else out
    out.mkdir(parents=True, exist_ok=True)
    written = out / "EVIDENCE.md"
    written.write_text(text, encoding="utf-8")
    return written, text
