"""Benchmark: the compiled backtracking entrant vs a straightforward pure-Python Algorithm 1.

Both walk the same search tree (same order, same CanPlace), so their node counts
must match. Whole call vs whole call: ``Backtracking().solve(grid)`` (the default
entrant: input check, compiled search, decode, IsSolved check) against
``python_algorithm1`` on the grid's cells (list conversion included), both timed
by ``timing.per_call`` with the same minimum time and repeats in this run.
Targets: see ``TARGETS`` below.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from formats import grid_text  # noqa: E402
from formats.grid import Grid  # noqa: E402
from solvers.backtracking import Backtracking  # noqa: E402
from tests.bench.targets import Targets  # noqa: E402
from tests.bench.timing import per_call  # noqa: E402
from tests.conftest import full_grid, puzzle_from  # noqa: E402

MIN_TIME, REPEATS = 0.2, 3      # the same for both sides of every ratio
#: problem -> lowest acceptable (pure-Python time / our time), whole call vs whole call.
#: Measured on the shared 2-core machine (busy, several runs): 4x4 empty 0.5-0.6x, 9x9 random
#: 55% blank 14-22x, 9x9 hard #3 64x, 16x16 random 40% blank 31-38x. The bounds leave about 2x
#: of room for noise. On the empty 4x4 (16 nodes) ours is SLOWER: the whole call's fixed cost
#: (input check, array set-up, decode, IsSolved check of the answer) is larger than the
#: whole pure-Python search; the target only guards that this fixed cost stays small.
TARGETS = {"4x4 empty": 0.25, "9x9 random 55% blank": 7, "9x9 hard #3": 30,
           "16x16 random 40% blank": 15}


def python_algorithm1(m: list[list[int]], n: int) -> tuple[bool, int]:
    """Algorithm 1 as written (recursive, in place), with a plain CanPlace."""
    side = n * n
    nodes = 0

    def can_place(i, j, k):
        if m[i][j] != 0:
            return False
        for t in range(side):
            if m[i][t] == k or m[t][j] == k:
                return False
        bi, bj = i - i % n, j - j % n
        return all(m[a][b] != k for a in range(bi, bi + n) for b in range(bj, bj + n))

    def solve(i, j):
        nonlocal nodes
        while i < side and m[i][j] != 0:          # skip clues in row-major order
            i, j = (i, j + 1) if j + 1 < side else (i + 1, 0)
        if i >= side:
            return True
        for k in range(1, side + 1):
            if can_place(i, j, k):
                m[i][j] = k
                nodes += 1
                nxt = (i, j + 1) if j + 1 < side else (i + 1, 0)
                if solve(*nxt):
                    return True
                m[i][j] = 0
        return False

    sys.setrecursionlimit(10_000)
    return solve(0, 0), nodes


def main() -> None:
    hard = grid_text.read(ROOT / "tests" / "data" / "hard9.txt").grids
    rng = np.random.default_rng(7)
    problems = {
        "4x4 empty": Grid.empty(2),
        "9x9 random 55% blank": puzzle_from(full_grid(3, rng), 0.55, rng),
        "9x9 hard #3": hard[2],
        "16x16 random 40% blank": puzzle_from(full_grid(4, rng), 0.40, rng),
    }
    targets = Targets(__file__, "a pure-Python Algorithm 1 on the same grid (whole call, same "
                                "search tree), both timed by per_call in this run", "pure-Python Algorithm 1")
    solver = Backtracking()
    t0 = time.perf_counter()
    solver.warmup()
    print(f"JIT warm-up (compile or cache load, excluded): {time.perf_counter() - t0:.3f} s")
    print(f"{'problem':26s} {'nodes':>10s} {'python ms':>10s} {'ours ms':>10s} {'ratio':>7s}")
    ratios = {}
    for name, grid in problems.items():
        t_ours, res = per_call(lambda: solver.solve(grid), MIN_TIME, REPEATS)
        assert res.status == "solved", (name, res.status)
        nodes = res.counters["nodes"]
        t_py, (ok, py_nodes) = per_call(lambda: python_algorithm1(grid.cells.tolist(), grid.n),
                                        MIN_TIME, REPEATS)
        assert ok and py_nodes == nodes, (name, py_nodes, nodes)
        ratios[name] = t_py / t_ours
        print(f"{name:26s} {nodes:10d} {t_py * 1e3:10.3f} {t_ours * 1e3:10.3f} {ratios[name]:6.1f}x")
    for name, bound in TARGETS.items():
        targets.at_least(f"{name}: python/ours time", ratios[name], bound)
    targets.exit()


if __name__ == "__main__":
    main()
