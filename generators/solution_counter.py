"""The solution counters of one box size n: the contract (:class:`SolutionCounter`: propagation
first, then a backend) and the plain backends (backtracking, DLX, SAT, SAT on the reduced
encoding). :mod:`generators.counting` adds the default, budgeted ``robust`` counter and picks a
counter by name."""

from __future__ import annotations

import time
from collections import Counter

import numpy as np

from formats.grid import Grid
from generators.sat_questions import ReducedSAT
from solvers import rules
from solvers.backtracking import backtrack
from solvers.sat.counting import DEFAULT_BACKEND

#: Largest n at which the ``robust`` counter's SAT fallback is the incremental counter
#: on the full encoding; beyond, a fresh solver on the reduced encoding per question.
INCREMENTAL_MAX_N = 6


class SolutionCounter:
    """Exact answers to "how many solutions, up to a limit?" for box size ``n``.

    :meth:`count` and :meth:`solvable` settle what propagation can, and hand
    the reduced grid to the backend (:meth:`_count`, :meth:`_solvable`) only
    when it cannot. Cell arrays given in are never modified."""

    name = "?"

    def __init__(self, n: int) -> None:
        self.n = n
        self.calls = 0           # questions that reached a solver
        self.decided = 0         # questions settled by propagation alone
        self.by_backend: Counter[str] = Counter()
        self.seconds = 0.0       # time inside solver backends
        #: after :meth:`differs` answered yes: the solution it found (flat), when the backend
        #: gave one (None otherwise)
        self.witness: np.ndarray | None = None
        self._singles = rules.Candidates(n)

    def reduced(self, cells: np.ndarray) -> tuple[int, np.ndarray]:
        """Singles to the fixpoint on a copy of ``cells``: (undecided cells or
        -1 on a contradiction, the reduced int32 grid)."""
        left = self._singles.start(np.asarray(cells, dtype=np.int32))
        return left, self._singles.cells.reshape(np.shape(cells)).copy()

    def count(self, cells: np.ndarray, limit: int = 2) -> int:
        """The number of solutions of ``cells``, capped at ``limit`` (>= 1)."""
        left, work = self.reduced(cells)
        if left <= 0:
            self.decided += 1
            return 0 if left < 0 else 1
        self.calls += 1
        t0 = time.perf_counter()
        try:
            return self._count(work, limit)
        finally:
            self.seconds += time.perf_counter() - t0

    def solvable(self, cells: np.ndarray) -> tuple[bool, np.ndarray | None]:
        """(has a solution, one solution when the backend gives one cheaply, else None)."""
        left, work = self.reduced(cells)
        if left <= 0:
            self.decided += 1
            return (False, None) if left < 0 else (True, work)
        self.calls += 1
        t0 = time.perf_counter()
        try:
            return self._solvable(work)
        finally:
            self.seconds += time.perf_counter() - t0

    def differs(self, cells: np.ndarray, c: int, values: list[int],
                hint: np.ndarray | None = None, ahead: np.ndarray | None = None,
                settled: np.ndarray | None = None) -> bool:
        """Has ``cells`` a solution in which the empty flat cell ``c`` holds
        one of ``values``? (The removal phase's question: see
        :func:`generators.unique.still_unique`; ``hint`` is a known solution
        that backends may use to guide their search; ``ahead``, the flat cells
        the removal phase will empty next, in order, lets a backend prepare for
        the questions to come; ``settled``, flat cells whose clues are kept for good,
        filled in every question from now on.) One :meth:`solvable` per value."""
        flat = cells.reshape(-1)
        self.witness = None
        try:
            for v in values:
                flat[c] = v
                ok, found = self.solvable(cells)
                if ok:
                    self.witness = None if found is None else np.asarray(found).reshape(-1).copy()
                    return True
            return False
        finally:
            flat[c] = 0

    def stats(self) -> dict[str, int]:
        """Work so far: solver calls, questions settled by propagation, calls per backend."""
        out = {"calls": self.calls, "decided": self.decided}
        out.update({f"calls_{k}": v for k, v in sorted(self.by_backend.items())})
        return out

    def warmup(self) -> None:
        """Compile the kernels, on a grid any backend settles at once: a solved grid
        with the first two rows emptied (every empty cell has two candidates, so
        propagation alone cannot settle it). Not an empty grid: at n >= 7 DLX runs
        out of its budget there and the SAT fallback would be built for nothing."""
        cells = rules.pattern_solution(self.n)
        cells[:2] = 0
        self._count(cells, 2)
        self._solvable(cells)
        self.by_backend.clear()
        self.reduced(cells)

    def close(self) -> None:
        """Release solver resources (SAT solvers)."""

    def __enter__(self) -> SolutionCounter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- backends: called on grids propagation could not settle ------------
    def _count(self, cells: np.ndarray, limit: int) -> int:
        raise NotImplementedError

    def _solvable(self, cells: np.ndarray) -> tuple[bool, np.ndarray | None]:
        raise NotImplementedError


class BacktrackingCounter(SolutionCounter):
    """Algorithm 1's compiled kernel, no budget (the reference)."""

    name = "backtracking"

    def _run(self, cells: np.ndarray, limit: int) -> tuple[int, np.ndarray]:
        self.by_backend["backtracking"] += 1
        out = np.zeros((1,) + cells.shape, dtype=cells.dtype)
        found, _, _, _ = backtrack(cells, self.n, limit, 0, 1, out)
        return int(found), out[0]

    def _count(self, cells: np.ndarray, limit: int) -> int:
        return self._run(cells, limit)[0]

    def _solvable(self, cells: np.ndarray) -> tuple[bool, np.ndarray | None]:
        found, sol = self._run(cells, 1)
        return (True, sol) if found else (False, None)


class DLXCounter(SolutionCounter):
    """Dancing links (:func:`solvers.exact_cover.dlx.count_sudoku`, one shared matrix per n).
    :meth:`try_count` / :meth:`try_solvable` take a node budget and may give up."""

    name = "dlx"

    def __init__(self, n: int) -> None:
        super().__init__(n)
        from solvers.exact_cover.dlx import count_sudoku
        self._count_sudoku = count_sudoku

    def try_count(self, cells: np.ndarray, limit: int, node_limit: int) -> int | None:
        """The capped count, or None when ``node_limit`` nodes did not settle it."""
        self.by_backend["dlx"] += 1
        found, _, complete = self._count_sudoku(Grid(self.n, cells), limit, node_limit)
        if not complete and found < limit:
            return None
        return int(found)

    def try_solvable(self, cells: np.ndarray, node_limit: int) -> tuple[bool, np.ndarray | None] | None:
        """(solvable, solution) or None when ``node_limit`` nodes did not settle it."""
        self.by_backend["dlx"] += 1
        out = np.empty_like(cells)
        found, _, complete = self._count_sudoku(Grid(self.n, cells), 1, node_limit, out)
        if found:
            return True, out
        return (False, None) if complete else None

    def _count(self, cells: np.ndarray, limit: int) -> int:
        found = self.try_count(cells, limit, 0)
        assert found is not None                    # no node limit: always settled
        return found

    def _solvable(self, cells: np.ndarray) -> tuple[bool, np.ndarray | None]:
        answer = self.try_solvable(cells, 0)
        assert answer is not None                   # no node limit: always settled
        return answer


class SATCounter(SolutionCounter):
    """The incremental SAT counter (:class:`solvers.sat.solver.IncrementalCounter`):
    one base encoding per n, the clues as assumptions. Gives no witness."""

    name = "sat"

    def __init__(self, n: int, backend: str = DEFAULT_BACKEND) -> None:
        super().__init__(n)
        from solvers.sat.solver import IncrementalCounter
        self._sat = IncrementalCounter(n, backend=backend)

    def _count(self, cells: np.ndarray, limit: int) -> int:
        self.by_backend["sat"] += 1
        return int(self._sat.count(Grid(self.n, cells), limit=limit))

    def _solvable(self, cells: np.ndarray) -> tuple[bool, np.ndarray | None]:
        return self._count(cells, 1) >= 1, None

    def close(self) -> None:
        self._sat.close()


class ReducedSATCounter(SolutionCounter):
    """A fresh SAT solver per question on the ``reduced`` encoding (see
    :class:`ReducedSAT`): the fallback of :class:`RobustCounter` beyond
    :data:`INCREMENTAL_MAX_N`, where the full encoding of the incremental counter
    is millions of clauses (n = 7: ~11M, about a minute to build)."""

    name = "sat_reduced"

    def __init__(self, n: int, backend: str = DEFAULT_BACKEND) -> None:
        super().__init__(n)
        self._reduced = ReducedSAT(n, backend)

    def _count(self, cells: np.ndarray, limit: int) -> int:
        self.by_backend["sat_reduced"] += 1
        return self._reduced.count(cells, limit)

    def _solvable(self, cells: np.ndarray) -> tuple[bool, np.ndarray | None]:
        self.by_backend["sat_reduced"] += 1
        return self._reduced.solvable(cells)
