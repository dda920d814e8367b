"""CNF encodings (Task 8) and decoding (Task 9): counts, agreement with backtracking, errors."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import full_grid, puzzle_from
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.errors import RaceError
from formats.grid import Grid
from solvers import registry, rules
from solvers.sat import sudoku_cnf
from solvers.sat.counting import enumerate_models, pysat_solver


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


# -- large-n pipeline: compact at-most-one, the counting-sort kernel, size limits -----------

def _groups_by_brute_force(formula, n):
    """Per family, the sorted variable sets sharing a (unit, value) or a cell."""
    side = n * n
    flat = formula.var_cell[1:formula.primary + 1]
    _, cell_units = rules.unit_tables(n)
    cell, k = flat // side, flat % side
    keys = [cell_units[cell, f] * side + k for f in range(3)] + [cell]
    return [sorted(tuple(np.flatnonzero(key == v) + 1) for v in np.unique(key)) for key in keys]


@pytest.mark.parametrize("n,seed", [(2, 0), (3, 1), (4, 2)])
def test_candidate_groups_are_the_exactly_one_groups(n, seed):
    puzzle = puzzle_from(full_grid(n, np.random.default_rng(seed)), 0.6, np.random.default_rng(seed))
    formula = sudoku_cnf.encode_reduced(puzzle, "pairwise")
    found = rules.propagate(puzzle.cells, n)
    side = n * n
    _, cell_units = rules.unit_tables(n)
    var_cell, members, bounds = sudoku_cnf.candidate_groups(
        found.cells.reshape(-1), found.candidates, cell_units, side)
    assert np.array_equal(var_cell, formula.var_cell[1:])
    expected = _groups_by_brute_force(formula, n)
    for family in range(4):
        got = sorted(tuple(members[family, a:b]) for a, b in zip(bounds[family, :-1], bounds[family, 1:])
                     if b > a)
        assert got == expected[family]


@pytest.mark.parametrize("amo", ["pairwise", "sequential", "commander", "bimander", "binary",
                                 "product", "pysat-ladder", "auto"])
def test_every_at_most_one_counts_the_empty_4x4_exactly(amo):
    # 288 solutions: blocking clauses over the cell variables only (auxiliaries of the
    # sequential counter and others are not determined by the cells; blocking them too
    # would count one grid several times)
    formula = sudoku_cnf.encode(Grid.empty(2), "reduced", amo)
    assert formula.primary == 64 and formula.nvars >= 64
    solver = pysat_solver("cadical195", formula.blocks)
    count, models, complete = enumerate_models(solver, formula.primary, None)
    solver.delete()
    assert complete and count == 288
    grids = {sudoku_cnf.decode(formula, m).cells.tobytes() for m in models}
    assert len(grids) == 288


@pytest.mark.parametrize("amo", ["pairwise", "sequential", "bimander", "product", "auto"])
@pytest.mark.parametrize("phase", ["solver", "false"])
def test_sat_entrant_solves_with_each_amo_and_phase(amo, phase):
    puzzle = puzzle_from(full_grid(4, np.random.default_rng(5)), 0.55, np.random.default_rng(6))
    result = registry.create(f"sat:amo={amo},phase={phase}").solve(puzzle)
    assert result.status == "solved" and result.verified
    assert rules.is_solution_of(puzzle, result.solution)


def test_sat_count_with_auxiliaries_is_exact():
    # a 9x9 with few clues and several solutions: every amo gives the same count
    puzzle = puzzle_from(full_grid(3, np.random.default_rng(3)), 0.75, np.random.default_rng(4))
    counts = {amo: registry.create(f"sat:amo={amo}").count(puzzle, limit=50).count
              for amo in ("pairwise", "sequential", "product")}
    reference = registry.create("dlx").count(puzzle, limit=50).count
    assert set(counts.values()) == {reference}


def test_decode_ignores_auxiliary_variables():
    puzzle = Grid.empty(3)
    formula = sudoku_cnf.encode(puzzle, "reduced", "sequential")
    assert formula.primary == 729 and formula.nvars > formula.primary
    solver = pysat_solver("cadical195", formula.blocks)
    assert solver.solve()
    model = np.asarray(solver.get_model())
    solver.delete()
    aux_all_true = np.concatenate([model[:formula.primary],
                                   np.arange(formula.primary + 1, formula.nvars + 1)])
    assert rules.is_solution_of(puzzle, sudoku_cnf.decode(formula, aux_all_true))


def test_full_encodings_refuse_sizes_they_cannot_hold():
    with pytest.raises(RaceError, match="encoding=extended at n=9"):
        sudoku_cnf.encode(Grid.empty(9), "extended")
    with pytest.raises(RaceError, match="use encoding=reduced"):
        sudoku_cnf.encode(Grid.empty(12), "minimal")
    with pytest.raises(RaceError, match="unknown at-most-one"):
        sudoku_cnf.encode(Grid.empty(2), "extended", "nope")


def test_reduced_at_n7_from_a_latin_grid_is_solved_and_small():
    from generators.solved_grids import latin_grid
    solution = latin_grid(7, np.random.default_rng(1))
    puzzle = puzzle_from(solution, 0.25, np.random.default_rng(2))
    formula = sudoku_cnf.encode(puzzle, "reduced")
    holes = 2401 - puzzle.clues()
    assert formula.primary <= holes * 49               # open cells x values at most, not n⁶
    result = registry.create("sat").solve(puzzle)
    assert result.status == "solved" and rules.is_solution_of(puzzle, result.solution)


def test_cli_encode_and_decode_agree_on_the_amo(tmp_path):
    from click.testing import CliRunner

    from experiments.cli.main import main
    puzzle = puzzle_from(full_grid(3, np.random.default_rng(21)), 0.7, np.random.default_rng(22))
    (tmp_path / "p.sudoku").write_text(str(puzzle))
    runner = CliRunner()
    cnf = runner.invoke(main, ["encode", "--amo", "sequential", str(tmp_path / "p.sudoku")])
    assert cnf.exit_code == 0, cnf.output
    from formats import dimacs
    parsed = dimacs.parse(cnf.output)
    formula = sudoku_cnf.encode(puzzle, "reduced", "sequential")
    assert parsed.nvars == formula.nvars and parsed.nclauses == formula.nclauses
    solver = pysat_solver("cadical195", parsed.blocks())
    assert solver.solve()
    model = solver.get_model()
    solver.delete()
    (tmp_path / "out.txt").write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    good = runner.invoke(main, ["decode", "--amo", "sequential", str(tmp_path / "p.sudoku"),
                                str(tmp_path / "out.txt")])
    assert good.exit_code == 0, good.output
    assert rules.is_solution_of(puzzle, grid_from_text(good.output))
    bad = runner.invoke(main, ["decode", str(tmp_path / "p.sudoku"), str(tmp_path / "out.txt")])
    assert bad.exit_code == 2 and "--amo" in bad.output


def grid_from_text(text: str) -> Grid:
    from formats import grid_text
    return grid_text.parse(text).grids[0]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 3), blanks=st.floats(0.2, 0.8), seed=st.integers(0, 10 ** 6),
       wrong=st.booleans())
def test_reduced_without_propagation_has_the_same_solutions(n, blanks, seed, wrong):
    """``encode_reduced(..., propagation=False)`` (CanPlace's candidates only, the second
    opinion's encoding): the same solutions, counted to 3, as with propagation; a wrong clue
    (unsatisfiable or not) is judged alike."""
    rng = np.random.default_rng(seed)
    puzzle = puzzle_from(full_grid(n, rng), blanks, rng)
    if wrong:
        flat = puzzle.cells.reshape(-1)
        free = np.flatnonzero(flat == 0)
        if free.size:
            flat[free[0]] = int(rng.integers(1, n * n + 1))
    counts = []
    for propagation in (True, False):
        formula = sudoku_cnf.encode_reduced(puzzle, "pairwise", propagation=propagation)
        solver = pysat_solver("minisat22", formula.blocks)
        count, models, _ = enumerate_models(solver, formula.primary, 3)
        solver.delete()
        for m in models:
            assert rules.is_solution_of(puzzle, sudoku_cnf.decode(formula, m))
        counts.append(count)
    assert counts[0] == counts[1]


@pytest.mark.parametrize("cells", [
    [[1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]],     # a repeated clue
    [[1, 2, 0, 0], [3, 0, 0, 0], [0, 4, 0, 0], [0, 0, 0, 0]],     # cell (2,2) has no value left
    [[1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]],     # no: a satisfiable control
])
def test_reduced_without_propagation_sees_a_dead_cell(cells):
    grid = Grid(2, np.array(cells, dtype=np.int32))
    formula = sudoku_cnf.encode_reduced(grid, "pairwise", propagation=False)
    solver = pysat_solver("minisat22", formula.blocks)
    satisfiable = solver.solve()
    solver.delete()
    assert satisfiable == (cells[0][1] == 0)
