"""What the text-kept check costs: ``import_path`` against the importer's ``load`` alone.

Both read the same real pi session (2.4 MB, 990 messages) from
``../shared/corpus/formats``; ``import_path`` also detects the format and
measures how much of the file's text the conversations kept. The ratio prints
at the end of the run (conftest.py); no timing assertions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import record, shared_dir

from snapshot.transcript.formats import ImportOptions, get_format, import_path


def _session() -> Path:
    base = shared_dir()
    path = (
        None
        if base is None
        else base / "corpus" / "formats" / "pi" / "pi-mono-before-compaction.jsonl"
    )
    if path is None or not path.is_file():
        pytest.skip("the pi sample of ../shared/corpus/formats is not there (set SNAPSHOT_SHARED)")
    return path


@pytest.mark.benchmark(group="import")
def test_import_checked(benchmark: Any) -> None:
    path = _session()
    convs = record(benchmark, "import_checked", lambda: import_path(path))
    assert convs[0].meta["text_kept"] >= 0.9


@pytest.mark.benchmark(group="import")
def test_import_load_only(benchmark: Any) -> None:
    path = _session()
    fmt = get_format("pi")
    convs = record(benchmark, "import_load_only", lambda: fmt.load(path, ImportOptions()))
    assert len(convs[0].messages) > 900
