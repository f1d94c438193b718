"""Control pages: every reading judged against the same reader's reading of plain large text.

A reader that cannot read clean 16 px DejaVu Sans Mono at a page size is measuring itself,
not the layout (issue 40: four of five readers cannot reach 0.97 on clean text). So each
reading of a layout has a **control**: the same text source, seed, page size and ink (two
levels for a 1-bit layout, gray for gray), drawn in :data:`CONTROL_FONT` at
:data:`CONTROL_SIZE` px (:func:`control_layout`), read by the same reader under the same
settings. A control is an ordinary :class:`~snapshot.legibility.frontier.Point`, cached in
the :class:`~snapshot.legibility.frontier.PointCache` like any reading: its key holds the
reader's settings version, the page size, the ink and the text.

A reader is *qualified* at a page where its control reaches :data:`QUALIFY_BAR` of the
characters. A layout's score is then **relative**: its accuracy as a share of the control's
(:class:`Judged`), with the absolute figure beside it. Only qualified readers decide a
verdict; the others are shown, labelled, and never decide.

>>> from snapshot.legibility.frontier import CandidateLayout
>>> control_layout(CandidateLayout("snap5x9v2", shade="gray", page=(1568, 728))).key
'dejavu-sans-mono@16 gray gap 0x0 1568x728'
>>> QUALIFY_BAR
0.93
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from snapshot.profiles.default_rule import QUALIFY_BAR  # the default rule's bar, one place

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    # a layout: :class:`~snapshot.legibility.frontier.CandidateLayout` (not imported here:
    # the frontier imports this module)
    Layout = TypeVar("Layout", bound=DataclassInstance)


class Point(Protocol):
    """What a control is matched and judged by: a
    :class:`~snapshot.legibility.frontier.Point`."""

    @property
    def layout(self) -> Any: ...
    @property
    def reader(self) -> Mapping[str, Any]: ...
    @property
    def reader_name(self) -> str: ...
    @property
    def scale(self) -> float: ...
    @property
    def seed(self) -> int: ...
    @property
    def pages(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def char_accuracy(self) -> float: ...
    @property
    def hard_token_accuracy(self) -> float: ...
    def as_dict(self) -> dict[str, Any]: ...


#: The control page's face and pixel size: plain, large, clean text any reader that
#: judges must read.
CONTROL_FONT = "dejavu-sans-mono"
CONTROL_SIZE = 16


def control_layout(layout: Layout) -> Layout:
    """The control of ``layout``: the same page size, shade and ink, in a plain 16 px
    monospace with no gaps or extra stroke."""
    return dataclasses.replace(
        layout, font=CONTROL_FONT, size=CONTROL_SIZE, row_gap=0, col_gap=0, stroke=0
    )


def is_control(layout: Any) -> bool:
    """Whether ``layout`` is a control page (its own control).

    >>> from snapshot.legibility.frontier import CandidateLayout
    >>> is_control(CandidateLayout("dejavu-sans-mono", 16)), is_control(CandidateLayout("snap5x8"))
    (True, False)
    """
    return layout == control_layout(layout)


@dataclass(frozen=True)
class Relative:
    """A reading as a share of its control's: what :meth:`Goal.passes
    <snapshot.readability.goal.Goal.passes>` judges for a qualified reader."""

    char_accuracy: float
    hard_token_accuracy: float


@dataclass(frozen=True)
class Judged:
    """One reader's reading of a layout beside its reading of the control page (None: the
    control is not read yet, so the reader cannot judge)."""

    point: Point
    control: Point | None

    @property
    def reader(self) -> str:
        return self.point.reader_name

    @property
    def qualified(self) -> bool:
        return self.control is not None and self.control.char_accuracy >= QUALIFY_BAR

    @property
    def relative(self) -> float:
        """The layout's character accuracy as a share of the control's (0 without one)."""
        c = self.control.char_accuracy if self.control is not None else 0.0
        return self.point.char_accuracy / c if c > 0 else 0.0

    @property
    def hard_relative(self) -> float:
        """The layout's exact hard tokens as a share of the control's."""
        c = self.control.hard_token_accuracy if self.control is not None else 0.0
        return self.point.hard_token_accuracy / c if c > 0 else 0.0

    @property
    def reading(self) -> Relative:
        return Relative(self.relative, self.hard_relative)

    @property
    def label(self) -> str:
        """``qualified``, or why the reader does not judge.

        >>> from types import SimpleNamespace as P
        >>> Judged(P(char_accuracy=0.5), P(char_accuracy=0.71)).label
        'unqualified (control 0.710 < 0.93)'
        >>> Judged(P(char_accuracy=0.5), None).label
        'no control read'
        """
        if self.control is None:
            return "no control read"
        if not self.qualified:
            return f"unqualified (control {self.control.char_accuracy:.3f} < {QUALIFY_BAR})"
        return "qualified"

    def cell(self) -> str:
        """Relative with the absolute beside it, or the absolute alone where it cannot judge.

        >>> from types import SimpleNamespace as P
        >>> Judged(P(char_accuracy=0.912), P(char_accuracy=0.96)).cell()
        '0.950 of control (0.912 absolute)'
        >>> Judged(P(char_accuracy=0.5), None).cell()
        '0.500 absolute, no control read'
        """
        if self.control is None:
            return f"{self.point.char_accuracy:.3f} absolute, {self.label}"
        return f"{self.relative:.3f} of control ({self.point.char_accuracy:.3f} absolute)"


def reader_id(p: Point) -> tuple[str, str, Any]:
    """Which reader took ``p``, as far as a control must match: name, model hash, settings
    version.

    >>> from types import SimpleNamespace as P
    >>> reader_id(P(reader={"model_sha256": "s", "settings": {"settings_version": 2}},
    ...             reader_name="r"))
    ('r', 's', 2)
    """
    settings = p.reader.get("settings") or {}
    return (p.reader_name, str(p.reader.get("model_sha256")), settings.get("settings_version"))


class Controls:
    """The control readings among ``points``, found by the reading they control: the same
    reader (name, model, settings version), seed, pages, text, page size and ink, native.

    >>> from snapshot.legibility.frontier import CandidateLayout, Point
    >>> lay = CandidateLayout("snap5x8", page=(1568, 728))
    >>> mk = lambda layout, acc: Point(layout, {"name": "r", "model_sha256": "s"}, 1.0, None,
    ...                                1, 1, 100, 100, 1.0, acc, 10, 9)
    >>> pts = [mk(lay, 0.9), mk(control_layout(lay), 0.96)]
    >>> Controls(pts).judge(pts[0]).cell()
    '0.938 of control (0.900 absolute)'
    """

    def __init__(self, points: Iterable[Point]) -> None:
        self._by: dict[tuple[Any, ...], Point] = {
            self._key(p, p.layout): p for p in points if p.scale == 1.0 and is_control(p.layout)
        }

    @staticmethod
    def _key(p: Point, layout: Any) -> tuple[Any, ...]:
        return (*reader_id(p), p.seed, p.pages, p.text, control_layout(layout).key)

    def of_layout(self, point: Point, layout: Any) -> Point | None:
        """The control of ``point``'s reader, seed and text drawn for ``layout`` (its page
        and ink)."""
        return self._by.get(self._key(point, layout))

    def of(self, point: Point, fallback: Any = None) -> Point | None:
        """The control of ``point``; where none was read at its page, the control at
        ``fallback``'s page (a ±4 px reading judged against its real page's control: a
        reader's control moves by at most 0.009 across page sizes, issue 40)."""
        found = self.of_layout(point, point.layout)
        if found is None and fallback is not None:
            found = self.of_layout(point, fallback)
        return found

    def judge(self, point: Point, fallback: Any = None) -> Judged:
        return Judged(point, self.of(point, fallback))


__all__ = [
    "CONTROL_FONT",  # QUALIFY_BAR is re-exported: snapshot.profiles.default_rule's
    "CONTROL_SIZE",
    "QUALIFY_BAR",
    "Controls",
    "Judged",
    "Relative",
    "control_layout",
    "is_control",
    "reader_id",
]
