"""Scheduling a campaign's cells on an executor: resume, escalation, warm workers.

Rules:

* **Resume**: a cell (family, entrant, n, instance, repeat; :mod:`experiments.harness.identity`) that already has a row in
  ``runs.csv`` is not run again.
* **Escalation** (the skip rule), per entrant and family: once an entrant's median at
  some n is censored -- at least half of its cells there are not answered (timeout,
  memout, error, unknown or skipped), which makes the median "> limit" whatever
  the other cells give -- its cells at larger n of that family are recorded as
  ``skipped`` at once (a ``wrong`` answer is censored too, but never a reason to skip:
  an entrant that lies is run, and recorded ``wrong``, at every n), without waiting for the rest of that n. A cell at n is only
  started once each smaller n of its entrant and family is *settled*: more than half of
  its cells answered (the median is finite whatever comes) or all finished, so the rule
  never races. The remaining cells at the censored n still run (the solved fraction
  there is a measurement).
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

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from experiments.harness import records
from experiments.harness.cells import Cell, Prepared, interleave
from experiments.harness.instances import read_instance
from experiments.harness.provenance import utc_now
from experiments.harness.referee import Referee
from experiments.harness.schema import ANSWERED, Status


#: an entrant whose worker fails to start this many times gets no more cells this run
START_ATTEMPTS = 2
#: the orders of ``race run --order``
ORDERS = ("random", "fixed")


class Escalation:
    """The skip rule (see the module docstring): per (entrant, family, n) how many cells
    there are, how many are answered and how many censored; which n is the first with a
    censored median, and whether a cell may start yet."""

    def __init__(self, cells: list[Cell]) -> None:
        self.total: dict[tuple[str, str, int], int] = {}
        self.answered: dict[tuple[str, str, int], int] = {}
        self.censored: dict[tuple[str, str, int], int] = {}
        self.finished: dict[tuple[str, str, int], int] = {}
        self.n_values: dict[tuple[str, str], list[int]] = {}
        for cell in cells:
            group = (cell.entrant, cell.family, cell.n)
            self.total[group] = self.total.get(group, 0) + 1
            line = self.n_values.setdefault((cell.entrant, cell.family), [])
            if cell.n not in line:
                line.append(cell.n)
        for ns in self.n_values.values():
            ns.sort()

    def record(self, cell: Cell, status: str) -> None:
        """Count a finished cell with this status."""
        group = (cell.entrant, cell.family, cell.n)
        self.finished[group] = self.finished.get(group, 0) + 1
        if status in ANSWERED:
            self.answered[group] = self.answered.get(group, 0) + 1
        elif status != Status.WRONG:    # a wrong answer is no reason to stop: every lie is recorded
            self.censored[group] = self.censored.get(group, 0) + 1

    def censored_median(self, group: tuple[str, str, int]) -> bool:
        """True once at least half of the group's cells are censored (its median is "> limit")."""
        return 2 * self.censored.get(group, 0) >= self.total.get(group, 0) > 0

    def settled(self, group: tuple[str, str, int]) -> bool:
        """True once the group's median is known: more than half answered, or all finished."""
        return (2 * self.answered.get(group, 0) > self.total[group]
                or self.finished.get(group, 0) >= self.total[group])

    def dead_at(self, entrant: str, family: str = "") -> int | None:
        """The smallest n where the entrant's median in ``family`` is censored, if any."""
        for n in self.n_values.get((entrant, family), []):
            if self.censored_median((entrant, family, n)):
                return n
        return None

    def may_start(self, cell: Cell) -> bool:
        """True when every smaller n of the cell's entrant and family is settled."""
        for n in self.n_values[(cell.entrant, cell.family)]:
            if n >= cell.n:
                return True
            if not self.settled((cell.entrant, cell.family, n)):
                return False
        return True


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


class _Race:
    """The state of one :func:`run`: pending and in-flight cells, escalation, start failures."""

    def __init__(self, prepared: "Prepared", executor: Any, writer: records.RunsWriter,
                 on_row: Callable[[dict[str, Any]], None] | None) -> None:
        self.config = prepared.config
        self.executor, self.writer, self.on_row = executor, writer, on_row
        self.entrants = {e.spec: e for e in self.config.entrants}
        self.families = {f.key: f for f in self.config.families}
        self.escalation = Escalation(prepared.cells)
        pending_keys = {c.key for c in prepared.pending}
        cells = {c.key: c for c in prepared.cells}
        for row in records.read_rows(self.config.runs_path):
            key = records.cell_key(row)
            if key in cells and key not in pending_keys:
                self.escalation.record(cells[key], row["status"])
        self.random = self.config.order == "random"
        self.pending = (interleave(prepared.pending, self.config.seed) if self.random
                        else list(prepared.pending))
        self.inflight: dict[tuple, Cell] = {}
        self.texts: dict[Path, str] = {}
        self.referee = Referee(self.config.timeout_s)
        self.stats = RunStats(wrong_records=self.referee.wrong_records)
        self.failures: dict[str, int] = {}      # entrant -> workers that failed to start
        self.broken: dict[str, str] = {}        # entrant -> why its remaining cells are not run
        self.check_dead = True
        #: what the last sweep of :meth:`drop_dead` decided on (None: sweep next time)
        self.swept: tuple | None = None

    def emit(self, cell: Cell, outcome: dict[str, Any]) -> None:
        """Write the row of a finished cell and update escalation and the stats."""
        c = self.config
        family = self.families[cell.family]
        outcome = self.judge(cell, outcome)
        outcome.setdefault("cores", self.cores(cell))
        row = records.make_row(c.campaign, c.seed, c.timeout_s,
                               self.entrants[cell.entrant], cell, outcome)
        row["holes"] = family.options_for(cell.n).get("holes")
        if row["holes"] is None and family.kind == "holes":   # the generator's own default
            from generators.kinds import GENERATORS
            row["holes"] = GENERATORS["holes"][1]["holes"]
        self.writer.write(row)
        status = row["status"]
        self.escalation.record(cell, status)
        self.check_dead = True
        self.stats.statuses[status] = self.stats.statuses.get(status, 0) + 1
        if status == Status.SKIPPED:
            self.stats.skipped += 1
        else:
            self.stats.ran += 1
        if self.on_row:
            self.on_row(row)

    def judge(self, cell: Cell, outcome: dict[str, Any]) -> dict[str, Any]:
        """The outcome with its claim checked by the referee (:mod:`experiments.harness.referee`)."""
        inst = cell.instance
        if inst is None or outcome.get("status") not in ANSWERED:
            outcome = dict(outcome)
            outcome.pop("solution", None)
            return outcome
        if inst.path not in self.texts:
            self.texts[inst.path] = read_instance(inst)
        instance_set = self.config.instance_set
        listed = instance_set.solutions.get(inst.file) if instance_set is not None else None
        case = self.referee.case(inst.sha256, self.texts[inst.path], inst.file, listed)
        return self.referee.judge(case, outcome, cell.entrant, self.entrants[cell.entrant].method)

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
        keep = []
        for cell in self.pending:
            dead = dead_at.get((cell.entrant, cell.family))
            if cell.entrant in self.broken:
                self.leave(cell)
            elif dead is not None and cell.n > dead:
                label = self.families[cell.family].key
                self.emit(cell, {"status": Status.SKIPPED, "started_at": utc_now(),
                                 "message": f"{cell.entrant}'s median on {label} at n={dead} "
                                            "is censored (half or more of its cells unanswered)"})
            else:
                keep.append(cell)
        self.pending, self.check_dead, self.swept = keep, False, seen

    def leave(self, cell: Cell) -> None:
        """Leave a cell of an entrant that cannot start without a record (resume retries it)."""
        count, _ = self.stats.not_started.get(cell.entrant, (0, ""))
        self.stats.not_started[cell.entrant] = (count + 1, self.broken[cell.entrant])

    def next_cell(self) -> Cell | None:
        """The first pending cell that may start; in the fixed order, of a warm entrant if
        possible (the random order keeps its order: every entrant is warm soon)."""
        may_start = self.escalation.may_start
        if self.random:
            return next((c for c in self.pending if may_start(c)), None)
        warm = self.executor.warm_entrants()
        return (next((c for c in self.pending if c.entrant in warm and may_start(c)), None)
                or next((c for c in self.pending if may_start(c)), None))

    def cores(self, cell: Cell) -> int:
        """The cores a cell holds: its entrant's (:attr:`Entrant.cores`), at most the
        executor's slots (``jobs``): an entrant of more members than slots shares them."""
        wanted = self.entrants[cell.entrant].cores
        capacity = getattr(self.executor, "jobs", None)
        return max(1, min(wanted, capacity) if capacity else wanted)

    def dispatch(self) -> None:
        """Submit cells while the executor has room; a cell of k cores waits until k slots
        are free (nothing is sent past it meanwhile, so it is never starved)."""
        while self.executor.free() > 0 and self.pending:
            cell = self.next_cell()
            if cell is None or self.executor.free() < self.cores(cell):
                return
            self.pending.remove(cell)
            inst = cell.instance
            if inst.path not in self.texts:
                self.texts[inst.path] = read_instance(inst)
            request = {"entrant": cell.entrant, "init": self.entrants[cell.entrant].init_request(),
                       "solve": {"instance": inst.file, "text": self.texts[inst.path]},
                       "cores": self.cores(cell), "group": (cell.family, cell.entrant, cell.n)}
            self.executor.submit(cell.key, request)
            self.inflight[cell.key] = cell

    def collect(self) -> None:
        """Record the cells the executor finished; count entrants that fail to start."""
        for key, outcome in self.executor.poll(0.5):
            cell = self.inflight.pop(key)
            if outcome.get("start_failed"):
                self.start_failed(cell, outcome)
                continue
            self.emit(cell, outcome)

    def start_failed(self, cell: Cell, outcome: dict[str, Any]) -> None:
        """A worker did not start: the cell goes back to the queue, unless its entrant
        has now failed :data:`START_ATTEMPTS` times (then it is left for a resume)."""
        self.failures[cell.entrant] = self.failures.get(cell.entrant, 0) + 1
        if self.failures[cell.entrant] >= START_ATTEMPTS and cell.entrant not in self.broken:
            self.broken[cell.entrant] = outcome.get("message") or "entrant failed to start"
            self.check_dead = True
        if cell.entrant in self.broken:
            self.leave(cell)
        else:
            self.pending.insert(0, cell)
            self.swept = None                   # the cell missed sweeps while in flight

    def loop(self) -> None:
        """Run until every pending cell has a row."""
        while self.pending or self.inflight:
            if self.check_dead:
                self.drop_dead()
            self.dispatch()
            if self.inflight:
                self.collect()
            elif self.pending and not any(self.escalation.may_start(c) for c in self.pending):
                raise RuntimeError("scheduler stalled: no cell can start")  # a bug


def run(prepared: "Prepared", executor: Any,
        on_row: Callable[[dict[str, Any]], None] | None = None) -> RunStats:
    """Run the pending cells on ``executor`` (see :mod:`experiments.harness.executor`),
    appending one row per cell to runs.csv as it finishes. Escalation turns cells
    into ``skipped`` rows. ``on_row`` is called after each row is written (progress).
    On KeyboardInterrupt the executor is closed and the exception re-raised:
    every finished cell is already on disk."""
    with records.RunsWriter(prepared.config.runs_path) as writer:
        try:
            race = _Race(prepared, executor, writer, on_row)
            race.loop()
        except BaseException:
            executor.close()
            raise
    executor.close()
    return race.stats
