"""Scheduling a campaign's cells on an executor: resume, escalation, warm workers.

Rules:

* **Resume**: a cell (family, entrant, n, instance, repeat; :mod:`experiments.harness.identity`) that already has a row in
  ``runs.csv`` is not run again.
* **Escalation** (the skip rule, :mod:`experiments.harness.escalation`): once an entrant's
  median at some n is censored, its cells at larger n of that family are recorded as
  ``skipped`` at once; a cell at n starts only once each smaller n is settled.
* A worker that fails to start (e.g. its ``warmup()`` raises) records nothing: its
  cell goes back to the queue. An entrant whose worker fails :data:`START_ATTEMPTS`
  times gets no more cells this run; they stay without a record (counted in
  :attr:`RunStats.not_started`), so resuming the campaign tries them again.
* **Order** (``Config.order``): ``random`` (the default) sends the cells out family and n
  by family and n (n ascending), and within each (family, n) in a seeded random order
  across entrants, instances and repeats (:func:`interleave`), so that slow drift of the
  machine (thermals, a neighbour's job) spreads over every entrant instead of landing on
  whichever runs last; the executor keeps a warm worker per entrant, so interleaving costs
  no start-up. ``fixed`` sends them entrant by entrant (n ascending), preferring the
  entrant of an idle warm worker. Either way a cell waits for the skip rule above.
* **Cores**: a cell of an entrant that runs several searches at once (``parallel``: one
  core per member, at most ``--jobs``) holds that many of the executor's slots; the next
  cell in the order waits until as many are free (with ``-j 2`` and a two-member
  ``parallel`` cell, nothing runs beside it), so the race compares its wall time with
  single-core entrants on an idle machine, and its CPU time (all members) is recorded too.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from experiments.harness import runs_table
from experiments.harness.cell_queue import Queue
from experiments.harness.cells import Cell, Prepared, interleave
from experiments.harness.escalation import Escalation
from experiments.harness.identity import CellKey
from experiments.harness.instances import Instance, open_directory, read_instance
from experiments.harness.messages import Measurement, Request, Returned
from experiments.harness.provenance import utc_now
from experiments.harness.referee import Referee, _Case
from experiments.harness.rows import Row, make_row
from experiments.harness.schema import Status

if TYPE_CHECKING:
    from experiments.harness.executor_protocol import Executor


#: an entrant whose worker fails to start this many times gets no more cells this run
START_ATTEMPTS = 2
#: the orders of ``race run --order``
ORDERS = ("random", "fixed")
#: the worker time (s) a batch of cells is made to take, once its cells' cost is known
BATCH_S = 0.2
#: never more cells than this in one batch
MAX_BATCH = 256
#: a cell the harness failed under (its worker's zygote died) is sent again at most this often
RETRIES = 3


@dataclass
class RunStats:
    """What :func:`run` did."""
    ran: int = 0
    skipped: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    #: entrant -> (cells left without a record, why its worker did not start)
    not_started: dict[str, tuple[int, str]] = field(default_factory=dict)
    #: instance file -> the warning that a verified grid or the second method showed its
    #: record wrong (:attr:`experiments.harness.referee.Referee.wrong_records`)
    wrong_records: dict[str, str] = field(default_factory=dict)
    #: seconds from the first cell sent to the last row written (the race itself, without
    #: the preparation and the calibrations around it)
    seconds: float = 0.0


class _Race:
    """The state of one :func:`run`: pending and in-flight cells, escalation, start failures."""

    def __init__(self, prepared: Prepared, executor: Executor, writer: runs_table.RunsWriter,
                 on_row: Callable[[Row], None] | None) -> None:
        self.config = prepared.config
        self.executor, self.writer, self.on_row = executor, writer, on_row
        self.entrants = {e.spec: e for e in self.config.entrants}
        self.families = {f.key: f for f in self.config.families}
        self.escalation = Escalation(prepared.cells)
        if prepared.recorded:                   # the cells recorded before: as prepare read them
            for cell in prepared.cells:
                status = prepared.recorded.get(cell.key)
                if status is not None:
                    self.escalation.record(cell, status)
        self.random = self.config.order == "random"
        self.pending = Queue(interleave(prepared.pending, self.config.seed) if self.random
                             else list(prepared.pending))
        #: key -> (rank, cell) of each cell sent to the executor and not finished
        self.inflight: dict[CellKey, tuple[int, Cell]] = {}
        #: (entrant, family, n) -> [cells measured, worker seconds they took]: a batch's size
        self.cost: dict[tuple[str, str, int], list[float]] = {}
        #: (entrant, family, n) -> its cells waiting in the queue
        self.left: dict[tuple[str, str, int], int] = {}
        for cell in self.pending:
            group = (cell.entrant, cell.family, cell.n)
            self.left[group] = self.left.get(group, 0) + 1
        self.retried: dict[CellKey, int] = {}   # key -> times the harness failed under it
        self._holes: dict[tuple[str, int], float | None] = {}
        #: instance texts by sha256, each read once
        self.texts: dict[str, str] = {}
        #: the instance sets' directories, held open while the race reads their files
        self.directories: dict[Path, int | None] = {}
        #: instance sha256 -> its cells still to record: its text and the referee's case are
        #: let go with its last row (a campaign of 49,151 puzzles holds only those in flight)
        self.uses: dict[str, int] = {}
        for cell in self.pending:
            if cell.instance is not None:
                self.uses[cell.instance.sha256] = self.uses.get(cell.instance.sha256, 0) + 1
        self.referee = Referee(self.config.timeout_s)
        self.stats = RunStats(wrong_records=self.referee.wrong_records)
        self.failures: dict[str, int] = {}      # entrant -> workers that failed to start
        self.broken: dict[str, str] = {}        # entrant -> why its remaining cells are not run
        self.check_dead = True
        #: what the last sweep of :meth:`drop_dead` decided on (None: sweep next time)
        self.swept: tuple | None = None

    def emit(self, cell: Cell, outcome: Measurement, checked: bool | None = None,
             case: _Case | None = None) -> None:
        """Write the row of a finished cell and update escalation and the stats (``checked``:
        the referee's batch check of its grid, :meth:`Referee.check_many`, where made;
        ``case``: the referee's case of its instance, where at hand)."""
        c = self.config
        outcome = self.judge(cell, outcome, checked, case)
        if cell.instance is not None:
            self.done_with(cell.instance.sha256)
        row = make_row(c.campaign, c.seed, c.timeout_s, self.entrants[cell.entrant], cell,
                       outcome, self.holes(cell))
        self.writer.write(row)
        status = row.status
        self.escalation.record(cell, status)
        self.check_dead = True
        self.stats.statuses[status] = self.stats.statuses.get(status, 0) + 1
        if status == "skipped":
            self.stats.skipped += 1
        else:       # what its cells cost a worker (a limit at the limit): a batch's size
            self.stats.ran += 1
            cost = self.cost.get((cell.entrant, cell.family, cell.n))
            if cost is None:
                cost = self.cost[(cell.entrant, cell.family, cell.n)] = [0, 0.0]
            cost[0] += 1
            cost[1] += row.wall_s * (row.iterations or 1) if row.wall_s is not None else 0.0
        if self.on_row:
            self.on_row(row)

    def done_with(self, sha256: str) -> None:
        """One cell of the instance ``sha256`` is recorded: after its last, its text and case go."""
        left = self.uses.get(sha256, 1) - 1
        if left > 0:
            self.uses[sha256] = left
            return
        self.uses.pop(sha256, None)
        self.texts.pop(sha256, None)
        self.referee.cases.pop(sha256, None)

    def holes(self, cell: Cell) -> float | None:
        """The hole fraction of the cell's family at its n (None where it has none)."""
        key = (cell.family, cell.n)
        if key not in self._holes:
            family = self.families[cell.family]
            holes = family.options_for(cell.n).get("holes")
            if holes is None and family.kind == "holes":   # the generator's own default
                from generators.kinds import GENERATORS
                holes = GENERATORS["holes"][1]["holes"]
            self._holes[key] = holes
        return self._holes[key]

    def text(self, inst: Instance) -> str:
        """The text of instance ``inst`` (read once, let go with its last row)."""
        text = self.texts.get(inst.sha256)
        if text is None:
            if inst.directory not in self.directories:
                self.directories[inst.directory] = open_directory(inst.directory)
            text = self.texts[inst.sha256] = read_instance(inst, self.directories[inst.directory])
        return text

    def close(self) -> None:
        """Let go of the directories held open."""
        for fd in self.directories.values():
            if fd is not None:
                os.close(fd)
        self.directories.clear()

    def case(self, cell: Cell) -> _Case:
        """The referee's case of the cell's instance."""
        inst = cell.instance
        assert inst is not None
        case = self.referee.cases.get(inst.sha256)
        if case is not None:
            return case
        text = self.text(inst)
        instance_set = self.config.instance_set
        listed = instance_set.solutions.get(inst.file) if instance_set is not None else None
        return self.referee.case(inst.sha256, text, inst.file, listed)

    def judge(self, cell: Cell, outcome: Measurement, checked: bool | None = None,
              case: _Case | None = None) -> Measurement:
        """The measurement with its claim checked by the referee
        (:mod:`experiments.harness.referee`)."""
        if cell.instance is None or not outcome.answered:
            outcome.solution, outcome.verified = None, False
            return outcome
        return self.referee.judge(case or self.case(cell), outcome, cell.entrant,
                                  self.entrants[cell.entrant].method, checked)

    def drop_dead(self) -> None:
        """Record the pending cells that can no longer be worth running (escalation).

        The pending cells are swept only when what decides it changed (an entrant's
        first censored n, the broken entrants, a cell put back): a sweep per row would
        cost O(cells) per cell, quadratic in the campaign."""
        dead_at = {key: self.escalation.dead_at(*key) for key in self.escalation.n_values}
        seen = (dead_at, frozenset(self.broken))
        if seen == self.swept:
            self.check_dead = False
            return
        def wanted(cell: Cell) -> bool:
            dead = dead_at.get((cell.entrant, cell.family))
            if cell.entrant in self.broken:
                self.leave(cell)
            elif dead is not None and cell.n > dead:
                label = self.families[cell.family].key
                self.emit(cell, Measurement(
                    Status.SKIPPED, f"{cell.entrant}'s median on {label} at n={dead} is "
                    "censored (half or more of its cells unanswered)",
                    started_at=utc_now(), cores=self.cores(cell)))
            else:
                return True
            group = (cell.entrant, cell.family, cell.n)
            self.left[group] -= 1
            return False
        self.pending.keep(wanted)
        self.check_dead, self.swept = False, seen

    def leave(self, cell: Cell) -> None:
        """Leave a cell of an entrant that cannot start without a record (resume retries it)."""
        count, _ = self.stats.not_started.get(cell.entrant, (0, ""))
        self.stats.not_started[cell.entrant] = (count + 1, self.broken[cell.entrant])

    def cores(self, cell: Cell) -> int:
        """The cores a cell holds: its entrant's (:attr:`Entrant.cores`), at most the
        executor's slots (``jobs``): an entrant of more members than slots shares them."""
        wanted = self.entrants[cell.entrant].cores
        capacity = getattr(self.executor, "jobs", None)
        return max(1, min(wanted, capacity) if capacity else wanted)

    def batch_size(self, cell: Cell) -> int:
        """How many cells of ``cell``'s entrant, family and n go out together: as many as take
        :data:`BATCH_S` of a worker's time at what such cells took so far (one while none has
        been measured, so the first cells of a harder n or family are never batched on the
        estimate of an easier one), at most :data:`MAX_BATCH` and at most an even share of
        what is left of them among the executor's slots (no worker idles at the end)."""
        group = (cell.entrant, cell.family, cell.n)
        cost = self.cost.get(group)
        if not cost or not cost[0]:
            return 1
        each = max(cost[1] / cost[0], 1e-5)
        share = math.ceil(self.left.get(group, 1) / max(1, getattr(self.executor, "jobs", 1)))
        return max(1, min(int(BATCH_S / each), MAX_BATCH, share))

    def dispatch(self) -> None:
        """Submit batches of cells while the executor has room; a cell of k cores waits until
        k slots are free (nothing is sent past it meanwhile, so it is never starved)."""
        while self.executor.free() > 0 and len(self.pending):
            prefer = None if self.random else self.executor.warm_entrants()
            found = self.pending.first(self.escalation.may_start, prefer)
            if found is None or self.executor.free() < self.cores(found[1]):
                return
            taken = self.pending.take(found, self.batch_size(found[1]))
            entrant = self.entrants[found[1].entrant]
            cores = self.cores(found[1])
            batch = []
            for rank, cell in taken:
                inst = cell.instance
                assert inst is not None
                text = self.text(inst)
                self.left[(cell.entrant, cell.family, cell.n)] -= 1
                batch.append(Request(cell.key, cell.entrant, inst.file, text, cores,
                                     (cell.family, cell.entrant, cell.n)))
                self.inflight[cell.key] = (rank, cell)
            self.executor.submit_batch(entrant.init_request(), batch)

    def collect(self) -> None:
        """Record the cells the executor finished; count entrants that fail to start; put the
        cells it returned unrun back in line."""
        back: list[tuple[int, Cell]] = []
        finished = self.executor.poll(0.5)
        answers = [(self.case(self.inflight[key][1]), outcome.solution, at)
                   for at, (key, outcome) in enumerate(finished)
                   if isinstance(outcome, Measurement) and outcome.status is Status.SOLVED
                   and self.inflight[key][1].instance]
        checked: dict[int, tuple[bool | None, _Case]] = {}
        if answers:                             # every returned grid checked in one pass
            verdicts = self.referee.check_many([(case, sent or "") for case, sent, _ in answers])
            checked = {at: (verdict, case) for (case, _, at), verdict in zip(answers, verdicts)}
        for at, (key, outcome) in enumerate(finished):
            rank, cell = self.inflight.pop(key)
            if isinstance(outcome, Returned):
                if outcome.harness_fault:
                    self.retried[key] = self.retried.get(key, 0) + 1
                    if self.retried[key] > RETRIES:     # not the entrant's: left for a resume
                        count, _ = self.stats.not_started.get(cell.entrant, (0, ""))
                        self.stats.not_started[cell.entrant] = (
                            count + 1, f"the harness failed under its cells: {outcome.message}")
                        continue
                back.append((rank, cell))
            elif outcome.start_failed:
                if self.start_failed(cell, outcome):
                    back.append((rank, cell))
            else:
                self.emit(cell, outcome, *checked.get(at, (None, None)))
        if back:
            self.pending.put_back(back)
            for _, cell in back:
                self.left[(cell.entrant, cell.family, cell.n)] += 1
            self.swept = None                   # the cells missed sweeps while in flight
        self.writer.flush()

    def start_failed(self, cell: Cell, outcome: Measurement) -> bool:
        """A worker did not start: the cell goes back to the queue (True), unless its entrant
        has now failed :data:`START_ATTEMPTS` times (then it is left for a resume)."""
        self.failures[cell.entrant] = self.failures.get(cell.entrant, 0) + 1
        if self.failures[cell.entrant] >= START_ATTEMPTS and cell.entrant not in self.broken:
            self.broken[cell.entrant] = outcome.message or "entrant failed to start"
            self.check_dead = True
        if cell.entrant in self.broken:
            self.leave(cell)
            return False
        return True

    def loop(self) -> None:
        """Run until every pending cell has a row."""
        while len(self.pending) or self.inflight:
            if self.check_dead:
                self.drop_dead()
            self.dispatch()
            if self.inflight:
                self.collect()
            elif len(self.pending) and self.pending.first(self.escalation.may_start) is None:
                raise RuntimeError("scheduler stalled: no cell can start")  # a bug


def run(prepared: Prepared, executor: Executor,
        on_row: Callable[[Row], None] | None = None,
        table: runs_table.RunsTable | None = None) -> RunStats:
    """Run the pending cells on ``executor`` (see :mod:`experiments.harness.executor`),
    appending one row per cell to runs.csv as it finishes. Escalation turns cells
    into ``skipped`` rows. ``on_row`` is called with each :class:`~experiments.harness.rows.Row`
    as it is written (progress).
    On KeyboardInterrupt the executor is closed and the exception re-raised:
    every finished cell is already on disk. ``table``: runs.csv as the preparation read it,
    handed the rows appended once the run ends (:meth:`RunsTable.appended`)."""
    # prepare read runs.csv and set its damaged and stray rows aside: not read again here
    with runs_table.RunsWriter(prepared.config.runs_path, checked=True) as writer:
        race = None
        try:
            race = _Race(prepared, executor, writer, on_row)
            started = time.perf_counter()
            race.loop()
            writer.flush()
            race.stats.seconds = time.perf_counter() - started
        except BaseException:
            executor.close()
            raise
        finally:
            if race is not None:
                race.close()
    executor.close()
    if table is not None:
        table.appended(writer.found, writer.start)
    return race.stats
