"""The rules of Sudoku on cell arrays: CanPlace, candidates, conflicts, IsSolved.

* :func:`can_place` / :func:`can_place_cells` -- may value k go into empty cell
  (i, j)? (CanPlace, Task 4; the compiled form is what numba kernels call);
* :func:`cell_candidates` -- every k CanPlace allows at one cell (compiled);
* :func:`candidate_table` -- the same for every cell at once (numpy);
* :func:`conflicts` / :func:`is_consistent` -- equal values sharing a unit;
* :func:`is_solved` (IsSolved, Task 3), :func:`keeps_clues`,
  :func:`is_solution_of` -- the check every answer goes through;
  :func:`are_solved` and :func:`are_solutions_of` -- the same for many grids at
  once (the batch path).

Time and memory of the whole-grid checks are linear in the number of cells
(times n² for :func:`candidate_table`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from formats.compiled import kernel
from formats.grid import Grid
from solvers.rules.geometry import unit_tables

UNIT_KINDS = ("row", "column", "box")


@kernel(cache=True, nogil=True)
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


@kernel(cache=True, nogil=True)
def cell_candidates(cells: np.ndarray, n: int, i: int, j: int) -> np.ndarray:
    """The values k (ascending, int64) with CanPlace(i, j, k) on a raw
    ``(n², n²)`` array: none when (i, j) is filled. One pass over the three
    units instead of one CanPlace per k."""
    side = n * n
    if cells[i, j] != 0:
        return np.zeros(0, dtype=np.int64)
    seen = np.zeros(side + 1, dtype=np.bool_)
    for t in range(side):
        seen[cells[i, t]] = True
        seen[cells[t, j]] = True
    bi = (i // n) * n
    bj = (j // n) * n
    for a in range(bi, bi + n):
        for b in range(bj, bj + n):
            seen[cells[a, b]] = True
    return np.flatnonzero(~seen[1:]) + 1


def can_place(grid: Grid, i: int, j: int, k: int) -> bool:
    """CanPlace (Task 4): True iff cell (i, j) (0-based) is empty and placing
    k (1..n²) there violates no row, column or box constraint."""
    side = grid.side
    if not (0 <= i < side and 0 <= j < side):
        raise IndexError(f"cell ({i}, {j}) outside a {side}x{side} grid")
    if not 1 <= k <= side:
        return False
    return bool(can_place_cells(grid.cells, grid.n, i, j, k))


def unit_value_counts(cells: np.ndarray, n: int) -> np.ndarray:
    """(3n², n² + 1) int64: how often value k occurs in unit u (column 0 counts
    the empty cells' zeros and is meaningless)."""
    side = n * n
    flat = np.asarray(cells).reshape(-1).astype(np.int64)
    _, cell_units = unit_tables(n)
    keys = cell_units * (side + 1) + flat[:, None]
    return np.bincount(keys.ravel(), minlength=3 * side * (side + 1)).reshape(3 * side, side + 1)


def candidate_table(cells: np.ndarray, n: int) -> np.ndarray:
    """(n⁴, n²) bool: entry [c, k-1] is CanPlace(c, k) for flat cell c (all
    False for filled cells)."""
    has = unit_value_counts(cells, n)[:, 1:] > 0
    _, cell_units = unit_tables(n)
    free = ~(has[cell_units[:, 0]] | has[cell_units[:, 1]] | has[cell_units[:, 2]])
    free[np.asarray(cells).reshape(-1) != 0] = False
    return free


@dataclass(frozen=True)
class Conflict:
    """Value ``value`` occurs more than once in one unit (row/column/box)."""
    unit: str          # "row", "column" or "box"
    index: int         # 0-based index of the unit (boxes numbered row-major)
    value: int
    cells: tuple[tuple[int, int], ...]   # 0-based cells holding the value in that unit

    def describe(self) -> str:
        where = ", ".join(f"({r + 1},{c + 1})" for r, c in self.cells)
        return f"{self.unit} {self.index + 1} has {len(self.cells)} copies of {self.value} at {where}"


def _duplicates(grid: Grid) -> tuple[np.ndarray, np.ndarray]:
    """The (unit, value) pairs whose value occurs more than once, in unit order."""
    counts = unit_value_counts(grid.cells, grid.n)
    counts[:, 0] = 0
    units, values = np.nonzero(counts > 1)
    return units, values


def conflicts(grid: Grid, limit: int | None = None) -> list[Conflict]:
    """All units in which a value occurs twice or more (at most ``limit``),
    rows first, then columns, then boxes."""
    side = grid.side
    units, _ = unit_tables(grid.n)
    flat = grid.cells.reshape(-1)
    found: list[Conflict] = []
    for unit, value in zip(*(a.tolist() for a in _duplicates(grid))):
        members = units[unit][flat[units[unit]] == value]
        cells = tuple((int(c) // side, int(c) % side) for c in members)
        found.append(Conflict(UNIT_KINDS[unit // side], unit % side, value, cells))
        if limit is not None and len(found) >= limit:
            break
    return found


def is_consistent(grid: Grid) -> bool:
    """True iff no value repeats in a row, column or box (values are in range
    by construction of :class:`Grid`). Empty cells are allowed."""
    return _duplicates(grid)[0].size == 0


def is_solved(grid: Grid) -> bool:
    """IsSolved (Task 3): no empty cell and no constraint violated, i.e. every row,
    column and box holds each of 1..n² once (each unit's values, sorted, are 1..n²:
    an empty cell or a repeat breaks that; one vectorised pass, the check every
    answer of the race goes through)."""
    side = grid.side
    units, _ = unit_tables(grid.n)
    members = grid.cells.reshape(-1)[units]                     # (3n², n²)
    return bool((np.sort(members, axis=1) == np.arange(1, side + 1)).all())


def keeps_clues(puzzle: Grid, solution: Grid) -> bool:
    """True iff ``solution`` has the same n and holds every clue of ``puzzle``."""
    if puzzle.n != solution.n:
        return False
    return not ((puzzle.cells != 0) & (puzzle.cells != solution.cells)).any()


def is_solution_of(puzzle: Grid, solution: Grid) -> bool:
    """The check every answer goes through: solved, and faithful to the clues."""
    return keeps_clues(puzzle, solution) and is_solved(solution)


def are_solved(cells: np.ndarray, n: int) -> np.ndarray:
    """IsSolved for many grids at once: ``cells`` (P, n², n²) of values 0..n² ->
    (P,) bool, True where no cell is empty and every row, column and box holds
    each value once (vectorised: each unit's values as one bit set, which must be
    {1..n²}; beyond 62x62, each unit sorted)."""
    side = n * n
    cells = np.asarray(cells)
    count = cells.shape[0]
    if side >= 63:
        units, _ = unit_tables(n)
        members = cells.reshape(count, side * side)[:, units]      # (P, 3n², n²)
        return (np.sort(members, axis=2) == np.arange(1, side + 1)).all(axis=(1, 2))
    word = np.uint16 if side < 16 else np.uint32 if side < 32 else np.uint64   # narrow: less to move
    bits = np.left_shift(word(1), cells.astype(word))
    full = word((1 << (side + 1)) - 2)
    rows = np.bitwise_or.reduce(bits, axis=2)
    columns = np.bitwise_or.reduce(bits, axis=1)
    boxes = np.bitwise_or.reduce(bits.reshape(count, n, n, n, n).transpose(0, 1, 3, 2, 4)
                                 .reshape(count, side, side), axis=2)
    return (rows == full).all(axis=1) & (columns == full).all(axis=1) & (boxes == full).all(axis=1)


def are_solutions_of(puzzles: np.ndarray, solutions: np.ndarray, n: int) -> np.ndarray:
    """:func:`is_solution_of` for many grids at once: (P,) bool, True where
    ``solutions[p]`` is solved and keeps every clue of ``puzzles[p]``."""
    solutions = np.asarray(solutions)
    kept = ((puzzles == 0) | (puzzles == solutions)).all(axis=(1, 2))
    return kept & are_solved(solutions, n)
