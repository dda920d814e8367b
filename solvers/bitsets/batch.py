"""The 9x9 batch path of the bit-set method: a whole array of puzzles through the C kernel,
verified and formatted as arrays, without a Python object per puzzle.

* :func:`handles` -- the dispatch: whether an entrant spec and a box size go this way;
* :func:`answer_array` -- the kernel (:mod:`solvers.bitset9_native`) on a (P, 9, 9) array,
  every answer checked by :func:`solvers.rules.are_solutions_of` (IsSolved and the clues);
* :func:`one_line_text` -- the solutions as the text of a one-line file, one line a puzzle
  (an empty line where a puzzle has no verified solution), in one numpy pass.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers import bitset9_native, rules

#: the entrant specs the 9x9 batch path answers for, and the box size it serves
SPECS = ("bitset",)
BOX = 3


def handles(spec: str, n: int) -> bool:
    """True when puzzles of box size ``n`` for the entrant ``spec`` go through the 9x9 batch
    path: ``spec`` is the bit-set entrant without parameters, n = 3, and the C kernel is built
    (or can be: the first call builds it)."""
    return spec.strip() in SPECS and n == BOX and bitset9_native.library() is not None


class ArrayAnswer(NamedTuple):
    """What the batch path found for P puzzles, one entry per puzzle (arrays)."""
    counts: np.ndarray      #: solutions counted up to the limit, int64 (P,)
    guesses: np.ndarray     #: guesses the search made, int64 (P,)
    complete: np.ndarray    #: False where the guess budget stopped the search, bool (P,)
    solutions: np.ndarray   #: the first solution found, uint8 (P, 81); zeros where none
    verified: np.ndarray    #: True where a solution was found and passed the check, bool (P,)

    @property
    def wrong(self) -> np.ndarray:
        """Where a solution was claimed and failed the check: bool (P,)."""
        return (self.counts > 0) & ~self.verified


def answer_array(puzzles: np.ndarray, limit: int | None = 1, guess_limit: int = 0) -> ArrayAnswer:
    """The bit-set kernel on every puzzle of ``puzzles`` ((P, 9, 9) or (P, 81), values 0..9
    checked by the reader) in one call: solutions counted up to ``limit`` (None = all),
    ``guess_limit`` guesses at most per puzzle (0 = no limit). Every solution found is checked
    against IsSolved and the puzzle's clues, all at once; a claim of no solution is not checked
    here (the caller confirms it by a second method)."""
    cells = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, 81)
    counts, guesses, complete, solutions = bitset9_native.solve_many(cells, limit or 0, guess_limit)
    found = counts > 0
    verified = np.zeros(len(counts), dtype=bool)
    if found.any():
        side = BOX * BOX
        verified[found] = rules.are_solutions_of(cells[found].reshape(-1, side, side),
                                                 solutions[found].reshape(-1, side, side), BOX)
    return ArrayAnswer(counts, guesses, complete, solutions, verified)


#: the one-line alphabet of a 9x9 grid, by cell value
_ALPHABET = np.frombuffer(b".123456789", dtype=np.uint8)


def one_line_text(solutions: np.ndarray, shown: np.ndarray) -> bytes:
    """The lines of a one-line file: row p of ``solutions`` ((P, 81) values 0..9) where
    ``shown[p]``, else an empty line; each line ends with a newline."""
    count = solutions.shape[0]
    lines = np.empty((count, 82), dtype=np.uint8)
    lines[:, :81] = _ALPHABET[solutions]
    lines[:, 81] = ord("\n")
    keep = np.zeros((count, 82), dtype=bool)
    keep[shown] = True
    keep[:, 81] = True
    return lines[keep].tobytes()
