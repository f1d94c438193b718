"""Profile files carry spacing and ink, so a tuned profile draws what it was tuned with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snapshot.errors import InputError
from snapshot.profiles import load_profiles, profile_for, profile_to_dict


def _write(tmp_path: Path, entry: dict[str, object]) -> Path:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(entry), encoding="utf-8")
    return path


def test_spacing_and_ink_reach_the_geometry(tmp_path: Path) -> None:
    plain = profile_for("gemini-3-pro-preview")
    page = list(plain.solution().size)
    entry = {
        "model": "gemini-3-pro-preview",
        "page": page,
        "col_gap": 1,
        "row_gap": 2,
        "ink": "white-on-black",
    }
    spaced = load_profiles(_write(tmp_path, entry))["gemini-3-pro-preview"]
    g = spaced.geometry()
    assert (g.col_gap, g.row_gap, g.ink) == (1, 2, "white-on-black")
    assert g.size == tuple(page)
    assert spaced.solution().chars_per_page < plain.solution().chars_per_page
    assert spaced.solution().chars_per_page == g.chars_per_page
    # and it round-trips
    again = load_profiles(_write(tmp_path, profile_to_dict(spaced)))["gemini-3-pro-preview"]
    assert (again.col_gap, again.row_gap, again.ink) == (1, 2, "white-on-black")


@pytest.mark.parametrize(
    "bad",
    [{"ink": "purple"}, {"col_gap": -1}, {"row_gap": 1.5}, {"col_gap": True}, {"row_gap": 500}],
)
def test_bad_spacing_is_a_clear_error(tmp_path: Path, bad: dict[str, object]) -> None:
    with pytest.raises(InputError, match=next(iter(bad))):
        load_profiles(_write(tmp_path, {"model": "gpt-5.1", **bad}))
