"""Shared by the tests on the second batch of real transcripts (issue 26).

The samples live in ``../shared/corpus/formats-2026-12`` beside the repository
(or ``$SNAPSHOT_CORPUS/formats-2026-12``), listed with their sources in
``MANIFEST.json``. Without them the tests skip, saying why.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _root() -> Path:
    env = os.environ.get("SNAPSHOT_CORPUS")
    base = Path(env) if env else REPO.parent / "shared" / "corpus"
    return base / "formats-2026-12"


BATCH2 = _root()
HAVE_BATCH2 = (BATCH2 / "MANIFEST.json").is_file()
SKIP_REASON = (
    f"second batch of format samples not found at {BATCH2}: put it at "
    "../shared/corpus/formats-2026-12 beside the repository or set SNAPSHOT_CORPUS"
)
needs_batch2 = pytest.mark.skipif(not HAVE_BATCH2, reason=SKIP_REASON)


def sample2(relative: str) -> Path:
    """A file (or folder) of the second batch; skips the test when it is absent."""
    path = BATCH2 / relative
    if not path.exists():
        pytest.skip(f"{path} not found ({SKIP_REASON})")
    return path
