"""A gate for regressions: the weakest independent whole-page reader must reach a bar.

``snapshot legibility --model M --min ACC`` draws full pages of held-out text
in the model's own layout at its real page size (or ``size``), hands each page
to independent whole-page readers (:mod:`snapshot.legibility.page_readers`)
and fails when the weakest one reads fewer than ``ACC`` of the characters. The
default reader is the first of :data:`GATE_READERS` installed here; the
package's own decoder (the round-trip check) never gates: it only shows the
information survived rasterizing, not that anyone else can read it.

>>> GATE_READERS[0]
'ppocrv6-small'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from snapshot.errors import InputError
from snapshot.legibility.frontier import CandidateLayout, Point, measure
from snapshot.legibility.hardlines import HELD_OUT_SEED
from snapshot.legibility.page_readers import ReaderUnavailable, load_page_reader

#: Independent whole-page readers in the order the gate picks its default.
GATE_READERS: tuple[str, ...] = (
    "ppocrv6-small",
    "ppocrv5",
    "rapidocr-v4",
    "tesseract-x2",
    "easyocr-en",  # last: it brings PyTorch, and is not in CI
)


class NoIndependentReader(InputError):
    """No independent whole-page reader is installed (the round-trip check cannot gate)."""


@dataclass(frozen=True)
class GateResult:
    """The readings, the weakest one and whether it met the bar."""

    model: str
    minimum: float
    text: str
    points: tuple[Point, ...]
    unavailable: tuple[str, ...]

    @property
    def weakest(self) -> Point:
        return min(self.points, key=lambda p: (p.char_accuracy, p.reader_name))

    @property
    def passed(self) -> bool:
        return self.weakest.char_accuracy >= self.minimum


def default_gate_reader() -> str:
    """The first installed reader of :data:`GATE_READERS`.

    Raises
    ------
    NoIndependentReader
        None is installed (each one's reason is in the message).
    """
    why = []
    for name in GATE_READERS:
        try:
            load_page_reader(name)
            return name
        except ReaderUnavailable as exc:
            why.append(f"{name}: {exc}")
    raise NoIndependentReader(
        "no independent whole-page reader is installed, and the round-trip check never "
        "gates (install the [pageocr] or [ocr] extra): " + "; ".join(why)
    )


def gate_layout(model: str, size: tuple[int, int] | None = None) -> CandidateLayout:
    """The model's default layout on its real page size (or ``size``)."""
    from snapshot import profiles

    g = profiles.profile_for(model).geometry()
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
    """Read ``pages`` full pages with each reader (default: :func:`default_gate_reader`).

    Raises
    ------
    InputError
        ``minimum`` outside (0, 1], or ``pages`` below 1.
    NoIndependentReader
        No named reader (or no default one) is installed.
    """
    if not 0.0 < minimum <= 1.0:
        raise InputError(f"--min must be in (0, 1], got {minimum}")
    if pages < 1:
        raise InputError(f"pages must be at least 1, got {pages}")
    names = list(readers) or [default_gate_reader()]
    layout = gate_layout(model, size)
    points: list[Point] = []
    unavailable: list[str] = []
    for name in names:
        try:
            reader = load_page_reader(name)
        except ReaderUnavailable as exc:
            unavailable.append(f"{name}: {exc}")
            continue
        points.append(measure(layout, reader, seed=seed, pages=pages, text=text))
    if not points:
        raise NoIndependentReader(
            "none of the readers asked for is installed, and the round-trip check never "
            "gates: " + "; ".join(unavailable)
        )
    return GateResult(model, minimum, text, tuple(points), tuple(unavailable))


__all__ = ["GATE_READERS", "GateResult", "NoIndependentReader", "default_gate_reader", "gate"]
