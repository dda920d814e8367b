"""The skip rule of a campaign (escalation), per entrant and family.

Once an entrant's median at
some n is censored -- at least half of its cells there are not answered (timeout,
memout, error, unknown or skipped), which makes the median "> limit" whatever
the other cells give -- its cells at larger n of that family are recorded as
``skipped`` at once (a ``wrong`` answer is censored too, but never a reason to skip:
an entrant that lies is run, and recorded ``wrong``, at every n), without waiting for the rest of that n. A cell at n is only
started once each smaller n of its entrant and family is *settled*: more than half of
its cells answered (the median is finite whatever comes) or all finished, so the rule
never races. The remaining cells at the censored n still run (the solved fraction
there is a measurement).
"""

from __future__ import annotations

from experiments.harness.cells import Cell
from experiments.harness.schema import ANSWERED


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
        """Count a finished cell with this status (its word)."""
        group = (cell.entrant, cell.family, cell.n)
        self.finished[group] = self.finished.get(group, 0) + 1
        if status in ANSWERED:
            self.answered[group] = self.answered.get(group, 0) + 1
        elif status != "wrong":         # a wrong answer is no reason to stop: every lie is recorded
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
