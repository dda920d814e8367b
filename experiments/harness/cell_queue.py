"""The pending cells of a campaign in their order, held per entrant: taking a batch of one
entrant's cells costs what the batch holds, whatever the campaign's size
(:mod:`experiments.harness.scheduling` takes them)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator

from experiments.harness.cells import Cell


class Queue:
    """The pending cells in their order (:func:`interleave`'s or the fixed one), held per
    entrant (a deque each, in that order), so that taking a batch of one entrant's cells costs
    what the batch holds, whatever the campaign's size."""

    def __init__(self, cells: list[Cell]) -> None:
        self.by_entrant: dict[str, deque[tuple[int, Cell]]] = {}
        for rank, cell in enumerate(cells):
            self.by_entrant.setdefault(cell.entrant, deque()).append((rank, cell))
        self.size = len(cells)

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[Cell]:
        for queue in self.by_entrant.values():
            for _, cell in queue:
                yield cell

    def keep(self, wanted: Callable[[Cell], bool]) -> None:
        """Keep only the cells ``wanted`` says yes to."""
        for entrant, queue in self.by_entrant.items():
            self.by_entrant[entrant] = deque(x for x in queue if wanted(x[1]))
        self.size = sum(map(len, self.by_entrant.values()))

    def put_back(self, cells: list[tuple[int, Cell]]) -> None:
        """Cells taken and not run: first in line again, in their order."""
        for rank, cell in sorted(cells, key=lambda x: x[0], reverse=True):
            self.by_entrant.setdefault(cell.entrant, deque()).appendleft((rank, cell))
        self.size += len(cells)

    def first(self, may_start: Callable[[Cell], bool], prefer: set[str] | None = None
              ) -> tuple[int, Cell, int] | None:
        """The first cell that may start, as (rank, cell, its place in its entrant's queue):
        the first in the order, or with ``prefer``, the first of those entrants if any."""
        best: tuple[int, Cell, int] | None = None
        best_preferred: tuple[int, Cell, int] | None = None
        for entrant, queue in self.by_entrant.items():
            found = _startable(queue, may_start)
            if found is None:
                continue
            if best is None or found[0] < best[0]:
                best = found
            if prefer and entrant in prefer and (best_preferred is None
                                                 or found[0] < best_preferred[0]):
                best_preferred = found
        return best_preferred or best

    def take(self, found: tuple[int, Cell, int], most: int) -> list[tuple[int, Cell]]:
        """The cell ``found`` (:meth:`first`) and up to ``most`` - 1 of the same entrant,
        family and n right behind it in its queue."""
        rank, cell, at = found
        queue = self.by_entrant[cell.entrant]
        if at:                                  # behind cells that may not start yet: alone
            del queue[at]
            self.size -= 1
            return [(rank, cell)]
        batch = [queue.popleft()]
        while queue and len(batch) < most and queue[0][1].n == cell.n \
                and queue[0][1].family == cell.family:
            batch.append(queue.popleft())
        self.size -= len(batch)
        return batch


def _startable(queue: deque[tuple[int, Cell]], may_start: Callable[[Cell], bool]
               ) -> tuple[int, Cell, int] | None:
    """The first cell of ``queue`` that may start, with its place; the cells of one family and
    n stand together, so one look per such group decides."""
    group = None
    for at, (rank, cell) in enumerate(queue):
        if (cell.family, cell.n) == group:
            continue
        if may_start(cell):
            return rank, cell, at
        group = (cell.family, cell.n)
    return None
