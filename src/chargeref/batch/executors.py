"""Where batch work runs: in this process, a local process pool, or Dask.

``run_ordered(fn, items, ...)`` calls ``fn(item)`` for every item and yields
``(index, result)`` pairs as they finish; ``map_ordered`` collects them in input order.
The function and the items must be picklable (module-level functions, plain data).

* ``workers=None, scheduler=None``: the standard library's ``ProcessPoolExecutor``
  with one process per core (``pool="inline"`` runs everything in this process,
  which notebooks and tests use for small jobs).
* ``workers=N``: a Dask distributed ``LocalCluster`` started for the job: N worker
  processes of one thread each, on 127.0.0.1, dashboard off; it is closed afterwards.
* ``scheduler="tcp://host:port"``: an existing Dask cluster, through ``Client``.

Dask is an optional extra (``chargeref[distributed]``): asking for it without the
package installed is a refusal naming the option, never a traceback. Results never
depend on where they were computed: every task is a pure function of its item.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from typing import Any

from ..errors import Problem, RequestError

#: ``progress(done, total)``: called after each finished item
Progress = Callable[[int, int], None]

DASK_EXTRA = "install the Dask extra: pip install 'chargeref[distributed]'"


def check_choice(workers: int | None, scheduler: str | None) -> None:
    """Refuse a choice that cannot run: both options at once, a worker count below 1,
    or Dask asked for but not installed."""
    if workers is not None and scheduler is not None:
        raise RequestError(Problem("--workers/--scheduler", "give either --workers or --scheduler, not both"))
    if workers is None and scheduler is None:
        return
    if workers is not None and workers < 1:
        raise RequestError(Problem("--workers", f"give a number of workers of at least 1 (got {workers})"))
    try:
        import distributed  # noqa: F401
    except ImportError:
        option = "--scheduler" if scheduler else "--workers"
        raise RequestError(Problem(option, f"Dask is not installed; {DASK_EXTRA}")) from None


def _dask_client(workers: int | None, scheduler: str | None) -> Any:
    from distributed import Client, LocalCluster
    if scheduler:
        try:
            return Client(scheduler, timeout="10s"), None
        except (OSError, TimeoutError) as exc:
            raise RequestError(Problem("--scheduler", f"cannot reach the Dask scheduler at {scheduler}: {exc}")) from None
    cluster = LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        # no dashboard; the scheduler's small HTTP server (health, metrics) takes a free
        # local port instead of 8787, so several clusters can run side by side
        scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
        silence_logs=40,  # errors only
    )
    return Client(cluster), cluster


@contextmanager
def _dask(workers: int | None, scheduler: str | None) -> Iterator[Any]:
    client, cluster = _dask_client(workers, scheduler)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_ordered(
    fn: Callable[[Any], Any],
    items: Sequence[Any],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    pool: str = "process",
    progress: Progress | None = None,
) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, fn(items[index]))`` for every item as it completes.

    An exception raised by ``fn`` is raised here (the first one met); the rest of the
    work is cancelled."""
    check_choice(workers, scheduler)
    n = len(items)
    done = 0
    if n == 0:
        return
    if workers is not None or scheduler is not None:
        with _dask(workers, scheduler) as client:
            from distributed import as_completed

            futures = client.map(fn, list(items), pure=False)
            index = {f.key: i for i, f in enumerate(futures)}
            # only the futures still running are referenced, so a finished result is
            # released on the cluster as soon as it has been handed over
            pending = {f.key: f for f in futures}
            order = as_completed(futures)
            del futures
            try:
                for fut in order:
                    result = fut.result()
                    pending.pop(fut.key, None)
                    done += 1
                    if progress:
                        progress(done, n)
                    yield index[fut.key], result
                    del fut, result
            finally:
                if pending:
                    client.cancel(list(pending.values()))
        return
    if pool == "inline" or n == 1:
        for i, item in enumerate(items):
            result = fn(item)
            done += 1
            if progress:
                progress(done, n)
            yield i, result
        return
    if pool != "process":
        raise ValueError(f"unknown pool {pool!r}")
    with ProcessPoolExecutor(max_workers=min(n, os.cpu_count() or 1)) as ex:
        pending: dict[Future[Any], int] = {ex.submit(fn, item): i for i, item in enumerate(items)}
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    i = pending.pop(fut)
                    result = fut.result()
                    done += 1
                    if progress:
                        progress(done, n)
                    yield i, result
        finally:
            for fut in pending:
                fut.cancel()


def map_ordered(fn: Callable[[Any], Any], items: Iterable[Any], **kw: Any) -> list[Any]:
    """``[fn(x) for x in items]`` computed by ``run_ordered`` (same keywords)."""
    items = list(items)
    out: list[Any] = [None] * len(items)
    for i, r in run_ordered(fn, items, **kw):
        out[i] = r
    return out
