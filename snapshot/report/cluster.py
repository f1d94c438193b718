"""The benchmark on a Dask cluster: conversations × profiles as tasks.

``snapshot report --engine dask [--scheduler ADDRESS]`` (the ``[dask]`` extra).
Each shard is one conversation with one profile; its rows are exactly the rows
the local process pool computes for that pair (sources and needles are seeded
by conversation id, never by order), so ``results.json`` is the same.
Without an address a ``LocalCluster`` of one single-threaded worker process
per core is started. Every worker must be able to import ``snapshot`` and
read the corpus at the manifest's path.

A worker that dies while running a shard: the scheduler retries the shard
once (``distributed.scheduler.allowed-failures = 1``, set here for a local
cluster; set it on your own scheduler for the same policy, its default is 3),
then the shard is reported failed with its conversation named; the results of
the other shards are kept.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from snapshot.errors import InputError
from snapshot.progress import progress

# (job, model index) -> (rows, source stats, error)
# (rows, source stats, error[, whole-page reader infos]); a failed shard has no infos.
ShardResult = tuple[Any, ...]

#: Seconds to wait for a scheduler given by address before giving up.
CONNECT_TIMEOUT = 10


def dask_available() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


@contextlib.contextmanager
def client_for(scheduler: str | None, workers: int) -> Iterator[Any]:
    """A Dask client: connected to ``scheduler``, or to a new local cluster."""
    if not dask_available():
        raise InputError(
            "--engine dask needs the [dask] extra (dask[distributed]): pip install 'snapshot[dask]'"
        )
    import dask
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError(
                f"--scheduler {scheduler}: no Dask scheduler answered within {CONNECT_TIMEOUT} s "
                f"({type(exc).__name__}); start one (`dask scheduler`) or leave out --scheduler "
                "for a local cluster"
            ) from exc
        with client:
            yield client
        return
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        with cluster, Client(cluster) as client:
            yield client


def run_shards(
    shards: Sequence[tuple[Any, int]],
    work: Callable[..., ShardResult],
    name: Callable[[Any], str],
    models: Sequence[str],
    *,
    scheduler: str | None,
    workers: int,
    args: tuple[Any, ...] = (),
) -> list[ShardResult]:
    """Run ``work(job, model_index, *args)`` for every shard on a Dask cluster.

    Results come back as they finish; a shard whose task failed twice becomes
    an error naming its conversation (``name(job)``) and profile.
    """
    out: list[ShardResult] = []
    with client_for(scheduler, workers) as client:
        from distributed import as_completed

        futures = {}
        for job, m in shards:
            future = client.submit(work, job, m, *args, retries=1, pure=False)
            futures[future] = (job, m)
        done = as_completed(futures)
        for future in progress(done, desc="shards", total=len(futures), unit="shard"):
            job, m = futures[future]
            try:
                out.append(future.result())
            except Exception as exc:  # a worker that died twice: KilledWorker
                out.append(
                    (
                        [],
                        None,
                        f"{name(job)} × {models[m]}: shard failed on the Dask cluster after one "
                        f"retry ({type(exc).__name__}: {exc})",
                    )
                )
    return out
