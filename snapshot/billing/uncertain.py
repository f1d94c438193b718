"""Facts whose sources disagree: the range each lies in, and the measurements that settle one.

A :class:`~snapshot.billing.rows.RangeFact` names the model ids it covers, the
scheme field the sources disagree on and each end with its own source; the model
rows bill at the range's ``point``. ``snapshot probe --battery usage`` sends one
live request and saves its ``usage`` as a dated JSON record; from then on
:func:`load_settled` reads that record and the measured value replaces the range
for that model (labelled ``measured``, citing the record; a record made against an
offline stand-in says so in every output).

>>> rng = range_for("gpt-6.1-sol")
>>> rng.field, [e.value for e in rng.ends], rng.point
('multiplier', ['1.2', '1.5'], '1.5')
>>> from snapshot.billing.providers import MODELS
>>> scheme_at(MODELS["gpt-6.1-sol"].scheme, rng, "1.2").tokens(1024, 1024)
1229
>>> range_for("claude-opus-5") is None
True
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snapshot.billing import providers as tables
from snapshot.billing.rows import Fact, RangeFact
from snapshot.billing.schemes import Scheme
from snapshot.errors import InputError

#: Probe records in the probe's --out directory (usage records are told apart by ``kind``).
USAGE_GLOB = "*.json"
USAGE_KIND = "snapshot-usage-probe"
#: Where `snapshot probe` saves records by default, and where commands look for them.
DEFAULT_EVIDENCE_DIR = Path("reports/probes")


def range_for(model: str) -> RangeFact | None:
    """The range a model row's disputed scheme field lies in (by canonical id), or None.

    >>> range_for("gpt-6.2-sol").name
    'GPT-6 family patch multiplier'
    """
    return tables.RANGE_BY_MODEL.get(model)


def scheme_at(scheme: Scheme, rng: RangeFact, value: str) -> Scheme:
    """``scheme`` with the disputed field set to ``value``.

    >>> from snapshot.billing.providers import MODELS
    >>> scheme_at(MODELS["gpt-6-sol"].scheme, range_for("gpt-6-sol"), "1.2").multiplier
    '1.2'
    """
    if not hasattr(scheme, rng.field):
        raise InputError(f"{rng.name}: scheme {scheme.kind} has no field {rng.field!r}")
    return dataclasses.replace(scheme, **{rng.field: value})  # type: ignore[type-var]


@dataclass(frozen=True)
class Settled:
    """A range settled for one model by a measured ``usage``: the value and its record.

    >>> s = Settled("gpt-6-sol", "1.2", Fact("r.json", "measured", "2026-12-02"), "r.json", True)
    >>> s.record()["offline_stand_in"]
    True
    """

    model: str
    value: str
    fact: Fact
    path: str
    stand_in: bool

    def record(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "record": self.path,
            "source": self.fact.cite(),
            "offline_stand_in": self.stand_in,
        }


def load_settled(directory: str | Path | None = DEFAULT_EVIDENCE_DIR) -> dict[str, Settled]:
    """Every usage-probe record in ``directory``: canonical model id → the newest settling.

    A missing directory is no evidence (an empty mapping); a record that does not
    parse is an :class:`~snapshot.errors.InputError` naming the file.

    >>> load_settled("/nonexistent/dir")
    {}
    """
    if directory is None:
        return {}
    root = Path(directory)
    if not root.exists():
        return {}
    if not root.is_dir():
        raise InputError(f"{root}: not a folder of probe records (give the probe's --out folder)")
    out: dict[str, Settled] = {}
    for path in sorted(root.glob(USAGE_GLOB)):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeError) as exc:
            raise InputError(f"{path}: cannot read the probe record ({exc})") from None
        if USAGE_KIND not in text:
            continue  # another probe's record (needles, questions): not usage evidence
        try:
            doc = json.loads(text)
            if not isinstance(doc, dict) or doc.get("kind") != USAGE_KIND:
                raise ValueError("no usage-probe kind")
            model, value, day = str(doc["canonical"]), str(doc["value"]), str(doc["date"])
            stand_in = bool(doc.get("offline_stand_in"))
            endpoint = str(doc.get("endpoint", "the provider"))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise InputError(f"{path}: not a usage-probe record ({exc})") from None
        where = f"offline stand-in at {endpoint}" if stand_in else endpoint
        fact = Fact(
            f"usage-probe record {path} (one live request to {where})",
            "measured",
            day,
            f"usage.input_tokens {doc.get('input_tokens')} for a {doc.get('page')} page",
        )
        previous = out.get(model)
        if previous is None or previous.fact.date <= day:
            out[model] = Settled(model, value, fact, str(path), stand_in)
    return out


__all__ = [
    "DEFAULT_EVIDENCE_DIR",
    "USAGE_GLOB",
    "USAGE_KIND",
    "Settled",
    "load_settled",
    "range_for",
    "scheme_at",
]
