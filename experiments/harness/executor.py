"""Executors: run cells in killable worker processes, under time and memory limits.

A :class:`LocalExecutor` is an :class:`~experiments.harness.executor_protocol.Executor`:
it takes batches of cells and hands back their outcomes. The limits are
enforced here, in the parent, never trusted to the worker:

* **timeout**: a worker still busy ``timeout_s`` (+ a small grace) after the
  request was sent is killed with its whole process group (so an external
  solver binary dies too); a result whose measured wall time is over the limit
  is a timeout as well.
* **memout**: the cell's memory (its worker's, or what its solver started: :mod:`solvers.processes.tree`)
  is polled every :data:`MEMORY_POLL_S`; past ``memory_mb`` the group is killed, and a result
  whose peak is over the limit is a memout as well.
* **error**: a worker that dies (crash, signal) or fails to start (then the
  measurement says ``start_failed``); the next cell gets a fresh worker.

**Cells of several cores**: a request of ``cores`` k (an entrant such as ``parallel``
that runs k searches at once, :attr:`solvers.interface.Solver.cores`) holds k idle slots
until it finishes: its worker runs on their k CPUs (sent with the solve request, see
:mod:`experiments.harness.worker`) and nothing else runs on them meanwhile; :meth:`free`
counts idle slots, so the scheduler waits until k are idle. The measurement says ``cores``.

**Pinning** (``cpus``): worker slot i runs on CPU ``cpus[i]`` alone (set before the
worker's program starts, inherited by the solver binaries it runs; see
:mod:`experiments.harness.pinning` for the allocation); each worker reports the CPUs it
may use in its ``ready`` reply, kept in :attr:`LocalExecutor.worker_cpus`.

:class:`LocalExecutor` keeps ``jobs`` workers (:class:`experiments.harness.worker_process.WorkerProcess`),
each warm for one entrant and reused while healthy.
"""

from __future__ import annotations

import select
import time
from typing import Any

from experiments.harness import worker_zygote
from experiments.harness.identity import CellKey
from experiments.harness.messages import WIRE, Measurement, Outcome, Request, Returned
from experiments.harness.provenance import utc_now
from experiments.harness.worker_process import WorkerProcess, worker_env
from experiments.harness.worker_slot import Slot
from formats.errors import RaceError
from solvers.status import Status

#: seconds between two memory polls of a busy worker
MEMORY_POLL_S = 0.05
#: seconds a worker gets past its time limit before the kill (its reply may be in flight)
GRACE_S = 0.1
#: at most one round of finished cells this often (s), while no worker waits for a batch
POLL_S = 0.05
#: seconds a worker may take to import and warm up its entrant
INIT_TIMEOUT_S = 180.0


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
        self.slots = [Slot(cpu=cpus[i] if cpus else None) for i in range(jobs)]
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
                self._zygote = worker_zygote.take(self.env, self.die_with_parent)
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

    def submit_batch(self, init: dict[str, Any], cells: list[Request]) -> None:
        """Start ``cells`` (of one entrant, whose worker ``init`` creates, and one ``cores``)
        on a free worker (one warm for their entrant if any), which runs them one after the
        other and answers each as it finishes; each keeps its own limits. A cell of ``cores``
        k > 1 (an entrant that runs k searches at once) holds k idle slots: its worker runs on
        their k CPUs and no other cell runs on them meanwhile."""
        entrant = cells[0].entrant
        cores = max(1, cells[0].cores)
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
            slot.worker = WorkerProcess(init, self.env, self.die_with_parent, slot.cpu,
                                        zygote=self._warm_start())
            slot.phase, slot.deadline = "init", time.monotonic() + self.init_timeout_s
        else:
            self._send_solve(slot)

    def _park(self, slot: Slot) -> None:
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
    def _unpark(slot: Slot, entrant: str) -> WorkerProcess | None:
        """The slot's parked worker of ``entrant`` if it is still alive."""
        worker = slot.parked.pop(entrant, None)
        if worker is not None and worker.proc.poll() is not None:
            worker.kill()                       # died while parked: reaped, a fresh one starts
            return None
        return worker

    def poll(self, max_wait: float = 0.5) -> list[tuple[CellKey, Outcome]]:
        """Wait up to ``max_wait`` s for cells to finish (or be killed); return them. A cell
        whose outcome is :class:`Returned` was not run (an earlier cell of its batch was
        killed, or the harness failed under it): it is the caller's to send again."""
        done: list[tuple[CellKey, Outcome]] = []
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
        if self._zygote is not None:            # the next executor of this thread forks from it
            worker_zygote.leave(self._zygote)
            self._zygote = None

    # -- the state machine of a slot -------------------------------------------
    def _send_solve(self, slot: Slot) -> None:
        assert slot.worker is not None
        message: dict[str, Any] = {
            "op": "solve", "wire": WIRE, "timeout": self.timeout_s,
            "cells": [(i, r.instance, r.text) for i, r in enumerate(slot.batch)]}
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

    def _started(self, slot: Slot, now: float) -> None:
        """The worker is on the next cell of its batch from ``now`` (as the parent sees it)."""
        slot.sent, slot.started_at, slot.rss_peak = now, utc_now(), 0.0
        slot.deadline = now + self.timeout_s + GRACE_S

    def _outcome(self, slot: Slot, outcome: Measurement) -> Measurement:
        """The cell's measurement with what only the executor knows: its worker, when it
        started, the cores it held and the CPUs its worker may use."""
        worker = slot.worker
        ready = (worker.ready or {}) if worker else {}
        outcome.worker = outcome.worker or ready.get("worker") or \
            f"?:{worker.pid if worker else '?'}"
        outcome.started_at = outcome.started_at or slot.started_at or utc_now()
        if outcome.cpus is None and "cpus" in ready:
            outcome.cpus = ready["cpus"]
        outcome.cores = 1 + len(slot.holds)
        return outcome

    def _finish(self, slot: Slot, outcome: Measurement | None, done: list, healthy: bool,
                returned: str = "") -> None:
        """The cell the worker is on ends with ``outcome`` (None: it is returned too); the rest
        of the batch is returned (``returned`` says why) unless the worker goes on with it."""
        key = slot.key
        if key is not None and outcome is not None:
            done.append((key, self._outcome(slot, outcome)))
            slot.next += 1
        if healthy and slot.next < len(slot.batch):
            self._started(slot, time.monotonic())
            return
        for request in slot.batch[slot.next:]:
            done.append((request.key, Returned(returned or "not run")))
        if not healthy and slot.worker is not None:
            slot.worker.kill()
            slot.worker = None
        slot.phase, slot.batch, slot.next = "idle", [], 0
        for held in slot.holds:
            held.phase = "idle"
        slot.holds = []

    def _harness_fault(self, slot: Slot) -> str:
        """Why a worker's death is the harness's, not its entrant's ("" when it is not): a
        forked worker dies with its zygote."""
        worker = slot.worker
        zygote = getattr(worker.proc, "zygote", None) if worker else None
        if zygote is not None and not zygote.alive():
            return "the worker zygote ended under it"
        return ""

    def _on_readable(self, slot: Slot, done: list) -> None:
        assert slot.worker is not None
        replies = slot.worker.receive()
        if replies is None:                               # EOF: the worker died
            fault = self._harness_fault(slot)
            if fault:                                     # the cells are run again
                for request in slot.batch[slot.next:]:
                    done.append((request.key, Returned(fault, harness_fault=True)))
                slot.next = len(slot.batch)
                self._finish(slot, None, done, healthy=False)
                return
            why = slot.worker.death()
            if slot.phase == "init":
                self._finish(slot, Measurement(Status.ERROR, f"entrant failed to start: {why}",
                                               start_failed=True),
                             done, healthy=False, returned="entrant failed to start")
                return
            self._finish(slot, Measurement(Status.ERROR, f"crashed: {why}"), done,
                         healthy=False, returned="an earlier cell of its batch crashed the worker")
            return
        for reply in replies:
            if slot.phase == "init":
                if isinstance(reply, dict) and reply.get("op") == "ready" \
                        and reply.get("wire") == WIRE:
                    slot.worker.ready = reply
                    slot.worker.memory.whole_tree = bool(reply.get("starts_processes"))
                    if "cpus" in reply:
                        self.worker_cpus[reply.get("worker", "?")] = reply["cpus"]
                    self._send_solve(slot)
                else:
                    why = (str(reply.get("message")) if isinstance(reply, dict)
                           and reply.get("op") == "error" else
                           f"it speaks another wire format than {WIRE}")
                    self._finish(slot, Measurement(Status.ERROR, f"entrant failed to start: {why}",
                                                   start_failed=True), done, healthy=False,
                                 returned="entrant failed to start")
                    return
            elif slot.phase == "solve" and isinstance(reply, list) and reply and \
                    reply[0] == "result":
                measured = Measurement.from_wire(reply)
                if measured.cpus and slot.worker.ready:       # a cell of several cores
                    self.worker_cpus[slot.worker.ready.get("worker", "?")] = measured.cpus
                self._finish(slot, self._judge_limits(slot, measured), done, healthy=True)
                if slot.phase != "solve":
                    return

    def _judge_limits(self, slot: Slot, reply: Measurement) -> Measurement:
        """A worker's measurement held to the limits: over the time limit it is a timeout,
        over the memory limit (reached between two polls) a memout."""
        wall = reply.wall_s
        if wall is not None and wall > self.timeout_s:
            return Measurement(Status.TIMEOUT, f"finished in {wall:.3g} s, over the "
                               f"{self.timeout_s:g} s limit", peak_rss_mb=reply.peak_rss_mb)
        if reply.peak_rss_mb is None:
            reply.peak_rss_mb = slot.rss_peak or None
        peak = reply.peak_rss_mb
        if self.memory_mb and peak and peak > self.memory_mb:   # past it between polls
            return Measurement(Status.MEMOUT, f"peak {peak:.0f} MB, over the {self.memory_mb:g} "
                               "MB limit (reached between two polls)", peak_rss_mb=peak)
        return reply

    def _on_deadline(self, slot: Slot, done: list) -> None:
        if slot.phase == "init":
            self._finish(slot, Measurement(Status.ERROR, "entrant did not warm up within "
                                           f"{self.init_timeout_s:g} s", start_failed=True),
                         done, healthy=False, returned="entrant failed to start")
            return
        rss = max(slot.rss_peak, self._cell_rss(slot))
        elapsed = time.monotonic() - slot.sent
        self._finish(slot, Measurement(Status.TIMEOUT, f"killed after {elapsed:.2f} s "
                                       f"(limit {self.timeout_s:g} s)", peak_rss_mb=rss or None),
                     done, healthy=False, returned="an earlier cell of its batch timed out")

    def _cell_rss(self, slot: Slot) -> float:
        """The memory of the cell the worker is on: the worker's own (a solver that runs in
        it), or the processes below it and what the worker grew by since its batch began."""
        assert slot.worker is not None
        own, below = slot.worker.memory.split()
        if not slot.worker.memory.whole_tree:
            return own
        return below + max(0.0, own - slot.base_mb)

    def _check_memory(self, slot: Slot, done: list) -> None:
        assert self.memory_mb is not None
        rss = self._cell_rss(slot)
        slot.rss_peak = max(slot.rss_peak, rss)
        if rss > self.memory_mb:
            elapsed = time.monotonic() - slot.sent
            self._finish(slot, Measurement(Status.MEMOUT, f"killed at {rss:.0f} MB after "
                                           f"{elapsed:.2f} s (limit {self.memory_mb:g} MB)",
                                           peak_rss_mb=rss), done, healthy=False,
                         returned="an earlier cell of its batch ran out of memory")
