"""CNF encodings (Task 8) and decoding (Task 9): counts, agreement with backtracking, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conftest import full_grid, puzzle_from
from formats.errors import RaceError
from formats.grid import Grid
from solvers import registry, rules, sudoku_cnf
from solvers.sat_counting import enumerate_models, pysat_solver


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_minimal_has_the_assignments_clause_count(n):
    empty = sudoku_cnf.encode(Grid.empty(n), "minimal")
    assert empty.nvars == n ** 6
    assert empty.nclauses == 4 * n ** 4 + (n ** 8 - n ** 6) // 2
    # (i)-(iv) are n^2-wide at-least-one clauses, (v) binary negative pairs
    widths = sorted({b.shape[1] for b in empty.blocks})
    assert widths == [2, n * n]
    assert all(np.all(b < 0) for b in empty.blocks if b.shape[1] == 2)
    puzzle = puzzle_from(full_grid(n, np.random.default_rng(n)), 0.5, np.random.default_rng(0))
    assert sudoku_cnf.encode(puzzle, "minimal").nclauses == empty.nclauses + puzzle.clues()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_extended_clause_count_and_literals_in_range(n):
    f = sudoku_cnf.encode(Grid.empty(n), "extended")
    assert f.nclauses == 4 * n ** 4 + 2 * (n ** 8 - n ** 6)
    lits, offsets = f.flat()
    assert offsets[-1] == lits.size and lits.size == f.nliterals
    assert np.abs(lits).min() >= 1 and np.abs(lits).max() == f.nvars


def test_variable_numbering_is_the_assignments():
    n = 3
    cube = sudoku_cnf.variables(n)
    for i, j, k in [(1, 1, 1), (2, 3, 4), (9, 9, 9)]:
        assert cube[i - 1, j - 1, k - 1] == (i - 1) * n ** 4 + (j - 1) * n ** 2 + k
    grid = Grid.empty(3)
    grid.cells[1, 2] = 4                        # the assignment's example: M[2,3] = 4
    assert sudoku_cnf.clue_literals(grid).tolist() == [81 + 18 + 4]


def test_reduced_is_smaller_and_maps_back(rng):
    solution = full_grid(4, rng)
    puzzle = puzzle_from(solution, 0.6, rng)
    reduced = sudoku_cnf.encode(puzzle, "reduced")
    extended = sudoku_cnf.encode(puzzle, "extended")
    assert 0 < reduced.nvars < extended.nvars and reduced.nclauses < extended.nclauses
    cells = reduced.var_cell[1:]
    assert np.all(puzzle.cells.ravel()[cells // 16] == 0)          # no variable for a clue cell
    assert np.all(np.diff(cells) > 0)                                # (i, j, k) order
    solver = pysat_solver("cadical195", reduced.blocks)
    assert solver.solve()
    decoded = sudoku_cnf.decode(reduced, solver.get_model())
    solver.delete()
    assert rules.is_solution_of(puzzle, decoded)


def test_reduced_encodes_a_100x100_grid_with_many_clues():
    rng = np.random.default_rng(7)
    solution = full_grid(10, rng)
    puzzle = puzzle_from(solution, 0.4, rng)
    formula = sudoku_cnf.encode(puzzle, "reduced")
    assert 0 < formula.primary < 10 ** 6 // 10 and formula.primary <= formula.nvars
    assert np.all(formula.fixed[puzzle.cells != 0] == puzzle.cells[puzzle.cells != 0])
    puzzle = puzzle_from(solution, 0.3, rng)           # easy enough to solve here too
    formula = sudoku_cnf.encode(puzzle, "reduced")
    solver = pysat_solver("cadical195", formula.blocks)
    assert solver.solve()
    decoded = sudoku_cnf.decode(formula, solver.get_model())
    solver.delete()
    assert rules.is_solution_of(puzzle, decoded)


def test_propagation_spots_contradictions():
    cells = np.zeros((4, 4), np.int32)
    cells[0, 0] = cells[0, 3] = 1
    assert rules.propagate(cells, 2).contradiction
    cells = np.array([[1, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 3], [0, 0, 0, 4]], np.int32)
    assert rules.propagate(cells, 2).contradiction      # cell (1,4) needs 3 or 4: none left
    formula = sudoku_cnf.encode(Grid(2, cells), "reduced")
    solver = pysat_solver("cadical195", formula.blocks)
    assert solver.solve() is False
    solver.delete()


def test_decode_rejects_a_cell_with_two_or_no_values():
    f = sudoku_cnf.encode(Grid.empty(2), "extended")
    solution = full_grid(2, np.random.default_rng(1))
    side = 4
    true = [i * 16 + j * 4 + int(solution.cells[i, j]) for i in range(side) for j in range(side)]
    assert sudoku_cnf.decode(f, true) == solution
    with pytest.raises(RaceError, match="cell \\(1, 1\\) 2 values"):
        sudoku_cnf.decode(f, true + [1 if solution.cells[0, 0] != 1 else 2])
    with pytest.raises(RaceError, match="0 values"):
        sudoku_cnf.decode(f, true[1:])
    with pytest.raises(RaceError, match="unknown encoding"):
        sudoku_cnf.encode(Grid.empty(2), "fancy")


def _sat_count(puzzle: Grid, encoding: str, limit: int) -> int:
    formula = sudoku_cnf.encode(puzzle, encoding)
    solver = pysat_solver("cadical195", formula.blocks)
    count, models, complete = enumerate_models(solver, formula.nvars, limit)
    solver.delete()
    assert complete
    for model in models:
        assert sudoku_cnf.decode(formula, model).cells[puzzle.cells != 0].tolist() == \
            puzzle.cells[puzzle.cells != 0].tolist()
    return count


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), blanks=st.floats(0.3, 1.0),
       encoding=st.sampled_from(sudoku_cnf.ENCODINGS), noise=st.booleans())
def test_every_encoding_counts_like_backtracking_on_4x4(seed, blanks, encoding, noise):
    rng = np.random.default_rng(seed)
    puzzle = puzzle_from(full_grid(2, rng), blanks, rng)
    if noise:                                   # a random extra clue: maybe unsat, maybe not
        cells = puzzle.cells.copy()
        cells[rng.integers(4), rng.integers(4)] = rng.integers(1, 5)
        puzzle = Grid(2, cells)
    expected = registry.create("backtracking").count(puzzle).count
    assert _sat_count(puzzle, encoding, None) == expected


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), encoding=st.sampled_from(sudoku_cnf.ENCODINGS))
def test_every_encoding_agrees_with_backtracking_on_9x9(seed, encoding):
    rng = np.random.default_rng(seed)
    puzzle = puzzle_from(full_grid(3, rng), 0.55, rng)
    expected = registry.create("backtracking").count(puzzle, 3).count
    assert _sat_count(puzzle, encoding, 3) == expected
