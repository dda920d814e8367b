"""The ``bitset`` solver: candidates as bit sets, the rules to a fixpoint, then a guess.

The technique of the fastest 9x9 solvers, for any box size n. Each cell keeps its
candidates as a bit set (:mod:`solvers.rules.bitsets`: one uint64 word up to n = 8, more
beyond); naked singles, hidden singles and locked candidates (pointing and claiming) run to
a fixpoint (:mod:`solvers.rules.bitset_fixpoint`: only where something changed); when
cells are left open, the search guesses (:func:`branch`).

The search is depth-first with an explicit stack of states (no recursion): a guess copies
the state one level down and decides the cell there; when that branch is exhausted (a
contradiction, or every solution below it counted), its value is *removed* from the cell
one level up and the rules run again there. So each node either decides a cell or removes
a candidate, and the branches of a node never share a solution: counting is exact.

Parameters: ``rules`` = locked (every rule, the default) | singles (naked and hidden singles
only); ``branch`` = weight (the default) | cell | place (:func:`branch`); ``restarts``,
``seed`` (:func:`bitset_search`); ``node_limit`` (0 = none) makes the answer ``unknown``
once that many nodes have been searched. Counters: ``nodes`` (fixpoints computed: the root,
each guess, each state after a refuted guess), ``guesses`` (values tried by guessing),
``propagations`` (cells placed by the rules, clues apart), ``eliminations`` (candidates
removed by the rules), ``locked`` (of which by locked candidates), ``rechecks`` (units and
bands the rules looked at again), ``restarts``. Times: ``build``, ``search``.
"""

from __future__ import annotations

import time

import numpy as np

from formats.compiled import kernel
from formats.grid import Grid
from solvers.interface import RawAnswer, Solver
from solvers.rules.bitset_fixpoint import fixpoint, touch_all
from solvers.rules.bitsets import (
    GUESSES,
    NODES,
    ONE,
    PLACED,
    RESTARTS,
    WORK,
    ZERO,
    clear,
    nth_value,
    place,
    popcount,
    set_size,
    tables,
    touch,
    value_of,
)

#: stack levels allocated first (doubled when a search goes deeper)
FIRST_LEVELS = 16
#: the branching rules of :func:`branch`, by its ``mode``
BRANCHES = ("cell", "place", "weight")
#: nodes of the first run before a restart (then times Luby's sequence), when solving
RESTART_BASE = 100


@kernel(cache=True, nogil=True)
def _grow(stack: np.ndarray, levels: int) -> np.ndarray:
    """``stack`` with room for ``levels`` levels (its rows copied)."""
    bigger = np.empty((levels,) + stack.shape[1:], dtype=stack.dtype)
    bigger[:stack.shape[0]] = stack
    return bigger


@kernel(cache=True, nogil=True)
def branch(cand: np.ndarray, done: np.ndarray, units: np.ndarray, cell_units: np.ndarray, mode: int,
           randomize: bool, counts: np.ndarray, weights: np.ndarray) -> tuple[int, int, int]:
    """The guess to make: (cell, value, ways). ``mode`` 0: the open cell of fewest candidates
    (``ways`` of them; the first found, or with ``randomize`` one drawn among the ties), its
    lowest value (or one drawn). 1: the same, but a (unit, value) with fewer places than that
    cell has candidates wins: the value's first place (or one drawn) is guessed. 2: the open
    cell of least candidates per weight, its weight the ``weights`` of its three units (the
    contradictions seen in each). ``counts`` (n² + 1, W) uint64 is scratch. Either way the
    guess splits the solutions in two: those with that value there, and the others."""
    cells = cand.shape[0]
    side = units.shape[1]
    W = cand.shape[1]
    best = side + 1
    best_weight = 1
    cell = -1
    ties = 0
    for c in range(cells):
        if done[c] == 0:
            size = set_size(cand, c)
            weight = 1
            if mode == 2:
                weight = weights[cell_units[c, 0]] + weights[cell_units[c, 1]] + \
                    weights[cell_units[c, 2]]
            if size * best_weight < best * weight:
                best = size
                best_weight = weight
                cell = c
                ties = 1
                if size == 2 and mode != 2 and not randomize:
                    break
            elif size * best_weight == best * weight and randomize:
                ties += 1
                if np.random.randint(0, ties) == 0:
                    cell = c
    if mode == 1 and best > 2:
        unit = -1
        word = 0
        bits = ZERO
        for u in range(units.shape[0]):                 # counts[k]: values with > k places
            for k in range(best):
                for w in range(W):
                    counts[k, w] = ZERO
            for s in range(side):
                c = units[u, s]
                for w in range(W):
                    x = cand[c, w]
                    for k in range(best - 1, 0, -1):
                        counts[k, w] |= counts[k - 1, w] & x
                    counts[0, w] |= x
            for k in range(1, best - 1):               # exactly k + 1 places
                for w in range(W):
                    x = counts[k, w] & ~counts[k + 1, w]
                    if x != ZERO:
                        best = k + 1
                        unit = u
                        word = w
                        bits = x
                        break
                if unit == u:
                    break
            if best == 2:
                break
        if unit >= 0:
            value = 64 * word + popcount((bits & (~bits + ONE)) - ONE)
            pick = np.random.randint(0, best) if randomize else 0
            for s in range(side):
                c = units[unit, s]
                if cand[c, value // 64] & (ONE << np.uint64(value % 64)) != ZERO:
                    if pick == 0:
                        return c, value + 1, best
                    pick -= 1
    value = value_of(cand, cell) if not randomize else \
        nth_value(cand, cell, np.random.randint(0, best))
    return cell, value, best


@kernel(cache=True, nogil=True, long_running=True)
def bitset_search(clues: np.ndarray, n: int, units: np.ndarray, cell_units: np.ndarray,
                  full: np.ndarray, locked: bool, mode: int, limit: int, node_limit: int, keep: int,
                  out: np.ndarray, work: np.ndarray, restart_base: int,
                  seed: int) -> tuple[int, bool]:
    """Count the solutions of ``clues`` ((n⁴,) values, 0 = empty, consistent) up to
    ``limit`` (0 = all), copying the first ``keep`` into ``out`` (keep, n², n²). Stops
    before computing a node past ``node_limit`` (0 = none). ``work`` (len(WORK),) int64
    receives the counters. Guesses are chosen by :func:`branch` (``mode``); the contradictions
    seen in each unit are its weight, kept across restarts. With
    ``restart_base`` > 0 (and ``limit`` 1) ties and the value tried are drawn at random
    (``seed``) and the search starts again from the root after restart_base·luby(i) nodes
    (:func:`luby`); what the root learned (a value refuted there by a whole subtree) is kept.
    Returns (solutions, complete)."""
    side = n * n
    cells = side * side
    W = full.size
    levels = FIRST_LEVELS
    cand = np.empty((levels, cells, W), dtype=np.uint64)
    done = np.zeros((levels, cells), dtype=np.uint8)
    guess_cell = np.zeros(levels, dtype=np.int64)
    guess_value = np.zeros(levels, dtype=np.int64)
    scratch = np.zeros((4, W), dtype=np.uint64)
    counts = np.zeros((side + 1, W), dtype=np.uint64)
    seg = np.zeros((n, n, W), dtype=np.uint64)
    decided = np.zeros((n, n, W), dtype=np.uint64)
    stack = np.zeros(cells + 3 * side, dtype=np.int64)
    flags = np.zeros(cells + 3 * side + 2 * n, dtype=np.uint8)
    tops = np.array([0, 0, -1], dtype=np.int64)
    weights = np.ones(3 * side, dtype=np.int64)
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
            if not place(c, cand[0], done[0], units, cell_units, n, stack, flags, tops, work):
                return 0, True
            work[PLACED] -= 1
    touch_all(done[0], cell_units, n, stack, flags, tops)
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
            clear(n, stack, flags, tops)
            work[RESTARTS] += 1
            budget = restart_base * luby(work[RESTARTS] + 1)
            since = 0
        work[NODES] += 1
        since += 1
        state = fixpoint(cand[level], done[level], units, cell_units, full, n, locked,
                         scratch, seg, decided, stack, flags, tops, work)
        if state == 0:                                  # guess
            cell, value, ways = branch(cand[level], done[level], units, cell_units, mode,
                                       randomize, counts, weights)
            if level + 1 == cand.shape[0]:
                cand = _grow(cand, 2 * cand.shape[0])
                done = _grow(done, 2 * done.shape[0])
                guess_cell = _grow(guess_cell, 2 * guess_cell.shape[0])
                guess_value = _grow(guess_value, 2 * guess_value.shape[0])
            guess_cell[level] = cell
            guess_value[level] = value
            cand[level + 1] = cand[level]
            done[level + 1] = done[level]
            for w in range(W):
                cand[level + 1, cell, w] = ZERO
            cand[level + 1, cell, (value - 1) // 64] = ONE << np.uint64((value - 1) % 64)
            touch(cell, cell_units, n, stack, flags, tops)
            level += 1
            work[GUESSES] += 1
            continue
        if state < 0 and tops[2] >= 0:
            weights[tops[2]] += 1
        clear(n, stack, flags, tops)
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
        touch(guess_cell[level], cell_units, n, stack, flags, tops)
    return count, complete


@kernel(cache=True, nogil=True)
def luby(i: int) -> int:
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
    parameters = {"rules": ("locked", ("locked", "singles")), "branch": ("weight", BRANCHES),
                  "restarts": (RESTART_BASE, None),
                  "seed": (0, None), "node_limit": (0, None)}
    counters = WORK
    phases = ("build", "search")
    #: ``race solve`` of a few puzzles up to 9x9 runs interpreted (:meth:`Solver.interpreted`)
    INTERPRETED_MAX_N = 3

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
        # interpreted, the popcount's multiply wraps as in the compiled kernel, without a warning
        with np.errstate(over="ignore"):
            count, complete = bitset_search(clues, grid.n, units, cell_units, full,
                                            self.params["rules"] == "locked",
                                            BRANCHES.index(self.params["branch"]), limit or 0,
                                            int(self.params["node_limit"]), keep, out, work,
                                            int(self.params["restarts"]), int(self.params["seed"]))
        t2 = time.perf_counter()
        return RawAnswer(count=int(count), solutions=[out[s] for s in range(min(count, keep))],
                         complete=bool(complete) or (limit is not None and count >= limit),
                         counters={name: int(v) for name, v in zip(WORK, work)},
                         times={"build": t1 - t0, "search": t2 - t1})
