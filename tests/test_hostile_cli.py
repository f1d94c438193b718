"""The one exit path: bad input is one line naming the file, exit 2; --debug adds the traceback."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from snapshot import cli
from snapshot.cli.argtypes import at_least, finite_float
from snapshot.cli.terminal import safe_line

BODY = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_os_errors_name_the_file_and_what_to_do(tmp_path: Path) -> None:
    exc = FileExistsError(errno.EEXIST, "File exists", str(tmp_path / "f"))
    assert (
        cli.error_line(exc)
        == f"{tmp_path / 'f'}: already exists and is not a folder; give another --out"
    )
    assert cli.error_line(OSError(errno.ENOSPC, "No space left on device"), "x.json").startswith(
        "x.json: no space left"
    )
    assert cli.error_line(MemoryError(), "big.jsonl").startswith("big.jsonl: too large")
    assert (
        cli.error_line(ValueError("bad\nthing \x1b[2J"), "a.json") == "a.json: bad thing \\x1b[2J"
    )


@pytest.mark.parametrize(
    "exc",
    [
        OSError(errno.EIO, "Input/output error", "t.json"),
        UnicodeEncodeError("utf-8", "\ud83d", 0, 1, "x"),
        MemoryError(),
        ValueError("nope"),
        RecursionError(),
    ],
)
def test_every_user_error_kind_is_one_line_exit_2(
    exc: BaseException,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    import snapshot.cli.export as export_cli

    def boom(args: object) -> int:
        raise exc

    body = tmp_path / "t.json"
    body.write_text(json.dumps(BODY))
    monkeypatch.setattr(export_cli, "cmd_export", boom)
    code, _, err = run(capsys, "export", str(body), "--to", "anthropic")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("snapshot: error: "), err
    code, _, err = run(capsys, "--debug", "export", str(body), "--to", "anthropic")
    assert (
        code == 2
        and "Traceback" in err
        and err.strip().splitlines()[-1].startswith("snapshot: error")
    )


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ["tree"],
        ["resume", "c", "--budget", "-1"],
        ["report", "--budget-ratio", "nan"],
        ["compact", "c", "--model", "m", "--budget", "5", "--keep-turns", "-1", "--out", "o"],
        ["tree", "c", "--bogus"],
    ):
        code, _, err = run(capsys, *argv)
        assert code == 2 and len(err.strip().splitlines()) == 1, (argv, err)


def test_argument_types_name_the_range() -> None:
    import argparse

    with pytest.raises(argparse.ArgumentTypeError, match="less than 1"):
        at_least(1)("0")
    with pytest.raises(argparse.ArgumentTypeError, match="not a finite number"):
        finite_float(0, 1)("inf")
    with pytest.raises(argparse.ArgumentTypeError, match=r"outside 0\.\.1"):
        finite_float(0, 1)("1.5")
    assert finite_float(0, 1)("0.3") == 0.3


def test_safe_line_escapes_what_a_terminal_would_obey() -> None:
    assert safe_line("\x1b]52;c;ZXZpbA==\x07") == "\\x1b]52;c;ZXZpbA==\\x07"
    assert safe_line("a\u202eb") == "a\\u202eb"  # right-to-left override
    assert safe_line("emoji half \ud83d").encode("utf-8")
    assert safe_line("plain ünïcode ✓") == "plain ünïcode ✓"


def test_forcing_the_wrong_format_says_so(tmp_path: Path) -> None:
    from snapshot.transcript.formats import WrongFormatError, import_path

    body = {
        "model": "claude-x",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "b", "input": {}}],
            },
        ],
    }
    p = tmp_path / "body.json"
    p.write_text(json.dumps(body))
    # A forced format that reads none of the file's tool calls is an error naming the
    # right one (issue 26), no longer a warning beside a conversation without them.
    with pytest.raises(WrongFormatError, match="looks like anthropic-messages"):
        import_path(p, format="openai-chat")
    (right,) = import_path(p, format="anthropic-messages")
    assert not any("looks like" in w for w in right.warnings)
