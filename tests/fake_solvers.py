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
    """Backtracking that first sleeps ``delay`` seconds (a campaign slow enough to interrupt)."""
    name = "slow"
    parameters = {"delay": (0.3, None)}

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        from solvers.backtracking import Backtracking
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


FAKES = {
    "bad-warmup": ("tests.fake_solvers:BadWarmup", {}),
    "flaky-warmup": ("tests.fake_solvers:FlakyWarmup", {}),
    "hang": ("tests.fake_solvers:Hang", {}),
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
