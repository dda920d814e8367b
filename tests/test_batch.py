"""solvers.exact_cover.batch: many puzzles in one compiled call give the same verified
answers as the per-puzzle path (Solver.solve / Solver.count)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from formats import grid_text
from formats.errors import RaceError
from formats.grid import Grid
from solvers import registry
from solvers.exact_cover import batch
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


def test_format_one_line_many_writes_what_the_reader_reads():
    text = HARD9.read_text()
    n, puzzles = grid_text.parse_one_line_many(text)
    assert batch.format_one_line_many(puzzles) == text.split()


def test_solve_many_rejects_a_bad_limit():
    with pytest.raises(RaceError, match="limit must be >= 1"):
        batch.solve_many([Grid(2)], "dlx", 0)


def test_wrong_is_reported_when_the_kernel_lies(monkeypatch):
    grid = grid_text.read(HARD9).grids[0]

    def liar(puzzles, n, limit, node_limit, threads=1):
        counts, nodes, complete, solutions = real(puzzles, n, limit, node_limit, threads)
        solutions[:, 0, [0, 1]] = solutions[:, 0, [1, 0]]
        return counts, nodes, complete, solutions

    real = batch.dlx_many
    monkeypatch.setattr(batch, "dlx_many", liar)
    [result] = batch.solve_many([grid], "dlx")
    assert result.status == WRONG and not result.verified


def test_dlx_many_on_threads_gives_the_answers_of_one_thread(monkeypatch):
    monkeypatch.setattr(batch, "PUZZLES_PER_THREAD", 2)
    n, puzzles = grid_text.parse_one_line_many(HARD9.read_text())
    puzzles = np.concatenate([puzzles] * 2)
    one = batch.dlx_many(puzzles, n, limit=2)
    three = batch.dlx_many(puzzles, n, limit=2, threads=3)
    assert all(np.array_equal(a, b) for a, b in zip(one, three))
    assert (one[0] == 1).all()
    assert batch.full_links(n).tobytes() == batch.full_links(n).copy().tobytes()


def test_each_thread_gets_links_copied_before_any_kernel_runs(monkeypatch):
    """The kernel changes its links while it runs; a part whose copy of the links is taken
    while part 0 runs gets a torn block (this crashed `race solve` on 20,000 puzzles). Here
    part 0's stand-in kernel scribbles on its links and waits; the real links of a part are
    taken before: a copy made in a worker thread would wait for the scribble and see it."""
    import threading
    monkeypatch.setattr(batch, "PUZZLES_PER_THREAD", 2)
    n, puzzles = grid_text.parse_one_line_many(HARD9.read_text())
    pristine = batch.full_links(n).copy()
    scribbled = threading.Event()
    real_full_links = batch.full_links

    def full_links(size):
        if threading.current_thread() is not threading.main_thread():
            scribbled.wait(5)                   # a worker's copy: taken mid-run
        return real_full_links(size)

    seen = []

    def kernel(links, chunk, *rest):
        if not len(chunk):
            return                              # the first call, made before the threads
        if not seen:                            # part 0 (the first to run)
            seen.append("part 0")
            links[0, 0] += 1                    # what a running kernel does to its links
            scribbled.set()
            threading.Event().wait(0.2)
            links[0, 0] -= 1
            return
        seen.append(np.array_equal(links, pristine))

    monkeypatch.setattr(batch, "full_links", full_links)
    monkeypatch.setattr(batch, "_dlx_kernel", kernel)
    monkeypatch.setattr(batch.dlx_native, "library", lambda: None)     # the numba path
    batch.dlx_many(np.concatenate([puzzles] * 2), n, limit=1, threads=2)
    assert seen[0] == "part 0" and seen[1:] == [True]
