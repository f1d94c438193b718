"""The dense face in fewer gray levels, read whole by the OCR readers (issue 29 item 3).

``gray16`` / ``gray4`` draw the dense face (snap5x9v2) with its gray coverage
rounded to 16 / 4 levels, so a page is a 4-bit / 2-bit PNG and costs less to
deflate. A shade may only become the dense default if no reader reads it worse
than ``gray``. Each (shade, reader) is one full page of **held-out corpus text**
(:mod:`snapshot.legibility.corpus_text`, page 0 as ``bench/face_confusions.py``
draws it) on Gemini's real page, 1568 x 728, read whole; one JSON line is
appended to ``--out`` as soon as it is measured (a re-run skips what is there).
``gray`` on this page is the ``snap5x9v2`` row of ``reports/face-points.jsonl``
(the same pixels: the 8-bit path draws what it drew), so it is read again only
when asked for (``--shades gray,...``).

    nice -n 10 python bench/dense_shade_readings.py --shades gray4,gray16 \\
        --readers rapidocr-v4,ppocrv6-small
    python bench/dense_shade_readings.py --report      # the table from --out only

``SNAPSHOT_CORPUS`` must point at the benchmark corpus.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from face_confusions import PAIRS, edit_counts, pair_count  # noqa: E402

OUT = ROOT / "reports" / "dense-shade-points.jsonl"
FACE = "snap5x9v2"
PAGE = (1568, 728)


def _load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def measure(shade: str, reader_name: str) -> dict[str, Any]:
    """One full page of held-out corpus text in ``shade``, read whole by ``reader_name``."""
    from snapshot.legibility.frontier import HELD_OUT_SEED, CandidateLayout, page_text
    from snapshot.legibility.page_readers import load_page_reader
    from snapshot.readability.scoring import page_expected_text, score_page
    from snapshot.rendering.page import render

    reader = load_page_reader(reader_name)
    g = CandidateLayout(FACE, shade=shade, page=PAGE).geometry()
    drawn = render(page_text(g, seed=HELD_OUT_SEED, page=0, text="corpus"), g)[0]
    expected = page_expected_text(drawn)
    load, started = _load(), time.perf_counter()
    read = reader.read_page(drawn.pixels)
    s = score_page(expected, read)
    subs, dels = edit_counts(expected, read)
    return {
        "face": FACE,
        "shade": shade,
        "reader": reader.info.as_dict(),
        "page": list(PAGE),
        "text": "corpus",
        "chars": len(expected),
        "char_accuracy": round(s.char_accuracy, 4),
        "hard_tokens": s.hard_tokens,
        "hard_tokens_exact": s.hard_tokens_exact,
        "png_bytes": len(drawn.png()),
        "substitutions": dict(subs.most_common()),
        "deletions": dict(dels.most_common()),
        "loadavg_start": load,
        "loadavg_end": _load(),
        "seconds": round(time.perf_counter() - started, 1),
        "measured": "measured: one full page read whole",
    }


def load_records(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def report(records: list[dict[str, Any]]) -> str:
    """A markdown table of the records (measured), with the issue's confusion pairs."""
    head = "| shade | reader | chars | exact hard tokens | PNG bytes | load | seconds |"
    lines = [head, "|---|---|---|---|---|---|---|"]
    for r in records:
        lines.append(
            f"| {r['shade']} | {r['reader']['name']} | {r['char_accuracy']:.4f} | "
            f"{r['hard_tokens_exact']}/{r['hard_tokens']} | {r['png_bytes']:,} | "
            f"{r['loadavg_start']}–{r['loadavg_end']} | {r['seconds']:.0f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--shades", default="gray4,gray16")
    ap.add_argument("--readers", default="rapidocr-v4,ppocrv6-small")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--report", action="store_true", help="print the table from --out and stop")
    args = ap.parse_args(argv)
    if args.report:
        print(report(load_records(args.out)), end="")
        return 0
    done = {(r["shade"], r["reader"]["name"]) for r in load_records(args.out)}
    for shade in args.shades.split(","):
        for reader in args.readers.split(","):
            if (shade, reader) in done:
                continue
            rec = measure(shade, reader)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            with args.out.open("a", encoding="utf-8") as f:
                f.write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
            pairs = " ".join(f"{a}>{b or '∅'}:{pair_count(rec, a, b)}" for a, b in PAIRS)
            print(
                f"{shade} {reader}: chars {rec['char_accuracy']:.4f} hard "
                f"{rec['hard_tokens_exact']}/{rec['hard_tokens']} {pairs} "
                f"load {rec['loadavg_start']} {rec['seconds']} s",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
