"""The legibility table: reader × font × provider preprocessing, plus confusable pairs.

This is what ``snapshot legibility`` prints and what the report builds on.
The preprocessing comes from the model's profile (what its provider does to a
page of the profile's size); where the provider's filter is undocumented, every
filter in :data:`snapshot.legibility.resample.FILTERS` is swept.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from snapshot.errors import SnapshotError
from snapshot.legibility.confusability import Confusability, distance_matrix, glyph_set, summarize
from snapshot.legibility.hardlines import hard_lines
from snapshot.legibility.readers import PageLayout, Reader, get_reader, line_geometry, measure
from snapshot.legibility.resample import FILTERS, NATIVE, Filter, Preprocess, filter_set
from snapshot.legibility.tune import load_fonts, seen_size
from snapshot.progress import progress
from snapshot.readability.scoring import score_lines

COMPARISON_FONTS: tuple[str, ...] = ("snap5x8", "misc-5x8", "spleen-5x8", "misc-6x12")


@dataclass(frozen=True)
class ProviderView:
    """What the model's provider does to a page of the profile's size."""

    model: str
    page: tuple[int, int] | None
    seen: tuple[int, int] | None
    scale: float  # 1.0 when the page reaches the model untouched
    note: str


def provider_view(model: str) -> ProviderView:
    """Read the profile; an unknown model raises :class:`snapshot.errors.UnknownModelError`."""
    from snapshot import profiles

    profile = profiles.profile_for(model)  # UnknownModelError is a SnapshotError
    w, h = (int(v) for v in profile.geometry().size)
    sw, sh = seen_size(profile, w, h)
    scale = min(sw / w, sh / h)
    if (sw, sh) == (w, h):
        note = f"the profile's {w}x{h} page reaches the model unresampled"
    else:
        note = f"the provider resamples the profile's {w}x{h} page to {sw}x{sh} (×{scale:.3f})"
    return ProviderView(model, (w, h), (sw, sh), scale, note)


@dataclass(frozen=True)
class LabRow:
    reader: str
    font: str
    scale: float
    filter: str
    preprocess: str
    char_accuracy: float
    token_accuracy: float
    lines: int
    lines_exact: int


@dataclass(frozen=True)
class LegibilityTable:
    model: str
    provider: ProviderView
    lines: int
    seed: int
    rows: tuple[LabRow, ...]
    confusable: tuple[Confusability, ...]
    skipped: tuple[str, ...] = field(default=())


def preprocesses(scales: Sequence[float], filters: Sequence[Filter]) -> list[Preprocess]:
    out: list[Preprocess] = []
    for s in dict.fromkeys(scales):
        if s == 1.0:
            out.append(NATIVE)
        else:
            out.extend(Preprocess(scale=s, filter=f) for f in dict.fromkeys(filters))
    return out


def legibility_table(
    model: str,
    *,
    fonts: Sequence[str] | None = COMPARISON_FONTS,
    readers: Sequence[str | Reader] | None = ("oracle", "ocr"),
    scales: Sequence[float] | None = None,
    filters: Sequence[str] | None = FILTERS,
    lines: int = 24,
    seed: int = 0,
    pairs: int = 8,
) -> LegibilityTable:
    """Measure every reader on every font under every preprocessing.

    ``fonts`` None means :data:`COMPARISON_FONTS`, ``readers`` None the oracle
    and the OCR reader, ``scales`` None what the model's provider does, and
    ``filters`` goes through :func:`~snapshot.legibility.resample.filter_set`
    (None or ``"all"``: every filter).
    """
    fonts = COMPARISON_FONTS if fonts is None else fonts
    readers = ("oracle", "ocr") if readers is None else readers
    chosen = filter_set(filters)
    view = provider_view(model)
    if scales is None:
        scales = (1.0,) if view.scale == 1.0 else (1.0, round(view.scale, 4))
    for s in scales:
        if not 0.05 <= s <= 4.0:
            raise SnapshotError(f"--scale {s} is out of range; use a factor in 0.05..4")
    loaded, skipped = load_fonts(fonts)
    if not loaded:
        raise SnapshotError("no font to measure: " + "; ".join(skipped))
    reader_objs = [get_reader(r) if isinstance(r, str) else r for r in readers]
    text = hard_lines(lines, seed=seed)
    pps = preprocesses(scales, chosen)
    rows: list[LabRow] = []
    confusable: list[Confusability] = []
    jobs = [(r, f, p) for r in reader_objs for f in loaded for p in pps]
    geoms = {f.name: line_geometry(f, text) for f in loaded}
    for reader, font, pp in progress(jobs, desc="legibility", total=len(jobs), unit="run"):
        m = measure(reader, text, geoms[font.name], pp, seed=seed)
        rows.append(
            LabRow(
                reader=reader.name,
                font=font.name,
                scale=pp.scale,
                filter=pp.filter if pp.scale != 1.0 else "-",
                preprocess=pp.label,
                char_accuracy=m.char_accuracy,
                token_accuracy=m.token_accuracy,
                lines=m.score.lines,
                lines_exact=m.score.lines_exact,
            )
        )
    for font in loaded:
        g = glyph_set(font)
        for s in dict.fromkeys(scales):
            f: Filter = "bicubic"
            matrix = distance_matrix(g, s, f)
            confusable.append(summarize(g, matrix, scale=s, filter="-" if s == 1.0 else f, k=pairs))
    return LegibilityTable(
        model=model,
        provider=view,
        lines=lines,
        seed=seed,
        rows=tuple(rows),
        confusable=tuple(confusable),
        skipped=tuple(skipped),
    )


def table_dict(table: LegibilityTable) -> dict[str, Any]:
    """A JSON-ready form (infinite floors become null)."""

    def num(x: float) -> float | None:
        return None if x != x or x in (float("inf"), float("-inf")) else round(x, 4)

    return {
        "model": table.model,
        "provider": {
            "page": table.provider.page,
            "seen": table.provider.seen,
            "scale": table.provider.scale,
            "note": table.provider.note,
        },
        "lines": table.lines,
        "seed": table.seed,
        "accuracy": [
            {
                "reader": r.reader,
                "font": r.font,
                "scale": r.scale,
                "filter": r.filter,
                "char_accuracy": num(r.char_accuracy),
                "token_accuracy": num(r.token_accuracy),
                "lines": r.lines,
                "lines_exact": r.lines_exact,
            }
            for r in table.rows
        ],
        "confusable": [
            {
                "font": c.font,
                "scale": c.scale,
                "filter": c.filter,
                "glyphs": c.glyphs,
                "floor": num(c.floor),
                "within": {str(k): v for k, v in c.within.items()},
                "nearest": [[p.a, p.b, num(p.distance)] for p in c.nearest],
            }
            for c in table.confusable
        ],
        "skipped": list(table.skipped),
    }


def measure_page(
    path: str,
    font_name: str,
    *,
    readers: Sequence[str | Reader] | None = ("oracle", "ocr"),
    scales: Sequence[float] | None = (1.0,),
    filters: Sequence[str] | None = FILTERS,
    sample: int = 24,
    seed: int = 0,
) -> dict[str, Any]:
    """Legibility of an existing page PNG drawn in ``font_name``.

    ``readers`` None means the oracle and the OCR reader, ``scales`` None (or
    empty) native only, and ``filters`` goes through
    :func:`~snapshot.legibility.resample.filter_set`.

    The page is decoded at native size by the font-aware decoder, which is exact
    on a pristine page: that reading is the reference. Bad files (corrupt,
    truncated, wrong mode, too large) and pages of another font raise ImageError.
    """
    import numpy as np

    from snapshot.rendering.decode import find_header, geometry_from_header, load_png
    from snapshot.rendering.decode import read as decode
    from snapshot.rendering.glyphs import load_font
    from snapshot.rendering.page import render

    readers = ("oracle", "ocr") if readers is None else readers
    scales = scales or (1.0,)
    chosen = filter_set(filters)
    pixels = load_png(path)
    font = load_font(font_name)
    text = decode(pixels, font)  # ImageError when the page is not in this font
    ink = pixels.astype(np.float32) / 255.0
    ink = 1.0 - ink if np.median(ink) >= 0.5 else ink
    found = find_header(ink, font)
    if found is None:  # pragma: no cover - decode() above already needed the header
        raise SnapshotError(f"{path}: no page header to take the geometry from")
    header, hx, hy, gap = found
    size = (pixels.shape[1], pixels.shape[0])
    geometry = geometry_from_header(header, font, size, hx, hy, gap)
    redrawn = render(text, geometry)[0]
    refs = [r.replace("\n", "") for r in redrawn.rows]
    layout = PageLayout(size, tuple(redrawn.row_boxes()), geometry)
    rows = list(range(len(refs)))
    if sample < len(rows):
        rows = sorted(random.Random(seed).sample(rows, sample))
    results = []
    for r in [get_reader(x) if isinstance(x, str) else x for x in readers]:
        for pp in preprocesses(scales, chosen):
            got = r.read(pp.apply(pixels), layout, rows)
            if r.name != "oracle":
                got = [g.replace("\n", "") for g in got]
            score = score_lines([refs[i] for i in rows], got)
            results.append(
                {
                    "reader": r.name,
                    "preprocess": pp.label,
                    "char_accuracy": round(score.char_accuracy, 4),
                    "token_accuracy": round(score.token_accuracy, 4),
                    "lines_exact": score.lines_exact,
                }
            )
    return {
        "page": str(path),
        "font": font.name,
        "rows": len(refs),
        "sampled": len(rows),
        "accuracy": results,
    }
