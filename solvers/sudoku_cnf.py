"""Sudoku as CNF (Task 8) and models back to grids (Task 9, decoding half).

Variables follow the assignment: x_{i,j,k} ("cell (i, j) holds k", 1-based) is
DIMACS variable ``(i-1)·n⁴ + (j-1)·n² + k``; in 0-based code that is
``i·N² + j·N + k + 1`` with N = n². Three encodings, chosen by name:

``minimal``
    exactly the assignment's clauses (i)-(v): at-least-one per (row, value),
    (column, value), (box, value) and cell, and at-most-one per cell as
    pairwise binary clauses: 4n⁴ + (n⁸ - n⁶)/2 clauses, then one unit clause
    per clue. It lacks at-most-one per unit, so solvers must do pigeonhole
    reasoning; it is kept because the assignment asks for it.
``extended``
    Lynce & Ouaknine's extended encoding: at-least-one and pairwise
    at-most-one for every cell and for every (row|column|box, value):
    4n⁴ + 4·n⁴·(n⁴ - n²)/2 clauses, plus the clue units.
``reduced``
    Kwon & Jain's optimised encoding: the clues are propagated first (a clue
    removes its value from its peers; naked and hidden singles become clues
    until nothing changes), then only the remaining candidates get variables
    (numbered 1..V in (i, j, k) order) and only unsatisfied groups get clauses
    (the extended clauses restricted to candidates). ``Formula.var_cell``
    maps a variable back to its (i, j, k); ``Formula.fixed`` holds the cells
    the propagation decided. Propagation proving the clues contradictory
    yields the one-variable formula (x1) ∧ (¬x1).

A :class:`Formula` keeps its clauses as a list of 2-D int32 blocks, one clause
width per block (``(m, w)`` = m clauses of w literals), built with numpy
vectorised over all groups at once: no Python loop over the n⁸ pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from formats.errors import RaceError
from formats.grid import Grid
from solvers import rules

ENCODINGS = ("minimal", "extended", "reduced")

LIT_DTYPE = np.int32


@dataclass
class Formula:
    """A CNF over ``nvars`` variables: clauses in fixed-width int32 blocks.

    ``var_cell[v]`` is the flat index i·N² + j·N + k (0-based) of variable v
    (entry 0 unused), or None when the identity numbering of the assignment is
    used (minimal, extended). ``fixed`` is the (N, N) array of cells known
    before solving (the clues; for ``reduced`` also what propagation decided).
    """
    n: int
    encoding: str
    nvars: int
    blocks: list[np.ndarray]
    fixed: np.ndarray | None
    var_cell: np.ndarray | None = None
    comments: list[str] = field(default_factory=list)

    @property
    def nclauses(self) -> int:
        return sum(b.shape[0] for b in self.blocks)

    @property
    def nliterals(self) -> int:
        return sum(b.size for b in self.blocks)

    def clauses(self) -> Iterator[list[int]]:
        """Every clause as a Python list of ints (what PySAT takes)."""
        for block in self.blocks:
            yield from block.tolist()

    def flat(self) -> tuple[np.ndarray, np.ndarray]:
        """All clauses as one flat literal array and clause start offsets
        (``offsets`` has nclauses + 1 entries)."""
        lits = np.concatenate([b.ravel() for b in self.blocks]) if self.blocks \
            else np.zeros(0, LIT_DTYPE)
        widths = np.concatenate([np.full(b.shape[0], b.shape[1], np.int64) for b in self.blocks]) \
            if self.blocks else np.zeros(0, np.int64)
        return lits.astype(LIT_DTYPE, copy=False), np.concatenate([[0], np.cumsum(widths)])

    def header(self) -> list[str]:
        """Comment lines for a DIMACS file: what this formula encodes."""
        return [f"sudoku-race CNF: n={self.n} encoding={self.encoding}",
                "x(i,j,k) = (i-1)*n^4 + (j-1)*n^2 + k" if self.var_cell is None
                else "reduced variables: numbered over the remaining candidates in (i,j,k) order",
                *self.comments]


# -- the variable cube ------------------------------------------------------------

def variables(n: int) -> np.ndarray:
    """The (N, N, N) array of variable numbers x[i, j, k] = i·N² + j·N + k + 1."""
    side = n * n
    return np.arange(1, side ** 3 + 1, dtype=LIT_DTYPE).reshape(side, side, side)


def groups(n: int, table: np.ndarray) -> dict[str, np.ndarray]:
    """The four families of exactly-one groups over ``table`` (any array of N³
    entries, indexed [i, j, k]): each is an (N², N) array, one row per group, in
    the assignment's order. Rows, columns and boxes are the core's units."""
    side = n * n
    per_cell = table.reshape(side * side, side)                      # (cell, k)
    units, _ = rules.unit_tables(n)
    per_unit = per_cell[units].transpose(0, 2, 1).reshape(3, side * side, side)  # (unit, k) over cells
    return {"row": per_unit[0],          # (i, k) over j   (i)
            "column": per_unit[1],       # (j, k) over i  (ii)
            "box": per_unit[2],          # (box, k)       (iii)
            "cell": per_cell}            # (i, j) over k  (iv)


def at_most_one(rows: np.ndarray) -> np.ndarray:
    """Pairwise at-most-one clauses (¬a ∨ ¬b) for every pair in every row of
    ``rows`` ((m, w) variables): an (m·w(w-1)/2, 2) block."""
    m, w = rows.shape
    a, b = np.triu_indices(w, 1)
    out = np.empty((m, a.size, 2), dtype=LIT_DTYPE)
    np.negative(rows[:, a], out=out[:, :, 0])
    np.negative(rows[:, b], out=out[:, :, 1])
    return out.reshape(-1, 2)


def clue_literals(grid: Grid) -> np.ndarray:
    """The assignment's variable x_{i,j,k} of each clue (i, j) = k, as int32."""
    side = grid.side
    i, j = np.nonzero(grid.cells)
    return (i * side * side + j * side + grid.cells[i, j]).astype(LIT_DTYPE)


def _units(grid: Grid) -> np.ndarray:
    return clue_literals(grid).reshape(-1, 1)


# -- the three encodings -----------------------------------------------------------

def encode_minimal(grid: Grid) -> Formula:
    """Clauses (i)-(v) of the assignment plus one unit clause per clue."""
    g = groups(grid.n, variables(grid.n))
    blocks = [g["row"], g["column"], g["box"], g["cell"], at_most_one(g["cell"]), _units(grid)]
    return Formula(grid.n, "minimal", grid.side ** 3, [b for b in blocks if b.size],
                   grid.cells.copy())


def encode_extended(grid: Grid) -> Formula:
    """Lynce & Ouaknine's extended encoding plus one unit clause per clue."""
    return Formula(grid.n, "extended", grid.side ** 3, extended_blocks(grid.n) +
                   ([_units(grid)] if grid.clues() else []), grid.cells.copy())


def extended_blocks(n: int) -> list[np.ndarray]:
    """The structural clauses of the extended encoding for box size n."""
    g = groups(n, variables(n))
    families = [g["cell"], g["row"], g["column"], g["box"]]
    return families + [at_most_one(f) for f in families]


def encode_reduced(grid: Grid) -> Formula:
    """Propagate the clues (:func:`solvers.rules.propagate`), then encode only
    the remaining candidates."""
    n, side = grid.n, grid.side
    found = rules.propagate(grid.cells, n)
    if found.contradiction:
        return Formula(n, "reduced", 1, [np.array([[1], [-1]], LIT_DTYPE)], grid.cells.copy(),
                       np.array([-1, -1], np.int64), ["propagation: the clues are contradictory"])
    open_cells = np.flatnonzero(found.cells.reshape(-1) == 0)
    cell, k = np.nonzero(found.candidates[open_cells])
    cell = open_cells[cell]                                  # (cell, k) pairs in (i, j, k) order
    var_cell = np.concatenate([[-1], cell * side + k]).astype(np.int64)
    variables = np.arange(1, var_cell.size, dtype=LIT_DTYPE)
    _, cell_units = rules.unit_tables(n)
    blocks: list[np.ndarray] = []
    for family in range(4):             # rows, columns, boxes (by unit, value), cells
        if family < 3:
            position = np.argsort(cell_units[cell, family] * side + k, kind="stable")
            members, key = variables[position], (cell_units[cell, family] * side + k)[position]
        else:
            members, key = variables, cell
        blocks.extend(_group_blocks(members, key))
    decided = int(np.count_nonzero(found.cells)) - grid.clues()
    return Formula(n, "reduced", var_cell.size - 1, blocks, found.cells.copy(), var_cell,
                   [f"propagation decided {decided} cells beyond the {grid.clues()} clues"])


def _group_blocks(members: np.ndarray, key: np.ndarray) -> list[np.ndarray]:
    """Exactly-one clauses of the groups of ``members`` sharing a ``key`` (sorted,
    members in group order): per group width w (ascending), one block of
    at-least-one clauses and, for w > 1, its pairwise at-most-one block."""
    if members.size == 0:
        return []
    first = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
    width = np.diff(np.concatenate([first, [key.size]]))
    blocks = []
    for w in np.unique(width):
        starts = first[width == w]
        packed = members[starts[:, None] + np.arange(w)]
        blocks.append(packed)
        if w > 1:
            blocks.append(at_most_one(packed))
    return blocks


ENCODERS = {"minimal": encode_minimal, "extended": encode_extended, "reduced": encode_reduced}


def encode(grid: Grid, encoding: str = "extended") -> Formula:
    """The CNF of ``grid`` in the named encoding (see the module docstring)."""
    try:
        encoder = ENCODERS[encoding]
    except KeyError:
        raise RaceError(f"unknown encoding {encoding!r} (known: {', '.join(ENCODINGS)})") from None
    return encoder(grid)


def structural_clause_count(n: int, encoding: str) -> int:
    """The number of clauses before clues: 4n⁴ + (n⁸-n⁶)/2 for minimal,
    4n⁴ + 2(n⁸-n⁶) for extended."""
    pairs = (n ** 8 - n ** 6) // 2
    return 4 * n ** 4 + {"minimal": pairs, "extended": 4 * pairs}[encoding]


# -- decoding (Task 9) ------------------------------------------------------------

def decode(formula: Formula, model: np.ndarray | list[int]) -> Grid:
    """The grid a model of ``formula`` describes.

    ``model`` holds signed literals (absent variables count as false). Every
    undecided cell must get exactly one true variable, else :class:`RaceError`
    (never a wrong grid). Literals beyond ``formula.nvars`` are ignored."""
    n, side = formula.n, formula.n * formula.n
    lits = np.asarray(model, dtype=np.int64).ravel()
    true = lits[(lits > 0) & (lits <= formula.nvars)]
    if formula.var_cell is None:
        flat = true - 1
    else:
        flat = formula.var_cell[true]
        if np.any(flat < 0):
            raise RaceError("the model sets a variable that encodes no cell")
    cell = flat // side
    per_cell = np.bincount(cell, minlength=side * side)
    free = formula.fixed.ravel() == 0
    if formula.var_cell is None:
        free = np.ones(side * side, bool)
    bad = np.flatnonzero(free & (per_cell != 1))
    if bad.size:
        i, j = divmod(int(bad[0]), side)
        raise RaceError(f"the model gives cell ({i + 1}, {j + 1}) {per_cell[bad[0]]} values, "
                        f"expected exactly one ({bad.size} such cells)")
    if formula.var_cell is not None and np.any(per_cell[~free]):
        raise RaceError("the model sets a value in a cell that was already decided")
    cells = formula.fixed.ravel().astype(np.int64)
    cells[cell] = flat % side + 1
    return Grid(n, cells.reshape(side, side))
