"""sudoku-race from Python: the one namespace for notebooks and scripts.

>>> import sudoku_race as race
>>> result = race.solve("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......")
>>> result.status
'solved'

* :func:`puzzle` / :func:`puzzles`: a :class:`Grid` from text, a file, an array or rows.
* :func:`solve`, :func:`count`: one puzzle, answered and verified as ``race solve`` and
  ``race count`` do (a :class:`Result`).
* :func:`generate`: seeded puzzles of any family, as ``race generate`` makes them.
* :func:`run`: a campaign, as ``race run`` races it, with a progress callback;
  :func:`load`: a campaign read back (:class:`Results`: pandas tables and the summary);
  :func:`compare`: two of its entrants, instance by instance (:class:`Comparison`).

Errors a caller can cause raise :class:`RaceError` with one line saying what and where.
docs/api.md shows each function at work.
"""

from __future__ import annotations

from formats.errors import RaceError
from formats.grid import Grid
from solvers.interface import Result
from sudoku_race.answers import count, solve
from sudoku_race.campaigns import Comparison, Results, compare, load, run
from sudoku_race.generation import generate
from sudoku_race.puzzles import puzzle, puzzles

__all__ = ["Comparison", "Grid", "RaceError", "Result", "Results", "compare", "count",
           "generate", "load", "puzzle", "puzzles", "run", "solve"]
