"""The in-memory Sudoku grid (Task 2).

A :class:`Grid` is the box size ``n`` and an ``(n², n²)`` integer numpy array in
which 0 marks an empty cell and 1..n² are values. Everything in sudoku-race
(solvers, generators, file formats) speaks Grid. Coordinates are 0-based.
"""

from __future__ import annotations

import numpy as np

from formats.errors import RaceError

#: dtype of the cell array: wide enough for any n a machine can hold.
CELL_DTYPE = np.int32

#: The largest box size any command accepts (a 400x400 grid). One limit for the
#: readers, the solvers, the generators and the harness; a family may stop earlier
#: where it is not feasible (see generators.puzzle_set).
MAX_N = 20


class Grid:
    """A Sudoku grid of box size ``n``: ``cells`` is ``(n², n²)``, 0 = empty."""

    __slots__ = ("n", "cells")

    def __init__(self, n: int, cells: np.ndarray | None = None) -> None:
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise RaceError(f"box size n must be an integer >= 1, got {n!r}")
        n = int(n)
        side = n * n
        if cells is None:
            cells = np.zeros((side, side), dtype=CELL_DTYPE)
        else:
            cells = np.asarray(cells)
            if cells.shape != (side, side):
                raise RaceError(f"a grid with n={n} needs shape ({side}, {side}), got {cells.shape}")
            if cells.size and (cells.min() < 0 or cells.max() > side):
                bad = np.argwhere((cells < 0) | (cells > side))[0]
                raise RaceError(f"cell ({bad[0] + 1}, {bad[1] + 1}) holds {cells[tuple(bad)]}, "
                                f"expected 0 (empty) or 1..{side}")
            cells = np.ascontiguousarray(cells, dtype=CELL_DTYPE)
        self.n = n
        self.cells = cells

    @classmethod
    def empty(cls, n: int) -> Grid:
        """The all-empty grid of box size n."""
        return cls(n)

    @property
    def side(self) -> int:
        """Number of rows (= columns = values) of the grid: n²."""
        return self.n * self.n

    def copy(self) -> Grid:
        return Grid(self.n, self.cells.copy())

    def clues(self) -> int:
        """Number of filled cells."""
        return int(np.count_nonzero(self.cells))

    def empties(self) -> int:
        """Number of empty cells."""
        return self.cells.size - self.clues()

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Grid) and self.n == other.n
                and bool(np.array_equal(self.cells, other.cells)))

    def __hash__(self) -> int:
        return hash((self.n, self.cells.tobytes()))

    def __repr__(self) -> str:
        return f"Grid(n={self.n}, clues={self.clues()}/{self.cells.size})"

    def __str__(self) -> str:
        """The grid as the rows of the native text format (:mod:`formats.grid_text`): values
        right-aligned, ``.`` for an empty cell, one row per line."""
        width = len(str(self.side))
        return "".join(" ".join(str(v).rjust(width) if v else ".".rjust(width) for v in row) + "\n"
                       for row in self.cells.tolist())
