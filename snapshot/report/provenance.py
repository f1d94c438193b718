"""Where each figure of the report comes from: measured, exact, reconstructed, estimated, modelled.

Every figure the report prints carries one of five labels, beside it in
``results.json`` (a ``provenance`` field) and as a marker in REPORT.md:

- **measured**: counted by this run (needles read back, pages drawn, seconds);
- **exact**: a provider's published rule or an exact tokenizer applied to the input;
- **reconstructed**: an offline reconstruction of a provider's count (e.g. ``ctok`` for Claude);
- **estimated**: a documented average (characters per token);
- **modelled**: an assumption, named (a summary's output size where no real summary exists).

The labels are ordered from most to least trustworthy; a figure built from
parts takes the least trustworthy label among them (:func:`weakest`).

>>> weakest(["exact", "estimated", "measured"])
'estimated'
>>> marker("modelled")
'ᴹᴼᴰ'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal, get_args

Provenance = Literal["measured", "exact", "reconstructed", "estimated", "modelled"]
LABELS: tuple[Provenance, ...] = get_args(Provenance)

# Short superscript markers REPORT.md puts after a figure; the legend is printed once.
_MARKERS: dict[str, str] = {
    "measured": "ᵐ",
    "exact": "ˣ",
    "reconstructed": "ʳ",
    "estimated": "ᵉ",
    "modelled": "ᴹᴼᴰ",
}

LEGEND = (
    "Markers: ᵐ measured by this run · ˣ exact (a published rule or an exact tokenizer) · "
    "ʳ reconstructed (an offline reconstruction of the provider's count) · "
    "ᵉ estimated (a documented average) · ᴹᴼᴰ modelled (an assumption, named below)."
)


def marker(label: str) -> str:
    """The superscript REPORT.md prints after a figure with this provenance."""
    return _MARKERS[label]


def weakest(labels: Iterable[str]) -> Provenance:
    """The least trustworthy of several labels (a figure built from parts takes it).

    Raises
    ------
    ValueError
        If a label is not one of :data:`LABELS`, or none is given.
    """
    order: dict[str, int] = {label: i for i, label in enumerate(LABELS)}
    found = list(labels)
    for label in found:
        if label not in order:
            raise ValueError(f"unknown provenance {label!r}; use one of {', '.join(LABELS)}")
    if not found:
        raise ValueError("weakest() needs at least one label")
    return LABELS[max(order[label] for label in found)]


def text_counter(label: str) -> Provenance:
    """A text-token counter's own label (``exact``, ``reconstruction``, ``estimate``…) as provenance."""
    low = label.lower()
    if low.startswith("exact"):
        return "exact"
    if low.startswith("reconstruct"):
        return "reconstructed"
    return "estimated"


def image_rule(label: str) -> Provenance:
    """An image-billing rule's fact label (documented, measured, uncertain…) as provenance."""
    low = label.lower()
    if low in ("documented", "exact", "published", "sourced"):
        return "exact"
    if low.startswith("measured"):
        return "measured"
    if low.startswith("reconstruct"):
        return "reconstructed"
    if low.startswith("estimat"):
        return "estimated"
    # "uncertain" or anything unnamed: the rule is an assumption of ours.
    return "modelled"


def shares(parts: Mapping[str, int]) -> dict[str, float]:
    """Each label's share of a total split by provenance (labels with no part are left out).

    >>> shares({"exact": 30, "modelled": 10})
    {'exact': 0.75, 'modelled': 0.25}
    """
    total = sum(parts.values())
    if total <= 0:
        return {}
    return {k: v / total for k, v in parts.items() if v}
