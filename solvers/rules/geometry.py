"""The geometry of an n² x n² grid, for any box size n: units, peers, boxes.

Cells are numbered flat, row-major: cell ``c = i·n² + j`` is (i, j), 0-based.
The 3n² *units* are numbered rows first, then columns, then boxes:

* unit ``i``          = row i,
* unit ``n² + j``     = column j,
* unit ``2n² + b``    = box b = (i // n)·n + j // n (boxes row-major).

:func:`unit_tables` gives ``units`` (3n², n²): the cells of each unit in
reading order (row: by column; column: by row; box: row-major inside the box)
and ``cell_units`` (n⁴, 3): the row, column and box unit of each cell. The
*peers* of a cell are the other cells of its three units (3n² - 2n - 1 of them).
No table of all peers is kept: at n = 20 it would hold 185 million entries;
compiled code walks a cell's three units instead (:func:`peers_of` lists them).
The tables are built once per n, read-only, with vectorised numpy.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np


class Units(NamedTuple):
    """The unit tables of one box size (see the module docstring)."""
    units: np.ndarray        # (3n², n²) int64 flat cells of each unit
    cell_units: np.ndarray   # (n⁴, 3) int64 the row, column and box unit of each cell


def box_of(n: int, i: int, j: int) -> int:
    """The 0-based box number of cell (i, j): boxes are numbered row-major."""
    return (i // n) * n + j // n


@cache
def unit_tables(n: int) -> Units:
    """``units`` (3n², n²) and ``cell_units`` (n⁴, 3) for box size ``n``, cached per n."""
    side = n * n
    i, j = np.indices((side, side))
    box = (i // n) * n + j // n
    cells = np.arange(side * side, dtype=np.int64).reshape(side, side)
    boxes = cells.reshape(n, n, n, n).transpose(0, 2, 1, 3).reshape(side, side)
    units = np.concatenate([cells, cells.T, boxes])
    cell_units = np.stack([i.ravel(), side + j.ravel(), 2 * side + box.ravel()], axis=1).astype(np.int64)
    units.setflags(write=False)
    cell_units.setflags(write=False)
    return Units(units, cell_units)


def peers_of(n: int, cell: int) -> np.ndarray:
    """The sorted flat peers of ``cell``: every other cell sharing a row, column or box."""
    units, cell_units = unit_tables(n)
    around = np.unique(units[cell_units[cell]])
    return around[around != cell]


def pattern_solution(n: int) -> np.ndarray:
    """A solved grid for any n: M[i, j] = (i·n + i // n + j) mod n² + 1, as int32."""
    side = n * n
    i, j = np.indices((side, side))
    return ((i * n + i // n + j) % side + 1).astype(np.int32)
