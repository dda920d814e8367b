"""The SAT solvers that answer the removal phase's question "is there another solution?"
for :class:`generators.counting.RobustCounter` on large grids.

:class:`ReducedSAT` is one fresh solver per question on the ``reduced`` encoding of
:mod:`solvers.sat.sudoku_cnf`; :class:`WindowSAT` one incremental solver for a window of cells the
removal phase is about to visit, the window's clues as assumptions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from formats.errors import RaceError
from formats.grid import Grid
from solvers import rules
from solvers.sat.counting import DEFAULT_BACKEND

#: CaDiCaL options of :class:`WindowSAT`: stable mode only (CaDiCaL's "sat"
#: configuration). Replayed, seed 4, a fresh solver per question: 18.1 -> 14.7 s CPU,
#: 318k -> 253k conflicts; "chrono": 0 14.4 s; no inprocessing 20.1 s; no rephasing 20.5 s.
WINDOW_OPTIONS = {"stabilizeonly": 1}
# Measured and dropped (replayed questions of minimal 25x25, one core, exact answers): where the
# time goes, seed 4: 257 "keep" questions (a witness found) 21-22 s, 19 "remove" questions
# 4.7 s; the slowest 10 % of the keep questions take 64 % of it, and their witnesses differ
# from the known solution in 160-220 of ~350 open cells (hard puzzles in their own right; a
# fresh solver is as slow on most). Phases from the previous witness instead of the known
# solution (seed 1: 7.6 -> 8.4 s), reset to it before every question (27.2 -> 28.9 s on seed
# 4), a second phase after a conflict budget (random, inverted, all false: 33-38 s); the
# locked-candidate clauses of every row/column-box pair (7.7 -> 9.5 s); the other AMO
# encodings (sequential 37 s, commander 38 s against pairwise 27 s); the other PySAT solvers
# (cadical153 42 s; glucose4, maplechrono, minisat22, lingeling > 60 s); one-at-a-time sweeps
# of CaDiCaL options move a seed by +-15 % either way and none holds on a second seed.


class ReducedSAT:
    """One fresh SAT solver per question on the ``reduced`` encoding (Kwon &
    Jain: propagate, then variables only for the remaining candidates) of
    :mod:`solvers.sat.sudoku_cnf`. On the mostly-filled grids of the removal phase
    the formula is small and a question costs a fraction of one on the full
    encoding; the model gives a witness."""

    def __init__(self, n: int, backend: str = DEFAULT_BACKEND) -> None:
        from solvers.sat import sudoku_cnf
        from solvers.sat.counting import pysat_solver
        self.n = n
        self.backend = backend
        self._new = pysat_solver
        self._cnf = sudoku_cnf

    def count(self, cells: np.ndarray, limit: int) -> int:
        """The number of solutions of ``cells``, capped at ``limit`` (models enumerated
        with blocking clauses over the candidate variables)."""
        from solvers.sat.counting import enumerate_models
        formula = self._cnf.encode_reduced(Grid(self.n, cells), "pairwise")
        solver = self._new(self.backend, formula.blocks)
        try:
            return int(enumerate_models(solver, formula.primary, limit)[0])
        finally:
            solver.delete()

    def solvable(self, cells: np.ndarray, cell: int = -1, values: Sequence[int] = (),
                 hint: np.ndarray | None = None) -> tuple[bool, np.ndarray | None]:
        """(has a solution, one solution); with ``cell`` >= 0 only solutions in
        which that flat cell holds one of ``values`` count. ``hint``, a solved
        grid, sets the solver's phases: it tries the hint's values first (a
        second solution usually differs from a known one in few cells)."""
        side = self.n * self.n
        # pairwise: the formulas of the removal phase are small (measured at n = 5)
        formula = self._cnf.encode_reduced(Grid(self.n, cells), "pairwise")
        extra: list[list[int]] = []
        assert formula.fixed is not None and formula.var_cell is not None   # reduced: both set
        if cell >= 0:
            fixed = int(formula.fixed.reshape(-1)[cell])
            if fixed:
                if fixed not in values:
                    return False, None
            else:
                wanted = cell * side + np.asarray(values, dtype=np.int64) - 1
                variables = np.flatnonzero(np.isin(formula.var_cell, wanted))
                if variables.size == 0:
                    return False, None
                extra.append(variables.tolist())
        solver = self._new(self.backend, formula.blocks)
        try:
            for clause in extra:
                solver.add_clause(clause)
            if hint is not None:
                _hint_phases(solver, formula, hint, side)
            if not solver.solve():
                return False, None
            return True, self._cnf.decode(formula, solver.get_model()).cells.astype(np.int32)
        finally:
            solver.delete()


def _hint_phases(solver, formula, hint: np.ndarray, side: int) -> None:
    """Set the solver's phases from ``hint``, a solved grid: each candidate variable of the
    reduced ``formula`` starts true where the hint holds that value (a second solution
    usually differs from a known one in few cells)."""
    if not formula.primary:
        return
    where = formula.var_cell[1:]
    agree = hint.reshape(-1)[where // side] == where % side + 1
    variables = np.arange(1, formula.primary + 1)
    solver.set_phases(np.where(agree, variables, -variables).tolist())


class WindowSAT:
    """One incremental SAT solver for the removal-phase questions about a window of
    cells: the cell just emptied and the next ones the removal phase will visit.

    Its formula is the ``reduced`` encoding of the grid with every window cell
    emptied (the *base*); the window cells still holding a clue when a question
    comes are assumptions, and so is "cell c holds one of ``values``" (a selector
    variable). The removal phase only ever empties window cells while the window
    lasts, so every later grid keeps the base's clues and the one solver answers
    every question on the window exactly (an answer under assumptions is an answer
    about that grid; learnt clauses follow from the base alone), keeping what it
    learnt from one question to the next. :meth:`covers` checks both conditions.

    Why: a minimal 25x25 keeps ~270 clues and every one needs a second solution of
    the grid without it (a witness, ~1,000 conflicts each from a fresh solver). The
    witnesses are large and unrelated: measured on seed 1, median 125 cells that
    differ from the known solution, 23 of the 25 digits, 21 boxes; shrinking them
    (a solver asked for a solution differing on a strict subset, until none) left
    them the same size, so no cheap restricted search finds them (a two-digit swap,
    the cheapest, settles 25 of 258; three digits 11 more, at more cost than SAT).
    What questions on nearby cells share is the grid; the window shares the solver:
    replayed (CPU), 54 -> 37 s on seed 4, 20.8 -> 11.8 s on seed 1."""

    def __init__(self, n: int, cells: np.ndarray, window: np.ndarray,
                 backend: str = DEFAULT_BACKEND) -> None:
        from solvers.sat import clause_loading, sudoku_cnf
        from solvers.sat.backends import configurable
        from solvers.sat.counting import pysat_solver
        self.n = n
        side = n * n
        flat = np.asarray(cells, dtype=np.int32).reshape(-1)
        self.window = np.asarray(window, dtype=np.int64)
        base = flat.copy()
        base[self.window] = 0
        self.clue_cells = np.flatnonzero(base)
        self.clue_values = base[self.clue_cells]
        # the cells empty outside the window: a question that fills one is about another grid
        self.empty_cells = np.setdiff1d(np.flatnonzero(flat == 0), self.window)
        self._cnf = sudoku_cnf
        self.formula = sudoku_cnf.encode_reduced(Grid(n, base.reshape(side, side)), "pairwise")
        var_cell = self.formula.var_cell
        assert self.formula.fixed is not None and var_cell is not None   # reduced: both set
        self.fixed = self.formula.fixed.reshape(-1)
        self.lookup = np.zeros(side * side * side, dtype=np.int64)   # (cell, value) -> variable
        self.lookup[var_cell[1:]] = np.arange(1, var_cell.size)
        self.next_var = self.formula.nvars + 1
        self.solver = pysat_solver(backend)
        if configurable(backend):                  # CaDiCaL, by any of its names
            self.solver.configure(WINDOW_OPTIONS)
        clause_loading.load(self.solver, self.formula.blocks)
        self._phased = False
        self.questions = 0
        self.units: set[int] = set()     # window cells settled as unit clauses (settle)

    def covers(self, cells: np.ndarray, c: int) -> bool:
        """Can this solver answer for flat cell ``c`` of ``cells``? (c in the window, every
        clue of the base still there, and every cell empty in the base outside the window
        still empty: the formula knows nothing of a clue put back there.)"""
        flat = cells.reshape(-1)
        return bool(np.any(self.window == c)) and \
            np.array_equal(flat[self.clue_cells], self.clue_values) and \
            not np.any(flat[self.empty_cells])

    def _var(self, cell: int, value: int) -> int:
        side = self.n * self.n
        return int(self.lookup[cell * side + value - 1])

    def settle(self, cells: np.ndarray, settled: np.ndarray) -> None:
        """Make the clues of the window cells in ``settled`` (flat cells whose clues are
        kept for good: filled in every question this solver will be asked) unit clauses
        instead of assumptions. A kept clue never goes again, so the unit holds for the
        rest of the window's questions; the solver simplifies with it at the root and its
        learnt clauses no longer carry the assumption. Measured, one core, minimal n = 5,
        seeds 1, 3, 4: 14.8 -> 13.0, 26.9 -> 23.7, 42.5 -> 36.6 s."""
        flat = cells.reshape(-1)
        inside = np.asarray(settled, dtype=np.int64)
        inside = inside[np.isin(inside, self.window)]
        for w in inside.tolist():
            v = int(flat[w])
            if not v or w in self.units or self.fixed[w]:
                continue
            var = self._var(w, v)
            if var:
                self.solver.add_clause([var])
                self.units.add(w)

    def solvable(self, cells: np.ndarray, c: int, values: list[int],
                 hint: np.ndarray | None = None) -> tuple[bool, np.ndarray | None]:
        """(has ``cells`` a solution with flat cell ``c`` in ``values``, one such
        solution). ``hint``, a solved grid, sets the phases (see :meth:`ReducedSAT.solvable`)."""
        if not self.covers(cells, c):
            raise RaceError(f"cell {c} is outside this window, or a clue of its base is gone")
        self.questions += 1
        flat = cells.reshape(-1)
        assumptions = []
        for w in self.window.tolist():
            v = int(flat[w]) if w != c else 0
            if not v:
                continue
            if self.fixed[w]:
                if self.fixed[w] != v:
                    return False, None     # the base forces another value there
                continue
            var = self._var(w, v)
            if not var:
                return False, None         # v is not even a candidate of the base
            assumptions.append(var)
        selector = 0
        if self.fixed[c]:
            if int(self.fixed[c]) not in values:
                return False, None
        else:
            wanted = [x for x in (self._var(c, v) for v in values) if x]
            if not wanted:
                return False, None
            selector = self.next_var
            self.next_var += 1
            self.solver.add_clause([-selector] + wanted)
            assumptions.append(selector)
        if hint is not None and not self._phased:
            _hint_phases(self.solver, self.formula, hint, self.n * self.n)
            self._phased = True
        # no finally: after a solve that raised (Ctrl-C inside CaDiCaL) the solver takes no
        # more clauses: CaDiCaL aborts the process ("invalid API usage ... invalid state")
        sat = self.solver.solve(assumptions=assumptions)
        model = self.solver.get_model() if sat else None
        if selector:
            self.solver.add_clause([-selector])        # this question's clause is done with
        if not sat:
            return False, None
        assert model is not None                       # satisfiable: PySAT has its model
        found = self._cnf.decode(self.formula, model).cells.astype(np.int32)
        side = self.n * self.n
        if not (rules.is_solution_of(Grid(self.n, cells.reshape(side, side)), Grid(self.n, found))
                and int(found.reshape(-1)[c]) in values):   # pragma: no cover - a solver bug
            raise AssertionError("WindowSAT: the model is not a solution of the question")
        return True, found

    def close(self) -> None:
        self.solver.delete()
