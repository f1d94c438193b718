"""Generational loss: re-rendering from pixels compounds errors; redrawing from source does not."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from snapshot.legibility.generational import generational_loss, read_through
from snapshot.legibility.hardlines import hard_lines
from snapshot.legibility.readers import OracleReader, PageLayout, line_geometry
from snapshot.legibility.resample import NATIVE, Preprocess, Seen


def _font(name: str = "misc-5x8"):  # type: ignore[no-untyped-def]
    from snapshot.rendering.glyphs import load_font

    return load_font(name)


@dataclass(frozen=True)
class OneSlipReader:
    """Reads exactly, then misreads the first character not yet turned into '#'.

    A deterministic stand-in for a reader that makes one new mistake per line
    per pass: on re-rendered pages those mistakes pile up.
    """

    @property
    def name(self) -> str:
        return "one-slip"

    def read(self, seen: Seen, layout: PageLayout, rows: Sequence[int]) -> list[str]:
        out = []
        for text in OracleReader().read(seen, layout, rows):
            i = next((k for k, ch in enumerate(text) if ch != "#"), None)
            out.append(text if i is None else text[:i] + "#" + text[i + 1 :])
        return out


def test_errors_compound_only_when_re_rendering() -> None:
    lines = ["abcdefghij", "0123456789"]
    res = generational_loss(lines, line_geometry(_font(), lines), NATIVE, OneSlipReader())
    assert res.generations == 5
    assert res.rerender == pytest.approx((0.9, 0.8, 0.7, 0.6, 0.5))
    assert res.redraw == pytest.approx((0.9,) * 5)
    assert res.rerender_tokens[-1] <= res.redraw_tokens[-1]


def test_read_through_is_exact_for_the_oracle_at_native_scale() -> None:
    lines = hard_lines(5, seed=7)
    assert read_through(lines, line_geometry(_font(), lines), NATIVE, OracleReader()) == lines


def test_realistic_resample_never_improves_by_re_rendering() -> None:
    lines = hard_lines(6, seed=5)
    res = generational_loss(
        lines,
        line_geometry(_font("snap5x8"), lines),
        Preprocess(scale=0.555, filter="lanczos"),
        OracleReader(),
        generations=3,
    )
    assert res.rerender[0] == pytest.approx(res.redraw[0])  # generation 1 is the same page
    assert res.rerender[-1] <= res.rerender[0] + 1e-9
    assert res.redraw[-1] >= res.rerender[-1]


def test_generations_must_be_positive() -> None:
    with pytest.raises(ValueError):
        generational_loss(
            ["x"], line_geometry(_font(), ["x"]), NATIVE, OracleReader(), generations=0
        )


@dataclass
class CountingReader:
    """The oracle, counting the pages it is asked to read."""

    pages: int = 0

    @property
    def name(self) -> str:
        return "oracle"

    def read(self, seen: Seen, layout: PageLayout, rows: Sequence[int]) -> list[str]:
        self.pages += 1
        return OracleReader().read(seen, layout, rows)


def test_each_distinct_page_is_read_once() -> None:
    lines = hard_lines(3, seed=2)
    reader = CountingReader()
    res = generational_loss(lines, line_geometry(_font(), lines), NATIVE, reader)
    assert res.rerender == pytest.approx((1.0,) * 5)  # exact reads: every generation one page
    assert reader.pages == 1
