"""Counting Sudoku solutions with a SAT solver: blocking clauses, in-process (PySAT).

:func:`enumerate_models` finds a model, records it, adds a clause that
forbids exactly that assignment of the decision variables ("blocking
clause"), and repeats until the formula is unsatisfiable or ``limit`` models
are found. A Sudoku solution is determined by its true variables, so the
blocking clause is the disjunction of their negations.

:class:`IncrementalCounter` is the generators' uniqueness check: ONE solver
holding the ``extended`` structural clauses for a box size n, the clues of
each question given as assumptions, and the blocking clauses of each question
guarded by a fresh selector literal s (clause ¬s ∨ block): s is assumed during
that question and disabled forever afterwards by the unit clause ¬s, so the
solver (and everything it learnt about Sudoku) is reused across questions::

    with IncrementalCounter(3) as counter:
        unique = counter.count(puzzle, limit=2) == 1
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from formats.errors import RaceError
from formats.grid import Grid
from solvers.sat import clause_loading, sudoku_cnf

if TYPE_CHECKING:
    from pysat.solvers import Solver

#: PySAT solver names that must never be used (python-sat 1.9.dev17: kissat404
#: ignores assumptions and aborts the interpreter on a second solve).
FORBIDDEN_PYSAT = ("kissat404", "kissat")
#: the PySAT solver the project uses wherever none is named (CaDiCaL 1.9.5): the one
#: place its name is spelled
DEFAULT_BACKEND = "cadical195"

#: PySAT's maplesat kills the interpreter (SIGSEGV) on the reduced encoding of a 16x16
#: (python-sat 1.8.dev: `race solve -s sat:backend=maplesat` of a unique n = 4 puzzle)
CRASHING_PYSAT = "maplesat"


def refuse_broken_pysat(name: str) -> None:
    """Raise RaceError when ``name`` is PySAT's in-process kissat or maplesat (or one of
    their aliases): the one place that knows they must never be used."""
    from pysat.solvers import SolverNames
    if name in FORBIDDEN_PYSAT or name in getattr(SolverNames, "kissat404", ()):
        raise RaceError(f"PySAT's in-process kissat ({name!r}) gives wrong answers with "
                        "assumptions and crashes on a second solve; use backend=kissat (the binary)")
    if name == CRASHING_PYSAT or name in getattr(SolverNames, CRASHING_PYSAT, ()):
        raise RaceError(f"PySAT's maplesat ({name!r}) crashes the process (segmentation fault) "
                        "on Sudoku formulas from 16x16 up; use maplecm, maplechrono or cadical195")


def pysat_solver(name: str, clauses: Sequence[clause_loading.Block] | None = None) -> Solver:
    """A PySAT solver by name, refusing the broken in-process kissat, holding
    ``clauses`` (blocks: see :func:`solvers.sat.clause_loading.load`)."""
    from pysat.solvers import Solver
    refuse_broken_pysat(name)
    try:
        solver = Solver(name=name)
    except Exception as exc:   # PySAT raises a bare Exception/NotImplementedError for unknown names
        raise RaceError(f"unknown PySAT solver {name!r}: {exc}") from None
    if clauses is not None:
        clause_loading.load(solver, clauses, fresh=True)
    return solver


def enumerate_models(solver: Solver, nvars: int, limit: int | None,
                     assumptions: Sequence[int] = (), guard: int | None = None,
                     solve: Callable[[Solver, list[int]], bool | None] | None = None
                     ) -> tuple[int, list[np.ndarray], bool]:
    """Enumerate models of ``solver`` under ``assumptions`` with blocking clauses.

    Stops after ``limit`` models (None = all). Each blocking clause negates the
    true variables among 1..``nvars`` that are not assumptions; with ``guard``
    it also holds ¬guard (and ``guard`` must be among the assumptions).
    ``solve(solver, assumptions)`` -> True/False/None (None = budget ran out)
    replaces the plain ``solver.solve``. Returns (count, models as arrays of
    true variables, complete); complete is False when ``solve`` gave None."""
    solve = solve or (lambda s, a: s.solve(assumptions=a))
    assumed = np.asarray([a for a in assumptions if a > 0], dtype=np.int64)
    models: list[np.ndarray] = []
    count = 0
    while limit is None or count < limit:
        answer = solve(solver, list(assumptions))
        if answer is None:
            return count, models, False
        if not answer:
            return count, models, True
        model = np.asarray(solver.get_model(), dtype=np.int64)
        true = model[(model > 0) & (model <= nvars)]
        models.append(true)
        count += 1
        block = -true[~np.isin(true, assumed)]
        clause = block.tolist() + ([-guard] if guard is not None else [])
        if not clause:      # nothing left to vary: the model is the only one
            return count, models, True
        solver.add_clause(clause)
    return count, models, True


class IncrementalCounter:
    """Count solutions of many puzzles of one box size n with one SAT solver.

    ``IncrementalCounter(n, backend)`` builds the ``extended`` encoding of the
    empty grid once (``backend`` is a PySAT solver name, cadical195 by
    default). :meth:`count` answers each puzzle with its clues as assumptions;
    no clause of one question constrains the next."""

    def __init__(self, n: int, backend: str = DEFAULT_BACKEND) -> None:
        self.n = n
        self.side = n * n
        self.nvars = self.side ** 3
        self._next_var = self.nvars + 1
        self._solver = pysat_solver(backend, sudoku_cnf.extended_blocks(n))

    def count(self, grid: Grid, limit: int = 2) -> int:
        """The number of solutions of ``grid``, counted up to ``limit`` (so
        ``count(grid, 2) == 1`` means "unique")."""
        if self._solver is None:
            raise RaceError("IncrementalCounter is closed")
        if grid.n != self.n:
            raise RaceError(f"this counter was built for n={self.n}, got a grid with n={grid.n}")
        if limit < 1:
            raise RaceError(f"the solution limit must be >= 1, got {limit}")
        selector = self._next_var
        self._next_var += 1
        assumptions = sudoku_cnf.clue_literals(grid).tolist() + [selector]
        # no finally: after a call that raised (Ctrl-C inside CaDiCaL) the solver takes no
        # more clauses: CaDiCaL aborts the process ("invalid API usage ... invalid state")
        count, _, _ = enumerate_models(self._solver, self.nvars, limit, assumptions,
                                       guard=selector)
        self._solver.add_clause([-selector])       # retire this question's blocking clauses
        return count

    def close(self) -> None:
        """Free the solver (idempotent)."""
        if self._solver is not None:
            self._solver.delete()
            self._solver = None

    def __enter__(self) -> IncrementalCounter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()
