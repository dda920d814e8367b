"""What a cell is on its way to runs.csv: the request sent to a worker, the measurement that
comes back, and the wire format they cross a worker's pipe in.

The path of one cell (docs/design.md draws it)::

    Request --(scheduler: one batch of an entrant's cells)--> executor --(wire v1)--> worker
    worker: solve, measure --(wire v1)--> executor: limits held, worker and cores added
    Measurement --(referee: its claim checked)--> rows.make_row --> Row --> runs.csv

* :class:`Request`: one cell for a worker (its key, the instance's name and text, the cores it
  holds). The scheduler makes it; an executor sends it out in a batch of one entrant.
* :class:`Measurement`: what became of a cell: the worker's measurement (status, times, memory,
  counters, the grid it returned), or the executor's verdict when the worker did not finish
  (timeout, memout, crash). The executor adds what only it knows (the worker, when it started,
  the cores the cell held); the referee sets ``verified`` and ``referee``; nothing else edits it.
* :class:`Returned`: a cell sent and not run (an earlier cell of its batch was killed, or the
  harness failed under it): the scheduler sends it again.

**Wire format** (:data:`WIRE`): the worker's ``ready`` reply names the version it speaks; a
solve request is ``{"op": "solve", "wire": 1, "timeout", "min_time", "cpus", "cells": [[i,
instance, text], ...]}`` and each finished cell comes back as one JSON line holding a list
(:meth:`Measurement.to_wire`, positions as :data:`FIELDS`): no key names per cell, so the
parent decodes tens of thousands of cells a second.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from experiments.harness.identity import CellKey
from solvers.status import Status

#: the version of the wire format a worker and its executor speak
WIRE = 1
#: a measurement's fields on the wire, in order, after the reply's tag and the cell's index
FIELDS = ("status", "solution", "wall_s", "cpu_s", "peak_rss_mb", "iterations", "times",
          "counters", "message", "cpus")

_STATUS = {s.value: s for s in Status}


@dataclass(frozen=True, slots=True)
class Request:
    """One cell for a worker: ``key`` its identity, ``instance`` the name it is known by (its
    file), ``text`` the puzzle, ``cores`` the executor slots it holds (an entrant that runs
    several searches at once), ``group`` what it is expected to cost like (family, entrant,
    n: an executor sizes its batches by it)."""
    key: CellKey
    entrant: str
    instance: str
    text: str
    cores: int = 1
    group: tuple[str, str, int] | None = None


@dataclass(slots=True)
class Measurement:
    """What became of one cell (see the module docstring). Times are seconds per solve (the
    mean over ``iterations`` repeats of a fast one), memory the peak resident MB of the cell's
    processes; ``times`` holds phase seconds, ``counters`` the solver's work counters."""
    status: Status
    message: str = ""
    verified: bool = False
    #: the grid the solver returned, as one line (the referee checks it, then it is dropped)
    solution: str | None = None
    wall_s: float | None = None
    cpu_s: float | None = None
    peak_rss_mb: float | None = None
    iterations: int | None = None
    times: dict[str, float] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    #: the worker that ran it (host:pid), when it started (UTC), the cores it held and the CPUs
    #: it ran on: the executor's to set
    worker: str = ""
    started_at: str = ""
    cores: int = 1
    cpus: list[int] | None = None
    #: the entrant's worker did not start (the cell itself did not run)
    start_failed: bool = False
    #: on what the verdict on the cell's claim rests (the referee's to set)
    referee: str = ""

    @property
    def answered(self) -> bool:
        """Whether the cell claims an answer (solved or no solution)."""
        return self.status is Status.SOLVED or self.status is Status.UNSAT

    def to_wire(self, index: int) -> list[Any]:
        """The measurement as the worker sends it (the cell's ``index`` in its batch first)."""
        return ["result", index, self.status.value, self.solution, self.wall_s, self.cpu_s,
                self.peak_rss_mb, self.iterations, self.times, self.counters, self.message,
                self.cpus]

    @classmethod
    def from_wire(cls, items: list[Any]) -> Measurement:
        """The measurement of a worker's ``result`` list (:meth:`to_wire`); a status word
        outside the contract is an error that names it."""
        (_, _, word, solution, wall, cpu, peak, iterations, times, counters, message,
         cpus) = items
        status = _STATUS.get(word)
        if status is None:
            return cls(Status.ERROR, f"unknown status {word!r}", cpus=cpus)
        return cls(status, message or "", False, solution, wall, cpu, peak, iterations,
                   times or {}, counters or {}, cpus=cpus)


@dataclass(frozen=True, slots=True)
class Returned:
    """A cell sent and not run: ``message`` says why; ``harness_fault`` when the harness
    failed under it (its worker's zygote ended), not its entrant."""
    message: str
    harness_fault: bool = False


#: what an executor hands back for a cell
Outcome = Measurement | Returned


def status_of(word: Any) -> Status | None:
    """The :class:`Status` of a word (or a Status), None for anything else."""
    if isinstance(word, Status):
        return word
    return _STATUS.get(word) if isinstance(word, str) else None
