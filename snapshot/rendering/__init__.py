"""The render core: bitmap fonts, page geometry, text layout, rasters, PNG pages and
the exact decoder that reads a page back.

Nothing here knows about providers, transcripts or prices; every other layer may use
it. The public names are re-exported by :mod:`snapshot`::

    >>> from snapshot.rendering.glyphs import load_font
    >>> from snapshot.rendering.geometry import Geometry
    >>> from snapshot.rendering.page import render
    >>> font = load_font("snap5x8")
    >>> pages = render("a page of text", Geometry(font, cols=40, rows=4))
    >>> len(pages), pages[0].pixels.shape
    (1, (36, 204))
"""
