"""Build the project's bitmap fonts from their readable sources.

``fonts/src/<name>.txt`` holds one ASCII-art block per glyph, named marks, and
composition rules (``U+0151 ő = o + double_acute``); box drawing is generated
here from the Unicode character names. The build validates every glyph (inside
its cell, no code point defined twice, no two drawn glyphs identical, markers
far from every character) and writes ``fonts/<name>.bdf`` (BDF 2.1).

Run ``python -m snapshot.fonts.build`` (or ``python fonts/build.py``) to rebuild;
``--check`` exits 1 when a committed BDF differs from a fresh build.
"""

from __future__ import annotations

import argparse
import sys
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

FONT_DIR = Path(__file__).resolve().parent
SRC_DIR = FONT_DIR / "src"
NAMES = ("snap5x8", "snap8x16", "snap5x10", "snap5x9", "snap5x9v2", "snap5x9v3", "snap5x9v4")

MARKERS: dict[str, str] = {"\ue000": "NEWLINE", "\ue001": "CONTINUE", "\ue002": "KEPT"}
"""Private-use code points the renderer reserves for its marker glyphs."""

MARKER_MIN_DISTANCE = 3
"""Markers must differ from every character glyph by at least this many pixels."""

LICENSE = "Copyright (c) 2026 the snapshot project authors. MIT License."

# Code point ranges each face must cover (inclusive); checked by the build and the tests.
REQUIRED_RANGES: tuple[tuple[str, int, int], ...] = (
    ("printable ASCII", 0x20, 0x7E),
    ("Latin-1 Supplement", 0xA0, 0xFF),
    ("Latin Extended-A", 0x100, 0x17F),
    ("Greek capitals", 0x391, 0x3A1),
    ("Greek capitals", 0x3A3, 0x3A9),
    ("Greek small", 0x3B1, 0x3C9),
    ("Cyrillic", 0x410, 0x44F),
    ("box drawing", 0x2500, 0x257F),
)
REQUIRED_EXTRA = "ЁёΆ"[:2] + "←↑→↓↔↕⇐⇒↵↩↪" + "•◦▪·" + "‘’“”‚„–—…′″" + "€™✓✗≤≥≠±×÷°" + "\ufffd"


def required_chars() -> list[str]:
    """Every character both faces must draw (markers excluded)."""
    chars = [chr(c) for _, lo, hi in REQUIRED_RANGES for c in range(lo, hi + 1)]
    chars += [c for c in REQUIRED_EXTRA if c not in chars]
    return chars


class FontSourceError(ValueError):
    """A glyph source that cannot be built: the message names the file, line and problem."""


@dataclass(frozen=True)
class Mark:
    """A combining mark: ink rows placed above, below, or overlaid (as drawn) on a base."""

    name: str
    placement: str  # "above" | "below" | "overlay"
    bitmap: np.ndarray


@dataclass
class FontSource:
    """Everything parsed from one ``src/<name>.txt`` file."""

    name: str
    width: int
    height: int
    ascent: int
    descent: int
    glyphs: dict[str, np.ndarray] = field(default_factory=dict)  # drawn glyphs
    marks: dict[str, Mark] = field(default_factory=dict)
    rules: list[tuple[str, str, list[str], int]] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)  # char -> source line (messages)
    # a derived face: another face's source, overridden by this file's glyphs
    derive: str | None = None
    pad: tuple[int, int] = (0, 0)  # blank rows added above and below after composing
    gray: tuple[float, float] | None = None  # grayscale edges: (blur sigma in px, gain)


def _parse_char(token: str, where: str) -> str:
    """``U+00E9`` or a single character → the character."""
    if token.upper().startswith("U+"):
        try:
            return chr(int(token[2:], 16))
        except ValueError as exc:
            raise FontSourceError(f"{where}: bad code point {token!r}") from exc
    if len(token) == 1:
        return token
    raise FontSourceError(f"{where}: expected U+XXXX or one character, got {token!r}")


def _rows_to_bitmap(rows: Sequence[str], width: int, where: str) -> np.ndarray:
    for i, row in enumerate(rows):
        if len(row) != width or set(row) - {"#", "."}:
            raise FontSourceError(
                f"{where}: row {i + 1} {row!r} must be exactly {width} of '#' or '.'"
            )
    return np.array([[c == "#" for c in row] for row in rows], dtype=np.uint8).reshape(
        len(rows), width
    )


def parse_source(text: str, filename: str = "<source>") -> FontSource:
    """Parse a glyph source file (format described at the top of each ``src/*.txt``)."""
    lines = text.splitlines()
    header: dict[str, list[str]] = {}
    i = 0
    src: FontSource | None = None

    def need_src(where: str) -> FontSource:
        nonlocal src
        if src is None:
            try:
                w, h = (int(v) for v in header["cell"])
                src = FontSource(
                    name=header["font"][0],
                    width=w,
                    height=h,
                    ascent=int(header["ascent"][0]),
                    descent=int(header["descent"][0]),
                )
            except (KeyError, ValueError, IndexError) as exc:
                raise FontSourceError(
                    f"{where}: 'font', 'cell W H', 'ascent', 'descent' must come first"
                ) from exc
            if src.ascent + src.descent != src.height:
                raise FontSourceError(f"{where}: ascent + descent must equal the cell height")
        return src

    while i < len(lines):
        # a comment is a line starting with ';' or anything after two spaces and ';'
        line = lines[i].split("  ;", 1)[0].strip()
        where = f"{filename}:{i + 1}"
        i += 1
        if not line or line.startswith(";"):
            continue
        words = line.split()
        key = words[0]
        if key in ("font", "cell", "ascent", "descent", "derive", "pad", "gray"):
            header[key] = words[1:]
            continue
        s = need_src(where)
        _derivation(s, header, where)
        if "=" in words[1:-1] and key.upper().startswith("U+"):
            # composition rule: U+XXXX [char] = base [+ mark ...]
            eq = words.index("=")
            target = _parse_char(key, where)
            # marks are joined by a '+' standing alone (U+XXXX holds a '+' of its own)
            parts = [p.strip() for p in " ".join(words[eq + 1 :]).split(" + ")]
            if not parts or not parts[0]:
                raise FontSourceError(f"{where}: rule needs a base after '='")
            base = _parse_char(parts[0], where)
            s.rules.append((target, base, parts[1:], i))
            continue
        if key == "mark":
            if len(words) != 3 or words[2] not in ("above", "below", "overlay"):
                raise FontSourceError(f"{where}: expected 'mark NAME above|below|overlay'")
            rows: list[str] = []
            while i < len(lines) and lines[i].strip() and not lines[i].startswith(";"):
                rows.append(lines[i].strip())
                i += 1
            bm = _rows_to_bitmap(rows, s.width, where)
            if words[2] == "overlay" and bm.shape[0] != s.height:
                raise FontSourceError(f"{where}: an overlay mark must have {s.height} rows")
            if not 0 < bm.shape[0] <= s.height:
                raise FontSourceError(f"{where}: mark has {bm.shape[0]} rows")
            if words[1] in s.marks:
                raise FontSourceError(f"{where}: mark {words[1]!r} defined twice")
            s.marks[words[1]] = Mark(words[1], words[2], bm)
            continue
        if key.upper().startswith("U+"):
            ch = _parse_char(key, where)
            rows = [lines[i + k].strip() if i + k < len(lines) else "" for k in range(s.height)]
            if i + s.height < len(lines) and lines[i + s.height].strip():
                nxt = lines[i + s.height].strip()
                if not nxt.startswith(";") and set(nxt) <= {"#", "."}:
                    raise FontSourceError(
                        f"{where}: glyph {key} has more than {s.height} rows (outside its cell)"
                    )
            bm = _rows_to_bitmap(rows, s.width, f"{where} ({key})")
            if ch in s.glyphs or ch in s.lines:
                raise FontSourceError(f"{where}: {key} defined twice")
            s.glyphs[ch] = bm
            s.lines[ch] = i
            i += s.height
            continue
        raise FontSourceError(f"{where}: cannot parse {line!r}")
    s = need_src(f"{filename}:end")
    _derivation(s, header, f"{filename}:end")
    return s


def _derivation(src: FontSource, header: dict[str, list[str]], where: str) -> None:
    """Copy the ``derive`` / ``pad`` / ``gray`` header lines into the source (once)."""
    try:
        if "derive" in header:
            src.derive = header["derive"][0]
        if "pad" in header:
            top, bottom = (int(v) for v in header["pad"])
            src.pad = (top, bottom)
        if "gray" in header:
            words = header["gray"]
            if len(words) != 4 or words[0] != "blur" or words[2] != "gain":
                raise ValueError("expected 'gray blur SIGMA gain G'")
            src.gray = (float(words[1]), float(words[3]))
    except (ValueError, IndexError) as exc:
        raise FontSourceError(f"{where}: bad derive/pad/gray line ({exc})") from exc


# ---------------------------------------------------------------- composition


def _squash(base: np.ndarray, k: int) -> np.ndarray:
    """Drop ``k`` repeated rows from the base's ink (nearest the middle first), pushing it down.

    Capitals taking a mark lose one row of height so the mark fits above them,
    as hand-made fixed fonts do; repeated rows (vertical stems) lose least.
    """
    out = base.copy()
    for _ in range(k):
        ink = np.flatnonzero(out.any(axis=1))
        top, bottom = int(ink[0]), int(ink[-1])
        mid = (top + bottom) / 2
        candidates = [
            r
            for r in range(top + 1, bottom)
            if np.array_equal(out[r], out[r - 1]) or np.array_equal(out[r], out[r + 1])
        ] or list(range(top + 1, bottom))
        r = min(candidates, key=lambda r: (abs(r - mid), r))
        out = np.vstack([np.zeros((1, out.shape[1]), np.uint8), out[:r], out[r + 1 :]])
    return out


def compose(base: np.ndarray, mark: Mark, where: str) -> np.ndarray:
    """Place ``mark`` on ``base``: above with a one-row gap when it fits, else squash the base."""
    h = base.shape[0]
    m = mark.bitmap
    if mark.placement == "overlay":
        return base | m
    ink = np.flatnonzero(base.any(axis=1))
    if ink.size == 0:
        raise FontSourceError(f"{where}: cannot place a mark on an empty base")
    mh = m.shape[0]
    if mark.placement == "below":
        top = int(ink[-1]) + 1
        if top + mh > h:
            raise FontSourceError(f"{where}: mark {mark.name!r} falls below the cell")
        out = base.copy()
        out[top : top + mh] |= m
        return out
    # above: prefer a blank row between mark and base, then squashing the base, then touching
    for squash, gap in ((0, 1), (1, 1), (1, 0), (0, 0), (2, 0)):
        b = _squash(base, squash) if squash else base
        b_top = int(np.flatnonzero(b.any(axis=1))[0])
        top = b_top - gap - mh
        if top >= 0:
            out = b.copy()
            out[top : top + mh] |= m
            return out
    raise FontSourceError(f"{where}: mark {mark.name!r} does not fit above its base")


# ---------------------------------------------------------------- box drawing


def _box_arms(name: str) -> dict[str, str] | None:
    """Parse a BOX DRAWINGS name into {direction: light|heavy|double}; None for dashes etc."""
    words = name.removeprefix("BOX DRAWINGS ").split()
    if any(w in words for w in ("DASH", "ARC", "DIAGONAL")):
        return None
    arms: dict[str, str] = {}
    weight = "light"
    for segment in " ".join(words).split(" AND "):
        seg = segment.split()
        seg_weight = next(
            (
                {"LIGHT": "light", "SINGLE": "light", "HEAVY": "heavy", "DOUBLE": "double"}[w]
                for w in seg
                if w in ("LIGHT", "SINGLE", "HEAVY", "DOUBLE")
            ),
            weight,
        )
        weight = seg_weight
        for w in seg:
            dirs = {
                "UP": ["up"],
                "DOWN": ["down"],
                "LEFT": ["left"],
                "RIGHT": ["right"],
                "VERTICAL": ["up", "down"],
                "HORIZONTAL": ["left", "right"],
            }.get(w, [])
            for d in dirs:
                arms[d] = seg_weight
    return arms


def box_glyph(ch: str, width: int, height: int, mid_row: int) -> np.ndarray:
    """Draw one box-drawing character from its Unicode name (rules, not hand-drawn art)."""
    name = unicodedata.name(ch)
    g = np.zeros((height, width), np.uint8)
    cx, cy = (width - 1) // 2, mid_row
    words = name.split()
    if "DASH" in words:
        n = {"DOUBLE": 2, "TRIPLE": 3, "QUADRUPLE": 4}[words[words.index("DASH") - 1]]
        heavy = "HEAVY" in words
        length = width if "HORIZONTAL" in words else height
        # n dashes, each followed by a gap; short cells keep at least one gap per dash
        on = (((np.arange(length) * n * 2) // length) % 2 == 0).astype(np.uint8)
        if "HORIZONTAL" in words:
            g[cy] = on
            if heavy:
                g[cy + 1] = on
        else:
            g[:, cx] = on
            if heavy:
                g[:, cx + 1] = on
        return g
    if "DIAGONAL" in words:
        for y in range(height):
            x = round(y * (width - 1) / (height - 1))
            if "CROSS" in words or "UPPER LEFT TO LOWER RIGHT" in name:
                g[y, x] = 1
            if "CROSS" in words or "UPPER RIGHT TO LOWER LEFT" in name:
                g[y, width - 1 - x] = 1
        return g
    arc = "ARC" in words
    arms = _box_arms(name.replace("ARC ", "")) or {}
    opposite = {"up": "down", "down": "up", "left": "right", "right": "left"}
    for d, w in arms.items():
        horizontal = d in ("left", "right")
        c = cx if horizontal else cy  # the centre along the arm
        n = width if horizontal else height
        perp = ("up", "down") if horizontal else ("left", "right")
        if w == "double":
            for off, side in ((-1, perp[0]), (1, perp[1])):
                # each of the two lines stops where it meets the perpendicular arms
                same, other = arms.get(side), arms.get(opposite[side])
                if same == "double":
                    start = c + 1
                elif same is not None or other != "double":
                    start = c
                else:
                    start = c - 1
                lo, hi = (start, n) if d in ("right", "down") else (0, 2 * c - start + 1)
                if horizontal:
                    g[cy + off, lo:hi] = 1
                else:
                    g[lo:hi, cx + off] = 1
        else:
            t = 2 if w == "heavy" else 1
            # meet the near line of a double tee, the far line of a double corner
            doubles = [arms.get(p) for p in perp].count("double")
            start = {0: c, 1: c - 1, 2: c + 1}[doubles]
            lo, hi = (start, n) if d in ("right", "down") else (0, 2 * c - start + t)
            if horizontal:
                g[cy : cy + t, lo:hi] = 1
            else:
                g[lo:hi, cx : cx + t] = 1
    if arc:
        g[cy, cx] = 0  # a rounded corner: the arms meet diagonally
    return g


# ---------------------------------------------------------------- build


@dataclass(frozen=True)
class BuiltFont:
    """A composed, validated face: glyph bitmaps keyed by character, in code point order."""

    name: str
    width: int
    height: int
    ascent: int
    descent: int
    glyphs: dict[str, np.ndarray]
    drawn: frozenset[str]
    origin: dict[str, str] = field(default_factory=dict)
    gray: tuple[float, float] | None = None  # grayscale edges: (blur sigma, gain)


def _mid_row(src: FontSource) -> int:
    """The row box-drawing lines run through: the cell middle (heavy lines take the row below).

    Not the hyphen row: there a horizontal line would draw exactly like an em dash.
    """
    return (src.height - 1) // 2


def source_path(name: str) -> Path:
    """Path of the glyph source of a bundled face."""
    if name not in NAMES:
        raise FontSourceError(f"unknown face {name!r}; the bundled faces are {', '.join(NAMES)}")
    return SRC_DIR / f"{name}.txt"


def build(name: str) -> BuiltFont:
    """Parse, compose and validate one bundled face."""
    return build_source(source_path(name))


def resolve_source(path: Path) -> FontSource:
    """Parse a glyph source; a derived face (``derive NAME``) is merged onto its base
    (itself resolved, so a face may derive from a derived face): its own glyphs and
    marks replace the base's, its ``pad`` and ``gray`` lines replace the base's."""
    src = parse_source(path.read_text(encoding="utf-8"), path.name)
    if src.derive is None:
        return src
    base = resolve_source(source_path(src.derive))
    if (base.width, base.height) != (src.width, src.height):
        raise FontSourceError(f"{path.name}: cell differs from the derived face {src.derive}")
    own = set(src.glyphs)
    return FontSource(
        name=src.name,
        width=src.width,
        height=src.height,
        ascent=src.ascent,
        descent=src.descent,
        glyphs={**base.glyphs, **src.glyphs},
        marks={**base.marks, **src.marks},
        rules=[r for r in base.rules if r[0] not in own] + src.rules,
        lines={**base.lines, **src.lines},
        pad=src.pad,
        gray=src.gray if src.gray is not None else base.gray,
    )


def build_source(path: Path) -> BuiltFont:
    """Parse, compose and validate the face in a glyph source file (a draft, say).

    A derived face (``derive NAME``) starts from that face's source; its own
    glyphs and marks replace the base's, then ``pad`` adds blank rows.
    """
    src = resolve_source(path)
    pad = src.pad
    glyphs = dict(src.glyphs)
    for target, base, marks, line in src.rules:
        where = f"{path.name}:{line}"
        if target in glyphs:
            raise FontSourceError(f"{where}: U+{ord(target):04X} is drawn and also composed")
        if base not in glyphs:
            raise FontSourceError(f"{where}: base U+{ord(base):04X} is not defined above")
        bm = glyphs[base]
        for m in marks:
            if m not in src.marks:
                raise FontSourceError(f"{where}: unknown mark {m!r}")
            bm = compose(bm, src.marks[m], where)
        glyphs[target] = bm
    mid = _mid_row(src)
    for cp in range(0x2500, 0x2580):
        ch = chr(cp)
        if ch not in glyphs:
            glyphs[ch] = box_glyph(ch, src.width, src.height, mid)
    top, bottom = pad
    if top or bottom:
        glyphs = {c: np.pad(bm, ((top, bottom), (0, 0))) for c, bm in glyphs.items()}
    font = BuiltFont(
        name=src.name,
        width=src.width,
        height=src.height + top + bottom,
        ascent=src.ascent + top,
        descent=src.descent + bottom,
        glyphs=dict(sorted(glyphs.items(), key=lambda kv: ord(kv[0]))),
        drawn=frozenset(src.glyphs),
        origin=_origins(src),
        gray=src.gray,
    )
    validate(font)
    return font


# ---------------------------------------------------------------- grayscale edges

SUPERSAMPLE = 4


def gray_glyph(bitmap: np.ndarray, sigma: float, gain: float) -> np.ndarray:
    """A 1-bit glyph drawn with grayscale edges: ink coverage 0..255.

    The glyph is supersampled ×4, blurred with a Gaussian of ``sigma`` cell
    pixels (separable, kernel cut at 3 sigma), averaged back to the cell and
    scaled by ``gain`` (clipped), so stroke centres stay near full ink while
    edges and diagonal steps turn gray. Pure numpy: the same bytes everywhere.

    >>> g = gray_glyph(np.eye(3, dtype=np.uint8), 0.35, 1.4)
    >>> g.shape, int(g[1, 1]) > 200, 0 < int(g[0, 1]) < 200
    ((3, 3), True, True)
    """
    k = SUPERSAMPLE
    big = np.kron(bitmap.astype(np.float64), np.ones((k, k)))
    radius = max(1, int(np.ceil(3 * sigma * k)))
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    kernel = np.exp(-0.5 * (x / (sigma * k)) ** 2)
    kernel /= kernel.sum()
    padded = np.pad(big, radius)
    rows = np.stack([np.convolve(r, kernel, mode="valid") for r in padded])
    both = np.stack([np.convolve(c, kernel, mode="valid") for c in rows.T]).T
    h, w = bitmap.shape
    cover = both.reshape(h, k, w, k).mean(axis=(1, 3)) * gain
    return np.clip(np.rint(cover * 255), 0, 255).astype(np.uint8)


def to_gray(font: BuiltFont) -> str:
    """The ``.gray`` companion (``snapshot-gray/1``) of a face with grayscale edges."""
    if font.gray is None:
        raise FontSourceError(f"{font.name} has no 'gray' line")
    sigma, gain = font.gray
    out = [f"# snapshot-gray/1 {font.width} {font.height}"]
    out.append(f"# {font.name}: {LICENSE} Built by fonts/build.py (blur {sigma}, gain {gain}).")
    for ch, bm in font.glyphs.items():
        out.append(f"U+{ord(ch):04X} {gray_glyph(bm, sigma, gain).tobytes().hex()}")
    return "\n".join(out) + "\n"


def _origins(src: FontSource) -> dict[str, str]:
    """What each rule-made glyph is made of, homoglyphs resolved to the glyph they reuse.

    Two glyphs may draw identically only when they have the same origin: a declared
    homoglyph (``А = A``), or the same marks on homoglyph bases (``Ё = Е + diaeresis``).
    """
    origin: dict[str, str] = {}
    for target, base, marks, _ in src.rules:
        root = origin.get(base, base)
        origin[target] = "+".join([root, *marks])
    return origin


def validate(font: BuiltFont) -> None:
    """Raise FontSourceError when the face breaks a rule the renderer relies on."""
    problems: list[str] = []
    for ch, bm in font.glyphs.items():
        if bm.shape != (font.height, font.width):
            problems.append(f"U+{ord(ch):04X} is {bm.shape}, not inside its cell")
    missing = [c for c in required_chars() if c not in font.glyphs]
    if missing:
        problems.append("missing: " + " ".join(f"U+{ord(c):04X}" for c in missing[:20]))
    for m in MARKERS:
        if m not in font.glyphs:
            problems.append(f"marker U+{ord(m):04X} ({MARKERS[m]}) is not drawn")
    seen: dict[bytes, str] = {}
    for ch in font.glyphs:
        key = font.glyphs[ch].tobytes()
        other = seen.setdefault(key, ch)
        if other != ch and font.origin.get(ch, ch) != font.origin.get(other, other):
            problems.append(
                f"U+{ord(ch):04X} draws identical to U+{ord(other):04X} "
                "(redraw one, or declare a homoglyph as a rule)"
            )
    if not problems:
        chars = [c for c in font.glyphs if c not in MARKERS]
        stack = np.stack([font.glyphs[c] for c in chars]).reshape(len(chars), -1)
        for m in MARKERS:
            d = np.abs(stack.astype(int) - font.glyphs[m].reshape(-1)).sum(axis=1)
            k = int(d.argmin())
            if d[k] < MARKER_MIN_DISTANCE:
                problems.append(
                    f"marker {MARKERS[m]} is {d[k]} px from U+{ord(chars[k]):04X}; "
                    f"needs >= {MARKER_MIN_DISTANCE}"
                )
    if problems:
        raise FontSourceError(f"{font.name}: " + "; ".join(problems))


def load_sources(name: str) -> dict[str, np.ndarray]:
    """Character → 0/1 uint8 bitmap (cell height × width) of a bundled face, markers included."""
    return dict(build(name).glyphs)


def hamming_pairs(
    glyphs: dict[str, np.ndarray], chars: Iterable[str] | None = None, limit: int = 10
) -> list[tuple[str, str, int]]:
    """The ``limit`` closest pairs of glyphs by pixel Hamming distance, nearest first."""
    cs = list(glyphs if chars is None else chars)
    flat = np.stack([glyphs[c].reshape(-1) for c in cs]).astype(np.int16)
    d = (flat[:, None, :] != flat[None, :, :]).sum(axis=2)
    iu = np.triu_indices(len(cs), k=1)
    order = np.lexsort((iu[1], iu[0], d[iu]))[:limit]
    return [(cs[iu[0][k]], cs[iu[1][k]], int(d[iu][k])) for k in order]


def printable_ascii() -> list[str]:
    """U+0020–U+007E, the set the Hamming floor is measured over."""
    return [chr(c) for c in range(0x20, 0x7F)]


# ---------------------------------------------------------------- BDF


def _glyph_name(ch: str) -> str:
    if ch in MARKERS:
        return f"snap.{MARKERS[ch].lower()}"
    return f"uni{ord(ch):04X}"


def to_bdf(font: BuiltFont) -> str:
    """Serialize a built face as BDF 2.1 text (deterministic)."""
    w, h = font.width, font.height
    res = 72  # 72 dpi makes the point size equal the pixel size
    swidth = round(w * 1000 / h)
    xlfd = f"-snapshot-{font.name}-medium-r-normal--{h}-{h * 10}-{res}-{res}-c-{w * 10}-iso10646-1"
    props = [
        ("FOUNDRY", '"snapshot"'),
        ("FAMILY_NAME", f'"{font.name}"'),
        ("WEIGHT_NAME", '"Medium"'),
        ("SLANT", '"R"'),
        ("SETWIDTH_NAME", '"Normal"'),
        ("ADD_STYLE_NAME", '""'),
        ("PIXEL_SIZE", str(h)),
        ("POINT_SIZE", str(h * 10)),
        ("RESOLUTION_X", str(res)),
        ("RESOLUTION_Y", str(res)),
        ("SPACING", '"C"'),
        ("AVERAGE_WIDTH", str(w * 10)),
        ("CHARSET_REGISTRY", '"ISO10646"'),
        ("CHARSET_ENCODING", '"1"'),
        ("FONT_ASCENT", str(font.ascent)),
        ("FONT_DESCENT", str(font.descent)),
        ("DEFAULT_CHAR", str(0xFFFD)),
        ("COPYRIGHT", f'"{LICENSE}"'),
        ("NOTICE", '"Built by fonts/build.py from fonts/src/' + font.name + '.txt"'),
    ]
    out = [
        "STARTFONT 2.1",
        f"FONT {xlfd}",
        f"SIZE {h} {res} {res}",
        f"FONTBOUNDINGBOX {w} {h} 0 {-font.descent}",
        f"STARTPROPERTIES {len(props)}",
        *(f"{k} {v}" for k, v in props),
        "ENDPROPERTIES",
        f"CHARS {len(font.glyphs)}",
    ]
    nbytes = (w + 7) // 8
    for ch, bm in font.glyphs.items():
        out += [
            f"STARTCHAR {_glyph_name(ch)}",
            f"ENCODING {ord(ch)}",
            f"SWIDTH {swidth} 0",
            f"DWIDTH {w} 0",
            f"BBX {w} {h} 0 {-font.descent}",
            "BITMAP",
        ]
        padded = np.zeros((h, nbytes * 8), np.uint8)
        padded[:, :w] = bm
        packed = np.packbits(padded, axis=1)
        out += ["".join(f"{b:02X}" for b in row) for row in packed]
        out.append("ENDCHAR")
    out.append("ENDFONT")
    return "\n".join(out) + "\n"


def bdf_path(name: str) -> Path:
    """Where the committed BDF of a bundled face lives."""
    return FONT_DIR / f"{name}.bdf"


def main(argv: Sequence[str] | None = None) -> int:
    """Build every face (or check that the committed BDFs are fresh)."""
    ap = argparse.ArgumentParser(prog="python -m snapshot.fonts.build", description=__doc__)
    ap.add_argument("--check", action="store_true", help="fail if a committed BDF is stale")
    ap.add_argument("names", nargs="*", default=list(NAMES), help="faces to build")
    args = ap.parse_args(argv)
    stale = []
    for name in args.names:
        try:
            font = build(name)
        except FontSourceError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        text = to_bdf(font)
        path = bdf_path(name)
        outputs = [(path, text)]
        if font.gray is not None:
            outputs.append((path.with_suffix(".gray"), to_gray(font)))
        ascii_pairs = hamming_pairs(font.glyphs, printable_ascii(), limit=5)
        closest = ", ".join(f"{a!r}/{b!r}={d}" for a, b, d in ascii_pairs)
        for out_path, content in outputs:
            if args.check:
                current = out_path.read_text(encoding="utf-8") if out_path.exists() else ""
                if current != content:
                    stale.append(name)
                    print(
                        f"{out_path.name}: stale (run python -m snapshot.fonts.build)",
                        file=sys.stderr,
                    )
                else:
                    print(f"{out_path.name}: up to date")
            else:
                out_path.write_text(content, encoding="utf-8")
                print(f"{out_path.name}: {len(font.glyphs)} glyphs; closest ASCII pairs {closest}")
    return 1 if stale else 0


__all__ = [
    "MARKERS",
    "BuiltFont",
    "FontSourceError",
    "build",
    "build_source",
    "gray_glyph",
    "hamming_pairs",
    "load_sources",
    "main",
    "printable_ascii",
    "required_chars",
    "resolve_source",
    "to_bdf",
    "to_gray",
]

if __name__ == "__main__":
    sys.exit(main())
