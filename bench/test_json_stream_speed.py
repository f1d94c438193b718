"""JSONDocument (a session's one JSON document read element by element) against
``json.load`` of the whole file, side by side in one run (issue 9), and against
ijson (yajl2_c backend, when installed: ``pip install ijson``), the streaming
parser issue 23 weighed adopting instead.

The document is a Gemini CLI-shaped chat recording of about
``SNAPSHOT_JSON_STREAM_MB`` (default 50) MB, built in pytest's temp dir: 20,000
messages with tool calls and results, nothing else. Both read every message;
the summary line gives the ratio of their medians. Peak memory of each, in a
fresh process, is in bench/test_import_memory_formats.py's ``whole`` column and
the import figures beside it. ``test_goal`` writes ``reports/bench/json_stream_speed.json``
and asserts the cost the streaming reader was adopted at (issue 9: 1.19x the time of
``json.load``, 2026-11-30), with room for a shared machine: at most 1.5x.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import results
from conftest import STATS, arms, record

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


def test_goal() -> None:
    a = arms("json_document_items", "json_load_whole")
    if "ijson_items" in STATS:
        a["ijson_items"] = STATS["ijson_items"]
    med = {name: x["median_s"] for name, x in a.items()}
    ratio = med["json_document_items"] / med["json_load_whole"]
    ratios = {
        "document_over_json_load": results.figure(
            ratio, "x", "JSONDocument element by element vs json.load of the whole file (medians)"
        )
    }
    if "ijson_items" in med:
        ratios["document_over_ijson"] = results.figure(
            med["json_document_items"] / med["ijson_items"],
            "x",
            "JSONDocument vs ijson yajl2_c (medians)",
        )
    record = results.finish(
        results.bench_name(__file__),
        {"arms": a, "ratios": ratios, "params": {"document_mb": MB, "messages": 20_000}},
        {
            "json_load_ratio": results.Goal(
                ratio, "<=", 1.5, "x", "issue 9's 1.19x of json.load, room for a shared machine"
            )
        },
    )
    results.check(record)
