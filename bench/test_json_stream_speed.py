"""JSONDocument (a session's one JSON document read element by element) against
``json.load`` of the whole file, side by side in one run (issue 9), and against
ijson (yajl2_c backend, when installed: ``pip install ijson``), the streaming
parser issue 23 weighed adopting instead.

The document is a Gemini CLI-shaped chat recording of about
``SNAPSHOT_JSON_STREAM_MB`` (default 50) MB, built in pytest's temp dir: 20,000
messages with tool calls and results, nothing else. Both read every message;
the summary line gives the ratio of their medians. Peak memory of each, in a
fresh process, is in bench/test_import_memory_formats.py's ``whole`` column and
the import figures beside it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import record

from snapshot.transcript.formats._common import Warnings
from snapshot.transcript.formats._json_stream import JSONDocument

MB = int(os.environ.get("SNAPSHOT_JSON_STREAM_MB", "50"))


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("json-stream") / "session.json"
    n = 20_000
    size = MB * 1_000_000 // n  # bytes of text a message
    word = "lorem ipsum dolor sit amet "
    text = (word * (size // (2 * len(word)) + 1))[: size // 2]
    messages = [
        {
            "id": f"m{i}",
            "type": "gemini" if i % 2 else "user",
            "content": text,
            "toolCalls": [{"id": f"c{i}", "name": "run", "args": {"n": i}, "result": text}],
        }
        for i in range(n)
    ]
    with path.open("w", encoding="utf-8") as fh:
        json.dump({"sessionId": "s", "projectHash": "h", "messages": messages}, fh)
    return path


@pytest.mark.benchmark(group="json-document")
def test_json_document_items(benchmark: Any, document: Path) -> None:
    def run() -> int:
        return sum(1 for _ in JSONDocument(document, "messages", Warnings()).items())

    assert record(benchmark, "json_document_items", run, rounds=3, iterations=1) == 20_000


@pytest.mark.benchmark(group="json-document")
def test_json_load_whole(benchmark: Any, document: Path) -> None:
    def run() -> int:
        with document.open("rb") as fh:
            return len(json.load(fh)["messages"])

    assert record(benchmark, "json_load_whole", run, rounds=3, iterations=1) == 20_000


@pytest.mark.benchmark(group="json-document")
def test_ijson_items(benchmark: Any, document: Path) -> None:
    ijson = pytest.importorskip("ijson", reason="ijson is not installed (pip install ijson)")

    def run() -> int:
        with document.open("rb") as fh:
            return sum(1 for _ in ijson.items(fh, "messages.item", use_float=True))

    assert record(benchmark, "ijson_items", run, rounds=3, iterations=1) == 20_000
