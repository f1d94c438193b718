"""The size of a modelled summary, measured on the real summaries a run imports.

Where a conversation has no real compaction summary, the report prices the
summary rung as a call whose output is the size real summaries have. That size
is measured at run time from the real summaries among the run's own
conversations (mean, spread and count); only a run that holds none falls back
to :data:`snapshot.ladder.summary.MEASURED_SUMMARY_CHARS`, and says so.

>>> size = summary_size([1000, 3000])
>>> (size.mean_chars, size.count, size.measured)
(2000, 2, True)
>>> summary_size([]).measured
False
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from statistics import mean, pstdev
from typing import Any

from snapshot.ladder.summary import MEASURED_SUMMARY_CHARS, MEASURED_SUMMARY_SOURCE, real_summaries
from snapshot.transcript.model import Conversation


@dataclass(frozen=True)
class SummarySize:
    """What the modelled summary's output size rests on."""

    mean_chars: int
    stdev_chars: int
    min_chars: int
    max_chars: int
    count: int
    measured: bool  # False: no real summary in the run, the package's recorded figure is used
    source: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def summary_size(lengths: Iterable[int]) -> SummarySize:
    """Mean and spread of real summary lengths (characters), or the recorded fallback."""
    found = [int(n) for n in lengths]
    if not found:
        return SummarySize(
            MEASURED_SUMMARY_CHARS,
            0,
            MEASURED_SUMMARY_CHARS,
            MEASURED_SUMMARY_CHARS,
            0,
            False,
            f"no real summary in this run: {MEASURED_SUMMARY_SOURCE}",
        )
    return SummarySize(
        round(mean(found)),
        round(pstdev(found)),
        min(found),
        max(found),
        len(found),
        True,
        f"mean of the {len(found)} real compaction summaries in this run's conversations",
    )


def real_summary_lengths(conversations: Iterable[Conversation]) -> list[int]:
    """Characters of every real compaction summary the conversations hold (each one is a
    real sample of what a summary's output size is)."""
    return [len(m.text()) for conv in conversations for m in real_summaries(conv)]
