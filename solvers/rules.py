"""The rules of Sudoku, in one place (Tasks 3 and 4).

Every solver and generator imports these; none re-implements them.

* :func:`can_place` -- may value k go into empty cell (i, j)? (CanPlace)
* :func:`conflicts` -- every pair of equal values sharing a row, column or box.
* :func:`is_consistent` -- are the clues free of conflicts?
* :func:`is_solved` -- is the grid full and free of conflicts? (IsSolved)
* :func:`keeps_clues` -- does a solution agree with every clue of a puzzle?

:func:`can_place_cells` is the compiled core of CanPlace on a raw cell array,
so numba kernels (the backtracking search) call the very same rule.
Time and memory of the whole-grid checks are linear in the number of cells.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from formats.grid import Grid


@njit(cache=True, nogil=True)
def can_place_cells(cells: np.ndarray, n: int, i: int, j: int, k: int) -> bool:
    """CanPlace on a raw ``(n², n²)`` array: cell (i, j) empty and k absent
    from row i, column j and the box of (i, j). 0-based i, j; k in 1..n²."""
    if cells[i, j] != 0:
        return False
    side = n * n
    for t in range(side):
        if cells[i, t] == k or cells[t, j] == k:
            return False
    bi = (i // n) * n
    bj = (j // n) * n
    for a in range(bi, bi + n):
        for b in range(bj, bj + n):
            if cells[a, b] == k:
                return False
    return True


def can_place(grid: Grid, i: int, j: int, k: int) -> bool:
    """CanPlace (Task 4): True iff cell (i, j) (0-based) is empty and placing
    k (1..n²) there violates no row, column or box constraint."""
    side = grid.side
    if not (0 <= i < side and 0 <= j < side):
        raise IndexError(f"cell ({i}, {j}) outside a {side}x{side} grid")
    if not 1 <= k <= side:
        return False
    return bool(can_place_cells(grid.cells, grid.n, i, j, k))


class Conflict(NamedTuple):
    """Value ``value`` occurs more than once in one unit (row/column/box)."""
    unit: str          # "row", "column" or "box"
    index: int         # 0-based index of the unit (boxes numbered row-major)
    value: int
    cells: tuple[tuple[int, int], ...]   # 0-based cells holding the value in that unit

    def describe(self) -> str:
        where = ", ".join(f"({r + 1},{c + 1})" for r, c in self.cells)
        return f"{self.unit} {self.index + 1} has {len(self.cells)} copies of {self.value} at {where}"


def _unit_ids(n: int) -> dict[str, np.ndarray]:
    side = n * n
    r, c = np.indices((side, side))
    return {"row": r, "column": c, "box": (r // n) * n + c // n}


def _duplicates(grid: Grid) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """For each unit kind, the (unit, value) pairs that occur more than once."""
    side = grid.side
    v = grid.cells
    filled = v != 0
    out = []
    for kind, ids in _unit_ids(grid.n).items():
        key = ids[filled].astype(np.int64) * (side + 1) + v[filled]
        counts = np.bincount(key, minlength=side * (side + 1))
        dup = np.flatnonzero(counts > 1)
        if dup.size:
            out.append((kind, dup // (side + 1), dup % (side + 1)))
    return out


def conflicts(grid: Grid, limit: int | None = None) -> list[Conflict]:
    """All units in which a value occurs twice or more (at most ``limit``)."""
    found: list[Conflict] = []
    ids = None
    for kind, units, values in _duplicates(grid):
        ids = ids or _unit_ids(grid.n)
        for unit, value in zip(units.tolist(), values.tolist()):
            cells = np.argwhere((ids[kind] == unit) & (grid.cells == value))
            found.append(Conflict(kind, unit, value, tuple(map(tuple, cells.tolist()))))
            if limit is not None and len(found) >= limit:
                return found
    return found


def is_consistent(grid: Grid) -> bool:
    """True iff no value repeats in a row, column or box (values are in range
    by construction of :class:`Grid`). Empty cells are allowed."""
    return not _duplicates(grid)


def is_solved(grid: Grid) -> bool:
    """IsSolved (Task 3): no empty cell and no constraint violated."""
    return bool(np.all(grid.cells != 0)) and is_consistent(grid)


def keeps_clues(puzzle: Grid, solution: Grid) -> bool:
    """True iff ``solution`` has the same n and holds every clue of ``puzzle``."""
    if puzzle.n != solution.n:
        return False
    given = puzzle.cells != 0
    return bool(np.array_equal(puzzle.cells[given], solution.cells[given]))


def is_solution_of(puzzle: Grid, solution: Grid) -> bool:
    """The check every answer goes through: solved, and faithful to the clues."""
    return keeps_clues(puzzle, solution) and is_solved(solution)
