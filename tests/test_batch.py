"""solvers.batch: many puzzles in one compiled call give the same verified
answers as the per-puzzle path (Solver.solve / Solver.count)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats import grid_text
from formats.errors import RaceError
from formats.grid import Grid
from solvers import batch, registry
from solvers.interface import SOLVED, UNKNOWN, UNSAT, WRONG
from tests.conftest import full_grid

HARD9 = Path(__file__).parent / "data" / "hard9.txt"


def _grids() -> list[Grid]:
    grids = grid_text.read(HARD9).grids
    multi = grids[0].copy()
    multi.cells[multi.cells > 0][:0]                     # keep as is, then blank clues
    multi.cells[0, :] = 0
    multi.cells[:, 0] = 0                                # fewer clues: several solutions
    conflict = grids[1].copy()
    conflict.cells[0, 8] = conflict.cells[0, 0]           # a clue repeated in row 1
    stuck = Grid(2, np.array([[1, 2, 0, 0], [0, 0, 3, 0], [0, 0, 4, 0], [0, 0, 0, 0]]))
    return [*grids, multi, conflict, stuck, Grid(2), full_grid(3, np.random.default_rng(1))]


@pytest.mark.parametrize("limit", [1, 2, 5])
def test_batch_agrees_with_the_per_puzzle_path(limit):
    grids = _grids()
    solver = registry.create("dlx")
    expected = [solver.solve(g) if limit == 1 else solver.count(g, limit) for g in grids]
    got = batch.solve_many(grids, "dlx", limit)
    assert [r.status for r in got] == [r.status for r in expected]
    assert [r.count for r in got] == [r.count for r in expected]
    assert [r.limit_hit for r in got] == [r.limit_hit for r in expected]
    for grid, result in zip(grids, got):
        if result.status == SOLVED:
            assert result.verified and result.solution.n == grid.n
            assert np.array_equal(result.solution.cells[grid.cells > 0], grid.cells[grid.cells > 0])
    assert [r.status for r in got][-5:] == [SOLVED, UNSAT, UNSAT, SOLVED, SOLVED]


def test_node_limit_gives_unknown_and_other_entrants_fall_back():
    grids = grid_text.read(HARD9).grids
    assert {r.status for r in batch.solve_many(grids, "dlx:node_limit=2")} == {UNKNOWN}
    assert not batch.batch_capable("dlx:heuristic=first")
    easy = [Grid(2), Grid(2, np.array([[1, 2, 0, 0], [0, 0, 3, 0], [0, 0, 4, 0], [0, 0, 0, 0]]))]
    fallback = batch.solve_many(easy, "dlx:heuristic=first", limit=None)
    assert [(r.status, r.count) for r in fallback] == [(SOLVED, 288), (UNSAT, 0)]


def test_verify_many_catches_every_kind_of_fault():
    solved = full_grid(3, np.random.default_rng(2)).cells
    puzzle = np.where(np.arange(81).reshape(9, 9) % 4 == 0, solved, 0)
    swapped = solved.copy()
    swapped[0, [0, 1]] = swapped[0, [1, 0]]               # rows fine, columns/boxes broken
    relabelled = solved % 9 + 1                            # a solved grid, but clues changed
    holes = solved.copy()
    holes[4, 4] = 0
    answers = np.stack([solved, swapped, relabelled, holes])
    puzzles = np.stack([puzzle] * 4)
    assert batch.verify_many(puzzles, answers, 3).tolist() == [True, False, False, False]


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 4), st.randoms(use_true_random=False))
def test_verify_many_matches_rules_on_random_grids(n, rnd):
    from solvers import rules
    side = n * n
    cells = full_grid(n, np.random.default_rng(rnd.randrange(1000))).cells.copy()
    for _ in range(rnd.randint(0, 2)):                    # 0-2 random cell changes
        cells[rnd.randrange(side), rnd.randrange(side)] = rnd.randint(1, side)
    puzzle = np.zeros_like(cells)
    assert batch.verify_many(puzzle[None], cells[None], n)[0] == rules.is_solved(Grid(n, cells))


def test_parse_one_line_many_and_format_round_trip():
    text = HARD9.read_text()
    n, puzzles = batch.parse_one_line_many(text)
    assert n == 3 and puzzles.shape == (4, 9, 9)
    expected = [g.cells for g in grid_text.read(HARD9).grids]
    assert all(np.array_equal(a, b) for a, b in zip(puzzles, expected))
    assert batch.format_one_line_many(puzzles) == text.split()


@pytest.mark.parametrize("text, message", [
    ("1234" + "." * 12 + "\n12x4" + "." * 12 + "\n", r"<text>, line 2, column 3: bad character 'x'"),
    ("1234" + "." * 12 + "\n\n123\n", r"line 3: 3 characters, expected 16"),
    ("12345\n", r"line 1: 5 characters, expected n⁴"),
    ("# nothing\n\n", "no puzzle found"),
    ("1235" + "." * 12 + "\n", "bad character '5'"),
])
def test_parse_one_line_many_errors(text, message):
    with pytest.raises(RaceError, match=message):
        batch.parse_one_line_many(text)


def test_solve_many_rejects_a_bad_limit():
    with pytest.raises(RaceError, match="limit must be >= 1"):
        batch.solve_many([Grid(2)], "dlx", 0)


def test_wrong_is_reported_when_the_kernel_lies(monkeypatch):
    grid = grid_text.read(HARD9).grids[0]

    def liar(puzzles, n, limit, node_limit):
        counts, nodes, complete, solutions = real(puzzles, n, limit, node_limit)
        solutions[:, 0, [0, 1]] = solutions[:, 0, [1, 0]]
        return counts, nodes, complete, solutions

    real = batch.dlx_many
    monkeypatch.setattr(batch, "dlx_many", liar)
    [result] = batch.solve_many([grid], "dlx")
    assert result.status == WRONG and not result.verified
