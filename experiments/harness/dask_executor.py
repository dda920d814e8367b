"""The dask.distributed executor: each cell a task on a cluster, run there in a
killable worker process under the same limits as :class:`LocalExecutor` applies locally."""

from __future__ import annotations

import itertools
import threading
from typing import Any, Hashable

from experiments.harness.executor import LocalExecutor
from experiments.harness.provenance import utc_now
from experiments.harness.schema import Status
from formats.errors import RaceError

_REMOTE = threading.local()
_SLOTS = itertools.count()
_SLOTS_LOCK = threading.Lock()


def remote_cpu() -> int | None:
    """The CPU of this dask thread's worker subprocess: the threads of the dask worker
    process are numbered as they first run a cell, thread i gets the i-th CPU of
    :func:`experiments.harness.pinning.allocate` for the worker's thread count (one dask
    worker process per machine assumed); None when the cores are too few."""
    from experiments.harness.pinning import allocate
    slot = getattr(_REMOTE, "slot", None)
    if slot is None:
        with _SLOTS_LOCK:
            slot = _REMOTE.slot = next(_SLOTS)
    try:
        from distributed import get_worker
        threads = int(getattr(get_worker(), "nthreads", 1) or 1)
    except (ImportError, ValueError):
        threads = 1
    cpus = allocate(threads)
    return cpus[slot] if cpus and slot < len(cpus) else None


def run_remote(key: Hashable, request: dict[str, Any], timeout_s: float,
               memory_mb: float | None, min_time: float | None,
               pin: bool = False) -> tuple[Hashable, dict[str, Any]]:
    """Run one cell on a dask worker: in a killable worker subprocess, under the same
    limits as locally (pinned to a core of its own with ``pin``, see :func:`remote_cpu`).
    The subprocess is kept warm (per dask thread) for the next cell."""
    executor = getattr(_REMOTE, "executor", None)
    if executor is None or (executor.timeout_s, executor.memory_mb, executor.min_time,
                            executor.cpus is not None) \
            != (float(timeout_s), memory_mb, min_time, pin):
        if executor is not None:
            executor.close()
        cpu = remote_cpu() if pin else None
        executor = LocalExecutor(1, timeout_s, memory_mb, min_time, die_with_parent=False,
                                 cpus=None if cpu is None else [cpu])
        _REMOTE.executor = executor
    # a cell of several cores runs in this one slot: its searches share the slot's CPU
    executor.submit(key, {**request, "cores": 1})
    while True:
        done = executor.poll(1.0)
        if done:
            return done[0]


class DaskExecutor:
    """Cells as tasks on a dask.distributed cluster (``scheduler``: an address such as
    ``tcp://host:8786``, or a Cluster / Client object). At most ``jobs`` cells in
    flight (default: the cluster's total threads)."""

    def __init__(self, scheduler: Any, jobs: int | None, timeout_s: float,
                 memory_mb: float | None = None, min_time: float | None = None,
                 pin: bool = False) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise RaceError("--executor dask needs dask.distributed: "
                            "pip install 'sudoku-race[dask]'") from None
        try:
            self.client = scheduler if isinstance(scheduler, Client) else Client(scheduler, timeout=15)
            self._own_client = not isinstance(scheduler, Client)
        except (OSError, TimeoutError, ValueError) as exc:
            raise RaceError(f"cannot reach the dask scheduler {scheduler!r}: {exc}") from None
        threads = sum(self.client.nthreads().values()) or 1
        self.jobs = jobs or threads
        self.timeout_s, self.memory_mb, self.min_time = float(timeout_s), memory_mb, min_time
        self.pin = pin
        #: worker ident (host:pid) -> the CPUs it reported (as LocalExecutor.worker_cpus)
        self.worker_cpus: dict[str, list[int]] = {}
        self.futures: dict[Any, Hashable] = {}
        self.cores: dict[Any, int] = {}

    def free(self) -> int:
        """The cluster's slots not held by a cell in flight (a cell of k cores holds k)."""
        return self.jobs - sum(self.cores.values())

    def warm_entrants(self) -> set[str]:
        return set()

    def submit(self, key: Hashable, request: dict[str, Any]) -> None:
        future = self.client.submit(run_remote, key, request, self.timeout_s, self.memory_mb,
                                    self.min_time, self.pin, pure=False)
        self.futures[future] = key
        self.cores[future] = int(request.get("cores", 1) or 1)

    def poll(self, max_wait: float = 0.5) -> list[tuple[Hashable, dict[str, Any]]]:
        from distributed import wait
        if not self.futures:
            return []
        try:
            finished = wait(list(self.futures), timeout=max_wait, return_when="FIRST_COMPLETED").done
        except TimeoutError:
            return []
        done = []
        for future in finished:
            key = self.futures.pop(future)
            self.cores.pop(future, None)
            try:
                _, outcome = future.result()
            except Exception as exc:  # noqa: BLE001 - a lost task is the cell's error
                outcome = {"status": Status.ERROR, "message": f"dask task failed: {type(exc).__name__}: {exc}",
                           "started_at": utc_now()}
            if outcome.get("cpus") is not None and outcome.get("worker"):
                self.worker_cpus[outcome["worker"]] = outcome["cpus"]
            done.append((key, outcome))
        return done

    def close(self) -> None:
        for future in self.futures:
            future.cancel()
        self.futures.clear()
        self.cores.clear()
        if self._own_client:
            self.client.close()
