"""Counting with blocking clauses and the generators' incremental uniqueness check."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import full_grid, puzzle_from

from formats.errors import RaceError
from formats.grid import Grid
from solvers import registry
from solvers.sat import sudoku_cnf
from solvers.sat.counting import enumerate_models, pysat_solver
from solvers.sat.solver import IncrementalCounter


def test_empty_4x4_has_288_solutions_incrementally():
    with IncrementalCounter(2) as counter:
        assert counter.count(Grid.empty(2), limit=1000) == 288
        assert counter.count(Grid.empty(2), limit=5) == 5
        # the blocking clauses of earlier questions are retired: same answer again
        assert counter.count(Grid.empty(2), limit=1000) == 288


def test_incremental_counter_matches_fresh_solver_and_backtracking(rng):
    backtracking = registry.create("backtracking")
    puzzles = [puzzle_from(full_grid(3, rng), blanks, rng) for blanks in (0.3, 0.4, 0.5, 0.7) * 3]
    with IncrementalCounter(3) as counter:
        counts = [counter.count(p, limit=2) for p in puzzles]
    for puzzle, count in zip(puzzles, counts):
        formula = sudoku_cnf.encode_extended(puzzle)
        solver = pysat_solver("cadical195", formula.blocks)
        fresh, _, complete = enumerate_models(solver, formula.nvars, 2)
        solver.delete()
        assert complete and fresh == count
        assert backtracking.count(puzzle, 2).count == count
    assert 1 in counts and 2 in counts       # both answers occur in the sample


def test_incremental_counter_sees_unsat_and_wrong_size():
    cells = np.zeros((4, 4), dtype=np.int32)
    cells[0, 0] = cells[1, 1] = 1               # same box twice: no solution
    with IncrementalCounter(2, backend="glucose4") as counter:
        assert counter.count(Grid(2, cells)) == 0
        assert counter.count(Grid.empty(2), limit=3) == 3
        with pytest.raises(RaceError):
            counter.count(Grid.empty(3))
    with pytest.raises(RaceError):
        counter.count(Grid.empty(2))            # closed


def test_pysat_kissat_is_refused():
    with pytest.raises(RaceError, match="kissat"):
        IncrementalCounter(2, backend="kissat404")


def test_a_solver_stopped_by_ctrl_c_takes_no_more_clauses(monkeypatch):
    """PySAT leaves CaDiCaL mid-state when Ctrl-C stops a solve: adding the clause that
    retires the question (it was in a finally) aborted the process ("invalid API usage")."""
    from formats.grid import Grid
    from solvers.sat import counting as sat_counting

    counter = sat_counting.IncrementalCounter(2)
    added = []

    class Stopped:
        def add_clause(self, clause):
            added.append(clause)

        def delete(self):
            pass

    real = counter._solver
    counter._solver = Stopped()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(sat_counting, "enumerate_models", interrupted)
    with pytest.raises(KeyboardInterrupt):
        counter.count(Grid(2, np.zeros((4, 4), dtype=np.int32)))
    assert added == []
    real.delete()
