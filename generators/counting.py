"""How many solutions, up to a limit? The pluggable counters behind the generators.

Algorithm 2 asks two questions again and again: "does M still have a solution?"
(fill phase, line 11) and "does M have exactly one solution?" (removal phase,
line 14). A :class:`SolutionCounter` answers both, exactly, for one box size n:

* :meth:`SolutionCounter.count` -- the number of solutions, capped at ``limit``;
* :meth:`SolutionCounter.solvable` -- is there a solution? (and one, when the
  backend gives it for free: a witness the fill phase reuses).

Every question first goes through the rules core's propagation
(:class:`solvers.rules.Candidates`), a cheap exact pre-check: naked and hidden
singles to a fixpoint. Forced moves do not change the set of solutions, so
a contradiction proves "none", a full grid proves "exactly one", and otherwise
the reduced grid (same solutions, fewer empties) goes to a solver backend:

``backtracking``  Algorithm 1's kernel (:func:`solvers.backtracking.backtrack`);
                  slow, but the reference.
``dlx``           dancing links (:func:`solvers.exact_cover.dlx.count_sudoku`), no budget.
``sat``           the incremental SAT counter (:class:`solvers.sat.solver.IncrementalCounter`):
                  one fixed encoding, the clues as assumptions.
``robust``        the default: DLX with a node budget, then SAT for the grids
                  on which DLX ran out (DLX is fastest on average, but has heavy
                  tails on near-empty large grids; SAT has none of that size).

Every backend is exact (a budgeted DLX run that gives up is never taken as an
answer), so the choice changes the speed of a generator, never its output.
The counters count their work: ``calls`` (solver invocations), ``decided``
(questions settled by propagation alone), and ``by_backend``.
"""

from __future__ import annotations

import time

import numpy as np

from formats.errors import RaceError
from generators.sat_questions import WINDOW_OPTIONS, ReducedSAT, WindowSAT  # noqa: F401
from generators.solution_counter import (  # noqa: F401  (the counters, by this name too)
    INCREMENTAL_MAX_N,
    BacktrackingCounter,
    DLXCounter,
    ReducedSATCounter,
    SATCounter,
    SolutionCounter,
)

#: counter backend names accepted by :func:`make_counter`
COUNTER_BACKENDS = ("auto", "robust", "dlx", "sat", "backtracking")

#: DLX node budget of the ``robust`` counter before it hands a grid to SAT.
DLX_NODE_BUDGET = 20_000
#: After this many budgeted DLX runs in a row ran out in :meth:`RobustCounter.differs`,
#: its questions go straight to SAT, with one DLX probe every :data:`DLX_PROBE_EVERY`
#: questions (an answer resumes DLX). Measured on a minimal 25x25 (seed 0): after the
#: first ~350 runs every one ran out (1,221 runs, 16 s of 50 s), as the removal phase
#: only empties the grid further.
DLX_GIVE_UP_AFTER = 32
DLX_PROBE_EVERY = 16
#: Cells per window of :class:`WindowSAT` (the cell asked about and the next ones the
#: removal phase will visit). Measured on the SAT questions of minimal 25x25 puzzles
#: (CPU, replayed, CaDiCaL stable mode in every case): seed 4: 1 cell (a fresh solver per
#: question) 54 s, 16: 37.3 s, 32: 37.0 s, 64: 51.8 s, 128: 66.7 s; seed 1: 1: 20.8 s,
#: 32: 11.8 s, 64: 10.6 s, 300 (one solver): 20.3 s. Larger windows keep more learnt
#: clauses but make every search slower (more free cells, more assumptions).
WINDOW_CELLS = 32


class RobustCounter(SolutionCounter):
    """DLX with a node budget first; SAT (complete, and without DLX's heavy
    tails at these sizes) for the grids on which the budget ran out.

    Measured (n = 5, 6): on the near-empty grids of the fill phase the
    incremental counter (one encoding, clues as assumptions, learnt clauses
    kept) wins; on the removal phase's "another value here?" questions a fresh
    solver on the reduced encoding is 2-3x faster (n = 5 minimal: 125 s -> 30 s).
    Plain DLX when SAT is missing."""

    name = "robust"

    def __init__(self, n: int, node_budget: int = DLX_NODE_BUDGET) -> None:
        super().__init__(n)
        self.node_budget = node_budget
        self._dlx = DLXCounter(n)
        self._dlx.by_backend = self.by_backend
        self._sat: SolutionCounter | None = None
        self._reduced: ReducedSAT | None = None
        self._window: WindowSAT | None = None
        self.windows = 0             # WindowSAT solvers built
        self.dlx_misses = 0          # budgeted DLX runs in a row that ran out (differs)
        self.dlx_skips = 0           # differs questions that skipped DLX since

    def _fallback(self) -> SolutionCounter:
        if self._sat is None:
            try:
                self._sat = SATCounter(self.n) if self.n <= INCREMENTAL_MAX_N \
                    else ReducedSATCounter(self.n)
            except ImportError:
                self._sat = self._dlx
            self._sat.by_backend = self.by_backend
        return self._sat

    def _small(self) -> ReducedSAT | None:
        """The reduced-encoding solver (None when SAT is missing)."""
        if self._reduced is None:
            try:
                self._reduced = ReducedSAT(self.n)
            except ImportError:
                return None
        return self._reduced

    def _window_for(self, cells: np.ndarray, c: int, ahead: np.ndarray) -> WindowSAT:
        """The window solver that can answer for cell ``c`` of ``cells``: the current
        one, else a new one over c and the next cells of ``ahead``."""
        if self._window is None or not self._window.covers(cells, c):
            if self._window is not None:
                self._window.close()
            window = np.concatenate([[c], np.asarray(ahead, dtype=np.int64)[:WINDOW_CELLS - 1]])
            self._window = WindowSAT(self.n, cells, window)
            self.windows += 1
        return self._window

    def _count(self, cells: np.ndarray, limit: int) -> int:
        found = self._dlx.try_count(cells, limit, self.node_budget)
        return found if found is not None else self._fallback()._count(cells, limit)

    def _solvable(self, cells: np.ndarray) -> tuple[bool, np.ndarray | None]:
        answer = self._dlx.try_solvable(cells, self.node_budget)
        return answer if answer is not None else self._fallback()._solvable(cells)

    def differs(self, cells: np.ndarray, c: int, values: list[int],
                hint: np.ndarray | None = None, ahead: np.ndarray | None = None,
                settled: np.ndarray | None = None) -> bool:
        """Per value: propagation, then budgeted DLX; the values DLX could not
        settle go to ONE SAT question (cell c restricted to them, phases from
        ``hint``), asked of a :class:`WindowSAT` when ``ahead`` is given (a
        fresh :class:`ReducedSAT` otherwise; ``settled`` goes to the window, see
        :meth:`WindowSAT.settle`). Once DLX has run out :data:`DLX_GIVE_UP_AFTER` times in a row,
        the values go to SAT without it, but for a probe every
        :data:`DLX_PROBE_EVERY` questions. Exact either way: only the speed changes."""
        flat = cells.reshape(-1)
        self.witness = None
        open_values = []
        use_dlx = self.dlx_misses < DLX_GIVE_UP_AFTER or self.dlx_skips % DLX_PROBE_EVERY == 0
        if self.dlx_misses >= DLX_GIVE_UP_AFTER:
            self.dlx_skips += 1
        try:
            for v in values:
                flat[c] = v
                left, work = self.reduced(cells)
                if left <= 0:
                    self.decided += 1
                    if left == 0:
                        self.witness = work.reshape(-1).copy()
                        return True
                    continue
                if not use_dlx:
                    open_values.append(v)
                    continue
                self.calls += 1
                t0 = time.perf_counter()
                answer = self._dlx.try_solvable(work, self.node_budget)
                self.seconds += time.perf_counter() - t0
                if answer is None:
                    open_values.append(v)
                    self.dlx_misses += 1
                    use_dlx = self.dlx_misses < DLX_GIVE_UP_AFTER
                    continue
                self.dlx_misses = self.dlx_skips = 0
                if answer[0]:
                    self.witness = np.asarray(answer[1]).reshape(-1).copy()
                    return True
        finally:
            flat[c] = 0
        if not open_values:
            return False
        t0 = time.perf_counter()
        try:
            small = self._small()
            if small is not None and ahead is not None:
                self.by_backend["sat_window"] += 1
                window = self._window_for(cells, c, ahead)
                if settled is not None:
                    window.settle(cells, settled)
                ok, found = window.solvable(cells, c, open_values, hint)
            elif small is not None:
                self.by_backend["sat_reduced"] += 1
                ok, found = small.solvable(cells, c, open_values, hint)
            else:
                return any(self._fallback()._solvable(_with(cells, c, v))[0] for v in open_values)
            if ok:
                self.witness = np.asarray(found).reshape(-1).copy()
            return ok
        finally:
            self.seconds += time.perf_counter() - t0

    def close(self) -> None:
        if self._sat is not None:
            self._sat.close()
        if self._window is not None:
            self._window.close()
            self._window = None


def _with(cells: np.ndarray, c: int, v: int) -> np.ndarray:
    out = cells.copy()
    out.reshape(-1)[c] = v
    return out


_BACKENDS = {"backtracking": BacktrackingCounter, "dlx": DLXCounter, "sat": SATCounter,
          "robust": RobustCounter}


def make_counter(n: int, name: str = "auto") -> SolutionCounter:
    """A counter for box size ``n`` by name (see :data:`COUNTER_BACKENDS`); ``auto``
    is ``robust``, or ``backtracking`` when the DLX solver is not importable."""
    if name not in COUNTER_BACKENDS:
        raise RaceError(f"unknown counter {name!r} (known: {', '.join(COUNTER_BACKENDS)})")
    if name == "auto":
        try:
            import solvers.exact_cover.dlx  # noqa: F401
            name = "robust"
        except ImportError:
            name = "backtracking"
    try:
        return _BACKENDS[name](n)
    except ImportError as exc:
        raise RaceError(f"counter {name!r} is not available: {exc}") from None
