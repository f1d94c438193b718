"""Text normalization and layout: text in, grids of atlas indices out.

Everything here is linear in the text length and vectorized over code points
(a 5 MB single line wraps as fast as 5 MB of short lines).

>>> from snapshot.rendering.glyphs import load_font
>>> from snapshot.rendering.geometry import Geometry
>>> normalize("a\\tb  \\r\\nc\\x1b[31md\\x00").text
'a       b\\ncd␀'
>>> g = Geometry(load_font("misc-5x8"), cols=4, rows=3)
>>> [grid.shape for grid in layout("hello world", g)]
[(2, 4), (2, 4)]
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AnyStr

import numpy as np

from snapshot.errors import InputError
from snapshot.rendering.geometry import Geometry
from snapshot.rendering.glyphs import CONTINUE, KEPT, NEWLINE, REPLACEMENT, SPACE

# CSI (incl. 8-bit-free forms), OSC (BEL or ST terminated), DCS/SOS/PM/APC strings,
# then any other two- or three-byte escape.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]"
    r"|\x1b"
)
_ZERO_WIDTH = "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\u00ad"
_ZERO_WIDTH += "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_ZERO_WIDTH_RE = re.compile(f"[{_ZERO_WIDTH}]")
_CONTROL_RE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")
_CONTROL_MAP = {c: 0x2400 + c for c in range(0x20) if c != 0x0A}
_CONTROL_MAP[0x7F] = 0x2421
# bytes.translate deletes these, leaving only C0 controls (other than LF) and DEL
_NOT_CONTROL = bytes(b for b in range(256) if not ((b < 0x20 and b != 0x0A) or b == 0x7F))
_LINE_BREAK = -3  # lines mode: a newline that ends a row instead of being drawn


@dataclass(frozen=True)
class NormalizedText:
    """Normalized text plus counts of what normalization changed.

    >>> n = normalize("x\\r\\ny\\u200b\\x07")
    >>> n.text, n.crlf, n.zero_width, n.controls
    ('x\\ny␇', 1, 1, 1)
    """

    text: str
    crlf: int = 0  # CRLF pairs and lone CRs folded to LF
    tabs: int = 0
    ansi: int = 0  # escape sequences removed
    zero_width: int = 0
    controls: int = 0  # control characters replaced by their U+2400 pictures
    trailing_spaces: int = 0
    nfc_changed: bool = False
    invalid_utf8: int = 0  # U+FFFD introduced while decoding bytes

    def changes(self) -> dict[str, int]:
        """The nonzero counts, by name."""
        names = ("crlf", "tabs", "ansi", "zero_width", "controls", "trailing_spaces")
        out = {n: int(getattr(self, n)) for n in names if getattr(self, n)}
        if self.nfc_changed:
            out["nfc_changed"] = 1
        if self.invalid_utf8:
            out["invalid_utf8"] = self.invalid_utf8
        return out


def _strip_trailing_spaces(s: AnyStr) -> AnyStr:
    """Remove spaces before each newline and at the end; linear, C-speed searches.

    Text or (ASCII) bytes: :mod:`snapshot.rendering.spans` strips plain ASCII spans undecoded.

    >>> _strip_trailing_spaces("a  \\nb "), _strip_trailing_spaces(b"a  \\nb ")
    ('a\\nb', b'a\\nb')
    """
    pair, space = (" \n", " ") if isinstance(s, str) else (b" \n", b" ")
    parts = []
    pos = 0
    i = s.find(pair)
    while i != -1:
        j = i
        while j > pos and s[j - 1 : j] == space:
            j -= 1
        parts.append(s[pos:j])
        pos = i + 1  # the newline starts the next part
        i = s.find(pair, pos)
    parts.append(s[pos:].rstrip(space))
    return s[:0].join(parts)


def decode_bytes(data: bytes) -> tuple[str, int]:
    """UTF-8 with invalid bytes replaced by U+FFFD; also return how many were introduced.

    >>> decode_bytes(b"ok \\xff\\xfe!")
    ('ok ��!', 2)
    """
    text = data.decode("utf-8", errors="replace")
    introduced = text.count("\ufffd") - data.count("\ufffd".encode())
    return text, introduced


def read_text(path: str | Path) -> NormalizedText:
    """Read a file (or ``-`` for stdin) as UTF-8, counting replaced bytes, and normalize."""
    import sys

    if str(path) == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    text, bad = decode_bytes(data)
    norm = normalize(text)
    return NormalizedText(**{**norm.__dict__, "invalid_utf8": bad})


def normalize(text: str) -> NormalizedText:
    """Fold CRLF, strip ANSI escapes, drop zero-width characters, NFC, expand tabs,
    show other control characters as U+2400 pictures, strip trailing spaces per line.

    Idempotent: ``normalize(normalize(t).text).text == normalize(t).text``.

    >>> normalize("\\x1b]0;title\\x07ls\\x1b[0m  \\n\\x7f").text
    'ls\\n␡'
    """
    if not isinstance(text, str):
        raise InputError(f"text must be str, got {type(text).__name__}")
    s = text
    # C-speed scans rule out most work: the control bytes present (UTF-8 never
    # hides a C0 byte inside a multi-byte sequence) and, for non-ASCII text,
    # whether any zero-width character occurs at all
    ascii_only = s.isascii()
    found = s.encode("ascii" if ascii_only else "utf-8", "surrogatepass").translate(
        None, _NOT_CONTROL
    )
    ansi = crlf = zero_width = controls = 0
    if b"\x1b" in found:
        s, ansi = _ANSI.subn("", s)
    if b"\r" in found:
        crlf = s.count("\r")
        s = s.replace("\r\n", "\n").replace("\r", "\n")
    if not ascii_only and _ZERO_WIDTH_RE.search(s):
        s, zero_width = _ZERO_WIDTH_RE.subn("", s)
    nfc_changed = False
    if not s.isascii() and not unicodedata.is_normalized("NFC", s):
        s = unicodedata.normalize("NFC", s)
        nfc_changed = True
    tabs = s.count("\t")
    if tabs:
        s = s.expandtabs(8)
    if found.strip(b"\t\r\x1b") and _CONTROL_RE.search(s):
        controls = len(_CONTROL_RE.findall(s))
        s = s.translate(_CONTROL_MAP)
    before = len(s)
    if " \n" in s or s.endswith(" "):
        s = _strip_trailing_spaces(s)
    return NormalizedText(
        text=s,
        crlf=crlf,
        tabs=tabs,
        ansi=ansi,
        zero_width=zero_width,
        controls=controls,
        trailing_spaces=before - len(s),
        nfc_changed=nfc_changed,
    )


# --------------------------------------------------------------------------- streams

#: Characters per normalized piece a :class:`NormalizeStream` hands on (about).
NORMALIZE_PIECE = 1 << 20
#: With no safe place to cut in this many characters (an escape string or one
#: line without ASCII that long), cut anyway and count it in ``forced_cuts``.
FORCE_CUT = 16 * NORMALIZE_PIECE
# two neighbours that normalize independently: ASCII, not space, tab, CR, LF or ESC
_SAFE_PAIR = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f!-\x7f]{2}")
_COUNTS = ("crlf", "tabs", "ansi", "zero_width", "controls", "trailing_spaces")


class NormalizeStream:
    """:func:`normalize` over text that arrives in chunks, in pieces of about
    :data:`NORMALIZE_PIECE` characters, without holding the whole text.

    The text is cut only where normalizing the parts gives what normalizing
    the whole gives: after a newline, or between two plain ASCII characters
    (the tab column carries over), never inside an escape sequence. The
    counts add up over the pieces; read :meth:`counts` after iterating.
    Iterating again reads ``chunks`` again (pass a re-iterable to do that).

    >>> stream = NormalizeStream(["a\\tb \\r", "\\nc\\x1b[3", "1md"])
    >>> "".join(stream) == normalize("a\\tb \\r\\nc\\x1b[31md").text
    True
    >>> stream.counts().changes()
    {'crlf': 1, 'tabs': 1, 'ansi': 1, 'trailing_spaces': 1}
    """

    def __init__(self, chunks: Iterable[str], *, piece: int = NORMALIZE_PIECE) -> None:
        self.chunks = chunks
        self.piece = piece
        self.forced_cuts = 0
        self._counts: dict[str, int] = {}
        self._nfc = False

    def counts(self) -> NormalizedText:
        """What normalization changed, over everything iterated so far (``text`` empty)."""
        return NormalizedText(
            "", **{n: self._counts.get(n, 0) for n in _COUNTS}, nfc_changed=self._nfc
        )

    def __iter__(self) -> Iterator[str]:
        self.forced_cuts, self._counts, self._nfc = 0, {}, False
        col = 0  # column where the next piece starts (tabs expand from it)
        buf = ""
        for chunk in self.chunks:
            if not isinstance(chunk, str):
                raise InputError(f"text chunks must be str, got {type(chunk).__name__}")
            buf += chunk
            while len(buf) >= self.piece:
                cut = _cut(buf, force=len(buf) >= FORCE_CUT)
                if cut is None:
                    break
                if cut < 0:
                    cut = -cut
                    self.forced_cuts += 1
                out, col = self._normalize(buf[:cut], col)
                buf = buf[cut:]
                if out:
                    yield out
        out, col = self._normalize(buf, col)
        if out:
            yield out

    def _normalize(self, s: str, col: int) -> tuple[str, int]:
        lead = "x" * (col % 8)  # stands in for the line so far: tabs land where they would
        norm = normalize(lead + s)
        for name in _COUNTS:
            self._counts[name] = self._counts.get(name, 0) + getattr(norm, name)
        self._nfc = self._nfc or norm.nfc_changed
        out = norm.text[len(lead) :]
        nl = out.rfind("\n")
        return out, (len(out) - nl - 1 if nl >= 0 else col + len(out))


def _inside_escape(buf: str, cut: int) -> int:
    """Start of an escape sequence that ``cut`` would split, or -1."""
    j = buf.rfind("\x1b", 0, cut)
    if j < 0:
        return -1
    m = _ANSI.match(buf, j)
    # an escape string reaching the end of what has arrived may go on
    open_end = m is not None and m.end() == len(buf) and buf[j + 1 : j + 2] in "]PX^_"
    # the escape must end before the cut: what it hid must not become the piece's end
    return j if m is not None and (m.end() >= cut or open_end) else -1


def _cut(buf: str, *, force: bool) -> int | None:
    """Where to cut ``buf``: after a newline, else between two plain ASCII
    characters; None to wait for more text; negative (``-position``) when
    ``force`` made it cut where normalization may differ."""
    end = len(buf)
    while end > 0:
        i = buf.rfind("\n", 0, end) + 1
        if i == 0:
            break
        j = _inside_escape(buf, i)
        if j < 0:
            return i
        end = j
    end = len(buf)
    while end > 0:
        window = max(0, end - 4096)
        last = None
        for last in _SAFE_PAIR.finditer(buf, window, end):  # noqa: B007
            pass
        if last is None:
            if window == 0:
                break
            end = window + 1
            continue
        i = last.end() - 1  # between the pair's two characters
        j = _inside_escape(buf, i)
        if j < 0:
            return i
        end = j
    if not force:
        return None
    i = len(buf) - 1 if buf.endswith("\r") else len(buf)
    return -max(1, i)


class TextReader:
    """UTF-8 text from a regular file (or ``-``: stdin), in chunks, within a byte limit.

    Iterating reads the file again each time (stdin only once). Invalid UTF-8
    becomes U+FFFD and is counted in ``invalid_utf8``. FIFOs, sockets and
    devices are refused as files; so is stdin when it is a device other than a
    terminal (``/dev/zero``). More than ``max_bytes`` raises :class:`InputError`.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile(delete=False) as f:
    ...     _ = f.write(b"caf\\xc3\\xa9 \\xff")
    >>> reader = TextReader(f.name, max_bytes=100)
    >>> "".join(reader), reader.invalid_utf8
    ('café �', 1)
    >>> os.unlink(f.name)
    """

    def __init__(
        self, path: str | Path, *, max_bytes: int | None = None, chunk_bytes: int = 1 << 20
    ) -> None:
        import os
        import stat
        import sys

        self.path = str(path)
        self.label = "stdin" if self.path == "-" else self.path
        self.max_bytes = max_bytes
        self.chunk_bytes = chunk_bytes
        self.invalid_utf8 = 0
        self.bytes_read = 0
        self._stdin_used = False
        if self.path == "-":
            try:
                mode = os.fstat(sys.stdin.fileno()).st_mode
            except (OSError, ValueError):  # not backed by a descriptor: a stream all the same
                return
            if (stat.S_ISCHR(mode) and not sys.stdin.isatty()) or stat.S_ISBLK(mode):
                raise InputError(
                    "stdin is a device (such as /dev/zero), not text: pipe or redirect a file"
                )
            return
        try:
            st_ = os.stat(self.path)
        except OSError as exc:
            raise InputError(f"cannot read {self.label}: {exc.strerror or exc}") from exc
        if not stat.S_ISREG(st_.st_mode):
            kind = _file_kind(st_.st_mode)
            raise InputError(
                f"{self.label} is {kind}, not a regular file; give a text file, or '-' and pipe it"
            )
        if max_bytes is not None and st_.st_size > max_bytes:
            raise InputError(self._over_limit(st_.st_size))

    def _over_limit(self, size: int | None = None) -> str:
        what = f"{size:,} bytes" if size is not None else f"more than {self.max_bytes:,} bytes"
        return (
            f"{self.label}: {what} is over the input limit of {self.max_bytes:,} bytes; "
            "raise it with --max-input BYTES"
        )

    def __iter__(self) -> Iterator[str]:
        import sys

        if self.path == "-":
            if self._stdin_used:
                raise InputError("stdin can be read only once")
            self._stdin_used = True
            yield from self._decode(sys.stdin.buffer)
            return
        try:
            with open(self.path, "rb") as f:
                yield from self._decode(f)
        except OSError as exc:
            raise InputError(f"cannot read {self.label}: {exc.strerror or exc}") from exc

    def _decode(self, f: Any) -> Iterator[str]:
        import codecs

        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.invalid_utf8 = self.bytes_read = 0
        tail = b""  # a U+FFFD already in the file may straddle two reads
        while True:
            data = f.read(self.chunk_bytes)
            self.bytes_read += len(data)
            if self.max_bytes is not None and self.bytes_read > self.max_bytes:
                raise InputError(self._over_limit())
            text = decoder.decode(data, final=not data)
            self.invalid_utf8 += text.count("\ufffd") - (tail + data).count(_FFFD)
            tail = data[-2:]
            if text:
                yield text
            if not data:
                return


_FFFD = "\ufffd".encode()


def _file_kind(mode: int) -> str:
    import stat

    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


# --------------------------------------------------------------------------- header


_HEADER_RE = re.compile(
    r"page (\d+)/(\d+) (flow|lines\+?) (\S+) (\d+)x(\d+) pad (\d+) gap (\d+)x(\d+) "
    r"cell (\d+)x(\d+)$"
)
_HEADER_START_RE = re.compile(r"page (\d+)/(\d+) (flow|lines\+?) ")


def header_text(geometry: Geometry, number: int, total: int, continued: bool = False) -> str:
    """The header row: page number, mode, font and grid, so a reader can self-configure.

    Cut to the page width; the most useful fields come first. ``continued``
    (lines mode) says the page's last line goes on on the next page.

    >>> from snapshot.rendering.glyphs import load_font
    >>> header_text(Geometry(load_font("misc-5x8"), cols=80, rows=10), 1, 3)
    'page 1/3 flow misc-5x8 80x10 pad 2 gap 0x0 cell 5x8'
    """
    g = geometry
    w, h = g.font.cell
    mode = "flow" if g.flow else ("lines+" if continued else "lines")
    name = g.font.name.replace(" ", "_")
    return (
        f"page {number}/{total} {mode} {name} {g.cols}x{g.rows} "
        f"pad {g.padding} gap {g.col_gap}x{g.row_gap} cell {w}x{h}"
    )[: g.cols]


@dataclass(frozen=True)
class Header:
    """What a page header says (see :func:`header_text`); None where it was cut off."""

    number: int
    total: int
    flow: bool
    continued: bool
    font: str | None = None
    cols: int | None = None
    rows: int | None = None
    padding: int | None = None
    col_gap: int | None = None
    row_gap: int | None = None
    cell: tuple[int, int] | None = None


def parse_header(line: str) -> Header | None:
    """Parse a header row; None when it is not one. A cut-off header gives the
    page number and mode only.

    >>> parse_header("page 2/3 lines+ snap5x8 312x90 pad 2 gap 0x0 cell 5x8").continued
    True
    >>> parse_header("page 2/3 flow snap5").cols is None
    True
    >>> parse_header("page 2/3 lines") is None  # "lines+" cut short: mode unknown
    True
    """
    text = line.rstrip(" ")
    m = _HEADER_RE.match(text)
    if m is not None:
        n, t, mode, font, c, r, pad, cg, rg, w, h = m.groups()
        return Header(
            number=int(n),
            total=int(t),
            flow=mode == "flow",
            continued=mode == "lines+",
            font=font,
            cols=int(c),
            rows=int(r),
            padding=int(pad),
            col_gap=int(cg),
            row_gap=int(rg),
            cell=(int(w), int(h)),
        )
    m = _HEADER_START_RE.match(line)  # the mode must be followed by a space: not cut off
    if m is None:
        return None
    n, t, mode = m.groups()
    return Header(int(n), int(t), flow=mode == "flow", continued=mode == "lines+")


def text_indices(text: str, geometry: Geometry) -> np.ndarray:
    """Atlas indices for a short string drawn as-is (headers), one per cell."""
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
    idx, atlas = geometry.font.lookup(cps)
    idx = np.where(idx < 0, REPLACEMENT, idx).astype(np.int32)
    wide = atlas.wide[idx]
    if wide.any():
        reps = 1 + wide.astype(np.int64)
        tails = (np.cumsum(reps) - 1)[wide]
        idx = np.repeat(idx, reps)
        idx[tails] = idx[tails - 1] + 1
    return idx[: geometry.cols]


# --------------------------------------------------------------------------- layout


@dataclass(frozen=True)
class KeptSpan:
    """A run of characters no font can draw, kept as text (``unrenderable="keep"``).

    ``start``/``end`` index the normalized text; the page shows the KEPT marker
    at (``page``, ``row``, ``col``) (0-based page, text row and column).
    """

    start: int
    end: int
    text: str
    page: int
    row: int
    col: int


@dataclass(frozen=True)
class Layout:
    """Result of :func:`layout_document`: grids plus what each page covers."""

    grids: list[np.ndarray]
    spans: list[tuple[int, int]]  # [start, end) in the normalized text, per page
    continued: list[bool]  # lines mode: the page's last line goes on on the next page
    replaced: dict[str, int] = field(default_factory=dict)
    kept: tuple[KeptSpan, ...] = ()


@dataclass(frozen=True)
class PageCells:
    """One laid-out page, before drawing: what :class:`LayoutStream` hands on.

    ``grid`` is ``(text_rows, cols)`` int32 (no header row); ``span`` is
    ``[start, end)`` in the normalized text; ``text`` is that slice.
    """

    grid: np.ndarray
    span: tuple[int, int]
    continued: bool
    text: str


#: Characters of normalized text laid out at once: bounds the layout's working
#: arrays (about 30 bytes per character) whatever the text's length.
LAYOUT_PIECE = 1 << 20


def layout(text: str, geometry: Geometry) -> list[np.ndarray]:
    """One ``(text_rows, cols)`` int32 grid of atlas indices per page.

    ``text`` is normalized first (normalizing twice changes nothing).

    >>> from snapshot.rendering.glyphs import load_font
    >>> g = Geometry(load_font("misc-5x8"), cols=3, rows=2, header=False)
    >>> [g.font.chars[i] for i in layout("ab\\nc", g)[0].ravel()] == ["a", "b", "\\ue000", "c", " ", " "]
    True
    """
    return layout_document(text, geometry).grids


def _undrawable_runs(bad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) of each maximal run of True."""
    edges = np.diff(np.concatenate([[False], bad, [False]]).astype(np.int8))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


def layout_document(
    text: str, geometry: Geometry, *, unrenderable: str = "replace", normalized: bool = False
) -> Layout:
    """Layout plus bookkeeping: per-page text spans, replaced counts, kept spans.

    ``text`` is normalized first unless ``normalized`` says it already is; spans
    index the normalized text. ``unrenderable="keep"`` leaves each maximal run
    no font can draw as a :class:`KeptSpan` and draws the KEPT marker once.

    >>> from snapshot.rendering.glyphs import load_font
    >>> g = Geometry(load_font("misc-5x8"), cols=10, rows=3)
    >>> lay = layout_document("x\\ue000y", g)
    >>> lay.replaced, lay.spans
    ({'\\ue000': 1}, [(0, 3)])
    """
    s = text if normalized else normalize(text).text
    stream = LayoutStream(geometry, unrenderable=unrenderable)
    pages: list[PageCells] = []
    for start in range(0, len(s), LAYOUT_PIECE):
        pages.extend(stream.feed(s[start : start + LAYOUT_PIECE]))
    pages.extend(stream.finish())
    return Layout(
        [p.grid for p in pages],
        [p.span for p in pages],
        [p.continued for p in pages],
        dict(stream.replaced),
        tuple(stream.kept),
    )


class LayoutStream:
    """Incremental layout: normalized text in pieces of any size, pages as they fill.

    Feeding ``text`` in any number of pieces gives exactly the pages, spans,
    replaced counts and kept spans of laying out ``text`` at once; only the
    rows of the page being filled and the text they cover are held. State
    across pieces: the open row (its cells and fill), the open line's length
    (lines mode), an undrawable run still open (``"keep"``), and a trailing
    newline held back (lines mode draws the text's final newline).

    >>> from snapshot.rendering.glyphs import load_font
    >>> stream = LayoutStream(Geometry(load_font("misc-5x8"), cols=4, rows=3))
    >>> [p.text for p in stream.feed("hello ")], [p.text for p in stream.feed("world")]
    ([], ['hello wo'])
    >>> [(p.text, p.span) for p in stream.finish()]
    [('rld', (8, 11))]
    """

    def __init__(self, geometry: Geometry, *, unrenderable: str = "replace") -> None:
        if unrenderable not in ("replace", "keep"):
            raise InputError(f"unrenderable must be 'replace' or 'keep', got {unrenderable!r}")
        self.geometry = geometry
        self.keep = unrenderable == "keep"
        self.replaced: dict[str, int] = {}
        self.kept: list[KeptSpan] = []
        self.chars = 0  # normalized characters laid out so far
        self._held_newline = False
        self._bad_open = False
        self._pending: np.ndarray | None = None  # the open row
        self._pending_start = 0
        self._pending_index = 0  # its global row number
        self._fill = 0  # flow: cells used in the open row; lines: cells of the open line (reduced)
        self._rows: list[np.ndarray] = []  # finished rows not yet on a page
        self._starts: list[np.ndarray] = []
        self._text = ""  # normalized text from _text_base on
        self._text_base = 0
        self._page = 0  # pages handed out
        self._new_runs: list[tuple[int, int, str]] = []  # kept runs the current piece starts

    def feed(self, piece: str) -> list[PageCells]:
        """Lay out the next piece of normalized text; return the pages it completed."""
        g = self.geometry
        if not g.flow:
            if self._held_newline:
                piece = "\n" + piece
                self._held_newline = False
            if piece.endswith("\n"):
                piece = piece[:-1]
                self._held_newline = True  # a break, unless it turns out to be the last char
        if not piece:
            return []
        self._place(piece, final=False)
        return self._pages_ready()

    def finish(self) -> list[PageCells]:
        """The remaining pages (the last one padded with blank rows)."""
        if self._held_newline:
            self._held_newline = False
            self._place("\n", final=True)
        if self._pending is not None:
            self._push(self._pending[None], np.array([self._pending_start], np.int64))
            self._pending = None
        return self._pages_ready(final=True)

    # -- placing one piece

    def _elements(
        self, s: str, base: int, final: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Atlas index, source position and wide flag per element of ``s``."""
        g = self.geometry
        cps = np.frombuffer(s.encode("utf-32-le", "surrogatepass"), np.uint32)
        idx, atlas = g.font.lookup(cps)  # a newline looks up as the NEWLINE marker
        src = np.arange(base, base + len(cps), dtype=np.int64)
        bad = idx < 0
        continues = self._bad_open and bool(bad[0])
        self._bad_open = bool(bad[-1])
        if bad.any():
            if not self.keep:
                chars, counts = np.unique(cps[bad], return_counts=True)
                for c, k in zip(chars.tolist(), counts.tolist(), strict=True):
                    self.replaced[chr(c)] = self.replaced.get(chr(c), 0) + k
                idx[bad] = REPLACEMENT
            else:
                starts, ends = _undrawable_runs(bad)
                keep = ~bad
                if continues:  # the first run goes on from the previous piece: no new marker
                    last = self.kept[-1]
                    end = base + int(ends[0])
                    self.kept[-1] = KeptSpan(
                        last.start, end, last.text + s[: ends[0]], last.page, last.row, last.col
                    )
                    starts, ends = starts[1:], ends[1:]
                idx[starts] = KEPT
                keep[starts] = True
                idx, src = idx[keep], src[keep]
                self._new_runs = [
                    (base + a, base + b, s[a:b])
                    for a, b in zip(starts.tolist(), ends.tolist(), strict=True)
                ]
        if not g.flow:
            idx[idx == NEWLINE] = _LINE_BREAK
            if final:
                idx[-1] = NEWLINE  # the final newline is drawn, so "a" and "a\n" differ
        # wide glyphs take two cells: the left half, then its right half at index + 1
        # (line breaks, < 0, clip to index 0: space)
        if atlas.wide.any():
            wide = np.take(atlas.wide, idx, mode="clip")
        else:
            wide = np.zeros(len(idx), bool)
        return idx, src, wide

    def _place(self, s: str, *, final: bool) -> None:
        g = self.geometry
        cols = g.cols
        base = self.chars
        self._text += s
        self.chars += len(s)
        self._new_runs = []
        idx, src, wide = self._elements(s, base, final)
        if len(idx) == 0:
            return  # a piece of one continuing undrawable run
        # The open row is reproduced by dummy cells in front of the piece, so
        # row ends, wide-glyph pads and continuation rows fall where they would
        # for the whole text; the dummies are then replaced by the open row.
        if g.flow and self._pending is not None and self._fill == cols:
            self._push(self._pending[None], np.array([self._pending_start], np.int64))
            self._pending = None
        prefix = self._fill if self._pending is not None else 0
        if prefix:
            idx = np.concatenate([np.full(prefix, SPACE, idx.dtype), idx])
            src = np.concatenate([np.full(prefix, base, np.int64), src])
            wide = np.concatenate([np.zeros(prefix, bool), wide])
        if g.flow:
            grid, starts, total, cell_pos = _flow(idx, src, wide, cols)
            drop, fill_merge = 0, prefix
        else:
            if wide.any():
                idx, src, wide = _expand_wide(idx, src, wide)
            grid, starts, last_k, cell_pos = _lines(idx, src, wide, cols, base)
            drop, fill_merge = 0, 0
            if prefix:
                r, c = _line_cols(np.array([prefix - 1]), cols)
                drop, fill_merge = int(r[0]), int(c[0]) + 1
        first_index = self._pending_index if self._pending is not None else self._next_index()
        if self._pending is not None:
            grid[drop, :fill_merge] = self._pending[:fill_merge]
            starts[drop] = self._pending_start
        grid, starts = grid[drop:], starts[drop:]
        for (a, b, text), (row, col) in zip(self._new_runs, cell_pos(KEPT), strict=True):
            at = first_index + row - drop
            self.kept.append(KeptSpan(a, b, text, at // g.text_rows, at % g.text_rows, col))
        self._push(grid[:-1], starts[:-1])
        self._pending = grid[-1].copy()
        self._pending_start = int(starts[-1])
        self._pending_index = first_index + len(grid) - 1
        if g.flow:
            self._fill = total - (len(grid) - 1 + drop) * cols
        else:
            # cells of the open line, reduced to its open row: row 0, or one
            # continuation row (a full row reduces to ``cols``)
            rest = (last_k - cols) % (cols - 1)
            self._fill = last_k if last_k < cols else cols + rest if rest else cols

    def _next_index(self) -> int:
        return sum(len(r) for r in self._rows) + self._page * self.geometry.text_rows

    def _push(self, rows: np.ndarray, starts: np.ndarray) -> None:
        if len(rows):
            self._rows.append(rows)
            self._starts.append(starts)

    # -- handing out pages

    def _pages_ready(self, final: bool = False) -> list[PageCells]:
        g = self.geometry
        per = g.text_rows
        have = sum(len(r) for r in self._rows)
        if have < per and not (final and have):
            return []
        rows = np.concatenate(self._rows) if len(self._rows) > 1 else self._rows[0]
        starts = np.concatenate(self._starts) if len(self._starts) > 1 else self._starts[0]
        out: list[PageCells] = []
        at = 0
        while have - at >= per or (final and have - at > 0):
            grid = rows[at : at + per]
            if len(grid) < per:
                pad = np.full((per - len(grid), g.cols), SPACE, np.int32)
                grid = np.concatenate([grid, pad])
            nxt = at + per
            if nxt < have:
                end, cont = int(starts[nxt]), bool(rows[nxt, 0] == CONTINUE)
            elif self._pending is not None:
                end, cont = self._pending_start, bool(self._pending[0] == CONTINUE)
            else:
                end, cont = self.chars, False
            cont = cont and not g.flow
            start = int(starts[at])
            text = self._text[start - self._text_base : end - self._text_base]
            out.append(PageCells(np.ascontiguousarray(grid), (start, end), cont, text))
            self._page += 1
            at = nxt
        self._rows = [rows[at:]] if at < have else []
        self._starts = [starts[at:]] if at < have else []
        if out:
            drop = out[-1].span[1] - self._text_base
            self._text = self._text[drop:]
            self._text_base += drop
        return out


def _expand_wide(
    idx: np.ndarray, src: np.ndarray, wide: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Insert each wide glyph's right half (its index + 1) after it."""
    pos = np.arange(len(idx)) + np.cumsum(wide) - wide
    tails = pos[wide] + 1
    total = len(idx) + len(tails)
    out_idx = np.empty(total, np.int32)
    out_src = np.empty(total, np.int64)
    out_idx[pos] = idx
    out_idx[tails] = idx[wide] + 1
    out_src[pos] = src
    out_src[tails] = src[wide]
    out_wide = np.zeros(total, bool)
    out_wide[pos] = wide
    return out_idx, out_src, out_wide


# rows (R, cols), the source position of each row's first character, a count
# (flow: cells used; lines: cells of the last line), and the (row, col) of
# every cell holding one atlas index
_Rows = tuple[np.ndarray, np.ndarray, int, Callable[[int], list[tuple[int, int]]]]


def _flow(idx: np.ndarray, src: np.ndarray, wide: np.ndarray, cols: int) -> _Rows:
    """Flow mode: elements fill cells in order; a wide glyph adds its right half
    and, where it would straddle a row end, a blank pad cell before it.

    Without wide glyphs this is one copy. With them, a loop over the wide glyphs
    only finds the pads, one ``np.insert`` adds right halves and pads, and cells
    map to elements by binary search over the wide glyphs' cells.
    """
    m = len(idx)
    where = np.flatnonzero(wide)
    lefts = []  # the cell of each wide glyph's left half
    padded = []  # wide glyphs preceded by a pad cell
    pads = 0
    for j, i in enumerate(where.tolist()):
        cell = i + j + pads
        if cell % cols == cols - 1:
            pads += 1
            cell += 1
            padded.append(i)
        lefts.append(cell)
    total = m + len(where) + pads
    nrows = -(-total // cols)
    flat = np.full(nrows * cols, SPACE, np.int32)
    left = np.array(lefts, np.int64)
    # offset (cell - element) of the elements after each wide glyph
    after = left + 2 - (where + 1)
    if len(where):
        # one np.insert: a right half after each wide glyph, a pad before some
        at = np.concatenate([where + 1, np.array(padded, np.int64)])
        values = np.concatenate([idx[where] + 1, np.full(len(padded), SPACE, idx.dtype)])
        flat[:total] = np.insert(idx, at, values)
    else:
        flat[:m] = idx
    grid = flat.reshape(nrows, cols)

    def elem_of(cells: np.ndarray) -> np.ndarray:
        """Element at each cell (cells that are not a right half or a pad)."""
        if not len(where):
            return cells
        k = np.searchsorted(left, cells, side="right")
        shift = np.where(k > 0, after[np.maximum(k - 1, 0)], 0)
        out = cells - shift
        is_left = (k > 0) & (left[np.maximum(k - 1, 0)] == cells)
        return np.where(is_left, where[np.maximum(k - 1, 0)], out)

    def cell_of(elems: np.ndarray) -> np.ndarray:
        if not len(where):
            return elems
        j = np.searchsorted(where, elems, side="left")
        own = (j < len(where)) & (where[np.minimum(j, len(where) - 1)] == elems)
        shift = np.where(j > 0, after[np.maximum(j - 1, 0)], 0)
        return np.where(own, left[np.minimum(j, len(left) - 1)], elems + shift)

    starts = src[elem_of(np.arange(nrows, dtype=np.int64) * cols)]

    def cell_pos(index: int) -> list[tuple[int, int]]:
        cells = cell_of(np.flatnonzero(idx == index))
        return [(int(p // cols), int(p % cols)) for p in cells.tolist()]

    return grid, starts, total, cell_pos


def _line_cols(k: np.ndarray, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(row within line, column) of the k-th cell of a line; continuation rows start at 1."""
    first = k < cols
    rest = np.maximum(k - cols, 0)
    row = np.where(first, 0, 1 + rest // (cols - 1))
    col = np.where(first, k, 1 + rest % (cols - 1))
    return row, col


def _lines(idx: np.ndarray, src: np.ndarray, wide: np.ndarray, cols: int, first_src: int) -> _Rows:
    """Lines mode: each line starts a row; a wrapped row's continuation starts
    with the CONTINUE marker. ``first_src`` is where the first line starts."""
    brk = idx == _LINE_BREAK
    line_start_src = np.concatenate([[first_src], src[brk] + 1])
    line_all = np.cumsum(brk) - brk
    keep = ~brk
    idx, src, wide, line = idx[keep], src[keep], wide[keep], line_all[keep]
    nlines = len(line_start_src)

    def positions(line: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        counts = np.bincount(line, minlength=nlines)
        first_cell = np.cumsum(counts) - counts
        return counts, np.arange(len(line)) - first_cell[line]

    counts, k = positions(line)
    if wide.any():
        pads: list[int] = []
        current, shift = -1, 0
        for i in np.flatnonzero(wide).tolist():
            if line[i] != current:
                current, shift = int(line[i]), 0
            kk = int(k[i]) + shift
            col = kk if kk < cols else 1 + (kk - cols) % (cols - 1)
            if col == cols - 1:
                pads.append(i)
                shift += 1
        if pads:
            at = np.array(pads, np.int64)
            idx = np.insert(idx, at, SPACE)
            src = np.insert(src, at, src[at])
            line = np.insert(line, at, line[at])
            counts, k = positions(line)
    rows_per_line = 1 + np.maximum(0, -(-(counts - cols) // (cols - 1)))
    row_start = np.cumsum(rows_per_line) - rows_per_line
    total_rows = int(rows_per_line.sum())
    r, c = _line_cols(k, cols)
    grow = row_start[line] + r
    grid = np.full((total_rows, cols), SPACE, np.int32)
    grid[grow, c] = idx
    is_cont = np.ones(total_rows, bool)
    is_cont[row_start] = False
    grid[is_cont, 0] = CONTINUE
    row_src = np.empty(total_rows, np.int64)
    row_src[row_start] = line_start_src
    firsts = (c == 1) & (r >= 1)
    row_src[grow[firsts]] = src[firsts]

    def cell_pos(index: int) -> list[tuple[int, int]]:
        pos = np.flatnonzero(idx == index)
        return [(int(grow[p]), int(c[p])) for p in pos.tolist()]

    return grid, row_src, int(counts[-1]), cell_pos
