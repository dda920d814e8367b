"""A second opinion on a generated puzzle's "exactly one solution", before it is recorded.

The removal phase of Algorithm 2 decides uniqueness through a chain of questions answered
by the counter (propagation, budgeted DLX, CaDiCaL on window encodings): every "another
solution" answer comes with a witness that is checked, but every "still unique" answer is
the counter's word. The record it leads to (``solution=`` with ``kind=unique|minimal``, and
the ``unsat`` family built on such a base) is what the race's referee later trusts to judge
the solvers' claims (:mod:`experiments.harness.referee`), so it is checked once more, on the
whole puzzle and by other code: MiniSat (PySAT's ``minisat22``, not CaDiCaL) on CanPlace's
candidates (the reduced encoding without the propagation kernel the counter relies on) with
one clause asking for any cell to differ from the solution. "No" confirms the
record; a model is decoded, verified (:func:`solvers.rules.is_solution_of`) and reported as
a one-line :class:`RaceError` naming a cell where the two solutions differ: the puzzle is
never written. Measured (one core): minimal 25x25, 0.45 and 1.2 s a puzzle (seeds 1, 3; about
5 % of generating it); unique puzzles and n <= 4 a few ms. The n = 5 minimal benchmark
(``tests/bench/bench_generators.py``) times the generator without it.
"""

from __future__ import annotations

import numpy as np

from formats.errors import RaceError
from formats.grid import Grid
from solvers import rules

#: the second opinion's SAT solver: another code base than the counter's CaDiCaL
SOLVER = "minisat22"


def _grid(cells: np.ndarray, n: int) -> Grid:
    side = n * n
    return Grid(n, np.asarray(cells, dtype=np.int32).reshape(side, side))


def _solve(puzzle: Grid, extra=None, conflicts: int | None = None):
    """MiniSat on CanPlace's candidates of ``puzzle`` (plus the clause ``extra(formula)``
    when given; within ``conflicts`` when given): (True, False or None for out of budget,
    the model's grid or None)."""
    from solvers.sat import clause_loading, sudoku_cnf
    from solvers.sat.counting import pysat_solver
    formula = sudoku_cnf.encode_reduced(puzzle, "pairwise", propagation=False)
    clause = extra(formula) if extra is not None else None
    if clause is not None and not clause:
        return False, None                # the empty clause: nothing can satisfy it
    solver = pysat_solver(SOLVER)
    try:
        clause_loading.load(solver, formula.blocks)
        if clause is not None:
            solver.add_clause(clause)
        if conflicts is not None:
            solver.conf_budget(conflicts)
        answer = solver.solve_limited()
        return answer, sudoku_cnf.decode(formula, solver.get_model()) if answer else None
    finally:
        solver.delete()


def another_solution(cells: np.ndarray, solution: np.ndarray, n: int) -> np.ndarray | None:
    """A solved grid of ``cells`` other than ``solution`` (verified), or None when there is
    none. ``solution`` must solve ``cells`` (RaceError otherwise)."""
    puzzle, known = _grid(cells, n), _grid(solution, n)
    if not rules.is_solution_of(puzzle, known):
        raise RaceError("second opinion: the recorded solution does not solve the puzzle")
    side = n * n

    def some_cell_differs(formula) -> list[int]:     # any candidate but the solution's value
        where = formula.var_cell[1:formula.primary + 1]
        values = known.cells.reshape(-1)[where // side]
        return (np.flatnonzero(values != where % side + 1) + 1).tolist()

    answer, other = _solve(puzzle, some_cell_differs)
    if not answer:
        return None
    if not rules.is_solution_of(puzzle, other) or other == known:   # pragma: no cover - a MiniSat bug
        raise AssertionError("second opinion: MiniSat's model is not another solution")
    return other.cells.astype(np.int32)


def confirm_unique(cells: np.ndarray, solution: np.ndarray, n: int, what: str = "puzzle") -> None:
    """Raise a one-line RaceError unless ``solution`` is the only solution of ``cells``."""
    other = another_solution(cells, solution, n)
    if other is not None:
        side, known, found = n * n, np.asarray(solution).reshape(-1), other.reshape(-1)
        c = int(np.flatnonzero(found != known)[0])
        raise RaceError(f"the generated {what} (n={n}) has a second solution (it differs at row "
                        f"{c // side + 1}, column {c % side + 1}: {found[c]} instead of "
                        f"{known[c]}), found by {SOLVER}: the generator's uniqueness check "
                        "failed; nothing was recorded")


def confirms_no_solution(cells: np.ndarray, n: int, conflicts: int) -> bool:
    """Does MiniSat agree, within ``conflicts`` conflicts, that ``cells`` has no solution?
    (False: it ran out first.) A solution it finds is verified and raised as a one-line
    RaceError: the first method's "no solution" was wrong."""
    puzzle = _grid(cells, n)
    answer, found = _solve(puzzle, conflicts=conflicts)
    if found is not None:
        if not rules.is_solution_of(puzzle, found):   # pragma: no cover - a MiniSat bug
            raise AssertionError("second opinion: MiniSat's model does not solve the puzzle")
        raise RaceError(f"the generated unsat puzzle (n={n}) has a solution, found by {SOLVER}: "
                        "the first method's proof was wrong; nothing was recorded")
    return answer is False
