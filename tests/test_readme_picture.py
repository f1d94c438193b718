"""README's picture is a real page: drawn by the package from the committed text beside it,
by the command README prints, and reading back to that text."""

from __future__ import annotations

import html
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PICTURE = ROOT / "docs" / "picture"


def _readme() -> str:
    readme = ROOT / "README.md"
    if not readme.is_file() or not (PICTURE / "page.txt").is_file():
        pytest.skip("not a source checkout: README.md and docs/ are not installed")
    return readme.read_text(encoding="utf-8")


def _command() -> list[str]:
    found = re.findall(r"^`(snapshot render docs/picture/page\.txt [^`]*)`$", _readme(), re.M)
    assert len(found) == 1, "README must print the one command that draws its picture"
    return shlex.split(found[0])[1:]


def test_the_committed_picture_is_what_readmes_command_draws(tmp_path: Path) -> None:
    from snapshot.cli import main

    argv = _command()
    out = argv.index("--out")
    assert argv[out + 1] == "docs/picture"
    argv[out + 1] = str(tmp_path)
    argv[argv.index("docs/picture/page.txt")] = str(PICTURE / "page.txt")
    # One worker: the pages are byte-identical for any --workers, and tests stay light.
    assert main([*argv, "--workers", "1"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page-001.png"]
    assert (tmp_path / "page-001.png").read_bytes() == (PICTURE / "page-001.png").read_bytes(), (
        "docs/picture/page-001.png is stale: rerun the command README prints under the picture"
    )


def test_the_page_reads_back_to_the_text_beside_it() -> None:
    from snapshot.rendering.decode import read_page_file

    text = (PICTURE / "page.txt").read_text(encoding="utf-8")
    assert read_page_file(PICTURE / "page-001.png") == text


def test_readme_shows_that_text_beside_the_page() -> None:
    text = (PICTURE / "page.txt").read_text(encoding="utf-8")
    shown = re.search(
        r'<img src="docs/picture/page-001\.png"[^>]*></td><td><pre>\n(.*?)</pre>', _readme(), re.S
    )
    assert shown is not None
    assert shown.group(1) == html.escape(text.rstrip("\n"), quote=False)
