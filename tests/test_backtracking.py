import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.errors import RaceError
from formats.grid import Grid
from solvers import registry, rules
from solvers.backtracking import Backtracking, backtrack
from tests.conftest import full_grid, puzzle_from

solver = Backtracking()


def consistent_prefixes(n: int) -> list[int]:
    """How many fillings of the first k cells (row-major) of the empty n-grid break no rule,
    for k = 0..n⁴: a plain depth-first enumeration, independent of the kernel."""
    side = n * n
    counts = [0] * (side * side + 1)
    cells = [[0] * side for _ in range(side)]

    def fits(i, j, k):
        r0, c0 = i - i % n, j - j % n
        box = [cells[r][c] for r in range(r0, r0 + n) for c in range(c0, c0 + n)]
        return k not in cells[i] and k not in [row[j] for row in cells] and k not in box

    def visit(depth):
        counts[depth] += 1
        if depth == side * side:
            return
        i, j = divmod(depth, side)
        for k in range(1, side + 1):
            if fits(i, j, k):
                cells[i][j] = k
                visit(depth + 1)
                cells[i][j] = 0

    visit(0)
    return counts


def test_empty_4x4_has_288_solutions():
    r = solver.count(Grid.empty(2))
    assert (r.status, r.count, r.limit_hit, r.verified) == ("solved", 288, False, True)
    prefixes = consistent_prefixes(2)
    assert prefixes[-1] == 288
    # one node per placement (a consistent prefix of length >= 1); side checks per expanded node
    assert r.counters["nodes"] == sum(prefixes[1:])
    assert r.counters["checks"] == 4 * sum(prefixes[:-1])


def test_count_limit_stops_at_k():
    r = solver.count(Grid.empty(2), limit=5)
    assert r.count == 5 and r.limit_hit
    full = solver.count(Grid.empty(2), limit=288)
    assert full.count == 288 and full.limit_hit
    assert solver.count(Grid.empty(2), limit=289).limit_hit is False


def test_counts_keep_distinct_solutions():
    r = solver.count(Grid.empty(2), keep=10)
    assert len(r.solutions) == 10 and len(set(r.solutions)) == 10
    assert all(rules.is_solved(s) for s in r.solutions)


def test_first_solution_is_row_major_lexicographic():
    # Algorithm 1 tries k = 1..n² in row-major order: the first solution of
    # the empty grid is the lexicographically smallest one
    first = solver.solve(Grid.empty(2)).solution
    assert first.cells[0].tolist() == [1, 2, 3, 4] and first.cells[1].tolist() == [3, 4, 1, 2]


def test_one_by_one():
    assert solver.count(Grid.empty(1)).count == 1
    assert solver.solve(Grid(1, np.array([[1]]))).status == "solved"


def test_full_grid_is_its_own_solution(rng):
    g = full_grid(3, rng)
    r = solver.count(g)
    assert r.count == 1 and r.solution == g and r.counters["nodes"] == 0


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 3), seed=st.integers(0, 2**32 - 1), blanks=st.floats(0.0, 0.55))
def test_solutions_of_random_puzzles_keep_clues(n, seed, blanks):
    rng = np.random.default_rng(seed)
    g = full_grid(n, rng)
    p = puzzle_from(g, blanks, rng)
    r = solver.solve(p)
    assert r.status == "solved" and r.verified
    assert rules.is_solved(r.solution) and rules.keeps_clues(p, r.solution)
    assert np.array_equal(p.cells[p.cells != 0], g.cells[p.cells != 0])


def test_solver_does_not_mutate_input(rng):
    p = puzzle_from(full_grid(3, rng), 0.5, rng)
    before = p.cells.copy()
    solver.count(p, limit=3)
    assert np.array_equal(p.cells, before)


def test_inconsistent_clues_give_no_solution():
    g = Grid(3)
    g.cells[0, 0] = g.cells[0, 8] = 7
    r = solver.solve(g)
    assert r.status == "unsat" and r.count == 0 and r.solutions == []


def test_consistent_but_unsolvable():
    # row 0 misses only 4 at (0,3), but column 3 already holds a 4 lower down
    g = Grid(2, np.array([[1, 2, 3, 0],
                          [0, 0, 0, 0],
                          [0, 0, 0, 4],
                          [0, 0, 0, 0]]))
    assert rules.is_consistent(g)
    r = solver.count(g)
    assert r.status == "unsat" and r.count == 0


def test_node_limit_gives_unknown():
    r = Backtracking(node_limit=10).count(Grid.empty(3))
    assert r.status == "unknown" and r.count == 0    # the first 9x9 solution needs > 10 placements
    assert Backtracking(node_limit=10_000).solve(Grid.empty(3)).status == "solved"
    r = Backtracking(node_limit=10).solve(Grid.empty(4))
    assert r.status == "unknown" and r.counters["nodes"] == 10


def test_kernel_restores_grid_and_handles_n5(rng):
    p = puzzle_from(full_grid(5, rng), 0.3, rng)
    cells = p.cells.copy()
    out = np.zeros((1, 25, 25), dtype=cells.dtype)
    count, nodes, checks, complete = backtrack(cells, 5, 1, 0, 1, out)
    assert count == 1 and complete and np.array_equal(cells, p.cells)
    assert rules.is_solution_of(p, Grid(5, out[0]))  # n = 5: depth 187, no recursion limit


def test_registry_specs():
    s = registry.create("backtracking:node_limit=7")
    assert isinstance(s, Backtracking) and s.params == {"node_limit": 7}
    assert s.spec == "backtracking:node_limit=7" and registry.create("backtracking").spec == "backtracking"
    for bad, msg in [("nosuch", "unknown solver"), ("backtracking:foo=1", "no parameter"),
                     ("backtracking:node_limit=x", "not a valid int"), ("backtracking:node_limit", "key=value"),
                     (":x=1", "missing solver name")]:
        with pytest.raises(RaceError, match=msg):
            registry.create(bad)


def test_wrong_answers_are_caught():
    class Liar(Backtracking):
        def search(self, grid, limit, keep):
            found = super().search(grid, limit, keep)
            found.solutions = [np.ones_like(s) for s in found.solutions]
            return found
    r = Liar().solve(Grid.empty(2))
    assert r.status == "wrong" and not r.verified
