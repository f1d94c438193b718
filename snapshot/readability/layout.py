"""The one-line name every reading of a page design is keyed by.

>>> layout_key("snap5x9v2", None, "gray", col_gap=0, row_gap=1, page=(1568, 728))
'snap5x9v2 gray gap 0x1 1568x728'
>>> layout_key("dejavu-sans-mono", 8, "gray", page=(784, 728), ink="white-on-black", stroke=1)
'dejavu-sans-mono@8 gray gap 0x0 784x728 white-on-black stroke+1'
"""

from __future__ import annotations

__all__ = ["layout_key"]


def layout_key(
    font: str,
    size: int | None = None,
    shade: str = "1-bit",
    *,
    col_gap: int = 0,
    row_gap: int = 0,
    page: tuple[int, int],
    ink: str = "black-on-white",
    stroke: int = 0,
) -> str:
    """``font[@size] shade gap CxR WxH[ ink][ stroke+N]`` (keys of layouts measured before
    an axis existed stay as they were: the default ink and no stroke add nothing)."""
    name = font if size is None else f"{font}@{size}"
    ink_part = "" if ink == "black-on-white" else f" {ink}"
    stroke_part = f" stroke+{stroke}" if stroke else ""
    w, h = page
    return f"{name} {shade} gap {col_gap}x{row_gap} {w}x{h}{ink_part}{stroke_part}"
