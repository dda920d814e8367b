"""Executors: run cells in killable worker processes, under time and memory limits.

A *request* describes one cell for a worker (see :mod:`experiments.harness.worker`)::

    {"entrant": spec, "init": {"name", "target", "fixed", "spec"},
     "solve": {"instance", "text"}}

An executor takes requests with :meth:`submit` (while :meth:`free` > 0) and
hands back ``(key, outcome)`` pairs from :meth:`poll`. An outcome is the
worker's measurement (status, verified, wall_s, cpu_s, peak_rss_mb, iterations,
times, counters, message) plus ``worker``, ``solver``, ``params`` and
``started_at``; the limits are enforced here, in the parent, never trusted to the
worker:

* **timeout**: a worker still busy ``timeout_s`` (+ a small grace) after the
  request was sent is killed with its whole process group (so an external
  solver binary dies too); a result whose measured wall time is over the limit
  is a timeout as well.
* **memout**: the resident memory of the worker's process tree is polled every
  :data:`MEMORY_POLL_S` (:mod:`solvers.process_tree`, psutil: on any system);
  past ``memory_mb`` the group is killed. A
  result whose peak (the worker's own reading, or the polls') is over the limit is a
  memout as well: a cell quicker than a poll is held to the limit too.
* **error**: a worker that dies (crash, signal) or fails to start (then the
  outcome carries ``start_failed``); the next cell gets a fresh worker.

**Cells of several cores**: a request with ``"cores": k`` (an entrant such as ``parallel``
that runs k searches at once, :attr:`solvers.interface.Solver.cores`) holds k idle slots
until it finishes: its worker runs on their k CPUs (sent with the solve request, see
:mod:`experiments.harness.worker`) and nothing else runs on them meanwhile; :meth:`free`
counts idle slots, so the scheduler waits until k are idle. The outcome carries ``cores``.

**Pinning** (``cpus``): worker slot i runs on CPU ``cpus[i]`` alone (set before the
worker's program starts, inherited by the solver binaries it runs; see
:mod:`experiments.harness.pinning` for the allocation); each worker reports the CPUs it
may use in its ``ready`` reply, kept in :attr:`LocalExecutor.worker_cpus`.

:class:`LocalExecutor` keeps ``jobs`` workers (:class:`experiments.harness.worker_process.WorkerProcess`),
each warm for one entrant and reused while healthy. :class:`experiments.harness.dask_executor.DaskExecutor` sends
the cells to a dask.distributed cluster in small batches, where each runs in the same kind of killable worker.
"""

from __future__ import annotations

import select
import time
from dataclasses import dataclass, field
from typing import Any, Hashable

from experiments.harness import worker_zygote
from experiments.harness.provenance import utc_now
from experiments.harness.schema import Status
from experiments.harness.worker_process import WorkerProcess, worker_env
from formats.errors import RaceError

#: seconds between two memory polls of a busy worker
MEMORY_POLL_S = 0.05
#: seconds a worker gets past its time limit before the kill (its reply may be in flight)
GRACE_S = 0.1
#: at most one round of finished cells this often (s), while no worker waits for a batch
POLL_S = 0.05
#: seconds a worker may take to import and warm up its entrant
INIT_TIMEOUT_S = 180.0


@dataclass
class _Slot:
    worker: WorkerProcess | None = None
    #: the cells sent to the worker in one request, in the order it runs them
    batch: list[tuple[Hashable, dict[str, Any]]] = field(default_factory=list)
    #: the index in ``batch`` of the cell the worker is on
    next: int = 0
    phase: str = "idle"            # idle | init | solve | held (lent to another slot's cell)
    deadline: float = 0.0
    #: when the cell the worker is on started, as far as the parent can tell (monotonic)
    sent: float = 0.0
    started_at: str = ""
    rss_peak: float = 0.0
    #: the worker's own memory when its batch began (a solver that starts processes: the
    #: cell's memory is theirs and what the worker grows by, not the worker's baseline)
    base_mb: float = 0.0
    cpu: int | None = None
    parked: dict[str, WorkerProcess] = field(default_factory=dict)
    #: the slots this slot's cell holds besides itself (a cell of several cores)
    holds: list["_Slot"] = field(default_factory=list)

    @property
    def key(self) -> Hashable:
        """The key of the cell the worker is on (None when idle)."""
        return self.batch[self.next][0] if self.next < len(self.batch) else None


class LocalExecutor:
    """``jobs`` worker processes on this machine, each warm for one entrant.

    ``timeout_s`` and ``memory_mb`` (None = no memory limit) are per cell;
    ``min_time`` is the worker's calibration target (see :func:`experiments.harness.worker.measure`);
    ``cpus`` (one per job, or None) pins worker slot i to ``cpus[i]``. ``keep_warm``: how
    many warm workers (of different entrants) a slot keeps, the idle ones parked, so that
    cells of several entrants interleaved pay no start-up (1: a slot's worker is stopped
    when the slot switches entrant). ``zygote``: start workers by forking them from a warm
    zygote (:mod:`experiments.harness.worker_zygote`), milliseconds instead of about a second
    each (a cell killed at its limit costs its worker); False: a fresh interpreter each.
    """

    def __init__(self, jobs: int, timeout_s: float, memory_mb: float | None = None,
                 min_time: float | None = None, die_with_parent: bool = True,
                 init_timeout_s: float = INIT_TIMEOUT_S, cpus: list[int] | None = None,
                 keep_warm: int = 1, zygote: bool = True) -> None:
        if jobs < 1:
            raise RaceError(f"--jobs must be >= 1, got {jobs}")
        if cpus is not None and len(cpus) != jobs:
            raise ValueError(f"{len(cpus)} CPUs for {jobs} workers")
        self.jobs = jobs
        self.timeout_s = float(timeout_s)
        self.memory_mb = memory_mb
        self.min_time = min_time
        self.die_with_parent = die_with_parent
        self.init_timeout_s = init_timeout_s
        self.env = worker_env()
        self.slots = [_Slot(cpu=cpus[i] if cpus else None) for i in range(jobs)]
        self.cpus = list(cpus) if cpus else None
        self.keep_warm = max(int(keep_warm), 1)
        #: worker ident (host:pid) -> the CPUs it reported it may run on
        self.worker_cpus: dict[str, list[int]] = {}
        self._last_mem = 0.0
        self._last_poll = 0.0
        self._zygote: worker_zygote.Zygote | None = None
        self._zygote_wanted = zygote

    def _warm_start(self) -> worker_zygote.Zygote | None:
        """The zygote that forks this executor's workers (started with the first); None when
        it is not wanted or cannot start (then each worker is a fresh interpreter)."""
        if self._zygote_wanted and (self._zygote is None or not self._zygote.alive()):
            if self._zygote is not None:                # ended under us: a new one
                self._zygote.close()
                self._zygote = None
            try:
                self._zygote = worker_zygote.Zygote(self.env, self.die_with_parent)
            except OSError:
                self._zygote_wanted = False
                self._zygote = None
        return self._zygote

    # -- the executor interface ------------------------------------------------
    def free(self) -> int:
        """How many more requests :meth:`submit` accepts now."""
        return sum(s.phase == "idle" for s in self.slots)

    def warm_entrants(self) -> set[str]:
        """Entrants with an idle warm worker (submitting one of these costs no start-up)."""
        warm = {s.worker.entrant for s in self.slots if s.phase == "idle" and s.worker}
        return warm | {e for s in self.slots if s.phase == "idle" for e in s.parked}

    def submit(self, key: Hashable, request: dict[str, Any]) -> None:
        """Start the cell ``request`` on a free worker (:meth:`submit_batch` of one cell)."""
        self.submit_batch([(key, request)])

    def submit_batch(self, cells: list[tuple[Hashable, dict[str, Any]]]) -> None:
        """Start ``cells`` (``(key, request)`` pairs of one entrant and one ``cores``) on a free
        worker (one warm for their entrant if any), which runs them one after the other and
        answers each as it finishes; each keeps its own limits. A request of ``cores`` k > 1
        (an entrant that runs k searches at once) holds k idle slots: its worker runs on their
        k CPUs and no other cell runs on them meanwhile."""
        request = cells[0][1]
        entrant = request["entrant"]
        cores = int(request.get("cores", 1) or 1)
        idle = [s for s in self.slots if s.phase == "idle"]
        if not idle or cores > len(idle):
            raise RuntimeError("no free worker" if not idle else
                               f"{cores} cores asked, {len(idle)} free")
        slot = next((s for s in idle if s.worker and s.worker.entrant == entrant), None) \
            or next((s for s in idle if entrant in s.parked), None) \
            or next((s for s in idle if s.worker is None), None) or idle[0]
        slot.holds = [s for s in idle if s is not slot][:cores - 1]
        for held in slot.holds:
            held.phase = "held"
        if slot.worker is None or slot.worker.entrant != entrant:
            wanted = self._unpark(slot, entrant)
            if slot.worker is not None:
                self._park(slot)
            slot.worker = wanted
        slot.batch, slot.next, slot.rss_peak = list(cells), 0, 0.0
        if slot.worker is None:
            slot.worker = WorkerProcess(request["init"], self.env, self.die_with_parent, slot.cpu,
                                        zygote=self._warm_start())
            slot.phase, slot.deadline = "init", time.monotonic() + self.init_timeout_s
        else:
            self._send_solve(slot)

    def _park(self, slot: _Slot) -> None:
        """Keep the slot's idle worker warm for a later cell of its entrant (at most
        ``keep_warm`` per slot, the longest unused stopped first)."""
        worker, slot.worker = slot.worker, None
        if worker is None:
            return
        if self.keep_warm <= 1:
            worker.stop()
            return
        slot.parked[worker.entrant] = worker
        while len(slot.parked) >= self.keep_warm:
            slot.parked.pop(next(iter(slot.parked))).stop()

    @staticmethod
    def _unpark(slot: _Slot, entrant: str) -> WorkerProcess | None:
        """The slot's parked worker of ``entrant`` if it is still alive."""
        worker = slot.parked.pop(entrant, None)
        if worker is not None and worker.proc.poll() is not None:
            worker.kill()                       # died while parked: reaped, a fresh one starts
            return None
        return worker

    def poll(self, max_wait: float = 0.5) -> list[tuple[Hashable, dict[str, Any]]]:
        """Wait up to ``max_wait`` s for cells to finish (or be killed); return them. A cell
        whose outcome carries ``returned`` was not run (an earlier cell of its batch was
        killed, or the harness failed under it): it is the caller's to send again."""
        done: list[tuple[Hashable, dict[str, Any]]] = []
        busy = [s for s in self.slots if s.phase in ("init", "solve")]
        if not busy:
            return done
        now = time.monotonic()
        wait = min([max_wait] + [max(0.0, s.deadline - now) for s in busy])
        if self.memory_mb is not None:
            wait = min(wait, MEMORY_POLL_S)
        by_fd = {s.worker.fileno(): s for s in busy if s.worker is not None}
        # rounds at most every POLL_S, so each round's cells are handled together, unless a
        # worker is on the last cell of its batch (it would idle until its next batch)
        pause = min(self._last_poll + POLL_S - now, wait)
        if pause > 0:
            urgent = [fd for fd, s in by_fd.items() if s.phase == "init"
                      or s.next >= len(s.batch) - 1]
            if urgent:
                if select.select(urgent, [], [], pause)[0]:
                    wait = 0.0
            else:
                time.sleep(pause)
            wait = max(0.0, wait - pause)
        readable, _, _ = select.select(list(by_fd), [], [], wait)
        self._last_poll = time.monotonic()
        for fd in readable:
            self._on_readable(by_fd[fd], done)
        now = time.monotonic()
        for slot in self.slots:
            if slot.phase in ("init", "solve") and now > slot.deadline:
                self._on_deadline(slot, done)
        if self.memory_mb is not None and now - self._last_mem >= MEMORY_POLL_S:
            self._last_mem = now
            for slot in self.slots:
                if slot.phase == "solve":
                    self._check_memory(slot, done)
        return done

    def close(self) -> None:
        """Stop every worker (killing busy ones with their process groups)."""
        for slot in self.slots:
            if slot.worker is not None:
                if slot.phase in ("idle", "held"):
                    slot.worker.stop()
                else:
                    slot.worker.kill()
            slot.worker, slot.phase, slot.holds, slot.batch = None, "idle", [], []
            for worker in slot.parked.values():
                worker.stop()
            slot.parked.clear()
        if self._zygote is not None:
            self._zygote.close()
            self._zygote = None

    # -- the state machine of a slot -------------------------------------------
    def _send_solve(self, slot: _Slot) -> None:
        assert slot.worker is not None
        message: dict[str, Any] = {
            "op": "solve", "timeout": self.timeout_s,
            "cells": [(i, r["solve"]["instance"], r["solve"]["text"])
                      for i, (_, r) in enumerate(slot.batch)]}
        if self.min_time is not None:
            message["min_time"] = self.min_time
        if slot.cpu is not None:        # the worker runs on its slot's CPU and the held ones'
            message["cpus"] = sorted({slot.cpu, *(h.cpu for h in slot.holds if h.cpu is not None)})
        slot.phase = "solve"
        if slot.worker.memory.whole_tree:
            slot.worker.memory.reset()        # a new batch: the processes its solver starts
            slot.base_mb = slot.worker.memory.split()[0]
        self._started(slot, time.monotonic())
        slot.worker.send(message)     # a dead worker shows up as EOF on the next poll

    def _started(self, slot: _Slot, now: float) -> None:
        """The worker is on the next cell of its batch from ``now`` (as the parent sees it)."""
        slot.sent, slot.started_at, slot.rss_peak = now, utc_now(), 0.0
        slot.deadline = now + self.timeout_s + GRACE_S

    def _outcome(self, slot: _Slot, outcome: dict[str, Any]) -> dict[str, Any]:
        worker = slot.worker
        ready = (worker.ready or {}) if worker else {}
        outcome.setdefault("worker", ready.get("worker", f"?:{worker.pid if worker else '?'}"))
        outcome.setdefault("started_at", slot.started_at or utc_now())
        if "cpus" in ready:
            outcome.setdefault("cpus", ready["cpus"])
        outcome.setdefault("cores", 1 + len(slot.holds))
        return outcome

    def _finish(self, slot: _Slot, outcome: dict[str, Any], done: list, healthy: bool,
                returned: str = "") -> None:
        """The cell the worker is on ends with ``outcome`` (None: it is returned too); the rest
        of the batch is returned (``returned`` says why) unless the worker goes on with it."""
        key = slot.key
        if key is not None:
            done.append((key, self._outcome(slot, outcome)))
            slot.next += 1
        if healthy and slot.next < len(slot.batch):
            self._started(slot, time.monotonic())
            return
        for key, _ in slot.batch[slot.next:]:
            done.append((key, {"returned": True, "message": returned or "not run"}))
        if not healthy and slot.worker is not None:
            slot.worker.kill()
            slot.worker = None
        slot.phase, slot.batch, slot.next = "idle", [], 0
        for held in slot.holds:
            held.phase = "idle"
        slot.holds = []

    def _harness_fault(self, slot: _Slot) -> str:
        """Why a worker's death is the harness's, not its entrant's ("" when it is not): a
        forked worker dies with its zygote."""
        worker = slot.worker
        zygote = getattr(worker.proc, "zygote", None) if worker else None
        if zygote is not None and not zygote.alive():
            return "the worker zygote ended under it"
        return ""

    def _on_readable(self, slot: _Slot, done: list) -> None:
        assert slot.worker is not None
        replies = slot.worker.receive()
        if replies is None:                               # EOF: the worker died
            fault = self._harness_fault(slot)
            if fault:                                     # the cells are run again
                for key, _ in slot.batch[slot.next:]:
                    done.append((key, {"returned": True, "harness_fault": True,
                                       "message": fault}))
                slot.next = len(slot.batch)
                self._finish(slot, {}, done, healthy=False)
                return
            why = slot.worker.death()
            if slot.phase == "init":
                outcome = {"status": Status.ERROR, "message": f"entrant failed to start: {why}",
                           "start_failed": True}
                self._finish(slot, outcome, done, healthy=False, returned="entrant failed to start")
                return
            self._finish(slot, {"status": Status.ERROR, "message": f"crashed: {why}"}, done,
                         healthy=False, returned="an earlier cell of its batch crashed the worker")
            return
        for reply in replies:
            if slot.phase == "init":
                if reply.get("op") == "ready":
                    slot.worker.ready = reply
                    slot.worker.memory.whole_tree = bool(reply.get("starts_processes"))
                    if "cpus" in reply:
                        self.worker_cpus[reply.get("worker", "?")] = reply["cpus"]
                    self._send_solve(slot)
                else:
                    self._finish(slot, {"status": Status.ERROR, "start_failed": True,
                                        "message": "entrant failed to start: "
                                        + str(reply.get("message"))}, done, healthy=False,
                                 returned="entrant failed to start")
                    return
            elif slot.phase == "solve" and reply.get("op") == "result":
                reply.pop("op")
                reply.pop("i", None)
                if reply.get("cpus") and reply.get("worker"):    # a cell of several cores
                    self.worker_cpus[reply["worker"]] = reply["cpus"]
                self._finish(slot, self._judge_limits(slot, reply), done, healthy=True)
                if slot.phase != "solve":
                    return

    def _judge_limits(self, slot: _Slot, reply: dict[str, Any]) -> dict[str, Any]:
        """A worker's measurement held to the limits: over the time limit it is a timeout,
        over the memory limit (reached between two polls) a memout."""
        wall = reply.get("wall_s")
        if wall is not None and wall > self.timeout_s:
            return {"status": Status.TIMEOUT, "peak_rss_mb": reply.get("peak_rss_mb"),
                    "message": f"finished in {wall:.3g} s, over the {self.timeout_s:g} s limit"}
        if reply.get("peak_rss_mb") is None:
            reply["peak_rss_mb"] = slot.rss_peak or None
        peak = reply["peak_rss_mb"]
        if self.memory_mb and peak and peak > self.memory_mb:   # past it between polls
            return {"status": Status.MEMOUT, "peak_rss_mb": peak,
                    "message": f"peak {peak:.0f} MB, over the {self.memory_mb:g} MB limit "
                               "(reached between two polls)"}
        return reply

    def _on_deadline(self, slot: _Slot, done: list) -> None:
        if slot.phase == "init":
            self._finish(slot, {"status": Status.ERROR, "start_failed": True, "message":
                                f"entrant did not warm up within {self.init_timeout_s:g} s"},
                         done, healthy=False, returned="entrant failed to start")
            return
        rss = max(slot.rss_peak, self._cell_rss(slot))
        elapsed = time.monotonic() - slot.sent
        self._finish(slot, {"status": Status.TIMEOUT, "peak_rss_mb": rss or None,
                            "message": f"killed after {elapsed:.2f} s (limit {self.timeout_s:g} s)"},
                     done, healthy=False, returned="an earlier cell of its batch timed out")

    def _cell_rss(self, slot: _Slot) -> float:
        """The memory of the cell the worker is on: the worker's own (a solver that runs in
        it), or the processes below it and what the worker grew by since its batch began."""
        assert slot.worker is not None
        own, below = slot.worker.memory.split()
        if not slot.worker.memory.whole_tree:
            return own
        return below + max(0.0, own - slot.base_mb)

    def _check_memory(self, slot: _Slot, done: list) -> None:
        assert self.memory_mb is not None
        rss = self._cell_rss(slot)
        slot.rss_peak = max(slot.rss_peak, rss)
        if rss > self.memory_mb:
            elapsed = time.monotonic() - slot.sent
            self._finish(slot, {"status": Status.MEMOUT, "peak_rss_mb": rss, "message":
                                f"killed at {rss:.0f} MB after {elapsed:.2f} s "
                                f"(limit {self.memory_mb:g} MB)"}, done, healthy=False,
                         returned="an earlier cell of its batch ran out of memory")
