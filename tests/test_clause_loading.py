"""solvers.sat.clause_loading: clauses loaded in bulk into CaDiCaL are the clauses PySAT
would have loaded one by one (same answers, same unsat proofs), and every case the
bulk loop does not cover goes through PySAT."""

from __future__ import annotations

import numpy as np
import pytest
from pysat.solvers import Solver

from formats.compiled import interpreted
from formats.grid import Grid
from solvers.rules import is_solution_of
from solvers.sat import clause_loading, sudoku_cnf
from tests.conftest import full_grid, puzzle_from


def _solve(blocks, name="cadical195", bulk=True):
    solver = Solver(name=name)
    try:
        if bulk:
            assert clause_loading.bulk_capable(solver) == (name == "cadical195")
            clause_loading.load(solver, blocks)
        else:
            for block in blocks:
                solver.append_formula(np.asarray(block).tolist())
        found = solver.solve()
        return found, solver.get_model(), solver.accum_stats().get("conflicts")
    finally:
        solver.delete()


@pytest.mark.parametrize("seed", range(4))
def test_bulk_loading_gives_the_run_of_clause_by_clause_loading(seed):
    rng = np.random.default_rng(seed)
    grid = puzzle_from(full_grid(4, rng), 0.7, rng)
    formula = sudoku_cnf.encode_reduced(grid)
    bulk, one_by_one = _solve(formula.blocks), _solve(formula.blocks, bulk=False)
    assert bulk == one_by_one                       # same model, same conflicts
    assert bulk[0] and is_solution_of(grid, sudoku_cnf.decode(formula, bulk[1]))


def test_bulk_loading_keeps_every_clause():
    """Each clause alone decides the answer: drop any one and the formula turns sat."""
    blocks = [np.array([[1, 2], [-1, 2], [1, -2]], dtype=np.int64),
              np.array([[-1, -2, 3]], dtype=np.int16), [[-3]]]
    assert _solve(blocks)[0] is False
    assert _solve([blocks[0][:2], blocks[1], blocks[2]])[0] is True
    assert _solve([blocks[0], blocks[1]])[0] is True
    assert _solve([blocks[0][:, ::-1], blocks[1], blocks[2]])[0] is False   # a strided view


def test_other_solvers_interpreted_kernels_and_zero_literals_go_through_pysat():
    blocks = [np.array([[1, 2], [-1, 2], [1, -2], [-1, -2]], dtype=np.int32)]
    assert _solve(blocks, "glucose4")[0] is False
    with interpreted():
        solver = Solver(name="cadical195")
        assert not clause_loading.bulk_capable(solver)
        clause_loading.load(solver, blocks)
        assert solver.solve() is False
        solver.delete()
    solver = Solver(name="cadical195")
    with pytest.raises(ValueError):                 # PySAT's own refusal, not a split clause
        clause_loading.load(solver, [np.array([[1, 0, 2]], dtype=np.int32)])
    solver.delete()


def test_an_empty_grid_loads_and_solves():
    formula = sudoku_cnf.encode_reduced(Grid(3))
    found, model, _ = _solve(formula.blocks)
    assert found and is_solution_of(Grid(3), sudoku_cnf.decode(formula, model))


@pytest.mark.parametrize("name", ["cadical195", "glucose4"])
def test_an_empty_clause_makes_the_formula_unsatisfiable_in_bulk_too(name):
    """A (1, 0) block is an empty clause: the formula has no model, whatever else it holds
    (the bulk loop once skipped it: `race sat-solve` said SATISFIABLE; found by a fuzz test)."""
    blocks = [np.array([[1, 2], [-1, 2]], np.int32), np.zeros((1, 0), np.int32),
              np.zeros((0, 3), np.int32), np.array([[3, -2, 1]], np.int32)]
    assert _solve(blocks, name)[0] is False
    assert _solve([blocks[0], blocks[2], blocks[3]], name)[0] is True


def test_race_sat_solve_answers_unsat_for_an_empty_clause():
    from click.testing import CliRunner

    from experiments.cli.main import main
    for text in ("p cnf 1 1\n0\n", "p cnf 8 3\n 0\n-3 4 0\n5 -6 7 8 0\n"):
        result = CliRunner().invoke(main, ["sat-solve", "-"], input=text)
        assert result.exit_code == 20 and "s UNSATISFIABLE" in result.output


def _solve_interpreted(blocks, fresh):
    with interpreted():
        solver = Solver(name="cadical195")
        try:
            if fresh:
                assert clause_loading.text_capable(solver, blocks)
            clause_loading.load(solver, blocks, fresh=fresh)
            found = solver.solve()
            return found, solver.get_model(), solver.accum_stats().get("conflicts")
        finally:
            solver.delete()


@pytest.mark.parametrize("seed", range(3))
def test_a_fresh_cadical_parses_the_dimacs_text_into_the_same_run(seed):
    """Interpreted, a fresh CaDiCaL reads the clauses as DIMACS text (its own parser): the
    same model and conflicts as the clauses added one by one through PySAT."""
    rng = np.random.default_rng(seed)
    grid = puzzle_from(full_grid(4, rng), 0.7, rng)
    formula = sudoku_cnf.encode_reduced(grid)
    text, one_by_one = _solve_interpreted(formula.blocks, True), \
        _solve_interpreted(formula.blocks, False)
    assert text == one_by_one
    assert text[0] and is_solution_of(grid, sudoku_cnf.decode(formula, text[1]))


def test_the_dimacs_text_keeps_every_clause_and_refuses_what_it_cannot_carry():
    blocks = [np.array([[1, 2], [-1, 2], [1, -2]], dtype=np.int64),
              np.array([[-1, -2, 3]], dtype=np.int16), np.array([[-3]], dtype=np.int32)]
    assert _solve_interpreted(blocks, True)[0] is False
    assert _solve_interpreted([blocks[0][:2], blocks[1], blocks[2]], True)[0] is True
    assert _solve_interpreted([blocks[0], blocks[1]], True)[0] is True
    with interpreted():
        solver = Solver(name="cadical195")
        for other in ([[1, 2]], np.zeros((1, 0), np.int32), np.array([[1, 0]], np.int32)):
            assert not clause_loading.text_capable(solver, [blocks[0], other])
        solver.delete()
    assert not clause_loading.text_capable(Solver(name="glucose4"), blocks)


def test_a_solver_that_holds_clauses_gets_more_through_pysat_interpreted():
    """Without ``fresh`` the text path is never taken (CaDiCaL's parser would abort the
    process on a solver that already holds clauses)."""
    with interpreted():
        solver = Solver(name="cadical195")
        solver.add_clause([1, 2])
        clause_loading.load(solver, [np.array([[-1], [-2]], np.int32)])
        assert solver.solve() is False
        solver.delete()


def test_a_configured_fresh_cadical_still_parses_the_text():
    """Options set first (sat:config=sat does) leave CaDiCaL ready to parse: the same run."""
    rng = np.random.default_rng(7)
    grid = puzzle_from(full_grid(4, rng), 0.7, rng)
    formula = sudoku_cnf.encode_reduced(grid)
    runs = []
    with interpreted():
        for fresh in (True, False):
            solver = Solver(name="cadical195")
            solver.configure({"stabilizeonly": 1, "elimreleff": 10, "subsumereleff": 60})
            clause_loading.load(solver, formula.blocks, fresh=fresh)
            runs.append((solver.solve(), solver.get_model(), solver.accum_stats().get("conflicts")))
            solver.delete()
    assert runs[0] == runs[1] and runs[0][0]
