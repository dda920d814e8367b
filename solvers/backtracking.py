"""Naive backtracking, Algorithm 1 of the assignment (Tasks 5 and 6).

Depth-first over the empty cells in fixed row-major order, trying k = 1..n² in
each with CanPlace (:func:`solvers.rules.can_place_cells`, the same compiled
rule the rest of the project uses). The clues' feasibility is checked first by
the solver interface, so the invariant "the grid has no conflict" holds at
every depth, and reaching past the last cell means a solution.

The recursion of Algorithm 1 is unrolled into an explicit stack (the position
in the list of empty cells plus the value in each), so n = 5 and beyond never
meet Python's recursion limit. The kernel is compiled with numba.

Counters: ``nodes`` = placements made (M[i,j] <- k, one per search-tree node
below the root); ``checks`` = CanPlace calls.

``race solve`` of a few puzzles up to 9x9 runs the kernel interpreted (:meth:`Backtracking.
interpreted`): most such puzzles take a few hundred placements, milliseconds in Python, where
loading the compiled kernel costs about 0.5 s of CPU. A search still running after
:data:`INTERPRETED_NODES` placements is started again compiled (the time spent is the phase
``interpreted``; loading the kernel, ``load``); its counters are the compiled search's.
"""

from __future__ import annotations

import time

import numpy as np

from formats.compiled import compiled_here, is_interpreted, kernel
from formats.grid import Grid
from solvers.interface import RawAnswer, Solver
from solvers.rules import can_place_cells


@kernel(cache=True, nogil=True, long_running=True)
def backtrack(cells: np.ndarray, n: int, limit: int, node_limit: int,
              keep: int, out: np.ndarray) -> tuple[int, int, int, bool]:
    """Algorithm 1 on ``cells`` (modified in place, restored on return).

    Counts solutions up to ``limit`` (0 = all), copying the first ``keep`` into
    ``out`` (shape (keep, n², n²)). Stops early after ``node_limit`` placements
    (0 = no limit). Returns (solutions, nodes, checks, complete)."""
    side = n * n
    empty = np.empty(side * side, dtype=np.int64)
    e = 0
    for i in range(side):          # fixed row-major order: (i, j) -> (i, j+1) or (i+1, 1)
        for j in range(side):
            if cells[i, j] == 0:
                empty[e] = i * side + j
                e += 1
    solutions = 0
    nodes = 0
    checks = 0
    complete = True
    p = 0                          # depth = index into empty[]
    while True:
        if p == e:                 # outside the grid: a solution
            if solutions < keep:
                out[solutions] = cells
            solutions += 1
            if solutions == limit or e == 0:
                break
            p -= 1                 # continue with the next value of the last cell
        cell = empty[p]
        i = cell // side
        j = cell - i * side
        k = cells[i, j] + 1        # resume after the value tried last (0 -> start at 1)
        cells[i, j] = 0
        placed = False
        while k <= side:
            checks += 1
            if can_place_cells(cells, n, i, j, k):
                cells[i, j] = k
                nodes += 1
                placed = True
                break
            k += 1
        if placed:
            if node_limit > 0 and nodes >= node_limit and p + 1 < e:
                complete = False
                break
            p += 1
        else:
            p -= 1                 # every value failed: backtrack
            if p < 0:
                break
    for q in range(e):             # leave the grid as it came in
        c = empty[q]
        cells[c // side, c % side] = 0
    return solutions, nodes, checks, complete


#: placements an interpreted search makes before it starts again compiled (about 0.1 s of
#: Python; the median 9x9 puzzle with half its cells empty takes about 100)
INTERPRETED_NODES = 5000


class Backtracking(Solver):
    """Algorithm 1: naive row-major backtracking with CanPlace.

    Parameters: ``node_limit`` stops after that many placements (0 = none);
    the answer is then ``unknown``."""

    name = "backtracking"
    method = "search"
    counters = ("nodes", "checks")
    phases = ("build", "search")
    parameters = {"node_limit": (0, None)}

    #: ``race solve`` or ``race count`` of a few puzzles of box size at most 3 starts
    #: interpreted (see the module docstring and :meth:`Solver.interpreted`)
    INTERPRETED_MAX_N = 3
    INTERPRETED_COUNTS = True

    def warmup(self) -> None:
        from formats.grid_text import parse
        self.count(parse("1 . . .\n. . 1 .\n. 1 . .\n. . . 1\n").grids[0], limit=2)

    def search(self, grid: Grid, limit: int | None, keep: int) -> RawAnswer:
        t0 = time.perf_counter()
        cells = grid.cells.copy()
        out = np.zeros((max(keep, 1), grid.side, grid.side), dtype=cells.dtype)
        node_limit = int(self.params["node_limit"])
        times = {"build": time.perf_counter() - t0}
        found = None
        if is_interpreted() and not 0 < node_limit <= INTERPRETED_NODES:
            t1 = time.perf_counter()
            found = backtrack(cells, grid.n, limit or 0, INTERPRETED_NODES, keep, out)
            spent = time.perf_counter() - t1
            if not found[3]:            # the budget ran out: a long search, started again compiled
                times["interpreted"], found = spent, None
            else:
                times["search"] = spent
        if found is None:
            with compiled_here():
                loaded = backtrack.load(cells, grid.n, limit or 0, node_limit, keep, out)
                t1 = time.perf_counter()
                found = backtrack(cells, grid.n, limit or 0, node_limit, keep, out)
                times["search"] = time.perf_counter() - t1
            if loaded:
                times["load"] = loaded
        count, nodes, checks, complete = found
        return RawAnswer(count=int(count), solutions=[out[s] for s in range(min(count, keep))],
                      complete=bool(complete) or (limit is not None and count >= limit),
                      counters={"nodes": int(nodes), "checks": int(checks)},
                      times=times)
