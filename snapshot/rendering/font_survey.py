"""What each font ``load_font`` knows by name offers: cell, glyphs, coverage, closest pairs.

The ``snapshot fonts`` command's library. Coverage is measured on the
repertoire the project fonts are asked to cover (:data:`COVERAGE_BLOCKS`):
the share of each block the font draws itself, not through a fallback.

>>> rec = next(r for r in font_survey() if r["name"] == "snap5x8")
>>> rec["cell"], rec["coverage"]["ascii"]
([5, 8], 1.0)
"""

from __future__ import annotations

from typing import Any

from snapshot.rendering.glyphs import available_fonts, closest_pairs, load_font

__all__ = ["COVERAGE_BLOCKS", "font_survey"]

#: The repertoire the project fonts are asked to cover, by block.
COVERAGE_BLOCKS: dict[str, list[str]] = {
    "ascii": [chr(c) for c in range(0x20, 0x7F)],
    "latin1": [chr(c) for c in range(0xA0, 0x100)],
    "latin_ext_a": [chr(c) for c in range(0x100, 0x180)],
    "greek": [chr(c) for c in range(0x391, 0x3AA) if c != 0x3A2]
    + [chr(c) for c in range(0x3B1, 0x3CA)],
    "cyrillic": [chr(c) for c in range(0x410, 0x450)],
    "box": [chr(c) for c in range(0x2500, 0x2580)],
}


def font_survey(closest: int = 5) -> list[dict[str, Any]]:
    """One record per available font (``unifont`` left out: it loads in seconds).

    Parameters
    ----------
    closest : int
        How many closest printable-ASCII glyph pairs (by Hamming distance) to list.

    Returns
    -------
    list of dict
        ``name``, ``path``, ``cell`` [w, h], ``glyphs`` (drawn by the font itself),
        ``coverage`` (block → share, 3 decimals, in :data:`COVERAGE_BLOCKS` order)
        and ``closest`` ([a, b, distance] lists).

    Examples
    --------
    >>> rec = next(r for r in font_survey(closest=1) if r["name"] == "snap5x8")
    >>> sorted(rec["coverage"]) == sorted(COVERAGE_BLOCKS), len(rec["closest"])
    (True, 1)
    """
    records: list[dict[str, Any]] = []
    for name, path in available_fonts().items():
        if name == "unifont":
            continue  # 57k glyphs: loads in seconds; available by name all the same
        font = load_font(name)
        primary = font.primary_chars
        coverage = {
            block: round(sum(c in primary for c in chars) / len(chars), 3)
            for block, chars in COVERAGE_BLOCKS.items()
        }
        records.append(
            {
                "name": name,
                "path": str(path),
                "cell": list(font.cell),
                "glyphs": len(primary),
                "coverage": coverage,
                "closest": [list(p) for p in closest_pairs(font, limit=closest)],
            }
        )
    return records
