"""The 9x9 kernel of the bit-set method in C (``bitset9_native.c``), built with the package,
called via ctypes on a whole array of puzzles.

The bit-set method keeps, per digit, the cells where it may still go as bit sets and applies
naked and hidden singles and locked candidates to a fixpoint before each guess on a cell of
fewest candidates (the rules are listed in ``bitset9_native.c``). For 9x9 the C source lays the
sets out by band (three rows, 27 bits a digit), so one call solves thousands of puzzles with no
Python object per puzzle and without numba's start-up.

Built and loaded by :class:`solvers.native_library.NativeLibrary` (at the first use, with the
system's C compiler; loaded only when this user built it). Without a compiler, or when the build
fails, :func:`library` returns None (``NATIVE.why_not`` says why) and the 9x9 batch path of the
bit-set method is not available. ``RACE_NATIVE=0`` turns the C kernel off.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from solvers.native_library import NativeLibrary

#: cells of a 9x9 grid
CELLS = 81


def _declare(lib: ctypes.CDLL) -> None:
    ptr = ctypes.c_void_p
    i64 = ctypes.c_int64
    fn = lib.bitset9_native_many
    fn.argtypes = [ptr, i64, i64, i64, ptr, ptr, ptr, ptr]
    fn.restype = None


#: the compiler flags of its build: -O3 (its loops unrolled) makes the search about a fifth faster
FLAGS = ("-O3", "-shared", "-fPIC")

NATIVE = NativeLibrary(Path(__file__).with_name("bitset9_native.c"), _declare, FLAGS)


def library() -> ctypes.CDLL | None:
    """The compiled kernel (built on first use), or None (``NATIVE.why_not`` says why)."""
    return NATIVE.library()


def _ptr(array: np.ndarray) -> int:
    return array.ctypes.data


def solve_many(puzzles: np.ndarray, limit: int = 1, guess_limit: int = 0
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The C kernel on every 9x9 puzzle of ``puzzles`` ((P, 81) or (P, 9, 9), values 0..9,
    0 = empty; the caller has checked the range) in one call that releases the GIL.

    Returns (counts, guesses, complete, solutions): solutions counted per puzzle up to
    ``limit`` (0 = all), int64; guesses made, int64; False where ``guess_limit`` (0 = none)
    stopped the search first; the first solution found, uint8 (P, 81), zeros where there is
    none. Clues that conflict count 0. Unverified: see :func:`solvers.rules.are_solutions_of`.
    Raises RuntimeError when the kernel could not be built (:func:`library` is None)."""
    lib = library()
    if lib is None:
        raise RuntimeError(f"the 9x9 bit-set kernel is not available: {NATIVE.why_not}")
    cells = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, CELLS)
    count = cells.shape[0]
    solutions = np.empty((count, CELLS), dtype=np.uint8)
    counts = np.empty(count, dtype=np.int64)
    guesses = np.empty(count, dtype=np.int64)
    complete = np.empty(count, dtype=np.uint8)
    lib.bitset9_native_many(_ptr(cells), count, limit, guess_limit, _ptr(solutions),
                            _ptr(counts), _ptr(guesses), _ptr(complete))
    return counts, guesses, complete.astype(bool), solutions
