"""Every sample of the second batch (../shared/corpus/formats-2026-12) imports, is
detected as its MANIFEST format, and exports valid to all four APIs (issue 26).

The MANIFEST holds hand counts only for the opencode database (56 messages;
the issue counts 60 tool calls); the other entries are checked for what the
issue asks of them: detection, no dropped sub-agent, valid exports.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from formats_batch2 import BATCH2, HAVE_BATCH2, needs_batch2

from snapshot.transcript.formats import detect, import_path
from snapshot.transcript.validate import SHAPES, export_checked

pytestmark = needs_batch2

# MANIFEST format names → importer names, where they differ.
IMPORTER_OF = {
    "claude-code": "claude-code-jsonl",
    "claude-agent-sdk": "claude-code-jsonl",
    "gemini-cli": "gemini-cli-chat",
    "aider-md": "aider-chat-md",
    "codex-rollout": "codex-rollout-jsonl",
}


def _entries() -> list[dict[str, Any]]:
    if not HAVE_BATCH2:
        return []
    files = json.loads((BATCH2 / "MANIFEST.json").read_text(encoding="utf-8"))["files"]
    return [e for e in files if (BATCH2 / e["file"]).exists()]


ENTRIES = _entries()


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_each_sample_is_detected_as_its_manifest_format(entry: dict[str, Any]) -> None:
    path = BATCH2 / entry["file"]
    assert detect(path).name == IMPORTER_OF.get(entry["format"], entry["format"])


@pytest.mark.slow
@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_each_sample_exports_valid_to_every_api(entry: dict[str, Any]) -> None:
    path = BATCH2 / entry["file"]
    for conv in import_path(path):
        for shape in SHAPES:
            _, checked = export_checked(conv, shape)
            assert checked.ok, (conv.agent, shape, [str(p) for p in checked.problems[:3]])


def test_the_opencode_hand_counts() -> None:
    entry = next(e for e in ENTRIES if e["format"] == "opencode-go-sqlite")
    assert "56 messages" in entry["notes"]
    (conv,) = import_path(Path(BATCH2 / entry["file"]))
    assert len(conv.path()) == 56
    assert sum(len(m.tool_calls()) for m in conv.path()) == 60
