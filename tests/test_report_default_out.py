"""``snapshot report`` without --out never writes into the current folder (issue 28 item 3).

The quick start run from a clone used to overwrite the committed ``reports/``.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from snapshot.cli import report as report_cli
from snapshot.out_folder import default_report_folder

REPO = Path(__file__).resolve().parents[1]


def _parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    report_cli.register(parser.add_subparsers())
    return parser.parse_args(["report", *argv])


def test_without_out_the_report_goes_to_the_data_folder_not_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Path] = []

    def fake_report(corpus: object, out: Path, **_: object) -> None:
        seen.append(out)
        raise SystemExit(0)  # stop before any work: only where it would write matters

    monkeypatch.chdir(REPO)  # the current folder is a checkout of snapshot
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr("snapshot.report.main.make_report", fake_report)
    with pytest.raises(SystemExit):
        report_cli.cmd_report(_parsed())
    assert seen == [tmp_path / "data" / "snapshot" / "report"]
    assert REPO not in seen[0].parents


def test_out_given_is_used_as_given() -> None:
    assert _parsed("--out", "reports").out == Path("reports")


def test_a_relative_xdg_data_home_is_ignored() -> None:
    home = Path("/home/u")
    assert default_report_folder({"XDG_DATA_HOME": "rel"}, home) == (
        home / ".local" / "share" / "snapshot" / "report"
    )


def test_the_quick_start_names_the_default_folder() -> None:
    readme = REPO / "README.md"
    if not readme.is_file():
        pytest.skip("not a source checkout: README.md is not installed")
    text = readme.read_text(encoding="utf-8")
    quick = text[text.index("## Quick start") :].split("\n## ", 1)[0]
    assert "~/.local/share/snapshot/report/" in quick
    assert re.search(r"snapshot report\n", quick)  # the quick start's command takes no --out
    assert "`reports/REPORT.md`" not in quick
