"""Report workers forked from the main process inherit its readers' loaded parts."""

from __future__ import annotations

import multiprocessing as mp
import os
from pathlib import Path
from typing import Any

import pytest

from snapshot.report.run import run


@pytest.mark.skipif(
    "fork" not in mp.get_all_start_methods(), reason="workers fork only where fork exists"
)
def test_forked_workers_do_not_load_the_vocabulary_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``o200k_base``'s tables (~0.6 s of CPU a load) are built once, in the main process,
    before the workers fork: each worker's readers find them loaded. The rows are the same
    as one worker's."""
    import quicktok

    from snapshot.billing import text_tokens

    monkeypatch.setenv("SNAPSHOT_NO_PROGRESS", "1")
    loads = tmp_path / "loads"
    build = quicktok.get_encoding

    def recording(name: str, data_dir: str = "") -> Any:
        with loads.open("a") as f:  # appended from whichever process loads it
            f.write(f"{os.getpid()} {name}\n")
        return build(name, data_dir)

    monkeypatch.setattr(quicktok, "get_encoding", recording)
    text_tokens._encoding.cache_clear()  # this process has not loaded it yet either
    two = run(None, models=("gpt-5.1",), workers=2, limit=2)
    assert two.workers == 2 and len({r.source for r in two.rows}) == 2
    assert loads.read_text().split("\n")[:-1] == [f"{os.getpid()} o200k_base"]
    one = run(None, models=("gpt-5.1",), workers=1, limit=2)

    def untimed(rows: list[Any]) -> list[dict[str, Any]]:
        return [{k: v for k, v in r.to_json().items() if k != "seconds"} for r in rows]

    assert untimed(two.rows) == untimed(one.rows)
