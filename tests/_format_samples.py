"""Shared by the format-sample tests: where ../shared/corpus/formats is, and its MANIFEST entries."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
FORMATS = Path(os.environ.get("SNAPSHOT_FORMATS", REPO.parent / "shared" / "corpus" / "formats"))
needs_samples = pytest.mark.skipif(
    not (FORMATS / "MANIFEST.json").is_file(),
    reason=f"format samples not found at {FORMATS} (set SNAPSHOT_FORMATS)",
)


def samples(fmt: str) -> list[dict[str, Any]]:
    """The MANIFEST entries of one format (empty without the samples)."""
    if not (FORMATS / "MANIFEST.json").is_file():
        return []
    files = json.loads((FORMATS / "MANIFEST.json").read_text(encoding="utf-8"))["files"]
    return [f for f in files if f["format"] == fmt]


def within(got: int, want: int, share: float = 0.05) -> bool:
    """``got`` within ``share`` of the hand count ``want`` (exact when small)."""
    return abs(got - want) <= max(share * want, 0)
