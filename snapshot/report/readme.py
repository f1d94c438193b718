"""The README's generated blocks: every figure README shows, from committed results.

README holds five blocks, each between a ``<!-- NAME:begin -->`` and a
``<!-- NAME:end -->`` marker, and no figure of a result outside them:

- ``results``: the benchmark's headline table, from ``reports/results.json``
  (``snapshot report --readme README.md`` rewrites it after a run);
- ``readability``: the weakest whole-page reader of each default profile's layout
  and of the dense layout at that profile's real page, from ``reports/frontier.md``
  (what ``snapshot frontier`` wrote from its committed readings);
- ``speed``: the benchmarks README quotes, each from its committed
  ``reports/bench/<bench>.json`` (keys ``bench``, ``date``, ``machine``, ``load``,
  ``results``, ``goal``, ``passed``), or "not measured yet" while the file is missing;
- ``cost``: where ``--mode cost`` loses, inside the proxy's paragraph (its markers
  inline), from ``reports/bench/cost_vs_pxpipe.json``;
- ``defaults``: per vision family, its default page, what its qualified readers read
  there beside their controls and what the default rests on, from
  ``reports/bench/defaults_evidence.json`` (``bench/defaults_evidence.py``).

``python -m snapshot.report.readme [README.md]`` rewrites all five from the
``reports/`` folder beside the README; the tests regenerate each block from the
committed files and compare.

>>> block = results_block({"command": "snapshot report", "rows": [], "sources": [],
...                        "models": [], "settings": {"budget_ratio": 0.3}})
>>> block.splitlines()[0]
'<!-- results:begin -->'
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from snapshot.errors import InputError
from snapshot.legibility.controls import QUALIFY_BAR
from snapshot.report.matrix import MatrixRow
from snapshot.report.needle_recall import reader_recall
from snapshot.report.page_jitter import pooled_scores
from snapshot.report.provenance import LEGEND, marker
from snapshot.report.ranges import range_sentences
from snapshot.report.tables import aggregate, budget_met

BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"


@dataclass(frozen=True)
class SpeedFigure:
    """A figure README's speed block quotes: one goal of one bench's committed record."""

    bench: str
    goal: str
    what: str


#: The couple of speed figures README quotes, each one named goal of
#: ``reports/bench/<bench>.json``: the renderer beside the obvious alternative, and the
#: quick start's own cost.
README_SPEED = (
    SpeedFigure(
        "raster_speed",
        "pillow_ratio",
        "Pillow's `ImageDraw.text` time over the renderer's, same page",
    ),
    SpeedFigure("report_speed", "quick_start_cpu", "CPU time of the quick start's first run"),
)

#: Prose lines of a generated block wrap here (tables do not wrap).
WIDTH = 118

_ROW_FIELDS = {f.name for f in fields(MatrixRow)}


def markers(name: str) -> tuple[str, str]:
    """The begin and end lines of the block ``name``.

    >>> markers("speed")
    ('<!-- speed:begin -->', '<!-- speed:end -->')
    """
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def _wrap(text: str) -> str:
    return textwrap.fill(text, WIDTH, break_long_words=False, break_on_hyphens=False)


def rows_from_json(payload: Mapping[str, Any]) -> list[MatrixRow]:
    """The benchmark rows of a ``results.json`` payload (unknown keys ignored)."""
    return [MatrixRow(**{k: v for k, v in r.items() if k in _ROW_FIELDS}) for r in payload["rows"]]


def _pct(v: float) -> str:
    return f"{100 * v:.1f} %"


def _note(note: str) -> str:
    """A reader's note, cut to what a table cell needs."""
    if "budget" in note:
        return "not read: over the reader CPU budget"
    if note.startswith("not measured"):
        return "not installed, skipped"
    return note.split(":")[0]


def _jitter_chars(by: Mapping[str, Any]) -> str:
    """The characters read at +4 and -4 px, absolute."""
    return ", ".join(f"{k} {by[k].char_accuracy:.3f}" for k in ("+4", "-4") if k in by)


def readability_cell(rows: Sequence[MatrixRow], model: str) -> str:
    """``model``'s readability in the results table: per whole-page reader, the characters
    of its sampled pages (or bands) relative to its control / absolute, with the 95 %
    Wilson interval of the absolute over the characters read, the reader named; a reader
    whose control is below the qualifying bar is labelled; one that did not read is named
    with why; ``""`` when no reader read a page of ``model``.

    >>> r = MatrixRow("s", "c", "m", "snapshot", 10, 5, 0.0, 0, pages=3, reader_pages=1,
    ...     page_needles={"hex": 4}, reader_found={"tesseract-x2": {"hex": 3}},
    ...     reader_page_scores={"tesseract-x2": {"real": [1000, 50, 9, 9, "9x9"],
    ...                                          "control": [1000, 20, 9, 9, "9x9"]}},
    ...     reader_notes={"ppocrv5": "not measured: not installed"})
    >>> print(readability_cell([r], "m"))
    ppocrv5: not installed, skipped; tesseract-x2: 0.969 / 0.950 [0.935–0.962] of 1,000 chars, needles 3/4ᵐ
    """
    from snapshot.legibility.page_readers import page_reader_names
    from snapshot.readability.scoring import wilson_interval
    from snapshot.report.page_jitter import CONTROL, judge, native, verdict

    mine = [r for r in rows if r.model == model and r.strategy == "snapshot"]
    pooled = {rd: by for rd, by in pooled_scores(mine, model).items() if "real" in by}
    needles = {x.reader: x for x in reader_recall(mine) if x.strategy == "snapshot"}
    notes: dict[str, str] = {}
    for r in mine:
        for rd, note in r.reader_notes.items():
            notes.setdefault(rd, _note(note))
    cells: list[str] = []
    for rd in (*page_reader_names(), *sorted(set(pooled) - set(page_reader_names()))):
        by = pooled.get(rd)
        if by is None:
            if rd in notes:
                cells.append(f"{rd}: {notes[rd]}")
            continue
        real = by["real"]
        lo, hi = wilson_interval(real.score.chars - real.score.char_errors, real.score.chars)
        rel = f"{native(by).char_accuracy:.3f} / " if CONTROL in by else "no control / "
        label = judge(by)
        cell = (
            f"{rd}: {rel}{real.char_accuracy:.3f} [{lo:.3f}–{hi:.3f}] of {real.score.chars:,} chars"
        )
        x = needles.get(rd)
        if x is not None and x.needles:
            cell += f", needles {x.found}/{x.needles}"
        cell += marker("measured")
        if label != "qualified":
            cell += f" ({label})"
        if verdict(by) == "unstable":  # its verdict flips at ±4 px: shown, never averaged
            cell += f" (unstable: {_jitter_chars(by)})"
        cells.append(cell)
    return "; ".join(cells)


def _readers_sentence(payload: Mapping[str, Any]) -> str:
    """What the whole-page readers read, their CPU and the load (or that none ran).

    >>> _readers_sentence({"settings": {"page_readers": []}})
    ' No whole-page reader ran: their figures are under Readability.'
    >>> print(_readers_sentence({"settings": {"page_readers": ["t"], "reader_band_rows": 4,
    ...     "reader_conversations": 1}, "reader_cpu_s": 9.5, "load": 3.2}))
     Readers: a band (top 4 rows, the rest blank) per profile of 1 seeded conversation and its control (DejaVu Sans Mono 16 px; judging at ≥ 0.93), reader CPU 9.5 s measured (load 3.2).
    """
    settings = payload.get("settings", {})
    if not settings.get("page_readers"):
        return " No whole-page reader ran: their figures are under Readability."
    band = int(settings.get("reader_band_rows", 0) or 0)
    what = f"a band (top {band} rows, the rest blank)" if band else "one full page"
    n = int(settings.get("reader_conversations", 0) or 0)
    convs = "every conversation" if n == 0 else f"{n} seeded conversation{'s' * (n > 1)}"
    jitter = " at ±4 px" if settings.get("reader_jitter") and not band else ""
    skipped = [x.replace("@", " on ") for x in settings.get("reader_skip", [])]
    left = f"; over the budget: {', '.join(skipped)}" if skipped else ""
    cpu = payload.get("reader_cpu_s")
    spent = f", reader CPU {cpu} s measured (load {payload.get('load')})" if cpu is not None else ""
    return (
        f" Readers: {what} per profile of {convs}{jitter} and its control (DejaVu Sans Mono "
        f"16 px; judging at ≥ {QUALIFY_BAR}){left}{spent}."
    )


def _readers_head(settings: Mapping[str, Any]) -> str:
    """The readability column's head: the readers and how their figures are shown.

    >>> _readers_head({"page_readers": ["t"]})
    'readability (t; OCR, proxies for models): of control / absolute [95 %]'
    """
    readers = settings.get("page_readers") or []
    names = f"{', '.join(readers)}; " if readers else ""
    return f"readability ({names}OCR, proxies for models): of control / absolute [95 %]"


def results_block(payload: Mapping[str, Any]) -> str:
    """The README block for a ``results.json`` payload, markers included."""
    rows = rows_from_json(payload)
    aggs = {(a.model, a.label): a for a in aggregate(rows)}
    pooled = {(a.model, a.strategy): a for a in aggregate(rows, split=False)}
    met = {b.model: b for b in budget_met(rows)}
    sources = payload.get("sources", [])
    chars = sum(int(s.get("chars", 0)) for s in sources)
    budget = float(payload.get("settings", {}).get("budget_ratio", 0.3))
    size = payload.get("summary_size") or {}
    settings = payload.get("settings", {})
    lines = [
        BEGIN,
        _wrap(
            f"Generated from `reports/results.json` by "
            f"`{payload.get('command') or 'snapshot report'}`: {len(sources)} conversations, "
            f"{chars:,} characters as the benchmark reads them. Pooled ratios weigh "
            "conversations by size; the median weighs each once." + _readers_sentence(payload)
        ),
        "",
        "| profile | snapshot alone: tokens kept, pooled / median [IQR] "
        f"| {_readers_head(settings)} | round-trip check (not readability) "
        "| dense layout (snapshot+dense): tokens kept, pooled / median "
        f"| ladder to a {100 * budget:.0f} % budget: tokens kept, pooled / median "
        "| budget met: free rungs / real summary / modelled summary / not met |",
        "|---|---|---|---|---|---|---|",
    ]
    for model in payload.get("models", []):
        snap = aggs.get((model, "snapshot"))
        lad = pooled.get((model, "ladder"))
        b = met.get(model)
        if snap is None or lad is None or b is None:
            continue
        rt = "n/m" if snap.round_trip_check is None else f"{100 * snap.round_trip_check:.0f} %"
        seen = readability_cell(rows, model)
        dense = aggs.get((model, "snapshot+dense"))
        dense_cell = (
            f"{_pct(dense.ratio)} / {_pct(dense.ratio_median)}{marker(dense.provenance)}"
            if dense is not None
            else "–"
        )
        lines.append(
            f"| {model} | {_pct(snap.ratio)} / {_pct(snap.ratio_median)} "
            f"[{_pct(snap.ratio_q1)}–{_pct(snap.ratio_q3)}]{marker(snap.provenance)} "
            f"| {seen or 'not measured'} | {rt} | {dense_cell} "
            f"| {_pct(lad.ratio)} / {_pct(lad.ratio_median)}{marker(lad.provenance)} "
            f"| {b.free_rungs} / {b.real_summary} / {b.modelled_summary}{marker('modelled')} "
            f"/ {b.not_met} of {b.conversations} |"
        )
    for sentence in range_sentences(rows, payload.get("models", [])):
        lines += ["", _wrap(sentence)]
    validation = (payload.get("validation") or {}).get("line")
    if validation:
        lines += ["", _wrap(f"Request validation (measured{marker('measured')}): {validation}.")]
    lines.append("")
    if size:
        how = (
            f"measured on the run's {size['count']} real summaries (mean {size['mean_chars']:,} "
            f"characters, s.d. {size['stdev_chars']:,})"
            if size.get("measured")
            else str(size.get("source", ""))
        )
        lines.append(
            _wrap(
                f"{LEGEND} A budget met *with a modelled summary* rests on an assumed summary size, "
                # the round-trip check's head says it is not readability; REPORT.md says what it is
                f"{how}; its recall is not measured."
            )
        )
    else:
        lines.append(_wrap(LEGEND))
    lines.append(END)
    return "\n".join(lines)


# --- readability: from reports/frontier.md --------------------------------------------

_WEAKEST_HEADING = "## The weakest reader at the profiles' real pages"
_NOT_MEASURED_HEADING = "### Not measured yet"
_DENSITY_HEADING = "## Density at Gemini's real page"


@dataclass(frozen=True)
class WeakestRow:
    """One row of ``frontier.md``'s weakest-reader table, the cells README quotes.

    ``verdict`` is the table's verdict cut to ``readable`` / ``not readable``;
    ``not_judging`` the readers that read the layout but do not judge it (control below the
    qualifying bar, or not read).
    """

    profile: str
    layout: str
    readers: str
    weakest_chars: str
    weakest_hard_tokens: str
    jitter: str
    verdict: str
    not_judging: str = ""


def weakest_rows(frontier_md: str) -> list[WeakestRow]:
    """The rows of the weakest-reader table of a ``frontier.md``.

    Raises
    ------
    InputError
        If the text has no such table (not a ``frontier.md`` of ``snapshot frontier``).

    >>> md = (_WEAKEST_HEADING + "\\n\\n| profile | layout (real page) | readers measured | texts "
    ...       "| weakest chars | weakest hard tokens | weakest ×0.9 chars | ±4 px | verdict "
    ...       "| not judging |\\n|---|---|---|---|---|---|---|---|---|---|\\n"
    ...       "| m | f 1-bit gap 0x0 8x8 | r, s | hardlines | 0.5 of control, 0.49 absolute (r, "
    ...       "hardlines) | 0.1 (r, corpus) | moot | stable | not readable (below the bar "
    ...       "natively: r) | s on hardlines: no control read |\\n")
    >>> row = weakest_rows(md)[0]
    >>> row.verdict, row.not_judging
    ('not readable', 's on hardlines: no control read')
    """
    start = frontier_md.find(_WEAKEST_HEADING)
    if start < 0:
        raise InputError(f"frontier.md: no {_WEAKEST_HEADING!r} section; run `snapshot frontier`")
    body = frontier_md[start:].split("\n## ", 1)[0]
    rows = []
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) != 10 or cells[0] in ("profile", "---") or cells[0].startswith("---"):
            continue
        profile, layout, readers, _texts, chars, tokens, _res, jitter, verdict, other = cells
        word = "not readable" if verdict.startswith("not readable") else verdict.split(" (")[0]
        rows.append(WeakestRow(profile, layout, readers, chars, tokens, jitter, word, other))
    if not rows:
        raise InputError("frontier.md: the weakest-reader table has no rows")
    return rows


def _section(text: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading (empty when there is none)."""
    start = text.find(heading)
    if start < 0:
        return ""
    return text[start + len(heading) :].split("\n#", 1)[0]


def still_missing(frontier_md: str) -> str:
    """What ``frontier.md``'s *Not measured yet* list says, as one sentence.

    >>> still_missing("### Not measured yet\\n\\nIntro.\\n\\nNone: every one of them is measured.\\n")
    'none (every one of them is measured)'
    >>> still_missing("### Not measured yet\\n\\nIntro.\\n\\n- a: r on t\\n- b: r on t\\n")
    'a: r on t; b: r on t'
    """
    section = _section(frontier_md, _NOT_MEASURED_HEADING)
    items = [ln[2:].strip() for ln in section.splitlines() if ln.startswith("- ")]
    if items:
        return "; ".join(items)
    if "None: every one of them is measured." in section:
        return "none (every one of them is measured)"
    return "not stated (rerun `snapshot frontier`)"


def owed_summary(frontier_md: str) -> str:
    """How many layouts still owe readings, by ``frontier.md``'s *Not measured yet* list (it
    names each reading; README only counts them).

    >>> owed_summary("### Not measured yet\\n\\nIntro.\\n\\n- a: r on t\\n- b: r on t\\n")
    '2 layouts lack readings'
    >>> owed_summary("### Not measured yet\\n\\nNone: every one of them is measured.\\n")
    'none (every one of them is measured)'
    """
    items = [
        ln for ln in _section(frontier_md, _NOT_MEASURED_HEADING).splitlines() if ln[:2] == "- "
    ]
    if items:
        return f"{len(items)} layouts lack readings"
    return still_missing(frontier_md)


def candidates_line(frontier_md: str) -> str:
    """``frontier.md``'s sentence on the candidate layouts read at Gemini's page ("" if none)."""
    for line in _section(frontier_md, _DENSITY_HEADING).splitlines():
        if line.startswith(("Every candidate layout", "Candidate layouts not yet read")):
            return line.strip()
    return ""


def default_layouts(models: Sequence[str]) -> list[tuple[str, str, str]]:
    """(profile, role, layout key) of each model's default layout and the dense layout on
    the same page, keyed as ``frontier.md`` keys layouts.

    >>> default_layouts(["gemini-3.8-flash"])[0]
    ('gemini-3.8-flash', 'default', 'snap5x8 1-bit gap 0x0 1568x728')
    """
    from snapshot.profiles import profile_for
    from snapshot.profiles.dense import DENSE_STYLE
    from snapshot.profiles.readability import record_key
    from snapshot.readability.layout import layout_key

    out = []
    for model in models:
        profile = profile_for(model, warn=False)
        dense = layout_key(
            DENSE_STYLE.font,
            DENSE_STYLE.size,
            DENSE_STYLE.shade,
            col_gap=DENSE_STYLE.col_gap,
            row_gap=DENSE_STYLE.row_gap,
            page=profile.geometry().size,
        )
        out += [(model, "default", record_key(profile.as_dict())), (model, "dense", dense)]
    return out


def _rule_cell(model: str, role: str, design: str) -> str:
    """The default rule's verdict on one row: on the default, what it rests on (figures
    measured by readers or by the model's own reads: ᵐ); on the dense layout, whether the
    rule passed it over.

    >>> _rule_cell("gemini-3.8-flash", "default", "snap5x8 1-bit gap 0x0")[:48]
    'model evidence: published battery N=15 (14 read)'
    """
    from snapshot.profiles.readability import default_choice

    choice = default_choice(model)
    if role == "default":
        summary = str(choice.get("summary") or choice["rests_on"])
        measured = choice["kind"] != "none" or " reads " in summary
        return rests_on_cell(choice) + ("ᵐ" if measured else "")
    passed = [p for p in choice.get("passed_over", []) if p.startswith(f"{design}: ")]
    return "passed over" if passed else "–"


def rests_on_cell(choice: Mapping[str, Any]) -> str:
    """The default rule's verdict for a table cell: its summary, where model evidence
    decides with the qualified readers' figure cut to whether they agree (the readers'
    figures stand in the cells beside it).

    >>> rests_on_cell({"kind": "model evidence", "summary": "model evidence: battery N=15; "
    ...     "qualified readers (OCR, proxies for models) below the bar: r reads 0.00 of ..."})
    'model evidence: battery N=15; OCR readers: below the bar'
    """
    from snapshot.profiles.default_rule import READERS_BESIDE

    summary = str(choice.get("summary") or choice["rests_on"])
    head, _, readers = summary.partition(f"; {READERS_BESIDE}")
    if choice["kind"] == "model evidence" and readers.startswith(" below the bar"):
        return f"{head}; OCR readers: below the bar"
    return head


def _measured(cell: str) -> str:
    """A weakest-reader cell marked measured; "–" (no qualified reader) says so instead.

    >>> _measured("0.950 of control, 0.912 absolute (r, corpus)"), _measured("–")
    ('0.950 of control, 0.912 absolute (r, corpus)ᵐ', 'no qualified reader')
    """
    return "no qualified reader" if cell == "–" else f"{cell}{marker('measured')}"


def readability_block(frontier_md: str, models: Sequence[str]) -> str:
    """The README block: per profile, its default and the dense layout at its real page,
    with the weakest whole-page reader's readings (measured) and the verdict."""
    begin, end = markers("readability")
    rows = {(r.profile, r.layout): r for r in weakest_rows(frontier_md)}
    every = list(rows.values())
    readable = [r for r in every if r.verdict == "readable"]
    lines = [
        begin,
        _wrap(
            "Generated from `reports/frontier.md` (`snapshot frontier`, over the readings in "
            f"`reports/frontier-points.jsonl`): {len(every)} layouts read at the profiles' real "
            f"pages, {len(readable)} of them readable by the weakest-reader bar. Each figure is "
            "the weakest *qualified* reader's (control ≥ "
            f"{QUALIFY_BAR}), measuredᵐ, under its current settings: relative to its control, "
            "the absolute beside it; *default rule* is the rule's verdict. OCR readers are "
            "proxies for models."
        ),
        "",
        "| profile | layout | real page | weakest: characters | weakest: exact hard tokens "
        "| ±4 px | verdict | not judging | default rule |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for model, role, key in default_layouts(models):
        found = rows.get((model, key))
        design, _, page = key.rpartition(" ")
        rule = _rule_cell(model, role, design)
        if found is None:
            lines.append(
                f"| {model} | {design} ({role}) | {page} | not measured | – | – | – | – | {rule} |"
            )
            continue
        jitter = "unstable" if found.jitter.startswith("unstable") else found.jitter
        lines.append(
            f"| {model} | {design} ({role}) | {page} | {_measured(found.weakest_chars)} "
            f"| {_measured(found.weakest_hard_tokens)} | {jitter} | {found.verdict} "
            f"| {found.not_judging or 'none'} | {rule} |"
        )
    owed = f"Owed (`frontier.md`, *Not measured yet*): {owed_summary(frontier_md)}."
    if candidates := candidates_line(frontier_md):
        owed += f" At Gemini's page: {re.sub(r' [(][^)]*[)]', '', candidates)}"  # no breakdown
    lines += ["", _wrap(owed), end]
    return "\n".join(lines)


# --- speed: from reports/bench/<bench>.json --------------------------------------------


def _readings_when(record: dict[str, Any]) -> str:
    """When the readings behind a defaults record were taken (the record's own figure),
    else the record's date and load (an older record without that figure)."""
    figure = record.get("results", {}).get("figures", {}).get("readings_measured")
    if figure:
        span = figure["what"].split(": ", 1)[-1].replace("1-minute ", "")
        span = re.sub(r"(\d{4}-\d\d-\d\d) \d\d:\d\d", r"\1", span)  # days suffice here
        span = span.replace(" to ", "–").replace("measured ", "")
        return f"{figure['value']:g} readings, {span}"
    return f"{str(record.get('date', ''))[:10]}, load {_load(record.get('load'))}"


def _load(load: Any) -> str:
    """A record's load: the 1-minute load average at the start and the end."""
    if isinstance(load, Mapping):
        ends = [load.get(k) for k in ("start", "end")]
        ones = [f"{e[0]:g}" for e in ends if isinstance(e, list | tuple) and e]
        return " → ".join(ones) or "not recorded"
    return str(load)


def _machine(machine: Any) -> str:
    if isinstance(machine, Mapping):
        cores = machine.get("cores")
        return f"{machine.get('cpu', 'unknown CPU')}" + (f", {cores} cores" if cores else "")
    return str(machine)


def speed_line(figure: SpeedFigure, record: Mapping[str, Any] | None) -> str:
    """README's line for one speed figure of a bench's committed record (None: not
    measured yet).

    >>> f = SpeedFigure("x", "ratio", "theirs over ours")
    >>> speed_line(f, None)
    '- theirs over ours: not measured yet (no `reports/bench/x.json`).'
    >>> speed_line(f, {"bench": "x", "date": "2026-12-06T04:03Z", "status": "measured",
    ...     "machine": {"cpu": "Xeon", "cores": 2}, "load": {"start": [0.5], "end": [1.5]},
    ...     "goal": {"ratio": {"value": 64.0, "op": ">=", "target": 20, "unit": "x",
    ...                        "passed": True}}})  # doctest: +NORMALIZE_WHITESPACE
    '- theirs over ours: 64 xᵐ (goal ≥ 20 x: met), 2026-12-06T04:03Z on Xeon, 2 cores,
    load 0.5 → 1.5 (`reports/bench/x.json`, `ratio`).'
    """
    where = f"`reports/bench/{figure.bench}.json`"
    if record is None:
        return f"- {figure.what}: not measured yet (no {where})."
    goal = (record.get("goal") or {}).get(figure.goal)
    if not isinstance(goal, Mapping):
        return f"- {figure.what}: not measured yet (no goal `{figure.goal}` in {where})."
    op = {">=": "≥", "<=": "≤"}.get(str(goal.get("op")), str(goal.get("op")))
    unit = goal.get("unit", "")
    status = record.get("status", "measured")
    label = marker("measured") if status == "measured" else f" ({status})"
    return (
        f"- {figure.what}: {goal.get('value'):g} {unit}{label} (goal {op} {goal.get('target'):g} "
        f"{unit}: {'met' if goal.get('passed') else 'NOT met'}), {record.get('date')} on "
        f"{_machine(record.get('machine'))}, load {_load(record.get('load'))} ({where}, "
        f"`{figure.goal}`)."
    )


def speed_block(bench_dir: Path, figures: Sequence[SpeedFigure] = README_SPEED) -> str:
    """The README block quoting each of ``figures`` from ``bench_dir/<bench>.json``.

    Raises
    ------
    InputError
        If a record is not JSON or names another bench.
    """
    begin, end = markers("speed")
    lines = [
        begin,
        _wrap(
            "From the committed bench records (`bench/README.md` runs them), with machine and "
            "1-minute load:"
        ),
    ]
    for figure in figures:
        path = bench_dir / f"{figure.bench}.json"
        record = None
        if path.is_file():
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
            except ValueError as exc:
                raise InputError(f"{path}: not JSON ({exc}); rerun the bench") from exc
            if record.get("bench") != figure.bench:
                raise InputError(
                    f"{path}: its 'bench' is {record.get('bench')!r}, not {figure.bench!r}"
                )
        item = speed_line(figure, record)
        lines.append(
            textwrap.fill(
                item, WIDTH, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
            )
        )
    lines.append(end)
    return "\n".join(lines)


#: The bench README's cost-mode sentences quote.
COST_BENCH = "cost_vs_pxpipe"
#: Text the README puts on the cost block's first line before its begin marker.
COST_LEAD = "It loses"


def cost_block(bench_dir: Path) -> str:
    """README's sentences on where ``--mode cost`` loses, with the figures of
    ``bench_dir/cost_vs_pxpipe.json`` (measured, the cache-weighted ones modelled), wrapped
    to :data:`WIDTH` with its markers inline (it continues :data:`COST_LEAD`).

    >>> cost_block(Path("/nonexistent")).split("-->")[1].strip()
    ': not measured yet (no `reports/bench/cost_vs_pxpipe.json`).<!-- cost:end'

    Raises
    ------
    InputError
        If the record is not JSON or lacks an arm's figure.
    """
    begin, end = markers("cost")
    path = bench_dir / f"{COST_BENCH}.json"
    where = f"`reports/bench/{COST_BENCH}.json`"
    if not path.is_file():
        text = f": not measured yet (no {where})."
    else:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            arms = record["results"]["arms_detail"]
            direct, full, safe, px = (
                arms[a] for a in ("direct", "snapshot_cost_full", "snapshot_cost_safe", "pxpipe")
            )
            m = marker("measured")

            def x(arm: Mapping[str, Any], key: str) -> str:
                return f"{arm[key] / direct[key]:.2f}×"

            text = (
                f" ({where}): on sparse output; on id-dense output, at least 95 % of ids also sent as text "
                f"(`full` {x(full, 'tokens')} direct tokens{m}, {x(full, 'cache_weighted')} "
                f"cache-weighted, modelled; pxpipe {x(px, 'tokens')}{m}, keeping "
                f"{px['ids_kept']:,} of {px['ids_off_text']:,} ids); on a warm cache (`safe` "
                f"{x(safe, 'tokens')}{m}, {x(safe, 'cache_weighted')} modelled). CPU p50 "
                f"{full['cpu_ms_p50']:.0f} ms{m}, {full['cpu_ms_p50'] / px['cpu_ms_p50']:.2f}× "
                "pxpipe's."
            )
        except (ValueError, KeyError, TypeError, ZeroDivisionError) as exc:
            raise InputError(f"{path}: no cost-mode figures ({exc!r}); rerun the bench") from exc
    # Wrapped as it stands in the paragraph: after COST_LEAD, the markers kept whole.
    keep = {begin: begin.replace(" ", "\0"), end: end.replace(" ", "\0")}
    whole = f"{COST_LEAD}{keep[begin]}{text}{keep[end]}"
    wrapped = textwrap.fill(whole, WIDTH, break_long_words=False, break_on_hyphens=False)
    return wrapped[len(COST_LEAD) :].replace("\0", " ")


# --- defaults: from reports/bench/defaults_evidence.json --------------------------------

DEFAULTS_BENCH = "defaults_evidence"
#: The record's goal README quotes: issue 40's done-when, family by family.
DEFAULTS_GOAL = "families_whose_default_two_qualified_readers_pass"


def _readers_cell(family: Mapping[str, Any]) -> str:
    """What the qualified readers read at a family's default page, in a few words.

    >>> _readers_cell({"readers_verdict": "incomplete", "readers_short": "not read beside a control page"})
    'incomplete: not read beside a control page'
    """
    cell = f"{family['readers_verdict']}: {family['readers_short']}"
    return cell + marker("measured") if family.get("weakest_relative") is not None else cell


def defaults_block(bench_dir: Path) -> str:
    """README's table of every vision family's default page: the readers' verdict (issue
    40's done-when: two qualified readers on every cell, each >= 0.95 of its control) and
    what the default rests on, from ``bench_dir/defaults_evidence.json``; families with
    the same page, layout and evidence share a row.

    >>> defaults_block(Path("/nonexistent")).splitlines()[1]
    'Not measured yet (no `reports/bench/defaults_evidence.json`; `bench/defaults_evidence.py` takes it).'

    Raises
    ------
    InputError
        If the record is not JSON or lacks the families.
    """
    begin, end = markers("defaults")
    path = bench_dir / f"{DEFAULTS_BENCH}.json"
    where = f"`reports/bench/{DEFAULTS_BENCH}.json`"
    if not path.is_file():
        return (
            f"{begin}\nNot measured yet (no {where}; `bench/defaults_evidence.py` takes it).\n{end}"
        )
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        families = record["results"]["families"]
        goal = record["goal"][DEFAULTS_GOAL]
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{path}: no family defaults ({exc!r}); rerun the bench") from exc
    rows: dict[tuple[str, str, str], list[str]] = {}
    for name, fam in families.items():
        page = f"{fam['layout']} {fam['page'][0]}x{fam['page'][1]}"
        rule = fam["default_rule"]
        rests = rests_on_cell(rule)  # the readers' figure is in the cell beside
        if rule["kind"] == "none":
            rests = "no evidence (the family table's default, unconfirmed)"
        rows.setdefault((page, _readers_cell(fam), rests), []).append(f"{name} ({fam['model']})")
    lines = [
        begin,
        _wrap(
            f"{goal['value']:g} of {goal['target']:g} families pass ({where}; "
            f"{_readings_when(record)})."
        ),
        "",
        "| families (the model standing for each) | default layout, page | ≥ 2 qualified readers "
        "per cell (page ±4 px, both hidden texts), each ≥ 0.95 of its control? (OCR: proxies "
        "for models) | rests on (`snapshot profiles`) |",
        "|---|---|---|---|",
    ]
    for (page, readers, rests), names in rows.items():
        lines.append(f"| {', '.join(names)} | {page} | {readers} | {rests} |")
    return "\n".join([*lines, end])


# --- the README file ------------------------------------------------------------------


def _replace(text: str, name: str, block: str, readme: Path) -> str:
    begin, end = markers(name)
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise InputError(f"{readme}: no {begin} … {end} block to rewrite; add one where it goes")
    return text[:start] + block + text[stop + len(end) :]


def rewrite_readme(readme: Path, results: Path) -> None:
    """Replace the README's results block with one generated from ``results``.

    Raises
    ------
    InputError
        If the README has no ``<!-- results:begin -->`` … ``<!-- results:end -->`` block.
    """
    readme_block(readme)  # refused before the results are read
    text = readme.read_text(encoding="utf-8")
    payload = json.loads(results.read_text(encoding="utf-8"))
    readme.write_text(_replace(text, "results", results_block(payload), readme), encoding="utf-8")


def generated_blocks(reports: Path) -> dict[str, str]:
    """Every README block, generated from the committed files in ``reports``.

    Raises
    ------
    InputError
        If ``results.json`` or ``frontier.md`` is missing there.
    """
    results, frontier = reports / "results.json", reports / "frontier.md"
    for path in (results, frontier):
        if not path.is_file():
            raise InputError(f"{path}: missing; README's blocks are generated from it")
    payload = json.loads(results.read_text(encoding="utf-8"))
    return {
        "results": results_block(payload),
        "readability": readability_block(
            frontier.read_text(encoding="utf-8"), payload.get("models", [])
        ),
        "speed": speed_block(reports / "bench"),
        "cost": cost_block(reports / "bench"),
        "defaults": defaults_block(reports / "bench"),
    }


def rewrite_all(readme: Path, reports: Path | None = None) -> None:
    """Rewrite every generated block of ``readme`` from ``reports`` (default: the
    ``reports/`` folder beside it)."""
    text = readme.read_text(encoding="utf-8")
    for name, block in generated_blocks(reports or readme.parent / "reports").items():
        text = _replace(text, name, block, readme)
    readme.write_text(text, encoding="utf-8")


def block_in(readme: Path, name: str) -> str:
    """The block ``name`` as it stands in the README (markers included).

    Raises
    ------
    InputError
        If the README has no such block.
    """
    text = readme.read_text(encoding="utf-8")
    begin, end = markers(name)
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise InputError(f"{readme}: no {begin} … {end} block; add one where its figures go")
    return text[start : stop + len(end)]


def readme_block(readme: Path) -> str:
    """The results block as it stands in the README (markers included)."""
    return block_in(readme, "results")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m snapshot.report.readme [README.md]``: rewrite every generated block."""
    args = list(sys.argv[1:] if argv is None else argv)
    readme = Path(args[0] if args else "README.md")
    try:
        rewrite_all(readme)
    except (InputError, OSError) as exc:
        print(f"snapshot: error: {exc}", file=sys.stderr)
        return 2
    print(f"rewrote the generated blocks of {readme}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
