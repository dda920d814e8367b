"""The ``bitset`` solver: candidates as bit sets, the rules to a fixpoint, then a guess.

The technique of the fastest 9x9 solvers, for any box size n. Each cell keeps its
candidates as a bit set (:mod:`solvers.rules.bitsets`: one uint64 word up to n = 8, more
beyond); naked singles, hidden singles and locked candidates (pointing and claiming) run to
a fixpoint; when cells are left open, the search guesses on a cell of fewest candidates,
its lowest value first.

The search is depth-first with an explicit stack of states (no recursion): a guess copies
the state one level down and decides the cell there; when that branch is exhausted (a
contradiction, or every solution below it counted), its value is *removed* from the cell
one level up and the rules run again there. So each node either decides a cell or removes
a candidate, and the branches of a node never share a solution: counting is exact.

Parameters: ``rules`` = locked (every rule, the default) | singles (naked and hidden singles
only); ``node_limit`` (0 = none) makes the answer ``unknown`` once that many nodes have
been searched. Counters: ``nodes`` (fixpoints computed: the root, each guess, each state
after a refuted guess), ``guesses`` (values tried by guessing), ``propagations`` (cells
placed by the rules, clues apart), ``eliminations`` (candidates removed by the rules),
``locked`` (of which by locked candidates), ``sweeps`` (passes of the rules over the whole
grid). Times: ``build``, ``search``.
"""

from __future__ import annotations

import time

import numpy as np
from formats.compiled import kernel

from formats.grid import Grid
from solvers.interface import RawAnswer, Solver
from solvers.rules.bitsets import (GUESSES, NODES, ONE, PLACED, RESTARTS, WORK, ZERO, fixpoint,
                                   nth_value, place, set_size, tables, value_of)

#: stack levels allocated first (doubled when a search goes deeper)
FIRST_LEVELS = 16
#: nodes of the first run before a restart (then times Luby's sequence), when solving
RESTART_BASE = 100


@kernel(cache=True, nogil=True)
def _grow(stack, levels):
    """``stack`` with room for ``levels`` levels (its rows copied)."""
    bigger = np.empty((levels,) + stack.shape[1:], dtype=stack.dtype)
    bigger[:stack.shape[0]] = stack
    return bigger


@kernel(cache=True, nogil=True, long_running=True)
def bitset_search(clues, n, units, cell_units, full, locked, limit, node_limit, keep, out, work,
                  restart_base, seed):
    """Count the solutions of ``clues`` ((n⁴,) values, 0 = empty, consistent) up to
    ``limit`` (0 = all), copying the first ``keep`` into ``out`` (keep, n², n²). Stops
    before computing a node past ``node_limit`` (0 = none). ``work`` (len(WORK),) int64
    receives the counters. With ``restart_base`` > 0 (and ``limit`` 1) ties between cells and
    the value tried are drawn at random (``seed``) and the search starts again from the root
    after restart_base·luby(i) nodes (:func:`luby`); what the root learned (a value refuted
    there by a whole subtree) is kept. Returns (solutions, complete)."""
    side = n * n
    cells = side * side
    W = full.size
    levels = FIRST_LEVELS
    cand = np.empty((levels, cells, W), dtype=np.uint64)
    done = np.zeros((levels, cells), dtype=np.uint8)
    guess_cell = np.zeros(levels, dtype=np.int64)
    guess_value = np.zeros(levels, dtype=np.int64)
    scratch = np.zeros((4, W), dtype=np.uint64)
    seg = np.zeros((n, n, W), dtype=np.uint64)
    decided = np.zeros((n, n, W), dtype=np.uint64)
    for c in range(cells):
        for w in range(W):
            cand[0, c, w] = full[w] if clues[c] == 0 else ZERO
        if clues[c] != 0:
            k = clues[c] - 1
            cand[0, c, k // 64] = ONE << np.uint64(k % 64)
    count = 0
    complete = True
    level = 0
    for c in range(cells):                              # the clues, not counted as propagations
        if clues[c] != 0 and done[0, c] == 0:
            if not place(c, cand[0], done[0], units, cell_units, work):
                return 0, True
            work[PLACED] -= 1
    randomize = restart_base > 0 and limit == 1
    if randomize:
        np.random.seed(seed)
    budget = restart_base
    since = 0
    while True:
        if node_limit > 0 and work[NODES] >= node_limit:
            complete = False
            break
        if randomize and level > 0 and since >= budget:     # start again from the root
            level = 0
            work[RESTARTS] += 1
            budget = restart_base * luby(work[RESTARTS] + 1)
            since = 0
        work[NODES] += 1
        since += 1
        state = fixpoint(cand[level], done[level], units, cell_units, full, n, locked,
                         scratch, seg, decided, work)
        if state == 0:                                  # guess: the open cell of fewest candidates
            best = side + 1
            cell = -1
            ties = 0
            for c in range(cells):
                if done[level, c] == 0:
                    size = set_size(cand[level], c)
                    if size < best:
                        best = size
                        cell = c
                        ties = 1
                        if size == 2 and not randomize:
                            break
                    elif size == best and randomize:
                        ties += 1
                        if np.random.randint(0, ties) == 0:
                            cell = c
            if level + 1 == cand.shape[0]:
                cand = _grow(cand, 2 * cand.shape[0])
                done = _grow(done, 2 * done.shape[0])
                guess_cell = _grow(guess_cell, 2 * guess_cell.shape[0])
                guess_value = _grow(guess_value, 2 * guess_value.shape[0])
            value = value_of(cand[level], cell) if not randomize else \
                nth_value(cand[level], cell, np.random.randint(0, best))
            guess_cell[level] = cell
            guess_value[level] = value
            cand[level + 1] = cand[level]
            done[level + 1] = done[level]
            for w in range(W):
                cand[level + 1, cell, w] = ZERO
            cand[level + 1, cell, (value - 1) // 64] = ONE << np.uint64((value - 1) % 64)
            level += 1
            work[GUESSES] += 1
            continue
        if state == 1:
            if count < keep:
                for c in range(cells):
                    out[count, c // side, c % side] = value_of(cand[level], c)
            count += 1
            if limit > 0 and count >= limit:
                break
        if level == 0:                                  # the root is exhausted
            break
        level -= 1                                      # refute the guess one level up
        value = guess_value[level] - 1
        cand[level, guess_cell[level], value // 64] &= ~(ONE << np.uint64(value % 64))
    return count, complete


@kernel(cache=True, nogil=True)
def luby(i):
    """The i-th term (1-based) of Luby's sequence 1 1 2 1 1 2 4 1 1 2 ..."""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while True:
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1


class Bitset(Solver):
    """Bit-set candidates: naked/hidden singles and locked candidates, then a guess."""

    name = "bitset"
    method = "search"
    parameters = {"rules": ("locked", ("locked", "singles")), "restarts": (RESTART_BASE, None),
                  "seed": (0, None), "node_limit": (0, None)}
    counters = WORK
    phases = ("build", "search")

    def warmup(self) -> None:
        grid = Grid(2, np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]]))
        self.count(grid, limit=2)

    def search(self, grid: Grid, limit: int | None, keep: int) -> RawAnswer:
        t0 = time.perf_counter()
        units, cell_units, full = tables(grid.n)
        clues = np.ascontiguousarray(grid.cells, dtype=np.int64).reshape(-1)
        side = grid.side
        out = np.zeros((max(keep, 1), side, side), dtype=np.int64)
        work = np.zeros(len(WORK), dtype=np.int64)
        t1 = time.perf_counter()
        count, complete = bitset_search(clues, grid.n, units, cell_units, full,
                                        self.params["rules"] == "locked", limit or 0,
                                        int(self.params["node_limit"]), keep, out, work,
                                        int(self.params["restarts"]), int(self.params["seed"]))
        t2 = time.perf_counter()
        return RawAnswer(count=int(count), solutions=[out[s] for s in range(min(count, keep))],
                         complete=bool(complete) or (limit is not None and count >= limit),
                         counters={name: int(v) for name, v in zip(WORK, work)},
                         times={"build": t1 - t0, "search": t2 - t1})
