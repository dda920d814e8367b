"""A race campaign: entrants x n x instances x repeats, run by an executor, recorded.

:func:`run_campaign` runs a campaign from the library (``race run``, ``race landscape``
and the tests call it; the CLI only parses, calls and prints). :func:`prepare` makes the campaign directory, the instances (generated once,
cached by :mod:`experiments.harness.instances`) and ``meta.json``
(:mod:`experiments.harness.provenance`) and finds the cells without a record;
:func:`experiments.harness.scheduling.run` runs them.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from experiments.harness import records
from experiments.harness.cells import Prepared, make_cells
from experiments.harness.config import Config, resume_command
from experiments.harness.instance_families import names_of
from experiments.harness.instances import ensure_instances
from experiments.harness.provenance import check_rows, previous_meta, write_meta
from experiments.harness.rows import Row
from experiments.harness.runs_table import RunsTable
from formats.errors import RaceError

if TYPE_CHECKING:
    from experiments.harness.executor_protocol import Executor


def prepare(config: Config, progress: bool = False, table: RunsTable | None = None) -> Prepared:
    """Make the campaign directory, the instances of every family and meta.json; find the
    pending cells. runs.csv is read once (``table``: the campaign's, made when None); a file
    written before a column was added gets the new header; its damaged rows and its rows not
    of this campaign (:mod:`experiments.harness.stray_rows`) are set aside
    (:meth:`RunsTable.set_aside_damaged`, :meth:`RunsTable.set_aside_strays`)."""
    # refuse an incompatible resume before any work; a resume keeps its files' names
    config = config.with_(instance_names=names_of(previous_meta(config)))
    table = table if table is not None else RunsTable(config.runs_path)
    check_rows(config, table.conditions())
    if config.instance_set is not None:         # race run --instances PATH: one family
        family = config.families[0]
        instances = {(family.key, n): config.instance_set.by_n[n] for n in config.n_values}
    else:
        instances = {(family.key, n): ensure_instances(config.out, family.kind, n, config.instances,
                                                       config.seed, progress=progress,
                                                       label=family.label,
                                                       stem=family.stem(config.instance_names),
                                                       jobs=config.jobs, **family.options_for(n))
                     for family in config.families for n in config.n_values}
    config.directory.mkdir(parents=True, exist_ok=True)
    table.set_aside_damaged()                   # damaged rows aside, older header upgraded
    meta = write_meta(config)
    table.set_aside_strays(meta, config.directory)
    cells = make_cells(config, instances)
    recorded = table.statuses()
    # a cell's key (Cell.key) spelled out: its fields are already of the key's types
    pending = [c for c in cells if (c.family, c.entrant, c.n, c.instance_file, c.repeat) not in recorded]
    return Prepared(config, cells, pending, meta, recorded)



# -- running a campaign (what `race run`, `race landscape` and the tests call) -------------

@dataclass
class CampaignRun:
    """What :func:`run_campaign` did: the prepared campaign (None when interrupted while
    preparing), the scheduler's stats (None when it did not finish), whether a signal
    stopped it, the command that resumes it, and runs.csv as the preparation read it with
    the rows the run appended (:meth:`RunsTable.appended`; a reader after the run takes it:
    :meth:`RunsTable.fresh` reads it again when the file changed otherwise)."""
    config: Config
    prepared: Prepared | None
    stats: Any
    interrupted: bool
    resume: str
    table: RunsTable | None = None

    @property
    def exit_code(self) -> int:
        """130 when interrupted, 1 when an entrant could not start (its cells are left for
        the resume), else 0."""
        if self.interrupted:
            return 130
        return 1 if self.stats is not None and self.stats.not_started else 0


def make_executor(config: Config, cpus: list[int] | None = None) -> Executor:
    """The executor ``config`` asks for (for dask, its ``jobs`` are the cluster's slots),
    its workers pinned to ``cpus`` (local) or to cores of their own machines (dask, with
    ``config.pin``); in the random order each slot keeps a warm worker per entrant."""
    keep_warm = len(config.entrants) if config.order == "random" else 1
    if config.executor == "dask":
        from experiments.harness.dask_executor import DaskExecutor
        return DaskExecutor(config.scheduler, config.asked.jobs_given, config.timeout_s,
                            config.memory_mb, pin=config.pin, keep_warm=keep_warm)
    from experiments.harness.executor import LocalExecutor
    return LocalExecutor(config.jobs, config.timeout_s, config.memory_mb, cpus=cpus,
                         keep_warm=keep_warm)


def run_campaign(config: Config, executor: Executor | None = None,
                 on_row: Callable[[Row], None] | None = None,
                 on_start: Callable[[Prepared], None] | None = None,
                 progress: bool = False) -> CampaignRun:
    """Run the campaign ``config`` to the end: hold its lock, prepare it (instances,
    meta.json, the cells without a record), call ``on_start(prepared)``, run the pending
    cells on ``executor`` (by default :func:`make_executor`'s, pinned by
    :func:`experiments.harness.conditions.pinned_cpus`) calling ``on_row(row)`` after each
    row is written, and close the executor. The machine readings and the calibration are
    taken before the preparation and after the last cell, into meta.json
    (:mod:`experiments.harness.conditions`; not when interrupted). SIGINT and SIGTERM stop it cleanly (every
    finished cell is on disk; later signals are ignored until this returns). Raises
    RaceError, naming the resume command, when a record cannot be written."""
    from experiments.harness import conditions
    from experiments.harness.lock import CampaignLock
    from experiments.harness.scheduling import RunStats
    from experiments.harness.scheduling import run as run_cells
    resume = resume_command(config)
    if executor is None:
        cpus = conditions.pinned_cpus(config)
        runner = make_executor(config, cpus)
        if config.executor == "dask":               # the cluster's slots
            config = config.with_(jobs=runner.jobs)
    else:
        cpus, runner = getattr(executor, "cpus", None), executor
    stop = _Stop()
    prepared = stats = None
    table = RunsTable(config.runs_path)
    try:
        with stop, CampaignLock(config.directory):
            try:
                prepared = prepare(config, progress=progress, table=table)
                config = prepared.config
                work = bool(prepared.pending)           # nothing to run: no calibration to pay
                from experiments.harness.calibration import samples_for
                samples = samples_for(len(prepared.pending))    # the readings the campaign affords
                started = conditions.begin(config, cpus, calibrate=work, samples=samples)
                conditions.record(config, started)
                if runner.min_time is None:         # the floor the campaign's size affords
                    from experiments.harness.worker import repetition_floor
                    runner.min_time = repetition_floor(len(prepared.pending))
                if on_start is not None:
                    on_start(prepared)
                stats = run_cells(prepared, runner, on_row, table) if work else RunStats()
                runner.close()
                conditions.end(config, started, cpus, getattr(runner, "worker_cpus", None),
                               cells=stats.ran, calibrate=work, samples=samples)
            except KeyboardInterrupt:
                pass
    except records.RecordWriteError as exc:
        raise RaceError(f"{exc}; every cell before it is recorded, re-run the same command to "
                        f"resume: {resume}") from None
    finally:
        runner.close()
        conditions.close()
    return CampaignRun(config, prepared, stats, stop.count > 0 or stats is None, resume, table)


class _Stop:
    """While entered: the first SIGINT / SIGTERM raises KeyboardInterrupt (a clean stop, even
    from a shell that ignores SIGINT in background jobs); from then on both are ignored at
    the OS level, so a second Ctrl-C cannot cut the clean stop short. On exit the previous
    handlers come back unless a signal came (then they stay ignored until the process,
    which is stopping, exits)."""

    def __init__(self) -> None:
        self.count = 0
        self.previous: dict[int, Any] = {}

    def handle(self, signum: int, frame: object) -> None:
        self.count += 1
        if self.count == 1:
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, signal.SIG_IGN)
            raise KeyboardInterrupt

    def __enter__(self) -> _Stop:
        if threading.current_thread() is threading.main_thread():
            self.previous = {sig: signal.signal(sig, self.handle)
                             for sig in (signal.SIGINT, signal.SIGTERM)}
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.count:
            for sig, handler in self.previous.items():
                signal.signal(sig, handler)
