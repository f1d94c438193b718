"""The density frontier: how densely a page can be set and still be read whole.

A :class:`CandidateLayout` is one point of the design space (font × pixel size × shade
× row gap × column gap × stroke weight × page size). :func:`measure` renders full pages of
held-out transcript-like lines in it (:func:`~snapshot.legibility.hardlines.full_page_rows`:
every row edge to edge), hands each page, and nothing else, to a whole-page
reader (:mod:`snapshot.legibility.page_readers`), optionally after a provider
resample, and scores the text it returns (character accuracy, exact hard
tokens). Density is the cell pitch: characters per 1000 px² (today's default,
snap8x16, is 7.8) and, per profile, characters per billed image token.

Results are cached in a JSON-lines file keyed by layout, reader (name, version,
model hash), seed, page count and resample, so a re-run reads only what is new.
:func:`frontier` keeps the points no other point beats on both density and
accuracy; :func:`densest_passing` is the densest layout that meets a
:class:`Goal`; :func:`frontier_table` is the density table. Which readings to take
first is :mod:`snapshot.legibility.campaign`'s; the report files are
:mod:`snapshot.legibility.frontier_report`'s, the plot :mod:`snapshot.legibility.frontier_plot`'s.

>>> lay = CandidateLayout("snap5x8", row_gap=2)
>>> lay.key, round(lay.chars_per_kpx, 1)
('snap5x8 1-bit gap 0x2 1568x728', 20.0)
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snapshot.legibility.hardlines import HELD_OUT_SEED
from snapshot.profiles.dense import DENSE_STYLE

# re-exported: a bench script runs on this tree and on older ones (bench/test_render_speed.py)
from snapshot.profiles.dense import dense_geometry as dense_geometry
from snapshot.readability.goal import RESAMPLE_FILTER, Goal
from snapshot.readability.layout import layout_key
from snapshot.rendering.geometry import DEFAULT_PAGE

if TYPE_CHECKING:
    from snapshot.legibility.page_readers import PageReader
    from snapshot.rendering.geometry import Geometry


@dataclass(frozen=True)
class CandidateLayout:
    """One page design: font and pixel size (outline fonts), shade, gaps, page size, and
    ``stroke``, extra stroke width in pixels (a lab axis: :mod:`snapshot.legibility.stroke`).
    """

    font: str
    size: int | None = None
    shade: str = "1-bit"
    row_gap: int = 0
    col_gap: int = 0
    page: tuple[int, int] = DEFAULT_PAGE
    ink: str = "black-on-white"
    stroke: int = 0

    @property
    def key(self) -> str:
        """A stable one-line name: ``font[@size] shade gap CxR WxH[ ink][ stroke+N]``
        (keys of layouts measured before an axis existed stay as they were)."""
        return layout_key(
            self.font,
            self.size,
            self.shade,
            col_gap=self.col_gap,
            row_gap=self.row_gap,
            page=self.page,
            ink=self.ink,
            stroke=self.stroke,
        )

    def with_page(self, page: tuple[int, int]) -> CandidateLayout:
        """The same design on another page size.

        >>> CandidateLayout("snap5x9", shade="gray", stroke=1).with_page((1540, 732)).key
        'snap5x9 gray gap 0x0 1540x732 stroke+1'
        """
        return CandidateLayout.from_dict({**self.as_dict(), "page": list(page)})

    def geometry(self) -> Geometry:
        """The page geometry (lines mode, header row on), as the renderer would draw it."""
        from snapshot.rendering.geometry import Geometry
        from snapshot.rendering.glyphs import load_font

        font = load_font(self.font, pixel_size=self.size)
        return Geometry.fit(
            font,
            *self.page,
            col_gap=self.col_gap,
            row_gap=self.row_gap,
            ink=self.ink,
            shade=self.shade,
            flow=False,
        )

    @property
    def style(self) -> tuple[str, int | None, str, int, int, str, int]:
        """Everything but the page size: what "today's default layout" names."""
        return (self.font, self.size, self.shade, self.row_gap, self.col_gap, self.ink, self.stroke)

    @property
    def cell(self) -> tuple[int, int]:
        from snapshot.rendering.glyphs import font_cell

        return font_cell(self.font, pixel_size=self.size)

    @property
    def chars_per_kpx(self) -> float:
        """Characters per 1000 px² of text block (1000 / cell pitch area), as
        ``self.geometry().chars_per_kpx`` computes it, from the cell alone.

        >>> lay = CandidateLayout("snap5x9", row_gap=1, page=(1568, 728))
        >>> lay.chars_per_kpx == lay.geometry().chars_per_kpx
        True
        """
        w, h = self.cell
        return 1000.0 / ((w + self.col_gap) * (h + self.row_gap))

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["page"] = list(self.page)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CandidateLayout:
        return cls(**{**d, "page": tuple(d["page"])})


#: The frontier's earlier sample page (half the default page's width; no provider's page):
#: cheap to read, so ``tune --measure-page`` and the bench scripts still offer it, but
#: readability figures are read at real pages (:mod:`snapshot.legibility.campaign`).
SAMPLE_PAGE = (784, 728)

#: The candidate layouts (fonts at the gaps and strokes worth reading); the campaign's stage 5
#: reads them at Gemini's real page (their page here is replaced).
GRID: tuple[CandidateLayout, ...] = (
    *(
        CandidateLayout(font, size, shade, row_gap, 0, SAMPLE_PAGE)
        for font, size, shade, row_gap in (
            ("snap8x16", None, "1-bit", 0),
            ("misc-6x12", None, "1-bit", 0),
            ("snap5x8", None, "1-bit", 0),
            ("snap5x8", None, "1-bit", 1),
            ("snap5x8", None, "1-bit", 2),
            ("snap5x10", None, "1-bit", 0),
            ("snap5x10", None, "gray", 0),
            ("snap5x9v2", None, "gray", 0),
            ("snap5x9v2", None, "gray", 1),  # the dense face with a row gap (issue 25: gaps)
            ("dejavu-sans-mono", 8, "gray", 0),
            ("dejavu-sans-mono", 7, "gray", 0),
        )
    ),
    # stroke weight (issue 25): the dense faces one pixel heavier
    CandidateLayout("snap5x9v2", shade="gray", page=SAMPLE_PAGE, stroke=1),
    CandidateLayout("snap5x8", page=SAMPLE_PAGE, row_gap=2, stroke=1),
)
#: Today's defaults (their style; the page is replaced), marked on the frontier.
DEFAULT_LAYOUTS: tuple[CandidateLayout, ...] = (
    CandidateLayout("snap8x16", page=SAMPLE_PAGE),
    CandidateLayout("snap5x8", page=SAMPLE_PAGE),
)


@dataclass(frozen=True)
class Point:
    """One layout read by one reader at one scale: density against accuracy."""

    layout: CandidateLayout
    reader: dict[str, Any]  # ReaderInfo.as_dict(): name, version, model_sha256, settings
    scale: float
    filter: str | None
    seed: int
    pages: int
    chars: int
    chars_per_page: int
    chars_per_kpx: float
    char_accuracy: float
    hard_tokens: int
    hard_tokens_exact: int
    note: str = ""
    seconds: float = field(default=0.0, compare=False)
    # which text the page carried: "hardlines" (generated, ``seed``) or "corpus" (held-out real)
    text: str = "hardlines"
    # the reader's most frequent substitutions: (drawn, read, count), most frequent first
    confusions: tuple[tuple[str, str, int], ...] = field(default=(), compare=False)
    # when (UTC, minute) and at what 1-minute load average the reading ended ("" / None:
    # not recorded, points of before 2026-12-02 04:00)
    measured_at: str = field(default="", compare=False)
    load: float | None = field(default=None, compare=False)

    @property
    def reader_name(self) -> str:
        return str(self.reader["name"])

    @property
    def hard_token_accuracy(self) -> float:
        return self.hard_tokens_exact / self.hard_tokens if self.hard_tokens else 1.0

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["layout"] = self.layout.as_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Point:
        conf = tuple((str(a), str(b), int(n)) for a, b, n in d.get("confusions", ()))
        return cls(**{**d, "layout": CandidateLayout.from_dict(d["layout"]), "confusions": conf})


# ---------------------------------------------------------------------------- measuring

CONFUSIONS_KEPT = 24


def page_confusions(expected: str, read: str) -> Counter[tuple[str, str]]:
    """(drawn, read) character substitutions between a page's text and a reading.

    Aligned by rapidfuzz's Levenshtein edit operations over the texts with
    spacing runs collapsed (as :func:`~snapshot.readability.scoring.score_page`
    compares them); whitespace substitutions are left out.

    >>> page_confusions("id 0O1l  ok", "id OO1I ok")
    Counter({('0', 'O'): 1, ('l', 'I'): 1})
    """
    from rapidfuzz.distance import Levenshtein

    a, b = (" ".join(t.split()) for t in (expected, read))
    out: Counter[tuple[str, str]] = Counter()
    for op in Levenshtein.editops(a, b):
        if op.tag == "replace":
            x, y = a[op.src_pos], b[op.dest_pos]
            if not x.isspace() and not y.isspace():
                out[(x, y)] += 1
    return out


def page_text(geometry: Geometry, *, seed: int, page: int, text: str = "hardlines") -> str:
    """The text that fills one page of ``geometry`` edge to edge: generated hard lines of
    ``seed``, or the held-out corpus text (:mod:`snapshot.legibility.corpus_text`)."""
    from snapshot.legibility.corpus_text import text_rows

    return "\n".join(text_rows(text, geometry.cols, geometry.text_rows, seed=seed, page=page))


def measure(
    layout: CandidateLayout,
    reader: PageReader,
    *,
    seed: int = HELD_OUT_SEED,
    pages: int = 1,
    scale: float = 1.0,
    filter: str = RESAMPLE_FILTER,
    text: str = "hardlines",
) -> Point:
    """Render ``pages`` full pages of ``text`` in ``layout``, (resample,) read each whole, score.

    Accuracy is pooled over the pages: character errors over characters, exact
    hard tokens over hard tokens. The reader gets the page as the provider would
    pass it on (resampled, not restored) and nothing else.
    """
    from snapshot.legibility.resample import resample
    from snapshot.legibility.stroke import embolden
    from snapshot.readability.scoring import page_expected_text, score_page
    from snapshot.rendering.page import render

    g = layout.geometry()
    chars = errors = hard = exact = 0
    confused: Counter[tuple[str, str]] = Counter()
    started = time.perf_counter()
    for i in range(pages):
        drawn = render(page_text(g, seed=seed, page=i, text=text), g)[0]
        expected = page_expected_text(drawn)
        pixels = drawn.pixels
        if layout.stroke:
            pixels = embolden(pixels, layout.stroke, layout.ink)
        if scale != 1.0:
            pixels = resample(pixels, scale, filter)  # type: ignore[arg-type]
        read = reader.read_page(pixels)
        s = score_page(expected, read)
        confused += page_confusions(expected, read)
        n = len(expected)
        chars += n
        errors += round((1.0 - s.char_accuracy) * n)
        hard += s.hard_tokens
        exact += s.hard_tokens_exact
    return Point(
        layout=layout,
        reader=reader.info.as_dict(),
        scale=scale,
        filter=filter if scale != 1.0 else None,
        seed=seed,
        pages=pages,
        chars=chars,
        chars_per_page=g.chars_per_page,
        chars_per_kpx=round(g.chars_per_kpx, 4),
        char_accuracy=round(max(0.0, 1.0 - errors / chars) if chars else 1.0, 4),
        hard_tokens=hard,
        hard_tokens_exact=exact,
        seconds=round(time.perf_counter() - started, 1),
        measured_at=time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        load=load_average(),
        confusions=tuple(
            (a, b, n)
            for (a, b), n in sorted(confused.items(), key=lambda kv: (-kv[1], kv[0]))[
                :CONFUSIONS_KEPT
            ]
        ),
        text=text,
    )


def load_average() -> float | None:
    """The 1-minute load average (None where the system does not say): recorded with every
    reading, since reading time and this machine's load go together."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


class PointCache:
    """Measured points in a JSON-lines file; one line per point, appended as measured."""

    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        self.path = Path(path) if path is not None else None
        self._points: dict[str, Point] = {}
        self._read_to = 0  # bytes of the file already read
        self.refresh()

    def refresh(self) -> None:
        """Take in lines another process appended since the last read (the file is append-only
        and shared: a reading someone else took is not taken again)."""
        if self.path is None or not self.path.is_file():
            return
        with self.path.open("rb") as f:
            f.seek(self._read_to)
            new = f.read()
        end = new.rfind(b"\n") + 1  # a line still being written is read next time
        self._read_to += end
        for line in new[:end].decode("utf-8").splitlines():
            if line.strip():
                p = Point.from_dict(json.loads(line))
                self._points[self._key_of(p)] = p

    @staticmethod
    def key(
        layout: CandidateLayout,
        reader: dict[str, Any],
        seed: int,
        pages: int,
        scale: float,
        text: str = "hardlines",
    ) -> str:
        """The cache key of one reading; a reader's ``settings_version`` is part of it.

        >>> lay, r = CandidateLayout("snap5x8", page=(1568, 728)), {"name": "t", "model_sha256": "s"}
        >>> PointCache.key(lay, r, 1, 1, 1.0) == PointCache.key(lay, {**r, "settings": {}}, 1, 1, 1.0)
        True
        >>> PointCache.key(lay, {**r, "settings": {"settings_version": 2}}, 1, 1, 1.0).endswith(',"settings v2"]')
        True
        """
        parts: list[Any] = [layout.key, reader["name"], reader["model_sha256"], seed, pages, scale]
        if text != "hardlines":  # keys of points measured before texts were named stay valid
            parts.append(text)
        # A reader whose text-changing settings changed says so by a settings version: its
        # readings under the old settings are then never reused as if taken with the new.
        version = (reader.get("settings") or {}).get("settings_version")
        if version is not None:
            parts.append(f"settings v{version}")
        return json.dumps(parts, separators=(",", ":"))

    def _key_of(self, p: Point) -> str:
        return self.key(p.layout, p.reader, p.seed, p.pages, p.scale, p.text)

    def get(
        self,
        layout: CandidateLayout,
        reader: Any,
        seed: int,
        pages: int,
        scale: float,
        text: str = "hardlines",
    ) -> Point | None:
        self.refresh()
        return self._points.get(self.key(layout, reader.info.as_dict(), seed, pages, scale, text))

    def put(self, point: Point) -> None:
        self._points[self._key_of(point)] = point
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:  # read back by the next refresh
                f.write(json.dumps(point.as_dict(), sort_keys=True) + "\n")

    def points(self, *, every_setting: bool = False) -> list[Point]:
        """The readings taken with each reader's current settings
        (:func:`~snapshot.legibility.page_readers.current_settings_version`): a reading taken
        under older settings stays in the file, keyed apart, and is left out here, so a report
        never mixes the two. ``every_setting=True``: every reading held, old settings too.

        >>> from dataclasses import replace
        >>> p = Point(CandidateLayout("snap5x8"), {"name": "tesseract-x2", "model_sha256": "s"},
        ...           1.0, None, 1, 1, 10, 10, 20.0, 0.9, 1, 1)
        >>> new = replace(p, reader={**p.reader, "settings": {"settings_version": 2}})
        >>> c = PointCache(None); c.put(p); c.put(new)
        >>> c.points() == [new], len(c.points(every_setting=True))
        (True, 2)
        """
        if every_setting:
            return list(self._points.values())
        from snapshot.legibility.page_readers import current_settings_version

        return [
            p
            for p in self._points.values()
            if (p.reader.get("settings") or {}).get("settings_version")
            == current_settings_version(p.reader_name)
        ]


def measure_cached(
    layout: CandidateLayout,
    reader: PageReader,
    cache: PointCache,
    *,
    seed: int,
    pages: int,
    scale: float = 1.0,
    text: str = "hardlines",
) -> Point:
    """:func:`measure`, unless the cache already holds this point."""
    hit = cache.get(layout, reader, seed, pages, scale, text)
    if hit is None:
        hit = measure(layout, reader, seed=seed, pages=pages, scale=scale, text=text)
        cache.put(hit)
    return hit


# ---------------------------------------------------------------------------- analysis


def frontier(points: Iterable[Point]) -> list[Point]:
    """Points no other point of the same reader and scale beats on density and accuracy,
    densest first.

    >>> a = CandidateLayout("snap5x8"); b = CandidateLayout("snap8x16")
    >>> mk = lambda lay, d, acc: Point(lay, {"name": "r", "model_sha256": "x"}, 1.0, None, 0,
    ...     1, 100, 100, d, acc, 10, 10)
    >>> [p.layout.font for p in frontier([mk(a, 25.0, 0.5), mk(b, 7.8, 0.99), mk(a, 7.0, 0.9)])]
    ['snap5x8', 'snap8x16']
    """
    pts = list(points)
    keep = []
    for p in pts:
        dominated = any(
            q is not p
            and q.reader_name == p.reader_name
            and q.scale == p.scale
            and q.text == p.text
            and q.chars_per_kpx >= p.chars_per_kpx
            and q.char_accuracy >= p.char_accuracy
            and (q.chars_per_kpx > p.chars_per_kpx or q.char_accuracy > p.char_accuracy)
            for q in pts
        )
        if not dominated:
            keep.append(p)
    return sorted(keep, key=lambda p: (p.reader_name, p.scale, -p.chars_per_kpx, p.layout.key))


def paired(
    points: Iterable[Point], text: str = "hardlines"
) -> dict[tuple[str, str], tuple[Point, Point | None]]:
    """(reader, layout key) → (native point, resampled point or None), on one ``text``."""
    native: dict[tuple[str, str], Point] = {}
    resampled: dict[tuple[str, str], Point] = {}
    for p in points:
        if p.text != text:
            continue
        k = (p.reader_name, p.layout.key)
        (native if p.scale == 1.0 else resampled)[k] = p
    return {k: (v, resampled.get(k)) for k, v in native.items()}


def densest_passing(
    points: Iterable[Point], reader: str, target: Goal, *, need_resampled: bool = True
) -> Point | None:
    """The densest layout whose native and resampled readings meet ``target`` (with
    ``need_resampled=False``, a layout whose resampled reading is not measured counts)."""
    best = None
    for (name, _), (nat, res) in sorted(paired(points).items()):
        if need_resampled and res is None:
            continue
        denser = best is None or nat.chars_per_kpx > best.chars_per_kpx
        if name == reader and target.passes(nat, res) and denser:
            best = nat
    return best


def chars_per_token(layout: CandidateLayout, chars_per_page: int, model: str) -> float | None:
    """Characters per billed image token of one full page of ``layout`` for ``model``."""
    from snapshot import profiles
    from snapshot.errors import SnapshotError

    try:
        profile = profiles.profile_for(model)
        tokens = profile.image_tokens(*layout.page)
    except SnapshotError:
        return None
    return chars_per_page / tokens if tokens else None


def frontier_table(
    points: Sequence[Point],
    *,
    models: Sequence[str] = (),
    target: Goal | None = None,
    defaults: Sequence[CandidateLayout] = DEFAULT_LAYOUTS,
    text: str = "hardlines",
) -> str:
    """A markdown table: one row per reader × layout on one ``text``, densest first; ``*``
    marks today's defaults, ``F`` frontier points, ``control`` the control pages, ``✓``
    layouts a qualified reader reads at the target relative to its control
    (:mod:`snapshot.legibility.controls`; the absolute native figure is beside it)."""
    from snapshot.legibility.controls import Controls, is_control

    target = target or Goal.relative()
    points = [p for p in points if p.text == text]
    controls = Controls(points)
    on_front = {(p.reader_name, p.layout.key, p.scale) for p in frontier(points)}
    default_styles = {d.style for d in defaults}
    head = (
        "| reader | layout | cell | chars/1000 px² | "
        + "".join(f"chars/token {m} | " for m in models)
        + "chars | native chars of control | native chars | native hard tokens "
        + "| ×0.9 bicubic chars | target | |"
    )
    sep = "|" + "---|" * (head.count("|") - 1)
    rows = [head, sep]
    pairs = paired(points, text)
    order = sorted(pairs.items(), key=lambda kv: (kv[0][0], -kv[1][0].chars_per_kpx, kv[0][1]))
    for (reader, key), (nat, res) in order:
        lay = nat.layout
        marks = ("*" if lay.style in default_styles else "") + (
            "F" if (reader, key, 1.0) in on_front else ""
        )
        j = controls.judge(nat)
        if is_control(lay):
            marks += " control"
            of_control = "–"
        elif j.control is None:
            of_control = "no control read"
        else:
            of_control = f"{j.relative:.3f}" + ("" if j.qualified else " unqualified")
        cpt = "".join(
            f"{v:.2f} | " if (v := chars_per_token(lay, nat.chars_per_page, m)) else "– | "
            for m in models
        )
        resampled = f"{res.char_accuracy:.3f}" if res is not None else "–"
        passes = j.qualified and target.passes(j.reading, res) and not is_control(lay)
        ok = ("✓" if res is not None else "✓ native only") if passes else ""
        cw, ch = lay.cell
        rows.append(
            f"| {reader} | {key} | {cw}×{ch} | {nat.chars_per_kpx:.1f} | {cpt}{nat.chars} | "
            f"{of_control} | {nat.char_accuracy:.3f} | {nat.hard_tokens_exact}/{nat.hard_tokens} "
            f"({nat.hard_token_accuracy:.3f}) | {resampled} | {ok} | {marks} |"
        )
    return "\n".join(rows) + "\n"


# ---------------------------------------------------------------------------- the dense layout

#: The project's dense frontier layout: the densest layout of the committed frontier run
#: (reports/frontier.md) that PP-OCRv6 reads whole at the target. Foveation draws the far
#: past with it (``snapshot+foveate``) and the report's "dense" rows price it.
DENSE_LAYOUT = CandidateLayout(**asdict(DENSE_STYLE))
