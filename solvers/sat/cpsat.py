"""The constraint-programming entrant: Sudoku as a CP model solved by Google OR-Tools CP-SAT.

``cpsat:model=int|onehot,workers=K,seed=S,timeout=SECONDS`` (method ``cp``):

* ``model``: ``int`` -- one integer variable per open cell, its domain the cell's
  candidates (CanPlace of the rules core), and one AllDifferent per row, column and box
  over its cells (clues as constants); ``onehot`` -- one Boolean per open cell and
  candidate value, an exactly-one per cell and one per (unit, value the unit still misses)
  over the cells that can take it. Both leave the rest to CP-SAT's presolve and search.
* ``workers``: CP-SAT's ``num_workers`` (default 1, so it races fairly with the
  single-core entrants; more workers run its own portfolio of strategies in threads of
  this process, and ``cpu_s`` counts them all).
* ``seed``: CP-SAT's ``random_seed`` (different seeds, different runs on hard puzzles).
* ``timeout``: seconds (0 = none) before the answer is ``unknown`` (``max_time_in_seconds``).

The search runs in a thread of its own while this thread waits for it, so a
:class:`solvers.interface.Stop` (``race solve --timeout``) or Ctrl-C reaches the waiting
thread at once and stops CP-SAT (``stop_search``) before it propagates.

Counting (``race count -s cpsat``) enumerates with ``enumerate_all_solutions`` (one
worker, presolve kept from removing solutions by CP-SAT itself), stopping at the limit.

Counters: ``vars`` (model variables), ``conflicts`` (runs.csv columns), ``branches``,
``booleans``, ``binary_propagations``, ``integer_propagations``, ``restarts``,
``constraints`` (kept in runs.csv's ``extra``). Phases: ``build`` (the model), ``search``,
``decode``.

OR-Tools is an optional extra: ``pip install 'sudoku-race[cp]'``. Without it the entrant is
listed as unavailable with that line (:meth:`CPSAT.unavailable`), ``race run`` leaves it
out with a note, and creating it is a one-line error.
"""

from __future__ import annotations

import importlib.util
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from formats.errors import RaceError
from formats.grid import Grid
from solvers import rules
from solvers.interface import RawAnswer, Solver

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

#: a solution's cells from CP-SAT's value lookup (``solver.value`` or a callback's ``value``)
Decode = Callable[[Callable[[Any], int]], np.ndarray]

#: the two models (module docstring)
MODELS = ("int", "onehot")
#: the default model, the faster of the two on the 20 hard 25x25 of results/reference-hard-n5
#: (tests/bench/bench_cpsat.py, CPU s, one worker): onehot 26.1 s in all, at most 10.7 s on one
#: puzzle; int 35.9 s, at most 17.4 s (sat:config=sat: 8.6 s)
DEFAULT_MODEL = "onehot"
#: what to install for this entrant
INSTALL = "pip install 'sudoku-race[cp]'"
#: how often (s) the waiting thread wakes to let a signal handler run
_WAKE = 0.05


def missing_ortools() -> str:
    """Why CP-SAT cannot run here ("" when OR-Tools is importable), with the install line."""
    if importlib.util.find_spec("ortools") is None:
        return f"needs Google OR-Tools, not installed: {INSTALL}"
    return ""


class CPSAT(Solver):
    """Constraint programming: a CP model (int or one-hot) solved by OR-Tools CP-SAT."""

    name = "cpsat"
    method = "cp"
    counters = ("vars", "conflicts", "branches", "booleans", "binary_propagations",
                "integer_propagations", "restarts", "constraints")
    phases = ("build", "search", "decode")
    parameters = {
        "model": (DEFAULT_MODEL, MODELS),
        "workers": (1, None),
        "seed": (0, None),
        "timeout": (0.0, None),
    }

    @classmethod
    def unavailable(cls) -> str:
        return missing_ortools()

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        if not 1 <= int(self.params["workers"]) <= 1024:
            raise RaceError(f"solver 'cpsat': workers={self.params['workers']} must be in 1..1024")
        if int(self.params["seed"]) >= 2 ** 31:
            raise RaceError(f"solver 'cpsat': seed={self.params['seed']} must be below 2^31")
        why = missing_ortools()
        if why:
            raise RaceError(f"solver 'cpsat' {why}")

    def warmup(self) -> None:
        """Import OR-Tools and solve one 9x9 grid (CP-SAT's first solve pays its set-up)."""
        self.solve(Grid(3, rules.pattern_solution(3) * (np.arange(81).reshape(9, 9) % 3 == 0)))

    # -- the models ------------------------------------------------------------------------
    def _build(self, grid: Grid) -> tuple[cp_model.CpModel, Decode]:
        """(the CpModel of ``grid``, a function from a solution (CP-SAT's value lookup) to its cells)."""
        from ortools.sat.python import cp_model
        n, side = grid.n, grid.n * grid.n
        cells = grid.cells.reshape(-1).astype(np.int64)
        candidates = rules.candidate_table(cells, n)
        units, _ = rules.unit_tables(n)
        model = cp_model.CpModel()
        open_cells = np.flatnonzero(cells == 0)
        if self.params["model"] == "int":
            variables: dict[int, cp_model.IntVar] = {}
            for c in open_cells.tolist():
                values = (np.flatnonzero(candidates[c]) + 1).tolist()
                variables[int(c)] = model.new_int_var_from_domain(
                    cp_model.Domain.from_values(values), f"x{c}")
            for unit in units:
                model.add_all_different([variables.get(int(c), int(cells[c])) for c in unit])

            def decode(solver_values: Callable[[Any], int]) -> np.ndarray:
                out = cells.copy()
                for c, var in variables.items():
                    out[c] = solver_values(var)
                return out.reshape(side, side)
        else:
            cell_of, value_of = np.nonzero(candidates & (cells == 0)[:, None])
            booleans = [model.new_bool_var(f"x{c}_{k + 1}") for c, k in zip(cell_of, value_of)]
            by_cell: dict[int, list] = {int(c): [] for c in open_cells}
            by_key: dict[tuple[int, int], list] = {}
            _, cell_units = rules.unit_tables(n)
            for var, c, k in zip(booleans, cell_of.tolist(), value_of.tolist()):
                by_cell[c].append(var)
                for u in cell_units[c]:
                    by_key.setdefault((int(u), k), []).append(var)
            for group in by_cell.values():
                model.add_exactly_one(group)
            missing = rules.unit_value_counts(cells, n)[:, 1:] == 0
            for u, k in zip(*np.nonzero(missing)):
                model.add_exactly_one(by_key.get((int(u), int(k)), []))

            def decode(solver_values: Callable[[Any], int]) -> np.ndarray:
                out = cells.copy()
                for var, c, k in zip(booleans, cell_of, value_of):
                    if solver_values(var):
                        out[c] = k + 1
                return out.reshape(side, side)
        return model, decode

    # -- the search --------------------------------------------------------------------------
    def search(self, grid: Grid, limit: int | None, keep: int) -> RawAnswer:
        from ortools.sat.python import cp_model
        times: dict[str, float] = {}
        t0 = time.perf_counter()
        cells = grid.cells.reshape(-1)
        if ((cells == 0) & ~rules.candidate_table(cells, grid.n).any(axis=1)).any():
            # an open cell no value fits (CanPlace): no solution, and no valid CP model
            # (a variable with an empty domain) to hand to CP-SAT
            return RawAnswer(0, [], True, {"vars": 0, "constraints": 0},
                             {"build": time.perf_counter() - t0})
        model, decode = self._build(grid)
        solver = cp_model.CpSolver()
        p = solver.parameters
        p.num_workers = 1 if limit != 1 else int(self.params["workers"])
        p.random_seed = int(self.params["seed"])
        p.catch_sigint_signal = False       # Ctrl-C is this process's, handled below
        if float(self.params["timeout"]) > 0:
            p.max_time_in_seconds = float(self.params["timeout"])
        counting = limit != 1
        collector = _Collector(decode, limit, keep) if counting else None
        if counting:
            p.enumerate_all_solutions = True
        times["build"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        status = _solve_interruptibly(solver, model, collector)
        times["search"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        if status == cp_model.MODEL_INVALID:
            raise RaceError(f"solver {self.spec}: CP-SAT says the model is invalid: "
                            f"{model.validate()[:200]}")
        if collector is not None:
            found, solutions = collector.count, collector.solutions
            complete = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) or collector.reached
        elif status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            found, solutions, complete = 1, [decode(solver.value)][:keep], True
        else:
            found, solutions, complete = 0, [], status == cp_model.INFEASIBLE
        times["decode"] = time.perf_counter() - t0
        proto = model.proto
        counters = {"vars": len(proto.variables), "constraints": len(proto.constraints),
                    "conflicts": int(solver.num_conflicts), "branches": int(solver.num_branches),
                    "booleans": int(solver.num_booleans),
                    "binary_propagations": int(solver.num_binary_propagations),
                    "integer_propagations": int(solver.num_integer_propagations),
                    "restarts": _restarts(solver)}
        return RawAnswer(found, solutions, complete, counters, times)


def _restarts(solver: cp_model.CpSolver) -> int:
    """CP-SAT's restarts, from its response (0 when it does not say)."""
    try:
        return int(solver.response_proto.num_restarts)
    except (AttributeError, ValueError):
        return 0


class _Collector:
    """Counts the solutions CP-SAT enumerates, keeps ``keep`` of them, stops at ``limit``."""

    def __init__(self, decode: Decode, limit: int | None, keep: int) -> None:
        self.decode, self.limit, self.keep = decode, limit, keep
        self.count, self.reached = 0, False
        self.solutions: list[np.ndarray] = []
        self.callback: cp_model.CpSolverSolutionCallback | None = None

    def make(self) -> cp_model.CpSolverSolutionCallback:
        from ortools.sat.python import cp_model
        collector = self

        class Callback(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self) -> None:
                collector.count += 1
                if len(collector.solutions) < collector.keep:
                    collector.solutions.append(collector.decode(self.value))
                if collector.limit is not None and collector.count >= collector.limit:
                    collector.reached = True
                    self.stop_search()
        self.callback = Callback()
        return self.callback


def _solve_interruptibly(solver: cp_model.CpSolver, model: cp_model.CpModel,
                         collector: _Collector | None) -> int:
    """``solver.solve(model)`` in a thread of its own, this thread waiting in short sleeps: a
    Stop or KeyboardInterrupt raised here by a signal handler stops CP-SAT and is re-raised
    once its thread has ended (no search is left running)."""
    statuses: list[cp_model.CpSolverStatus] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            statuses.append(solver.solve(model, collector.make() if collector else None))
        except BaseException as exc:      # noqa: BLE001 - handed to the waiting thread
            errors.append(exc)

    thread = threading.Thread(target=run, name="cpsat-search", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(_WAKE)
    except BaseException:
        solver.stop_search()
        thread.join()
        raise
    if errors:
        raise errors[0]
    return int(statuses[0])
