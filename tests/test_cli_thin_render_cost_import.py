"""The render, cost, import, export, compact and report commands parse and print; the library works.

Each ``run_*`` body makes exactly one call into the library (read from the
source, so a command that grows domain logic again fails here), and the
library functions those bodies call behave as the commands did.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from one_library_call import assert_one_library_call, module_level_library_imports

import snapshot.cli as cli
from snapshot.cli import cost, export, render, report, traffic, transcripts
from snapshot.errors import InputError, TranscriptError
from snapshot.profiles.options import page_geometry, profile_records
from snapshot.profiles.render_files import RenderedFiles, render_files
from snapshot.transcript.discover import walk_as_format
from snapshot.transcript.formats import get_format
from snapshot.transcript.importing import import_conversations

DEMO = Path(__file__).resolve().parents[1] / "snapshot" / "demo" / "transcripts"

# command function -> the one library function its body calls
ONE_CALL = {
    (render, "run_render"): "snapshot.profiles.render_files.render_files",
    (render, "run_read"): "snapshot.rendering.decode.read_page_file",
    (render, "run_fonts"): "snapshot.rendering.font_survey.font_survey",
    (cost, "run_cost"): "snapshot.profiles.quote.quote_request",
    (cost, "run_profiles"): "snapshot.profiles.options.profile_records",
    (transcripts, "run_import"): "snapshot.transcript.importing.import_conversations",
    (export, "cmd_export"): "snapshot.transcript.validate.export_report",
    (report, "cmd_compact"): "snapshot.ladder.compact.compact_to",
    (report, "_run_report"): "snapshot.report.main.report_command",
    (traffic, "cmd_ledger"): "snapshot.proxy.ledger.ledger_report",
    (traffic, "cmd_evidence"): "snapshot.proxy.evidence.evidence_report",
    (cost, "_evidence_lines"): "snapshot.proxy.evidence.evidence_lines",
}


@pytest.mark.parametrize("key", list(ONE_CALL), ids=lambda k: k[1])
def test_command_body_is_one_library_call(key: tuple[object, str]) -> None:
    module, name = key
    func = getattr(module, name)
    assert_one_library_call(func, ONE_CALL[key])


@pytest.mark.parametrize(
    "module", [render, cost, transcripts, export, report, traffic], ids=lambda m: m.__name__
)
def test_module_level_imports_hold_no_library(module: object) -> None:
    assert module_level_library_imports(module) == []


def test_cost_empty_size_is_one_line_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `--size ""` used to fall through to the text branch and raise TypeError
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("snapshot.cli.cost",))
    code = cli.main(["cost", "--model", "claude-opus-5", "--size", ""])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        "snapshot: error: --size must look like 1568x728 (positive width x height), got ''"
    ]


def test_page_geometry_grid_sizes_the_page_but_lines_alone_keeps_it() -> None:
    base = page_geometry(model="claude-opus-5")
    lines = page_geometry(model="claude-opus-5", lines=True)
    assert lines.size == base.size and not lines.flow
    narrow = page_geometry(model="claude-opus-5", cols=20)
    assert narrow.cols == 20 and narrow.size[0] < base.size[0]


def test_page_geometry_refuses_a_many_profile_file_without_model(tmp_path: Path) -> None:
    file = tmp_path / "p.json"
    file.write_text(
        json.dumps([{"model": "lab-a", "base": "gpt-4o"}, {"model": "lab-b", "base": "gpt-4o"}])
    )
    with pytest.raises(InputError, match="holds 2 profiles; pick one with --model"):
        page_geometry(profiles_file=file)
    assert [r["model"] for r in profile_records(profiles_file=file)] == ["lab-a", "lab-b"]


def test_render_files_summary_matches_the_pages_written(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_bytes(b"abc\xff\n" * 50)
    done = render_files(str(src), tmp_path / "out", font="misc-5x8", cols=30, rows=4)
    assert isinstance(done, RenderedFiles)
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == [w.path.name for w in done.written] and len(names) > 1
    summary = done.as_dict()
    assert summary["invalid_utf8"] == 50 and summary["source"] == str(src)
    assert sum(p["chars"] for p in summary["pages"]) == summary["chars"] == 250
    assert done.png_bytes == sum(p.stat().st_size for p in (tmp_path / "out").iterdir())


def test_walk_as_format_skips_hidden_and_reports_unreadable(tmp_path: Path) -> None:
    fmt = get_format("anthropic-messages")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "demo.json").write_bytes((DEMO / "demo-coding.json").read_bytes())
    (tmp_path / "demo.json").write_bytes((DEMO / "demo-coding.json").read_bytes())
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "dangling.json").symlink_to(tmp_path / "gone.json")
    units, failures = walk_as_format(tmp_path, fmt)
    assert units == [tmp_path / "demo.json"]
    assert len(failures) == 1 and failures[0].startswith(
        f"{tmp_path / 'dangling.json'}: cannot be read"
    )


def test_import_conversations_folder_keeps_going_and_writes_out(tmp_path: Path) -> None:
    whole = (DEMO / "demo-coding.json").read_bytes()
    (tmp_path / "good.json").write_bytes(whole)
    (tmp_path / "bad.json").write_bytes(whole[: len(whole) // 2])  # sniffs, fails to load
    target = tmp_path / "convs.json"
    report = import_conversations(tmp_path, format="anthropic-messages", out=target)
    assert [c.id for c in report.conversations] == ["good"]
    assert len(report.failures) == 1 and "bad.json:" in report.failures[0]
    assert [r["id"] for r in report.rows] == ["good"]
    assert json.loads(target.read_text())["conversations"][0]["id"] == "good"


def test_import_conversations_empty_folder_names_the_select(tmp_path: Path) -> None:
    (tmp_path / "good.json").write_bytes((DEMO / "demo-coding.json").read_bytes())
    with pytest.raises(TranscriptError, match="no importable conversations matching --select"):
        import_conversations(tmp_path, select=["id=nothing"])
