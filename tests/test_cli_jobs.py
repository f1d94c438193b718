"""The command line by job (issue 42 item 5).

``snapshot report`` is the benchmark, ``snapshot report mine PATH…`` the same
measurement on your own sessions, ``snapshot ledger DIR`` and ``snapshot evidence
FILE`` what the proxy measured on live traffic; ``cost``/``profiles`` take probe
records as ``--probes DIR`` and canary records as ``--evidence FILE``. Each old
spelling still works and says its new one in one line on stderr; each command's
``--help`` shows its own options only; a mistake is one line, exit 2, naming what
to do.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from snapshot.cli import build_parser, main
from snapshot.cli import report as report_cli
from snapshot.proxy.evidence import SCHEMA as CANARY_SCHEMA
from snapshot.proxy.ledger import Ledger

NOTE = "snapshot: note: "


def _help(capsys: pytest.CaptureFixture[str], *command: str) -> str:
    assert main([*command, "--help"]) == 0
    return capsys.readouterr().out


def _flags(help_text: str) -> set[str]:
    """The options the help lists (its options section), not flags its prose mentions."""
    return set(re.findall(r"^  (?:-\w, )?(--[\w-]+)", help_text, re.M))


def _notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith(NOTE)]


def _ledger(folder: Path) -> Path:
    Ledger(folder).write(
        {
            "model": "gpt-5.5",
            "status": 200,
            "plan": {
                "compacted": True,
                "tokens_before": {"tokens": 900, "label": "exact"},
                "tokens_after": {"tokens": 300, "label": "exact"},
            },
            "usage": {"input": 280, "cache_read": 0, "cache_write": 0, "output": 10},
        }
    )
    return folder


def _canaries(path: Path) -> Path:
    record = {
        "schema": CANARY_SCHEMA,
        "model": "claude-sonnet-5-5",
        "reader": "claude-sonnet-5-5-20261101",
        "layout": "snap8x16 1-bit",
        "chars_per_kpx": 7.8,
        "chars": 1200,
        "char_accuracy": 0.99,
        "hard_tokens": 10,
        "hard_tokens_exact": 10,
        "dollars": {"total": 0.01},
    }
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


# -- each job's --help shows its own options ----------------------------------------------


def test_report_help_is_the_benchmarks(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys, "report")
    flags = _flags(text)
    assert {"--corpus", "--readme", "--probes", "--out", "--model"} <= flags
    # The jobs now apart are named, not offered as flags.
    assert not flags & {"--ledger", "--evidence", "--discover", "--show-needles"}
    assert "report mine PATH…" in text and "snapshot ledger" in text


def test_report_mine_help_is_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys, "report", "mine")
    assert text.startswith("usage: snapshot report mine ")
    flags = _flags(text)
    assert {"--discover", "--show-needles", "--out", "--model", "--workers"} <= flags
    assert not flags & {"--corpus", "--readme", "--ledger", "--evidence"}
    assert "PATH" in text


@pytest.mark.parametrize(("command", "positional"), [("ledger", "DIR"), ("evidence", "FILE")])
def test_traffic_commands_take_one_path_and_out(
    capsys: pytest.CaptureFixture[str], command: str, positional: str
) -> None:
    text = _help(capsys, command)
    assert _flags(text) == {"--help", "--out"}
    assert f"usage: snapshot {command} [-h] [--out OUT] {positional}" in text


@pytest.mark.parametrize("command", ["cost", "profiles"])
def test_probes_and_evidence_are_two_flags(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    text = _help(capsys, command)
    assert "--probes DIR" in text and "--evidence FILE" in text


def test_the_top_level_help_lists_the_new_commands(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys)
    assert "\n    ledger " in text and "\n    evidence " in text


# -- the new spellings --------------------------------------------------------------------


def test_ledger_writes_ledger_md(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["ledger", str(_ledger(tmp_path / "ledger")), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    text = (out / "LEDGER.md").read_text(encoding="utf-8")
    assert "gpt-5.5" in text and text in captured.out
    assert not _notes(captured.err)
    assert sorted(p.name for p in out.iterdir()) == ["LEDGER.md"]


def test_evidence_writes_evidence_md(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["evidence", str(_canaries(tmp_path / "e.jsonl")), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    text = (out / "EVIDENCE.md").read_text(encoding="utf-8")
    assert "Model evidence from your own traffic" in text and "snap8x16 1-bit" in text
    assert text in captured.out and not _notes(captured.err)


def test_cost_takes_canary_records_as_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    canaries = str(_canaries(tmp_path / "e.jsonl"))
    argv = ["cost", "--model", "claude-sonnet-5-5", "--size", "1000x1000", "--evidence", canaries]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "tokens" in out.splitlines()[0] and "-- claude-sonnet-5-5 read by" in out
    assert not _notes(err)
    assert main([*argv, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["tokens"] > 0 and any("snap8x16 1-bit" in x for x in record["traffic_evidence"])


def test_profiles_takes_probe_records_as_probes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["profiles", "--model", "gpt-5.5", "--json", "--probes", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["model"] == "gpt-5.5" and not _notes(err)


def _parsed(argv: list[str]) -> argparse.Namespace:
    return build_parser().parse_args(argv)


def test_report_mine_reads_paths_and_keeps_options_given_before_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = _parsed(["report", "--workers", "3", "mine", "a.jsonl", "b/", "--limit", "2"])
    assert args.func is report_cli.cmd_report_mine
    assert (args.paths, args.workers, args.limit) == (["a.jsonl", "b/"], 3, 2)
    assert not _notes(capsys.readouterr().err)
    bench = _parsed(["report", "--limit", "1"])
    assert bench.func is report_cli.cmd_report and bench.job is None and bench.paths == []


# -- the old spellings: they work, with one line naming the new one --------------------------


def test_old_report_ledger(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    argv = ["report", "--ledger", str(_ledger(tmp_path / "ledger")), "--out", str(out)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert _notes(err) == [
        f"{NOTE}`snapshot report --ledger DIR` is now spelled `snapshot ledger DIR` "
        "(the old spelling still works)"
    ]
    assert (out / "LEDGER.md").is_file()


def test_old_report_evidence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    argv = ["report", "--evidence", str(_canaries(tmp_path / "e.jsonl")), "--out", str(out)]
    assert main(argv) == 0
    notes = _notes(capsys.readouterr().err)
    assert len(notes) == 1 and "`snapshot evidence FILE`" in notes[0]
    assert (out / "EVIDENCE.md").is_file()


def _run_captured(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> argparse.Namespace:
    """Run ``argv`` through main with the long measurement replaced: the args it got."""
    seen: list[argparse.Namespace] = []

    def run(args: argparse.Namespace) -> int:
        seen.append(args)
        return 0

    monkeypatch.setattr(report_cli, "_run_report", run)
    assert main(argv) == 0
    (args,) = seen
    return args


@pytest.mark.parametrize(
    ("argv", "paths", "discover"),
    [
        (["report", "s.jsonl", "--out", "r"], ["s.jsonl"], False),
        (["report", "--out", "r", "a/", "b.json", "--workers", "1"], ["a/", "b.json"], False),
        (["report", "--discover", "--out", "r"], [], True),
    ],
)
def test_old_report_on_your_own_sessions(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    paths: list[str],
    discover: bool,
) -> None:
    args = _run_captured(monkeypatch, argv)
    assert (args.paths, args.discover, args.out) == (paths, discover, Path("r"))
    assert args.corpus is None and args.readme is None
    notes = _notes(capsys.readouterr().err)
    assert len(notes) == 1 and "`snapshot report mine " in notes[0], notes


def test_old_report_show_needles_before_the_paths(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _run_captured(monkeypatch, ["report", "--show-needles", "s.jsonl"])
    assert args.show_needles and args.paths == ["s.jsonl"]
    notes = _notes(capsys.readouterr().err)
    assert any("`snapshot report mine --show-needles`" in n for n in notes)
    assert any("`snapshot report mine PATH…`" in n for n in notes)


def test_old_cost_evidence_folder_is_probes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["cost", "--model", "gpt-6.1-sol", "--size", "1024x1024", "--json"]
    assert main([*argv, "--evidence", str(tmp_path)]) == 0
    old, err = capsys.readouterr()
    assert _notes(err) == [
        f"{NOTE}`snapshot cost --evidence DIR` is now spelled `snapshot cost --probes DIR` "
        "(the old spelling still works)"
    ]
    assert main([*argv, "--probes", str(tmp_path)]) == 0
    new, err = capsys.readouterr()
    assert json.loads(old) == json.loads(new) and not _notes(err)


def test_old_profiles_evidence_folder_is_probes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["profiles", "--model", "gpt-5.5", "--json", "--evidence", f"{tmp_path}/"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["model"] == "gpt-5.5"
    assert len(_notes(err)) == 1 and "`snapshot profiles --probes DIR`" in err


# -- mistakes: one line, exit 2, what to do ------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["report", "mine"], "give PATH… (transcript files, folders or globs"),
        (["report", "mine", "s.jsonl", "--readme", "README.md"], "`snapshot report --readme …`"),
        (["report", "mine", "s.jsonl", "--corpus", "m.json"], "`snapshot report --corpus …`"),
        (["report", "--no-such-flag"], "(see snapshot report --help)"),
        (["report", "mine", "s", "--no-such-flag"], "(see snapshot report mine --help)"),
        (["ledger"], "required: DIR (see snapshot ledger --help)"),
        (["evidence"], "required: FILE (see snapshot evidence --help)"),
    ],
)
def test_a_mistake_is_one_line_that_says_what_to_do(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and says in err, err


def test_probes_given_a_file_says_where_a_file_goes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = _canaries(tmp_path / "e.jsonl")
    assert main(["cost", "--model", "gpt-5.5", "--size", "10x10", "--probes", str(file)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(file) in err[0] and "goes to --evidence" in err[0]


def test_a_missing_ledger_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ledger", str(tmp_path / "none"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(tmp_path / "none") in err[0]
