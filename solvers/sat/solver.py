"""The SAT entrant: encode the grid as CNF, solve it, decode the model (Tasks 8-9).

``sat:backend=NAME,encoding=NAME,timeout=SECONDS``:

* ``backend``: a PySAT solver name (``cadical195``, the default; ``glucose4``,
  ``minisat22``, ...; never PySAT's ``kissat404``), ``kissat`` (the external
  binary, also registered as the entrant ``kissat``), or the name/path of any
  DIMACS solver binary (``cadical``, ``minisat``); see :mod:`solvers.sat.backends`.
* ``encoding``: ``minimal`` (the assignment's clauses), ``extended`` or
  ``reduced`` (the default: fastest in ``tests/bench/bench_sat.py``; see
  :mod:`solvers.sat.sudoku_cnf`).
* ``amo``: the at-most-one encoding of ``reduced`` (:data:`solvers.sat.at_most_one.VARIANTS`:
  ``pairwise``, ``sequential``, ``commander``, ``bimander``, ``binary``, ``product``,
  ``pysat-*``, ``auto``); ``auto`` (the default) is pairwise for narrow groups and
  ``product`` for wide ones, chosen by ``tests/bench/bench_large_n.py``.
* ``phase``: the initial phase of the in-process solver, ``solver`` (its own default,
  true for CaDiCaL) or ``false`` (every variable false first: in an exactly-one
  problem almost every variable is false in a solution); see ``DEFAULT_PHASE``.
* ``config``: for ``kissat``, its configurations of the same names (``--sat``:
  ``--target=2 --restartint=50``; ``--unsat``: ``--stable=0``); on three hard 25x25 (CPU s,
  seeds 0 and 1) ``--sat`` took 1.5/2.5, 1.5/0.15 and 2.9/0.7 where the default took
  7.1/2.1, 2.1/2.1 and 16.9/7.1.
  For the in-process ``cadical195``, CaDiCaL's named configuration (``default``;
  ``sat``: stable mode only, less elimination and subsumption, its ``--sat``; ``unsat``: no
  stable mode, no local search, its ``--unsat``). Measured (in-process, CPU s, load + solve,
  40 hard 25x25 at 55 % balanced holes, seeds 10 and 11): default 27.2-27.5 s in all,
  stable mode only 15.0 s, no stable mode 106.7 s; the hard ones gain most (9.7 -> 4.1 s,
  2.1 -> 0.2 s), a few easy ones lose tenths.
* ``seed``: the solver's random seed (0, its own default): CaDiCaL's ``seed`` option
  in-process, ``--seed=`` of kissat and the cadical binary. Differently seeded runs of one
  solver differ on hard puzzles: members of a ``parallel`` entrant (:mod:`solvers.parallel`).
* ``timeout``: seconds (0 = none) before the answer is ``unknown``.
* ``fallback``: a second backend (e.g. ``kissat``) that takes the same formula over when
  the in-process ``backend`` has not answered within ``presolve`` conflicts (default
  :data:`DEFAULT_PRESOLVE`; a count of conflicts, not seconds, so the hand-over is the
  same on every machine and the first search is exactly ``solve()``'s, cut short): a
  sequential portfolio. On hard puzzles the two solvers' run times have different tails:
  measured on 16 hard 25x25 (55 % balanced holes, seeds 20 and 21, CPU s), CaDiCaL
  in-process had the lower median (0.27 s against kissat's 0.34 s) but took 17.2 s and
  7.2 s on two that kissat answered in 2.5 s and 1.7 s (in all: CaDiCaL 30.0 s, kissat
  10.0 s). CaDiCaL first for a while, then kissat, keeps the one's speed and cuts its worst
  tail: in ``results/reference-hard-n5-fallback`` (20 more, seed 11, wall s) medians 0.134
  (sat), 0.405 (kissat), 0.132 (this), PAR-2 sums 18.5, 12.1, 7.3. But on the puzzles of
  seeds 10 and 0 kissat's tail was the longer one and the hand-over cost: over all 50
  raced, sums sat 54.2, this 56.0, kissat 110.7 (README). The counters add up over both;
  ``handed_over`` (kept in runs.csv's ``extra``) is 1 when the fallback ran.

Counting uses blocking clauses (:mod:`solvers.sat.counting`). Phase times:
``encode``, ``write`` (external solvers only), ``search``, ``decode``.
Counters: ``vars``, ``clauses``, ``conflicts``, ``decisions``, ``propagations``.

:class:`IncrementalCounter` (for the generators) lives in
:mod:`solvers.sat.counting` and is re-exported here.
"""

from __future__ import annotations

import time

from formats.errors import RaceError
from formats.grid import Grid
from solvers.interface import RawAnswer, Solver
from solvers.sat import at_most_one, sudoku_cnf
from solvers.sat import backends as sat_backends
from solvers.sat.counting import (
    DEFAULT_BACKEND,
    IncrementalCounter,  # noqa: F401  (API for the generators)
)
from solvers.sat.programs import Enumeration

#: the default encoding, chosen by the benchmark (tests/bench/bench_sat.py).
DEFAULT_ENCODING = "reduced"
#: the default initial phase (tests/bench/bench_large_n.py).
DEFAULT_PHASE = "solver"
#: conflicts the in-process backend may spend before ``fallback`` takes over (module docstring):
#: hard 25x25 that CaDiCaL answers fast take 1,400-2,300 (~0.1 s); its slow ones, 10^5 and more
DEFAULT_PRESOLVE = 10_000
PHASES = ("solver", "false")


class SAT(Solver):
    """CNF encoding solved by a SAT solver (PySAT in-process or a DIMACS binary)."""

    name = "sat"
    method = "sat"
    counters = ("vars", "clauses", "conflicts", "decisions", "propagations")
    phases = ("encode", "write", "search", "decode")
    partner = "dlx"
    #: ``race solve``/``count`` of up to this many puzzles builds and loads the formula
    #: interpreted (numpy, no numba) when n <= :data:`INTERPRETED_MAX_N_OF` its encoding
    INTERPRETED_MAX_PUZZLES = 16
    #: per encoding. Measured whole process, one puzzle, CPU s (compiled -> interpreted):
    #: reduced, sat: n = 8 (33 % holes) 1.0 -> 0.37, n = 10 1.6 -> 0.6-1.1, n = 12 (25 %)
    #: 1.35 -> 0.47, n = 15 1.8 -> 1.6; kissat: n = 10 1.45 -> 1.12, n = 15 1.55 -> 1.65
    #: (the interpreted propagation's first round costs n⁶). extended: n = 4 1.36 -> 0.56,
    #: n = 5 1.85 -> 1.73, n = 6 2.1 -> 4.2 (its n⁸ clauses need the compiled loader).
    INTERPRETED_MAX_N_OF = {"reduced": 12, "extended": 5, "minimal": 5}
    parameters = {
        "backend": (DEFAULT_BACKEND, None),
        "encoding": (DEFAULT_ENCODING, sudoku_cnf.ENCODINGS),
        "amo": (at_most_one.DEFAULT, at_most_one.VARIANTS),
        "phase": (DEFAULT_PHASE, PHASES),
        "timeout": (0.0, None),
        "fallback": ("", None),
        "presolve": (DEFAULT_PRESOLVE, None),
        "config": ("default", tuple(sat_backends.CADICAL_CONFIGS)),
        "seed": (0, None),
    }

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        negative = self.params["phase"] == "false"
        self.backend = sat_backends.backend(str(self.params["backend"]), negative_phase=negative,
                                            config=str(self.params["config"]),
                                            seed=int(self.params["seed"]))
        self.fallback = sat_backends.backend(str(self.params["fallback"]), negative_phase=negative) \
            if self.params["fallback"] else None
        if self.fallback is not None and (not 0 < int(self.params["presolve"]) < 2 ** 31
                                          or getattr(self.backend, "external", True)):
            raise RaceError(f"sat: a fallback needs an in-process backend (PySAT) and presolve in "
                            f"1..{2 ** 31 - 1} conflicts (got backend={self.params['backend']}, "
                            f"presolve={self.params['presolve']})")

    @property
    def starts_processes(self) -> bool:
        """An outside binary (kissat, cadical, ...) as the backend or the fallback."""
        return any(getattr(b, "external", False) for b in (self.backend, self.fallback))

    def search(self, grid: Grid, limit: int | None, keep: int) -> RawAnswer:
        times: dict[str, float] = {}
        t0 = time.perf_counter()
        formula = sudoku_cnf.encode(grid, self.params["encoding"], self.params["amo"])
        times["encode"] = time.perf_counter() - t0
        found = self._enumerate(formula, limit, float(self.params["timeout"]))
        times.update(found.times)
        t0 = time.perf_counter()
        solutions = [sudoku_cnf.decode(formula, model).cells for model in found.models[:keep]]
        times["decode"] = time.perf_counter() - t0
        counters = {"vars": formula.nvars, "clauses": formula.nclauses, **found.counters}
        return RawAnswer(found.count, solutions, found.complete, counters, times)

    def _enumerate(self, formula: sudoku_cnf.Formula, limit: int | None,
                   timeout: float) -> Enumeration:
        """The backend's enumeration; with a fallback, the backend for ``presolve`` conflicts
        per solver call (and within ``timeout``), then, when it did not finish, the fallback
        from scratch on the same formula for the time left (its models, not a mix of both)."""
        if self.fallback is None:
            return self.backend.enumerate(formula, limit, timeout)
        assert isinstance(self.backend, sat_backends.PySATBackend)     # checked in __init__
        first = self.backend.enumerate(formula, limit, timeout, conflicts=int(self.params["presolve"]))
        if first.complete:
            first.counters["handed_over"] = 0
            return first
        spent = sum(first.times.values())
        if timeout and timeout - spent <= 0:
            return first
        second = self.fallback.enumerate(formula, limit, timeout - spent if timeout else 0.0)
        for key, value in first.counters.items():
            second.counters[key] = second.counters.get(key, 0) + value
        for phase, seconds in first.times.items():
            second.times[phase] = second.times.get(phase, 0.0) + seconds
        second.counters["handed_over"] = 1
        return second

    @classmethod
    def interpreted(cls, n: int, puzzles: int, limit: int | None,
                    params: dict[str, str] | None = None) -> bool:
        """Any limit: the kernels only build and load the formula; the SAT solver (compiled
        C) does the search and the counting. Up to n = :data:`INTERPRETED_MAX_N_OF` the
        encoding (``reduced`` unless ``params`` say otherwise)."""
        encoding = (params or {}).get("encoding", DEFAULT_ENCODING)
        return (puzzles <= cls.INTERPRETED_MAX_PUZZLES
                and n <= cls.INTERPRETED_MAX_N_OF.get(encoding, 0))

    def warmup(self) -> None:
        """Import PySAT, compile the DIMACS writer and solve one 4x4 grid."""
        from formats import dimacs
        dimacs.dumps(1, [[1], [-1, 1]])
        self.solve(Grid.empty(2))
