"""Benchmark: compiled backtracking (numba) vs a straightforward pure-Python Algorithm 1.

Both walk the same search tree (same order, same CanPlace), so their node counts
must match; the table reports node rates and their ratio, measured in this run.
Target: compiled >= 30x the pure-Python node rate.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from formats import grid_text  # noqa: E402
from formats.grid import Grid  # noqa: E402
from solvers.backtracking import Backtracking  # noqa: E402
from tests.conftest import full_grid, puzzle_from  # noqa: E402


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


def timed(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    hard = grid_text.read(ROOT / "tests" / "data" / "hard9.txt").grids
    rng = np.random.default_rng(7)
    problems = {
        "4x4 empty": Grid.empty(2),
        "9x9 random 55% blank": puzzle_from(full_grid(3, rng), 0.55, rng),
        "9x9 hard #3": hard[2],
        "9x9 hard #4": hard[3],
        "16x16 random 40% blank": puzzle_from(full_grid(4, rng), 0.40, rng),
    }
    solver = Backtracking()
    t0 = time.perf_counter()
    solver.warmup()
    print(f"JIT warm-up (compile or cache load): {time.perf_counter() - t0:.3f} s")
    print(f"{'problem':26s} {'nodes':>10s} {'python s':>10s} {'numba s':>10s} "
          f"{'python n/s':>12s} {'numba n/s':>12s} {'ratio':>7s}")
    ratios = []
    for name, grid in problems.items():
        t_num, res = timed(lambda: solver.solve(grid), 5)
        nodes = res.counters["nodes"]
        t_py, (ok, py_nodes) = timed(lambda: python_algorithm1(grid.cells.tolist(), grid.n), 1)
        assert ok and py_nodes == nodes, (name, py_nodes, nodes)
        rate_py, rate_nb = nodes / t_py, nodes / res.times["search"]
        ratios.append(rate_nb / rate_py)
        print(f"{name:26s} {nodes:10d} {t_py:10.4f} {t_num:10.5f} {rate_py:12.3g} {rate_nb:12.3g} "
              f"{rate_nb / rate_py:6.0f}x")
    print(f"median speed-up of the compiled kernel: {statistics.median(ratios):.0f}x (target >= 30x)")


if __name__ == "__main__":
    main()
