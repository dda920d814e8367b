import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.errors import RaceError
from formats.grid import Grid
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


# -- the geometry ------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_unit_tables_match_the_definition(n):
    side = n * n
    units, cell_units = rules.unit_tables(n)
    assert units.shape == (3 * side, side) and cell_units.shape == (side ** 2, 3)
    for i in range(side):
        for j in range(side):
            c = i * side + j
            b = (i // n) * n + j // n
            assert rules.box_of(n, i, j) == b
            assert cell_units[c].tolist() == [i, side + j, 2 * side + b]
            assert units[i].tolist() == [i * side + t for t in range(side)]
            assert units[side + j].tolist() == [t * side + j for t in range(side)]
            box = [r * side + q for r in range(side) for q in range(side)
                   if (r // n) * n + q // n == b]                 # row-major inside the box
            assert units[2 * side + b].tolist() == box
            peers = {r * side + q for r in range(side) for q in range(side)
                     if (r == i or q == j or (r // n, q // n) == (i // n, j // n)) and (r, q) != (i, j)}
            assert rules.peers_of(n, c).tolist() == sorted(peers)
            assert len(peers) == 3 * side - 2 * n - 1 if n > 1 else not peers
    assert not units.flags.writeable and rules.unit_tables(n) is rules.unit_tables(n)
    assert rules.is_solved(Grid(n, rules.pattern_solution(n)))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 4), seed=st.integers(0, 2**32 - 1), blanks=st.floats(0, 1))
def test_the_three_forms_of_canplace_agree(n, seed, blanks):
    rng = np.random.default_rng(seed)
    p = puzzle_from(full_grid(n, rng), blanks, rng)
    if n > 1:                                  # maybe an extra clue, maybe a clash
        p.cells.reshape(-1)[rng.integers(n ** 4)] = rng.integers(1, n * n + 1)
    side = n * n
    table = rules.candidate_table(p.cells, n)
    for c in range(side * side):
        i, j = divmod(c, side)
        each = [k for k in range(1, side + 1) if rules.can_place(p, i, j, k)]
        assert rules.cell_candidates(p.cells, n, i, j).tolist() == each
        assert (np.flatnonzero(table[c]) + 1).tolist() == each


# -- the propagation kernel against a brute-force oracle ----------------------------------
@functools.cache
def solutions_n2() -> np.ndarray:
    """All 288 solved 4x4 grids, by brute force over the 4!^4 row choices: every row a
    permutation, kept when every column and every box holds 1..4 too (computed at first use)."""
    from itertools import permutations
    rows = np.array(list(permutations(range(1, 5))))
    pick = np.stack(np.meshgrid(*[np.arange(len(rows))] * 4, indexing="ij"), -1).reshape(-1, 4)
    grids = rows[pick]                                           # (24^4, 4, 4)
    boxes = grids.reshape(-1, 2, 2, 2, 2).transpose(0, 1, 3, 2, 4).reshape(-1, 4, 4)
    whole = np.arange(1, 5)
    ok = (np.sort(grids, axis=1) == whole[:, None]).all(axis=(1, 2)) \
        & (np.sort(boxes, axis=2) == whole).all(axis=(1, 2))
    return grids[ok]


def test_there_are_288_solved_4x4_grids():
    assert len(solutions_n2()) == 288
    assert all(rules.is_solved(Grid(2, g)) for g in solutions_n2())
    assert len({g.tobytes() for g in solutions_n2()}) == 288


def _check_fixpoint(found: rules.Propagation, n: int) -> None:
    """Nothing left for singles: every undecided cell has two candidates or more,
    every value missing from a unit two places or more, and the candidates are
    exactly what CanPlace allows next to the decided cells."""
    side = n * n
    flat = found.cells.reshape(-1)
    open_ = flat == 0
    assert np.array_equal(found.candidates[open_], rules.candidate_table(found.cells, n)[open_])
    assert np.all(found.candidates[open_].sum(axis=1) >= 2)
    assert np.array_equal(found.candidates[~open_], np.eye(side, dtype=bool)[flat[~open_] - 1])
    units, _ = rules.unit_tables(n)
    places = found.candidates[units].sum(axis=1)                  # (unit, value)
    placed = np.zeros((3 * side, side + 1), bool)
    np.put_along_axis(placed, flat[units], True, axis=1)
    assert np.all(places[~placed[:, 1:]] >= 2)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), blanks=st.floats(0.2, 1.0), extra=st.integers(0, 3))
def test_propagation_agrees_with_brute_force_n2(seed, blanks, extra):
    rng = np.random.default_rng(seed)
    puzzle = puzzle_from(Grid(2, solutions_n2()[rng.integers(288)]), blanks, rng)
    for _ in range(extra):                      # clues that may clash or leave no solution
        puzzle.cells.reshape(-1)[rng.integers(16)] = rng.integers(1, 5)
    given = puzzle.cells != 0
    sols = solutions_n2()[np.all((solutions_n2() == puzzle.cells) | ~given, axis=(1, 2))]
    found = rules.propagate(puzzle.cells, 2)
    if len(sols):                               # sound: never a contradiction, never a wrong cell
        assert not found.contradiction
        decided = found.cells != 0
        assert np.all(sols[:, decided] == found.cells[decided])
        for s in sols:                          # no solution's value is ever excluded
            assert np.all(found.candidates[np.arange(16), s.reshape(-1) - 1])
        if found.undecided == 0:
            assert len(sols) == 1 and np.array_equal(found.cells, sols[0])
        _check_fixpoint(found, 2)
    else:                                       # never "decided" without a solution
        assert found.contradiction or found.undecided > 0
    if not rules.is_consistent(puzzle):
        assert found.contradiction


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 3), seed=st.integers(0, 2**32 - 1), blanks=st.floats(0.3, 0.9),
       wrong=st.booleans())
def test_propagation_agrees_with_backtracking(n, seed, blanks, wrong):
    from solvers.exact_cover.dlx import DLX
    rng = np.random.default_rng(seed)
    solution = full_grid(n, rng)
    puzzle = puzzle_from(solution, blanks, rng)
    if wrong:
        holes = np.flatnonzero(puzzle.cells == 0)
        c = holes[rng.integers(holes.size)]
        puzzle.cells.reshape(-1)[c] = 1 + (solution.cells.reshape(-1)[c] + rng.integers(n * n - 1)) % (n * n)
    truth = DLX().count(puzzle, limit=2, keep=2)      # exact cover, another method: the oracle
    found = rules.propagate(puzzle.cells, n)
    if found.contradiction:
        assert truth.count == 0
    elif found.undecided == 0:
        assert truth.count == 1 and np.array_equal(found.cells, truth.solutions[0].cells)
    if truth.count:
        decided = found.cells != 0
        for s in truth.solutions:
            assert np.all(s.cells[decided] == found.cells[decided])
            assert np.all(found.candidates[np.arange(n ** 4), s.cells.reshape(-1) - 1])
    if not found.contradiction:
        _check_fixpoint(found, n)
    if not wrong:
        assert not found.contradiction


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 4), seed=st.integers(0, 2**32 - 1), blanks=st.floats(0, 1))
def test_incremental_assignments_of_the_solution_never_contradict(n, seed, blanks):
    rng = np.random.default_rng(seed)
    solution = full_grid(n, rng)
    state = rules.Candidates(n)
    assert state.start(puzzle_from(solution, blanks, rng).cells) >= 0
    for c in rng.permutation(n ** 4):
        assert state.assign(int(c), int(solution.cells.reshape(-1)[c]))
    assert state.undecided == 0 and np.array_equal(state.cells, solution.cells.reshape(-1))
    if n > 1:                                    # a value of a decided peer: contradiction
        assert not state.assign(0, int(solution.cells[0, 1])) and state.contradiction


def test_a_clash_inside_a_box_only_is_caught_everywhere():
    """Two equal clues in one box, different rows and columns."""
    from solvers.exact_cover.dlx import count_sudoku
    cells = np.zeros((9, 9), np.int32)
    cells[0, 0] = cells[1, 1] = 5
    grid = Grid(3, cells)
    assert count_sudoku(grid, limit=2) == (0, 0, True)
    assert rules.propagate(cells, 3).contradiction
    assert not rules.is_consistent(grid)
    (c,) = rules.conflicts(grid)
    assert (c.unit, c.index, c.value, c.cells) == ("box", 0, 5, ((0, 0), (1, 1)))
    state = rules.Candidates(3)
    assert state.start(np.zeros(81, np.int32)) == 81
    assert state.assign(0, 5) and not state.assign(10, 5)


def test_candidates_refuse_out_of_range_input():
    state = rules.Candidates(2)
    with pytest.raises(ValueError):
        state.start(np.full(16, 5))
    with pytest.raises(ValueError):
        state.start(np.zeros(9))
    state.start(np.zeros(16))
    with pytest.raises(ValueError):
        state.assign(16, 1)
    with pytest.raises(ValueError):
        state.assign(0, 0)


def test_are_solutions_of_catches_every_kind_of_fault():
    solved = full_grid(3, np.random.default_rng(2)).cells
    puzzle = np.where(np.arange(81).reshape(9, 9) % 4 == 0, solved, 0)
    swapped = solved.copy()
    swapped[0, [0, 1]] = swapped[0, [1, 0]]               # rows fine, columns/boxes broken
    relabelled = solved % 9 + 1                            # a solved grid, but clues changed
    holes = solved.copy()
    holes[4, 4] = 0
    answers = np.stack([solved, swapped, relabelled, holes])
    puzzles = np.stack([puzzle] * 4)
    assert rules.are_solutions_of(puzzles, answers, 3).tolist() == [True, False, False, False]
    assert rules.are_solved(answers, 3).tolist() == [True, False, True, False]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([2, 3, 4, 8]), st.randoms(use_true_random=False))
def test_are_solved_matches_is_solved_on_random_grids(n, rnd):
    """Both of its ways (a bit set per unit up to 62x62, sorted units beyond: n = 8)."""
    side = n * n
    grids = []
    for _ in range(3):
        cells = full_grid(n, np.random.default_rng(rnd.randrange(1000))).cells.copy()
        for _ in range(rnd.randint(0, 2)):                # 0-2 random cell changes
            cells[rnd.randrange(side), rnd.randrange(side)] = rnd.randint(0, side)
        grids.append(cells)
    expected = [rules.is_solved(Grid(n, cells)) for cells in grids]
    assert rules.are_solved(np.stack(grids), n).tolist() == expected
