"""Fuzzing the command line in-process: exit 0 with output, 1 (budget not met), or 2 with one line.

Hypothesis picks a command and fills its argument space from pools of
careless and hostile values: numbers out of range (``-1``, ``0``, ``nan``,
``1e309``), CONV values that are FIFOs, devices, folders, missing files,
overlong names, files with lone surrogates and control characters, and
``store:`` ids. Every case runs through :func:`snapshot.cli.main`, the one
exit path, and must never print a traceback. Repeatable (``derandomize``),
modest (``max_examples``), each case stopped by an alarm if it hangs.
"""

from __future__ import annotations

import json
import os

import pytest
from fuzz_inputs import bounded
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from snapshot import cli
from snapshot.transcript.model import TextBlock, linear
from snapshot.transcript.store import Store

CASE_LIMIT_S = 60

BODY = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 50,
    "messages": [
        {"role": "user", "content": "list the files \x1b]0;title\x07"},
        {"role": "assistant", "content": "a.txt b.txt"},
        {"role": "user", "content": "half an emoji \ud83d"},
        {"role": "assistant", "content": "ok"},
    ],
}


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("arena")
    good = root / "s.json"
    good.write_text(json.dumps(BODY))
    bad_utf8 = root / "bad.json"
    bad_utf8.write_bytes(b'{"messages": [{"role": "user", "content": "\xff\xfe"}]}')
    fifo = root / "fifo.json"
    os.mkfifo(fifo)
    folder = root / "folder"
    folder.mkdir()
    (folder / "fifo.jsonl").symlink_to(fifo)
    ws = root / "ws"
    Store(ws).save(linear("c1", [("m1", "user", [TextBlock("stored \x1b[2J")])]))
    file_out = root / "an-existing-file"
    file_out.write_text("x")
    return {
        "good": str(good),
        "bad_utf8": str(bad_utf8),
        "fifo": str(fifo),
        "folder": str(folder),
        "ws": str(ws),
        "file_out": str(file_out),
        "out": str(root / "out"),
    }


CONV_KEYS = [
    "good",
    "bad_utf8",
    "fifo",
    "folder",
    "/dev/zero",
    "/nonexistent/x",
    "long",
    "c1",
    "store:c1",
    "store:nope",
    "../c1",
    "",
]
NUMBERS = ["-1", "0", "1", "3", "nan", "inf", "1e309", "-5", "abc", "99999999999999999999"]


def _conv(key: str, arena: dict[str, str]) -> str:
    if key == "long":
        return "x" * 300
    return arena.get(key, key)


def _commands(arena: dict[str, str]) -> st.SearchStrategy[list[str]]:
    conv = st.sampled_from(CONV_KEYS).map(lambda k: _conv(k, arena))
    num = st.sampled_from(NUMBERS)
    ws = st.sampled_from([arena["ws"], arena["file_out"], "/proc/nope"])
    label = st.sampled_from(["L0", "bad\x1b[31m", "", "-x", "\ud800"])
    common = st.lists(
        st.sampled_from(
            [
                ["--workspace", arena["ws"]],
                ["--agent", "main"],
                ["--agent", "zz"],
                ["--format", "claude-code-jsonl"],
                ["--format", "nope"],
                ["--select", "a=b"],
                ["--select", "novalue"],
            ]
        ),
        max_size=2,
    ).map(lambda xs: [a for x in xs for a in x])

    def session(cmd: str, extra: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[str]]:
        return st.tuples(conv, common, extra, ws).map(
            lambda t: [cmd, t[0], *t[1], *t[2], "--workspace", t[3]]
        )

    none = st.just([])
    return st.one_of(
        session("tree", st.tuples(num).map(lambda t: ["--width", t[0]])),
        session("checkpoint", st.one_of(none, label.map(lambda x: [x]))),
        session("branch", st.sampled_from([["--to", "m1"], ["--to", "zz"], []])),
        session(
            "fork", st.sampled_from([["--at", "m1"], ["--id", "../x"], ["--id", "y" * 300], []])
        ),
        session("rewind", label.map(lambda x: [x])),
        session("retry", none),
        session("resume", st.tuples(num).map(lambda t: ["--budget", t[0]])),
        session("context", st.sampled_from([["--model", "claude-sonnet-4-5"], ["--model", "zz"]])),
        st.tuples(conv, st.sampled_from(["anthropic", "openai", "gemini", "markdown", "bard"])).map(
            lambda t: ["export", t[0], "--to", t[1]]
        ),
        st.tuples(
            conv,
            st.sampled_from(
                [
                    [],
                    ["--json"],
                    ["--out", arena["file_out"]],
                    ["--out", arena["folder"]],
                    ["--format", "openai-chat"],
                ]
            ),
        ).map(lambda t: ["import", t[0], *t[1]]),
        st.tuples(conv, num, num).map(
            lambda t: [
                "compact",
                t[0],
                "--model",
                "claude-sonnet-4-5",
                "--budget",
                t[1],
                "--keep-turns",
                t[2],
                "--out",
                arena["out"],
            ]
        ),
        st.tuples(conv).map(lambda t: ["read", t[0]]),
        st.sampled_from(
            [
                ["profiles", "--profile", arena["bad_utf8"]],
                ["profiles", "--json"],
                ["cost", "--help"],
                ["nonsense"],
                [],
                ["--debug"],
            ]
        ),
    )


def check(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with bounded(CASE_LIMIT_S):
        code = cli.main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out, (argv, err)
    assert code in (0, 1, 2), (argv, code, err)
    if code == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        # one error line (argparse's usage line is printed only for a bare `snapshot`)
        assert lines and lines[-1].startswith("snapshot"), (argv, err)
        assert sum("error" in line for line in lines) == 1, (argv, err)
    for text in (out, err):
        text.encode("utf-8")  # printable: no lone surrogate reaches the terminal
        assert "\x1b" not in text and "\x07" not in text, (argv, text)


@settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_cli_argument_space(
    data: st.DataObject,
    arena: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")
    check(data.draw(_commands(arena), label="argv"), capsys)


@pytest.mark.parametrize(
    "argv",
    [
        ["import", "--format", "claude-code-jsonl", "/dev/zero"],
        ["tree", "--cols", "0"],
        ["resume", "c1", "--budget", "-5"],
        ["compact", "c1", "--model", "m", "--budget", "10", "--keep-turns", "-1", "--out", "o"],
        ["report", "--limit", "-1"],
        ["report", "--budget-ratio", "nan"],
    ],
)
def test_named_repros_are_one_line(
    argv: list[str], capsys: pytest.CaptureFixture[str], arena: dict[str, str]
) -> None:
    check(argv, capsys)
    assert cli.main(argv) == 2


def test_fifo_inputs_do_not_hang(arena: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ["import", arena["fifo"]],
        ["import", arena["folder"]],
        ["export", arena["fifo"], "--to", "anthropic"],
        ["read", arena["fifo"]],
        ["read", "/dev/zero"],
        ["tree", arena["fifo"], "--workspace", arena["ws"]],
    ):
        check(argv, capsys)
