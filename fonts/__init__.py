"""The project's own bitmap fonts: glyph sources (``src/*.txt``), the build script, built BDFs."""

from __future__ import annotations

from pathlib import Path

FONT_DIR = Path(__file__).resolve().parent
"""Directory holding the built ``*.bdf`` files (and ``src/`` with their sources)."""

BUNDLED = ("snap5x8", "snap8x16")
"""Names of the faces built here; ``FONT_DIR / f"{name}.bdf"`` is the font file."""
