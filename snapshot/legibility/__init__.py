"""The legibility lab: what providers do to pages, who can still read them, and at what cost.

Modules: ``resample`` (simulated provider preprocessing), ``readers`` (oracle and
OCR readers behind one protocol), ``metrics`` (character and token accuracy),
``confusability`` (glyph Hamming matrices), ``generational`` (re-render vs
redraw), ``hardlines`` (seeded hard test text), ``tune`` (profile search), ``lab`` (the
``snapshot legibility`` table);
the live-model probes live in ``live``/``probes``/``records``.
"""
