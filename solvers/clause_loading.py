"""Loading clauses into an in-process PySAT solver, in bulk where the solver allows it.

PySAT adds clauses with one Python call per clause (``append_formula`` loops in
Python), which for the formula of a 100x100 costs more than CaDiCaL's whole search
(measured: 0.6-0.9 s for the 143,421 clauses of a 100x100 with 33% holes, against
0.08 s for the CaDiCaL binary to parse the same clauses as DIMACS).

For CaDiCaL 1.9.5 (PySAT's ``cadical195``) :func:`load` instead runs one compiled
loop over all the clauses (each ended by a 0, as in DIMACS) that calls the solver's
own ``CaDiCaL::Solver::add(int)`` for every one of those numbers: the very call PySAT's extension
makes per literal (its ``cadical195_add_cl``), reached through the symbol that
extension exports, on the solver PySAT created. The same clauses in the same order,
at the speed of CaDiCaL's own parser (0.07 s CPU for those clauses).

Everything else goes clause by clause through PySAT, as before: other solvers,
clauses given as Python lists, kernels running interpreted (``formats.compiled``:
no numba), a PySAT build without that symbol, and a block holding a 0 (which PySAT
refuses with its own error).
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np
from formats.compiled import is_interpreted, kernel

#: clauses handed to PySAT per call on the clause-by-clause path (bounds the
#: Python lists alive at once)
LOAD_SLICE = 1 << 16

#: the exported ``CaDiCaL195::Solver::add(int)`` of PySAT's extension module
_CADICAL_ADD = "_ZN10CaDiCaL1956Solver3addEi"


@kernel(cache=True)
def _add_all(add, solver, literals):
    """``add(solver, x)`` for every x of ``literals``: clauses, each ended by a 0."""
    for i in range(literals.shape[0]):
        add(solver, literals[i])


@functools.lru_cache(maxsize=1)
def cadical_add():
    """CaDiCaL 1.9.5's ``Solver::add(int)`` in PySAT's extension module as a ctypes
    function (this, literal), or None when that build does not export it."""
    try:
        from pysat import solvers
        library = ctypes.CDLL(solvers.pysolvers.__file__)
        address = ctypes.cast(getattr(library, _CADICAL_ADD), ctypes.c_void_p).value
    except (AttributeError, OSError, ImportError):
        return None
    return ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32)(address)


def _pointer(capsule) -> int:
    """The C++ solver object behind the PyCapsule PySAT keeps (``Cadical195.cadical``)."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get(capsule, None)


def bulk_capable(solver) -> bool:
    """True when :func:`load` adds ``solver``'s clauses with the compiled loop."""
    inner = getattr(solver, "solver", None)
    return (type(inner).__name__ == "Cadical195" and getattr(inner, "cadical", None) is not None
            and not is_interpreted() and cadical_add() is not None)


def load(solver, blocks) -> None:
    """Add every clause of ``blocks`` to the PySAT ``solver`` (a ``pysat.solvers.Solver``),
    in order: 2-D integer arrays of clauses of one width, or lists of clauses; in bulk
    (one compiled call per run of arrays) when :func:`bulk_capable`, else clause by
    clause through PySAT."""
    bulk = bulk_capable(solver)
    run: list[np.ndarray] = []                    # arrays waiting for one bulk call
    for block in blocks:
        if isinstance(block, np.ndarray) and block.ndim == 2 and block.shape[0] == 0:
            continue                              # no clauses
        # empty clauses (width 0) go through PySAT: the bulk loop would skip them, and a
        # formula holding one is unsatisfiable
        if bulk and isinstance(block, np.ndarray) and block.ndim == 2 and block.shape[1] \
                and block.all():
            run.append(block)
            continue
        _add_in_bulk(solver, run)
        run = []
        if not isinstance(block, np.ndarray):
            solver.append_formula(block)
            continue
        # in slices: a block of millions of clauses as one Python list would
        # cost ~100 bytes per literal at once
        for start in range(0, block.shape[0], LOAD_SLICE):
            solver.append_formula(block[start:start + LOAD_SLICE].tolist())
    _add_in_bulk(solver, run)


def _add_in_bulk(solver, blocks: list[np.ndarray]) -> None:
    """The clauses of ``blocks`` (0-free arrays) in one compiled call, DIMACS style."""
    if not blocks:
        return
    literals = np.concatenate([np.pad(block.astype(np.int32, copy=False), ((0, 0), (0, 1))).ravel()
                               for block in blocks])
    _add_all(cadical_add(), _pointer(solver.solver.cadical), literals)
