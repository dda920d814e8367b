"""Sudoku as an exact cover problem (Task 18) and back.

The 0-1 matrix has one option per triple (i, j, k) (cell (i, j) holds value
k+1; all 0-based), n⁶ in all, option index ``o = (i·n² + j)·n² + k``, and 4n⁴
items, all primary, in this order:

* ``cell``  ``i·n² + j``            cell (i, j) holds a value (constraint iv),
* ``row``   ``n⁴ + i·n² + k``       row i holds k+1 (i),
* ``col``   ``2n⁴ + j·n² + k``      column j holds k+1 (ii),
* ``box``   ``3n⁴ + b·n² + k``      box b = (i // n)·n + j // n holds k+1 (iii).

Each option covers exactly those four items, in that order. Clues are encoded
as the assignment says: a clue k in cell (i, j) drops the options (i, j, k')
for every k' != k. With ``candidates_only`` (the default beyond
:data:`FULL_MATRIX_MAX_N`) an empty cell keeps only the values CanPlace allows
there: the same solutions, and memory linear in the candidates left instead of
n⁶ rows (a 400x400 grid has 64M options). Everything is built with vectorised
numpy (no Python loop over the options).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from formats.errors import RaceError
from formats.exact_cover import INDEX_DTYPE, ExactCover
from formats.grid import CELL_DTYPE, Grid
from solvers import rules


@lru_cache(maxsize=8)
def item_names(n: int) -> tuple[str, ...]:
    """Names of the 4n⁴ items (1-based coordinates): ``p{i}_{j}`` (cell),
    ``r{i}v{k}``, ``c{j}v{k}``, ``b{b}v{k}``."""
    side = n * n
    rng = range(1, side + 1)
    return tuple([f"p{i}_{j}" for i in rng for j in rng] + [f"r{i}v{k}" for i in rng for k in rng]
                 + [f"c{j}v{k}" for j in rng for k in rng] + [f"b{b}v{k}" for b in rng for k in rng])


#: largest n whose full n⁶-option matrix is built (n = 6: 2.2M options); beyond it
#: the matrix keeps only candidates and nothing n⁶-sized is cached.
FULL_MATRIX_MAX_N = 6


def option_items(n: int, option_ids: np.ndarray) -> np.ndarray:
    """The (m, 4) item indices of the options ``option_ids`` (o = cell·n² + k).

    With the core's unit numbering (row i, column n² + j, box 2n² + b) the
    row, column and box items of option (c, k) are n⁴ + unit·n² + k."""
    side = n * n
    _, cell_units = rules.unit_tables(n)
    o = np.asarray(option_ids, dtype=np.int64)
    cell, k = o // side, o % side
    return np.concatenate([cell[:, None], side * side + cell_units[cell] * side + k[:, None]],
                          axis=1).astype(INDEX_DTYPE)


@lru_cache(maxsize=4)
def full_options(n: int) -> np.ndarray:
    """The (n⁶, 4) array of item indices of every option, in option order.

    With the core's unit numbering (row i, column n² + j, box 2n² + b) the
    row, column and box items of option (c, k) are n⁴ + unit·n² + k."""
    if n > FULL_MATRIX_MAX_N:
        raise RaceError(f"the full exact cover matrix is built only for n <= {FULL_MATRIX_MAX_N} "
                        f"(n={n} has {n ** 6:,} options)")
    out = option_items(n, np.arange(n ** 6, dtype=np.int64))
    out.setflags(write=False)
    return out


@dataclass(eq=False)
class SudokuCover:
    """A Sudoku grid as an exact cover problem: ``problem`` holds the kept
    options, ``option_ids[p]`` is the triple index o of the problem's option p."""
    n: int
    problem: ExactCover
    option_ids: np.ndarray

    def decode(self, options: np.ndarray) -> np.ndarray:
        """The (n², n²) cell array of the chosen options (problem indices)."""
        return decode(self.n, self.option_ids[np.asarray(options, dtype=np.int64)])


def sudoku_cover(grid: Grid, candidates_only: bool | None = None) -> SudokuCover:
    """Task 18: the exact cover problem of ``grid`` (n⁶ options minus the
    (n² - 1) dropped for each clue; 4n⁴ primary items). ``candidates_only``
    (None: when n > :data:`FULL_MATRIX_MAX_N`) also drops the options of empty
    cells that CanPlace rejects."""
    n, side = grid.n, grid.side
    if candidates_only is None:
        candidates_only = n > FULL_MATRIX_MAX_N
    cells = grid.cells.reshape(-1)
    if candidates_only:
        keep = rules.candidate_table(grid.cells, n)
    else:
        keep = np.ones((side * side, side), dtype=bool)
    clued = np.nonzero(cells)[0]
    keep[clued] = False
    keep[clued, cells[clued] - 1] = True
    option_ids = np.nonzero(keep.reshape(-1))[0]
    del keep
    flat = option_items(n, option_ids).reshape(-1)
    starts = np.arange(0, 4 * len(option_ids) + 1, 4, dtype=np.int64)
    problem = ExactCover.from_csr(item_names(n), None, starts, flat, check=False)
    return SudokuCover(n, problem, option_ids)


def decode(n: int, option_ids: np.ndarray) -> np.ndarray:
    """Cells filled by the triples ``option_ids`` (o = (i·n² + j)·n² + k); the
    rest are 0."""
    side = n * n
    cells = np.zeros((side, side), dtype=CELL_DTYPE)
    o = np.asarray(option_ids, dtype=np.int64)
    cells[o // (side * side), (o // side) % side] = o % side + 1
    return cells
