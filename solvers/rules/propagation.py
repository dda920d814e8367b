"""Constraint propagation: naked and hidden singles to a fixpoint, incrementally.

Norvig's scheme on flat arrays, in one compiled kernel. The state of a grid is

* ``cells`` (n⁴,) -- the decided value of each cell (0 = undecided);
* ``candidates`` (n⁴, n²) bool -- [c, k-1]: value k is still possible in cell c
  (a decided cell keeps exactly its own value);
* ``cell_count`` (n⁴,) -- candidates left per cell;
* ``place_count`` (3n², n²) -- cells of unit u where value k is still possible;
* ``placed`` (3n², n²) bool -- value k is decided somewhere in unit u;
* a queue of pending assignments (cell, value).

:func:`assign` decides a cell and **eliminates** its value from its peers
only (the cells of its three units); :func:`eliminate` keeps both counts up
to date, so a cell left with one candidate (naked single) or a value left
with one place in a unit (hidden single) is queued the moment it appears,
and nothing is recomputed from scratch. A contradiction is a cell without
candidates (two equal clues in one unit included) or a value without a place
in a unit. Propagation never changes the set of solutions: a contradiction
proves there is none, and every decided cell holds the value every solution has.

:func:`propagate` runs the clues of a grid to the fixpoint; :class:`Candidates`
keeps the state for callers that go on assigning (incremental use).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from formats.compiled import is_interpreted, kernel
from solvers.rules.geometry import unit_tables


@kernel(cache=True, nogil=True)
def _enqueue(queue: np.ndarray, ends: np.ndarray, cell: int, value: int) -> None:
    queue[ends[1], 0] = cell
    queue[ends[1], 1] = value
    ends[1] += 1


@kernel(cache=True, nogil=True)
def eliminate(cell: int, k: int, cells: np.ndarray, candidates: np.ndarray, cell_count: np.ndarray,
              place_count: np.ndarray, placed: np.ndarray, units: np.ndarray,
              cell_units: np.ndarray, queue: np.ndarray, ends: np.ndarray) -> bool:
    """Remove value k+1 (k 0-based) from the candidates of ``cell`` and queue
    the singles this creates. False on a contradiction."""
    if not candidates[cell, k]:
        return True
    side = candidates.shape[1]
    candidates[cell, k] = False
    cell_count[cell] -= 1
    left = cell_count[cell]
    if left == 0:
        return False
    if left == 1 and cells[cell] == 0:                      # naked single
        for v in range(side):
            if candidates[cell, v]:
                _enqueue(queue, ends, cell, v + 1)
                break
    for t in range(3):
        u = cell_units[cell, t]
        place_count[u, k] -= 1
        places = place_count[u, k]
        if places == 0:
            return False
        if places == 1 and not placed[u, k]:                # hidden single
            for s in range(side):
                other = units[u, s]
                if candidates[other, k]:
                    _enqueue(queue, ends, other, k + 1)
                    break
    return True


@kernel(cache=True, nogil=True)
def assign(cell: int, value: int, cells: np.ndarray, candidates: np.ndarray, cell_count: np.ndarray,
           place_count: np.ndarray, placed: np.ndarray, units: np.ndarray, cell_units: np.ndarray,
           queue: np.ndarray, ends: np.ndarray) -> bool:
    """Decide ``cell`` = ``value`` (1-based): drop its other candidates, then
    eliminate the value from its peers. False on a contradiction. Does not
    drain the queue (see :func:`drain`)."""
    if cells[cell] == value:
        return True
    if cells[cell] != 0 or not candidates[cell, value - 1]:
        return False
    side = candidates.shape[1]
    k = value - 1
    cells[cell] = value
    for t in range(3):
        placed[cell_units[cell, t], k] = True
    for v in range(side):
        if v != k and candidates[cell, v]:
            if not eliminate(cell, v, cells, candidates, cell_count, place_count, placed,
                             units, cell_units, queue, ends):
                return False
    for t in range(3):
        u = cell_units[cell, t]
        for s in range(side):
            peer = units[u, s]
            if peer != cell and candidates[peer, k]:
                if not eliminate(peer, k, cells, candidates, cell_count, place_count, placed,
                                 units, cell_units, queue, ends):
                    return False
    return True


@kernel(cache=True, nogil=True)
def drain(cells: np.ndarray, candidates: np.ndarray, cell_count: np.ndarray,
          place_count: np.ndarray, placed: np.ndarray, units: np.ndarray, cell_units: np.ndarray,
          queue: np.ndarray, ends: np.ndarray) -> bool:
    """Assign every queued (cell, value), and what those assignments queue, to
    the fixpoint. False on a contradiction (the state is then meaningless)."""
    while ends[0] < ends[1]:
        cell = queue[ends[0], 0]
        value = queue[ends[0], 1]
        ends[0] += 1
        if not assign(cell, value, cells, candidates, cell_count, place_count, placed,
                      units, cell_units, queue, ends):
            ends[0] = ends[1] = 0
            return False
    ends[0] = ends[1] = 0
    return True


@kernel(cache=True, nogil=True)
def propagate_clues(clues: np.ndarray, cells: np.ndarray, candidates: np.ndarray,
                    cell_count: np.ndarray, place_count: np.ndarray, placed: np.ndarray,
                    units: np.ndarray, cell_units: np.ndarray, queue: np.ndarray,
                    ends: np.ndarray) -> int:
    """Set the state to the ``clues`` (flat, 0 = empty) in one pass: a clue
    decides its cell, an empty cell's candidates are the values CanPlace
    allows; queue the singles already present and drain. Returns the number
    of undecided cells, or -1 on a contradiction (two equal clues in a unit
    included)."""
    side = candidates.shape[1]
    cells[:] = 0
    placed[:, :] = False
    ends[0] = ends[1] = 0
    for c in range(clues.size):
        k = clues[c]
        if k != 0:
            for t in range(3):
                if placed[cell_units[c, t], k - 1]:
                    return -1
                placed[cell_units[c, t], k - 1] = True
            cells[c] = k
    place_count[:, :] = 0
    for c in range(clues.size):
        row, column, box = cell_units[c, 0], cell_units[c, 1], cell_units[c, 2]
        count = 0
        for k in range(side):
            if cells[c] != 0:
                free = cells[c] == k + 1
            else:
                free = not (placed[row, k] or placed[column, k] or placed[box, k])
            candidates[c, k] = free
            if free:
                count += 1
                place_count[row, k] += 1
                place_count[column, k] += 1
                place_count[box, k] += 1
        cell_count[c] = count
        if count == 0:
            return -1
        if count == 1 and cells[c] == 0:                    # naked single
            for k in range(side):
                if candidates[c, k]:
                    _enqueue(queue, ends, c, k + 1)
    for u in range(3 * side):
        for k in range(side):
            if place_count[u, k] == 0:
                return -1
            if place_count[u, k] == 1 and not placed[u, k]:  # hidden single
                for s in range(side):
                    if candidates[units[u, s], k]:
                        _enqueue(queue, ends, units[u, s], k + 1)
    if not drain(cells, candidates, cell_count, place_count, placed, units, cell_units, queue, ends):
        return -1
    undecided = 0
    for c in range(cells.size):
        if cells[c] == 0:
            undecided += 1
    return undecided


class Propagation(NamedTuple):
    """The fixpoint of the singles: ``undecided`` cells left (-1: contradiction),
    ``cells`` (n², n²) the decided grid, ``candidates`` (n⁴, n²) bool."""
    undecided: int
    cells: np.ndarray
    candidates: np.ndarray

    @property
    def contradiction(self) -> bool:
        return self.undecided < 0


class Candidates:
    """The propagation state of one grid of box size ``n``, kept for
    incremental use: :meth:`start` with the clues, then :meth:`assign` more."""

    def __init__(self, n: int) -> None:
        side = n * n
        self.n = n
        self.units, self.cell_units = unit_tables(n)
        self.cells = np.zeros(side * side, dtype=np.int32)
        self.candidates = np.ones((side * side, side), dtype=np.bool_)
        self.cell_count = np.full(side * side, side, dtype=np.int32)
        self.place_count = np.full((3 * side, side), side, dtype=np.int32)
        self.placed = np.zeros((3 * side, side), dtype=np.bool_)
        # per drain each cell is queued at most once as a naked single (its count only
        # falls) and each (unit, value) once as a hidden single
        self.queue = np.zeros((4 * side * side + 1, 2), dtype=np.int64)
        self.ends = np.zeros(2, dtype=np.int64)
        self.contradiction = False

    def _state(self) -> tuple:
        return (self.cells, self.candidates, self.cell_count, self.place_count, self.placed,
                self.units, self.cell_units, self.queue, self.ends)

    def start(self, clues: np.ndarray) -> int:
        """Reset to ``clues`` (any array of n⁴ values, 0 = empty) and propagate.
        Returns the number of undecided cells, -1 on a contradiction. Raises
        ValueError for a wrong size or a value outside 0..n² (the kernel does
        not check bounds)."""
        flat = np.ascontiguousarray(clues, dtype=np.int32).reshape(-1)
        side = self.n * self.n
        if flat.size != side * side or (flat.size and not 0 <= flat.min() <= flat.max() <= side):
            raise ValueError(f"expected {side * side} values in 0..{side}")
        undecided = propagate_clues(flat, *self._state())
        self.contradiction = undecided < 0
        return int(undecided)

    def assign(self, cell: int, value: int) -> bool:
        """Decide flat ``cell`` = ``value`` and propagate; False (and
        :attr:`contradiction` set) when that contradicts the state."""
        side = self.n * self.n
        if not (0 <= cell < side * side and 1 <= value <= side):
            raise ValueError(f"cell {cell} / value {value} outside the n={self.n} grid")
        if self.contradiction:
            return False
        ok = assign(cell, value, *self._state()) and drain(*self._state())
        self.contradiction = not ok
        return bool(ok)

    @property
    def undecided(self) -> int:
        """Cells without a value yet (-1 after a contradiction)."""
        return -1 if self.contradiction else int(np.count_nonzero(self.cells == 0))


def propagate(cells: np.ndarray, n: int) -> Propagation:
    """Naked and hidden singles from the clues of ``cells`` ((n², n²), 0 =
    empty) to the fixpoint. ``cells`` is not modified; the result's ``cells``
    has its dtype. Inside :func:`formats.compiled.interpreted` the same fixpoint
    comes from :func:`propagate_vectorised` (numpy, no numba to load)."""
    if is_interpreted():
        return propagate_vectorised(cells, n)
    state = Candidates(n)
    undecided = state.start(cells)
    side = n * n
    return Propagation(undecided, state.cells.reshape(side, side).astype(np.asarray(cells).dtype),
                       state.candidates)


def propagate_vectorised(cells: np.ndarray, n: int) -> Propagation:
    """:func:`propagate` with whole-array numpy steps, for callers that run without the
    compiled kernels. The first round computes the candidates from the clues (a candidate
    is a value no unit of the cell has placed) and the counts (candidates per cell, places
    per (unit, value)); each round then decides every naked single (a cell with one
    candidate) and every hidden single (a value with one place in a unit) at once and
    removes the decided values from their peers, updating the counts of the cells and
    (unit, value) pairs it touched only, which are where the next singles can appear:
    until a round decides nothing.

    The singles are a monotone rule, so their fixpoint does not depend on the order
    they are applied in: the result equals the incremental kernel's, cells and
    candidates alike (tested), and so does a contradiction (a cell or a unit's value
    without a place, a value placed twice in a unit, a cell given two values).
    The first round costs O(n⁶), each later one O(decided · n²): measured (CPU) on a
    public 144x144 whose ~7,200 holes all fall to singles in ~600 rounds, 0.2 s where
    recomputing every round took 2.7 s (the kernel: tens of ms, after numba's ~0.5 s import)."""
    side = n * n
    units, cell_units = unit_tables(n)
    dtype = np.asarray(cells).dtype
    flat = np.array(cells, dtype=np.int64).reshape(-1)
    if flat.size != side * side or (flat.size and not 0 <= flat.min() <= flat.max() <= side):
        raise ValueError(f"expected {side * side} values in 0..{side}")
    rows, columns, boxes = cell_units[:, 0], cell_units[:, 1], cell_units[:, 2]

    def result(undecided: int) -> Propagation:
        return Propagation(undecided, flat.reshape(side, side).astype(dtype), candidates)

    decided = np.flatnonzero(flat)
    values = flat[decided] - 1
    placements = np.bincount((cell_units[decided] * side + values[:, None]).ravel(),
                             minlength=3 * side * side)
    placed: np.ndarray = placements.reshape(3 * side, side).astype(np.bool_)
    candidates = ~(placed[rows] | placed[columns] | placed[boxes])
    candidates[decided] = False
    candidates[decided, values] = True
    if placements.max(initial=0) > 1:                       # a value twice in a unit
        return result(-1)
    as_bytes = candidates.view(np.uint8)
    count = as_bytes.sum(1, dtype=np.int64)
    cube = as_bytes.reshape(side, side, side)
    places = np.concatenate([cube.sum(1, dtype=np.int64), cube.sum(0, dtype=np.int64),
                             as_bytes.reshape(n, n, n, n, side).sum((1, 3), dtype=np.int64)
                             .reshape(side, side)]).ravel()     # [unit · side + value]
    placed = placed.ravel()
    cells_seen = np.arange(side * side)                     # where the next singles can be
    pairs_seen = np.arange(3 * side * side)                 # (unit · side + value)
    undecided = side * side - decided.size
    while True:
        if not count[cells_seen].all() or not places[pairs_seen].all():
            return result(-1)                               # a cell or a value without a place
        naked = cells_seen[(flat[cells_seen] == 0) & (count[cells_seen] == 1)]
        pairs = pairs_seen[(places[pairs_seen] == 1) & ~placed[pairs_seen]]
        unit, k = np.divmod(pairs, side)
        hidden = units[unit, candidates[units[unit], k[:, None]].argmax(1)]
        new_cells = np.concatenate([naked, hidden])
        if new_cells.size == 0:
            return result(int(undecided))
        new_values = np.concatenate([candidates[naked].argmax(1), k])
        order = np.lexsort((new_values, new_cells))
        new_cells, new_values = new_cells[order], new_values[order]
        first = np.concatenate([[True], new_cells[1:] != new_cells[:-1]])
        if (~first & np.concatenate([[False], new_values[1:] != new_values[:-1]])).any():
            return result(-1)                               # a cell given two values
        new_cells, new_values = new_cells[first], new_values[first]
        keys = (cell_units[new_cells] * side + new_values[:, None]).ravel()
        if placed[keys].any() or np.unique(keys).size < keys.size:
            return result(-1)                               # a value twice in a unit
        placed[keys] = True
        flat[new_cells] = new_values + 1
        undecided -= new_cells.size
        # removed candidates: the decided cells' other values, their value in their peers
        own = candidates[new_cells].copy()
        own[np.arange(new_cells.size), new_values] = False
        own_cell, own_value = np.nonzero(own)
        peers = units[cell_units[new_cells]].reshape(new_cells.size, -1)
        peer_values = np.broadcast_to(new_values[:, None], peers.shape)
        hit = candidates[peers, peer_values] & (peers != new_cells[:, None])
        gone = np.unique(np.concatenate([new_cells[own_cell] * side + own_value,
                                         peers[hit] * side + peer_values[hit]]))
        gone_cell, gone_value = np.divmod(gone, side)
        candidates[gone_cell, gone_value] = False
        cells_seen, lost = np.unique(gone_cell, return_counts=True)
        count[cells_seen] -= lost
        touched = (cell_units[gone_cell] * side + gone_value[:, None]).ravel()
        pairs_seen, lost = np.unique(touched, return_counts=True)
        places[pairs_seen] -= lost
