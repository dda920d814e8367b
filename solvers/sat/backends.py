"""SAT backends: PySAT in-process, or an external binary speaking DIMACS.

:func:`backend` turns a name into a backend object with one method,
``enumerate(formula, limit, timeout) -> Enumeration``: up to ``limit`` models
(true variables), whether the search was complete, the solver's conflicts /
decisions / propagations and the phase times (``write`` for external
binaries, ``search``). Names:

* a PySAT solver name (``cadical195``, ``glucose4``, ``minisat22``, ...):
  in-process. CaDiCaL's ``solve()`` holds the GIL and cannot be interrupted,
  so a timeout is enforced by solving in conflict-budget slices and checking
  the clock between them. PySAT's own kissat (``kissat404`` and its aliases)
  is refused: it ignores assumptions and aborts the interpreter on a second
  solve.
* ``kissat``: the kissat binary, found from ``$KISSAT``, then ``PATH``, then
  the binary shipped in the ``passagemath-kissat`` wheel (located through its
  installed file list; the package itself is never imported).
* any other name or path: an executable found on ``PATH`` or at that path
  (``cadical``, ``minisat`` from Debian, ...). minisat writes its answer to a
  result file, the others to stdout in the competition format.

External solvers get the formula as a DIMACS file in a ``race-sat-PID-*``
temporary directory (removed on every path; one left by a killed process is
removed by the next run), run in their own session (the process group is
killed once the solver returns or times out) and die with this process
(``PR_SET_PDEATHSIG``), so a killed worker leaves no solver running. Their
stdout and stderr go to files limited to :func:`output_limit` bytes
(``RLIMIT_FSIZE``): a solver that floods its output is stopped with an error. Counting
with an external solver re-runs it with the blocking clauses found so far.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from formats.errors import RaceError
from solvers.sat import clause_loading
from solvers.sat.counting import enumerate_models, pysat_solver, refuse_broken_pysat
from solvers.sat.programs import (  # noqa: F401
    BASE_OUTPUT_BYTES,
    KILL_GRACE,
    TERM_GRACE,
    Enumeration,
    ExternalBackend,
    find_binary,
    find_kissat,
    output_limit,
    run_solver,
    work_directory,
)

if TYPE_CHECKING:
    from pysat.solvers import Solver as PySATSolver

    from solvers.sat.sudoku_cnf import Formula

def _pysat_names() -> dict[str, str]:
    from pysat.solvers import SolverNames
    return {alias: key for key, aliases in vars(SolverNames).items()
            if not key.startswith("_") for alias in aliases}


#: CaDiCaL's named configurations (its ``--sat`` and ``--unsat`` command-line options, as
#: in CaDiCaL 1.9.5's ``config.cpp``), for the in-process ``cadical195`` backend
CADICAL_CONFIGS = {
    "default": {},
    "sat": {"elimreleff": 10, "stabilizeonly": 1, "subsumereleff": 60},
    "unsat": {"stabilize": 0, "walk": 0},
}
#: the PySAT backends that take a configuration
CONFIGURABLE = ("cadical195",)


def configurable(name: str) -> bool:
    """Can the backend called ``name`` (any of PySAT's names for it) take CaDiCaL options
    (``solver.configure``)? Callers ask this, never compare names themselves."""
    return name != "kissat" and _pysat_names().get(name) in CONFIGURABLE


def runs_kissat(name: str) -> bool:
    """Whether the backend called ``name`` runs the kissat binary (``kissat``, or a path to a
    program of that name): the one whose options ``race sat-solve --kissat-args`` passes."""
    return Path(name).name == "kissat"


#: the largest random seed a backend takes (CaDiCaL's and kissat's option range)
MAX_SEED = 2**31 - 1


def backend(name: str, negative_phase: bool = False, config: str = "default", seed: int = 0,
            options: tuple[str, ...] = ()) -> PySATBackend | ExternalBackend:
    """The backend called ``name`` (see the module docstring); ``negative_phase``
    makes the solver try every variable false first (PySAT: ``set_phases``;
    kissat: ``--phase=false``; other binaries: ignored); ``config``, one of
    :data:`CADICAL_CONFIGS`, configures CaDiCaL in-process, or kissat with its own options of
    the same names (``--sat``: ``--target=2 --restartint=50``; ``--unsat``: ``--stable=0``;
    other backends: only ``default``);
    ``seed`` (0, the solvers' own default, .. :data:`MAX_SEED`) is the solver's random seed:
    CaDiCaL's ``seed`` option in-process, ``--seed=`` of the kissat and cadical binaries;
    ``options``: a solver binary's own command-line options (``--restartint=100``), after the
    race's and before the formula; RaceError for an in-process backend, or a word that is not
    an option (it would be read as the formula's file)."""
    bad = next((o for o in options if not o.startswith("-") or o in ("-", "--")), None)
    if bad is not None:
        raise RaceError(f"{name}'s options: {bad!r} is not an option (each starts with - or --; "
                        "the race gives the formula's file)")
    if config not in CADICAL_CONFIGS:
        from formats.suggestions import did_you_mean
        raise RaceError(f"unknown SAT configuration {config!r}{did_you_mean(config, CADICAL_CONFIGS)} "
                        f"(known: {', '.join(CADICAL_CONFIGS)})")
    canonical = _pysat_names().get(name)
    if config != "default" and name != "kissat" and not configurable(name):
        raise RaceError(f"config={config} needs backend={'/'.join(CONFIGURABLE)} (in-process "
                        f"CaDiCaL) or kissat, not {name!r}")
    if not 0 <= seed <= MAX_SEED:
        raise RaceError(f"seed={seed} must be in 0..{MAX_SEED}")
    if seed and name != "kissat" and not configurable(name) and "cadical" not in Path(name).name:
        raise RaceError(f"seed={seed} needs backend=cadical195 (in-process), kissat or a cadical "
                        f"binary, not {name!r}")
    if name == "kissat":
        return ExternalBackend(find_kissat(), "kissat", negative_phase, seed, config, options)
    if canonical is not None:
        if options:
            raise RaceError(f"{name} runs in-process (PySAT): it takes no command-line options; "
                            "they go to a solver binary such as kissat")
        refuse_broken_pysat(name)
        settings = dict(CADICAL_CONFIGS[config], **({"seed": seed} if seed else {}))
        return PySATBackend(name, negative_phase, settings)
    try:
        path = find_binary(name)
    except RaceError as exc:
        from formats.suggestions import did_you_mean
        raise RaceError(f"{exc}{did_you_mean(name, ['kissat', *_pysat_names()])}") from None
    return ExternalBackend(path, Path(name).name, negative_phase, seed, options=options)


# -- in-process ----------------------------------------------------------------------

class PySATBackend:
    """A PySAT solver, built fresh for each formula, counting with blocking clauses."""

    external = False

    def __init__(self, name: str, negative_phase: bool = False,
                 options: dict[str, int] | None = None) -> None:
        self.name = name
        self.negative_phase = negative_phase
        self.options = dict(options or {})

    def enumerate(self, formula: Formula, limit: int | None, timeout: float = 0.0,
                  conflicts: int = 0) -> Enumeration:
        """Up to ``limit`` models; incomplete when ``timeout`` seconds or, per solver call,
        ``conflicts`` conflicts (0: no bound) ran out first."""
        deadline = time.perf_counter() + timeout if timeout > 0 else None
        t0 = time.perf_counter()
        if self.options:       # options before the clauses (CaDiCaL's configuring state)
            solver = pysat_solver(self.name)
            solver.configure(self.options)
            clause_loading.load(solver, formula.blocks, fresh=True)
        else:
            solver = pysat_solver(self.name, formula.blocks)
        try:
            if self.negative_phase and formula.nvars:
                solver.set_phases((-np.arange(1, formula.nvars + 1)).tolist())
            count, models, complete = enumerate_models(
                solver, formula.primary, limit,
                solve=lambda s, a: solve_until(s, a, deadline, conflicts))
            stats = solver.accum_stats() or {}
        finally:
            solver.delete()
        counters = {k: int(stats[k]) for k in ("conflicts", "decisions", "propagations")
                    if k in stats}
        return Enumeration(models, complete, counters, {"search": time.perf_counter() - t0},
                           "" if complete else f"timeout after {timeout:g} s" if timeout > 0
                           else f"no answer within {conflicts} conflicts")


def solve_until(solver: PySATSolver, assumptions: list[int], deadline: float | None,
                conflicts: int = 0) -> bool | None:
    """``solver.solve(assumptions)``, but give up (None) once ``deadline``
    (a ``perf_counter`` time) has passed, or after ``conflicts`` conflicts (0: no bound).
    A conflict bound alone is one budgeted call: the very search of ``solve()``, cut
    short. With a deadline: solve in growing conflict budgets and look at the clock
    between them (CaDiCaL cannot be interrupted otherwise); each slice restarts the search
    (learnt clauses kept), which costs: measured on three hard 25x25, 2-3x the conflicts
    of one call."""
    if deadline is None:
        if not conflicts:
            return solver.solve(assumptions=assumptions)
        solver.conf_budget(conflicts)
        return solver.solve_limited(assumptions=assumptions)
    budget = 500
    spent = 0
    while True:
        start = time.perf_counter()
        left = deadline - start
        if left <= 0 or (conflicts and spent >= conflicts):
            return None
        if conflicts:
            budget = min(budget, conflicts - spent)
        solver.conf_budget(budget)
        spent += budget
        answer = solver.solve_limited(assumptions=assumptions)
        if answer is not None:
            return answer
        # size the next slice to about a tenth of the time left (at least 100 conflicts)
        rate = budget / max(time.perf_counter() - start, 1e-6)
        budget = int(max(100, min(budget * 2, rate * min(left / 10, 1.0))))
