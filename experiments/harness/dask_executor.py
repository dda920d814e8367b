"""The dask.distributed executor: each cell a task on a cluster, run there in a
killable worker process under the same limits as :class:`LocalExecutor` applies locally."""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Hashable

from experiments.harness.executor import LocalExecutor
from experiments.harness.provenance import utc_now
from experiments.harness.schema import Status
from formats.errors import RaceError

_REMOTE = threading.local()
#: the CPU slots this process holds (file descriptors of the locks, kept open for its lifetime)
_HELD: dict[int, int] = {}
_HELD_LOCK = threading.Lock()


#: cells handed to the cluster per slot at a time (one running, the others waiting at the worker)
QUEUED = 2
#: the environment variable naming the directory of the CPU claims (default: under the temp dir)
SLOTS_ENV = "RACE_CPU_SLOTS"


def slot_directory() -> Path:
    """Where the cell slots of this machine are claimed (one lock file per CPU): ``$RACE_CPU_SLOTS``,
    else ``sudoku-race-cpu-slots-<uid>`` in the temporary directory."""
    given = os.environ.get(SLOTS_ENV)
    return Path(given) if given else Path(tempfile.gettempdir()) / f"sudoku-race-cpu-slots-{os.getuid()}"


def claim_cpu(cpus: list[int] | None = None, directory: Path | None = None) -> int | None:
    """A CPU of this machine that no other cell slot holds, claimed for the life of this process
    (an exclusive ``flock`` on a lock file per CPU: every dask worker process and thread of the
    machine sees the others' claims, and a dead process's claims are released by the kernel).
    The candidates are :func:`experiments.harness.pinning.allocate`'s, one per physical core;
    None when all are held or nothing can be pinned."""
    import fcntl

    from experiments.harness.pinning import allocate, usable_cpus
    if cpus is None:
        everything = usable_cpus()
        cpus = None
        for count in range(len(everything), 0, -1):   # one CPU per physical core
            cpus = allocate(count, everything)
            if cpus:
                break
    if not cpus:
        return None
    where = directory or slot_directory()
    where.mkdir(parents=True, exist_ok=True)
    with _HELD_LOCK:
        for cpu in reversed(cpus):                       # the last cores first, as allocate does
            if cpu in _HELD:
                continue
            fd = os.open(where / f"cpu{cpu}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            _HELD[cpu] = fd
            return cpu
    return None


def remote_cpu() -> int | None:
    """The CPU of this dask thread's worker subprocess, claimed once per thread (:func:`claim_cpu`):
    each thread slot of each dask worker process on the machine gets a core of its own;
    None when the cores are too few for the slots."""
    if not hasattr(_REMOTE, "cpu"):
        _REMOTE.cpu = claim_cpu()
    return _REMOTE.cpu


def run_remote(key: Hashable, request: dict[str, Any], timeout_s: float,
               memory_mb: float | None, min_time: float | None,
               pin: bool = False) -> tuple[Hashable, dict[str, Any]]:
    """Run one cell on a dask worker: in a killable worker subprocess, under the same
    limits as locally (pinned to a core of its own with ``pin``, see :func:`remote_cpu`).
    The subprocess is kept warm (one per dask thread) for the next cells: it is replaced only
    when the limits change."""
    executor = getattr(_REMOTE, "executor", None)
    settings = (float(timeout_s), memory_mb, min_time, pin)
    if executor is None or getattr(_REMOTE, "settings", None) != settings:
        if executor is not None:
            executor.close()
        cpu = remote_cpu() if pin else None
        executor = LocalExecutor(1, timeout_s, memory_mb, min_time, die_with_parent=False,
                                 cpus=None if cpu is None else [cpu])
        _REMOTE.executor, _REMOTE.settings = executor, settings
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
        """Room for more cells: :data:`QUEUED` per slot of the cluster, less the cells in flight
        (a cell of k cores counts k). A slot runs one cell at a time; the next one waits at its
        worker, so no slot idles for a round trip to this process between two cells."""
        return self.jobs * QUEUED - sum(self.cores.values())

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
