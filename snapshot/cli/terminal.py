"""Text made safe for a terminal: control characters shown escaped, never obeyed.

Transcript text and labels come from files anyone can write. Printed raw, an
OSC sequence retitles the window or fills the clipboard and ``ESC[2J`` clears
the screen; every human-readable listing passes its lines through
:func:`safe_line` first. Machine-readable output (``--json``) is left alone:
JSON escapes control characters itself.

>>> safe_line("ok\\x1b]0;pwned\\x07 done\\tx")
'ok\\\\x1b]0;pwned\\\\x07 done\\\\tx'
>>> safe_line("tab\\tkept", keep="\\t")
'tab\\tkept'
"""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, and the bidirectional overrides that reorder what is shown.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(ch: str) -> str:
    code = ord(ch)
    if ch == "\n":
        return "\\n"
    if ch == "\t":
        return "\\t"
    if ch == "\r":
        return "\\r"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_line(text: str, *, keep: str = "") -> str:
    """``text`` with control characters (except those in ``keep``) written as escapes.

    Parameters
    ----------
    text : str
        Anything about to be printed for a person to read.
    keep : str
        Control characters to print as they are (``"\\n"`` for multi-line output).

    Returns
    -------
    str
        Printable text; unpaired surrogates are shown as ``\\udXXX`` escapes too.
    """
    out = _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m.group()), text)
    # A lone surrogate cannot be encoded for the terminal at all.
    if any("\ud800" <= c <= "\udfff" for c in out):
        out = "".join(f"\\u{ord(c):04x}" if "\ud800" <= c <= "\udfff" else c for c in out)
    return out
