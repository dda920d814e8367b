"""The one solver interface every entrant implements.

A solver is a small class with a registered ``name``, declared ``parameters``
(name -> default, optional choices) and one method to implement,
:meth:`Solver.search`. The base class does the rest, the same way for all:

* pays the one-off costs first, once per solver object (:meth:`Solver.load`: imports,
  compiled kernels read from numba's cache or compiled, a native build), timed as the
  phase ``load`` of the first answer, never as its search,
* checks the clues (inconsistent clues -> ``unsat`` without searching),
* times the phases (``load``, ``check``, the solver's own phases, ``verify``),
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

from formats.errors import RaceError, is_interrupt
from formats.grid import Grid
from formats.suggestions import did_you_mean
from solvers import rules
from solvers.status import Status

#: the statuses of an answer (plain words, the values of :class:`solvers.status.Status`)
SOLVED, UNSAT, UNKNOWN, WRONG = (Status.SOLVED.value, Status.UNSAT.value, Status.UNKNOWN.value,
                                 Status.WRONG.value)
#: the message of an UNSAT found by the rules core itself (IsSolved/CanPlace), not a solver
CLUES_CONFLICT = "the clues conflict"


class Stop(BaseException):
    """Raised from outside a search (e.g. by a signal handler at a wall-time limit) to stop
    it: never taken for the solver's own failure, and never caught by the interface."""


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
    #: False when ``count`` is only a lower bound (a budget, or a solver that cannot count,
    #: stopped before the search was exhausted or reached the limit)
    complete: bool = True

    @property
    def solution(self) -> Grid | None:
        return self.solutions[0] if self.solutions else None


class Solver:
    """Base class: subclasses set ``name``, ``parameters`` and implement
    :meth:`search`. Parameters are given as keyword arguments (strings from the
    command line are converted to the type of the default)."""

    name: ClassVar[str] = "?"
    #: the family of method the solver belongs to: ``search`` (backtracking), ``exact-cover``
    #: (DLX), ``sat``, ``external`` (an outside program), ``other`` (a plugin that does not
    #: say). The referee confirms a no-solution claim with a method of another family.
    #: A class attribute that an instance may narrow (a portfolio: its members' one family).
    method: str = "other"
    # -- capabilities: what the solver declares, so no code outside solvers/ tests its name --
    #: the work counters it reports (names of :data:`experiments.harness.schema.WORK_COUNTERS`
    #: get a column of runs.csv; any other is kept in its ``extra`` JSON column, never dropped)
    counters: ClassVar[tuple[str, ...]] = ()
    #: the phases it times beyond ``check`` and ``verify`` (same rule as the counters)
    phases: ClassVar[tuple[str, ...]] = ()
    #: the registered entrant it is naturally compared with head to head ("" for none)
    partner: ClassVar[str] = ""
    #: True for an entrant that picks another per puzzle (``auto``): it implements
    #: ``pick_for(grid) -> (entrant spec, why)``
    picks: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Check a solver's declarations when its class is defined (a typo in a plugin is
        an error at registration, not a silent default)."""
        super().__init_subclass__(**kwargs)
        for attribute in ("counters", "phases"):
            value = getattr(cls, attribute)
            if not isinstance(value, tuple) or not all(isinstance(v, str) and v for v in value):
                raise TypeError(f"solver {cls.__name__}: {attribute} must be a tuple of names")
        for attribute in ("name", "method", "partner"):
            if not isinstance(getattr(cls, attribute), str):
                raise TypeError(f"solver {cls.__name__}: {attribute} must be a string")

    @classmethod
    def unavailable(cls) -> str:
        """Why this solver cannot run on this machine (an optional dependency missing), with
        what to install; "" when it can. ``race solvers`` lists it as unavailable, ``race
        run`` leaves it out with a note, and creating it raises RaceError. Default: "" (it can)."""
        return ""

    @property
    def starts_processes(self) -> bool:
        """Whether its cells start processes of their own (an outside program, members in
        processes): then the harness reads the memory of the worker's whole process tree,
        otherwise the worker's alone (:mod:`solvers.processes.tree`). Default: no."""
        return False

    @property
    def cores(self) -> int:
        """The cores one of its cells holds in ``race run`` (the scheduler and the pinning
        give it that many): 1, except for an entrant that runs several searches at once."""
        return 1

    @classmethod
    def batch_capable(cls, params: dict[str, str]) -> bool:
        """Whether :mod:`solvers.exact_cover.batch` can solve many puzzles of this entrant (with these
        parameters from its spec) in one compiled call. Default: no."""
        return False

    #: ``race solve`` of up to this many puzzles of box size <= :data:`INTERPRETED_MAX_N` runs
    #: the solver's kernels interpreted (a 9x9 takes milliseconds that way, against ~0.6 s to
    #: import numba and load its cache); 0: never
    INTERPRETED_MAX_PUZZLES = 16
    INTERPRETED_MAX_N = 0
    #: whether a count (``race count``, a limit above one) runs interpreted too: a count may walk
    #: a large tree, which the compiled kernel does much faster
    INTERPRETED_COUNTS = False

    @classmethod
    def interpreted(cls, n: int, puzzles: int, limit: int | None,
                    params: dict[str, str] | None = None) -> bool:
        """Whether ``race solve``/``count`` of ``puzzles`` puzzles of box size ``n`` (up to
        ``limit`` solutions; ``params`` from the entrant's spec) should run this solver's
        kernels interpreted, never importing numba (a short start-up path): within
        :data:`INTERPRETED_MAX_PUZZLES` and :data:`INTERPRETED_MAX_N`, and for one solution
        unless :data:`INTERPRETED_COUNTS`. Default: never."""
        return (puzzles <= cls.INTERPRETED_MAX_PUZZLES and n <= cls.INTERPRETED_MAX_N
                and (limit == 1 or cls.INTERPRETED_COUNTS))
    #: parameter name -> (default, allowed choices or None)
    parameters: ClassVar[dict[str, tuple[Any, tuple | None]]] = {}

    def __init__(self, **params: Any) -> None:
        self.params: dict[str, Any] = {}
        for key, (default, _choices) in self.parameters.items():
            self.params[key] = default
        for key, value in params.items():
            if key not in self.parameters:
                known = ", ".join(self.parameters) or "none"
                raise RaceError(f"solver {self.name!r} has no parameter {key!r}"
                                f"{did_you_mean(key, self.parameters)} (parameters: {known})")
            default, choices = self.parameters[key]
            value = _convert(self.name, key, value, default)
            if choices is not None and value not in choices:
                raise RaceError(f"solver {self.name!r}: {key}={value!r} is not one of "
                                f"{', '.join(map(str, choices))}{did_you_mean(value, choices)}")
            self.params[key] = value

    @property
    def spec(self) -> str:
        """The entrant spec that recreates this solver, e.g. ``dlx:heuristic=first`` (a comma
        in a value written ``\\,``, as the spec parser reads it)."""
        changed = [f"{k}={str(v).replace(',', chr(92) + ',')}" for k, v in self.params.items()
                   if v != self.parameters[k][0]]
        return self.name + (":" + ",".join(changed) if changed else "")

    # -- to implement --------------------------------------------------------
    def search(self, grid: Grid, limit: int | None, keep: int) -> RawAnswer:
        """Search ``grid`` (whose clues are consistent) for solutions, stopping
        once ``limit`` are found (None = all). Return at most ``keep`` of them."""
        raise NotImplementedError

    def pick_for(self, grid: Grid) -> tuple[str, str]:
        """(the spec of the entrant it picks for ``grid``, why): an entrant that ``picks``
        implements this; the others pick none."""
        raise NotImplementedError(f"{self.name} picks no other entrant")

    def warmup(self) -> None:
        """Pay one-off costs (imports, JIT compilation) outside any measurement: the work
        :meth:`load` does once. Solvers override this one; callers call :meth:`load`."""

    def load(self) -> float:
        """Pay the one-off costs (:meth:`warmup`) unless this object has already: the
        seconds it took, 0.0 when it had. The first :meth:`solve` or :meth:`count` does it
        (its phase ``load``); the harness does it before any measurement."""
        if getattr(self, "_loaded", False):
            return 0.0
        self._loaded = True             # warmup() may solve a small grid: no load inside that
        t0 = time.perf_counter()
        try:
            self.warmup()
        except BaseException:
            self._loaded = False
            raise
        return time.perf_counter() - t0

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
        if not isinstance(grid, Grid):      # e.g. what formats.grid_text.read returns: a file
            raise RaceError(f"solver {self.spec}: expected a formats.grid.Grid, got "
                            f"{type(grid).__name__} (sudoku_race.puzzle reads one from text, a "
                            "file, an array or rows)")
        times: dict[str, float] = {}
        try:
            loaded = self.load()
        except RaceError:
            raise
        except (Exception, SystemExit) as exc:   # as a failed search, below
            if is_interrupt(exc):
                raise KeyboardInterrupt from None
            raise RaceError(f"solver {self.spec} failed to load: {type(exc).__name__}: {exc}") from None
        if loaded:
            times["load"] = loaded
        t0 = time.perf_counter()
        consistent = rules.is_consistent(grid)
        times["check"] = time.perf_counter() - t0
        if not consistent:
            return Result(UNSAT, 0, limit, False, [], {}, times, True, CLUES_CONFLICT)
        try:
            found = self.search(grid, limit, keep)
        except RaceError:
            raise
        except (Exception, SystemExit) as exc:   # a plugin's bug is its error, told in one line
            if is_interrupt(exc):                # ... but Ctrl-C inside PySAT is the user's
                raise KeyboardInterrupt from None
            raise RaceError(f"solver {self.spec} failed: {type(exc).__name__}: {exc}") from None
        if not isinstance(found, RawAnswer):
            raise RaceError(f"solver {self.spec} returned {type(found).__name__}, not a RawAnswer")
        phases = dict(found.times)
        more = phases.pop("load", 0.0)  # loaded during the search too (a switch to compiled code)
        if more:
            times["load"] = times.get("load", 0.0) + more
        times.update(phases)
        t0 = time.perf_counter()
        grids = [Grid(grid.n, s) for s in found.solutions]
        bad = [g for g in grids if not rules.is_solution_of(grid, g)]
        times["verify"] = time.perf_counter() - t0
        # nothing above the limit is ever reported: a solver's claim past it is cut to it
        count = found.count if limit is None else min(found.count, limit)
        limit_hit = limit is not None and found.count >= limit
        if bad:
            status, message = WRONG, f"solver {self.spec} returned a grid that is not a solution"
        elif count > 0:
            status, message = SOLVED, ""
            if not grids:  # a count without any grid to check
                status, message = WRONG, f"solver {self.spec} reported solutions but returned none"
        elif found.complete:
            status, message = UNSAT, ""
        else:
            status, message = UNKNOWN, "budget exhausted before an answer"
        return Result(status, count, limit, limit_hit, grids, dict(found.counters), times,
                      verified=not bad and status != WRONG, message=message,
                      complete=found.complete or limit_hit)


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
