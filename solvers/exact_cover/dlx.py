"""The ``dlx`` solver: Sudoku via exact cover, dancing links and Algorithm X (Task 19).

:class:`DLX` follows Task 19 literally: grid -> exact cover matrix
(:func:`solvers.exact_cover.sudoku_cover.sudoku_cover`, clues by dropping rows) -> dancing
links (:class:`solvers.exact_cover.dancing_links.DancingLinks`) -> DLX search
(:func:`solvers.exact_cover.algorithm_x.dlx_search`) -> the chosen options decoded to grids.
Parameters: ``heuristic`` = mrv (Knuth's S heuristic) | first; ``node_limit``
(0 = none) makes the answer ``unknown`` when the budget runs out.
Counters: ``nodes``, ``updates`` (Knuth's). Times: ``build``, ``search``, ``decode``.

:func:`count_sudoku` is the fast path for generators that count solutions
thousands of times: one prebuilt full matrix per n (all n⁶ options), the
clues applied by covering the four items of each clue's option inside the
compiled kernel, the search, and the clue covers undone, so the shared matrix
is left intact. It is not thread-safe (one matrix per n per process).
"""

from __future__ import annotations

import time
from functools import lru_cache

import numpy as np

from formats.compiled import kernel
from formats.grid import Grid
from solvers import rules
from solvers.exact_cover.algorithm_x import HEURISTICS, MRV, cover, dlx_search, uncover
from solvers.exact_cover.dancing_links import DancingLinks
from solvers.exact_cover.sudoku_cover import (
    FULL_MATRIX_MAX_N,
    full_options,
    item_names,
    sudoku_cover,
)
from solvers.interface import RawAnswer, Solver


@lru_cache(maxsize=4)
def full_links(n: int) -> np.ndarray:
    """The (6, size) link block of the full n⁶-option Sudoku matrix, built once
    per n (n <= :data:`solvers.exact_cover.sudoku_cover.FULL_MATRIX_MAX_N`, else RaceError).
    :func:`count_with_clues` changes it while it runs and restores it."""
    side = n * n
    starts = np.arange(0, 4 * side ** 3 + 1, 4, dtype=np.int64)
    return DancingLinks.from_csr(list(item_names(n)), 4 * side * side, starts,
                                 full_options(n).reshape(-1)).links


@kernel(cache=True, long_running=True)
def count_with_clues(links: np.ndarray, cells: np.ndarray, n: int, limit: int, node_limit: int,
                     out: np.ndarray) -> tuple[int, int, bool]:
    """Count the solutions of ``cells`` on the full matrix ``links``: cover the
    items of each clue's option (inconsistent clues -> 0), run DLX (MRV), then
    uncover in reverse. The first solution found is written into ``out``
    (shape of ``cells``): node x of option o = (i·n² + j)·n² + k - 1 lies in
    [first + 4o, first + 4o + 4). Returns (solutions, nodes, complete)."""
    L, R, U, D, C, S = links[0], links[1], links[2], links[3], links[4], links[5]
    side = n * n
    first = 4 * side * side + 1
    used = np.zeros(first, dtype=np.bool_)
    clue_nodes = np.empty(side * side, dtype=np.int64)
    m = 0
    ok = True
    for i in range(side):
        for j in range(side):
            k = cells[i, j]
            if k == 0:
                continue
            x = first + 4 * ((i * side + j) * side + k - 1)
            for t in range(4):
                if used[C[x + t]]:
                    ok = False
            if not ok:
                break
            for t in range(4):
                used[C[x + t]] = True
                cover(L, R, U, D, C, S, C[x + t])
            clue_nodes[m] = x
            m += 1
        if not ok:
            break
    count, nodes, complete = 0, 0, True
    if ok:
        chosen = np.zeros((1, side * side), dtype=np.int64)
        depth = np.zeros(1, dtype=np.int64)
        count, nodes, _, complete = dlx_search(links, MRV, limit, node_limit, 1, chosen, depth)
        if count:
            out[:, :] = cells
            for q in range(depth[0]):
                o = (chosen[0, q] - first) // 4
                cell = o // side
                out[cell // side, cell % side] = o % side + 1
    for q in range(m - 1, -1, -1):
        x = clue_nodes[q]
        for t in range(3, -1, -1):
            uncover(L, R, U, D, C, S, C[x + t])
    return count, nodes, complete


def count_sudoku(grid: Grid, limit: int = 2, node_limit: int = 0,
                 out: np.ndarray | None = None) -> tuple[int, int, bool]:
    """Count the solutions of ``grid`` up to ``limit`` (0 = all) with DLX (MRV).

    Returns (solutions found, search nodes, complete); ``complete`` is False
    only when ``node_limit`` (0 = none) stopped the search first. Inconsistent
    clues give (0, 0, True). When ``out`` (an (n², n²) array) is given, the
    first solution is written into it. No verification: this is the
    generators' inner loop. Beyond :data:`FULL_MATRIX_MAX_N` the matrix of the
    candidates left is built for this grid alone (nothing n⁶-sized)."""
    if out is None:
        out = np.empty_like(grid.cells)
    if grid.n <= FULL_MATRIX_MAX_N:
        return count_with_clues(full_links(grid.n), grid.cells, grid.n, limit, node_limit, out)
    if rules.conflicts(grid, 1):
        return 0, 0, True
    cover_ = sudoku_cover(grid, candidates_only=True)
    dl = DancingLinks.from_problem(cover_.problem)
    chosen = np.zeros((1, max(dl.primary, 1)), dtype=np.int64)
    depth = np.zeros(1, dtype=np.int64)
    count, nodes, _, complete = dlx_search(dl.links, MRV, limit, node_limit, 1, chosen, depth)
    if count:
        out[:, :] = cover_.decode(dl.option_of[chosen[0, :depth[0]]])
    return int(count), int(nodes), bool(complete)


class DLX(Solver):
    """Dancing links: Sudoku as exact cover, Knuth's Algorithm X (DLX)."""

    name = "dlx"
    method = "exact-cover"
    parameters = {"heuristic": ("mrv", ("mrv", "first")), "node_limit": (0, None)}
    counters = ("nodes", "updates")
    phases = ("build", "search", "decode")
    partner = "sat"
    #: ``race solve`` of a few puzzles up to 9x9 runs interpreted (:meth:`Solver.interpreted`)
    INTERPRETED_MAX_N = 3

    @classmethod
    def batch_capable(cls, params: dict[str, str]) -> bool:
        """The batch path runs DLX with the MRV heuristic (any ``node_limit``)."""
        return params.get("heuristic", "mrv") == "mrv" and set(params) <= {"heuristic", "node_limit"}

    def warmup(self) -> None:
        grid = Grid(2, np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]]))
        self.count(grid, limit=2)
        count_sudoku(grid)

    def search(self, grid: Grid, limit: int | None, keep: int) -> RawAnswer:
        t0 = time.perf_counter()
        cover_ = sudoku_cover(grid)
        dl = DancingLinks.from_problem(cover_.problem)
        rows = max(keep, 1)
        chosen = np.zeros((rows, max(dl.primary, 1)), dtype=np.int64)
        depth = np.zeros(rows, dtype=np.int64)
        t1 = time.perf_counter()
        count, nodes, updates, complete = dlx_search(
            dl.links, HEURISTICS[self.params["heuristic"]], limit or 0,
            int(self.params["node_limit"]), keep, chosen, depth)
        t2 = time.perf_counter()
        solutions = [cover_.decode(dl.option_of[chosen[s, :depth[s]]])
                     for s in range(min(count, keep))]
        t3 = time.perf_counter()
        return RawAnswer(count=int(count), solutions=solutions,
                      complete=bool(complete) or (limit is not None and count >= limit),
                      counters={"nodes": int(nodes), "updates": int(updates)},
                      times={"build": t1 - t0, "search": t2 - t1, "decode": t3 - t2})
