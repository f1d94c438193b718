"""Independent text: real agent-transcript lines from the corpus, split once and for all.

The generated hard lines (:mod:`snapshot.legibility.hardlines`) are made by the
same generator the tuner searches on, so a layout tuned on them can flatter
itself. This module gives the other text every readability figure is measured
on: what real agents wrote and read, as the snapshot rung draws it
(:func:`snapshot.ladder.serialize.serialize`), from the benchmark corpus
(``../shared/corpus`` beside the repository, or ``$SNAPSHOT_CORPUS``), read from
there and never copied into the project.

The split is fixed and documented: a manifest entry (``benchmark.manifest.json``)
is **held out** when the first hex digit of ``sha256(entry id)`` is even
(:func:`is_held_out`), otherwise it belongs to the tuning half. No tuning step
reads the held-out half (:func:`corpus_page_rows` refuses ``split="tuning"``
only by name: the tuner never calls it with ``"held-out"``). The hash keeps the
split stable when entries are added to the manifest.

Lines are taken in manifest order, non-ASCII lines left out (the project's fonts
draw ASCII; CJK goes to another font), tabs as spaces, and packed into rows
edge to edge like :func:`~snapshot.legibility.hardlines.full_page_rows`, so a
page of corpus text is as full as a page of hard lines.

>>> is_held_out("claude_code_spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl")
False
>>> pack_rows(["ls -la", "total 8", "drwxr-xr-x 2 dev dev 4096 ."], cols=20, rows=2)
['ls -la  total 8  drw', 'xr-xr-x 2 dev dev 40']
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Literal

from snapshot.errors import InputError

#: The text kinds a readability figure names.
TEXTS: tuple[str, ...] = ("hardlines", "corpus")
#: The texts ``snapshot tune`` may read: the hard lines (of its tuning seed) and the corpus's
#: tuning half, never the held-out half the figures are measured on.
TUNING_TEXTS: tuple[str, ...] = ("hardlines", "corpus-tuning")
Split = Literal["held-out", "tuning"]
MANIFEST = "benchmark.manifest.json"


class CorpusUnavailable(InputError):
    """The corpus folder or its manifest is not there (figures on it cannot be made)."""


def default_corpus() -> Path:
    """``$SNAPSHOT_CORPUS``, else ``../shared/corpus`` beside the repository."""
    env = os.environ.get("SNAPSHOT_CORPUS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def is_held_out(entry_id: str) -> bool:
    """Whether a manifest entry is in the held-out half (first hex digit of its sha256 even)."""
    return int(hashlib.sha256(entry_id.encode("utf-8")).hexdigest()[0], 16) % 2 == 0


def split_entries(root: Path, split: Split = "held-out") -> list[dict[str, object]]:
    """The manifest entries of one half, in manifest order."""
    manifest = root / MANIFEST
    if not manifest.is_file():
        raise CorpusUnavailable(f"{manifest}: corpus manifest not found (set SNAPSHOT_CORPUS)")
    entries = json.loads(manifest.read_text(encoding="utf-8"))
    want = split == "held-out"
    return [e for e in entries if is_held_out(str(e["id"])) == want]


def _clean_lines(text: str) -> Iterator[str]:
    for raw in text.splitlines():
        line = raw.replace("\t", "    ").rstrip()
        if line.strip() and line.isascii() and line.isprintable():
            yield line


def pack_rows(lines: Iterable[str], *, cols: int, rows: int) -> list[str]:
    """``rows`` rows of exactly ``cols`` characters but the last: the lines joined with two
    spaces and cut where a row ends, the rest carried on to the next row (no text lost,
    every row full edge to edge, as :func:`~snapshot.legibility.hardlines.full_page_rows`)."""
    out: list[str] = []
    cur = ""
    for line in lines:
        rest = line.strip() if cur else line.rstrip()
        cur = f"{cur}  {rest}" if cur else rest
        while len(cur) >= cols:
            out.append(cur[:cols].rstrip())
            cur = cur[cols:].lstrip()
            if len(out) == rows:
                return out
    if cur and len(out) < rows:
        out.append(cur)
    return out


@functools.lru_cache(maxsize=4)
def _stream(root: str, split: Split, need_chars: int) -> tuple[str, ...]:
    from snapshot.ladder.serialize import serialize
    from snapshot.transcript.formats import import_path

    base = Path(root)
    lines: list[str] = []
    total = 0
    for entry in split_entries(base, split):
        select = {str(k): str(v) for k, v in dict(entry.get("select") or {}).items()}  # type: ignore[call-overload]
        for conv in import_path(base / str(entry["path"]), select=select or None):
            for line in _clean_lines(serialize(conv.path())):
                lines.append(line)
                total += len(line) + 2
            if total >= need_chars:
                return tuple(lines)
    return tuple(lines)


def corpus_page_rows(
    cols: int,
    rows: int,
    *,
    page: int = 0,
    root: str | os.PathLike[str] | None = None,
    split: Split = "held-out",
) -> list[str]:
    """Page ``page`` of the held-out corpus text packed into ``rows`` rows of ``cols``.

    Raises
    ------
    CorpusUnavailable
        The corpus is not there, or its held-out half is too short for the page.
    """
    if cols < 8 or rows < 1:
        raise InputError("a full page needs cols >= 8 and rows >= 1")
    base = Path(root) if root is not None else default_corpus()
    need = cols * rows * (page + 1)
    stream = _stream(str(base), split, need)
    all_rows = pack_rows(stream, cols=cols, rows=rows * (page + 1))
    out = all_rows[rows * page :]
    if len(out) < rows:
        raise CorpusUnavailable(f"{base}: the {split} corpus text fills only {len(out)} rows")
    return out


def text_rows(text: str, cols: int, rows: int, *, seed: int, page: int) -> list[str]:
    """The rows of one full page of ``text``: ``"hardlines"`` with ``seed``, ``"corpus"`` (the
    held-out half) or ``"corpus-tuning"`` (the tuning half, what ``snapshot tune`` reads).

    >>> text_rows("hardlines", 40, 2, seed=1, page=0) == text_rows("hardlines", 40, 2, seed=1, page=0)
    True
    """
    from snapshot.legibility.hardlines import full_page_rows

    if text == "hardlines":
        return full_page_rows(cols, rows, seed=seed, page=page)
    if text == "corpus":
        return corpus_page_rows(cols, rows, page=page)
    if text == "corpus-tuning":
        return corpus_page_rows(cols, rows, page=page, split="tuning")
    raise InputError(f"unknown text {text!r}: one of {', '.join(TEXTS + TUNING_TEXTS[1:])}")


def describe_text(text: str, seed: int) -> str:
    """What a figure was measured on, in one phrase.

    >>> describe_text("hardlines", 20261201)
    'generated hard lines (seed 20261201)'
    >>> describe_text("corpus-tuning", 1)
    "the corpus's tuning half of transcript text (sha256(id) first hex digit odd)"
    """
    if text == "corpus":
        return "held-out corpus transcript text (sha256(id) first hex digit even)"
    if text == "corpus-tuning":
        return "the corpus's tuning half of transcript text (sha256(id) first hex digit odd)"
    return f"generated hard lines (seed {seed})"


__all__: Sequence[str] = (
    "TEXTS",
    "TUNING_TEXTS",
    "CorpusUnavailable",
    "corpus_page_rows",
    "default_corpus",
    "describe_text",
    "is_held_out",
    "pack_rows",
    "split_entries",
    "text_rows",
)
