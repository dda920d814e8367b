"""Misbehaving solvers for the harness tests (in :func:`fake_registry`, used by the tests only).

Imported by the harness's worker processes as ``tests.fake_solvers`` (the project root is on
sys.path under pytest, and the harness hands the parent's sys.path to workers).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

import numpy as np

from formats.grid import Grid
from solvers.interface import RawAnswer, Solver
from solvers.registry import BUILTIN, Registry


class Hang(Solver):
    """Never returns (like a numba kernel that cannot be interrupted)."""
    name = "hang"

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        while True:
            time.sleep(0.05)


class HangChild(Solver):
    """Starts an external process (like kissat) and waits for it forever; writes the
    child's pid to the file named by the ``pidfile`` parameter."""
    name = "hang-child"
    parameters = {"pidfile": ("", None)}

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        child = subprocess.Popen(["sleep", "1000"])
        with open(self.params["pidfile"], "w") as f:
            f.write(str(child.pid))
        child.wait()
        return RawAnswer(0, complete=False)


class Spin(Solver):
    """Burns CPU and never returns (a search that will not finish in time)."""
    name = "spin"

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        while True:
            pass


class Wrong(Solver):
    """Returns the puzzle with every empty cell set to 1: not a solution."""
    name = "wrong"

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        cells = grid.cells.copy()
        cells[cells == 0] = 1
        return RawAnswer(1, [cells], complete=True, counters={"nodes": 7})


class Crash(Solver):
    """Dies of a segmentation fault in the middle of the search."""
    name = "crash"

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(5)
        return RawAnswer(0)


class Hog(Solver):
    """Touches ``mb`` megabytes of memory and holds them."""
    name = "hog"
    parameters = {"mb": (400, None)}

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        block = np.ones(int(self.params["mb"]) * 1024 * 1024 // 8)
        time.sleep(10)
        return RawAnswer(int(block[0]) - 1)


class Slow(Solver):
    """Backtracking that first sleeps ``delay`` seconds (a campaign slow enough to interrupt);
    with ``marks`` (a directory), each search first leaves a file there, so a test knows a
    cell is under way."""
    name = "slow"
    parameters = {"delay": (0.3, None), "marks": ("", None)}

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        from solvers.backtracking import Backtracking
        if self.params["marks"]:
            import os
            mark = os.path.join(self.params["marks"], f"{os.getpid()}-{time.monotonic_ns()}")
            open(mark, "w").close()
        time.sleep(float(self.params["delay"]))
        return Backtracking().search(grid, limit, keep)


class Jittery(Solver):
    """Backtracking that sleeps ``delay`` seconds, twice as long every other call: repeats that
    disagree by far more than 10 %."""
    name = "jittery"
    parameters = {"delay": (0.05, None)}
    calls = 0

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        from solvers.backtracking import Backtracking
        Jittery.calls += 1
        time.sleep(float(self.params["delay"]) * (2 if Jittery.calls % 2 else 1))
        return Backtracking().search(grid, limit, keep)


class Slowed(Solver):
    """Backtracking that sleeps ``delay`` seconds times the factor in the environment
    variable ``SUDOKU_RACE_TEST_SLOWDOWN`` (default 1): the same command, a slower entrant."""
    name = "slowed"
    parameters = {"delay": (0.05, None)}

    def warmup(self) -> None:
        from solvers.backtracking import Backtracking
        Backtracking().warmup()                 # compiled before any measurement

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        import os

        from solvers.backtracking import Backtracking
        factor = float(os.environ.get("SUDOKU_RACE_TEST_SLOWDOWN", "1"))
        time.sleep(float(self.params["delay"]) * factor)
        return Backtracking().search(grid, limit, keep)


class BadWarmup(Solver):
    """Cannot start: its warm-up raises (like a missing binary found only at run time)."""
    name = "bad-warmup"

    def warmup(self) -> None:
        raise RuntimeError("no engine in this worker")

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        return RawAnswer(0)


class FlakyWarmup(Solver):
    """Backtracking whose warm-up fails while the file named by ``flag`` exists (a binary
    missing for a while, a full disk at start-up)."""
    name = "flaky-warmup"
    parameters = {"flag": ("", None)}

    def warmup(self) -> None:
        if os.path.exists(self.params["flag"]):
            raise RuntimeError("engine not installed yet")

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        from solvers.backtracking import Backtracking
        return Backtracking().search(grid, limit, keep)


# -- liars: each lies in one way a solver can; the referee must end every one `wrong` ---------

def _solution(grid: Grid) -> np.ndarray:
    """A true solution of ``grid`` (DLX), the raw material of the cleverer lies."""
    from solvers.exact_cover.dlx import DLX
    return DLX().search(grid, 1, 1).solutions[0]


def pattern_grid(n: int) -> np.ndarray:
    """A valid solved grid of box size n (the classic shifted pattern)."""
    side = n * n
    r, c = np.indices((side, side))
    return ((n * (r % n) + r // n + c) % side + 1).astype(np.int32)


class LiarUnsat(Solver):
    """Answers "no solution" to every puzzle."""
    name = "liar-unsat"

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        return RawAnswer(0, complete=True)


class LiarOtherPuzzle(Solver):
    """Returns a valid solved grid that ignores the clues (the solution of another puzzle)."""
    name = "liar-other"

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        return RawAnswer(1, [pattern_grid(grid.n)], complete=True)


class LiarCountNoGrid(Solver):
    """Claims one solution and returns no grid."""
    name = "liar-count"

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        return RawAnswer(1, [], complete=True)


class LiarTooFew(Solver):
    """A true solution, but always the count 1 with the search claimed complete (too small
    for any puzzle with several solutions)."""
    name = "liar-too-few"

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        return RawAnswer(1, [_solution(grid)], complete=True)


class LiarBox(Solver):
    """A true solution with two rows of different bands swapped: rows and columns stay
    valid, the boxes break."""
    name = "liar-box"

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        cells = _solution(grid).copy()
        cells[[0, grid.n]] = cells[[grid.n, 0]]
        return RawAnswer(1, [cells], complete=True)


#: the liars, each raced alone and beside honest entrants by the referee's tests
LIARS = ("liar-unsat", "liar-other", "liar-count", "liar-box")


FAKES: dict[str, tuple[str, dict[str, str]]] = {
    "liar-unsat": ("tests.fake_solvers:LiarUnsat", {}),
    "liar-other": ("tests.fake_solvers:LiarOtherPuzzle", {}),
    "liar-count": ("tests.fake_solvers:LiarCountNoGrid", {}),
    "liar-too-few": ("tests.fake_solvers:LiarTooFew", {}),
    "liar-box": ("tests.fake_solvers:LiarBox", {}),
    "bad-warmup": ("tests.fake_solvers:BadWarmup", {}),
    "flaky-warmup": ("tests.fake_solvers:FlakyWarmup", {}),
    "hang": ("tests.fake_solvers:Hang", {}),
    "spin": ("tests.fake_solvers:Spin", {}),
    "hang-child": ("tests.fake_solvers:HangChild", {}),
    "wrong": ("tests.fake_solvers:Wrong", {}),
    "crash": ("tests.fake_solvers:Crash", {}),
    "hog": ("tests.fake_solvers:Hog", {}),
    "slow": ("tests.fake_solvers:Slow", {}),
    "jittery": ("tests.fake_solvers:Jittery", {}),
    "slowed": ("tests.fake_solvers:Slowed", {}),
}


def fake_registry(base: Registry = BUILTIN) -> Registry:
    """``base`` plus the fake solvers above (``race run`` takes it as ``obj={"registry": ...}``)."""
    registry = base
    for name, (target, fixed) in FAKES.items():
        registry = registry.register(name, target, fixed)
    return registry
