"""How well a real OCR engine reads the project's dense font, next to its peers.

Renders seeded "hard lines" (hex strings, ids, camelCase, code) one line per
crop at native scale, reads each crop with rapidocr (recognition only, as the
legibility lab does on the row boxes the renderer knows) and reports character
accuracy (1 - CER) per font, with the most frequent substitutions, so glyph
designs can be iterated against measured confusions.

    .venv/bin/python bench/font_ocr_iterate.py                 # snap5x8 and the peers
    .venv/bin/python bench/font_ocr_iterate.py --fonts snap5x8 --confusions 20
    .venv/bin/python bench/font_ocr_iterate.py --source /tmp/try.txt   # a draft glyph source

Needs the ``[ocr]`` extra. This is a tool for the font designer; the formal
legibility measurements live in ``snapshot.legibility``.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import random
import string
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MISC = Path("/usr/share/fonts/X11/misc")
PEERS: dict[str, Path] = {
    "misc-5x8": MISC / "5x8.pcf.gz",
    "spleen-5x8": MISC / "spleen-5x8.pcf.gz",
    "misc-6x12": MISC / "6x12.pcf.gz",
}

Glyphs = dict[str, np.ndarray]


def _build_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_snap_fonts_build", ROOT / "fonts" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def freetype_glyphs(path: Path, chars: str) -> Glyphs:
    """Cell bitmaps (height × advance) of a monospaced bitmap font, as FreeType draws them."""
    import freetype

    face = freetype.Face(str(path))
    face.select_size(0)
    ascent, height = face.size.ascender >> 6, face.size.height >> 6
    out: Glyphs = {}
    for ch in chars:
        face.load_char(ch, freetype.FT_LOAD_RENDER | freetype.FT_LOAD_TARGET_MONO)
        g = face.glyph
        bm = g.bitmap
        cell = np.zeros((height, g.advance.x >> 6), np.uint8)
        buf = (
            np.frombuffer(bytes(bm.buffer), np.uint8).reshape(bm.rows, bm.pitch)
            if bm.rows
            else None
        )
        if buf is not None:
            bits = np.unpackbits(buf, axis=1)[:, : bm.width]
            for y in range(bm.rows):
                yy = ascent - g.bitmap_top + y
                if 0 <= yy < height:
                    xs = np.flatnonzero(bits[y]) + g.bitmap_left
                    cell[yy, xs[(xs >= 0) & (xs < cell.shape[1])]] = 1
        out[ch] = cell
    return out


def render_line(text: str, glyphs: Glyphs, pad: int = 4) -> np.ndarray:
    """Black-on-white uint8 image of one line of monospaced text, ``pad`` px of paper around it."""
    h, w = glyphs["A"].shape
    ink = np.zeros((h, w * len(text)), np.uint8)
    for i, ch in enumerate(text):
        ink[:, i * w : (i + 1) * w] = glyphs.get(ch, glyphs["?"])
    img = np.full((h + 2 * pad, w * len(text) + 2 * pad), 255, np.uint8)
    img[pad : pad + h, pad : pad + w * len(text)][ink == 1] = 0
    return img


# ---------------------------------------------------------------- hard lines

_WORDS = [
    "user",
    "session",
    "token",
    "cache",
    "index",
    "parse",
    "render",
    "buffer",
    "stream",
    "http",
    "json",
    "config",
    "retry",
    "offset",
    "layout",
    "glyph",
    "page",
    "batch",
    "queue",
    "worker",
    "socket",
    "handle",
    "merge",
    "delta",
    "commit",
    "branch",
    "schema",
    "query",
    "result",
    "error",
    "status",
    "count",
    "limit",
]
_CODE = (
    "if (len(buf) > 0x{h4} && ok) {{ return {w1}[{n}]; }}",
    "def {c1}(self, {w1}_id: int = {n}) -> dict[str, Any]:",
    "const {c1} = await {w1}.{c2}({{ id: '{x8}', n: {n} }});",
    "for i in range({n}): {w1}s[i] |= 0x{h4}  # {w2} mask",
    'assert {w1}.{c2}() == "{x8}", f"bad {{x!r}}"',
    "let {w1}_{w2}: Vec<u8> = vec![0x{h2}, 0x{h2}, {n}];",
    "SELECT {w1}, {w2} FROM {w1}s WHERE id = '{x8}';",
    "{w1}@{w2}:~/src$ git checkout -b {w1}/{c2}-{n}",
    "x = ({w1}.{w2} ?? {n}) << 3; y = ~x & 0b1011;",
    "#include <{w1}.h> /* {c1}: {h4}{h4} */",
)


def _camel(rng: random.Random, cap: bool) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(2, 4))]
    s = words[0] + "".join(w.capitalize() for w in words[1:])
    if rng.random() < 0.3:
        s += rng.choice(["ID", "URL", "HTTP", "V2", "0", "1", "Il"])
    return s[0].upper() + s[1:] if cap else s


def hard_lines(n: int = 48, seed: int = 1) -> list[str]:
    """Seeded lines a language model cannot guess: hex, ids, camelCase, code."""
    rng = random.Random(seed)
    hexd = "0123456789abcdef"
    b62 = string.ascii_letters + string.digits
    out: list[str] = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            out.append(" ".join("".join(rng.choice(hexd) for _ in range(8)) for _ in range(5)))
        elif kind == 1:
            uuid = "-".join("".join(rng.choice(hexd) for _ in range(k)) for k in (8, 4, 4, 4, 12))
            tok = "".join(rng.choice(b62) for _ in range(16))
            out.append(f"{rng.choice(['usr', 'req', 'sess'])}_{tok} {uuid}")
        elif kind == 2:
            out.append(" ".join(_camel(rng, rng.random() < 0.4) for _ in range(3)))
        else:
            fields = {
                "h2": "".join(rng.choice(hexd) for _ in range(2)),
                "h4": "".join(rng.choice(hexd) for _ in range(4)),
                "x8": "".join(rng.choice(b62) for _ in range(8)),
                "n": str(rng.randint(0, 9999)),
                "w1": rng.choice(_WORDS),
                "w2": rng.choice(_WORDS),
                "c1": _camel(rng, False),
                "c2": _camel(rng, False),
            }
            out.append(rng.choice(_CODE).format(**fields))
    return out


# ---------------------------------------------------------------- scoring


def align(ref: str, hyp: str) -> tuple[int, list[tuple[str, str]]]:
    """Levenshtein distance and the substitutions/insertions/deletions of one alignment."""
    n, m = len(ref), len(hyp)
    d = np.zeros((n + 1, m + 1), np.int32)
    d[:, 0] = np.arange(n + 1)
    d[0, :] = np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            d[i, j] = min(
                d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + (ref[i - 1] != hyp[j - 1])
            )
    ops: list[tuple[str, str]] = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and d[i, j] == d[i - 1, j - 1] + (ref[i - 1] != hyp[j - 1]):
            if ref[i - 1] != hyp[j - 1]:
                ops.append((ref[i - 1], hyp[j - 1]))
            i, j = i - 1, j - 1
        elif i > 0 and d[i, j] == d[i - 1, j] + 1:
            ops.append((ref[i - 1], ""))
            i -= 1
        else:
            ops.append(("", hyp[j - 1]))
            j -= 1
    return int(d[n, m]), ops


def _squash_spaces(s: str) -> str:
    # OCR spacing of monospaced text is unreliable and not what the glyphs decide
    return "".join(s.split())


def score(
    lines: Sequence[str], read: Callable[[np.ndarray], str], glyphs: Glyphs
) -> tuple[float, float, int, collections.Counter[tuple[str, str]], float]:
    """(accuracy ignoring spaces, raw accuracy, exact lines, confusions, seconds per line)."""
    errs = errs_raw = total = total_raw = exact = 0
    conf: collections.Counter[tuple[str, str]] = collections.Counter()
    t0 = time.perf_counter()
    for line in lines:
        hyp = read(render_line(line, glyphs))
        e, ops = align(_squash_spaces(line), _squash_spaces(hyp))
        er, _ = align(line, hyp)
        errs += e
        errs_raw += er
        total += len(_squash_spaces(line))
        total_raw += len(line)
        exact += _squash_spaces(line) == _squash_spaces(hyp)
        conf.update(ops)
    per_line = (time.perf_counter() - t0) / max(1, len(lines))
    return 1 - errs / total, 1 - errs_raw / total_raw, exact, conf, per_line


def rapidocr_reader() -> Callable[[np.ndarray], str]:
    """Recognition only on one line crop (no detection, no angle classifier)."""
    from rapidocr_onnxruntime import RapidOCR

    engine = RapidOCR()

    def read(img: np.ndarray) -> str:
        bgr = np.repeat(img[:, :, None], 3, axis=2)
        result, _ = engine(bgr, use_det=False, use_cls=False, use_rec=True)
        return "".join(str(r[0]) for r in result or [])

    return read


def main(argv: Sequence[str] | None = None) -> int:
    """Print the accuracy table (and confusions) for the chosen fonts."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--fonts", nargs="*", default=["snap5x8", *PEERS])
    ap.add_argument("--source", type=Path, help="a draft glyph source to measure as 'draft'")
    ap.add_argument("--lines", type=int, default=48)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--confusions", type=int, default=12)
    args = ap.parse_args(argv)

    build = _build_module()
    lines = hard_lines(args.lines, args.seed)
    chars = "".join(sorted(set("".join(lines)) | {"?", "A"}))
    faces: dict[str, Glyphs] = {}
    for name in args.fonts:
        if name in build.NAMES:
            faces[name] = build.load_sources(name)
        elif name in PEERS:
            if not PEERS[name].exists():
                print(f"{name}: skipped, {PEERS[name]} is not installed")
                continue
            faces[name] = freetype_glyphs(PEERS[name], chars)
        else:
            faces[name] = freetype_glyphs(Path(name), chars)
    if args.source:
        src = build.parse_source(args.source.read_text(encoding="utf-8"), args.source.name)
        faces["draft"] = dict(src.glyphs)

    read = rapidocr_reader()
    print(f"{len(lines)} hard lines (seed {args.seed}), rapidocr rec-only, native scale")
    print(f"{'font':<12} {'cell':>6} {'acc':>6} {'raw':>6} {'exact':>6} {'ms/line':>8}")
    for name, glyphs in faces.items():
        acc, raw, exact, conf, per_line = score(lines, read, glyphs)
        h, w = glyphs["A"].shape
        print(
            f"{name:<12} {w}x{h:<4} {acc:6.3f} {raw:6.3f} {exact:>3}/{len(lines):<2} "
            f"{per_line * 1000:8.0f}"
        )
        if args.confusions:
            top = ", ".join(
                f"{a or '∅'}→{b or '∅'}:{k}" for (a, b), k in conf.most_common(args.confusions)
            )
            print(f"    {top}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
