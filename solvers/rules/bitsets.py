"""Candidates as bit sets: naked singles, hidden singles and locked candidates to a fixpoint.

The state of a grid of box size n is

* ``cand`` (n⁴, W) uint64 -- the candidate set of each cell, value k (1-based) is bit
  (k-1) mod 64 of word (k-1) // 64; W = ceil(n²/64) words, so one word up to n = 8 and
  two at n = 9, 10;
* ``done`` (n⁴,) uint8 -- 1 once a cell is *placed*: it holds one candidate and that value
  has been removed from its peers.

The rules, on the unit tables of :mod:`solvers.rules.geometry` (rows, columns, boxes):

* **naked single**: a cell with one candidate is placed (:func:`place`);
* **hidden single**: a value with one place left in a unit goes there. One pass over a
  unit's cells folds their sets into ``once`` (values seen at least once) and ``twice``
  (at least twice); ``once & ~twice`` are the values with exactly one place;
* **locked candidates**, for each line (row or column) and box that meet: *pointing*, the
  values of the box whose places all lie in that line leave the rest of the line;
  *claiming*, the values of the line whose places all lie in that box leave the rest of
  the box. Both come from the n x n unions of each band's line-box segments.

Contradictions: a cell without a candidate, a value without a place in a unit, a cell
that is the only place of two values. Every rule keeps every solution, so a contradiction
proves there is none. :func:`fixpoint` applies the singles until none applies, then the
locked candidates, and goes back to the singles whenever they removed something.

Work is counted in ``work`` (int64, :data:`WORK` names its slots).
"""

from __future__ import annotations

import numpy as np
from formats.compiled import kernel

from solvers.rules.geometry import unit_tables

ZERO = np.uint64(0)
ONE = np.uint64(1)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_S1, _S2, _S4, _S56 = np.uint64(1), np.uint64(2), np.uint64(4), np.uint64(56)

#: the slots of the ``work`` array: fixpoints computed (search nodes), values guessed,
#: cells placed by the rules, candidates removed by any rule, candidates removed by the
#: locked candidates, passes of the rules over the whole grid, restarts of the search
WORK = ("nodes", "guesses", "propagations", "eliminations", "locked", "sweeps", "restarts")
NODES, GUESSES, PLACED, ELIMINATED, LOCKED, SWEEPS, RESTARTS = range(len(WORK))


def words(n: int) -> int:
    """The uint64 words of one candidate set at box size ``n``."""
    return max(1, (n * n + 63) // 64)


def full_set(n: int) -> np.ndarray:
    """The set of every value 1..n² as (W,) uint64 words."""
    side = n * n
    full = np.zeros(words(n), dtype=np.uint64)
    for k in range(side):
        full[k // 64] |= np.uint64(1) << np.uint64(k % 64)
    return full


def tables(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``units``, ``cell_units`` (:func:`solvers.rules.geometry.unit_tables`) and the full set."""
    units, cell_units = unit_tables(n)
    return units, cell_units, full_set(n)


@kernel(cache=True, nogil=True)
def popcount(x):
    """Set bits of the uint64 ``x``, as int64."""
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return np.int64((x * _H01) >> _S56)


@kernel(cache=True, nogil=True)
def set_size(cand, c):
    """Candidates of cell ``c``."""
    total = 0
    for w in range(cand.shape[1]):
        if cand[c, w] != ZERO:
            total += popcount(cand[c, w])
    return total


@kernel(cache=True, nogil=True)
def value_of(cand, c):
    """The lowest value (1-based) in cell ``c``'s set; 0 when it is empty."""
    for w in range(cand.shape[1]):
        x = cand[c, w]
        if x != ZERO:
            return 64 * w + popcount((x & (~x + ONE)) - ONE) + 1
    return 0


@kernel(cache=True, nogil=True)
def nth_value(cand, c, i):
    """The (i+1)-th smallest value (1-based) in cell ``c``'s set; 0 when it has fewer."""
    for w in range(cand.shape[1]):
        x = cand[c, w]
        while x != ZERO:
            low = x & (~x + ONE)
            if i == 0:
                return 64 * w + popcount(low - ONE) + 1
            i -= 1
            x ^= low
    return 0


@kernel(cache=True, nogil=True)
def place(c, cand, done, units, cell_units, work):
    """Cell ``c`` holds one candidate: mark it placed and remove its value from its peers.
    False when a peer is left without a candidate."""
    side = units.shape[1]
    W = cand.shape[1]
    done[c] = 1
    work[PLACED] += 1
    for t in range(3):
        u = cell_units[c, t]
        for s in range(side):
            p = units[u, s]
            if p == c:
                continue
            hit = False
            left = ZERO
            for w in range(W):
                b = cand[p, w] & cand[c, w]
                if b != ZERO:
                    cand[p, w] ^= b
                    hit = True
                left |= cand[p, w]
            if hit:
                work[ELIMINATED] += 1
                if left == ZERO:
                    return False
    return True


@kernel(cache=True, nogil=True)
def naked_singles(cand, done, units, cell_units, work):
    """Place every unplaced cell with one candidate (and those this creates further on).
    Returns the cells placed, -1 on a contradiction."""
    placed = 0
    W = cand.shape[1]
    for c in range(cand.shape[0]):
        if done[c]:
            continue
        nonzero = 0
        single = True
        for w in range(W):
            x = cand[c, w]
            if x != ZERO:
                nonzero += 1
                if x & (x - ONE) != ZERO:
                    single = False
        if single and nonzero == 1:
            if not place(c, cand, done, units, cell_units, work):
                return -1
            placed += 1
    return placed


@kernel(cache=True, nogil=True)
def hidden_singles(cand, done, units, cell_units, full, once, twice, work):
    """In every unit, place each value that has one place left there. Returns the cells
    placed, -1 on a contradiction."""
    side = units.shape[1]
    W = cand.shape[1]
    placed = 0
    for u in range(units.shape[0]):
        for w in range(W):
            once[w] = ZERO
            twice[w] = ZERO
        for s in range(side):
            c = units[u, s]
            for w in range(W):
                twice[w] |= once[w] & cand[c, w]
                once[w] |= cand[c, w]
        some = False
        for w in range(W):
            if once[w] != full[w]:
                return -1                               # a value without a place
            once[w] &= ~twice[w]
            if once[w] != ZERO:
                some = True
        if not some:
            continue
        for s in range(side):
            c = units[u, s]
            if done[c]:
                continue
            bits = 0
            for w in range(W):
                x = cand[c, w] & once[w]
                if x != ZERO:
                    bits += popcount(x)
            if bits == 0:
                continue
            if bits > 1:
                return -1                               # one cell, two values' only place
            work[ELIMINATED] += set_size(cand, c) - 1
            for w in range(W):
                cand[c, w] &= once[w]
            if not place(c, cand, done, units, cell_units, work):
                return -1
            placed += 1
    return placed


@kernel(cache=True, nogil=True)
def _remove(cand, c, vals, work):
    """Remove ``vals`` from cell ``c``: the candidates removed, -1 if none is left."""
    removed = 0
    left = ZERO
    for w in range(cand.shape[1]):
        b = cand[c, w] & vals[w]
        if b != ZERO:
            cand[c, w] ^= b
            removed += popcount(b)
        left |= cand[c, w]
    if left == ZERO:
        return -1
    work[ELIMINATED] += removed
    work[LOCKED] += removed
    return removed


@kernel(cache=True, nogil=True)
def locked_candidates(cand, done, units, n, kind, seg, decided, once, twice, vals, work):
    """Pointing and claiming between the lines of ``kind`` (0 rows, 1 columns) and the
    boxes. ``seg`` (n, n, W) and ``decided`` (n, n, W) are scratch: the union of the
    candidates, and of the placed values, of each line-box segment of a band. Returns the
    candidates removed, -1 on a contradiction."""
    side = n * n
    W = cand.shape[1]
    removed = 0
    for band in range(n):
        for ll in range(n):
            line = kind * side + band * n + ll
            for pos in range(n):
                for w in range(W):
                    acc = ZERO
                    dec = ZERO
                    for k in range(n):
                        c = units[line, pos * n + k]
                        acc |= cand[c, w]
                        if done[c]:
                            dec |= cand[c, w]
                    seg[ll, pos, w] = acc
                    decided[ll, pos, w] = dec
        for pos in range(n):                            # pointing: box -> line
            for w in range(W):
                once[w] = ZERO
                twice[w] = ZERO
                for ll in range(n):
                    twice[w] |= once[w] & seg[ll, pos, w]
                    once[w] |= seg[ll, pos, w]
                    twice[w] |= decided[ll, pos, w]     # placed values: nothing to do
            for ll in range(n):
                some = False
                for w in range(W):
                    vals[w] = seg[ll, pos, w] & once[w] & ~twice[w]
                    if vals[w] != ZERO:
                        some = True
                if not some:
                    continue
                line = kind * side + band * n + ll
                for pos2 in range(n):
                    if pos2 == pos:
                        continue
                    for k in range(n):
                        r = _remove(cand, units[line, pos2 * n + k], vals, work)
                        if r < 0:
                            return -1
                        removed += r
        for ll in range(n):                             # claiming: line -> box
            for w in range(W):
                once[w] = ZERO
                twice[w] = ZERO
                for pos in range(n):
                    twice[w] |= once[w] & seg[ll, pos, w]
                    once[w] |= seg[ll, pos, w]
                    twice[w] |= decided[ll, pos, w]
            for pos in range(n):
                some = False
                for w in range(W):
                    vals[w] = seg[ll, pos, w] & once[w] & ~twice[w]
                    if vals[w] != ZERO:
                        some = True
                if not some:
                    continue
                box = 2 * side + (band * n + pos if kind == 0 else pos * n + band)
                for ll2 in range(n):
                    if ll2 == ll:
                        continue
                    for k in range(n):
                        # the box lists its cells row-major: local row ll2 or local column ll2
                        s = ll2 * n + k if kind == 0 else k * n + ll2
                        r = _remove(cand, units[box, s], vals, work)
                        if r < 0:
                            return -1
                        removed += r
    return removed


@kernel(cache=True, nogil=True)
def fixpoint(cand, done, units, cell_units, full, n, locked, scratch, seg, decided, work):
    """Apply the rules to ``cand``/``done`` until none changes anything: the singles
    first, then (``locked``) the locked candidates. Returns 1 when every cell is placed
    (a solution), 0 when cells are left open, -1 on a contradiction. ``scratch`` is
    (4, W) uint64, ``seg`` and ``decided`` (n, n, W) uint64."""
    once, twice, vals = scratch[0], scratch[1], scratch[2]
    while True:
        work[SWEEPS] += 1
        a = naked_singles(cand, done, units, cell_units, work)
        if a < 0:
            return -1
        b = hidden_singles(cand, done, units, cell_units, full, once, twice, work)
        if b < 0:
            return -1
        if a + b > 0:
            continue
        open_cells = 0
        for c in range(done.size):
            if not done[c]:
                open_cells += 1
        if open_cells == 0:
            return 1
        if not locked:
            return 0
        for kind in range(2):
            r = locked_candidates(cand, done, units, n, kind, seg, decided, once, twice, vals,
                                  work)
            if r < 0:
                return -1
            if r > 0:
                b += r
        if b == 0:
            return 0
