"""Iterate on a glyph design against what a whole-page reader confuses.

A tool for the font designer, built on the package's own renderer and scorer
(``snapshot.legibility.frontier.measure``): it draws full pages (every row
edge to edge) of the *tuning* lines (``hardlines.TUNING_SEED``; the held-out
seed the claims use is never read here) in one layout, hands each page to a
whole-page reader (``snapshot.legibility.page_readers``), and prints character
accuracy, exact hard tokens and the reader's most frequent substitutions. Each
run is appended to a JSON-lines log, the only place its figures are quoted from.

    python bench/font_ocr_iterate.py --font snap5x8 --row-gap 2
    python bench/font_ocr_iterate.py --font /tmp/draft.txt --row-gap 2     # a draft source
    python bench/font_ocr_iterate.py --font dejavu-sans-mono --size 8 --shade gray

Needs the ``[pageocr]`` extra (or ``[ocr]`` for ``--reader rapidocr-v4``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from snapshot.legibility.frontier import SAMPLE_PAGE, CandidateLayout, measure  # noqa: E402
from snapshot.legibility.hardlines import TUNING_SEED  # noqa: E402
from snapshot.legibility.page_readers import load_page_reader  # noqa: E402

LOG = ROOT / "reports" / "font_iterations.jsonl"


def _draft_bdf(source: Path) -> Path:
    """Build a draft glyph source with fonts/build.py into a temporary BDF."""
    spec = importlib.util.spec_from_file_location("_fonts_build", ROOT / "fonts" / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = build
    spec.loader.exec_module(build)
    font = build.build_source(source)
    out = Path(tempfile.mkdtemp(prefix="snapshot-draft-")) / f"{source.stem}.bdf"
    out.write_text(build.to_bdf(font), encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--font", default="snap5x8", help="font name, BDF/TTF path or a .txt source")
    ap.add_argument("--size", type=int, help="pixel size (outline fonts)")
    ap.add_argument("--shade", default="1-bit", choices=("1-bit", "gray"))
    ap.add_argument("--row-gap", type=int, default=0)
    ap.add_argument("--col-gap", type=int, default=0)
    ap.add_argument("--page", default=f"{SAMPLE_PAGE[0]}x{SAMPLE_PAGE[1]}", help="WxH px")
    ap.add_argument("--reader", default="ppocrv6-small")
    ap.add_argument("--pages", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0, help="resample (bicubic) before reading")
    ap.add_argument("--confusions", type=int, default=16)
    ap.add_argument("--log", type=Path, default=LOG, help="JSON-lines log to append to")
    args = ap.parse_args(argv)
    font = args.font
    if font.endswith(".txt"):
        font = str(_draft_bdf(Path(font)))
    w, h = (int(v) for v in args.page.split("x"))
    layout = CandidateLayout(font, args.size, args.shade, args.row_gap, args.col_gap, (w, h))
    reader = load_page_reader(args.reader)
    point = measure(layout, reader, seed=TUNING_SEED, pages=args.pages, scale=args.scale)
    print(
        f"{layout.key}: {point.chars_per_kpx:.1f} chars/1000 px², {args.reader} "
        f"chars {point.char_accuracy:.3f}, hard tokens {point.hard_tokens_exact}/"
        f"{point.hard_tokens} ({point.hard_token_accuracy:.2f}), {point.seconds:.0f} s"
    )
    print(
        "confusions (drawn→read ×n):",
        "  ".join(f"{a}→{b} ×{n}" for a, b, n in point.confusions[: args.confusions]),
    )
    record = {**point.as_dict(), "font_arg": args.font, "measured": "tuning seed, whole pages"}
    args.log.parent.mkdir(parents=True, exist_ok=True)
    with args.log.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"appended to {args.log}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
