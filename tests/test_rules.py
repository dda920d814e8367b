import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from formats.grid import Grid
from formats.errors import RaceError
from solvers import rules
from tests.conftest import full_grid, puzzle_from

SOLVED_4 = Grid(2, np.array([[1, 2, 3, 4],
                             [3, 4, 1, 2],
                             [2, 1, 4, 3],
                             [4, 3, 2, 1]]))


def test_is_solved_on_hand_checked_grids():
    assert rules.is_solved(SOLVED_4)
    swapped = SOLVED_4.copy()
    swapped.cells[0, [0, 1]] = swapped.cells[0, [1, 0]]     # rows ok, columns broken
    assert not rules.is_solved(swapped)
    holed = SOLVED_4.copy()
    holed.cells[3, 3] = 0
    assert not rules.is_solved(holed)
    assert rules.is_consistent(holed)


def test_is_solved_catches_box_only_violation():
    # Latin square (rows and columns fine) whose 2x2 boxes repeat values
    latin = Grid(2, np.array([[1, 2, 3, 4], [2, 3, 4, 1], [3, 4, 1, 2], [4, 1, 2, 3]]))
    assert not rules.is_solved(latin)
    (c, *_) = rules.conflicts(latin)
    assert c.unit == "box"


def test_can_place_hand_checked():
    g = Grid(2, np.array([[1, 0, 0, 0],
                          [0, 0, 0, 2],
                          [0, 0, 0, 0],
                          [0, 3, 0, 0]]))
    assert not rules.can_place(g, 0, 0, 4)       # occupied
    assert not rules.can_place(g, 0, 1, 1)       # row has 1
    assert not rules.can_place(g, 2, 1, 3)       # column has 3
    assert not rules.can_place(g, 1, 0, 1)       # box has 1
    assert not rules.can_place(g, 0, 2, 2)       # box (0,1) has 2
    assert rules.can_place(g, 0, 1, 4)
    assert rules.can_place(g, 2, 0, 2)
    assert not rules.can_place(g, 2, 0, 5)       # out of range
    with pytest.raises(IndexError):
        rules.can_place(g, 4, 0, 1)


def test_conflicts_report_place():
    g = Grid(3)
    g.cells[2, 1] = g.cells[2, 7] = 5
    (c,) = rules.conflicts(g)
    assert (c.unit, c.index, c.value, c.cells) == ("row", 2, 5, ((2, 1), (2, 7)))
    assert "row 3" in c.describe() and "(3,2)" in c.describe()


def test_keeps_clues():
    puzzle = SOLVED_4.copy()
    puzzle.cells[:2] = 0
    assert rules.is_solution_of(puzzle, SOLVED_4)
    other = Grid(2, SOLVED_4.cells[:, [1, 0, 3, 2]])
    assert rules.is_solved(other) and not rules.keeps_clues(puzzle, other)
    assert not rules.keeps_clues(Grid.empty(3), SOLVED_4)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_random_full_grids_are_solved(n, seed):
    rng = np.random.default_rng(seed)
    g = full_grid(n, rng)
    assert rules.is_solved(g)
    p = puzzle_from(g, 0.5, rng)
    assert rules.is_consistent(p) and rules.keeps_clues(p, g)
    # can_place agrees with the solution on every emptied cell
    for i, j in np.argwhere(p.cells == 0)[:20]:
        assert rules.can_place(p, int(i), int(j), int(g.cells[i, j]))


def test_grid_validation():
    with pytest.raises(RaceError):
        Grid(0)
    with pytest.raises(RaceError):
        Grid(2, np.zeros((3, 3)))
    with pytest.raises(RaceError, match="cell \\(1, 2\\)"):
        Grid(2, np.array([[0, 5, 0, 0]] + [[0] * 4] * 3))
    assert Grid.empty(1).side == 1 and Grid.empty(4).cells.shape == (16, 16)
