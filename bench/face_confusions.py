"""The dense face against its measured confusions, glyph by glyph (issue 25 item 5).

Each *variant* is the dense face (``snap5x9`` drawn gray, ``DENSE_LAYOUT``)
with some glyphs redrawn: a draft source in ``bench/face_drafts/NAME.txt``
(``derive snap5x10``, ``pad 1 0``, the redrawn glyphs in snap5x8's 5 x 8 design
cell), built by ``fonts/build.py`` into a temporary BDF and ``.gray`` companion,
or a bundled face by name (``snap5x9v2``). ``base`` is snap5x9 as committed.
Every variant keeps the 5 x 9 cell, so every page holds the same text at the
same density (only the header row's font name differs). Since each redrawn
glyph's misreadings are counted on its own (``glyph_errors``), several drafts
can be read in one variant (``all_changes``) and judged glyph by glyph.

Each variant is drawn on full pages (every row edge to edge) of **held-out corpus
text** (:mod:`snapshot.legibility.corpus_text`, which no tuning step reads), or
of generated hard lines with ``--text hardlines``, at a real provider page size
and that page + 4 px, and each page is handed whole to every installed page
reader. One JSON line per (variant, reader, page size, text) is appended to
``--out`` as soon as it is measured (a re-run skips what is there): character
accuracy, exact hard tokens, the full substitution table, deletions per drawn
character and how often each character was drawn, the load average, seconds.

    nice -n 19 python bench/face_confusions.py --variants base,all_changes,snap5x9v2
    nice -n 19 python bench/face_confusions.py --variants base,snap5x9v2 \\
        --readers ppocrv6-small --page 1572x732 --page 1536x1568
    python bench/face_confusions.py --report reports/face.md     # tables from --out only

The cheap loop (for iterating on drafts, said as such in its records): ``--text
cheap-tuning --pages N`` reads N band pages (1568 x 100) of **tuning** text rich in
the target glyphs (tuning-split corpus lines and tuning-seed hard lines), never the
held-out text a face is judged on; keep its records apart (``--out reports/face-cheap.jsonl``).
``--text cheap-tuning:O`` takes only corpus lines holding one of the glyphs after the
colon (for glyphs the default text draws a few times a page, such as ``O`` and ``|``).

    nice -n 10 python bench/face_confusions.py --variants snap5x9v2,v3_c1,v3_c2 \\
        --readers ppocrv6-small,tesseract-x2 --text cheap-tuning --pages 3 \\
        --out reports/face-cheap.jsonl

``SNAPSHOT_CORPUS`` must point at the benchmark corpus for ``--text corpus``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DRAFTS = ROOT / "bench" / "face_drafts"
OUT = ROOT / "reports" / "face-points.jsonl"
#: The confusions issue 25 measured on the dense face (drawn, read); "" = dropped.
PAIRS: tuple[tuple[str, str], ...] = (
    ("O", "0"),
    ("l", "1"),
    ("x", "×"),
    ("v", "w"),
    ("/", "'"),
    ("S", "5"),
    ("}", ">"),
    ("|", "1"),
    ("{", ""),
)
READERS = ("ppocrv6-small", "ppocrv5", "rapidocr-v4", "tesseract-x2")
#: Gemini's default page (1568 x 728; its height is no multiple of 32, so PP-OCRv6's
#: detector resamples it) and the same page 4 px larger on both sides.
PAGES = ((1568, 728), (1572, 732))


def _build_module() -> Any:
    spec = importlib.util.spec_from_file_location("_fonts_build", ROOT / "fonts" / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = build
    spec.loader.exec_module(build)
    return build


def variant_font(name: str, folder: Path) -> str:
    """The font argument for a variant: ``snap5x9`` for ``base``, a draft of ``bench/face_drafts``
    built into ``folder``, or a bundled face by name (``snap5x9v2``)."""
    if name == "base":
        return "snap5x9"
    if not (DRAFTS / f"{name}.txt").is_file():
        return name
    build = _build_module()
    font = build.build_source(DRAFTS / f"{name}.txt")
    bdf = folder / f"{name}.bdf"
    bdf.write_text(build.to_bdf(font), encoding="utf-8")
    (folder / f"{name}.gray").write_text(build.to_gray(font), encoding="utf-8")
    return str(bdf)


def edit_counts(expected: str, read: str) -> tuple[Counter[str], Counter[str]]:
    """Substitutions ``"a>b"`` and deletions per drawn character, spacing collapsed.

    >>> subs, dels = edit_counts("x {O}", "× O}")
    >>> dict(subs), dict(dels)
    ({'x>×': 1}, {'{': 1})
    """
    from rapidfuzz.distance import Levenshtein

    a, b = (" ".join(t.split()) for t in (expected, read))
    subs: Counter[str] = Counter()
    dels: Counter[str] = Counter()
    for op in Levenshtein.editops(a, b):
        if op.tag == "replace" and not a[op.src_pos].isspace() and not b[op.dest_pos].isspace():
            subs[f"{a[op.src_pos]}>{b[op.dest_pos]}"] += 1
        elif op.tag == "delete" and not a[op.src_pos].isspace():
            dels[a[op.src_pos]] += 1
    return subs, dels


def measure_variant(
    variant: str, font: str, reader_name: str, page: tuple[int, int], text: str, pages: int
) -> dict[str, Any]:
    from snapshot.legibility.frontier import HELD_OUT_SEED, CandidateLayout, page_text

    g = CandidateLayout(font, shade="gray", page=page).geometry()
    texts = [page_text(g, seed=HELD_OUT_SEED, page=i, text=text) for i in range(pages)]
    return _measure(variant, reader_name, g, texts, text, "measured: full pages read whole")


def _measure(
    variant: str, reader_name: str, g: Any, texts: Sequence[str], text: str, measured: str
) -> dict[str, Any]:
    """Draw each of ``texts`` as one page of ``g``, hand it whole to the reader, count."""
    from snapshot.legibility.page_readers import load_page_reader
    from snapshot.readability.scoring import page_expected_text, score_page
    from snapshot.rendering.page import render

    reader = load_page_reader(reader_name)
    chars = errors = hard = exact = boxes_zero = 0
    subs: Counter[str] = Counter()
    dels: Counter[str] = Counter()
    drawn_chars: Counter[str] = Counter()
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").is_file() else ""
    started = time.perf_counter()
    for page_text in texts:
        drawn = render(page_text, g)[0]
        expected = page_expected_text(drawn)
        read = reader.read_page(drawn.pixels)
        s = score_page(expected, read)
        boxes_zero += not read.strip()
        n = len(expected)
        chars += n
        errors += round((1.0 - s.char_accuracy) * n)
        hard += s.hard_tokens
        exact += s.hard_tokens_exact
        sb, dl = edit_counts(expected, read)
        subs += sb
        dels += dl
        drawn_chars += Counter(c for c in expected if not c.isspace())
    return {
        "variant": variant,
        "reader": reader.info.as_dict(),
        "page": list(g.size),
        "text": text,
        "pages": len(texts),
        "cell": list(g.font.cell),
        "chars_per_kpx": round(g.chars_per_kpx, 3),
        "chars": chars,
        "char_accuracy": round(max(0.0, 1.0 - errors / chars) if chars else 1.0, 4),
        "hard_tokens": hard,
        "hard_tokens_exact": exact,
        "empty_readings": boxes_zero,
        "substitutions": dict(subs.most_common()),
        "deletions": dict(dels.most_common()),
        "drawn": dict(drawn_chars.most_common()),
        "loadavg_start": load,
        "loadavg_end": Path("/proc/loadavg").read_text().split()[0],
        "seconds": round(time.perf_counter() - started, 1),
        "measured": measured,
    }


#: The glyphs the cheap loop's text is rich in (the issue's unsolved confusions).
TARGETS = "xv{}|Ol"
#: The cheap loop's band: Gemini's page width, about ten text rows (100 px is no
#: multiple of 32, so PP-OCRv6's detector resamples it like the 728 px page).
BAND = (1568, 100)


def cheap_rows(cols: int, rows: int, band: int, targets: str = TARGETS[:-1]) -> list[str]:
    """Rows of **tuning** text rich in ``targets``: tuning-split corpus lines holding
    one of them, alternating with tuning-seed hard lines (``O``/``0``, ``l``/``1``).
    Never the held-out text the face is judged on.
    """
    from snapshot.legibility.corpus_text import _stream, pack_rows
    from snapshot.legibility.hardlines import TUNING_SEED, transcript_lines

    need = 600_000
    corpus = [ln for ln in _stream(str(_corpus()), "tuning", need) if set(ln) & set(targets)]
    hard = transcript_lines(len(corpus), seed=TUNING_SEED)
    mixed = [ln for pair in zip(corpus, hard, strict=False) for ln in pair]
    return pack_rows(mixed, cols=cols, rows=rows * (band + 1))[rows * band :]


def _corpus() -> Path:
    from snapshot.legibility.corpus_text import default_corpus

    return default_corpus()


def cheap_targets(text: str) -> str | None:
    """The corpus-line glyphs of a cheap-loop text name, or None for another text:
    ``cheap-tuning`` (lines holding any of :data:`TARGETS` but ``l``) or
    ``cheap-tuning:GLYPHS`` (lines holding one of ``GLYPHS``).

    >>> cheap_targets("cheap-tuning"), cheap_targets("cheap-tuning:O|"), cheap_targets("corpus")
    ('xv{}|O', 'O|', None)
    """
    name, _, glyphs = text.partition(":")
    if name != "cheap-tuning":
        return None
    return glyphs or TARGETS[:-1]


def measure_cheap(
    variant: str, font: str, reader_name: str, bands: int, text: str = "cheap-tuning"
) -> dict[str, Any]:
    """The cheap loop: ``bands`` small pages (:data:`BAND`) of :func:`cheap_rows`, each
    read whole; counted like :func:`measure_variant` (said as such in the record)."""
    from snapshot.legibility.frontier import CandidateLayout

    g = CandidateLayout(font, shade="gray", page=BAND).geometry()
    targets = cheap_targets(text)
    if targets is None:
        raise ValueError(f"not a cheap-loop text: {text}")
    texts = ["\n".join(cheap_rows(g.cols, g.text_rows, i, targets)) for i in range(bands)]
    return _measure(
        variant,
        reader_name,
        g,
        texts,
        text,
        "measured (cheap loop): small band pages of tuning text, read whole",
    )


def _key(rec: dict[str, Any]) -> tuple[str, str, str, str, int]:
    return (
        rec["variant"],
        rec["reader"]["name"],
        "x".join(map(str, rec["page"])),
        rec["text"],
        rec["pages"],
    )


def load_records(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]


def pair_count(rec: dict[str, Any], drawn: str, read: str) -> int:
    """How often ``drawn`` was read as ``read`` (``read == ""``: dropped)."""
    if not read:
        return int(rec["deletions"].get(drawn, 0))
    return int(rec["substitutions"].get(f"{drawn}>{read}", 0))


#: The glyphs each variant redraws (its before/after rows).
CHANGED: dict[str, str] = {
    "o_round": "O",
    "l_tail": "l",
    "x_wide": "x",
    "v_sharp": "v",
    "slash_long": "/\\",
    "s_round": "S",
    "braces_wide": "{}",
    "star_high": "*",
    "all_changes": "Olxv/\\S{}*",
    "candidate": "/\\{}vS",
    "snap5x9v2": "/\\S",
    "v3_c1": "v{}",
    "v3_c2": "v{}x",
    "snap5x9v3": "v{}",
    "v4_c1": "l1x5",
    "v4_c2": "l1x0",
    "v4_o1": "O",
    "v4_k1": "l0x",
    "v4_k2": "l0",
    "v4_k2r": "l0",
    "v4_k3": "0",
}
#: What a variant is judged against (default: ``base``, snap5x9): the v3 and v4 drafts redraw
#: snap5x9v2, the dense face they would replace.
BASE_OF: dict[str, str] = {
    "v3_c1": "snap5x9v2",
    "v3_c2": "snap5x9v2",
    "snap5x9v3": "snap5x9v2",
    "v4_c1": "snap5x9v2",
    "v4_c2": "snap5x9v2",
    "v4_o1": "snap5x9v2",
    "v4_k1": "snap5x9v2",
    "v4_k2": "snap5x9v2",
    "v4_k2r": "snap5x9v2",
    "v4_k3": "snap5x9v2",
}
#: The confusion issue 25 names for a glyph (drawn, read; "" = dropped).
NAMED: dict[str, tuple[str, str]] = {a: (a, b) for a, b in PAIRS}


def glyph_errors(rec: dict[str, Any], drawn: str) -> int:
    """Every misreading of ``drawn``: substitutions by anything, and drops."""
    subs = sum(n for k, n in rec["substitutions"].items() if k.split(">", 1)[0] == drawn)
    return subs + int(rec["deletions"].get(drawn, 0))


def _page(rec: dict[str, Any]) -> str:
    return "x".join(map(str, rec["page"]))


def _glyph(g: str) -> str:
    return "`\\|`" if g == "|" else f"`{g}`"


def _pair(drawn: str, read: str) -> str:
    """A confusion as a markdown table cell (a drawn or read bar escaped)."""
    cell = f"`{drawn}`→`{read}`" if read else f"`{drawn}` dropped"
    return cell.replace("|", "\\|")


def confusion_tables(records: Sequence[dict[str, Any]]) -> list[str]:
    """One table per (text, page): every reading's count of each of issue 25's confusions,
    beside all misreadings of that glyph (read as anything else or dropped) and how often
    it was drawn.

    >>> rec = {"variant": "v", "reader": {"name": "r"}, "page": [8, 8], "text": "hardlines",
    ...        "substitutions": {"O>0": 2, "O>C": 1}, "deletions": {"{": 1},
    ...        "drawn": {"O": 5, "{": 3}}
    >>> table = confusion_tables([rec])
    >>> table[5].split(" | ")[2:4], table[-1]
    (['2 (3/5)', '0 (0/0)'], '| v | r | `O`→`0`: 2, `O`→`C`: 1 |')
    """
    out: list[str] = []
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["text"], _page(r)), []).append(r)
    head = " | ".join(_pair(a, b) for a, b in PAIRS)
    for (text, page), rs in groups.items():
        out += [
            "",
            f"### Issue 25's confusions, {text} text, {page} (named pair (all misreadings/drawn))",
            "",
            f"| variant | reader | {head} |",
            "|---|---|" + "---|" * len(PAIRS),
        ]
        for r in rs:
            cells = " | ".join(
                f"{pair_count(r, a, b)} ({glyph_errors(r, a)}/{r['drawn'].get(a, 0)})"
                for a, b in PAIRS
            )
            out.append(f"| {r['variant']} | {r['reader']['name']} | {cells} |")
        out += [
            "",
            "| variant | reader | most frequent misreadings (drawn→read: times) |",
            "|---|---|---|",
        ]
        for r in rs:
            top = ", ".join(
                f"{_pair(*k.split('>', 1))}: {n}"
                for k, n in Counter(r["substitutions"]).most_common(8)
            )
            out.append(f"| {r['variant']} | {r['reader']['name']} | {top} |")
    return out


def report(records: Sequence[dict[str, Any]]) -> str:
    """The markdown tables of ``reports/face.md`` from measured records (nothing else).

    >>> report([])[:20]
    '<!-- written by benc'
    """
    out = [
        "<!-- written by bench/face_confusions.py --report from reports/face-points.jsonl -->",
        "",
        "### Every measurement (measured: full pages read whole)",
        "",
        "| variant | text | page | reader | chars | exact hard tokens | empty readings "
        "| load avg (start/end) | s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in records:
        tok = r["hard_tokens_exact"] / r["hard_tokens"] if r["hard_tokens"] else 1.0
        out.append(
            f"| {r['variant']} | {r['text']} | {_page(r)} | {r['reader']['name']} "
            f"| {r['char_accuracy']:.4f} | {r['hard_tokens_exact']}/{r['hard_tokens']} "
            f"({tok:.3f}) | {r['empty_readings']}/{r['pages']} "
            f"| {r['loadavg_start']}/{r['loadavg_end']} | {r['seconds']:.0f} |"
        )
    by = {_key(r): r for r in records}
    out += [
        "",
        "### Weakest reader per variant and page (among the readers run on it)",
        "",
        "| variant | text | page | readers | weakest chars | weakest exact hard tokens |",
        "|---|---|---|---|---|---|",
    ]
    groups: dict[tuple[str, str, str, int], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["variant"], r["text"], _page(r), r["pages"]), []).append(r)
    for (variant, text, page, _), rs in groups.items():
        c = min(rs, key=lambda r: r["char_accuracy"])
        h = min(rs, key=lambda r: r["hard_tokens_exact"] / max(1, r["hard_tokens"]))
        out.append(
            f"| {variant} | {text} | {page} | {', '.join(r['reader']['name'] for r in rs)} "
            f"| {c['char_accuracy']:.4f} ({c['reader']['name']}) "
            f"| {h['hard_tokens_exact']}/{h['hard_tokens']} ({h['reader']['name']}) |"
        )
    out += confusion_tables(records)
    out += [
        "",
        "### Before/after per redrawn glyph (same pages, same text; base → variant)",
        "",
        "Misread = the drawn glyph read as anything else or dropped; the named confusion is "
        "issue 25's pair for that glyph, where it names one.",
        "",
        "| variant | glyph | reader | page | drawn | misread base → variant "
        "| named confusion base → variant | page chars base → variant |",
        "|---|---|---|---|---|---|---|---|",
    ]
    drawn_at: dict[tuple[str, str], dict[str, int]] = {}
    for r in records:  # every variant draws the same text on a page size: any full count serves
        have = drawn_at.setdefault((_page(r), r["text"]), {})
        if len(r["drawn"]) > len(have):
            drawn_at[(_page(r), r["text"])] = r["drawn"]
    for r in records:
        base = BASE_OF.get(r["variant"], "base")
        b = by.get((base, *_key(r)[1:]))
        if b is None or r["variant"] == base:
            continue
        for g in CHANGED.get(r["variant"], ""):
            named = NAMED.get(g)
            pair = (
                f"{_pair(*named)} {pair_count(b, *named)} → {pair_count(r, *named)}"
                if named
                else "–"
            )
            out.append(
                f"| {r['variant']} | {_glyph(g)} | {r['reader']['name']} | {_page(r)} "
                f"| {drawn_at[(_page(r), r['text'])].get(g, '?')} "
                f"| {glyph_errors(b, g)} → {glyph_errors(r, g)} | {pair} "
                f"| {b['char_accuracy']:.4f} → {r['char_accuracy']:.4f} |"
            )
    return "\n".join(out) + "\n"


def run(
    variants: Sequence[str],
    readers: Sequence[str],
    pages_sizes: Iterable[tuple[int, int]],
    texts: Sequence[str],
    pages: int,
    out: Path,
) -> None:
    done = {_key(r) for r in load_records(out)}
    folder = Path(tempfile.mkdtemp(prefix="snapshot-face-"))
    for variant in variants:
        font = variant_font(variant, folder)
        for text in texts:
            cheap = cheap_targets(text) is not None
            for page in [BAND] if cheap else pages_sizes:
                for reader in readers:
                    key = (variant, reader, "x".join(map(str, page)), text, pages)
                    if key in done:
                        continue
                    rec = (
                        measure_cheap(variant, font, reader, pages, text)
                        if cheap
                        else measure_variant(variant, font, reader, page, text, pages)
                    )
                    out.parent.mkdir(parents=True, exist_ok=True)
                    with out.open("a", encoding="utf-8") as f:
                        f.write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
                    pairs = " ".join(f"{a}>{b or '∅'}:{pair_count(rec, a, b)}" for a, b in PAIRS)
                    print(
                        f"{variant} {reader} {key[2]} {text}: chars {rec['char_accuracy']:.4f} "
                        f"hard {rec['hard_tokens_exact']}/{rec['hard_tokens']} {pairs} "
                        f"load {rec['loadavg_start']} {rec['seconds']} s",
                        flush=True,
                    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--variants", default="base", help="comma list: base and bench/face_drafts names"
    )
    ap.add_argument("--readers", default=",".join(READERS))
    ap.add_argument("--page", action="append", help="WxH (repeatable); default 1568x728 and +4 px")
    ap.add_argument(
        "--text",
        default="corpus",
        help="corpus, hardlines or both (comma list), or cheap-tuning[:GLYPHS]: the cheap loop "
        "(--pages small band pages of tuning text rich in the target glyphs; use its own --out)",
    )
    ap.add_argument("--pages", type=int, default=1)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--report", type=Path, help="write the markdown tables from --out and stop")
    args = ap.parse_args(argv)
    if args.report is not None:
        args.report.write_text(report(load_records(args.out)), encoding="utf-8")
        return 0
    sizes = [tuple(int(v) for v in p.split("x")) for p in args.page] if args.page else list(PAGES)
    os.environ.setdefault("SNAPSHOT_CORPUS", str(ROOT.parent.parent / "shared" / "corpus"))
    run(
        [v for v in args.variants.split(",") if v],
        [r for r in args.readers.split(",") if r],
        sizes,  # type: ignore[arg-type]
        [t for t in args.text.split(",") if t],
        args.pages,
        args.out,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
