"""A gate for regressions: the weakest *qualified* whole-page reader must reach a bar.

``snapshot legibility --model M --min ACC`` draws full pages of held-out text in the
model's own layout at its real page size (or ``size``) and hands each page to every
installed independent whole-page reader (:mod:`snapshot.legibility.page_readers`), or
to the ones ``--page-reader`` names. Each reader also reads a **control page**: the
same text source on the same page size and ink, drawn in a plain monospace at 16 px
(:func:`control_layout`). A reader is *qualified* at that page when its control reaches
:data:`QUALIFY_BAR` of the characters; only qualified readers judge, by the layout's
accuracy **relative to their own control** (what the reader cannot read even in clean
large text is the reader's, not the layout's). The gate fails when the weakest
qualified reader's relative score is below ``ACC``. A requested reader that is not
installed, or no qualified reader at all, is an error (exit 2), never a pass. The
package's own decoder (the round-trip check) never gates.

OCR readers are proxies for vision models: a pass says these engines read the page.

>>> control_layout(CandidateLayout("snap5x8", page=(1568, 728))).key
'dejavu-sans-mono@16 1-bit gap 0x0 1568x728'
>>> QUALIFY_BAR
0.93
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from snapshot.errors import InputError
from snapshot.legibility.controls import (
    CONTROL_FONT,
    CONTROL_SIZE,
    QUALIFY_BAR,
    Judged,
    control_layout,
)
from snapshot.legibility.frontier import CandidateLayout, Point, measure
from snapshot.legibility.hardlines import HELD_OUT_SEED
from snapshot.legibility.page_readers import ReaderUnavailable, load_page_reader

#: Independent whole-page readers, in the order the gate reads with them.
GATE_READERS: tuple[str, ...] = (
    "ppocrv6-small",
    "ppocrv5",
    "rapidocr-v4",
    "tesseract-x2",
    "easyocr-en",  # last: it brings PyTorch, and is not in CI
)


class NoIndependentReader(InputError):
    """No independent whole-page reader can judge (none installed, one asked for is
    missing, or none qualifies on its control page)."""


@dataclass(frozen=True)
class GateResult:
    """The readings, the weakest qualified one and whether it met the bar."""

    model: str
    minimum: float
    text: str
    judged: tuple[Judged, ...]
    unavailable: tuple[str, ...]

    @property
    def qualified(self) -> tuple[Judged, ...]:
        return tuple(j for j in self.judged if j.qualified)

    @property
    def weakest(self) -> Judged:
        """The qualified reader with the lowest relative score (ties: by name)."""
        return min(self.qualified, key=lambda j: (j.relative, j.reader))

    @property
    def passed(self) -> bool:
        return self.weakest.relative >= self.minimum

    @property
    def points(self) -> tuple[Point, ...]:
        return tuple(cast(Point, j.point) for j in self.judged)  # what gate() measured

    def as_dict(self) -> dict[str, Any]:
        """What ``snapshot legibility --min ACC --json`` prints."""
        weak = self.weakest
        return {
            "model": self.model,
            "min": self.minimum,
            "text": self.text,
            "passed": self.passed,
            "weakest": weak.reader,
            "weakest_relative": round(weak.relative, 4),
            "qualify_bar": QUALIFY_BAR,
            "readings": [j.point.as_dict() for j in self.judged],
            "controls": [j.control.as_dict() if j.control else None for j in self.judged],
            "judges": [
                {
                    "reader": j.reader,
                    "qualified": j.qualified,
                    "control_chars": j.control.char_accuracy if j.control else None,
                    "chars": j.point.char_accuracy,
                    "relative": round(j.relative, 4),
                }
                for j in self.judged
            ],
        }


def installed_gate_readers() -> list[str]:
    """Every reader of :data:`GATE_READERS` installed here, in that order.

    Raises
    ------
    NoIndependentReader
        None is installed (each one's reason is in the message).
    """
    found, why = [], []
    for name in GATE_READERS:
        try:
            load_page_reader(name)
            found.append(name)
        except ReaderUnavailable as exc:
            why.append(f"{name}: {exc}")
    if not found:
        raise NoIndependentReader(
            "no independent whole-page reader is installed, and the round-trip check never "
            "gates (install the [pageocr] or [ocr] extra): " + "; ".join(why)
        )
    return found


def gate_layout(
    model: str, size: tuple[int, int] | None = None, *, warn: bool = True
) -> CandidateLayout:
    """The model's default layout on its real page size (or ``size``); ``warn``: say so
    when the model is retired or deprecated."""
    from snapshot import profiles

    g = profiles.profile_for(model, warn=warn).geometry()
    return CandidateLayout(g.font.name, None, g.shade, g.row_gap, g.col_gap, size or g.size, g.ink)


def gate(
    model: str,
    minimum: float,
    *,
    readers: Sequence[str] = (),
    size: tuple[int, int] | None = None,
    text: str = "hardlines",
    pages: int = 1,
    seed: int = HELD_OUT_SEED,
) -> GateResult:
    """:func:`check_layout` on ``model``'s default layout at its real page (or ``size``):
    ``pages`` full pages and their controls read by each reader (default: every installed
    one, :func:`installed_gate_readers`); it raises what :func:`check_layout` raises."""
    return check_layout(
        gate_layout(model, size), minimum, readers=readers, text=text, pages=pages, seed=seed,
        name=model,
    )  # fmt: skip


def check_layout(
    layout: CandidateLayout,
    minimum: float,
    *,
    readers: Sequence[str] = (),
    text: str = "hardlines",
    pages: int = 1,
    seed: int = HELD_OUT_SEED,
    name: str = "",
) -> GateResult:
    """The gate's check of one layout at its page (:func:`gate` on a model's default;
    ``snapshot tune`` on the profile it is about to write): ``pages`` full pages of held-out
    ``text`` and their controls read by each reader (default: every installed one).

    Raises
    ------
    InputError
        ``minimum`` outside (0, 1], or ``pages`` below 1.
    NoIndependentReader
        A named reader is not installed, none is installed, or none qualifies.
    """
    if not 0.0 < minimum <= 1.0:
        raise InputError(f"--min must be in (0, 1], got {minimum}")
    if pages < 1:
        raise InputError(f"pages must be at least 1, got {pages}")
    loaded = {}
    missing = []
    for reader_name in list(readers) or installed_gate_readers():
        try:
            loaded[reader_name] = load_page_reader(reader_name)
        except ReaderUnavailable as exc:
            missing.append(f"{reader_name}: {exc}")
    if missing:
        raise NoIndependentReader(
            "a reader asked for is not installed (drop it or install it; the round-trip "
            "check never gates): " + "; ".join(missing)
        )
    control = control_layout(layout)
    judged = tuple(
        Judged(
            measure(layout, reader, seed=seed, pages=pages, text=text),
            measure(control, reader, seed=seed, pages=pages, text=text),
        )
        for reader in loaded.values()
    )
    result = GateResult(name or layout.key, minimum, text, judged, ())
    if not result.qualified:
        controls = ", ".join(
            f"{j.reader} {j.control.char_accuracy:.3f}" if j.control else f"{j.reader} none"
            for j in judged
        )
        raise NoIndependentReader(
            f"no reader qualifies on {layout.page[0]}x{layout.page[1]}: each must read its "
            f"control page ({control.key}) at >= {QUALIFY_BAR} of the characters; read: "
            f"{controls}"
        )
    return result


__all__ = [
    "CONTROL_FONT",
    "CONTROL_SIZE",
    "GATE_READERS",
    "QUALIFY_BAR",
    "GateResult",
    "Judged",
    "NoIndependentReader",
    "check_layout",
    "control_layout",
    "gate",
    "installed_gate_readers",
]
