"""Exact cover with colors and multiplicities (Knuth's dlx2 and dlx3 problems) on dancing links.

The problems of :mod:`formats.exact_cover` with ``colors`` (a secondary item
x of an option may carry a color; options that give x the same color may be
chosen together, an option naming x without a color excludes all others)
and multiplicities (primary item j is covered between ``lower[j]`` and
``upper[j]`` times). The data structure is the one of
:mod:`solvers.exact_cover.dancing_links` (same flat link block, same layout), plus
``COLOR[x]`` per node, and the search is one compiled loop like
:func:`solvers.exact_cover.algorithm_x.dlx_search`, with the same counters.

The search (the branching of Knuth's Algorithm M, undone through a trail
instead of mirror-image uncovering):

* An option is *hidden* by unlinking all its nodes from their item lists;
  every hidden option goes on a trail, which is unwound to undo.
* Choose the open primary item i of least *branch degree*: its visible
  options, plus one if it is already covered often enough (``count[i] >=
  lower[i]``), since then "no more options of i" is a branch too (ties: the
  first in the root's list; degree 0 is a dead end). With ``slack`` the
  degree is Knuth's θ of Algorithm M instead: the visible options plus one,
  minus the covers i still needs (``lower[i] - count[i]``, at least 0), so
  that an item needing more covers than it has options is a dead end at once
  (0 or less) and items needing several are chosen first. The same solutions
  from a smaller tree when bounds exceed 1; without bounds the same choice.
* Branch on the options o1, o2, ... of i in list order: the k-th branch
  chooses ok having hidden o1..o(k-1), so every set of options is reached
  once. Choosing an option hides it and, per item x it names: a primary x
  whose count reaches ``upper[x]`` is closed (its other options hidden, x
  leaves the root's list); a secondary x hides the options that conflict on x
  (all of them if the chosen option gives x no color, else those giving it
  another color or none). The last branch, when the count allows it, closes
  i with no more options.
* A solution is found when every primary item is closed.

Work: ``nodes`` = the root plus one per branch taken; ``updates`` = one per
node unlinked from an item list plus one per item unlinked from the root's
list. (For a plain exact cover problem use
:func:`~solvers.exact_cover.algorithm_x.dlx_search`, whose counts are Knuth's.)
"""

from __future__ import annotations

import numpy as np

from formats.compiled import kernel
from formats.exact_cover import ExactCover
from solvers.exact_cover.dancing_links import (
    ROOT,
    DancingLinks,
    link_lr,
    link_ud,
    unlink_lr,
    unlink_ud,
)


@kernel(cache=True, inline="always")
def _hide(U: np.ndarray, D: np.ndarray, C: np.ndarray, S: np.ndarray, first_node: np.ndarray,
          stop_node: np.ndarray, r: int, trail: np.ndarray, top: int) -> tuple[int, int]:
    """Unlink every node of option r; push r on the trail. Returns (new top, updates)."""
    for x in range(first_node[r], stop_node[r]):
        unlink_ud(U, D, x)
        S[C[x]] -= 1
    trail[top] = r
    return top + 1, stop_node[r] - first_node[r]


@kernel(cache=True, inline="always")
def _close(L: np.ndarray, R: np.ndarray, closed: np.ndarray, trail: np.ndarray, top: int,
           i: int) -> int:
    """Take item i out of the root's list (no more of its options); push -i on the trail.
    Returns the new top (one update). :func:`_unwind` undoes it."""
    unlink_lr(L, R, i)
    closed[i] = True
    trail[top] = -np.int64(i)
    return top + 1


@kernel(cache=True)
def _unwind(L: np.ndarray, R: np.ndarray, U: np.ndarray, D: np.ndarray, C: np.ndarray,
            S: np.ndarray, first_node: np.ndarray, stop_node: np.ndarray, closed: np.ndarray,
            trail: np.ndarray, top: int, to: int) -> int:
    """Undo the trail down to height ``to`` (options unhidden, items relinked), last first."""
    while top > to:
        top -= 1
        r = trail[top]
        if r < 0:                                   # an item closed: back into the root's list
            link_lr(L, R, -r)
            closed[-r] = False
        else:
            x = stop_node[r] - 1
            while x >= first_node[r]:
                S[C[x]] += 1
                link_ud(U, D, x)
                x -= 1
    return top


@kernel(cache=True)
def multiplicity_search(links: np.ndarray, color: np.ndarray, option_of: np.ndarray,
                        option_first: np.ndarray, option_stop: np.ndarray, lower: np.ndarray,
                        upper: np.ndarray, last_primary: int, limit: int, node_limit: int,
                        keep: int, chosen: np.ndarray, depth: np.ndarray,
                        slack: bool) -> tuple[int, int, int, bool]:
    """Count the solutions (up to ``limit``, 0 = all) of a problem with colors and
    multiplicities on the link block (restored before returning); stop before a
    branch once ``nodes`` reached ``node_limit`` (0 = none). ``lower``/``upper``
    are indexed by header (1..last_primary). The chosen options of the first
    ``keep`` solutions go to ``chosen[s, :depth[s]]``. Returns (solutions, nodes,
    updates, complete)."""
    L, R, U, D, C, S = links[0], links[1], links[2], links[3], links[4], links[5]
    n_options = len(option_first)
    n_headers = last_primary + 1
    count_of = np.zeros(n_headers, dtype=np.int64)      # times each primary item is covered
    closed = np.zeros(n_headers, dtype=np.bool_)
    trail = np.empty(n_options + n_headers + 1, dtype=np.int64)
    levels = n_options + n_headers + 1
    item = np.empty(levels, dtype=np.int64)
    base = np.empty(levels, dtype=np.int64)             # trail height when the level began
    mid = np.empty(levels, dtype=np.int64)              # ... when its current branch began
    picked = np.empty(levels, dtype=np.int64)           # the option of that branch, -1: "no more"
    done_none = np.zeros(levels, dtype=np.bool_)
    top = 0
    solutions = 0
    nodes = 1
    updates = 0
    complete = True
    level = 0
    forward = True
    while True:
        if forward:
            if R[ROOT] == ROOT:                         # every primary item closed: a solution
                if solutions < keep:
                    k = 0
                    for t in range(level):
                        if picked[t] >= 0:
                            chosen[solutions, k] = picked[t]
                            k += 1
                    depth[solutions] = k
                solutions += 1
                if limit > 0 and solutions >= limit:
                    break
                forward = False
            else:
                best = -1
                best_degree = 1 << 62
                c = R[ROOT]
                while c != ROOT:
                    if slack:
                        degree = S[c] + 1 - max(lower[c] - count_of[c], 0)
                        if degree < 0:
                            degree = 0
                    else:
                        degree = S[c] + (1 if count_of[c] >= lower[c] else 0)
                    if degree < best_degree:
                        best, best_degree = c, degree
                        if degree == 0:
                            break
                    c = R[c]
                if best_degree == 0:
                    forward = False
                else:
                    item[level] = best
                    base[level] = top
                    done_none[level] = False
        if not forward:
            if level == 0:
                break
            level -= 1
            top = _unwind(L, R, U, D, C, S, option_first, option_stop, closed, trail, top, mid[level])
            r = picked[level]
            if r < 0:                                   # the "no more" branch was the last one
                top = _unwind(L, R, U, D, C, S, option_first, option_stop, closed, trail, top,
                              base[level])
                continue
            for x in range(option_first[r], option_stop[r]):
                if C[x] <= last_primary:
                    count_of[C[x]] -= 1
            top, k = _hide(U, D, C, S, option_first, option_stop, r, trail, top)   # excluded from now on
            updates += k
        # the next branch at this level
        i = item[level]
        x = D[i]
        if x == i and (done_none[level] or count_of[i] < lower[i]):
            top = _unwind(L, R, U, D, C, S, option_first, option_stop, closed, trail, top, base[level])
            forward = False
            continue
        if node_limit > 0 and nodes >= node_limit:
            complete = False
            break
        nodes += 1
        mid[level] = top
        if x == i:                                      # close i: no more of its options
            done_none[level] = True
            picked[level] = -1
            top = _close(L, R, closed, trail, top, i)
            updates += 1
        else:
            r = option_of[x]
            picked[level] = r
            top, k = _hide(U, D, C, S, option_first, option_stop, r, trail, top)
            updates += k
            for y in range(option_first[r], option_stop[r]):
                j = C[y]
                if j <= last_primary:
                    count_of[j] += 1
                    if count_of[j] >= upper[j] and not closed[j]:
                        z = D[j]
                        while z != j:
                            nxt = D[z]
                            top, k = _hide(U, D, C, S, option_first, option_stop,
                                           option_of[z], trail, top)
                            updates += k
                            z = nxt
                        top = _close(L, R, closed, trail, top, j)
                        updates += 1
                else:
                    z = D[j]
                    while z != j:
                        nxt = D[z]
                        if color[y] == 0 or color[z] != color[y]:
                            top, k = _hide(U, D, C, S, option_first, option_stop,
                                           option_of[z], trail, top)
                            updates += k
                        z = nxt
        level += 1
        forward = True
    top = _unwind(L, R, U, D, C, S, option_first, option_stop, closed, trail, top, 0)
    return solutions, nodes, updates, complete


class MultiplicityProblem:
    """An :class:`ExactCover` with colors and/or multiplicities, ready for
    :func:`multiplicity_search`: its dancing links plus the node colors,
    option node ranges and bounds."""

    def __init__(self, problem: ExactCover) -> None:
        lower, upper = problem.bounds()
        self.problem = problem
        self.dl = DancingLinks.from_problem(problem)
        first = self.dl.first
        self.option_first = (first + problem.starts[:-1]).astype(np.int64)
        self.option_stop = (first + problem.starts[1:]).astype(np.int64)
        self.color = np.zeros(self.dl.size, dtype=np.int64)
        if problem.colors is not None:
            self.color[first:] = problem.colors
        self.lower = np.concatenate([[0], lower]).astype(np.int64)     # indexed by header
        self.upper = np.concatenate([[0], upper]).astype(np.int64)

    def search(self, limit: int = 0, node_limit: int = 0, keep: int = 0,
               slack: bool = False) -> tuple[int, int, int, bool, list[list[int]]]:
        """(solutions, nodes, updates, complete, chosen option lists of the first ``keep``);
        ``slack``: Knuth's θ for the choice of item (see the module docstring)."""
        chosen = np.zeros((max(keep, 1), max(len(self.problem), 1)), dtype=np.int64)
        depth = np.zeros(max(keep, 1), dtype=np.int64)
        solutions, nodes, updates, complete = multiplicity_search(
            self.dl.links, self.color, self.dl.option_of, self.option_first, self.option_stop, self.lower, self.upper,
            self.problem.primary, limit, node_limit, keep, chosen, depth, slack)
        found = [chosen[s, :depth[s]].tolist() for s in range(min(solutions, keep))]
        return solutions, nodes, updates, complete, found
