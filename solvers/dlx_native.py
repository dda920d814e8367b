"""The batch path's DLX kernel in C (``dlx_native.c``), built with the package, called via ctypes.

Why: ``race solve`` over a file of thousands of 9x9 puzzles spends most of its whole run
starting numba (about 0.4 s of CPU to import it and load its cached machine code) before the
first puzzle is searched. The C port of the same kernel (:func:`solvers.exact_cover.dlx.count_with_clues`
on :func:`solvers.exact_cover.algorithm_x.dlx_search`, MRV) needs only ctypes, and a ctypes call releases
the GIL, so threads search side by side as with numba's ``nogil``.

Loaded by :class:`solvers.native_library.NativeLibrary` from the package's own folder (built by
setup.py when the package was built or installed). Installed without a compiler,
:func:`library` returns None and the batch path uses the numba kernel: same answers, only
the start-up differs (tests/test_dlx_native.py compares the two puzzle by puzzle).
``RACE_NATIVE=0`` turns the C kernel off.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from solvers.native_library import NativeLibrary


def _declare(lib: ctypes.CDLL) -> None:
    ptr = ctypes.c_void_p
    i64 = ctypes.c_int64
    fn = lib.dlx_native_many
    fn.argtypes = [ptr, i64, ptr, i64, i64, i64, i64, ptr, ptr, ptr, ptr, ptr, ptr, ptr]
    fn.restype = None


NATIVE = NativeLibrary(Path(__file__).with_name("dlx_native.c"), _declare)


def library() -> ctypes.CDLL | None:
    """The compiled kernel (loaded on first use), or None (``NATIVE.why_not`` says why)."""
    return NATIVE.library()


def _ptr(array: np.ndarray) -> int:
    return array.ctypes.data


def count_many(links: np.ndarray, puzzles: np.ndarray, n: int, limit: int, node_limit: int,
               solutions: np.ndarray, counts: np.ndarray, nodes: np.ndarray,
               complete: np.ndarray) -> None:
    """The C kernel on one part of a batch (the arguments of ``solvers.exact_cover.batch._dlx_kernel``):
    ``links`` is this part's own (6, size) uint32 block, changed while it runs and restored;
    ``puzzles``/``solutions`` C-contiguous int32 (P, n², n²), ``counts``/``nodes`` int64,
    ``complete`` bool. Releases the GIL while it runs."""
    lib = library()
    assert lib is not None, "solvers.dlx_native.count_many without a compiled kernel"
    assert links.dtype == np.uint32 and links.flags.c_contiguous
    assert puzzles.dtype == np.int32 and puzzles.flags.c_contiguous
    assert solutions.dtype == np.int32 and solutions.flags.c_contiguous
    assert counts.dtype == np.int64 and nodes.dtype == np.int64 and complete.dtype == np.bool_
    side = n * n
    first = 4 * side * side + 1
    work = np.empty(4 * (first + 1), dtype=np.uint32)
    work64 = np.empty(2 * (first + 1), dtype=np.int64)
    used = np.empty(first, dtype=np.uint8)
    lib.dlx_native_many(_ptr(links), links.shape[1], _ptr(puzzles), puzzles.shape[0], n, limit,
                        node_limit, _ptr(solutions), _ptr(counts), _ptr(nodes), _ptr(complete),
                        _ptr(work), _ptr(work64), _ptr(used))
