"""export/compact of a session its harness compacted send its live context unless
--whole-history; compact --save stores only a result that met its budget unless
--save-anyway; the report says which segment it measured (issue 39, fixtures built here)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import issue39_builders as builders

from snapshot.cli import main
from snapshot.transcript.formats import import_path

MODEL = "claude-sonnet-4-6"


@pytest.mark.parametrize(
    "name", ["claude-code-compacted-twice.jsonl", "codex-compacted-twice.jsonl"]
)
def test_export_sends_the_live_context_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    path = builders.write(tmp_path, name)
    assert main(["export", str(path), "--to", "anthropic", "--workspace", str(tmp_path / "w")]) == 0
    out = capsys.readouterr()
    body = json.loads(out.out)
    assert "Summary 1" not in out.out and "the last of 2 compaction(s)" in out.err
    assert (
        main(
            [
                "export",
                str(path),
                "--to",
                "anthropic",
                "--whole-history",
                "--workspace",
                str(tmp_path / "w"),
            ]
        )
        == 0
    )
    whole = capsys.readouterr()
    assert "Summary 1" in whole.out and "whole history: 2 compaction(s)" in whole.err
    assert len(json.loads(whole.out)["messages"]) > len(body["messages"])


def test_compact_records_which_history_it_compacted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = builders.write(tmp_path, "claude-code-compacted-twice.jsonl")
    common = ["compact", str(path), "--model", MODEL, "--budget", "100000", "--json"]
    assert main([*common, "--out", str(tmp_path / "a"), "--workspace", str(tmp_path / "w")]) == 0
    live = json.loads(capsys.readouterr().out)
    assert live["history"]["whole"] is False and live["history"]["compactions"] == 2
    code = main(
        [
            *common,
            "--out",
            str(tmp_path / "b"),
            "--whole-history",
            "--workspace",
            str(tmp_path / "w"),
        ]
    )
    whole = json.loads(capsys.readouterr().out)
    assert code == 0 and whole["history"]["whole"] is True
    assert whole["tokens_before"] > live["tokens_before"]


def test_compact_save_stores_only_a_result_that_met_its_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = builders.write(tmp_path, "claude-code-queued.jsonl")
    ws = str(tmp_path / "w")
    tiny = ["compact", str(path), "--model", MODEL, "--budget", "5", "--json", "--workspace", ws]
    code = main([*tiny, "--out", str(tmp_path / "a"), "--save"])
    missed = json.loads(capsys.readouterr().out)
    assert code == 1 and not missed["fits"]
    assert missed["saved"]["stored"] is False and "--save-anyway" in missed["saved"]["reason"]
    code = main([*tiny, "--out", str(tmp_path / "b"), "--save", "--save-anyway"])
    anyway = json.loads(capsys.readouterr().out)
    assert code == 1 and anyway["saved"]["stored"] and anyway["saved"]["missed_budget"] is True


def test_the_report_view_says_which_segment_it_measured(tmp_path: Path) -> None:
    from snapshot.report.sources import benchmark_view

    for name in ("claude-code-compacted-twice.jsonl", "codex-compacted-twice.jsonl"):
        [conv] = import_path(builders.write(tmp_path, name))
        view = benchmark_view(conv)
        assert view.meta["measured"].startswith(
            "segment 1 of 3 (up to the first of 2 compaction(s))"
        )
        assert not any(m.meta.get("kind") == "compact_boundary" for m in view.path())
