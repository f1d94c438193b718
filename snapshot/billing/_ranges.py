"""Facts whose sources disagree, carried as ranges with each end's source. Pure data.

The model rows bill at each range's ``point`` (the package's figure until a
measurement settles it); every result that depends on a range is also shown at
its other end (:mod:`snapshot.billing.uncertain`).
"""

from __future__ import annotations

from snapshot.billing._models import GPT6_FAMILY
from snapshot.billing.rows import Fact, RangeEnd, RangeFact
from snapshot.billing.sources import COMPILED, SRC_APIYI, SRC_HF_ITC, SRC_OPENAI_CALC

RANGE_ROWS: tuple[RangeFact, ...] = (
    RangeFact(
        name="GPT-6 family patch multiplier",
        models=GPT6_FAMILY,
        field="multiplier",
        ends=(
            RangeEnd(
                "1.2",
                Fact(
                    f"{SRC_HF_ITC}; {SRC_APIYI}",
                    "measured",
                    "2026-10-20",
                    "three third-party measurements; no official table",
                ),
            ),
            RangeEnd(
                "1.5",
                Fact(
                    SRC_OPENAI_CALC,
                    "uncertain",
                    COMPILED,
                    "the package's figure: the largest multiplier of any GPT-5-or-later model "
                    "(gpt-5-nano), assumed so image tokens are not under-billed",
                ),
            ),
        ),
        point="1.5",
    ),
)
