"""Kill -9 of a real ``snapshot proxy`` process mid-stream: the previous turn stays intact, no
half turn is stored, and a restarted proxy continues the same conversation (the
acknowledged-turn check of ``tests/proxy_process.py``; 50+ kills in
``bench/test_proxy_kill.py``). The upstream is ``fake_upstream``, an offline stand-in."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("aiohttp")

from fake_upstream import FakeUpstream
from proxy_process import kill_rounds


@pytest.mark.slow
def test_kill_during_streams_loses_no_turn(tmp_path: Path) -> None:
    with FakeUpstream(
        chunk_delay=0.05, validate=False, reply=lambda _a, _b: {"text": "x" * 120}
    ) as fake:
        report = kill_rounds(fake.url, tmp_path, 2, reply_text="x" * 120)
    assert report.kills == 2
    assert report.lost_acknowledged_turns == 0, report.notes
    assert report.half_turns == 0, report.notes
    assert report.unreadable_stores == 0, report.notes
