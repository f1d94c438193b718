"""Profile tuning: the most characters per billed token that a reader still reads.

The search space is font × cell spacing (extra column / row pitch) × ink style
× page size. Density (characters per page / billed image tokens) is pure
arithmetic, so candidates are ranked by it first and read only as needed: the
first candidate, densest first, whose measured accuracy meets the target wins.
Only page sizes the provider passes unresampled are candidates (a server-side
downscale with an unpublished filter is what the lab shows destroys 5-px
glyphs), so accuracy depends on font, spacing and ink alone and is measured
once for each.

The winner is written as a profile file that ``--profile FILE`` loads, with the
full trail: every denser candidate and the accuracy that ruled it out.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from snapshot.errors import SnapshotError, UnknownFontError
from snapshot.legibility.hardlines import hard_lines
from snapshot.legibility.readers import Reader, line_geometry, measure
from snapshot.legibility.resample import NATIVE
from snapshot.progress import progress

DEFAULT_FONTS: tuple[str, ...] = ("snap5x8", "misc-5x8", "spleen-5x8", "misc-6x12", "snap8x16")
DEFAULT_COL_GAPS: tuple[int, ...] = (0, 1)
DEFAULT_ROW_GAPS: tuple[int, ...] = (0, 1, 2)
DEFAULT_INKS: tuple[str, ...] = ("black-on-white", "white-on-black")
PROFILE_FORMAT = "snapshot-profile/1"


@dataclass(frozen=True)
class Billing:
    """What tuning needs from a profile: tokens and seen size for a w×h page."""

    model: str
    tokens: Callable[[int, int], int]
    seen: Callable[[int, int], tuple[int, int]]
    default_size: tuple[int, int]
    page_sizes: tuple[tuple[int, int], ...]
    source: str


def seen_size(profile: Any, w: int, h: int) -> tuple[int, int]:
    """The size the provider's model receives for a w×h upload (the profile's scheme)."""
    sw, sh = profile.scheme.seen(w, h)
    return int(sw), int(sh)


def _snap(sides: Sequence[int], target: int) -> int | None:
    fit = [s for s in sides if s <= target]
    return max(fit) if fit else None


def billing_for(model: str, profile: Any | None = None) -> Billing:
    """Billing and candidate page sizes from ``snapshot.profiles`` (the one source of
    provider facts)."""
    from snapshot import profiles

    profile = profile or profiles.profile_for(model)  # UnknownModelError is a SnapshotError
    w0, h0 = (int(v) for v in profile.geometry().size)
    cap_w, cap_h = (int(v) for v in profile.legible_max)

    def tokens(w: int, h: int) -> int:
        return int(profiles.image_tokens(profile, w, h))

    def seen(w: int, h: int) -> tuple[int, int]:
        return seen_size(profile, w, h)

    # Page sizes around the profile's own, snapped to the sides its billing
    # scheme wastes nothing on (multiples of the patch or tile).
    sides = tuple(profile.scheme.sides(max(cap_w, cap_h, w0, h0)))
    sizes = {(w0, h0)}
    for fw, fh in ((0.5, 1.0), (1.0, 0.5), (0.5, 0.5), (0.75, 0.75)):
        sw = _snap(sides, int(w0 * fw)) if sides else int(w0 * fw)
        sh = _snap(sides, int(h0 * fh)) if sides else int(h0 * fh)
        if sw and sh and sw >= 64 and sh >= 32:
            sizes.add((sw, sh))
    return Billing(
        model=model,
        tokens=tokens,
        seen=seen,
        default_size=(w0, h0),
        page_sizes=tuple(sorted(sizes)),
        source=f"snapshot.profiles: {profile.canonical} via {profile.route}, "
        f"{profile.scheme.describe()}",
    )


@dataclass(frozen=True)
class Candidate:
    font: str
    cell: tuple[int, int]
    col_gap: int
    row_gap: int
    ink: str
    page: tuple[int, int]
    seen: tuple[int, int]
    cols: int
    rows: int
    chars_per_page: int
    tokens: int

    @property
    def density(self) -> float:
        """Characters per billed image token."""
        return self.chars_per_page / self.tokens if self.tokens else 0.0

    @property
    def resampled(self) -> bool:
        return self.seen != self.page

    @property
    def style(self) -> tuple[str, int, int, str, tuple[int, int] | None]:
        """What accuracy depends on (page size only through a provider resample)."""
        scale = self.seen if self.resampled else None
        return (self.font, self.col_gap, self.row_gap, self.ink, scale)


@dataclass(frozen=True)
class Trial:
    candidate: Candidate
    char_accuracy: float
    token_accuracy: float
    passed: bool
    note: str


@dataclass(frozen=True)
class TuneResult:
    model: str
    reader: str
    target: float
    lines: int
    winner: Trial | None
    trials: tuple[Trial, ...]  # in the order read: densest first
    skipped: tuple[str, ...]  # fonts not available here, with the reason
    billing_source: str
    why: str = field(default="")


def candidates(
    billing: Billing,
    fonts: Sequence[Any],
    col_gaps: Sequence[int],
    row_gaps: Sequence[int],
    inks: Sequence[str],
    sizes: Sequence[tuple[int, int]] | None = None,
) -> list[Candidate]:
    """Every combination that fits, densest first (ties: fewer tokens, then names)."""
    from snapshot.rendering.geometry import Geometry

    out = []
    for font in fonts:
        for cg in col_gaps:
            for rg in row_gaps:
                for ink in inks:
                    for w, h in sizes or billing.page_sizes:
                        if billing.seen(w, h) != (w, h):
                            continue  # the provider would resample it: never drawn
                        try:
                            g = Geometry.fit(font, w, h, col_gap=cg, row_gap=rg, ink=ink)
                        except SnapshotError:
                            continue  # page too small for this cell
                        out.append(
                            Candidate(
                                font=font.name,
                                cell=tuple(font.cell),
                                col_gap=cg,
                                row_gap=rg,
                                ink=ink,
                                page=(w, h),
                                seen=billing.seen(w, h),
                                cols=g.cols,
                                rows=g.rows,
                                chars_per_page=g.chars_per_page,
                                tokens=billing.tokens(w, h),
                            )
                        )
    out.sort(key=lambda c: (-c.density, c.tokens, c.font, c.col_gap, c.row_gap, c.ink, c.page))
    return out


def load_fonts(names: Sequence[str]) -> tuple[list[Any], list[str]]:
    """Fonts that load here, and a reason for each that does not."""
    from snapshot.rendering.glyphs import load_font

    fonts, skipped = [], []
    for name in names:
        try:
            fonts.append(load_font(name))
        except UnknownFontError as exc:
            skipped.append(f"{name}: not available ({str(exc).split(';')[0]})")
    return fonts, skipped


def tune(
    model: str,
    reader: Reader,
    *,
    target: float = 0.99,
    fonts: Sequence[str] = DEFAULT_FONTS,
    col_gaps: Sequence[int] = DEFAULT_COL_GAPS,
    row_gaps: Sequence[int] = DEFAULT_ROW_GAPS,
    inks: Sequence[str] = DEFAULT_INKS,
    sizes: Sequence[tuple[int, int]] | None = None,
    lines: int = 40,
    seed: int = 0,
    billing: Billing | None = None,
    max_reads: int | None = None,
) -> TuneResult:
    """Search for the densest candidate whose reader accuracy meets ``target``."""
    if not 0.0 < target <= 1.0:
        raise SnapshotError(f"--target must be in (0, 1], got {target}")
    billing = billing or billing_for(model)
    loaded, skipped = load_fonts(fonts)
    if not loaded:
        raise SnapshotError("no font to tune: " + "; ".join(skipped))
    by_name = {f.name: f for f in loaded}
    cands = candidates(billing, loaded, col_gaps, row_gaps, inks, sizes)
    if not cands:
        raise SnapshotError("no candidate page fits; give larger --size values")
    text = hard_lines(lines, seed=seed)
    cache: dict[tuple[Any, ...], tuple[float, float, str]] = {}
    trials: list[Trial] = []
    winner: Trial | None = None
    for cand in progress(cands, desc="tune", total=len(cands), unit="candidate"):
        key = cand.style
        if key not in cache:
            if max_reads is not None and len(cache) >= max_reads:
                break
            cache[key] = _accuracy(reader, by_name[cand.font], cand, text, seed)
        acc, tok, note = cache[key]
        trial = Trial(cand, acc, tok, acc >= target, note)
        trials.append(trial)
        if trial.passed:
            winner = trial
            break
    result = TuneResult(
        model=model,
        reader=reader.name,
        target=target,
        lines=lines,
        winner=winner,
        trials=tuple(trials),
        skipped=tuple(skipped),
        billing_source=billing.source,
    )
    return _with_why(result)


def _accuracy(
    reader: Reader, font: Any, cand: Candidate, text: list[str], seed: int
) -> tuple[float, float, str]:
    # Candidates are pages the provider passes unresampled, so the reader sees
    # them at native size; accuracy then depends on font, spacing and ink only.
    geometry = line_geometry(font, text, col_gap=cand.col_gap, row_gap=cand.row_gap, ink=cand.ink)
    m = measure(reader, text, geometry, NATIVE, seed=seed)
    return m.char_accuracy, m.token_accuracy, "read at native size"


def _with_why(result: TuneResult) -> TuneResult:
    w = result.winner
    if w is None:
        best = max(result.trials, key=lambda t: t.char_accuracy, default=None)
        why = (
            f"no candidate reached {result.target:.3f} character accuracy with the "
            f"{result.reader} reader"
            + (
                f"; the best was {best.candidate.font} (accuracy {best.char_accuracy:.3f})"
                if best
                else ""
            )
        )
    else:
        c = w.candidate
        denser = [t for t in result.trials if t is not w]
        why = (
            f"{c.font} with col_gap={c.col_gap}, row_gap={c.row_gap}, {c.ink}, "
            f"{c.page[0]}x{c.page[1]} px holds {c.chars_per_page} chars for {c.tokens} tokens "
            f"({c.density:.2f} chars/token); the {result.reader} reader scored "
            f"{w.char_accuracy:.3f} >= {result.target:.3f} on {result.lines} hard lines"
        )
        if denser:
            worst = min(denser, key=lambda t: t.char_accuracy)
            why += (
                f"; {len(denser)} denser candidate(s) fell short "
                f"(lowest: {worst.candidate.font} at {worst.char_accuracy:.3f})"
            )
    return TuneResult(
        **{**{f: getattr(result, f) for f in result.__dataclass_fields__}, "why": why}
    )


def profile_document(result: TuneResult) -> dict[str, Any]:
    """The profile file: an entry ``snapshot.profiles.load_profiles`` accepts, plus the
    evidence (``tuned``: every candidate read, and why the winner won)."""
    if result.winner is None:
        raise SnapshotError(result.why)
    c = result.winner.candidate
    entry: dict[str, Any] = {
        "model": result.model,
        "base": result.model,
        "font": c.font,
        "page": list(c.page),
        "evidence": [
            f"snapshot tune ({result.reader} reader, target {result.target}): {result.why}"
        ],
    }
    # Spacing and ink go into the entry only when they differ from the defaults.
    for key, value, default in (
        ("col_gap", c.col_gap, 0),
        ("row_gap", c.row_gap, 0),
        ("ink", c.ink, "black-on-white"),
    ):
        if value != default:
            entry[key] = value
    return {
        "profile": [entry],
        "tuned": {
            "format": PROFILE_FORMAT,
            "reader": result.reader,
            "target": result.target,
            "lines": result.lines,
            "billing": result.billing_source,
            "why": result.why,
            "geometry": {
                "font": c.font,
                "cell": list(c.cell),
                "col_gap": c.col_gap,
                "row_gap": c.row_gap,
                "ink": c.ink,
                "page": list(c.page),
                "cols": c.cols,
                "rows": c.rows,
            },
            "chars_per_page": c.chars_per_page,
            "image_tokens": c.tokens,
            "chars_per_token": round(c.density, 4),
            "char_accuracy": round(result.winner.char_accuracy, 4),
            "token_accuracy": round(result.winner.token_accuracy, 4),
            "rejected": [
                {
                    **{k: v for k, v in asdict(t.candidate).items() if k != "seen"},
                    "chars_per_token": round(t.candidate.density, 4),
                    "char_accuracy": round(t.char_accuracy, 4),
                    "note": t.note,
                }
                for t in result.trials
                if t is not result.winner
            ],
            "skipped_fonts": list(result.skipped),
        },
    }


def write_profile(result: TuneResult, path: str | os.PathLike[str]) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(profile_document(result), indent=2) + "\n", encoding="utf-8")
    return out


# ---------------------------------------------------------------------------- whole-page tuning
# The search the issue asks for: whole pages read by an independent page reader
# (snapshot.legibility.page_readers), on the tuning seed, never the held-out one.

#: CandidateLayout styles searched by default: font × pixel size × shade × row gap × column gap.
DEFAULT_STYLES: tuple[tuple[str, int | None, str], ...] = (
    ("snap5x9v2", None, "gray"),  # the dense layout's face (profiles.dense): gray edges
    ("snap5x10", None, "gray"),
    ("snap5x10", None, "1-bit"),
    ("snap5x8", None, "1-bit"),
    ("snap8x16", None, "1-bit"),
    ("misc-6x12", None, "1-bit"),
    ("dejavu-sans-mono", 7, "gray"),
    ("dejavu-sans-mono", 8, "gray"),
    ("dejavu-sans-mono", 8, "1-bit"),
    ("noto-sans-mono", 8, "gray"),
)
DEFAULT_PAGE_ROW_GAPS: tuple[int, ...] = (0, 1, 2)
DEFAULT_PAGE_COL_GAPS: tuple[int, ...] = (0,)
#: Extra stroke widths searched (:mod:`snapshot.legibility.stroke`; a lab axis: a heavier
#: stroke that passes is reported, never written into a profile the renderer cannot draw).
DEFAULT_PAGE_STROKES: tuple[int, ...] = (0, 1)


@dataclass(frozen=True)
class PageCandidate:
    """A layout on a page size the provider passes unresampled, with its bill."""

    layout: Any  # frontier.CandidateLayout
    chars_per_page: int
    tokens: int

    @property
    def chars_per_token(self) -> float:
        return self.chars_per_page / self.tokens if self.tokens else 0.0


@dataclass(frozen=True)
class PageTrial:
    candidate: PageCandidate
    native: Any  # frontier.Point: the weakest reader's (the first below the bar, else the lowest)
    resampled: Any | None  # frontier.Point (the weakest ×0.9), or None when rejected natively
    passed: bool
    # native readings at the page ±JITTER px (own-page tuning, once the page itself passed)
    jitter: tuple[Any, ...] = ()
    unstable: bool = False  # a jittered page's verdict differs: never a winner
    # every reader's native and ×0.9 reading, in the order read (a reader below the bar
    # stops the readings: the weakest decides, whatever the others would read)
    readings: tuple[Any, ...] = ()
    resampled_readings: tuple[Any, ...] = ()

    @property
    def lab_only(self) -> bool:
        """Passed with a stroke weight the renderer does not draw: evidence, not a winner."""
        return self.passed and self.candidate.layout.stroke > 0


@dataclass(frozen=True)
class PageTuneResult:
    model: str
    reader: dict[str, Any]  # ReaderInfo.as_dict() of the first reader
    target: Any  # readability.goal.Goal
    seed: int
    pages: int
    winner: PageTrial | None
    trials: tuple[PageTrial, ...]
    skipped: tuple[str, ...]
    billing_source: str
    why: str
    readers: tuple[dict[str, Any], ...] = ()  # every reader's ReaderInfo.as_dict()
    texts: tuple[str, ...] = ("hardlines",)  # corpus_text.TUNING_TEXTS read


def _weakest(points: Sequence[Any], goal: Any, resampled: bool = False) -> Any:
    """The reading that decides: the first below ``goal``, else the lowest characters."""
    fails = (
        (lambda p: p.char_accuracy < goal.resampled_char_accuracy)
        if resampled
        else (lambda p: not goal.passes(p, None))
    )
    return next(
        (p for p in points if fails(p)),
        min(points, key=lambda p: (p.char_accuracy, p.hard_token_accuracy)),
    )


def page_candidates(
    billing: Billing,
    styles: Sequence[tuple[str, int | None, str]] = DEFAULT_STYLES,
    row_gaps: Sequence[int] = DEFAULT_PAGE_ROW_GAPS,
    col_gaps: Sequence[int] = DEFAULT_PAGE_COL_GAPS,
    sizes: Sequence[tuple[int, int]] | None = None,
    strokes: Sequence[int] = (0,),
) -> tuple[list[PageCandidate], list[str]]:
    """Every style × gap × unresampled page size × stroke weight, most characters per
    token first (at equal density the lighter stroke first)."""
    from snapshot.legibility.frontier import CandidateLayout

    out: list[PageCandidate] = []
    skipped: list[str] = []
    for font, size, shade in styles:
        for rg in row_gaps:
            for cg in col_gaps:
                for w, h in sizes or billing.page_sizes:
                    if billing.seen(w, h) != (w, h):
                        continue  # the provider would resample it: never drawn
                    lay = CandidateLayout(font, size, shade, rg, cg, (w, h))
                    try:
                        g = lay.geometry()
                    except UnknownFontError as exc:
                        note = f"{font}: not available ({str(exc).split(';')[0]})"
                        if note not in skipped:
                            skipped.append(note)
                        break
                    except SnapshotError:
                        continue  # page too small for this cell
                    for stroke in strokes:  # stroke weight changes legibility, not density
                        out.append(
                            PageCandidate(
                                CandidateLayout(font, size, shade, rg, cg, (w, h), stroke=stroke),
                                g.chars_per_page,
                                billing.tokens(w, h),
                            )
                        )
    out.sort(key=lambda c: (-c.chars_per_token, c.tokens, c.layout.key))
    return out, skipped


def tune_pages(
    model: str,
    reader: Any,
    *,
    target: Any = None,
    styles: Sequence[tuple[str, int | None, str]] = DEFAULT_STYLES,
    row_gaps: Sequence[int] = DEFAULT_PAGE_ROW_GAPS,
    col_gaps: Sequence[int] = DEFAULT_PAGE_COL_GAPS,
    sizes: Sequence[tuple[int, int]] | None = None,
    seed: int | None = None,
    pages: int = 1,
    cache: Any = None,
    billing: Billing | None = None,
    max_reads: int | None = None,
    measure_page: tuple[int, int] | None = None,
    strokes: Sequence[int] = DEFAULT_PAGE_STROKES,
    texts: Sequence[str] = ("hardlines",),
) -> PageTuneResult:
    """The candidate with the most characters per billed token that ``reader`` reads
    whole at ``target`` (native scale and after the 0.9× bicubic resample).

    ``reader`` is one page reader or several: with several, the weakest decides (issue 25
    item 3): a candidate wins only when every reader meets ``target`` natively, after the
    resample and at ±4 px; readers are read in the order given and the first below the bar
    ends the candidate's readings (put the cheapest first). ``texts`` are what each reader
    reads (:data:`~snapshot.legibility.corpus_text.TUNING_TEXTS`: the hard lines of ``seed``
    and the corpus's tuning half, each in turn; never the held-out text of the claims).

    ``strokes`` are the extra stroke widths tried at each density; a heavier
    stroke that passes is kept as evidence (``PageTrial.lab_only``, named in
    ``why``) and the search goes on, since the renderer draws no stroke weight.

    Candidates are read densest first; one that misses the native target is
    rejected before its resampled reading is paid for, and the first that meets
    both wins. Accuracy is measured at the candidate's own page size (the
    reader's detector resizes by page size), or, to keep the search cheap, on
    full pages of ``measure_page`` (e.g. ``frontier.SAMPLE_PAGE``) for every page
    size of a style. Measurements are cached in ``cache`` (a
    :class:`~snapshot.legibility.frontier.PointCache`).

    Raises
    ------
    SnapshotError
        ``seed`` is the held-out seed (claims are measured on lines the tuner
        never saw), a text is not a tuning text, or no candidate fits.
    """
    from snapshot.legibility.frontier import CandidateLayout, PointCache, measure_cached
    from snapshot.legibility.hardlines import HELD_OUT_SEED, TUNING_SEED
    from snapshot.legibility.weakest import jittered
    from snapshot.readability.goal import RESAMPLE_SCALE, Goal

    seed = TUNING_SEED if seed is None else seed
    if seed == HELD_OUT_SEED:
        raise SnapshotError(
            f"seed {HELD_OUT_SEED} is the held-out seed the claims are measured on; "
            f"tune on another (default {TUNING_SEED})"
        )
    target = target or Goal()
    cache = cache if cache is not None else PointCache(None)
    billing = billing or billing_for(model)
    cands, skipped = page_candidates(billing, styles, row_gaps, col_gaps, sizes, strokes)
    if not cands:
        raise SnapshotError("no candidate page fits; give other --size values or fonts")
    readers = tuple(reader) if isinstance(reader, (list, tuple)) else (reader,)
    if not readers:
        raise SnapshotError("no page reader to tune with")
    from snapshot.legibility.corpus_text import TUNING_TEXTS

    bad = [t for t in texts if t not in TUNING_TEXTS]
    if bad or not texts:
        raise SnapshotError(
            f"tune reads {', '.join(TUNING_TEXTS)}, got {', '.join(bad) or 'none'} (the "
            "held-out corpus text is what the claims are measured on: the tuner never reads it)"
        )
    # every reader on the first text, then on the next: the cheaper text to fall short on first
    pairs = [(r, t) for t in dict.fromkeys(texts) for r in readers]
    names = ", ".join(r.info.name for r in readers)
    trials: list[PageTrial] = []
    winner = None
    for cand in progress(cands, desc=f"tune {names}", total=len(cands), unit="layout"):
        if max_reads is not None and len(trials) >= max_reads:
            break
        read_as = cand.layout
        if measure_page is not None:
            read_as = CandidateLayout.from_dict(
                {**cand.layout.as_dict(), "page": list(measure_page)}
            )
        natives: list[Any] = []
        for r, t in pairs:  # natively first, every reader: the cheapest verdict
            natives.append(measure_cached(read_as, r, cache, seed=seed, pages=pages, text=t))
            if not target.passes(natives[-1], None):
                break  # this reading decides: the others cannot make it pass
        native_ok = len(natives) == len(pairs) and all(target.passes(p, None) for p in natives)
        resampled: list[Any] = []
        for r, t in pairs if native_ok else ():
            resampled.append(
                measure_cached(
                    read_as, r, cache, seed=seed, pages=pages, scale=RESAMPLE_SCALE, text=t
                )
            )
            if resampled[-1].char_accuracy < target.resampled_char_accuracy:
                break
        res_ok = (
            native_ok
            and len(resampled) == len(pairs)
            and all(q.char_accuracy >= target.resampled_char_accuracy for q in resampled)
        )
        jitter: tuple[Any, ...] = ()
        if measure_page is None and res_ok:
            jitter = tuple(  # a verdict that flips with a 4 px change is no verdict
                measure_cached(
                    CandidateLayout.from_dict({**read_as.as_dict(), "page": list(size)}),
                    r, cache, seed=seed, pages=pages, text=t,
                )
                for r, t in pairs
                for size in jittered(read_as.page)[1:]
            )  # fmt: skip
        unstable = any(not target.passes(j, None) for j in jitter)
        nat = _weakest(natives, target)
        res = _weakest(resampled, target, resampled=True) if resampled else None
        passed = res_ok and not unstable
        trial = PageTrial(
            cand, nat, res, passed, jitter, unstable, tuple(natives), tuple(resampled)
        )
        trials.append(trial)
        if trial.passed and not trial.lab_only:
            winner = trial
            break
    why = _page_why(names, target, winner, trials, pages, seed, tuple(dict.fromkeys(texts)))
    heavier = [t.candidate.layout.key for t in trials if t.lab_only]
    if heavier:
        why += (
            "; passed only with a heavier stroke, which the renderer does not draw (lab only): "
            + ", ".join(heavier)
        )
    if measure_page is not None:
        why += f"; accuracy read on full {measure_page[0]}x{measure_page[1]} pages of each style"
    return PageTuneResult(
        model, readers[0].info.as_dict(), target, seed, pages, winner, tuple(trials),
        tuple(skipped), billing.source, why, tuple(r.info.as_dict() for r in readers),
        tuple(dict.fromkeys(texts)),
    )  # fmt: skip


def _page_why(
    reader: str,
    target: Any,
    winner: PageTrial | None,
    trials: Sequence[PageTrial],
    pages: int,
    seed: int,
    texts: Sequence[str] = ("hardlines",),
) -> str:
    from snapshot.legibility.corpus_text import describe_text

    # the tuner reads no held-out text, ever
    text = " and of ".join(describe_text(t, seed) for t in texts)
    goal = (
        f"{target.char_accuracy:.2f} characters and {target.hard_tokens:.2f} exact hard tokens "
        f"at native scale, {target.resampled_char_accuracy:.2f} characters after ×0.9 bicubic"
    )
    if winner is None:
        best = max(trials, key=lambda t: t.native.char_accuracy, default=None)
        tail = (
            f"; the best was {best.candidate.layout.key} at {best.native.char_accuracy:.3f}"
            if best
            else ""
        )
        return f"no candidate reached {goal} with {reader} on {pages} full page(s) of {text}{tail}"
    c = winner.candidate
    res = winner.resampled
    assert res is not None
    several = len({p.reader_name for p in winner.readings}) > 1
    who = (
        f"the weakest of {reader} ({winner.native.reader_name}; ×0.9: {res.reader_name})"
        if several
        else reader
    )
    return (
        f"{c.layout.key} holds {c.chars_per_page} chars for {c.tokens} tokens "
        f"({c.chars_per_token:.2f} chars/token, {winner.native.chars_per_kpx:.1f} chars/1000 px²); "
        f"{who} read {pages} full page(s) of {text} whole at "
        f"{winner.native.char_accuracy:.3f} characters, "
        f"{winner.native.hard_token_accuracy:.2f} exact hard tokens, "
        f"{res.char_accuracy:.3f} after ×0.9 bicubic (target: {goal}); "
        f"{len(trials) - 1} denser candidate(s) fell short"
    )


def page_profile_document(result: PageTuneResult) -> dict[str, Any]:
    """The profile file of a whole-page tuning: an entry ``load_profiles`` accepts
    (``font_size`` and ``shade`` beside font, page, gaps, ink) plus the evidence."""
    if result.winner is None:
        raise SnapshotError(result.why)
    lay = result.winner.candidate.layout
    entry: dict[str, Any] = {
        "model": result.model,
        "base": result.model,
        "font": lay.font,
        "page": list(lay.page),
        "evidence": [f"snapshot tune ({_reader_names(result)} whole page): {result.why}"],
    }
    for key, value, default in (
        ("font_size", lay.size, None),
        ("shade", lay.shade, "1-bit"),
        ("col_gap", lay.col_gap, 0),
        ("row_gap", lay.row_gap, 0),
        ("ink", lay.ink, "black-on-white"),
    ):
        if value != default:
            entry[key] = value
    return {
        "profile": [entry],
        "tuned": {
            "format": PROFILE_FORMAT,
            "reader": result.reader,
            "readers": list(result.readers or (result.reader,)),
            "measured": "whole pages, independent readers (the weakest decides), tuning seed",
            "texts": list(result.texts),
            "seed": result.seed,
            "pages_per_candidate": result.pages,
            "target": asdict(result.target),
            "billing": result.billing_source,
            "why": result.why,
            "layout": lay.as_dict(),
            "chars_per_token": round(result.winner.candidate.chars_per_token, 4),
            "trials": [
                {
                    "layout": t.candidate.layout.key,
                    "chars_per_token": round(t.candidate.chars_per_token, 4),
                    "chars_per_kpx": t.native.chars_per_kpx,
                    "char_accuracy": t.native.char_accuracy,
                    "hard_tokens": [t.native.hard_tokens_exact, t.native.hard_tokens],
                    "resampled_char_accuracy": (
                        t.resampled.char_accuracy if t.resampled is not None else None
                    ),
                    "passed": t.passed,
                    "lab_only": t.lab_only,
                    "jitter_char_accuracy": {
                        "x".join(map(str, j.layout.page)): j.char_accuracy for j in t.jitter
                    },
                    "unstable": t.unstable,
                    # each reading: reader, text, native chars, exact hard tokens, ×0.9 chars
                    "readings": _readings(t),
                }
                for t in result.trials
            ],
            "skipped_fonts": list(result.skipped),
        },
    }


def _reader_names(result: PageTuneResult) -> str:
    return ", ".join(r["name"] for r in (result.readers or (result.reader,)))


def _readings(t: PageTrial) -> list[dict[str, Any]]:
    res = {(q.reader_name, q.text): q.char_accuracy for q in t.resampled_readings}
    return [
        {
            "reader": p.reader_name,
            "text": p.text,
            "char_accuracy": p.char_accuracy,
            "hard_tokens": [p.hard_tokens_exact, p.hard_tokens],
            "resampled_char_accuracy": res.get((p.reader_name, p.text)),
        }
        for p in t.readings or (t.native,)
    ]


def write_page_profile(result: PageTuneResult, path: str | os.PathLike[str]) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(page_profile_document(result), indent=2, ensure_ascii=False) + "\n"
    out.write_text(text, encoding="utf-8")
    return out


# ---------------------------------------------------------------------------- tune and write

#: What to try when the check reads the winner below the bar (one clear line, issue 40).
_TRY = (
    "try tuning with whole-page readers at the page the provider gets (--reader "
    "ppocrv6-small --reader tesseract-x2 --measure-page own: ±4 px included) or a larger "
    "face (--font snap8x16)"
)


@dataclass(frozen=True)
class Confirmation:
    """The report's own check (:func:`snapshot.legibility.gate.check_layout`) of the
    profile ``snapshot tune`` is about to write: its layout at its page, held-out hard
    lines, every reader relative to its control; the weakest qualified one must reach
    :data:`~snapshot.profiles.default_rule.RELATIVE_BAR`. ``line`` says what failed and
    what to try, or what passed."""

    passed: bool
    line: str
    check: dict[str, Any] | None = None  # GateResult.as_dict(), when readers read

    def as_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "line": self.line, "check": self.check}


def entry_layout(entry: dict[str, Any]) -> Any:
    """The layout a profile entry (``profile_document(...)["profile"][0]``) draws: what
    the check reads.

    >>> entry_layout({"font": "snap8x16", "page": [1540, 1540]}).key
    'snap8x16 1-bit gap 0x0 1540x1540'
    """
    from snapshot.legibility.weakest import record_layout

    return record_layout(entry)


def confirm(
    entry: dict[str, Any], readers: Sequence[str] = (), minimum: float | None = None
) -> Confirmation:
    """Run the report's check on the profile entry about to be written (``readers``:
    default every installed independent reader, as the gate does)."""
    from snapshot.legibility.gate import NoIndependentReader, check_layout
    from snapshot.profiles.default_rule import RELATIVE_BAR

    bar = RELATIVE_BAR if minimum is None else minimum
    layout = entry_layout(entry)
    where = f"{layout.key}"
    try:
        result = check_layout(layout, bar, readers=readers, name=str(entry["model"]))
    except NoIndependentReader as exc:
        return Confirmation(False, f"not written: {where}: {exc}; {_TRY}")
    weak = result.weakest
    assert weak.control is not None  # a qualified reader read its control
    figure = (
        f"the weakest qualified reader, {weak.reader}, reads {weak.relative:.3f} of its control "
        f"({weak.point.char_accuracy:.3f} / {weak.control.char_accuracy:.3f}) on held-out hard "
        f"lines (bar {bar:g})"
    )
    if result.passed:
        return Confirmation(True, f"confirmed: {where}: {figure}", result.as_dict())
    return Confirmation(False, f"not written: {where}: {figure}; {_TRY}", result.as_dict())


def _confirmed_write(
    document: dict[str, Any],
    out: str | os.PathLike[str],
    readers: Sequence[str],
    confirm_min: float | None,
) -> tuple[Path | None, Confirmation]:
    """Write ``document`` to ``out`` only when :func:`confirm` passes on its entry."""
    conf = confirm(document["profile"][0], readers, confirm_min)
    if not conf.passed:
        return None, conf
    document["tuned"]["confirmed"] = conf.as_dict()
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path, conf


@dataclass(frozen=True)
class TuneOutcome:
    """A tuning run, the profile file written for its winner, and its JSON document.

    ``document`` is what ``snapshot tune --json`` prints: the profile document
    (or only ``why`` when nothing won) plus ``path``, the profile file or None.
    """

    result: TuneResult | PageTuneResult
    path: Path | None
    document: dict[str, Any]
    #: the report's check of the profile about to be written; None when nothing won
    confirmation: Confirmation | None = None

    @property
    def written(self) -> bool:
        return self.path is not None


def default_profile_path(model: str) -> str:
    """``profile-<model>.json``, the model id made safe as a file name.

    Examples
    --------
    >>> default_profile_path("models/gemini-3 pro")
    'profile-models_gemini-3_pro.json'
    """
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in model)
    return f"profile-{safe}.json"


def _given_axes(**axes: Any) -> dict[str, Any]:
    """The search axes a caller gave (None or empty keeps the tuner's default).

    >>> _given_axes(fonts=["misc-5x8"], inks=None, row_gaps=[])
    {'fonts': ['misc-5x8']}
    """
    return {name: value for name, value in axes.items() if value}


def tune_and_write(
    model: str,
    reader: str,
    *,
    target: float | None = None,
    fonts: Sequence[str] | None = None,
    col_gaps: Sequence[int] | None = None,
    row_gaps: Sequence[int] | None = None,
    inks: Sequence[str] | None = None,
    lines: int = 40,
    seed: int | None = None,
    base_url: str | None = None,
    out: str | os.PathLike[str] | None = None,
    confirm_readers: Sequence[str] = (),
    confirm_min: float | None = None,
) -> TuneOutcome:
    """Tune with the crop reader named ``reader`` (:func:`tune`) and write the winner
    once the report's own check confirms it (:func:`confirm`: ``confirm_readers``, default
    every installed independent whole-page reader, at ``confirm_min``, default 0.95 of
    each reader's control).

    ``target`` None means 0.99 and ``seed`` None means 0; a None (or empty)
    search axis keeps :func:`tune`'s default. ``reader`` ``"live"`` reads with
    ``model`` itself (:func:`snapshot.legibility.live_reader.reader_for`). The winner
    is written to ``out`` (default :func:`default_profile_path`).

    Examples
    --------
    >>> tune_and_write("claude-sonnet-4-5", "no-such-reader")
    Traceback (most recent call last):
    ...
    snapshot.errors.SnapshotError: unknown reader 'no-such-reader'; use one of: oracle, ocr, tesseract
    """
    if reader == "live":
        from snapshot.legibility.live_reader import reader_for

        crop: Reader = reader_for(model, base_url=base_url)
    else:
        from snapshot.legibility.readers import get_reader

        crop = get_reader(reader)
    kw = _given_axes(fonts=fonts, col_gaps=col_gaps, row_gaps=row_gaps, inks=inks)
    result = tune(
        model,
        crop,
        target=0.99 if target is None else target,
        lines=lines,
        seed=0 if seed is None else seed,
        **kw,
    )
    return _finish(
        result, profile_document, out or default_profile_path(model), confirm_readers, confirm_min
    )


def _finish(
    result: TuneResult | PageTuneResult,
    document_of: Callable[[Any], dict[str, Any]],
    out: str | os.PathLike[str],
    readers: Sequence[str],
    confirm_min: float | None,
) -> TuneOutcome:
    """Check the winner with the report's check and write it only if it passes."""
    if result.winner is None:
        return TuneOutcome(result, None, {"why": result.why, "path": None})
    doc = document_of(result)
    path, conf = _confirmed_write(doc, out, readers, confirm_min)
    doc["confirmed"] = conf.as_dict()
    doc["path"] = str(path) if path else None
    return TuneOutcome(result, path, doc, conf)


def tune_pages_and_write(
    model: str,
    reader: str | Sequence[str],
    *,
    target: float | None = None,
    hard_target: float = 0.90,
    resampled_target: float = 0.90,
    styles: Sequence[tuple[str, int | None, str]] | None = None,
    row_gaps: Sequence[int] | None = None,
    col_gaps: Sequence[int] | None = None,
    measure_page: tuple[int, int] | str | None = None,
    seed: int | None = None,
    pages: int = 1,
    cache: str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] | None = None,
    strokes: Sequence[int] | None = None,
    texts: Sequence[str] | None = None,
    confirm_readers: Sequence[str] = (),
    confirm_min: float | None = None,
) -> TuneOutcome:
    """Tune with the whole-page reader(s) named ``reader`` (:func:`tune_pages`; several:
    the weakest decides) and write the winner once the report's own check confirms it
    (:func:`confirm`, with ``confirm_readers``, default the tuning readers: the winner at
    its own page on held-out hard lines, relative to each reader's control).

    The goal is ``target`` character accuracy (None: 0.97), ``hard_target``
    exact hard tokens and ``resampled_target`` after the 0.9x resample. A None
    (or empty) axis keeps :func:`tune_pages`'s default; ``measure_page``
    ``"own"`` reads each candidate on its own page size. Measurements are
    cached in the JSONL file ``cache``; the winner is written to ``out``
    (default :func:`default_profile_path`).

    Examples
    --------
    >>> tune_pages_and_write("claude-sonnet-4-5", "no-such-reader")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    snapshot.errors.SnapshotError: unknown page reader 'no-such-reader'; use one of: ...
    """
    from snapshot.legibility.frontier import PointCache
    from snapshot.legibility.page_readers import load_page_reader
    from snapshot.readability.goal import Goal

    goal = Goal(
        char_accuracy=0.97 if target is None else target,
        hard_tokens=hard_target,
        resampled_char_accuracy=resampled_target,
    )
    # "own" (not a tuple): each candidate's own page size, the tuner's default.
    own = not isinstance(measure_page, tuple)
    kw = _given_axes(
        styles=styles,
        row_gaps=row_gaps,
        col_gaps=col_gaps,
        strokes=strokes,
        measure_page=None if own else measure_page,
        texts=texts,
    )
    names = [reader] if isinstance(reader, str) else list(reader)
    loaded = [load_page_reader(n) for n in names]
    result = tune_pages(
        model,
        loaded[0] if len(loaded) == 1 else loaded,
        target=goal,
        seed=seed,
        pages=pages,
        cache=PointCache(cache),
        **kw,
    )
    return _finish(
        result,
        page_profile_document,
        out or default_profile_path(model),
        confirm_readers or names,
        confirm_min,
    )
