"""Algorithm 2 of the assignment (Task 7): random Sudoku with a unique solution.

    fill:    for each cell (i, j) in row-major order:
                 do draw k in [n²]; M[i,j] <- k  while M has no solution
    remove:  while M has exactly one solution:
                 draw (i, j) at random; k <- M[i,j]; empty M[i,j]
             M[i,j] <- k          (restore the clue whose removal broke uniqueness)

The output distribution is exactly Algorithm 2's; only wasted work is skipped:

* **Fill.** "Draw k uniformly with replacement until the grid stays solvable"
  picks k uniformly among the *valid* values (those that keep M solvable).
  We draw the candidates in a uniformly random order *without* replacement
  (a random permutation) and take the first valid one: again uniform among
  the valid values. Values that CanPlace rejects give a grid with no solution,
  so they are never valid and are skipped without a solver call. A solution
  found along the way is kept as a *witness*: a value equal to the witness's
  is valid with no call (the witness is a solution of the new grid).
* **Remove.** Algorithm 2 draws (i, j) among all cells; a draw of an empty
  cell changes nothing (k = 0, M unchanged, still unique) and is followed by
  another draw, so the first *filled* cell drawn is uniform among the filled
  cells. We therefore draw among the filled cells only, i.e. visit the cells
  in a uniformly random permutation. (Literally, Algorithm 2 loops forever
  when every cell has been emptied and M is still unique; that happens only
  for n = 1, where we return the empty grid.)

The loop stops at the first removal that breaks uniqueness. Just before the
restore, M has >= 2 solutions: that grid is the ``multi`` family. Continuing
the permutation past failures (keeping every clue whose removal breaks
uniqueness) gives a *minimal* puzzle (:func:`remove_clues` with
``minimal=True``): a clue necessary for a superset of the final clues is
necessary for the final clues too, so one pass suffices.

Randomness comes from the numpy Generators given by the caller.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from formats.errors import RaceError
from generators import solved_grids, speculative_removal
from generators.counting import SolutionCounter
from solvers import rules
from solvers.rules import pattern_solution

#: how the solved grid of a puzzle is made: Algorithm 2's fill phase, or one of
#: :data:`generators.solved_grids.FILLS` (distributions documented there).
FILLS: tuple[str, ...] = ("algorithm2", *solved_grids.FILLS)
#: Algorithm 2's fill (a solvability question per cell, n⁴ of them) is the default up
#: to this n; beyond it the default is ``latin`` (n = 6 took 77 s with Algorithm 2).
ALGORITHM2_MAX_N = 5


def default_fill(n: int) -> str:
    """The fill used when none is named: ``algorithm2`` up to :data:`ALGORITHM2_MAX_N`, else ``latin``."""
    return "algorithm2" if n <= ALGORITHM2_MAX_N else "latin"


def solved(n: int, rng: np.random.Generator, counter: SolutionCounter | None, fill: str,
           stats: FillStats | None = None) -> np.ndarray:
    """A random solved (n², n²) grid by ``fill`` (one of :data:`FILLS`), drawn from ``rng``;
    ``counter`` is needed by the ``algorithm2`` fill only."""
    if fill == "algorithm2":
        if counter is None:
            raise ValueError("the algorithm2 fill needs a solution counter")
        return fill_grid(n, rng, counter, stats)
    if fill not in FILLS:
        raise RaceError(f"unknown fill {fill!r} (fills: {', '.join(FILLS)})")
    t0 = time.perf_counter()
    grid = solved_grids.solved_grid(n, rng, fill).cells.astype(np.int32)
    if stats is not None:
        stats.seconds += time.perf_counter() - t0
    return grid


@dataclass
class FillStats:
    draws: int = 0          # values tried (after CanPlace)
    witness_hits: int = 0   # values accepted because the witness already had them
    seconds: float = 0.0


def fill_grid(n: int, rng: np.random.Generator, counter: SolutionCounter,
              stats: FillStats | None = None) -> np.ndarray:
    """The fill phase of Algorithm 2: a random solved (n², n²) grid.

    Cell by cell in row-major order, the value is uniform among the values
    that keep the grid solvable (see the module docstring)."""
    stats = stats if stats is not None else FillStats()
    t0 = time.perf_counter()
    side = n * n
    cells = np.zeros((side, side), dtype=np.int32)
    flat = cells.reshape(-1)
    witness = pattern_solution(n).reshape(-1)          # any solution of the empty grid
    for c in range(side * side):
        candidates = rules.cell_candidates(cells, n, c // side, c % side)    # CanPlace
        for k in candidates[rng.permutation(candidates.size)]:
            stats.draws += 1
            flat[c] = k
            if witness[c] == k:
                stats.witness_hits += 1
                break
            ok, found = counter.solvable(cells)
            if ok:
                witness = found.reshape(-1) if found is not None else np.zeros_like(flat)
                break
        else:  # pragma: no cover - the grid before this cell was solvable
            raise AssertionError("no valid value for a cell of a solvable grid")
    stats.seconds += time.perf_counter() - t0
    return cells


@dataclass
class RemoveResult:
    """The removal phase's output: ``puzzle`` (unique); ``multi`` = the grid
    just before the restore (>= 2 solutions; None when every cell was removed);
    ``tested`` = removals tried; ``speculation`` = the figures of the worker processes'
    part (:func:`generators.speculative_removal.finish`), empty when there was none."""
    puzzle: np.ndarray
    multi: np.ndarray | None
    tested: int = 0
    seconds: float = 0.0
    speculation: dict[str, float] = field(default_factory=dict)


def remove_clues(solution: np.ndarray, n: int, rng: np.random.Generator, counter: SolutionCounter,
                 minimal: bool = False, workers: int = 1,
                 speculate_after: float = speculative_removal.SPECULATE_AFTER_S) -> RemoveResult:
    """The removal phase of Algorithm 2 on a solved grid.

    Visits the cells in a random permutation, emptying each while the grid
    keeps exactly one solution (checked by :func:`still_unique`). Stops at the first removal that breaks
    uniqueness (Algorithm 2) and restores that clue; with ``minimal`` it
    restores the clue and goes on through the whole permutation.

    With ``minimal`` and ``workers`` > 1, the rest of the permutation goes to that many
    worker processes after the first question that took ``speculate_after`` seconds or
    more (:mod:`generators.speculative_removal`): the same puzzle, sooner."""
    t0 = time.perf_counter()
    cells = solution.astype(np.int32, copy=True)
    flat = cells.reshape(-1)
    multi = None
    tested = 0
    speculation: dict[str, float] = {}
    order = rng.permutation(flat.size)
    asked = t0
    for i, c in enumerate(order):
        if minimal and workers > 1 and i and time.perf_counter() - asked >= speculate_after:
            kept, speculation = speculative_removal.finish(cells, solution, order, i, n, counter,
                                                           workers, still_unique)
            tested += len(kept)
            if multi is None and any(kept):
                first = i + kept.index(True)                # the first removal that failed
                multi = solution.astype(np.int32, copy=True)
                multi.reshape(-1)[order[:first + 1]] = 0
            break
        k = flat[c]
        flat[c] = 0
        tested += 1
        asked = time.perf_counter()
        settled = order[:i][flat[order[:i]] != 0]          # the clues kept so far
        if still_unique(cells, c, k, n, counter, solution, order[i + 1:], settled):
            continue
        if multi is None:
            multi = cells.copy()
        flat[c] = k
        if not minimal:
            break
    return RemoveResult(cells, multi, tested, time.perf_counter() - t0, speculation)


def still_unique(cells: np.ndarray, c: int, k: int, n: int, counter: SolutionCounter,
                 solution: np.ndarray | None = None, ahead: np.ndarray | None = None,
                 settled: np.ndarray | None = None) -> bool:
    """Does ``cells`` (a unique puzzle whose solution has k at flat cell c, now
    emptied) still have exactly one solution?

    A second solution differs from the known one at c (a solution with k at c
    solves the puzzle before the removal, which is unique). So the answer is
    "no" iff some value v != k that CanPlace allows at c leaves a solvable
    grid: a few yes/no questions on grids with one more clue, which
    propagation mostly settles, instead of counting to 2 on the emptier grid.
    ``counter.count(cells, 2) == 1`` gives the same answer. ``ahead`` (the cells
    the removal phase visits next) and ``settled`` (the cells whose clues it has kept for
    good) go to :meth:`SolutionCounter.differs`."""
    side = n * n
    values = [v for v in rules.cell_candidates(cells, n, c // side, c % side).tolist() if v != k]
    return not counter.differs(cells, c, values, solution, ahead, settled)


@dataclass
class UniqueResult:
    """One run of Algorithm 2: the puzzle, its solution, the >=2-solution grid
    before the restore, and where the time went."""
    puzzle: np.ndarray
    solution: np.ndarray
    multi: np.ndarray | None
    stats: dict[str, float] = field(default_factory=dict)


def generate_unique(n: int, fill_rng: np.random.Generator, remove_rng: np.random.Generator,
                    counter: SolutionCounter, minimal: bool = False,
                    fill: str = "algorithm2", workers: int | None = None) -> UniqueResult:
    """Algorithm 2 (``minimal``: carried on to a minimal puzzle), its solved grid
    made by ``fill`` (Algorithm 2's own fill phase by default; see :func:`solved`).

    ``fill_rng`` drives the fill phase, ``remove_rng`` the removal order; the
    counter only changes the speed, never the result, and so do ``workers`` (processes
    for a minimal puzzle's removal phase; None: the cores this process may use)."""
    if workers is None:
        workers = speculative_removal.default_workers()
    calls0, decided0 = counter.calls, counter.decided
    fstats = FillStats()
    solution = solved(n, fill_rng, counter, fill, fstats)
    fill_calls = counter.calls - calls0
    removed = remove_clues(solution, n, remove_rng, counter, minimal=minimal, workers=workers)
    stats = {
        "fill_seconds": fstats.seconds, "remove_seconds": removed.seconds,
        "fill_calls": fill_calls, "remove_calls": counter.calls - calls0 - fill_calls,
        "calls": counter.calls - calls0, "decided": counter.decided - decided0,
        "draws": fstats.draws, "witness_hits": fstats.witness_hits, "removals_tested": removed.tested,
        **removed.speculation,
    }
    return UniqueResult(removed.puzzle, solution, removed.multi, stats)
