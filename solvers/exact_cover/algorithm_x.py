"""Algorithm X on dancing links (DLX), Algorithms 4 and 5 of the assignment (Tasks 16-17).

The recursion of Search(h, S) is unrolled into an explicit stack: ``O[k]`` is
the option node tried at level k (Knuth's O_k) and ``cols[k]`` the item
covered there, so the search is one compiled loop (numba ``njit``) over the
flat arrays of :mod:`solvers.exact_cover.dancing_links`.

* Choose: ``MRV`` takes the first item of minimal size S in the root's list
  (Knuth's S heuristic, Algorithm 5); ``FIRST`` takes R[h] (no heuristic).
  The search covers with :func:`cover_counting_empty`, which also counts the
  active primary items it empties (``zeros``; each level remembers the count
  from before, which uncovering restores), so MRV can stop its scan at the
  first item of size 1 when no item is empty: the same choice as the full
  scan, without walking the rest of the list (3x faster on a 25x25 Sudoku).
* Cover / Uncover: exactly Algorithm 5 (top to bottom, left to right; undone
  bottom to top, right to left).
* Work, counted as Knuth counts it: ``nodes`` = the root plus one per option
  tried (one per search-tree node); ``updates`` = one per item covered (its
  left-right unlink, secondary items included) plus one per node unlinked
  up-down while hiding options. Uncovering is not counted.

Every exit (all solutions found, the solution ``limit`` reached, the
``node_limit`` budget spent) unwinds the stack, so the arrays come back
exactly as they went in.
"""

from __future__ import annotations

import numpy as np

from formats.compiled import kernel
from solvers.exact_cover.dancing_links import (
    ROOT,
    link_lr,
    link_ud,
    unlink_lr,
    unlink_ud,
)

MRV, FIRST = 0, 1
HEURISTICS = {"mrv": MRV, "first": FIRST}


@kernel(cache=True, inline="always")
def cover(L: np.ndarray, R: np.ndarray, U: np.ndarray, D: np.ndarray, C: np.ndarray, S: np.ndarray,
          c: int) -> int:
    """Cover item c (Algorithm 5); returns the number of updates it made."""
    unlink_lr(L, R, c)
    k = 1
    i = D[c]
    while i != c:
        j = R[i]
        while j != i:
            unlink_ud(U, D, j)
            S[C[j]] -= 1
            k += 1
            j = R[j]
        i = D[i]
    return k


@kernel(cache=True, inline="always")
def cover_counting_empty(L: np.ndarray, R: np.ndarray, U: np.ndarray, D: np.ndarray, C: np.ndarray,
                         S: np.ndarray, c: int, last: int) -> tuple[int, int]:
    """:func:`cover`, also returning how it changed the number of active
    primary items of size 0 (primary items being headers 1..last): the search
    uses it so that Choose can stop early. Returns (updates, change)."""
    unlink_lr(L, R, c)
    k = 1
    z = -1 if (c <= last and S[c] == 0) else 0
    i = D[c]
    while i != c:
        j = R[i]
        while j != i:
            unlink_ud(U, D, j)
            t = C[j]                  # always an active item: rows through covered items are hidden
            v = S[t] - 1
            S[t] = v
            if v == 0 and t <= last:
                z += 1
            k += 1
            j = R[j]
        i = D[i]
    return k, z


@kernel(cache=True, inline="always")
def uncover(L: np.ndarray, R: np.ndarray, U: np.ndarray, D: np.ndarray, C: np.ndarray,
            S: np.ndarray, c: int) -> None:
    """Undo cover(c): rows bottom to top, each right to left."""
    i = U[c]
    while i != c:
        j = L[i]
        while j != i:
            S[C[j]] += 1
            link_ud(U, D, j)
            j = L[j]
        i = U[i]
    link_lr(L, R, c)


@kernel(cache=True, inline="always")
def uncover_option(L: np.ndarray, R: np.ndarray, U: np.ndarray, D: np.ndarray, C: np.ndarray,
                   S: np.ndarray, r: int) -> None:
    """Undo the covers of option r's other items, right to left (Algorithm 4, lines 16-17)."""
    j = L[r]
    while j != r:
        uncover(L, R, U, D, C, S, C[j])
        j = L[j]


@kernel(cache=True, inline="always")
def choose(R: np.ndarray, S: np.ndarray, heuristic: int, zeros: int) -> int:
    """The item to branch on: first of minimal S (MRV), or simply R[h] (FIRST).

    ``zeros`` is the number of active primary items of size 0. When there is
    none, the first item of size 1 is already the first of minimal size, so
    the scan stops there: the same choice as Knuth's full scan, sooner."""
    c = R[ROOT]
    if heuristic == FIRST:
        return c
    floor = 0 if zeros > 0 else 1
    s = S[c]
    j = R[c]
    while j != ROOT and s > floor:
        if S[j] < s:
            c = j
            s = S[j]
        j = R[j]
    return c


@kernel(cache=True, long_running=True)
def dlx_search(links: np.ndarray, heuristic: int, limit: int, node_limit: int, keep: int,
               chosen: np.ndarray, depth: np.ndarray) -> tuple[int, int, int, bool]:
    """DLX on the (6, size) link block, which is restored before returning.

    Counts exact covers up to ``limit`` (0 = all); stops before trying an
    option once ``nodes`` reached ``node_limit`` (0 = no budget). The chosen
    option nodes of the first ``keep`` solutions go to ``chosen[s, :depth[s]]``
    (``chosen`` must have at least (number of primary items) columns).
    Returns (solutions, nodes, updates, complete)."""
    L, R, U, D, C, S = links[0], links[1], links[2], links[3], links[4], links[5]
    levels = 1                  # active primary items + 1
    zeros = 0                   # active primary items of size 0
    last = R[ROOT]              # highest active primary header (secondary headers come after)
    c = R[ROOT]
    while c != ROOT:
        levels += 1
        if S[c] == 0:
            zeros += 1
        if c > last:
            last = c
        c = R[c]
    O = np.empty(levels, dtype=links.dtype)       # unsigned like the links: no wraparound tests
    cols = np.empty(levels, dtype=links.dtype)
    zeros_before = np.empty(levels, dtype=np.int64)   # `zeros` before cover(cols[k]) ...
    zeros_after = np.empty(levels, dtype=np.int64)    # ... and after it (uncover restores these)
    count = 0
    nodes = 1
    updates = 0
    complete = True
    level = 0
    c = 0
    stop_in_try = False   # where an early stop happened (to know what to unwind)
    stopped = False
    forward = True
    while True:
        if forward:
            if R[ROOT] == ROOT:                       # no primary item left: a solution
                if count < keep:
                    for k in range(level):
                        chosen[count, k] = O[k]
                    depth[count] = level
                count += 1
                if limit > 0 and count >= limit:
                    stopped = True
                    break
                forward = False                       # back up
            else:
                c = choose(R, S, heuristic, zeros)
                zeros_before[level] = zeros
                k, z = cover_counting_empty(L, R, U, D, C, S, c, last)
                updates += k
                zeros += z
                zeros_after[level] = zeros
                cols[level] = c
                O[level] = D[c]
                # try the first option of c (falls through below)
        if not forward:
            if level == 0:
                break
            level -= 1
            r = O[level]
            uncover_option(L, R, U, D, C, S, r)
            zeros = zeros_after[level]
            c = cols[level]
            O[level] = D[r]
        # try option O[level] of item c
        r = O[level]
        if r == c:                                    # every option of c tried
            uncover(L, R, U, D, C, S, c)
            zeros = zeros_before[level]
            forward = False
            continue
        if node_limit > 0 and nodes >= node_limit:
            complete = False
            stopped = True
            stop_in_try = True
            break
        nodes += 1
        j = R[r]
        while j != r:
            k, z = cover_counting_empty(L, R, U, D, C, S, C[j], last)
            updates += k
            zeros += z
            j = R[j]
        level += 1
        forward = True
    if stopped:                                       # unwind to leave the arrays intact
        if stop_in_try:
            uncover(L, R, U, D, C, S, cols[level])
        while level > 0:
            level -= 1
            uncover_option(L, R, U, D, C, S, O[level])
            uncover(L, R, U, D, C, S, cols[level])
    return count, nodes, updates, complete
