"""The benchmark on a Dask cluster gives the local process pool's results."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the [dask] extra (dask[distributed]) is not installed")

from snapshot.errors import InputError
from snapshot.report.run import Job, run, save_json

MODELS = ("claude-sonnet-4-5", "gemini-3-pro-preview")
RUN_METADATA = ("seconds", "workers", "engine", "load", "reader_cpu_s")


def _results(tmp_path: Path, name: str, **kw) -> dict:  # type: ignore[no-untyped-def, type-arg]
    result = run(None, models=MODELS, limit=2, workers=2, **kw)
    path = tmp_path / f"{name}.json"
    save_json(result, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["engine"] == kw.get("engine", "local")
    for row in data["rows"]:
        assert row.pop("seconds") >= 0  # a timing: the one field that may differ
    return {k: v for k, v in data.items() if k not in RUN_METADATA}


def test_dask_local_cluster_gives_the_process_pool_results(tmp_path: Path) -> None:
    local = _results(tmp_path, "local")
    dask = _results(tmp_path, "dask", engine="dask")
    assert local["rows"], "the demo corpus gave no rows: nothing compared"
    assert len(local["rows"]) == len(dask["rows"])
    assert dask == local
    assert not dask["errors"]


def test_a_scheduler_that_does_not_answer_is_one_clear_error(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import snapshot.report.cluster as cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1)
    with pytest.raises(InputError, match="no Dask scheduler answered"):
        run(None, models=MODELS[:1], limit=1, engine="dask", scheduler="tcp://127.0.0.1:9")


def _dies_on_second(job: Job, model: int, *args):  # type: ignore[no-untyped-def]
    from snapshot.report.run import shard_work

    if job.index == 1:
        os._exit(3)  # the worker process dies mid-shard, every time
    return shard_work(job, model, *args)


def test_a_worker_that_dies_is_retried_once_then_reported(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import snapshot.report.run as run_mod

    monkeypatch.setattr(run_mod, "shard_work", _dies_on_second)
    result = run(None, models=MODELS[:1], limit=2, workers=2, engine="dask")
    assert len(result.errors) == 1
    assert result.errors[0].startswith("demo conversation 2 × claude-sonnet-4-5: shard failed")
    assert "KilledWorker" in result.errors[0]
    # the other conversation's results are kept
    assert {r.source for r in result.rows} == {s.id for s in result.sources}
    assert len(result.sources) == 1


def test_cli_scheduler_without_dask_engine_is_refused(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from snapshot.cli import main

    code = main(
        ["report", "--out", str(tmp_path), "--no-legibility", "--scheduler", "tcp://127.0.0.1:9"]
    )
    assert code == 2
    assert "--scheduler needs --engine dask" in capsys.readouterr().err
