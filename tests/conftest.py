"""Shared fixtures. Progress bars stay off in tests (they write to stderr)."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("SNAPSHOT_NO_PROGRESS", "1")
# No test starts a heavy whole-page reader unless it asks (report.reader_plan.READERS_ENV).
os.environ.setdefault("SNAPSHOT_PAGE_READERS", "none")


@pytest.fixture(scope="session")
def dense():  # type: ignore[no-untyped-def]
    """The project's dense font (snap5x8)."""
    from snapshot.rendering.glyphs import load_font

    return load_font("snap5x8")


@pytest.fixture(scope="session")
def medium():  # type: ignore[no-untyped-def]
    """The project's medium font (snap8x16)."""
    from snapshot.rendering.glyphs import load_font

    return load_font("snap8x16")


def _system_font(name: str):  # type: ignore[no-untyped-def]
    from snapshot.rendering.glyphs import available_fonts, load_font

    if name not in available_fonts():
        pytest.skip(f"system font {name} is not installed (apt: xfonts-base / fonts-spleen)")
    return load_font(name)


@pytest.fixture(scope="session")
def system_font():  # type: ignore[no-untyped-def]
    """``system_font(name)``: a system font by name, or skip the test saying why."""
    return _system_font
