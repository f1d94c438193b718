"""The bar a layout must reach to count as readable, and the provider resample it must
survive.

>>> from types import SimpleNamespace as Reading
>>> Goal().passes(Reading(char_accuracy=0.98, hard_token_accuracy=0.95), None)
True
>>> Goal().passes(Reading(char_accuracy=0.98, hard_token_accuracy=0.95),
...               Reading(char_accuracy=0.85, hard_token_accuracy=0.9))
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = ["RELATIVE_BAR", "RESAMPLE_FILTER", "RESAMPLE_SCALE", "Goal", "Reading"]


RESAMPLE_FILTER = "bicubic"
#: The provider resample every layout must survive (the issue's 0.9× bicubic check).
RESAMPLE_SCALE = 0.9
#: The share of its own control page's characters a qualified reader must read on a layout
#: (issue 40): the bar of every reading taken relative to a control; 0.97 stays the bar of
#: absolute readings (no control read).
RELATIVE_BAR = 0.95


class Reading(Protocol):
    """A whole-page reading's two native figures (a lab point, a page score)."""

    @property
    def char_accuracy(self) -> float: ...

    @property
    def hard_token_accuracy(self) -> float: ...


@dataclass(frozen=True)
class Goal:
    """What a layout must reach: native character accuracy and exact hard tokens, and
    character accuracy after the :data:`RESAMPLE_SCALE` bicubic resample."""

    char_accuracy: float = 0.97
    hard_tokens: float = 0.90
    resampled_char_accuracy: float = 0.90

    def __post_init__(self) -> None:
        from snapshot.errors import InputError

        for v in (self.char_accuracy, self.hard_tokens, self.resampled_char_accuracy):
            if not 0.0 < v <= 1.0:
                raise InputError(f"targets must be in (0, 1], got {v}")

    @classmethod
    def relative(cls) -> Goal:
        """The goal of a reading relative to its reader's control page.

        >>> Goal.relative().char_accuracy
        0.95
        """
        return cls(char_accuracy=RELATIVE_BAR)

    def passes(self, native: Reading, resampled: Reading | None) -> bool:
        ok = (
            native.char_accuracy >= self.char_accuracy
            and native.hard_token_accuracy >= self.hard_tokens
        )
        if resampled is not None:
            ok = ok and resampled.char_accuracy >= self.resampled_char_accuracy
        return ok
