"""The one solver interface every entrant implements.

A solver is a small class with a registered ``name``, declared ``parameters``
(name -> default, optional choices) and one method to implement,
:meth:`Solver.search`. The base class does the rest, the same way for all:

* checks the clues first (inconsistent clues -> ``unsat`` without searching),
* times the phases (``check``, the solver's own phases, ``verify``),
* **never trusts the solver**: every returned grid goes through
  :func:`solvers.rules.is_solution_of`; a grid that fails is status ``wrong``.

``solve(grid)`` finds one solution; ``count(grid, limit)`` counts solutions,
stopping at ``limit`` when given.

Statuses: ``solved`` (a verified solution, or count >= 1), ``unsat`` (proved no
solution), ``unknown`` (a budget ran out before an answer), ``wrong`` (the
solver returned something that is not a solution of the puzzle).
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from formats.errors import RaceError
from formats.grid import Grid
from solvers import rules

SOLVED, UNSAT, UNKNOWN, WRONG = "solved", "unsat", "unknown", "wrong"


@dataclass
class RawAnswer:
    """What :meth:`Solver.search` returns: raw answers, not yet verified.

    ``count`` solutions were found (exact when ``complete``); ``solutions``
    holds up to ``keep`` of them as raw cell arrays; ``complete`` is False when
    a budget stopped the search before it was exhausted or hit the limit.
    """
    count: int
    solutions: list[np.ndarray] = field(default_factory=list)
    complete: bool = True
    counters: dict[str, int] = field(default_factory=dict)
    times: dict[str, float] = field(default_factory=dict)


@dataclass
class Result:
    """The verified answer of a solver on one grid."""
    status: str
    count: int
    limit: int | None
    limit_hit: bool
    solutions: list[Grid]
    counters: dict[str, int]
    times: dict[str, float]
    verified: bool
    message: str = ""

    @property
    def solution(self) -> Grid | None:
        return self.solutions[0] if self.solutions else None


class Solver:
    """Base class: subclasses set ``name``, ``parameters`` and implement
    :meth:`search`. Parameters are given as keyword arguments (strings from the
    command line are converted to the type of the default)."""

    name: ClassVar[str] = "?"
    #: parameter name -> (default, allowed choices or None)
    parameters: ClassVar[dict[str, tuple[Any, tuple | None]]] = {}

    def __init__(self, **params: Any) -> None:
        self.params: dict[str, Any] = {}
        for key, (default, choices) in self.parameters.items():
            self.params[key] = default
        for key, value in params.items():
            if key not in self.parameters:
                known = ", ".join(self.parameters) or "none"
                raise RaceError(f"solver {self.name!r} has no parameter {key!r} (parameters: {known})")
            default, choices = self.parameters[key]
            value = _convert(self.name, key, value, default)
            if choices is not None and value not in choices:
                raise RaceError(f"solver {self.name!r}: {key}={value!r} is not one of "
                                f"{', '.join(map(str, choices))}")
            self.params[key] = value

    @property
    def spec(self) -> str:
        """The entrant spec that recreates this solver, e.g. ``dlx:heuristic=first``."""
        changed = [f"{k}={v}" for k, v in self.params.items() if v != self.parameters[k][0]]
        return self.name + (":" + ",".join(changed) if changed else "")

    # -- to implement --------------------------------------------------------
    def search(self, grid: Grid, limit: int | None, keep: int) -> RawAnswer:
        """Search ``grid`` (whose clues are consistent) for solutions, stopping
        once ``limit`` are found (None = all). Return at most ``keep`` of them."""
        raise NotImplementedError

    def warmup(self) -> None:
        """Pay one-off costs (imports, JIT compilation) outside any measurement."""

    # -- provided ------------------------------------------------------------
    def solve(self, grid: Grid) -> Result:
        """Find one solution of ``grid``; the answer is verified."""
        return self._run(grid, limit=1, keep=1)

    def count(self, grid: Grid, limit: int | None = None, keep: int = 1) -> Result:
        """Count the solutions of ``grid``, stopping at ``limit`` (None = all)."""
        if limit is not None and limit < 1:
            raise RaceError(f"the solution limit must be >= 1, got {limit}")
        return self._run(grid, limit=limit, keep=keep)

    def _run(self, grid: Grid, limit: int | None, keep: int) -> Result:
        times: dict[str, float] = {}
        t0 = time.perf_counter()
        consistent = rules.is_consistent(grid)
        times["check"] = time.perf_counter() - t0
        if not consistent:
            return Result(UNSAT, 0, limit, False, [], {}, times, True, "the clues conflict")
        found = self.search(grid, limit, keep)
        times.update(found.times)
        t0 = time.perf_counter()
        grids = [Grid(grid.n, s) for s in found.solutions]
        bad = [g for g in grids if not rules.is_solution_of(grid, g)]
        times["verify"] = time.perf_counter() - t0
        limit_hit = limit is not None and found.count >= limit
        if bad:
            status, message = WRONG, f"solver {self.spec} returned a grid that is not a solution"
        elif found.count > 0:
            status, message = SOLVED, ""
            if not grids:  # a count without any grid to check
                status, message = WRONG, f"solver {self.spec} reported solutions but returned none"
        elif found.complete:
            status, message = UNSAT, ""
        else:
            status, message = UNKNOWN, "budget exhausted before an answer"
        return Result(status, found.count, limit, limit_hit, grids, dict(found.counters), times,
                      verified=not bad and status != WRONG, message=message)


#: the largest time limit (seconds) a parameter accepts: about 11 days.
MAX_SECONDS = 1e6

#: the largest count (node limit, ...) a parameter accepts: int64, as the kernels use.
MAX_COUNT = 2**63 - 1


def _convert(solver: str, key: str, value: Any, default: Any) -> Any:
    """``value`` as the type of ``default``, range-checked: numbers are
    non-negative, floats finite and at most MAX_SECONDS, ints at most MAX_COUNT;
    strings from the command line must be ASCII decimal (no ``1_0``, no inf/nan)."""
    if default is None or isinstance(default, str):
        return value
    if isinstance(value, str):
        value = _from_text(solver, key, value, default)
    if isinstance(default, bool):
        return value
    if isinstance(default, float):
        if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool) \
                or not math.isfinite(value) or not 0 <= value <= MAX_SECONDS:
            raise RaceError(f"solver {solver!r}: {key}={value!r} must be a finite number of "
                            f"seconds in 0..{MAX_SECONDS:g}")
        return float(value)
    if isinstance(default, int):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) \
                or not 0 <= value <= MAX_COUNT:
            raise RaceError(f"solver {solver!r}: {key}={value!r} must be an integer in "
                            f"0..{MAX_COUNT}")
        return int(value)
    return value


def _from_text(solver: str, key: str, value: str, default: Any) -> Any:
    if isinstance(default, bool):
        if value.lower() in ("1", "true", "yes", "on"):
            return True
        if value.lower() in ("0", "false", "no", "off"):
            return False
    elif isinstance(default, float):
        if _DECIMAL.fullmatch(value):
            return float(value)
        raise RaceError(f"solver {solver!r}: {key}={value!r} must be a finite number of "
                        f"seconds in 0..{MAX_SECONDS:g} (ASCII decimal)")
    elif isinstance(default, int) and re.fullmatch(r"-?[0-9]{1,30}", value):
        return int(value)
    raise RaceError(f"solver {solver!r}: {key}={value!r} is not a valid "
                    f"{type(default).__name__} (ASCII decimal)")


_DECIMAL = re.compile(r"[-+]?([0-9]{1,30}(\.[0-9]{0,30})?|\.[0-9]{1,30})([eE][-+]?[0-9]{1,4})?")
