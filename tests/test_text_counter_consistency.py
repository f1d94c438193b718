"""One text counter: context, compact and report give one count for one conversation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import snapshot.cli as cli
from snapshot.ladder.compact import compact
from snapshot.ladder.target import target_for
from snapshot.profiles import count_text_tokens
from snapshot.report.matrix import ReadCache, Settings, _Run
from snapshot.report.sources import demo_sources


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "gpt-5.4", "gemini-3.8-flash"])
def test_context_compact_and_report_agree(
    model: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source = next(s for s in demo_sources() if "coding" in s.id)
    conv = source.conversation
    monkeypatch.chdir(tmp_path)
    from snapshot.transcript.store import Store

    Store(tmp_path / ".snapshot").save(conv)
    assert cli.main(["context", conv.id, "--agent", conv.agent, "--model", model, "--json"]) == 0
    context = json.loads(capsys.readouterr().out)

    target = target_for(model)
    expected = target.tokens(conv.path())
    assert context["total_tokens"] == expected
    assert context["text_counter"] == target.text_counter
    outcome = compact(conv, model, budget=10**9)
    assert outcome.result.tokens_before == expected
    report = _Run(source, target, Settings(), [], ReadCache(None))
    assert report.before == expected


def test_the_counter_labels_per_provider() -> None:
    assert count_text_tokens("gpt-5.4", "some text").kind == "exact"
    assert count_text_tokens("claude-opus-4-8", "some text").kind == "reconstruction"
    assert count_text_tokens("gemini-3.8-flash", "some text").kind == "estimate"
    # The reconstruction is the text's own count (no per-message frame).
    assert count_text_tokens("claude-opus-4-8", "").tokens == 0
