"""Solve or count one puzzle from code, as ``race solve`` and ``race count`` do.

The answer is a :class:`solvers.interface.Result`: ``status`` (``solved``, ``unsat``,
``unknown``, ``wrong``), ``solution`` (a verified :class:`formats.grid.Grid`, or None),
``count`` and ``complete`` (an exact count, or a lower bound when a budget stopped it),
``counters`` and ``times``. Every grid is verified against the rules and the clues, and a
"no solution" is confirmed by a second method (:func:`experiments.harness.settle.settle`),
as on the command line. Solvers are made once per entrant spec and kept warm.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from sudoku_race.puzzles import PuzzleLike, puzzle

if TYPE_CHECKING:
    from solvers.interface import Result, Solver

#: the entrant of :func:`solve` when none is named: per puzzle, the one that did best on such
#: puzzles in the reference campaigns (solvers/portfolio.csv)
DEFAULT_SOLVER = "auto"
#: the entrant of :func:`count` when none is named: dancing links, which counts exactly
DEFAULT_COUNTER = "dlx"


def solve(grid: PuzzleLike, solver: str = DEFAULT_SOLVER) -> Result:
    """Solve one puzzle (anything :func:`sudoku_race.puzzle` reads) with the entrant ``solver``
    (``"dlx"``, ``"sat:backend=kissat"``, ...; ``race solvers`` lists them). RaceError for a bad
    puzzle or entrant spec."""
    return _answer(puzzle(grid), solver, 1)


def count(grid: PuzzleLike, limit: int | None = None, solver: str = DEFAULT_COUNTER) -> Result:
    """Count the solutions of one puzzle, stopping at ``limit`` (None: all); the result's
    ``count`` is exact when ``complete``, else a lower bound. RaceError for a bad puzzle,
    entrant spec or limit (< 1)."""
    return _answer(puzzle(grid), solver, limit)


def _answer(grid, spec: str, limit: int | None) -> Result:
    from experiments.harness.settle import settle
    from solvers.registry import BUILTIN, INSTALLED, parse_spec
    entrant = _solver(spec)
    if entrant.picks:                      # auto: the entrant it picks for this puzzle, made here
        spec = entrant.pick_for(grid)[0]
        entrant = _solver(spec)
    result = entrant.solve(grid) if limit == 1 else entrant.count(grid, limit)
    builtin = parse_spec(spec)[0] in BUILTIN.names() and entrant.method != "external"
    settled, _ = settle(grid, result, entrant.method, not builtin, limit, INSTALLED.create,
                        who=entrant.spec)
    return settled


@lru_cache(maxsize=32)
def _solver(spec: str) -> Solver:
    """The solver of ``spec``, made once (its kernels loaded at its first answer)."""
    from solvers.registry import INSTALLED
    return INSTALLED.create(spec)
