"""What the committed whole-page readings say of each profile's layout at its real page.

The lab measures (:mod:`snapshot.legibility.weakest`, from ``reports/frontier-points.jsonl``)
and writes its verdicts to ``readability.json`` beside this module, which ships in the
wheel; the profiles only read that file, so a pip install shows the same evidence as a
checkout and the profiles never import the lab. ``tests/test_layers.py`` checks the file
is what the lab makes of the committed readings.

>>> readability_of("no-such-model")["measured"]
False
>>> default_choice("gemini-3.8-flash")["kind"]
'model evidence'
>>> key = record_key({"font": "snap8x16", "page": [768, 1568]})
>>> key
'snap8x16 1-bit gap 0x0 768x1568'
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from snapshot.readability.layout import layout_key

__all__ = [
    "VERDICTS_FILE",
    "default_choice",
    "readability_of",
    "record_key",
    "verdicts",
    "weakest_reader_column",
]

#: The lab's verdicts, as committed (``snapshot.legibility.weakest.write_verdicts``).
VERDICTS_FILE = Path(__file__).with_name("readability.json")


def verdicts() -> dict[str, Any]:
    """The verdicts file (:data:`VERDICTS_FILE`) as a dict (``{"by_model": …, "by_layout": …}``);
    empty tables when it is absent."""
    return _load(VERDICTS_FILE)


@functools.cache
def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"by_model": {}, "by_layout": {}, "defaults": {}}
    return data if isinstance(data, dict) else {"by_model": {}, "by_layout": {}, "defaults": {}}


def record_key(record: Mapping[str, Any]) -> str:
    """The layout a profile record (``Profile.as_dict()``) draws on its page, as readings
    are keyed."""
    w, h = record["page"]
    return layout_key(
        str(record["font"]),
        record.get("font_size"),
        str(record.get("shade") or "1-bit"),
        col_gap=int(record.get("col_gap") or 0),
        row_gap=int(record.get("row_gap") or 0),
        page=(int(w), int(h)),
        ink=str(record.get("ink") or "black-on-white"),
    )


def readability_of(model: str) -> dict[str, Any]:
    """The weakest whole-page reader of ``model``'s default layout at its real page, as the
    lab's committed verdict states it; ``{"measured": False, "why": …}`` where none does."""
    found = verdicts()["by_model"].get(model)
    if found is None:
        return {"measured": False, "why": f"{model}: no committed reading of its default page"}
    return dict(found)


def default_choice(model: str) -> dict[str, Any]:
    """What ``model``'s default layout rests on, as the lab's committed verdict states it
    (:func:`snapshot.profiles.default_rule.choose_default` on the committed readings and
    model evidence): ``layout``, ``kind`` (``"readers"``, ``"model evidence"`` or
    ``"none"``), ``rests_on`` (the line ``snapshot profiles`` prints) and ``passed_over``."""
    found = verdicts().get("defaults", {}).get(model)
    if found is None:
        return {
            "layout": None,
            "kind": "none",
            "rests_on": f"no evidence: {model} has no committed verdict",
            "passed_over": [],
        }
    return dict(found)


def weakest_reader_column(records: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Per profile record, the weakest reader's native figure at its layout and page
    (``"0.603 easyocr-en on hardlines"``, ``✓`` when readable); records whose layout
    nobody read are left out."""
    by_layout = verdicts()["by_layout"]
    out: dict[str, str] = {}
    for r in records:
        cell = by_layout.get(record_key(r))
        if cell is not None:
            out[str(r["model"])] = str(cell)
    return out
