"""Needle recall by whole-page reader: pooled shares with Wilson intervals, by class.

The benchmark rows carry, per conversation × profile × strategy, how many of
the sampled pages' needles each whole-page reader got back
(:class:`snapshot.report.matrix.MatrixRow`). Here they are pooled per profile,
strategy and reader: the share of all needles found with its 95 % Wilson
interval, the same per needle class, and the median over conversations of
each conversation's share. Live-probe records (``snapshot probe``) join as one
more reader column for the profile they probed.

>>> from snapshot.report.matrix import MatrixRow
>>> r = MatrixRow("s", "c", "m", "snapshot", 10, 5, 0.0, 0, pages=3, reader_pages=1,
...         page_needles={"hex": 4}, reader_found={"ppocrv5": {"hex": 3}})
>>> [(x.reader, x.found, x.needles) for x in reader_recall([r])]
[('ppocrv5', 3, 4)]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import median

from snapshot.ladder.needles import CLASSES
from snapshot.readability.scoring import wilson_interval
from snapshot.report.matrix import MatrixRow

# Shown for the text that stayed text alone (head, tail, factsheet): what the
# factsheet gets back of needles it was not built from.
TEXT_ONLY = "text only"


@dataclass(frozen=True)
class ReaderRecall:
    """One reader's needle recall over one profile × strategy, pooled."""

    model: str
    strategy: str
    reader: str
    needles: int
    found: int
    conversations: int  # conversations measured (with at least one needle)
    pages: int
    by_class: dict[str, tuple[int, int]]  # class -> (found, asked)
    median_conversation: float | None
    notes: tuple[str, ...] = ()  # why some conversations gave no measurement
    unmeasured: int = 0  # conversations with needles where this reader gave no cell
    source: str = "whole page"  # "whole page", "text", or "live probe"
    # needles found on the page as read or in what stayed text (what the request holds)
    found_or_text: int | None = None

    @property
    def share(self) -> float | None:
        return self.found / self.needles if self.needles else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.found, self.needles)

    def class_interval(self, kind: str) -> tuple[float, float]:
        f, n = self.by_class.get(kind, (0, 0))
        return wilson_interval(f, n)

    def to_json(self) -> dict[str, object]:
        lo, hi = self.interval
        return {
            "model": self.model,
            "strategy": self.strategy,
            "reader": self.reader,
            "source": self.source,
            "needles": self.needles,
            "found": self.found,
            "share": self.share,
            "wilson95": [lo, hi],
            "by_class": {
                k: {"found": f, "needles": n, "wilson95": list(wilson_interval(f, n))}
                for k, (f, n) in self.by_class.items()
            },
            "found_or_text": self.found_or_text,
            "median_conversation": self.median_conversation,
            "conversations": self.conversations,
            "unmeasured_conversations": self.unmeasured,
            "pages": self.pages,
            "notes": list(self.notes),
        }


@dataclass
class _Acc:
    found: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    asked: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    shares: list[float] = field(default_factory=list)
    pages: int = 0
    notes: dict[str, int] = field(default_factory=dict)
    unmeasured: int = 0
    either: int | None = None

    def add(self, asked: dict[str, int], found: dict[str, int], pages: int) -> None:
        n = sum(asked.values())
        for k, v in asked.items():
            self.asked[k] += v
            self.found[k] += found.get(k, 0)
        if n:
            self.shares.append(sum(found.values()) / n)
        self.pages += pages

    def result(self, model: str, strategy: str, reader: str, source: str) -> ReaderRecall:
        by_class = {k: (self.found[k], self.asked[k]) for k in CLASSES if self.asked[k]}
        notes = tuple(f"{n} × {note}" for note, n in sorted(self.notes.items()))
        return ReaderRecall(
            model=model,
            strategy=strategy,
            reader=reader,
            needles=sum(self.asked.values()),
            found=sum(self.found.values()),
            conversations=len(self.shares),
            pages=self.pages,
            by_class=by_class,
            median_conversation=median(self.shares) if self.shares else None,
            notes=notes,
            unmeasured=self.unmeasured,
            source=source,
            found_or_text=self.either,
        )


def reader_recall(rows: Iterable[MatrixRow], *, with_text: bool = False) -> list[ReaderRecall]:
    """Pool every whole-page reader's needle counts per (profile, strategy, reader).

    A reader that gave no cell for a conversation (not installed, model
    missing, failed on a page) adds nothing to the counts; its notes are kept
    and the conversations counted in ``unmeasured``. With ``with_text`` the
    needles found in what stayed text alone come as a ``"text only"`` reader.
    """
    accs: dict[tuple[str, str, str], _Acc] = defaultdict(_Acc)
    for r in rows:
        if not r.page_needles and not r.reader_notes:
            continue
        for reader, found in r.reader_found.items():
            acc = accs[(r.model, r.strategy, reader)]
            acc.add(r.page_needles, found, r.reader_pages)
            either = r.reader_found_or_text.get(reader, found)
            acc.either = (acc.either or 0) + sum(either.values())
        for reader, note in r.reader_notes.items():
            acc = accs[(r.model, r.strategy, reader)]
            acc.notes[note] = acc.notes.get(note, 0) + 1
            acc.unmeasured += int(bool(r.page_needles))
        if with_text and r.page_needles:
            accs[(r.model, r.strategy, TEXT_ONLY)].add(
                r.page_needles, r.page_needles_in_text, r.reader_pages
            )
    if not accs:
        return []  # no page was read: the readers' module is not even imported
    from snapshot.legibility.page_readers import page_reader_names

    order = {n: i for i, n in enumerate((*page_reader_names(), TEXT_ONLY))}
    keys = sorted(accs, key=lambda k: (k[0], k[1], order.get(k[2], 99), k[2]))
    return [accs[k].result(*k, source="text" if k[2] == TEXT_ONLY else "whole page") for k in keys]


def probe_recall(records: Sequence[dict[str, object]], models: Sequence[str]) -> list[ReaderRecall]:
    """Live needle-probe records as reader columns for the report's profiles.

    A record joins the profile whose model id (or canonical profile id) it
    probed; records of other models are left out.
    """
    from snapshot.report.needle_probe import NeedleProbeRecord

    accs: dict[tuple[str, str], _Acc] = defaultdict(_Acc)
    for raw in records:
        rec = NeedleProbeRecord.from_dict(raw)
        model = next((m for m in models if m in (rec.model, rec.profile)), None)
        if model is None:
            continue
        acc = accs[(model, f"live: {rec.model}")]
        for page in rec.pages:
            acc.add(page.asked(), page.found(), 1)
    return [
        acc.result(model, "snapshot", reader, source="live probe")
        for (model, reader), acc in sorted(accs.items())
    ]
