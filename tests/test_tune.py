"""Profile tuning: densest candidate that meets the target, with the trail written down."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from snapshot.errors import SnapshotError
from snapshot.legibility.readers import OracleReader, PageLayout
from snapshot.legibility.resample import Seen
from snapshot.legibility.tune import (
    Billing,
    billing_for,
    candidates,
    load_fonts,
    profile_document,
    tune,
    write_profile,
)


def _billing(limit: int = 1000) -> Billing:
    def seen(w: int, h: int) -> tuple[int, int]:
        s = min(1.0, limit / max(w, h))
        return (w, h) if s == 1.0 else (int(w * s), int(h * s))

    return Billing(
        model="claude-sonnet-4-5",
        tokens=lambda w, h: math.ceil(w / 28) * math.ceil(h / 28),
        seen=seen,
        default_size=(840, 420),
        page_sizes=((840, 420), (420, 420), (1400, 700)),
        source="test billing",
    )


@dataclass(frozen=True)
class GapReader:
    """Reads exactly when the page has a column gap, garbles every other character if not."""

    @property
    def name(self) -> str:
        return "gap-reader"

    def read(self, seen: Seen, layout: PageLayout, rows: Sequence[int]) -> list[str]:
        text = OracleReader().read(seen, layout, rows)
        if layout.geometry.col_gap >= 1:
            return text
        return ["".join("?" if i % 2 else ch for i, ch in enumerate(t)) for t in text]


def test_candidates_are_densest_first_and_never_resampled() -> None:
    fonts, skipped = load_fonts(["misc-5x8", "misc-6x12", "no-such-font"])
    assert [f.name for f in fonts] == ["misc-5x8", "misc-6x12"]
    assert len(skipped) == 1 and "no-such-font" in skipped[0]
    cands = candidates(_billing(), fonts, (0, 1), (0,), ("black-on-white",))
    assert cands, "some candidate must fit"
    assert all(c.seen == c.page for c in cands)
    assert all(c.page != (1400, 700) for c in cands)  # the provider would shrink it
    dens = [c.density for c in cands]
    assert dens == sorted(dens, reverse=True)
    assert cands[0].font == "misc-5x8" and cands[0].col_gap == 0


def test_tune_picks_the_densest_candidate_that_reads(tmp_path: Path) -> None:
    res = tune(
        "claude-sonnet-4-5",
        GapReader(),
        target=0.99,
        fonts=["misc-5x8", "misc-6x12"],
        col_gaps=(0, 1),
        row_gaps=(0,),
        inks=("black-on-white",),
        lines=4,
        billing=_billing(),
    )
    assert res.winner is not None
    win = res.winner.candidate
    assert win.col_gap == 1 and res.winner.char_accuracy == 1.0
    rejected = [t for t in res.trials if t is not res.winner]
    assert rejected and all(not t.passed for t in rejected)
    assert all(t.candidate.density >= win.density for t in rejected)
    assert "col_gap=1" in res.why and "fell short" in res.why

    path = write_profile(res, tmp_path / "p.json")
    doc = json.loads(path.read_text())
    assert doc["profile"][0]["font"] == win.font
    assert doc["profile"][0]["col_gap"] == 1
    assert doc["tuned"]["rejected"]
    # the file is a profile the project loads (--profile FILE)
    from snapshot.profiles import load_profiles

    loaded = load_profiles(path)["claude-sonnet-4-5"]
    assert loaded.font == win.font and loaded.page == win.page
    # the spacing it won with is what the profile draws
    assert loaded.col_gap == 1 and loaded.geometry().col_gap == 1
    assert loaded.geometry().size == win.page


def test_tune_reports_when_nothing_meets_the_target() -> None:
    res = tune(
        "claude-sonnet-4-5",
        GapReader(),
        target=0.99,
        fonts=["misc-5x8"],
        col_gaps=(0,),
        row_gaps=(0,),
        inks=("black-on-white",),
        lines=3,
        billing=_billing(),
    )
    assert res.winner is None
    assert "no candidate reached" in res.why
    with pytest.raises(SnapshotError):
        profile_document(res)


def test_bad_target_and_no_fonts() -> None:
    with pytest.raises(SnapshotError, match="target"):
        tune("x", OracleReader(), target=1.5, billing=_billing())
    with pytest.raises(SnapshotError, match="no font"):
        tune("x", OracleReader(), fonts=["nope"], billing=_billing())


def test_real_billing_from_profiles() -> None:
    b = billing_for("claude-sonnet-4-5")
    assert b.default_size in b.page_sizes
    w, h = b.default_size
    assert b.seen(w, h) == (w, h)
    assert b.tokens(w, h) > 0
