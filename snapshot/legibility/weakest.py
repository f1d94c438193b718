"""The weakest reader decides: verdicts at the pages providers get, ±4 px, on both texts.

A layout is *readable* when the weakest *qualified* whole-page reader that
measured it reaches the :class:`~snapshot.readability.goal.Goal` on both texts
(generated hard lines and held-out corpus text), at a default profile's real page
size: native characters and exact hard tokens **relative to the reader's own control
page** (:mod:`snapshot.legibility.controls`: the same text, page and ink in plain 16 px
DejaVu Sans Mono), characters after the 0.9× bicubic resample absolute. A reader whose
control is below :data:`~snapshot.legibility.controls.QUALIFY_BAR`, or not read yet, is
shown, labelled, and never decides; a verdict needs :data:`MIN_QUALIFIED` qualified
readers. A reader whose verdict changes when the page
grows or shrinks by :data:`JITTER` px is *unstable for that layout*: its
verdicts are shown side by side, never averaged.

Everything here works on measured :class:`~snapshot.legibility.frontier.Point`
records (the ``PointCache``); nothing is measured or assumed.

>>> jittered((1536, 1568))
((1536, 1568), (1540, 1572), (1532, 1564))
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snapshot.legibility.controls import (
    QUALIFY_BAR,
    Controls,
    Judged,
    control_layout,
    is_control,
)
from snapshot.legibility.corpus_text import TEXTS
from snapshot.legibility.default_evidence import SUPERSEDED_FACES, choices
from snapshot.profiles.default_rule import JITTER, jittered  # the default rule's ±4 px

if TYPE_CHECKING:
    from snapshot.legibility.frontier import CandidateLayout, Point
    from snapshot.readability.goal import Goal


#: The whole-page readers a readability claim needs: every one of them must have read the
#: layout, and the weakest decides (the campaign reads with them in this order).
CLAIM_READERS: tuple[str, ...] = (
    "ppocrv6-small",
    "tesseract-x2",
    "easyocr-en",
    "rapidocr-v4",
    "ppocrv5",
)

#: Qualified readers a "readable" verdict needs (issue 40: at least two).
MIN_QUALIFIED = 2

#: "Similar density": a layout at least this share of the default's characters per px².
SIMILAR_DENSITY = 0.8
#: The profiles whose real pages the frontier reads (each family's default page).
PROFILE_MODELS: tuple[str, ...] = (
    "claude-sonnet-5-5",
    "gpt-6.1-sol",
    "gpt-5.4",
    "gemini-3.8-flash",
    "grok-4",
    "mistral-large-4",
)


@dataclass(frozen=True)
class ProfilePage:
    """A profile's real page and its default layout (font, shade, gaps) on it."""

    model: str
    layout: CandidateLayout

    @property
    def page(self) -> tuple[int, int]:
        return self.layout.page


def profile_pages(models: Sequence[str] = PROFILE_MODELS) -> list[ProfilePage]:
    """Each model's default layout on its real page size (models without a profile skipped).

    >>> [(p.model, p.page) for p in profile_pages(("gpt-6.1-sol",))]
    [('gpt-6.1-sol', (1536, 1568))]
    """
    from snapshot import profiles
    from snapshot.errors import SnapshotError
    from snapshot.legibility.frontier import CandidateLayout

    out = []
    for model in models:
        try:
            g = profiles.profile_for(model, warn=False).geometry()
        except SnapshotError:
            continue
        lay = CandidateLayout(g.font.name, None, g.shade, g.row_gap, g.col_gap, g.size, g.ink)
        out.append(ProfilePage(model, lay))
    return out


def _with_page(layout: CandidateLayout, page: tuple[int, int]) -> CandidateLayout:
    return layout.with_page(page)


@dataclass(frozen=True)
class Verdict:
    """One reader's reading of one layout on one text at one page size, beside its control
    (``judged``; a ±4 px reading without its own control is judged against the real page's).
    ``passed``: the reader is qualified and meets the goal relative to its control, the
    ×0.9 resample included."""

    reader: str
    text: str
    page: tuple[int, int]
    native: Point
    resampled: Point | None
    passed: bool
    judged: Judged | None = None

    @property
    def qualified(self) -> bool:
        return self.judged is not None and self.judged.qualified

    def passes_natively(self, goal: Goal) -> bool:
        """The native bar, relative to the control (False for a reader that cannot judge)."""
        return self.judged is not None and self.qualified and goal.passes(self.judged.reading, None)


def verdicts(
    points: Iterable[Point], layout: CandidateLayout, text: str, goal: Goal
) -> dict[str, list[Verdict]]:
    """reader → its verdicts at the jittered sizes of ``layout`` that were measured, each
    judged against the reader's control (:class:`~snapshot.legibility.controls.Controls`)."""
    every = list(points)
    controls = Controls(p for p in every if p.text == text)
    pts = [p for p in every if p.text == text and p.layout.style == layout.style]
    out: dict[str, list[Verdict]] = {}
    for size in jittered(layout.page):
        key = _with_page(layout, size).key
        for p in pts:
            if p.layout.key != key or p.scale != 1.0:
                continue
            res = next(
                (
                    q
                    for q in pts
                    if q.layout.key == key and q.scale != 1.0 and q.reader_name == p.reader_name
                ),
                None,
            )
            j = controls.judge(p, fallback=layout)
            # the resample is part of the bar (absolute: no control is read at ×0.9)
            passed = res is not None and j.qualified and goal.passes(j.reading, res)
            out.setdefault(p.reader_name, []).append(
                Verdict(p.reader_name, text, size, p, res, passed, j)
            )
    return out


def stability(vs: Sequence[Verdict], goal: Goal) -> str:
    """``"stable"`` when every measured size agrees, ``"unstable"`` when they differ,
    ``"one size"`` when only one was measured.

    Agreement is on the native verdict (characters and exact hard tokens relative to the
    control, against ``goal``), so a page the detector cannot read (0.000) next to one it
    reads is unstable even before its resampled reading is paid for.
    """
    if len(vs) < 2:
        return "one size"
    flips = {v.passes_natively(goal) for v in vs}
    return "stable" if len(flips) == 1 else "unstable"


@dataclass(frozen=True)
class Weakest:
    """The weakest qualified reader of one layout at its real page: who, what, the verdict.

    ``char`` and ``hard`` are ``(reader, text, relative, absolute)``: the lowest native
    figure relative to the reader's control among qualified readers, with its absolute
    figure; ``resampled`` is ``(reader, text, absolute)``."""

    layout: CandidateLayout
    readers: tuple[str, ...]  # readers with a native reading at the real page, both texts pooled
    texts: tuple[str, ...]  # texts measured
    char: tuple[str, str, float, float] | None  # the lowest relative native chars (qualified)
    hard: tuple[str, str, float, float] | None  # the lowest relative exact hard tokens
    resampled: tuple[str, str, float] | None  # the lowest chars after the resample (qualified)
    unstable: tuple[str, ...]  # "reader on text" (qualified) unstable under the ±4 px jitter
    # at least MIN_QUALIFIED qualified readers on each text, each passing relative to its
    # control, resample included, stable at ±4 px, and every required reader measured
    readable: bool
    jitter_measured: bool = False  # some qualified reader was read at a ±4 px page too
    # "reader on text" of the required readers with no native reading (or no control
    # reading) at the real page
    not_measured: tuple[str, ...] = ()
    # "reader on text" (qualified) whose native reading at the real page is below the goal
    # relative to its control: each alone decides the verdict, whatever is still unmeasured
    below: tuple[str, ...] = ()
    # "reader on text" (qualified) that pass natively but have no ×0.9 reading yet
    resample_missing: tuple[str, ...] = ()
    # "reader on text" that read the layout and judge it (control ≥ QUALIFY_BAR)
    qualified: tuple[str, ...] = ()
    # "reader on text: why" of readers that read the layout but do not judge: control below
    # QUALIFY_BAR, or not read yet (shown, never deciding)
    unqualified: tuple[str, ...] = ()

    @property
    def resampled_cell(self) -> str:
        """The weakest ×0.9 figure, or why there is none: moot when every qualified reader
        is below the bar natively (the resample cannot change the verdict), else missing."""
        if self.resampled is not None:
            return _fmt(self.resampled)
        if self.resample_missing:
            return f"not measured ({', '.join(self.resample_missing)})"
        return "moot: no qualified reader passes natively" if self.qualified else "–"

    @property
    def unqualified_cell(self) -> str:
        return "; ".join(self.unqualified) or "none"

    @property
    def why(self) -> str:
        if self.readable:
            return "readable: every qualified reader meets the goal on both texts"
        gaps = []
        if self.below:
            gaps.append(f"below the bar natively: {', '.join(self.below)}")
        if self.not_measured:
            gaps.append(f"not measured: {_grouped(self.not_measured)}")
        if self.resample_missing:
            gaps.append(f"×0.9 not measured: {', '.join(self.resample_missing)}")
        if set(self.texts) != set(TEXTS):
            gaps.append(f"texts measured: {', '.join(self.texts) or 'none'}")
        short = [
            t for t in self.texts if sum(q.endswith(f" on {t}") for q in self.qualified)
            < MIN_QUALIFIED
        ]  # fmt: skip
        if short:
            gaps.append(f"fewer than {MIN_QUALIFIED} qualified readers on {', '.join(short)}")
        if self.unstable:
            gaps.append(f"unstable: {', '.join(self.unstable)}")
        if not self.jitter_measured:
            gaps.append("±4 px not measured")
        return "not readable" + (f" ({'; '.join(gaps)})" if gaps else "")


def _grouped(pairs: Sequence[str]) -> str:
    """ "r on t" pairs, a reader missing every text said once.

    >>> _grouped(["a on hardlines", "b on hardlines", "a on corpus"])
    'a (both texts), b on hardlines'
    """
    by_reader: dict[str, list[str]] = {}
    for pair in pairs:
        reader, text = pair.split(" on ", 1)
        by_reader.setdefault(reader, []).append(text)
    return ", ".join(
        f"{r} (both texts)" if len(ts) == len(TEXTS) else ", ".join(f"{r} on {t}" for t in ts)
        for r, ts in by_reader.items()
    )


def weakest(
    points: Sequence[Point], layout: CandidateLayout, goal: Goal, required: Sequence[str] = ()
) -> Weakest:
    """The weakest qualified reader of ``layout`` (at its own page) over both texts, judged
    relative to each reader's control; with ``required`` readers, readable only once each of
    them has read it and its control on both texts."""
    char: tuple[str, str, float, float] | None = None
    hard: tuple[str, str, float, float] | None = None
    resampled: tuple[str, str, float] | None = None
    readers: set[str] = set()
    texts: list[str] = []
    unstable: list[str] = []
    below: list[str] = []
    resample_missing: list[str] = []
    qualified: list[str] = []
    unqualified: list[str] = []
    no_control: set[tuple[str, str]] = set()
    every_pass = True
    jitter_measured = False
    for text in TEXTS:
        by_reader = verdicts(points, layout, text, goal)
        at_page = {
            r: next((v for v in vs if v.page == layout.page), None) for r, vs in by_reader.items()
        }
        if any(at_page.values()):
            texts.append(text)
        for reader, vs in sorted(by_reader.items()):
            v = at_page[reader]
            if v is None or v.judged is None:
                continue
            readers.add(reader)
            j = v.judged
            if not j.qualified:
                unqualified.append(f"{reader} on {text}: {j.label}")
                if j.control is None:
                    no_control.add((reader, text))
                continue
            qualified.append(f"{reader} on {text}")
            jitter_measured = jitter_measured or len(vs) > 1  # a judging reader's ±4 px
            if stability(vs, goal) == "unstable":
                unstable.append(f"{reader} on {text}")
            every_pass = every_pass and v.passed
            if not v.passes_natively(goal):
                below.append(f"{reader} on {text}")
            elif v.resampled is None:
                resample_missing.append(f"{reader} on {text}")
            n = v.native
            if char is None or j.relative < char[2]:
                char = (reader, text, j.relative, n.char_accuracy)
            if hard is None or j.hard_relative < hard[2]:
                hard = (reader, text, j.hard_relative, n.hard_token_accuracy)
            if v.resampled is not None and (
                resampled is None or v.resampled.char_accuracy < resampled[2]
            ):
                resampled = (reader, text, v.resampled.char_accuracy)
    have = {
        (p.reader_name, p.text) for p in points if p.scale == 1.0 and p.layout.key == layout.key
    }
    not_measured = tuple(
        f"{r} on {t}" for t in TEXTS for r in required if (r, t) not in have or (r, t) in no_control
    )
    enough = all(sum(q.endswith(f" on {t}") for q in qualified) >= MIN_QUALIFIED for t in TEXTS)
    readable = (
        enough and every_pass and set(texts) == set(TEXTS) and not unstable
        and jitter_measured and not not_measured
    )  # fmt: skip
    return Weakest(
        layout,
        tuple(sorted(readers)),
        tuple(texts),
        char,
        hard,
        resampled,
        tuple(unstable),
        readable,
        jitter_measured,
        not_measured,
        tuple(below),
        tuple(resample_missing),
        tuple(qualified),
        tuple(unqualified),
    )


def _jitter(w: Weakest) -> str:
    if w.unstable:
        return "unstable: " + ", ".join(w.unstable)
    return "stable where measured" if w.jitter_measured else "not measured"


def _fmt(v: tuple[str, str, float] | tuple[str, str, float, float] | None) -> str:
    """A weakest figure with its reader and text: relative with the absolute beside it
    (a native figure), or absolute (×0.9).

    >>> _fmt(("r", "corpus", 0.95, 0.912)), _fmt(("r", "corpus", 0.85))
    ('0.950 of control, 0.912 absolute (r, corpus)', '0.850 absolute (r, corpus)')
    """
    if v is None:
        return "–"
    if len(v) == 4:
        return f"{v[2]:.3f} of control, {v[3]:.3f} absolute ({v[0]}, {v[1]})"
    return f"{v[2]:.3f} absolute ({v[0]}, {v[1]})"


def weakest_table(
    points: Sequence[Point],
    layouts: Sequence[tuple[str, CandidateLayout]],
    goal: Goal,
    required: Sequence[str] = (),
) -> str:
    """Markdown: per (profile, layout at its real page), the weakest qualified reader's
    figures (relative to its control, the absolute beside it), the verdict, and the readers
    that read it but do not judge (``required``: the readers a verdict needs,
    :func:`weakest`)."""
    rows = [
        "| profile | layout (real page) | readers measured | texts | weakest chars "
        "| weakest hard tokens | weakest ×0.9 chars | ±4 px | verdict "
        f"| not judging (control < {QUALIFY_BAR} or not read) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for model, lay in layouts:
        w = weakest(points, lay, goal, required)
        if not w.readers:
            continue
        rows.append(
            f"| {model} | {lay.key} | {', '.join(w.readers)} | {', '.join(w.texts)} | {_fmt(w.char)} | "
            f"{_fmt(w.hard)} | {w.resampled_cell} | "
            f"{_jitter(w)} "
            f"| {w.why} | {w.unqualified_cell} |"
        )
    return "\n".join(rows) + "\n"


def stability_table(points: Sequence[Point], pages: Sequence[ProfilePage], goal: Goal) -> str:
    """Markdown: each profile's default layout (and any other measured style) at its real page
    and ±4 px, per reader and text: native chars relative to the reader's control (absolute
    chars, exact hard tokens), the control at the real page, and whether the verdict holds
    across the sizes."""
    rows = [
        "| profile | layout | reader | text | control at the real page | "
        + " | ".join(("real page", f"+{JITTER} px", f"−{JITTER} px"))
        + " | ±4 px | measured (UTC, load average) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for pp in pages:
        styles = sorted(
            {
                p.layout.style
                for p in points
                if p.layout.page in jittered(pp.page) and not is_control(p.layout)
            },
            key=lambda s: (s != pp.layout.style, str(s)),
        )
        for style in styles:
            lay = next(p.layout for p in points if p.layout.style == style).with_page(pp.page)
            for text in TEXTS:
                for reader, vs in sorted(verdicts(points, lay, text, goal).items()):
                    cells = []
                    for size in jittered(pp.page):
                        v = next((x for x in vs if x.page == size), None)
                        cells.append(_size_cell(v) + f" {size[0]}x{size[1]}" if v else "–")
                    real = next((x for x in vs if x.page == pp.page), None)
                    control = _control_cell(real.judged if real else None)
                    rows.append(
                        f"| {pp.model} | {lay.key.rsplit(' ', 1)[0]} | {reader} | {text} | "
                        + f"{control} | "
                        + " | ".join(cells)
                        + f" | {stability(vs, goal)} | {when(v.native for v in vs)} |"
                    )
    return "\n".join(rows) + "\n"


def _size_cell(v: Verdict) -> str:
    """One reading in the stability table: relative to the control where there is one.

    >>> from types import SimpleNamespace as P
    >>> _size_cell(P(native=P(char_accuracy=0.9, hard_token_accuracy=0.8), judged=None))
    '0.900 absolute (0.80)'
    """
    n = v.native
    j = v.judged
    if j is None or j.control is None:
        return f"{n.char_accuracy:.3f} absolute ({n.hard_token_accuracy:.2f})"
    return (
        f"{j.relative:.3f} of control ({n.char_accuracy:.3f} absolute, {n.hard_token_accuracy:.2f})"
    )


def _control_cell(j: Judged | None) -> str:
    if j is None or j.control is None:
        return "not read"
    return f"{j.control.char_accuracy:.3f} " + ("qualified" if j.qualified else "unqualified")


def unmeasured(
    points: Iterable[Point],
    pages: Sequence[ProfilePage],
    extra: Sequence[CandidateLayout],
    readers: Sequence[str],
) -> list[str]:
    """Per profile's default layout (and each of ``extra``) at its real page: the (reader,
    text) native readings no point holds there, how many of the ±:data:`JITTER` px
    readings are missing, and the ×0.9 readings missing where a qualified reader passes the
    :class:`~snapshot.readability.goal.Goal` natively relative to its control: what a claim about that layout
    still lacks.

    >>> from snapshot.legibility.frontier import CandidateLayout
    >>> unmeasured([], profile_pages(("grok-4",)), (), ["r1"])
    ... # doctest: +NORMALIZE_WHITESPACE
    ['grok-4, snap8x16 1-bit gap 0x0 768x1568: r1 on hardlines, r1 on corpus,
      r1 on hardlines (control), r1 on corpus (control); ±4 px: 4 of 4 missing']
    """
    from snapshot.readability.goal import Goal

    points = list(points)
    have = {(p.layout.key, p.reader_name, p.text) for p in points if p.scale == 1.0}
    resampled = {(p.layout.key, p.reader_name, p.text) for p in points if p.scale != 1.0}
    controls = Controls(points)
    passing = {
        (p.layout.key, p.reader_name, p.text)
        for p in points
        if p.scale == 1.0
        and (j := controls.judge(p)).qualified
        and Goal.relative().passes(j.reading, None)
    }
    out = []
    for pp in pages:
        for style in dict.fromkeys([pp.layout, *(x.with_page(pp.page) for x in extra)]):
            real = [f"{r} on {t}" for t in TEXTS for r in readers if (style.key, r, t) not in have]
            control = control_layout(style).key
            real += [
                f"{r} on {t} (control)" for t in TEXTS for r in readers
                if (control, r, t) not in have
            ]  # fmt: skip
            res = [
                f"{r} on {t}"
                for t in TEXTS
                for r in readers
                if (style.key, r, t) in passing - resampled
            ]
            sizes = jittered(pp.page)[1:]
            todo = [
                1
                for size in sizes
                for t in TEXTS
                for r in readers
                if (style.with_page(size).key, r, t) not in have
            ]
            if real or todo or res:
                n = len(sizes) * len(TEXTS) * len(readers)
                out.append(
                    f"{pp.model}, {style.key}: {', '.join(real) or 'all measured'}; "
                    f"±{JITTER} px: {len(todo)} of {n} missing"
                    + (
                        f"; ×0.9 (passes natively, not resampled yet): {', '.join(res)}"
                        if res
                        else ""
                    )
                )
    return out


def when(points: Iterable[Point]) -> str:
    """When and at what load the readings were taken, as the points recorded it.

    >>> from types import SimpleNamespace as P
    >>> when([P(measured_at="2026-12-02 04:10", load=14.2), P(measured_at="", load=None)])
    '2026-12-02 04:10 (14.2); 1 not recorded'
    """
    seen, missing = [], 0
    for p in points:
        if p.measured_at:
            load = "load not recorded" if p.load is None else f"{p.load:.1f}"
            seen.append(f"{p.measured_at} ({load})")
        else:
            missing += 1
    parts = [", ".join(seen)] if seen else []
    if missing:
        parts.append(f"{missing} not recorded")
    return "; ".join(parts)


def committed_points() -> Path:
    """The repository's measured readings (``reports/frontier-points.jsonl``)."""
    return Path(__file__).resolve().parents[2] / "reports" / "frontier-points.jsonl"


def profile_readability(model: str, points_file: Path | None = None) -> dict[str, object]:
    """The weakest whole-page reader of ``model``'s default layout at its real page.

    Read from measured points (default :func:`committed_points`); a page nobody
    measured says so (``"measured": False``), it is never filled in.

    >>> profile_readability("gpt-6.1-sol", Path("/nonexistent.jsonl"))["measured"]
    False
    """
    from snapshot.legibility.frontier import PointCache
    from snapshot.readability.goal import Goal

    (pp,) = profile_pages((model,)) or (None,)
    src = points_file or committed_points()
    if pp is None:
        return {"measured": False, "why": f"{model}: no profile"}
    if not src.is_file():
        return {"measured": False, "layout": pp.layout.key, "why": f"{src}: no measured points"}

    points = PointCache(src).points()
    w = weakest(points, pp.layout, Goal.relative(), CLAIM_READERS)
    if not w.readers:
        return {"measured": False, "layout": pp.layout.key, "why": "not measured at this page"}
    return {
        "measured": True,
        "layout": pp.layout.key,
        "source": str(src.name),
        "readers": list(w.readers),
        "texts": list(w.texts),
        "weakest_chars": list(w.char) if w.char else None,
        "weakest_hard_tokens": list(w.hard) if w.hard else None,
        "weakest_resampled_chars": list(w.resampled) if w.resampled else None,
        # weakest_chars / weakest_hard_tokens are [reader, text, relative, absolute]: the
        # figure as a share of the reader's control page, then as read
        "relative_to_control": True,
        "qualify_bar": QUALIFY_BAR,
        "qualified": list(w.qualified),
        "unqualified": list(w.unqualified),
        # the ×0.9 figure, or why there is none (moot below the bar natively, or missing)
        "resampled": w.resampled_cell,
        "unstable": list(w.unstable),
        "readable": w.readable,
        "verdict": w.why,
        "better_ocr_layout": (better := _better(model, points)),
        # said beside the model evidence: legibility.rests_on.better_line
        "better_ocr_line": _better_line(model, better),
    }


def record_layout(record: Mapping[str, Any]) -> CandidateLayout:
    """The layout a profile record (``Profile.as_dict()``, ``snapshot profiles --json``)
    draws on its page: what its readings are keyed by.

    >>> from snapshot import profiles
    >>> record_layout(profiles.profile_for("grok-4").as_dict()).key
    'snap8x16 1-bit gap 0x0 768x1568'
    """
    from snapshot.legibility.frontier import CandidateLayout

    w, h = record["page"]
    return CandidateLayout(
        str(record["font"]), record.get("font_size"), str(record.get("shade") or "1-bit"),
        int(record.get("row_gap") or 0), int(record.get("col_gap") or 0), (int(w), int(h)),
        str(record.get("ink") or "black-on-white"),
    )  # fmt: skip


def weakest_column(
    records: Sequence[Mapping[str, Any]], points_file: Path | None = None
) -> dict[str, str]:
    """Per profile record (``snapshot profiles``'s listing), the weakest whole-page reader of
    its layout at its page, natively: characters relative to the reader's control (the
    absolute beside it), the reader and the text (``✓`` only when
    the layout is readable by the weakest-reader bar). Records whose layout nobody read are
    left out; :func:`profile_readability` has the full verdict.

    >>> weakest_column([{"model": "m", "font": "snap8x16", "page": [9, 9]}], Path("/none.jsonl"))
    {}
    """
    from snapshot.legibility.frontier import PointCache
    from snapshot.readability.goal import Goal

    src = points_file or committed_points()
    if not src.is_file():
        return {}
    points = PointCache(src).points()
    keys = {p.layout.key for p in points}
    out = {}
    for r in records:
        lay = record_layout(r)
        if lay.key not in keys:
            continue  # nothing read at this page: no need to work out a verdict
        w = weakest(points, lay, Goal.relative(), CLAIM_READERS)
        if w.char is not None:
            out[str(r["model"])] = _column_cell(w)
    return out


def _column_cell(w: Weakest) -> str:
    """The listing's cell: the weakest qualified reader's native characters relative to its
    control, the absolute beside it, reader and text (``✓`` when readable)."""
    assert w.char is not None
    reader, text, rel, acc = w.char
    return f"{rel:.3f} of control ({acc:.3f}) {reader} on {text}" + (" ✓" if w.readable else "")


def _better_line(model: str, better: dict[str, object] | None) -> str:
    from snapshot import profiles

    return better_line(better, profiles.profile_for(model, warn=False).as_dict()["evidence"])


def _better(model: str, points: Sequence[Point]) -> dict[str, object] | None:
    found = better_at_page(model, points)
    if found is None:
        return None
    lay, rel = found
    (pp,) = profile_pages((model,))
    native = [p for p in points if p.scale == 1.0]
    base = {(p.reader_name, p.text): p.char_accuracy for p in native if p.layout == pp.layout}
    mine = {(p.reader_name, p.text): p.char_accuracy for p in native if p.layout == lay}
    return {
        "layout": lay.key,
        "density_vs_default": round(rel, 2),
        # what the claim rests on: reader, text, the candidate's and the default's chars
        "compared": [[r, t, mine[r, t], base[r, t]] for r, t in sorted(base.keys() & mine.keys())],
    }


def better_at_page(model: str, points: Sequence[Point]) -> tuple[CandidateLayout, float] | None:
    """A layout read at ``model``'s real page that every reader measured on both it and the
    default reads better (native characters, same text), densest first; with its density
    relative to the default's. None when no such layout was measured.

    OCR evidence only: whether models read it better is the model evidence's to say.

    >>> better_at_page("gpt-6.1-sol", []) is None
    True
    """
    (pp,) = profile_pages((model,)) or (None,)
    if pp is None:
        return None
    at_page = [p for p in points if p.layout.page == pp.page and p.scale == 1.0]
    base = {(p.reader_name, p.text): p.char_accuracy for p in at_page if p.layout == pp.layout}
    if not base:
        return None
    best: tuple[CandidateLayout, float] | None = None
    candidates = {
        p.layout
        for p in at_page
        if p.layout != pp.layout
        and p.layout.font not in SUPERSEDED_FACES
        and not is_control(p.layout)  # a control is the yardstick, not a candidate layout
    }
    for lay in sorted(candidates, key=lambda x: x.key):
        mine = {(p.reader_name, p.text): p.char_accuracy for p in at_page if p.layout == lay}
        common = base.keys() & mine.keys()
        if common and all(mine[k] > base[k] for k in common):
            rel = lay.chars_per_kpx / pp.layout.chars_per_kpx
            if best is None or rel > best[1]:
                best = (lay, rel)
    return best


__all__ = [
    "JITTER",
    "MIN_QUALIFIED",
    "PROFILE_MODELS",
    "SUPERSEDED_FACES",
    "ProfilePage",
    "Verdict",
    "Weakest",
    "better_at_page",
    "committed_points",
    "jittered",
    "profile_pages",
    "profile_readability",
    "record_layout",
    "stability",
    "stability_table",
    "unmeasured",
    "verdicts",
    "weakest",
    "weakest_column",
    "weakest_table",
    "when",
]


def verdicts_data(points_file: Path | None = None) -> dict[str, Any]:
    """What :mod:`snapshot.profiles.readability` reads: every vision profile's full verdict
    (:func:`profile_readability`) and the weakest reader's native cell at every layout
    the readings hold (:func:`weakest_column`'s figure), from ``points_file`` (default
    :func:`committed_points`)."""
    from snapshot import profiles
    from snapshot.legibility.frontier import PointCache
    from snapshot.readability.goal import Goal

    src = points_file or committed_points()
    by_model = {}
    for model in profiles.lineup():
        record = profiles.profile_for(model, warn=False).as_dict()
        if record["vision"]:
            by_model[model] = profile_readability(model, src)
    by_layout: dict[str, str] = {}
    if src.is_file():
        points = PointCache(src).points()
        layouts = {p.layout for p in points if not is_control(p.layout)}
        for layout in sorted(layouts, key=lambda lay: lay.key):
            w = weakest(points, layout, Goal.relative(), CLAIM_READERS)
            if w.char is not None:
                by_layout[layout.key] = _column_cell(w)
    return {
        "source": f"reports/{src.name}",
        "written_by": "snapshot.legibility.weakest.write_verdicts",
        "by_model": by_model,
        "by_layout": by_layout,
        # per vision profile: the default rule's choice and the evidence it rests on
        "defaults": choices(PointCache(src).points() if src.is_file() else [], list(by_model)),
    }


def write_verdicts(path: Path | None = None, points_file: Path | None = None) -> Path:
    """Write :func:`verdicts_data` where the profiles read it (the wheel ships that file)."""
    from snapshot.profiles.readability import VERDICTS_FILE

    out = path or VERDICTS_FILE
    text = json.dumps(verdicts_data(points_file), indent=1, sort_keys=True, ensure_ascii=False)
    out.write_text(text + "\n", encoding="utf-8")
    return out


def better_line(
    better: Mapping[str, Any] | None, model_evidence: Sequence[Mapping[str, Any]]
) -> str:
    """The OCR-better layout of similar density, and whether model evidence names it
    (its font named in a claim); empty when there is none."""
    if not better or float(better["density_vs_default"]) < SIMILAR_DENSITY:
        return ""
    layout = str(better["layout"])
    font = layout.split()[0]
    named = [e for e in model_evidence if font in str(e.get("claim", ""))]
    compared = "; ".join(
        f"{r} on {t} {a:.3f} vs {b:.3f}" for r, t, a, b in better.get("compared", ())
    )
    head = (
        f"OCR evidence: every reader that measured both reads {layout} better at this page "
        f"({float(better['density_vs_default']):.2f}× the density"
        + (f"; characters, it vs the default: {compared}" if compared else "")
        + ")"
    )
    if named:
        return (
            head
            + "; model evidence names it: "
            + "; ".join(f"[{e.get('label')}] {e.get('claim')}" for e in named)
        )
    return (
        head + ", and no model evidence here names it; a candidate default pending model evidence"
    )
