"""The rules of :mod:`solvers.rules.bitsets` to a fixpoint, only where something changed.

:func:`fixpoint` drains the queue of touched cells, units and bands (:func:`touch`) in
order of cost: every queued cell first (one with a single candidate is placed, which
touches the peers that lose its value), then one queued unit (its hidden singles), then,
when no cell or unit is queued, one band or stack (its locked candidates); whatever a rule
removes is touched and queued in turn. When the queue is empty no rule can change anything:
a rule's outcome depends only on the cells it reads, and every cell that changed since a
unit or band was last looked at queued it again.

:func:`touch_all` queues everything (the root of a search); after a guess or a refuted
guess only the guessed cell is touched, so a search node costs what its changes cost, not a
pass over the whole grid.
"""

from __future__ import annotations

import numpy as np

from formats.compiled import kernel
from solvers.rules.bitsets import (
    RECHECKS,
    hidden_singles,
    locked_candidates,
    place,
    set_size,
    touch,
)


@kernel(cache=True, nogil=True)
def touch_all(done: np.ndarray, cell_units: np.ndarray, n: int, stack: np.ndarray,
              flags: np.ndarray, tops: np.ndarray) -> None:
    """Queue every open cell, every unit and every band and stack."""
    side = n * n
    for c in range(done.size):
        if done[c] == 0:
            touch(c, cell_units, n, stack, flags, tops)
    for u in range(3 * side):                          # units whose cells are all placed too
        if flags[done.size + u] == 0:
            flags[done.size + u] = 1
            stack[done.size + tops[1]] = u
            tops[1] += 1
    for b in range(2 * n):
        flags[done.size + 3 * side + b] = 1


@kernel(cache=True, nogil=True)
def fixpoint(cand: np.ndarray, done: np.ndarray, units: np.ndarray, cell_units: np.ndarray,
             full: np.ndarray, n: int, locked: bool, scratch: np.ndarray, seg: np.ndarray,
             decided: np.ndarray, stack: np.ndarray, flags: np.ndarray, tops: np.ndarray,
             work: np.ndarray) -> int:
    """Apply the rules to ``cand``/``done`` where the queue (``stack``, ``flags``,
    ``tops``) says something changed, until it is empty: the singles, then (``locked``)
    the locked candidates. Returns 1 when every cell is placed (a solution), 0 when cells
    are left open, -1 on a contradiction (the queue is then left as it was: clear it).
    ``scratch`` is (4, W) uint64, ``seg`` and ``decided`` (n, n, W) uint64."""
    side = n * n
    cells = side * side
    bands = cells + 3 * side
    once, twice, vals = scratch[0], scratch[1], scratch[2]
    while True:
        while tops[0] > 0:                              # naked singles
            tops[0] -= 1
            c = stack[tops[0]]
            flags[c] = 0
            if done[c]:
                continue
            size = set_size(cand, c)
            if size == 0:
                return -1
            if size == 1 and not place(c, cand, done, units, cell_units, n, stack, flags, tops,
                                       work):
                return -1
        if tops[1] > 0:                                 # hidden singles, one unit
            tops[1] -= 1
            u = stack[cells + tops[1]]
            flags[cells + u] = 0
            work[RECHECKS] += 1
            if hidden_singles(u, cand, done, units, cell_units, full, n, once, twice, stack,
                              flags, tops, work) < 0:
                return -1
            continue
        if not locked:
            break
        found = -1
        for b in range(2 * n):
            if flags[bands + b]:
                found = b
                break
        if found < 0:
            break
        flags[bands + found] = 0                        # locked candidates, one band
        work[RECHECKS] += 1
        if locked_candidates(cand, done, units, cell_units, n, found // n, found % n, seg,
                             decided, once, twice, vals, stack, flags, tops, work) < 0:
            return -1
    if not locked:                                      # the bands were never looked at
        for b in range(2 * n):
            flags[bands + b] = 0
    for c in range(cells):
        if done[c] == 0:
            return 0
    return 1
