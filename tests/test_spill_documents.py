"""Sessions written as one JSON document import in bounded memory (issue 9).

Each importer reads its document's long list one element at a time
(:class:`~snapshot.transcript.formats._json_stream.JSONDocument`) and, above
``SPILL_BYTES``, keeps the messages on disk. On real samples, with spilling
forced and the file read in 7-byte chunks, ``snapshot import --json`` writes the
same summary and the same bytes as the import held in memory.
"""

from __future__ import annotations

import pytest
from test_spill import _corpus_case, _held_then_spilled

from snapshot.transcript.formats import _json_stream

# Relative to the corpus; every sample of each whole-document session format.
DOCUMENTS = [
    "formats/gemini-cli/kvsankar-gemini-session-01.json",
    *(
        f"formats/cline-roo/{task}/api_conversation_history.json"
        for task in (
            "cline-1759396187528",
            "cline-temp-api-log7",
            "roo-2025-03-187700e7",
            "roo-natural-already-condensed",
            "roo-natural-mini-uncondensed",
        )
    ),
    "formats/continue/developer-525473ea.json",
    "formats/continue/developer-67733f7c.json",
    "formats/browser-use/browser-use-2024-11-AgentHistoryList.json",
    "formats/browser-use/pentest-agent-agent_history.json",
]


@pytest.fixture(autouse=True)
def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")


@pytest.mark.parametrize("name", DOCUMENTS)
def test_a_document_session_imports_the_same_spilled_or_held(
    name: str, tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    held, spilled = _held_then_spilled(
        _corpus_case(name),
        tmp_path,
        monkeypatch,
        capsys,
        small_chunks=(_json_stream, "CHUNK_BYTES", 7),
    )
    assert sum(len(c.messages) for c in spilled) >= 2
    assert [c.tip for c in spilled] == [c.tip for c in held]
