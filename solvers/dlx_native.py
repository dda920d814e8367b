"""The batch path's DLX kernel in C (``dlx_native.c``), built at its first use, called via ctypes.

Why: ``race solve`` over a file of thousands of 9x9 puzzles spends most of its whole run
starting numba (about 0.4 s of CPU to import it and load its cached machine code) before the
first puzzle is searched. The C port of the same kernel (:func:`solvers.dlx.count_with_clues`
on :func:`solvers.algorithm_x.dlx_search`, MRV) needs only ctypes, and a ctypes call releases
the GIL, so threads search side by side as with numba's ``nogil``.

Built like numba's cache: the system's C compiler (``$CC``, else ``cc``) compiles the source
once into ``__pycache__`` next to it (or ``$XDG_CACHE_HOME/sudoku-race/native`` when that is not
writable), under a name carrying the source's hash, so an edited source is rebuilt. Without a
compiler, or when the build fails, :func:`library` returns None and the batch path uses the
numba kernel: same answers, only the start-up differs (tests/test_dlx_native.py compares the
two puzzle by puzzle). ``RACE_NATIVE=0`` turns the C kernel off.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np

SOURCE = Path(__file__).with_name("dlx_native.c")
#: why the C kernel is not in use (empty while it is, or before the first try)
why_not = ""


def _cache_dirs() -> list[Path]:
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [SOURCE.parent / "__pycache__", Path(home) / "sudoku-race" / "native"]


def _build(target: Path) -> None:
    """Compile SOURCE into the shared library ``target`` (atomically: a temporary file renamed)."""
    import shlex
    import shutil
    import subprocess
    import tempfile
    command = shlex.split(os.environ.get("CC") or "cc") or ["cc"]
    compiler = command[0]
    if shutil.which(compiler) is None:
        raise OSError(f"no C compiler ({compiler!r} not found)")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=target.parent)
    os.close(fd)
    try:
        try:
            done = subprocess.run([*command, "-O2", "-shared", "-fPIC", "-o", tmp, str(SOURCE)],
                                  capture_output=True, text=True, timeout=120)
        except subprocess.SubprocessError as exc:
            raise OSError(f"{compiler}: {exc}") from None
        if done.returncode != 0:
            raise OSError(f"{compiler} failed: {done.stderr.strip()[:300]}")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def library_name(source: bytes) -> str:
    """The file name of the library built from ``source`` on this machine's architecture."""
    machine = os.uname().machine if hasattr(os, "uname") else sys.platform
    return f"dlx_native-{hashlib.sha256(source + machine.encode()).hexdigest()[:16]}.so"


@lru_cache(maxsize=1)
def library() -> ctypes.CDLL | None:
    """The compiled kernel (built on first use), or None (see :data:`why_not`)."""
    global why_not
    if os.environ.get("RACE_NATIVE", "1") == "0":
        why_not = "turned off (RACE_NATIVE=0)"
        return None
    try:
        source = SOURCE.read_bytes()
    except OSError as exc:
        why_not = f"no source: {exc}"
        return None
    errors = []
    for folder in _cache_dirs():
        target = folder / library_name(source)
        try:
            if not target.exists():
                _build(target)
            lib = ctypes.CDLL(str(target))
            fn = lib.dlx_native_many
        except (OSError, AttributeError) as exc:    # unbuildable, unloadable, or not ours
            errors.append(f"{folder}: {exc}")
            continue
        ptr = ctypes.c_void_p
        i64 = ctypes.c_int64
        fn.argtypes = [ptr, i64, ptr, i64, i64, i64, i64, ptr, ptr, ptr, ptr, ptr, ptr, ptr]
        fn.restype = None
        why_not = ""
        return lib
    why_not = "; ".join(errors)
    return None


def _ptr(array: np.ndarray) -> int:
    return array.ctypes.data


def count_many(links: np.ndarray, puzzles: np.ndarray, n: int, limit: int, node_limit: int,
               solutions: np.ndarray, counts: np.ndarray, nodes: np.ndarray,
               complete: np.ndarray) -> None:
    """The C kernel on one part of a batch (the arguments of ``solvers.batch._dlx_kernel``):
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
