"""Model families: who reads a model's pages, the font and page bound that reader gets, and why.

A model row in the billing tables (:data:`snapshot.billing.providers.MODELS`) names
its family; this table says the family's vendor, whether it sees images, its
default font, the largest page read well and the reader evidence behind them
(rows in :mod:`snapshot.profiles._readers`, each claim with source, label and
date). :func:`validate_families` cross-checks it against the billing tables at
import and raises :class:`~snapshot.billing.rows.TableError` on a broken row.

>>> FAMILIES["gemini-3-flash"].font, FAMILIES["gemini-3-flash"].legible_max
('snap5x8', (1568, 728))
>>> FALLBACK_FAMILY.provider
'unknown'
"""

from __future__ import annotations

from types import MappingProxyType

from snapshot.billing import providers as tables
from snapshot.billing.rows import Family, TableError
from snapshot.profiles import _readers
from snapshot.profiles.default_rule import ModelRead

#: family name → the family's reader: vendor, vision, font, page bound and evidence.
FAMILIES: MappingProxyType[str, Family] = MappingProxyType(
    {f.name: f for f in _readers.FAMILY_ROWS}
)
#: The family of the conservative profile used for an unknown model when asked for.
FALLBACK_FAMILY: Family = _readers.FALLBACK_FAMILY


def validate_families() -> None:
    """Cross-check the families against the billing tables; raise :class:`TableError` if broken.

    Every model's family is a row here, its vision flag matches its scheme, every
    family has one text-token row, and residency rows name their vendor's models.
    Runs at import (a plain function: ``python -O`` does not skip it).

    >>> validate_families()
    """
    if len(FAMILIES) != len(_readers.FAMILY_ROWS):
        raise TableError("two family rows share one name")
    for m in tables.MODELS.values():
        if m.family not in FAMILIES:
            raise TableError(f"{m.model}: unknown family {m.family!r}")
        if (m.scheme.kind == "none") == FAMILIES[m.family].vision:
            raise TableError(f"{m.model}: scheme {m.scheme.kind} contradicts family vision flag")
    if set(tables.TEXT_TOKENIZER_BY_FAMILY) != {*FAMILIES, "fallback"}:
        raise TableError("every family needs exactly one text-token row")
    for geo in tables.GEOS:
        for mid in geo.models:
            if FAMILIES[tables.MODELS[mid].family].provider != geo.provider:
                raise TableError(f"inference geo {geo.geo!r}: {mid!r} is no {geo.provider} model")


def model_reads(family: str) -> tuple[ModelRead, ...]:
    """The family's published model batteries, as trials the default rule weighs.

    >>> [(r.n, r.passing, r.cell) for r in model_reads("gemini-3-flash")]
    [(15, 14, (5, 8))]
    >>> model_reads("grok")
    ()
    """
    return _readers.MODEL_READS.get(family, ())


validate_families()

__all__ = ["FALLBACK_FAMILY", "FAMILIES", "model_reads", "validate_families"]
