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

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from formats.compiled import is_interpreted, kernel
from formats.errors import RaceError
from formats.grid import Grid
from solvers import rules
from solvers.sat import at_most_one as amo_encodings

ENCODINGS = ("minimal", "extended", "reduced")

LIT_DTYPE = np.int32


@dataclass
class Formula:
    """A CNF over ``nvars`` variables: clauses in fixed-width int32 blocks.

    ``var_cell[v]`` is the flat index i·N² + j·N + k (0-based) of variable v
    (entry 0 unused), or None when the identity numbering of the assignment is
    used (minimal, extended). ``fixed`` is the (N, N) array of cells known
    before solving (the clues; for ``reduced`` also what propagation decided).
    Variables 1..``primary`` stand for (cell, value) pairs; those above are the
    auxiliaries of compact at-most-one encodings (their values are not part of a
    solution, so blocking clauses and decoding ignore them).
    """
    n: int
    encoding: str
    nvars: int
    blocks: list[np.ndarray]
    fixed: np.ndarray | None
    var_cell: np.ndarray | None = None
    comments: list[str] = field(default_factory=list)
    nprimary: int | None = None

    @property
    def primary(self) -> int:
        """The number of (cell, value) variables: 1..primary (the rest are auxiliaries)."""
        return self.nvars if self.nprimary is None else self.nprimary

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
    """The structural clauses of the extended encoding for box size n (RaceError
    beyond :data:`MAX_FULL_CLAUSES`)."""
    check_full_size(n, "extended")
    g = groups(n, variables(n))
    families = [g["cell"], g["row"], g["column"], g["box"]]
    return families + [at_most_one(f) for f in families]


def _contradictory(grid: Grid, why: str) -> Formula:
    return Formula(grid.n, "reduced", 1, [np.array([[1], [-1]], LIT_DTYPE)], grid.cells.copy(),
                   np.array([-1, -1], np.int64), [why])


def encode_reduced(grid: Grid, amo: str = amo_encodings.DEFAULT,
                   propagation: bool = True) -> Formula:
    """Propagate the clues (:func:`solvers.rules.propagate`: the compiled kernel, or numpy
    when interpreted), then encode only the remaining candidates: exactly-one per open
    cell over its candidates and per (row|column|box, value) over the cells where the
    value can still go, each at-most-one in the encoding ``amo``
    (:mod:`solvers.sat.at_most_one`; auxiliaries are numbered after the candidate
    variables). Memory is linear in the candidates: no array of n⁶ entries is built.
    Interpreted or compiled, the formula is the same (tested). Without ``propagation``
    the candidates are CanPlace's on the clues alone (no singles: a check that does not
    rest on the propagation code, :mod:`generators.second_opinion`)."""
    n, side = grid.n, grid.side
    units, cell_units = rules.unit_tables(n)
    if propagation:
        found = rules.propagate(grid.cells, n)
        if found.contradiction:
            return _contradictory(grid, "propagation: the clues are contradictory")
        cells, candidates = found.cells, found.candidates
    else:
        cells = grid.cells
        flat = cells.reshape(-1)
        candidates = rules.candidate_table(cells, n)
        missing = rules.unit_value_counts(cells, n)[:, 1:] == 0        # (unit, value) not placed
        if not rules.is_consistent(grid) or np.any((flat == 0) & ~candidates.any(axis=1)) or \
                np.any(missing & ~candidates[units].any(axis=1)):
            return _contradictory(grid, "the clues leave a cell or a unit's value no place")
    number = candidate_groups_vectorised if is_interpreted() else candidate_groups
    var_cell, members, bounds = number(cells.reshape(-1), candidates, cell_units, side)
    var_cell = np.concatenate([[-1], var_cell])
    blocks: list[np.ndarray] = []
    next_var = var_cell.size
    for family in range(4):             # rows, columns, boxes (by unit, value), cells
        new, next_var = _group_blocks(members[family], bounds[family], next_var, amo)
        blocks.extend(new)
    decided = int(np.count_nonzero(cells)) - grid.clues()
    return Formula(n, "reduced", next_var - 1, blocks, cells.copy(), var_cell,
                   [f"propagation decided {decided} cells beyond the {grid.clues()} clues",
                    f"at-most-one: {amo}"], nprimary=var_cell.size - 1)


@kernel(cache=True, nogil=True)
def candidate_groups(cells: np.ndarray, candidates: np.ndarray, cell_units: np.ndarray,
                     side: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The variables of the reduced encoding and their exactly-one groups, by counting sort.

    Variable v (1-based) is the v-th (open cell c, value index k) with
    ``candidates[c, k]`` in (c, k) order; ``var_cell[v-1] = c·side + k``. Group g of
    family f (0 row, 1 column, 2 box: key (unit - f·side)·side + k; 3 cell: key c) is
    ``members[f, bounds[f, g]:bounds[f, g+1]]``, its variables ascending."""
    total = 0
    for c in range(cells.size):
        if cells[c] == 0:
            for k in range(side):
                if candidates[c, k]:
                    total += 1
    var_cell = np.empty(total, np.int64)
    keys = np.empty((4, total), np.int64)
    v = 0
    for c in range(cells.size):
        if cells[c] == 0:
            for k in range(side):
                if candidates[c, k]:
                    var_cell[v] = c * side + k
                    for f in range(3):
                        keys[f, v] = (cell_units[c, f] - f * side) * side + k
                    keys[3, v] = c
                    v += 1
    groups = side * side
    members = np.empty((4, total), np.int64)
    bounds = np.zeros((4, groups + 1), np.int64)
    for f in range(4):
        for v in range(total):
            bounds[f, keys[f, v] + 1] += 1
        for g in range(groups):
            bounds[f, g + 1] += bounds[f, g]
        fill = bounds[f, :groups].copy()
        for v in range(total):
            key = keys[f, v]
            members[f, fill[key]] = v + 1
            fill[key] += 1
    return var_cell, members, bounds


def candidate_groups_vectorised(cells: np.ndarray, candidates: np.ndarray, cell_units: np.ndarray,
                                side: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`candidate_groups` with numpy (the same arrays: a stable sort by group key
    is the counting sort), for :func:`formats.compiled.interpreted` callers."""
    c, k = np.nonzero(candidates & (cells == 0)[:, None])
    groups = side * side
    keys = np.empty((4, c.size), np.int64)
    for f in range(3):
        keys[f] = (cell_units[c, f] - f * side) * side + k
    keys[3] = c
    bounds = np.zeros((4, groups + 1), np.int64)
    for f in range(4):
        np.cumsum(np.bincount(keys[f], minlength=groups), out=bounds[f, 1:])
    return c * side + k, np.argsort(keys, axis=1, kind="stable") + 1, bounds


def _group_blocks(members: np.ndarray, bounds: np.ndarray, next_var: int,
                  amo: str) -> tuple[list[np.ndarray], int]:
    """Exactly-one clauses of the groups ``members[bounds[g]:bounds[g+1]]``, per
    group width: the at-least-one block and the at-most-one blocks of encoding
    ``amo``. Returns (blocks, next free variable)."""
    first = bounds[:-1]
    width = np.diff(bounds)
    blocks = []
    for w in np.unique(width[width > 0]):
        starts = first[width == w]
        packed = members[starts[:, None] + np.arange(w)].astype(LIT_DTYPE)
        new, next_var = amo_encodings.exactly_one(packed, next_var, amo)
        blocks.extend(new)
    return blocks, next_var


ENCODERS = {"minimal": encode_minimal, "extended": encode_extended, "reduced": encode_reduced}

#: the most structural clauses ``minimal``/``extended`` may have (n = 8 extended: 33M);
#: beyond it they would need many GB, and ``reduced`` is the encoding for large n.
MAX_FULL_CLAUSES = 40_000_000


def encode(grid: Grid, encoding: str = "extended", amo: str = amo_encodings.DEFAULT) -> Formula:
    """The CNF of ``grid`` in the named encoding (see the module docstring); ``amo``
    is the at-most-one encoding of ``reduced`` (the other two are the assignment's
    pairwise clauses). Raises RaceError for an unknown name, or when ``minimal`` /
    ``extended`` would exceed :data:`MAX_FULL_CLAUSES` clauses."""
    try:
        encoder = ENCODERS[encoding]
    except KeyError:
        raise RaceError(f"unknown encoding {encoding!r} (known: {', '.join(ENCODINGS)})") from None
    if encoding == "reduced":
        return encode_reduced(grid, amo)
    amo_encodings.template(amo, 2)                      # an unknown name is an error here too
    check_full_size(grid.n, encoding)
    return encoder(grid)


def check_full_size(n: int, encoding: str) -> None:
    """RaceError when the ``minimal``/``extended`` encoding at box size n is too large."""
    clauses = structural_clause_count(n, encoding)
    if clauses > MAX_FULL_CLAUSES:
        raise RaceError(f"encoding={encoding} at n={n} has {clauses:,} clauses, more than the "
                        f"{MAX_FULL_CLAUSES:,} allowed; use encoding=reduced")


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
    (never a wrong grid). Auxiliary variables and literals beyond
    ``formula.nvars`` are ignored."""
    if formula.fixed is None:
        raise ValueError(f"a {formula.encoding} formula holds no grid to decode")
    n, side = formula.n, formula.n * formula.n
    lits = np.asarray(model, dtype=np.int64).ravel()
    true = lits[(lits > 0) & (lits <= formula.primary)]
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
