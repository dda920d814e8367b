"""The measurement worker: a process that runs cells of one entrant, warm.

Started by the executor as ``python -m experiments.harness.worker`` in a session of its
own (so a kill of its process group takes external solver binaries with it; the
executor also asks the kernel to kill it when the parent dies).
It speaks JSON lines: requests on stdin, replies on the real stdout (fd 1 is
pointed at stderr once started, so nothing a solver prints can corrupt the
protocol).

Requests and replies (wire format 1, :mod:`experiments.harness.messages`)::

    {"op": "init", "name", "target", "fixed", "spec"}
        -> {"op": "ready", "wire": 1, "worker", "solver", "params", "cpus", "starts_processes"}
         | {"op": "error", "message"}
    {"op": "solve", "wire": 1, "timeout", "min_time", "cpus", "cells": [[i, instance, text], ...]}
        -> one line per cell as it finishes: ["result", i, status, solution, wall_s, cpu_s,
           peak_rss_mb, iterations, times, counters, message, cpus]

``cpus`` (optional): the CPUs the cell may use; the worker runs on exactly those for it (a
cell of several cores gets one CPU per core, :mod:`experiments.harness.executor`).

``init`` creates the entrant through a :class:`solvers.registry.Registry` made of
the entry sent along (so a solver registered only in the parent, e.g. by a test,
is found; nothing global changes) and calls ``load()`` (its ``warmup()``) once: imports and JIT
compilation are never inside a measurement. ``solve`` parses the instance (outside the measurement),
runs ``solver.solve(grid)`` and measures it (:func:`measure`). The worker exits
when stdin closes.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import socket
import sys
import time
import traceback
from collections.abc import Iterator
from typing import Any

from experiments.harness.messages import WIRE, Measurement
from solvers.status import Status

#: solves at least this long (s) are measured once; faster ones are repeated
#: until this much measured time has accumulated (pyperf-style calibration)
MIN_TIME = 0.02
#: the repetition a campaign may spend in all (s): a campaign of many cells gets a lower floor
#: (:func:`repetition_floor`) instead of paying :data:`MIN_TIME` for each of its fast solves
REPEAT_BUDGET = 60.0
#: never repeat a solve more often than this
MAX_ITERATIONS = 100_000
#: the first cell of a box size in a worker is solved twice (the first unmeasured) when
#: its solve takes less than this (and less than a tenth of the time limit)
REWARM_BELOW = 1.0


def repetition_floor(cells: int, budget: float = REPEAT_BUDGET, most: float = MIN_TIME) -> float:
    """The repetition floor (``min_time`` of :func:`measure`) for a campaign of ``cells``
    cells: ``budget / cells`` capped at ``most``. A campaign of up to ``budget / most`` cells
    (3,000 by default) keeps the full floor; 49,151 cells get 1.2 ms, so the repetition costs
    at most ``budget`` seconds of the campaign, whatever its size (docs/performance.md)."""
    return most if cells <= 0 else min(most, budget / cells)


def _cpu_seconds() -> float:
    """User + system CPU of this process and of its waited-for children."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


class _ProcFiles:
    """This process's ``/proc/self/clear_refs`` and ``/proc/self/status``, opened once and
    kept open: re-reading an open /proc file gives fresh values, and opening them for every
    cell cost more than a small solve (about 0.1 ms of the harness's overhead per cell).
    Reopened in a forked child (its /proc/self is another process's)."""

    def __init__(self) -> None:
        self.pid = -1
        self.clear_refs: int | None = None
        self.status: int | None = None

    def _open(self) -> None:
        if self.pid == os.getpid():
            return
        self.pid = os.getpid()
        self.clear_refs = self.status = None
        with contextlib.suppress(OSError):
            self.clear_refs = os.open("/proc/self/clear_refs", os.O_WRONLY | os.O_CLOEXEC)
        with contextlib.suppress(OSError):
            self.status = os.open("/proc/self/status", os.O_RDONLY | os.O_CLOEXEC)

    def reset_peak(self) -> bool:
        self._open()
        if self.clear_refs is None:
            return False
        try:
            os.write(self.clear_refs, b"5")
            return True
        except OSError:
            return False

    def peak_kb(self) -> int | None:
        self._open()
        if self.status is None:
            return None
        try:
            text = os.pread(self.status, 1 << 16, 0)
            at = text.index(b"\nVmHWM:") + 7
            return int(text[at:text.index(b"\n", at)].split()[0])
        except (OSError, ValueError, IndexError):
            return None


_PROC = _ProcFiles()


def _reset_peak_rss() -> bool:
    """Reset this process's peak RSS (VmHWM) so the next reading is per cell (Linux >= 4.0)."""
    return _PROC.reset_peak()


def _peak_rss_kb() -> int:
    """Peak RSS of this process in kB: VmHWM (since the last reset) or ru_maxrss."""
    peak = _PROC.peak_kb()
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _verdict(first: Any, results: list[Any]) -> tuple[Status, str]:
    """The cell's status and message: the first solve's, unless a solve is wrong or the
    repeats disagree. (A returned grid is verified by the solver's base class and again, in
    the parent, by the referee: the worker adds no third check.)"""
    for r in results:
        if r.status == Status.WRONG:
            return Status.WRONG, r.message or "the solver's answer failed verification"
        if r.status != first.status:
            return Status.WRONG, f"repeated solves disagree: {first.status} then {r.status}"
    return Status(first.status), first.message


def measure(solver: Any, grid: Any, min_time: float = MIN_TIME,
            max_iterations: int = MAX_ITERATIONS, rewarm_below: float = 0.0,
            tree: bool = False) -> Measurement:
    """Solve ``grid`` with ``solver`` and measure it.

    Returns the :class:`~experiments.harness.messages.Measurement`: ``status`` (solved /
    unsat / unknown / wrong), ``wall_s`` and ``cpu_s`` per solve (CPU includes waited-for
    children, e.g. a kissat binary), ``peak_rss_mb``, ``iterations``, ``times``
    (phase seconds per solve), ``counters`` and ``message``.

    A solve faster than ``min_time`` is repeated until the repeats add up to
    ``min_time`` (the first, calibrating solve is not counted) and the times
    are averaged.

    ``peak_rss_mb`` is the memory of the solver's processes: for a solver that runs in this
    process (``tree`` False), this process's peak during the cell; for one that starts
    processes of its own (``tree`` True: ``cmd:``, an outside SAT binary), their peak (the
    children's high-water mark, when a child of this cell raised it; else None and the
    harness's own readings of the tree stand) plus what this process grew by during the
    cell: the worker's own baseline, which holds no part of the search, is not the cell's.

    When the first solve is shorter than ``rewarm_below`` (s) it is
    treated as a warm-up (it may have paid a per-n setup such as the DLX matrix
    of that size) and the measurement starts again. The grid returned goes back to the
    parent, whose referee verifies it: the solver's own verdict is not trusted.
    """
    from formats.grid_text import format_compact
    from solvers.processes.tree import reaped_peak_kb

    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    kids_peak0, kids_cpu0 = kids0.ru_maxrss, kids0.ru_utime + kids0.ru_stime
    _reset_peak_rss()
    base_kb = _peak_rss_kb() if tree else 0     # just reset: this process's RSS now
    if tree:
        reaped_peak_kb(reset=True)
    cpu0 = _cpu_seconds()
    t0 = time.perf_counter()
    first = solver.solve(grid)
    wall = time.perf_counter() - t0
    cpu = _cpu_seconds() - cpu0
    if wall < rewarm_below and first.status != Status.WRONG:
        return measure(solver, grid, min_time, max_iterations, tree=tree)
    results = [first]
    if wall < min_time and first.status != Status.WRONG:
        results = []
        spent = 0.0
        cpu0 = _cpu_seconds()
        while spent < min_time and len(results) < max_iterations:
            t0 = time.perf_counter()
            results.append(solver.solve(grid))
            spent += time.perf_counter() - t0
        cpu = (_cpu_seconds() - cpu0) / len(results)
        wall = spent / len(results)
    self_peak = _peak_rss_kb()
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak_mb: float | None = self_peak / 1024.0
    if tree:
        # the kernel keeps the children's lifetime high-water mark: it is this cell's child's
        # peak when this cell raised it; otherwise unknown here (the parent's readings stand)
        grew = max(0, self_peak - base_kb) / 1024.0
        child_kb = max(reaped_peak_kb(), kids.ru_maxrss if kids.ru_maxrss > kids_peak0 else 0)
        peak_mb = child_kb / 1024.0 + grew if child_kb else None
    elif kids.ru_utime + kids.ru_stime > kids_cpu0 or kids.ru_maxrss > kids_peak0:
        # a solver that said it starts no process ran one: its high-water mark counts too
        peak_mb = (self_peak + kids.ru_maxrss) / 1024.0

    status, message = _verdict(first, results)
    times: dict[str, float] = {}
    for r in results:
        for phase, seconds in r.times.items():
            times[phase] = times.get(phase, 0.0) + seconds
    times = {p: s / len(results) for p, s in times.items()}
    solution = first.solution if status is Status.SOLVED else None
    return Measurement(status, message or "",
                       # the grid goes back to the parent, whose referee verifies it again
                       solution=format_compact(solution) if solution is not None else None,
                       wall_s=wall, cpu_s=cpu, peak_rss_mb=peak_mb, iterations=len(results),
                       times=times, counters={k: int(v) for k, v in first.counters.items()})


def allowed_cpus() -> list[int] | None:
    """The CPUs this worker may run on (its pinning), None where the OS cannot say."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return None


class _Worker:
    def __init__(self) -> None:
        self.solver: Any = None
        self.sizes: set[int] = set()      # box sizes this worker has solved at least once
        self.ident = f"{socket.gethostname()}:{os.getpid()}"

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """The reply to an ``init`` request (``solve``: :meth:`cells`)."""
        op = request.get("op")
        if op == "init":
            return self.init(request)
        return {"op": "error", "message": f"unknown request {op!r}"}

    def init(self, request: dict[str, Any]) -> dict[str, Any]:
        from experiments.harness.entrants import jsonable
        from solvers.registry import Registry, parse_spec
        try:
            # the entry comes with the request: a solver registered only in the parent works
            name, _ = parse_spec(request["spec"])
            registry = Registry({name: (request["target"], request.get("fixed", {}))})
            self.solver = registry.create(request["spec"])
            self.solver.load()
        except Exception as exc:  # noqa: BLE001 - reported to the parent as the cell's error
            return {"op": "error", "message": f"{type(exc).__name__}: {exc}"}
        return {"op": "ready", "wire": WIRE, "worker": self.ident, "solver": self.solver.name,
                "params": jsonable(self.solver.params), "cpus": allowed_cpus(),
                "starts_processes": bool(getattr(self.solver, "starts_processes", False))}

    def cells(self, request: dict[str, Any]) -> Iterator[list[Any]]:
        """Solve and measure each cell of a ``solve`` request in turn, yielding its reply as
        it finishes (:meth:`Measurement.to_wire`, with the cell's index in the request)."""
        from formats.grid_text import parse
        cells = request.get("cells") or []
        if self.solver is None:
            for index, _, _ in cells:
                yield Measurement(Status.ERROR, "worker not initialised").to_wire(index)
            return
        timeout = float(request.get("timeout", 0.0))
        min_time = float(request.get("min_time", MIN_TIME))
        cpus = request.get("cpus")
        if cpus:
            try:
                os.sched_setaffinity(0, {int(c) for c in cpus})
            except OSError:
                cpus = None
        tree = bool(getattr(self.solver, "starts_processes", False))
        for index, instance, text in cells:
            try:
                grid = parse(text, instance or "<instance>").grids[0]
                # the first cell of a size in this worker gets a warm-up solve when that is
                # cheap (well inside the limit): per-size setup is not part of a measurement
                rewarm = min(REWARM_BELOW, timeout / 10) if grid.n not in self.sizes else 0.0
                self.sizes.add(grid.n)
                out = measure(self.solver, grid, min_time, rewarm_below=rewarm, tree=tree)
            except Exception as exc:  # noqa: BLE001 - a solver crash is the cell's outcome
                tail = traceback.format_exc(limit=-3).strip().splitlines()
                print("\n".join(tail), file=sys.stderr)
                out = Measurement(Status.ERROR, f"{type(exc).__name__}: {exc}")
            if cpus:
                out.cpus = allowed_cpus()           # the CPUs this cell ran on
            yield out.to_wire(index)


def main() -> None:
    """Serve requests from stdin until it closes."""
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)                       # anything printed by a solver goes to stderr
    worker = _Worker()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("op") == "solve":
            for reply in worker.cells(request):     # each as soon as its cell is done
                proto.write(json.dumps(reply, default=str) + "\n")
            continue
        proto.write(json.dumps(worker.handle(request), default=str) + "\n")


if __name__ == "__main__":
    main()
