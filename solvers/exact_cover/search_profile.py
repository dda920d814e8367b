"""Knuth's level profile of a DLX search: nodes and updates per level of the search tree.

The paper tabulates, for Scott's problem with the X at 23, "Level, Nodes,
Updates, Updates per node", where the nodes of level k are the options tried
at depth k (the paper's level 0 is the X's one option) and "the number of
updates shown for level k is the number of times an element was removed ...
between levels k-1 and k": the covers made while choosing at level k and
while trying its options. :func:`level_profile` runs the search of
:func:`solvers.exact_cover.algorithm_x.dlx_search` (same Choose, cover and uncover, all
solutions) and counts both per level; it reproduces the paper's two tables
(with and without the S heuristic) line by line.
"""

from __future__ import annotations

import numpy as np

from formats.compiled import kernel
from solvers.exact_cover.algorithm_x import MRV, choose, cover, uncover, uncover_option
from solvers.exact_cover.dancing_links import ROOT, DancingLinks


@kernel(cache=True, long_running=True)
def profile_search(links: np.ndarray, heuristic: int, level_nodes: np.ndarray,
                   level_updates: np.ndarray) -> int:
    """Count every solution; add the options tried at each level to ``level_nodes``
    and the updates made there to ``level_updates`` (both at least as long as
    the number of primary items + 1). Restores the links. Returns the solutions."""
    L, R, U, D, C, S = links[0], links[1], links[2], links[3], links[4], links[5]
    depth_max = len(level_nodes)
    O = np.empty(depth_max, dtype=links.dtype)
    cols = np.empty(depth_max, dtype=links.dtype)
    count = 0
    level = 0
    c = 0
    forward = True
    while True:
        if forward:
            if R[ROOT] == ROOT:
                count += 1
                forward = False
            else:
                c = choose(R, S, heuristic, 1)     # 1: scan the whole list, first of least size
                level_updates[level] += cover(L, R, U, D, C, S, c)
                cols[level] = c
                O[level] = D[c]
        if not forward:
            if level == 0:
                break
            level -= 1
            r = O[level]
            uncover_option(L, R, U, D, C, S, r)
            c = cols[level]
            O[level] = D[r]
        r = O[level]
        if r == c:
            uncover(L, R, U, D, C, S, c)
            forward = False
            continue
        level_nodes[level] += 1
        j = R[r]
        while j != r:
            level_updates[level] += cover(L, R, U, D, C, S, C[j])
            j = R[j]
        level += 1
        forward = True
    return count


def level_profile(dl: DancingLinks, heuristic: int = MRV) -> tuple[int, list[tuple[int, int, int]]]:
    """(solutions, [(level, nodes, updates), ...]) down to the deepest level reached."""
    size = dl.primary + 2
    nodes = np.zeros(size, dtype=np.int64)
    updates = np.zeros(size, dtype=np.int64)
    solutions = profile_search(dl.links, heuristic, nodes, updates)
    last = int(np.nonzero(nodes | updates)[0].max()) if (nodes | updates).any() else 0
    return solutions, [(k, int(nodes[k]), int(updates[k])) for k in range(last + 1)]


def format_profile(rows: list[tuple[int, int, int]]) -> str:
    """The paper's table: Level, Nodes (%), Updates (%), Updates per node, and a Total line."""
    total_nodes = sum(n for _, n, _ in rows) or 1
    total_updates = sum(u for _, _, u in rows) or 1
    out = [f"{'Level':>5s} {'Nodes':>16s} {'Updates':>22s} {'Updates per node':>17s}"]
    for k, n, u in rows + [("Total", sum(n for _, n, _ in rows), sum(u for _, _, u in rows))]:
        per = f"{u / n:.1f}" if n else "-"
        out.append(f"{k!s:>5s} {n:>10,d} ({100 * n / total_nodes:3.0f}%) "
                   f"{u:>14,d} ({100 * u / total_updates:3.0f}%) {per:>17s}")
    return "\n".join(out)
