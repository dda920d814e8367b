"""Candidates as bit sets, and the rules that shrink them: naked and hidden singles, locked candidates.

The state of a grid of box size n is

* ``cand`` (n⁴, W) uint64 -- the candidate set of each cell, value k (1-based) is bit
  (k-1) mod 64 of word (k-1) // 64; W = ceil(n²/64) words, so one word up to n = 8 and
  two at n = 9, 10;
* ``done`` (n⁴,) uint8 -- 1 once a cell is *placed*: it holds one candidate and that value
  has been removed from its peers.

The rules, on the unit tables of :mod:`solvers.rules.geometry` (rows, columns, boxes):

* **naked single**: a cell with one candidate is placed (:func:`place`);
* **hidden single** (:func:`hidden_singles`, one unit): a value with one place left in a
  unit goes there. One pass over the unit's cells folds their sets into ``once`` (values
  seen at least once) and ``twice`` (at least twice); ``once & ~twice`` are the values with
  exactly one place;
* **locked candidates** (:func:`locked_candidates`, one band of rows or one stack of
  columns): *pointing*, the values of a box whose places all lie in one line leave the rest
  of that line; *claiming*, the values of a line whose places all lie in one box leave the
  rest of that box. Both come from the n x n unions of the band's line-box segments.

Every change is *touched* (:func:`touch`): a cell that lost a candidate is queued, with its
three units and its band and stack, so :mod:`solvers.rules.bitset_fixpoint` applies each
rule only where something changed since it last looked. The queue is ``stack`` (n⁴ + 3n²,)
int64 (cells first, then units), ``flags`` (n⁴ + 3n² + 2n,) uint8 (queued cells, queued
units, then the n bands and n stacks to look at again) and ``tops`` (3,) int64 (the cells
and units queued, and the unit where the last contradiction showed, -1 if none known).

Contradictions: a cell without a candidate, a value without a place in a unit, a cell
that is the only place of two values. Every rule keeps every solution, so a contradiction
proves there is none. Work is counted in ``work`` (int64, :data:`WORK` names its slots).
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
#: locked candidates, units and bands the rules looked at again, restarts of the search
WORK = ("nodes", "guesses", "propagations", "eliminations", "locked", "rechecks", "restarts")
NODES, GUESSES, PLACED, ELIMINATED, LOCKED, RECHECKS, RESTARTS = range(len(WORK))


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
def popcount(x: np.uint64) -> np.int64:
    """Set bits of the uint64 ``x``, as int64."""
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return np.int64((x * _H01) >> _S56)


@kernel(cache=True, nogil=True)
def set_size(cand: np.ndarray, c: int) -> int:
    """Candidates of cell ``c``."""
    total = 0
    for w in range(cand.shape[1]):
        if cand[c, w] != ZERO:
            total += popcount(cand[c, w])
    return total


@kernel(cache=True, nogil=True)
def value_of(cand: np.ndarray, c: int) -> int:
    """The lowest value (1-based) in cell ``c``'s set; 0 when it is empty."""
    for w in range(cand.shape[1]):
        x = cand[c, w]
        if x != ZERO:
            return 64 * w + popcount((x & (~x + ONE)) - ONE) + 1
    return 0


@kernel(cache=True, nogil=True)
def nth_value(cand: np.ndarray, c: int, i: int) -> int:
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




def queue(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty queue of touched cells, units and bands (``stack``, ``flags``, ``tops``)."""
    side = n * n
    cells = side * side
    return (np.zeros(cells + 3 * side, dtype=np.int64),
            np.zeros(cells + 3 * side + 2 * n, dtype=np.uint8), np.array([0, 0, -1], dtype=np.int64))


@kernel(cache=True, nogil=True)
def touch(p: int, cell_units: np.ndarray, n: int, stack: np.ndarray, flags: np.ndarray,
          tops: np.ndarray) -> None:
    """Cell ``p`` lost a candidate: queue it (a naked single?), its three units (hidden
    singles?) and its band and stack (locked candidates?), each once."""
    side = n * n
    cells = side * side
    if flags[p] == 0:
        flags[p] = 1
        stack[tops[0]] = p
        tops[0] += 1
    for t in range(3):
        u = cell_units[p, t]
        if flags[cells + u] == 0:
            flags[cells + u] = 1
            stack[cells + tops[1]] = u
            tops[1] += 1
    flags[cells + 3 * side + (p // side) // n] = 1
    flags[cells + 3 * side + n + (p % side) // n] = 1


@kernel(cache=True, nogil=True)
def clear(n: int, stack: np.ndarray, flags: np.ndarray, tops: np.ndarray) -> None:
    """Empty the queue (after a contradiction left it half done)."""
    side = n * n
    cells = side * side
    for i in range(tops[0]):
        flags[stack[i]] = 0
    for i in range(tops[1]):
        flags[cells + stack[cells + i]] = 0
    for b in range(2 * n):
        flags[cells + 3 * side + b] = 0
    tops[0] = 0
    tops[1] = 0
    tops[2] = -1


@kernel(cache=True, nogil=True)
def place(c: int, cand: np.ndarray, done: np.ndarray, units: np.ndarray, cell_units: np.ndarray,
          n: int, stack: np.ndarray, flags: np.ndarray, tops: np.ndarray, work: np.ndarray) -> bool:
    """Cell ``c`` holds one candidate: mark it placed and remove its value from its peers,
    touching each peer that lost it. False when a peer is left without a candidate."""
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
                    tops[2] = u
                    return False
                touch(p, cell_units, n, stack, flags, tops)
    return True


@kernel(cache=True, nogil=True)
def hidden_singles(u: int, cand: np.ndarray, done: np.ndarray, units: np.ndarray,
                   cell_units: np.ndarray, full: np.ndarray, n: int, once: np.ndarray,
                   twice: np.ndarray, stack: np.ndarray, flags: np.ndarray, tops: np.ndarray,
                   work: np.ndarray) -> int:
    """In unit ``u``, place each value that has one place left there. Returns the cells
    placed, -1 on a contradiction."""
    side = units.shape[1]
    W = cand.shape[1]
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
            tops[2] = u
            return -1                                   # a value without a place
        once[w] &= ~twice[w]
        if once[w] != ZERO:
            some = True
    if not some:
        return 0
    placed = 0
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
            tops[2] = u
            return -1                                   # one cell, two values' only place
        size = set_size(cand, c)
        if size > 1:
            work[ELIMINATED] += size - 1
            for w in range(W):
                cand[c, w] &= once[w]
            touch(c, cell_units, n, stack, flags, tops)
        if not place(c, cand, done, units, cell_units, n, stack, flags, tops, work):
            return -1
        placed += 1
    return placed


@kernel(cache=True, nogil=True)
def _remove(cand: np.ndarray, c: int, vals: np.ndarray, cell_units: np.ndarray, n: int,
            stack: np.ndarray, flags: np.ndarray, tops: np.ndarray, work: np.ndarray) -> int:
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
    if removed > 0:
        work[ELIMINATED] += removed
        work[LOCKED] += removed
        touch(c, cell_units, n, stack, flags, tops)
    return removed


@kernel(cache=True, nogil=True)
def _meets(seg: np.ndarray, ll: int, pos: int, vals: np.ndarray) -> bool:
    """Some of ``vals`` are candidates in segment (``ll``, ``pos``): only then is it visited."""
    for w in range(vals.size):  # noqa: SIM110 - a compiled kernel: numba takes no generator
        if seg[ll, pos, w] & vals[w] != ZERO:
            return True
    return False


@kernel(cache=True, nogil=True)
def locked_candidates(cand: np.ndarray, done: np.ndarray, units: np.ndarray, cell_units: np.ndarray,
                      n: int, kind: int, band: int, seg: np.ndarray, decided: np.ndarray,
                      once: np.ndarray, twice: np.ndarray, vals: np.ndarray, stack: np.ndarray,
                      flags: np.ndarray, tops: np.ndarray, work: np.ndarray) -> int:
    """Pointing and claiming between the n lines of ``kind`` (0 rows, 1 columns) in
    ``band`` and the n boxes they cross. ``seg`` (n, n, W) and ``decided`` (n, n, W) are
    scratch: the union of the candidates, and of the placed values, of each line-box
    segment (a segment none of whose candidates a rule removes is not visited cell by cell).
    Returns the candidates removed, -1 on a contradiction."""
    side = n * n
    W = cand.shape[1]
    removed = 0
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
    for pos in range(n):                                # pointing: box -> line
        for w in range(W):
            once[w] = ZERO
            twice[w] = ZERO
            for ll in range(n):
                twice[w] |= once[w] & seg[ll, pos, w]
                once[w] |= seg[ll, pos, w]
                twice[w] |= decided[ll, pos, w]         # placed values: nothing to do
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
                if pos2 == pos or not _meets(seg, ll, pos2, vals):
                    continue
                for k in range(n):
                    r = _remove(cand, units[line, pos2 * n + k], vals, cell_units, n, stack,
                                flags, tops, work)
                    if r < 0:
                        return -1
                    removed += r
    for ll in range(n):                                 # claiming: line -> box
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
                if ll2 == ll or not _meets(seg, ll2, pos, vals):
                    continue
                for k in range(n):
                    # the box lists its cells row-major: local row ll2 or local column ll2
                    s = ll2 * n + k if kind == 0 else k * n + ll2
                    r = _remove(cand, units[box, s], vals, cell_units, n, stack, flags, tops,
                                work)
                    if r < 0:
                        return -1
                    removed += r
    return removed
