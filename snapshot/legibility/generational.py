"""Generational loss: why sheets are always redrawn from the source text.

Two ways to carry old history forward through several rounds of compaction:

- re-render from pixels: read the sheet, draw what was read, send that, read
  it again ... every misread glyph is baked into the next sheet and new
  errors pile on top;
- redraw from source: keep the text and draw a fresh sheet every time.

Both pass through the same simulated provider preprocessing and the same
reader. Redrawing is deterministic (same text, same page, same reader), so its
accuracy is measured once and holds for every generation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from snapshot.legibility.readers import PageLayout, Reader, render_lines
from snapshot.legibility.resample import Preprocess
from snapshot.readability.scoring import score_lines

if TYPE_CHECKING:
    from snapshot.rendering.geometry import Geometry


@dataclass(frozen=True)
class GenerationalLoss:
    """Character accuracy against the source after each generation (1-based)."""

    reader: str
    font: str
    preprocess: str
    lines: int
    rerender: tuple[float, ...]
    redraw: tuple[float, ...]
    rerender_tokens: tuple[float, ...]
    redraw_tokens: tuple[float, ...]

    @property
    def generations(self) -> int:
        return len(self.rerender)


def read_through(
    lines: Sequence[str], geometry: Geometry, preprocess: Preprocess, reader: Reader
) -> list[str]:
    """Draw ``lines`` one per row, degrade, and read every row back."""
    out: list[str] = []
    for page, refs in render_lines(lines, geometry):
        seen = preprocess.apply(page.pixels)
        out.extend(reader.read(seen, PageLayout.of(page), list(range(len(refs)))))
    return out


def generational_loss(
    lines: Sequence[str],
    geometry: Geometry,
    preprocess: Preprocess,
    reader: Reader,
    *,
    generations: int = 5,
) -> GenerationalLoss:
    """Read → re-render → read ``generations`` times, against redrawing each time.

    A reading longer than the page is wide is clipped to ``geometry.cols`` so
    rows stay aligned with their source lines (a re-rendered sheet would wrap
    it and push everything after it down: a loss of its own, not counted here).
    """
    if generations < 1:
        raise ValueError("generations must be >= 1")
    source = list(lines)
    seen: dict[tuple[str, ...], list[str]] = {}

    def read(text: list[str]) -> list[str]:
        # The same lines draw the same page and the reader is deterministic: read it
        # once (generation 1 is the redraw's page; a clean read repeats itself).
        key = tuple(text)
        if key not in seen:
            seen[key] = read_through(text, geometry, preprocess, reader)
        return seen[key]

    redraw = score_lines(source, read(source))
    current = source
    acc: list[float] = []
    tok: list[float] = []
    for _ in range(generations):
        current = [s[: geometry.cols] for s in read(current)]
        score = score_lines(source, current)
        acc.append(score.char_accuracy)
        tok.append(score.token_accuracy)
    return GenerationalLoss(
        reader=reader.name,
        font=geometry.font.name,
        preprocess=preprocess.label,
        lines=len(source),
        rerender=tuple(acc),
        redraw=(redraw.char_accuracy,) * generations,
        rerender_tokens=tuple(tok),
        redraw_tokens=(redraw.token_accuracy,) * generations,
    )
