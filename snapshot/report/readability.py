"""What a reader gets back from a compacted conversation, for needle recall.

Text that stayed text is read exactly. Pages are read back through the
oracle (the project's font-aware decoder: whether the information survived at
all) and, on a seeded sample, through a real OCR engine. Pages are decoded
once per distinct PNG: identical source gives identical pages.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from snapshot.ladder.needles import Needle, found
from snapshot.ladder.serialize import serialize_block
from snapshot.page import Page
from snapshot.transcript.model import Conversation, ImageBlock, Message


def visible_text(messages: Sequence[Message]) -> str:
    """Everything a reader gets as text (images excluded; a snapshot's retained source excluded)."""
    parts: list[str] = []
    for m in messages:
        for b in m.blocks:
            if not isinstance(b, ImageBlock):
                parts.append(serialize_block(b))
    return "\n".join(parts)


# Reads the given rows of a page with a real OCR engine, one string per row.
OcrRows = Callable[[Page, Sequence[int]], list[str]]


@dataclass
class PageReader:
    """Reads pages with the oracle and rows with an OCR engine, caching by PNG digest."""

    ocr_rows: OcrRows | None = None
    cache: dict[str, str] = field(default_factory=dict)
    row_cache: dict[tuple[str, int], str] = field(default_factory=dict)

    def oracle(self, page: Page) -> str:
        key = hashlib.sha256(page.png()).hexdigest()
        text = self.cache.get(key)
        if text is None:
            from snapshot.decode import read

            text = read(page.pixels, page.geometry.font, geometry=page.geometry)
            self.cache[key] = text
        return text

    def ocr(self, page: Page, rows: Sequence[int]) -> list[str]:
        assert self.ocr_rows is not None
        key = hashlib.sha256(page.png()).hexdigest()
        todo = [r for r in rows if (key, r) not in self.row_cache]
        if todo:
            for r, text in zip(todo, self.ocr_rows(page, todo), strict=True):
                self.row_cache[(key, r)] = text
        return [self.row_cache[(key, r)] for r in rows]


@dataclass(frozen=True)
class Recall:
    needles: int
    text: float | None  # needles found in what stayed text
    oracle: float | None  # ... plus what the oracle reads off the pages
    ocr: float | None  # on a seeded sample of rows: share of those rows' needles the OCR reads
    ocr_rows: int = 0


def _share(hits: Sequence[bool]) -> float | None:
    return sum(hits) / len(hits) if hits else None


def text_recall(needles: Sequence[Needle], conv: Conversation) -> float | None:
    if not needles:
        return None
    return _share(found(needles, visible_text(conv.path())))


def pages_recall(
    needles: Sequence[Needle],
    conv: Conversation,
    pages: Sequence[Page],
    reader: PageReader,
    *,
    ocr_sample: int = 0,
    seed: int = 0,
) -> Recall:
    """Recall for a conversation whose middle is on ``pages``.

    The OCR figure reads a seeded sample of ``ocr_sample`` rows (a whole corpus of
    pages is too slow for a real engine) and counts the needles that lie within
    one of those rows.
    """
    if not needles:
        return Recall(0, None, None, None)
    text = visible_text(conv.path())
    text_hits = found(needles, text)
    decoded = "\n".join(reader.oracle(p) for p in pages)
    # Needles are matched modulo whitespace, so a needle wrapped across rows or pages still counts.
    oracle_hits = found(needles, text + "\n" + decoded)
    ocr_share: float | None = None
    sampled = 0
    if reader.ocr_rows is not None and ocr_sample > 0 and pages:
        rng = random.Random(seed)
        cells = [(i, r) for i, p in enumerate(pages) for r in range(len(p.rows))]
        chosen = sorted(rng.sample(cells, min(ocr_sample, len(cells))))
        hits: list[bool] = []
        for i in sorted({i for i, _ in chosen}):
            rows = [r for j, r in chosen if j == i]
            for r, read_back in zip(rows, reader.ocr(pages[i], rows), strict=True):
                truth = pages[i].rows[r]
                on_row = [n for n, h in zip(needles, found(needles, truth), strict=True) if h]
                hits.extend(found(on_row, read_back))
        sampled = len(chosen)
        ocr_share = _share(hits)
    return Recall(len(needles), _share(text_hits), _share(oracle_hits), ocr_share, sampled)
