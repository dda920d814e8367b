"""Random solved grids: valid at every n, reproducible from the seed, varied across seeds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.errors import RaceError
from formats.grid import MAX_N
from generators.solved_grids import (
    FILLS,
    diagonal_clues,
    latin_grid,
    latin_square,
    shuffle,
    solved_grid,
    symmetric_grid,
)
from solvers.rules import is_consistent, is_solved

SMALL = {"symmetric": 8, "latin": 8, "las-vegas": 4}    # largest n each fill runs at in this test


@pytest.mark.parametrize("fill", FILLS)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_every_fill_gives_a_solved_grid(fill, seed, data):
    n = data.draw(st.integers(1, SMALL[fill]))
    grid = solved_grid(n, np.random.default_rng(seed), fill)
    assert grid.n == n and is_solved(grid)


@pytest.mark.parametrize("fill", FILLS)
def test_same_seed_same_grid_other_seed_other_grid(fill):
    n = 3
    first = solved_grid(n, np.random.default_rng(7), fill)
    assert solved_grid(n, np.random.default_rng(7), fill) == first
    others = {solved_grid(n, np.random.default_rng(s), fill) for s in range(8)}
    assert len(others) > 1


def test_largest_n_is_solved():
    rng = np.random.default_rng(1)
    assert is_solved(symmetric_grid(MAX_N, rng))
    assert is_solved(latin_grid(MAX_N, rng))


@settings(max_examples=30, deadline=None)
@given(order=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_latin_square_rows_and_columns_are_permutations(order, seed):
    square = latin_square(order, np.random.default_rng(seed))
    expected = np.arange(order)
    assert all(np.array_equal(np.sort(r), expected) for r in square)
    assert all(np.array_equal(np.sort(c), expected) for c in square.T)


def test_shuffle_keeps_a_grid_solved_and_moves_it():
    grid = symmetric_grid(3, np.random.default_rng(0))
    moved = shuffle(grid, np.random.default_rng(1))
    assert is_solved(moved) and moved != grid


def test_diagonal_clues_are_consistent():
    clues = diagonal_clues(4, np.random.default_rng(3))
    assert is_consistent(clues) and clues.clues() == 4 * 16


@pytest.mark.parametrize("n", [0, MAX_N + 1])
def test_n_out_of_range_is_a_user_error(n):
    with pytest.raises(RaceError, match=f"1..{MAX_N}"):
        solved_grid(n, np.random.default_rng(0))


def test_unknown_fill_is_a_user_error():
    with pytest.raises(RaceError, match="unknown fill 'magic'"):
        solved_grid(3, np.random.default_rng(0), "magic")
