"""The 9x9 C kernel of the bit-set method (solvers/bitset9_native.c): its counts equal DLX's,
puzzle by puzzle, on unique, multi-solution, no-solution and conflicting puzzles, up to a limit;
every solution it finds passes IsSolved and keeps the clues."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from formats import grid_text
from solvers import bitset9_native, rules
from solvers.exact_cover.batch import dlx_many

pytestmark = pytest.mark.skipif(bitset9_native.library() is None,
                                reason="no C compiler: the 9x9 bit-set kernel is not built")

BENCH_DATA = Path(__file__).parent / "bench" / "data"


def _shipped(name: str) -> np.ndarray:
    path = BENCH_DATA / name
    parsed = grid_text.parse_one_line_many(path.read_text(), str(path))
    assert parsed is not None, path
    n, puzzles = parsed
    assert n == 3
    return puzzles


def _mixed(seed: int, count: int) -> np.ndarray:
    """Puzzles cut from solved grids with 30 % to 85 % of the cells emptied (one, several or
    very many solutions), a third of them given one more clue, consistent or not with the rest
    (no solution, or conflicting clues)."""
    rng = np.random.default_rng(seed)
    seventeen = _shipped("sudoku17_sample.txt")
    _, _, _, solved = dlx_many(seventeen, 3)
    out = np.empty((count, 9, 9), dtype=np.int32)
    for i in range(count):
        grid = solved[rng.integers(len(solved))].ravel().copy()
        grid[rng.random(81) < rng.uniform(0.3, 0.85)] = 0
        if i % 3 == 0:
            empty = np.flatnonzero(grid == 0)
            if len(empty):
                grid[rng.choice(empty)] = rng.integers(1, 10)
        out[i] = grid.reshape(9, 9)
    return out


def _agree(puzzles: np.ndarray, limit: int) -> np.ndarray:
    counts, guesses, complete, solutions = bitset9_native.solve_many(puzzles, limit)
    expected, _, _, _ = dlx_many(puzzles.astype(np.int32), 3, limit=limit)
    assert counts.tolist() == expected.tolist()
    assert complete.all() and (guesses >= 0).all()
    found = counts > 0
    assert rules.are_solutions_of(puzzles[found], solutions[found].reshape(-1, 9, 9), 3).all()
    assert not solutions[~found].any()
    return counts


@pytest.mark.parametrize("name", ["sudoku17_sample.txt", "minimal9.txt", "hard9.txt"])
def test_unique_puzzles_have_one_solution_as_dlx_says(name):
    puzzles = _shipped(name)
    assert (_agree(puzzles, 2) == 1).all()
    counts, _, _, solutions = bitset9_native.solve_many(puzzles, 1)
    _, _, _, expected = dlx_many(puzzles, 3)
    assert (solutions.reshape(-1, 9, 9) == expected).all()


@pytest.mark.parametrize("limit", [1, 2, 7, 100])
def test_counts_equal_dlx_on_mixed_puzzles(limit):
    counts = _agree(_mixed(limit, 600), limit)
    # the mix holds every kind of answer
    assert (counts == 0).any() and (counts == 1).any() and (counts == limit).any()


def test_counts_all_solutions_without_a_limit():
    puzzles = _mixed(5, 300)
    counts, _, _, _ = bitset9_native.solve_many(puzzles, 100)
    few = puzzles[counts < 100]                 # the ones that can be counted to the end
    assert len(few) > 100
    assert _agree(few, 0).max() > 2


def test_conflicting_clues_and_an_empty_grid():
    conflict = np.zeros((2, 81), dtype=np.uint8)
    conflict[0, [0, 1]] = 4                     # two 4s in a row
    conflict[1, [0, 80]] = 1                    # consistent: many solutions
    counts, _, _, _ = bitset9_native.solve_many(conflict, 50)
    assert counts.tolist() == [0, 50]


def test_a_guess_budget_leaves_the_answer_incomplete():
    puzzles = _shipped("hard9.txt")
    _, guesses, _, _ = bitset9_native.solve_many(puzzles, 1)
    assert guesses.max() > 3
    counts, spent, complete, _ = bitset9_native.solve_many(puzzles, 1, guess_limit=3)
    assert (spent <= 3).all() and (complete | (spent == 3)).all()
    assert (counts[complete] == 1).all() and (counts[~complete] == 0).all()
    assert not complete[guesses.argmax()]
