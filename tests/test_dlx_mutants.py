"""Dancing links, Algorithm X and the dlx solver: behaviour the mutation pass found unchecked."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from generators.cover_problems import queens
from solvers.algorithm_x import MRV, cover, dlx_search
from formats.compiled import interpreted
from solvers.dancing_links import DancingLinks, format_links

# queens(4): primary items R2 F2 R1 F1 R3 F3 R0 F0 (organ-pipe order, headers 1..8), then the
# secondary diagonals A1..A5, B1..B5 (Ad: i + j = d, Bd: 3 - i + j = d; the corner diagonals
# 0 and 6 have one square and are left out). Option 4i + j + 1 is the queen on (i, j).
QUEENS4_ITEMS = ("items: R2(4) F2(4) R1(4) F1(4) R3(4) F3(4) R0(4) F0(4) | "
                 "A1(2) A2(3) A3(4) A4(3) A5(2) B1(2) B2(3) B3(4) B4(3) B5(2)")


def test_print_with_secondary_items_and_a_cut():
    dl = DancingLinks.from_problem(queens(4))
    lines = format_links(dl).split("\n")
    # column R2 lists the queens of row 2, then F2 those of file 2 not printed yet, ...
    assert lines[:8] == [QUEENS4_ITEMS, "option 9: R2 F0 A2 B1", "option 10: R2 F1 A3 B2",
                         "option 11: R2 F2 A4 B3", "option 12: R2 F3 A5 B4", "option 3: F2 A2 B5 R0",
                         "option 7: F2 A3 B4 R1", "option 15: F2 A5 B2 R3"]
    assert len(lines) == 17 and sorted(int(x.split()[1][:-1]) for x in lines[1:]) == list(range(1, 17))
    assert format_links(dl, 5).split("\n") == lines[:6] + ["... 11 more options"]
    assert format_links(dl, 16) == format_links(dl, None) == "\n".join(lines)
    big = format_links(DancingLinks.from_problem(queens(8))).split("\n")    # 64 options, 50 shown
    assert len(big) == 52 and big[-1] == "... 14 more options"


def test_print_after_covering_rows_2_and_3():
    dl = DancingLinks.from_problem(queens(4))
    with interpreted():
        for header in (1, 5):                       # R2, R3: the queens of rows 2 and 3 go
            cover(dl.L, dl.R, dl.U, dl.D, dl.C, dl.S, header)
    # A5 = {(2,3), (3,2)} and B1 = {(2,0), (3,1)} are empty now and not listed
    assert format_links(dl).split("\n") == [
        "items: F2(2) R1(4) F1(2) F3(2) R0(4) F0(2) | A1(2) A2(2) A3(2) A4(1) B2(1) B3(2) B4(2) B5(2)",
        "option 3: F2 A2 B5 R0", "option 7: F2 A3 B4 R1", "option 5: R1 F0 A1 B2", "option 6: R1 F1 A2 B3",
        "option 8: R1 F3 A4 B5", "option 2: F1 A1 B4 R0", "option 4: F3 A3 R0", "option 1: R0 F0 B3"]


def test_the_root_has_no_column_name():
    dl = DancingLinks.from_problem(queens(4))
    with pytest.raises(ValueError, match="^the root h belongs to no column$"):
        dl.column_name(0)


def test_copy_is_independent():
    dl = DancingLinks.from_problem(queens(4))
    twin = dl.copy()
    assert np.array_equal(twin.links, dl.links) and twin.links is not dl.links
    assert twin.option_of is dl.option_of and twin.names == dl.names and twin.primary == dl.primary == 8
    twin.links[:, :] = 0
    assert format_links(dl).split("\n")[0] == QUEENS4_ITEMS


def test_from_dense_keeps_the_secondary_items():
    matrix = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]])
    dl = DancingLinks.from_dense(matrix, ["a", "b", "s"], primary=2)
    assert dl.primary == 2 and dl.active_items() == [1, 2]
    assert dl.L[3] == 3 and dl.R[3] == 3 and dl.S[3] == 2      # s links to itself, 2 options


# 3 must go in row 0, but columns 2 and 3 already hold one: no solution, yet no clash
UNSAT_4x4 = np.array([[1, 2, 0, 0], [0, 0, 3, 0], [0, 0, 0, 3], [0, 0, 0, 0]])


def test_an_exhausted_search_is_unsat_and_a_spent_budget_unknown():
    from formats.grid import Grid
    from formats.grid_text import parse
    from solvers import rules
    from solvers.dlx import DLX
    grid = Grid(2, UNSAT_4x4)
    assert rules.is_consistent(grid)
    for heuristic in ("mrv", "first"):
        assert DLX(heuristic=heuristic).solve(grid).status == "unsat"
        assert DLX(heuristic=heuristic).count(grid, limit=None).status == "unsat"
    hard = parse(open("tests/data/hard9.txt").read()).grids[0]
    result = DLX(node_limit=5).count(hard, limit=None)
    assert (result.status, result.count, result.counters["nodes"]) == ("unknown", 0, 5)


def test_the_heuristic_parameter_reaches_the_search():
    from formats.grid import Grid
    from solvers.algorithm_x import FIRST, MRV, dlx_search
    from solvers.dlx import DLX
    from solvers.sudoku_cover import sudoku_cover
    grid = Grid(2, np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]]))
    for name, code in (("mrv", MRV), ("first", FIRST)):
        dl = DancingLinks.from_problem(sudoku_cover(grid).problem)
        chosen, depth = np.zeros((1, dl.primary), np.int64), np.zeros(1, np.int64)
        count, nodes, updates, _ = dlx_search(dl.links, code, 0, 0, 1, chosen, depth)
        result = DLX(heuristic=name).count(grid)
        assert (result.count, result.counters) == (count, {"nodes": nodes, "updates": updates})
    assert DLX(heuristic="first").count(grid).counters != DLX().count(grid).counters


def test_phase_times_lie_within_the_call():
    import time
    from solvers.dlx import DLX
    from formats.grid import Grid
    solver = DLX()
    solver.count(Grid(2))                            # compiled before the timed call
    t0 = time.perf_counter()
    result = solver.count(Grid(2))
    elapsed = time.perf_counter() - t0
    phases = [result.times[p] for p in ("build", "search", "decode")]
    assert all(0.0 <= t <= elapsed for t in phases) and sum(phases) <= elapsed


def test_warmup_runs_and_leaves_the_shared_matrix_intact():
    from formats.grid import Grid
    from solvers.dlx import DLX, count_sudoku
    DLX().warmup()
    assert count_sudoku(Grid(2), limit=0)[0] == 288


def test_cover_returns_its_updates():
    from tests.test_dlx import EQ6
    dl = DancingLinks.from_dense(EQ6, list("ABCDEFG"))
    with interpreted():
        # A's options are rows 2 (A D G) and 4 (A D): A itself, then D, G and D again
        assert cover(dl.L, dl.R, dl.U, dl.D, dl.C, dl.S, 1) == 4
        # then D (rows 6 left: D E G): D, E, G
        assert cover(dl.L, dl.R, dl.U, dl.D, dl.C, dl.S, 4) == 3


def reference_search(options: list[set[int]], primary: int) -> tuple[int, int]:
    """Algorithm X on sets with Knuth's S heuristic (first active primary item of fewest
    active options, full scan): (solutions, nodes = 1 + options tried)."""
    count, nodes = 0, 1

    def search(covered: frozenset) -> None:
        nonlocal count, nodes
        active = [t for t in range(primary) if t not in covered]
        if not active:
            count += 1
            return
        live = [o for o in options if not (o & covered)]
        c = min(active, key=lambda t: sum(t in o for o in live))
        for o in live:
            if c in o:
                nodes += 1
                search(covered | o)

    search(frozenset())
    return count, nodes


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 7).flatmap(lambda items: st.tuples(
    st.just(items), st.integers(1, items),
    st.lists(st.sets(st.integers(0, items - 1), min_size=1, max_size=items), min_size=1, max_size=12))))
def test_mrv_early_stop_makes_knuths_choices(problem):
    # Choose may stop at the first item of size 1 only when no item is empty: the nodes
    # counted must be those of the full scan
    items, primary, options = problem
    from formats.exact_cover import ExactCover
    cover_problem = ExactCover.from_options([f"i{t}" for t in range(items)], primary,
                                            [sorted(o) for o in options])
    dl = DancingLinks.from_problem(cover_problem)
    chosen, depth = np.zeros((1, max(dl.primary, 1)), np.int64), np.zeros(1, np.int64)
    count, nodes, _, _ = dlx_search(dl.links, MRV, 0, 0, 1, chosen, depth)
    assert (count, nodes) == reference_search([set(o) for o in options], primary)


def test_limit_one_and_a_budget_of_one_node():
    from formats.grid import Grid
    from solvers.dlx import DLX
    from tests.test_dlx import EQ6, run
    assert run(DancingLinks.from_problem(queens(6)), limit=1)[0] == 1          # 4 solutions there
    assert DLX().count(Grid(2), limit=1).count == 1
    # the root only: A (first of the smallest, 2 options) is covered (4 updates), no option tried
    assert run(DancingLinks.from_dense(EQ6, list("ABCDEFG")), node_limit=1)[:4] == (0, 1, 4, False)


def test_count_sudoku_writes_the_solution_it_found():
    from formats.grid_text import parse
    from solvers.dlx import DLX, count_sudoku
    hard = parse(open("tests/data/hard9.txt").read()).grids[0]
    out = np.zeros_like(hard.cells)
    assert count_sudoku(hard, 1, 0, out) == (1, count_sudoku(hard, 1)[1], True)
    assert np.array_equal(out, DLX().solve(hard).solution.cells)      # the unique solution


def test_order_must_be_a_permutation_and_headers_belong_to_no_option():
    problem = queens(4)
    with pytest.raises(ValueError, match="^order must be a permutation of the primary items$"):
        DancingLinks.from_problem(problem, np.zeros(problem.primary, dtype=np.int64))
    dl = DancingLinks.from_problem(problem)
    assert (dl.option_of[:dl.first] == -1).all() and (dl.option_of[dl.first:] >= 0).all()


def test_count_sudoku_beyond_the_full_matrix_counts_two_and_writes_the_first():
    """n = 7 (the candidates-only matrix): a grid with 2^7 solutions (two rows of one band
    emptied: each column's pair may swap per cycle), counted to 2, the first written out."""
    from solvers import rules
    from formats.grid import Grid
    from solvers.dlx import FULL_MATRIX_MAX_N, count_sudoku
    assert 7 > FULL_MATRIX_MAX_N
    cells = rules.pattern_solution(7)
    cells[:2] = 0
    grid = Grid(7, cells)
    out = np.zeros_like(cells)
    found, nodes, complete = count_sudoku(grid, 2, 0, out)
    assert (found, complete) == (2, True) and nodes > 2
    assert rules.is_solution_of(grid, Grid(7, out))
    assert count_sudoku(grid, 0)[0] == 2 ** 7
