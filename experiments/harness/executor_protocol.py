"""What the scheduler (:mod:`experiments.harness.scheduling`) needs of an executor: the
protocol both :class:`experiments.harness.executor.LocalExecutor` and
:class:`experiments.harness.dask_executor.DaskExecutor` implement.

An executor takes batches of
:class:`~experiments.harness.messages.Request` of one entrant with :meth:`submit_batch`
(while :meth:`free` > 0, with the entrant's ``init`` request, see
:mod:`experiments.harness.worker`) and hands back ``(key, outcome)`` pairs from
:meth:`poll`: a :class:`~experiments.harness.messages.Measurement` (the worker's, with the
``worker``, ``started_at`` and ``cores`` only the executor knows), or a
:class:`~experiments.harness.messages.Returned` for a cell sent and not run.
"""

from __future__ import annotations

from typing import Any, Protocol

from experiments.harness.identity import CellKey
from experiments.harness.messages import Outcome, Request


class Executor(Protocol):
    """What the scheduler needs of an executor (:mod:`experiments.harness.scheduling`)."""
    #: how many cells may run at once (cores)
    jobs: int
    #: the repetition floor of a fast solve (s; :func:`experiments.harness.worker.measure`),
    #: None until the campaign sets it from its size
    min_time: float | None

    def free(self) -> int:
        """How many more cells (slots) it takes now."""

    def warm_entrants(self) -> set[str]:
        """Entrants with an idle warm worker (their cells cost no start-up)."""

    def submit_batch(self, init: dict[str, Any], cells: list[Request]) -> None:
        """Start ``cells`` (of one entrant, whose worker ``init`` creates)."""

    def poll(self, max_wait: float = 0.5) -> list[tuple[CellKey, Outcome]]:
        """The cells finished (or returned unrun) within ``max_wait`` s."""

    def close(self) -> None:
        """Stop every worker."""
