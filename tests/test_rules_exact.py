"""Exact values of the rules core where a mutation pass found only loose checks."""

from __future__ import annotations

import numpy as np
import pytest

from formats.grid import Grid
from solvers import rules


def test_pattern_solution_is_the_documented_solved_grid():
    assert rules.pattern_solution(2).tolist() == [[1, 2, 3, 4], [3, 4, 1, 2],
                                                  [2, 3, 4, 1], [4, 1, 2, 3]]
    for n in range(1, 7):
        cells = rules.pattern_solution(n)
        assert cells.dtype == np.int32 and cells.shape == (n * n, n * n)
        assert rules.is_solved(Grid(n, cells))


def test_can_place_refuses_every_cell_outside_the_grid():
    g = Grid.empty(2)
    for i, j in [(4, 0), (0, 4), (-1, 0), (0, -1), (4, 4)]:
        with pytest.raises(IndexError) as info:
            rules.can_place(g, i, j, 1)
        assert str(info.value) == f"cell ({i}, {j}) outside a 4x4 grid"
    assert rules.can_place(g, 3, 3, 4) and not rules.can_place(g, 3, 3, 0)


def test_conflict_description_names_every_cell():
    g = Grid(3)
    g.cells[0, 0] = g.cells[4, 0] = g.cells[8, 0] = 7
    (c,) = rules.conflicts(g)
    assert c.describe() == "column 1 has 3 copies of 7 at (1,1), (5,1), (9,1)"


def test_a_solution_must_keep_the_clues_and_be_solved():
    solved = Grid(2, rules.pattern_solution(2))
    puzzle = Grid(2, np.where(np.eye(4, dtype=bool), solved.cells, 0))
    assert rules.is_solution_of(puzzle, solved)
    swapped = Grid(2, solved.cells[:, [1, 0, 3, 2]])          # solved, but breaks the clues
    assert rules.is_solved(swapped) and not rules.is_solution_of(puzzle, swapped)
    unsolved = solved.cells.copy()
    unsolved[0, 1] = unsolved[0, 0]                           # keeps the clues, not solved
    assert rules.keeps_clues(puzzle, Grid(2, unsolved))
    assert not rules.is_solution_of(puzzle, Grid(2, unsolved))


def test_conflicts_stop_at_the_limit_rows_first():
    g = Grid(2)
    g.cells[0, 0] = g.cells[0, 1] = 1                       # row 1, box 1
    g.cells[3, 2] = g.cells[3, 3] = 2                       # row 4, box 4
    every = rules.conflicts(g)
    assert [(c.unit, c.index, c.value) for c in every] == [("row", 0, 1), ("row", 3, 2),
                                                          ("box", 0, 1), ("box", 3, 2)]
    assert rules.conflicts(g, limit=1) == every[:1] and rules.conflicts(g, limit=3) == every[:3]


def test_candidates_stay_contradicted_and_name_bad_input():
    state = rules.Candidates(2)
    assert state.start(np.zeros(16, np.int32)) == 16
    assert state.assign(0, 1) and not state.assign(1, 1)    # 1 twice in row 1
    assert state.contradiction and state.undecided == -1
    assert not state.assign(15, 1)                          # fine on its own, but the state is dead
    with pytest.raises(ValueError) as info:
        state.assign(16, 1)
    assert str(info.value) == "cell 16 / value 1 outside the n=2 grid"
