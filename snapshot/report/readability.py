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


@dataclass
class PageReader:
    """Decodes pages with the oracle, caching by PNG digest."""

    cache: dict[str, str] = field(default_factory=dict)

    def oracle(self, page: Page) -> str:
        key = hashlib.sha256(page.png()).hexdigest()
        text = self.cache.get(key)
        if text is None:
            from snapshot.decode import read

            text = read(page.pixels, page.geometry.font, geometry=page.geometry)
            self.cache[key] = text
        return text


@dataclass(frozen=True)
class Recall:
    needles: int
    text: float | None  # needles found in what stayed text
    oracle: float | None  # ... plus what the oracle reads off the pages
    ocr: float | None  # on a seeded sample of pages: share of that page's needles the OCR reads
    ocr_pages: int = 0


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
    ocr: Callable[[Page], str] | None = None,
    ocr_sample: int = 0,
    seed: int = 0,
) -> Recall:
    """Recall for a conversation whose middle is on ``pages``."""
    if not needles:
        return Recall(0, None, None, None)
    text = visible_text(conv.path())
    text_hits = found(needles, text)
    decoded = "\n".join(reader.oracle(p) for p in pages)
    # Needles are matched modulo whitespace, so a needle wrapped across rows or pages still counts.
    oracle_hits = found(needles, text + "\n" + decoded)
    ocr_share: float | None = None
    sampled = 0
    if ocr is not None and ocr_sample > 0 and pages:
        rng = random.Random(seed)
        chosen = rng.sample(list(pages), min(ocr_sample, len(pages)))
        hits: list[bool] = []
        for page in chosen:
            on_page = [n for n, h in zip(needles, found(needles, page.text), strict=True) if h]
            if on_page:
                hits.extend(found(on_page, ocr(page)))
        sampled = len(chosen)
        ocr_share = _share(hits)
    return Recall(len(needles), _share(text_hits), _share(oracle_hits), ocr_share, sampled)
