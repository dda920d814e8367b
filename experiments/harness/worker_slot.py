"""One slot of the local executor (:class:`experiments.harness.executor.LocalExecutor`): the
worker on one core, the batch of cells it runs, where it is in it, and its deadline."""

from __future__ import annotations

from dataclasses import dataclass, field

from experiments.harness.identity import CellKey
from experiments.harness.messages import Request
from experiments.harness.worker_process import WorkerProcess


@dataclass
class Slot:
    worker: WorkerProcess | None = None
    #: the cells sent to the worker in one request, in the order it runs them
    batch: list[Request] = field(default_factory=list)
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
    holds: list[Slot] = field(default_factory=list)

    @property
    def key(self) -> CellKey | None:
        """The key of the cell the worker is on (None when idle)."""
        return self.batch[self.next].key if self.next < len(self.batch) else None
