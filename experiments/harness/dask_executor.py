"""The dask.distributed executor: the cells go to a cluster in small batches (one task runs a
few cells one after the other on one thread slot), each cell there in a killable worker process
under the same limits as :class:`LocalExecutor` applies locally."""

from __future__ import annotations

import dataclasses
import os
import tempfile
import threading
import time
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from experiments.harness.executor import LocalExecutor
from experiments.harness.identity import CellKey
from experiments.harness.messages import Measurement, Outcome, Request, Returned
from experiments.harness.provenance import utc_now
from experiments.harness.scheduling import START_ATTEMPTS
from formats.errors import RaceError
from solvers.status import Status

_REMOTE = threading.local()
#: the CPU slots this process holds (file descriptors of the locks, kept open for its lifetime)
_HELD: dict[int, int] = {}
_HELD_LOCK = threading.Lock()


#: batches handed to the cluster per slot at a time (one running, the next waiting at the worker)
QUEUED = 2
#: seconds of work a batch of cells aims at (the batch size is this over a cell's seconds)
BATCH_S = 0.25
#: the most cells in one batch
MAX_BATCH = 32
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


def _slot_executor(timeout_s: float, memory_mb: float | None, min_time: float | None,
                   pin: bool, keep_warm: int) -> LocalExecutor:
    """This dask thread's executor of one slot, kept (with its warm worker subprocesses) for the
    next tasks: replaced only when the limits change."""
    executor = getattr(_REMOTE, "executor", None)
    settings = (float(timeout_s), memory_mb, min_time, pin, keep_warm)
    if executor is None or getattr(_REMOTE, "settings", None) != settings:
        if executor is not None:
            executor.close()
        cpu = remote_cpu() if pin else None
        executor = LocalExecutor(1, timeout_s, memory_mb, min_time, die_with_parent=False,
                                 cpus=None if cpu is None else [cpu], keep_warm=keep_warm)
        _REMOTE.executor, _REMOTE.settings = executor, settings
    return executor


def run_batch(cells: list[tuple[dict[str, Any], Request]], timeout_s: float,
              memory_mb: float | None, min_time: float | None, pin: bool = False,
              keep_warm: int = 1) -> tuple[list[tuple[CellKey, Measurement]], list[float]]:
    """Run ``cells`` (each its entrant's ``init`` request and the cell's :class:`Request`) one
    after the other on this dask thread's slot, each in a killable worker subprocess under
    the same limits as locally (:class:`LocalExecutor`: a timeout, memout or crash ends that
    cell alone, and the next one gets a fresh worker), pinned to a core of its own with
    ``pin`` (:func:`remote_cpu`). The subprocesses stay warm for the next task (``keep_warm``
    entrants per slot, as locally).

    Returns one ``(key, measurement)`` per cell, in order, and the seconds each took here. An
    entrant whose worker failed to start :data:`START_ATTEMPTS` times in this batch is not
    started again for its remaining cells: they get the last failure's measurement (the
    scheduler gives up on an entrant after as many failures, whichever cells they come from)."""
    executor = _slot_executor(timeout_s, memory_mb, min_time, pin, keep_warm)
    outcomes: dict[CellKey, Measurement] = {}
    took: dict[CellKey, float] = {}
    failed: dict[str, list[Measurement]] = {}
    queue = list(cells)
    while queue:
        init, first = queue[0]
        run = 1                             # the cells of one entrant in a row: one worker batch
        while run < len(queue) and queue[run][1].entrant == first.entrant:
            run += 1
        batch, queue = queue[:run], queue[run:]
        failures = failed.setdefault(first.entrant, [])
        if len(failures) >= START_ATTEMPTS:
            for _, request in batch:
                outcomes[request.key] = dataclasses.replace(failures[-1])
                took[request.key] = 0.0
            continue
        # a cell of several cores runs in this one slot: its searches share the slot's CPU
        executor.submit_batch(init, [dataclasses.replace(r, cores=1) for _, r in batch])
        left = {request.key for _, request in batch}
        since = time.monotonic()
        back = []
        while left:
            for key, outcome in executor.poll(1.0):
                left.discard(key)
                now = time.monotonic()
                if isinstance(outcome, Returned):   # not run: in line again
                    back.append(next(c for c in batch if c[1].key == key))
                    continue
                if outcome.start_failed:
                    failures.append(outcome)
                outcomes[key], took[key], since = outcome, now - since, now
        queue = back + queue
    return ([(r.key, outcomes[r.key]) for _, r in cells], [took[r.key] for _, r in cells])


def _group(request: Request) -> Hashable:
    """The cells a request's cell is expected to cost like: its ``group`` (the scheduler's
    family, entrant and n), else its entrant."""
    return request.group or request.entrant


class DaskExecutor:
    """Cells as tasks on a dask.distributed cluster (``scheduler``: an address such as
    ``tcp://host:8786``, or a Cluster / Client object), ``jobs`` slots (default: the
    cluster's total threads).

    The cells go out in batches (:func:`run_batch`: one task runs several cells, one after the
    other, on one slot), so a cell pays no round trip to the scheduler of its own. A batch holds
    ``batch`` cells when given, otherwise as many as take about :data:`BATCH_S` on a slot (at
    most :data:`MAX_BATCH`), each cell counted at the seconds its ``group`` took so far (the
    request's ``group``: the family, entrant and n of the cell): a cell of a group not measured
    yet goes out in a batch of its own, so the first cells of a harder n or family are never
    batched on the estimate of an easier one. About :data:`QUEUED` batches per slot are in
    flight: one running, the next waiting at a worker, so no slot idles between two batches.
    Each cell keeps its own
    timing and limits (they are measured and enforced on the worker, cell by cell); a task
    that fails (a dask worker lost) ends each of its cells as an ``error``."""

    def __init__(self, scheduler: Any, jobs: int | None, timeout_s: float,
                 memory_mb: float | None = None, min_time: float | None = None,
                 pin: bool = False, keep_warm: int = 1, batch: int | None = None) -> None:
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
        self.pin, self.keep_warm, self.batch = pin, max(int(keep_warm), 1), batch
        #: worker ident (host:pid) -> the CPUs it reported (as LocalExecutor.worker_cpus)
        self.worker_cpus: dict[str, list[int]] = {}
        #: task -> its cells (key, cores, group)
        self.tasks: dict[Any, list[tuple[CellKey, int, Hashable]]] = {}
        #: the cells of the next task, not sent yet
        self.waiting: list[tuple[dict[str, Any], Request]] = []
        self.held = 0                       # cores of the cells waiting or in flight
        #: seconds a cell takes on a slot: a moving average over the cells that came back, and
        #: one per group of cells
        self.cell_s: float | None = None
        self.group_s: dict[Hashable, float] = {}
        self.waiting_s = 0.0                # the estimated seconds of the cells waiting
        #: batches sent and cells in them (what the batching saved: cells / batches round trips)
        self.sent = self.sent_cells = 0

    def batch_size(self) -> int:
        """The cells of the next batch (see the class docstring)."""
        if self.batch:
            return max(int(self.batch), 1)
        if self.cell_s is None:
            return 1
        return max(1, min(MAX_BATCH, int(BATCH_S / max(self.cell_s, 1e-6))))

    def free(self) -> int:
        """Room for more cells: :data:`QUEUED` batches per slot (of :meth:`batch_size` cells),
        less the cells waiting or in flight (a cell of k cores counts k)."""
        return self.jobs * QUEUED * self.batch_size() - self.held

    def warm_entrants(self) -> set[str]:
        return set()

    def submit_batch(self, init: dict[str, Any], cells: list[Request]) -> None:
        """Add the cells to the next batch; a full batch goes out at once, a partial one at
        the next :meth:`poll`."""
        for request in cells:
            self.waiting.append((init, request))
            self.held += max(1, request.cores)
            if self.batch:
                full = len(self.waiting) >= self.batch_size()
            else:
                self.waiting_s += self.group_s.get(_group(request), BATCH_S)
                full = self.waiting_s >= BATCH_S or len(self.waiting) >= MAX_BATCH
            if full:
                self._send()

    def _send(self) -> None:
        if not self.waiting:
            return
        cells, self.waiting, self.waiting_s = self.waiting, [], 0.0
        future = self.client.submit(run_batch, cells, self.timeout_s, self.memory_mb, self.min_time,
                                    self.pin, self.keep_warm, pure=False)
        self.tasks[future] = [(request.key, max(1, request.cores), _group(request))
                              for _, request in cells]
        self.sent += 1
        self.sent_cells += len(cells)

    def poll(self, max_wait: float = 0.5) -> list[tuple[CellKey, Outcome]]:
        """Send the partial batch, wait up to ``max_wait`` s for batches to finish, and return
        each of their cells' (key, outcome)."""
        from distributed import wait
        self._send()
        if not self.tasks:
            return []
        try:
            finished = wait(list(self.tasks), timeout=max_wait, return_when="FIRST_COMPLETED").done
        except TimeoutError:
            return []
        ok = [f for f in finished if f.status == "finished"]
        try:
            results = dict(zip(ok, self.client.gather(ok))) if ok else {}
        except Exception:  # noqa: BLE001 - lost on the way back: each batch on its own below
            results = {}
        done: list[tuple[CellKey, Outcome]] = []
        for future in finished:
            cells = self.tasks.pop(future)
            self.held -= sum(cores for _, cores, _ in cells)
            try:
                outcomes, seconds = results[future] if future in results else future.result()
            except Exception as exc:  # noqa: BLE001 - a lost task is its cells' error
                failed = f"dask task failed: {type(exc).__name__}: {exc}"
                done.extend((key, Measurement(Status.ERROR, failed, started_at=utc_now()))
                            for key, _, _ in cells)
                continue
            self._learn(cells, seconds)
            done.extend(self._each_once(cells, outcomes))
        return done

    def _learn(self, cells: list[tuple[CellKey, int, Hashable]], seconds: list[float]) -> None:
        """Update the seconds per cell, overall and of each group, with a batch's cells."""
        for (_, _, group), spent in zip(cells, seconds):
            known = self.group_s.get(group)
            self.group_s[group] = spent if known is None else 0.8 * known + 0.2 * spent
            self.cell_s = spent if self.cell_s is None else 0.8 * self.cell_s + 0.2 * spent

    def _each_once(self, cells: list[tuple[CellKey, int, Hashable]],
                   outcomes: list[tuple[CellKey, Measurement]]) -> list[tuple[CellKey, Outcome]]:
        """One outcome per cell of a batch, in its order: the first the batch returned for it, an
        error for a cell it left out (none is ever waited for in vain), nothing for a key it
        did not hold."""
        returned: dict[CellKey, Measurement] = {}
        for key, outcome in outcomes:
            returned.setdefault(key, outcome)
        done: list[tuple[CellKey, Outcome]] = []
        for key, _, _ in cells:
            outcome = returned.get(key) or Measurement(
                Status.ERROR, "dask task returned no outcome for this cell", started_at=utc_now())
            if outcome.cpus is not None and outcome.worker:
                self.worker_cpus[outcome.worker] = outcome.cpus
            done.append((key, outcome))
        return done

    def close(self) -> None:
        for future in self.tasks:
            future.cancel()
        self.tasks.clear()
        self.waiting.clear()
        self.held, self.waiting_s = 0, 0.0
        if self._own_client:
            self.client.close()
