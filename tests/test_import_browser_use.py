"""browser-use AgentHistoryList: each step's state and screenshot, the reply's actions, their results."""

from __future__ import annotations

from typing import Any

import pytest
from format_samples import FORMATS, manifest, needs_samples

from snapshot.transcript.formats import detect, import_path
from snapshot.transcript.model import stats, tool_pairing

SAMPLES = manifest("browser-use")


@needs_samples
@pytest.mark.parametrize("sample", SAMPLES, ids=[s["path"] for s in SAMPLES])
def test_agent_history_samples_match_the_hand_counts(sample: dict[str, Any]) -> None:
    path = FORMATS / sample["path"]
    assert detect(path).name == "browser-use"
    (conv,) = import_path(path)
    want = sample["expected"]
    s = stats(conv.messages)
    assert s.tool_calls == want["actions"]
    assert conv.meta["steps"] == want["steps"]
    assert s.images == want["inline_screenshots"]
    assert conv.meta.get("text_kept", 1.0) >= 0.9, "the import keeps the file's text"
    assert tool_pairing(conv.path()).ok
    states = [m for m in conv.messages if m.meta.get("kind") == "browser_state"]
    assert len(states) == want["steps"]


@needs_samples
def test_results_without_an_action_stay_visible_as_text() -> None:
    (conv,) = import_path(FORMATS / "browser-use" / "pentest-agent-agent_history.json")
    loose = [m for m in conv.messages if m.meta.get("kind") == "action_result"]
    assert len(loose) == 1 and "cannot schedule new futures" in loose[0].text()
    errors = [r for m in conv.messages for r in m.tool_results() if r.is_error]
    assert errors and "Navigation failed" in errors[0].text()
