"""The ledger reader counts every bad line but a torn last one (shown in LEDGER.md), and
an upstream error body too large to pass whole is replaced, never truncated (issue 39)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from snapshot.proxy.app import MAX_ERROR_BYTES, read_capped
from snapshot.proxy.ledger import FILE, SCHEMA, read_ledger, read_ledger_lines, summarize


def _ledger(tmp_path: Path, lines: list[str]) -> Path:
    (tmp_path / FILE).write_text("".join(lines), encoding="utf-8")
    return tmp_path


def _rec(model: str) -> str:
    return json.dumps({"schema": SCHEMA, "model": model, "usage": {"input": 10}}) + "\n"


def test_a_torn_last_line_is_skipped_and_not_counted(tmp_path: Path) -> None:
    folder = _ledger(tmp_path, [_rec("m"), '{"schema": "sn'])
    read = read_ledger_lines(folder)
    assert len(read.records) == 1 and read.torn and read.bad == {}
    assert summarize(folder).unread == ""


def test_bad_lines_elsewhere_are_counted_and_shown_in_ledger_md(tmp_path: Path) -> None:
    lines = [_rec("m"), "garbage\n", json.dumps({"schema": "other/1"}) + "\n", "[1]\n", _rec("m")]
    folder = _ledger(tmp_path, lines)
    read = read_ledger_lines(folder)
    assert len(read.records) == 2 and not read.torn
    assert read.bad == {
        "not JSON": 1,
        "not a JSON object": 1,
        f"schema 'other/1', not {SCHEMA!r}": 1,
    }
    assert read_ledger(folder) == read.records
    text = summarize(folder).markdown()
    assert "**3 ledger line(s) were not read**" in text


def test_a_bad_last_line_ending_in_a_newline_is_not_torn(tmp_path: Path) -> None:
    read = read_ledger_lines(_ledger(tmp_path, [_rec("m"), "oops\n"]))
    assert not read.torn and read.bad == {"not JSON": 1}


class _Stream:
    """A reader that hands out at most ``step`` bytes per read, as a socket does."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.step = data, step

    async def read(self, n: int) -> bytes:
        out, self.data = self.data[: min(n, self.step)], self.data[min(n, self.step) :]
        return out


def test_read_capped_says_when_the_body_did_not_fit() -> None:
    small = asyncio.run(read_capped(_Stream(b"x" * 10, 3), 10))
    assert small == (b"x" * 10, True)
    raw, whole = asyncio.run(
        read_capped(_Stream(b"y" * (MAX_ERROR_BYTES + 5), 65536), MAX_ERROR_BYTES)
    )
    assert not whole and len(raw) == MAX_ERROR_BYTES
