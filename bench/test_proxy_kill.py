"""kill -9 of a real ``snapshot proxy`` during streams, ``SNAPSHOT_KILLS`` times (default 50):
0 lost acknowledged turns, 0 half turns, 0 unreadable stores. Upstream: ``tests/fake_upstream``
(an offline stand-in). Run: ``nice -n 19 .venv/bin/pytest bench/test_proxy_kill.py -s -o addopts=""``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
pytest.importorskip("aiohttp")

from fake_upstream import FakeUpstream
from proxy_process import kill_rounds


def test_kill_9_during_streams(tmp_path: Path) -> None:
    rounds = int(os.environ.get("SNAPSHOT_KILLS", "50"))
    with FakeUpstream(
        chunk_delay=0.02,
        validate=False,
        lifetime=3600,
        max_requests=10 * rounds,
        reply=lambda _a, _b: {"text": "y" * 160},
    ) as fake:
        report = kill_rounds(
            fake.url,
            tmp_path,
            rounds,
            reply_text="y" * 160,
            say=lambda line: print(line, flush=True),
        )
    print(
        f"\nkill -9 during streams: {report}; load {Path('/proc/loadavg').read_text().split()[:3]}"
    )
    assert report.kills == rounds
    assert report.lost_acknowledged_turns == 0
    assert report.half_turns == 0
    assert report.unreadable_stores == 0
