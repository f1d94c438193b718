"""What the report keeps of each conversation it ran on (counted once, cached with the rows).

>>> SourceStats("c1", "demo", messages=4, chars=1200, images=0, real_summary=False).chars
1200
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["SourceStats"]


@dataclass(frozen=True)
class SourceStats:
    id: str
    category: str
    messages: int
    chars: int
    images: int
    real_summary: bool
    reference: dict[str, Any] = field(default_factory=dict)
    # The conversation exported to every shape and validated (snapshot/report/validation.py).
    validation: dict[str, Any] = field(default_factory=dict)
    # How much of a session its harness compacted was measured ("" when all of it).
    measured: str = ""
