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

Where the kernels run interpreted (``formats.compiled``: no numba, the short start-up of
``race solve``) and the solver is fresh (``load(..., fresh=True)``: nothing added yet, as
CaDiCaL's parser requires), the clauses go to CaDiCaL as DIMACS text instead: the
interpreted DIMACS writer (one C-level format) fills a buffer that CaDiCaL's own
``Solver::read_dimacs`` parses through ``fmemopen``. Measured (CPU s) on the 557,525
clauses of a public 144x144 with 35% holes: 0.12 s for the text and 0.13 s to parse it,
against 0.54 s clause by clause through PySAT.

Everything else goes clause by clause through PySAT, as before: other solvers,
clauses given as Python lists, a solver that already holds clauses when interpreted,
a PySAT build without those symbols, and a block holding a 0 (which PySAT refuses with
its own error).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from formats.compiled import is_interpreted, kernel

if TYPE_CHECKING:
    from pysat.solvers import Solver

#: clauses as :func:`load` takes them: a 2-D integer array (one clause per row) or a list of
#: clauses
Block = np.ndarray | list[list[int]]
#: ``(read_dimacs, fmemopen, fclose)`` of :func:`cadical_read`
_Reader = tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]]

#: clauses handed to PySAT per call on the clause-by-clause path (bounds the
#: Python lists alive at once)
LOAD_SLICE = 1 << 16

#: the exported ``CaDiCaL195::Solver::add(int)`` of PySAT's extension module
_CADICAL_ADD = "_ZN10CaDiCaL1956Solver3addEi"
#: ... and ``CaDiCaL195::Solver::read_dimacs(FILE *, const char *name, int &vars, int strict)``
_CADICAL_READ = "_ZN10CaDiCaL1956Solver11read_dimacsEP8_IO_FILEPKcRii"


@kernel(cache=True)
def _add_all(add: Callable[[int, int], None], solver: int, literals: np.ndarray) -> None:
    """``add(solver, x)`` for every x of ``literals``: clauses, each ended by a 0."""
    for i in range(literals.shape[0]):
        add(solver, literals[i])


@functools.lru_cache(maxsize=1)
def cadical_add() -> Callable[[int, int], None] | None:
    """CaDiCaL 1.9.5's ``Solver::add(int)`` in PySAT's extension module as a ctypes
    function (this, literal), or None when that build does not export it."""
    try:
        from pysat import solvers
        library = ctypes.CDLL(solvers.pysolvers.__file__)
        address = ctypes.cast(getattr(library, _CADICAL_ADD), ctypes.c_void_p).value
    except (AttributeError, OSError, ImportError):
        return None
    if address is None:
        return None
    return ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32)(address)


@functools.lru_cache(maxsize=1)
def cadical_read() -> _Reader | None:
    """(CaDiCaL 1.9.5's ``Solver::read_dimacs`` on a ``FILE *``, libc's ``fmemopen``,
    ``fclose``) as ctypes functions, or None when either library lacks them."""
    try:
        from pysat import solvers
        library = ctypes.CDLL(solvers.pysolvers.__file__)
        address = ctypes.cast(getattr(library, _CADICAL_READ), ctypes.c_void_p).value
        libc = ctypes.CDLL(None)
        fmemopen, fclose = libc.fmemopen, libc.fclose
    except (AttributeError, OSError, ImportError):
        return None
    if address is None:
        return None
    fmemopen.restype, fmemopen.argtypes = ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_size_t,
                                                            ctypes.c_char_p]
    fclose.restype, fclose.argtypes = ctypes.c_int, [ctypes.c_void_p]
    read = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
                            ctypes.POINTER(ctypes.c_int), ctypes.c_int)(address)
    return read, fmemopen, fclose


def _pointer(capsule: object) -> int:
    """The C++ solver object behind the PyCapsule PySAT keeps (``Cadical195.cadical``)."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get(capsule, None)


def bulk_capable(solver: Solver) -> bool:
    """True when :func:`load` adds ``solver``'s clauses with the compiled loop."""
    return _is_cadical(solver) and not is_interpreted() and cadical_add() is not None


def _is_cadical(solver: Solver) -> bool:
    inner = getattr(solver, "solver", None)
    return type(inner).__name__ == "Cadical195" and getattr(inner, "cadical", None) is not None


def text_capable(solver: Solver, blocks: list[Block]) -> bool:
    """True when :func:`load` with ``fresh`` hands ``blocks`` to CaDiCaL as DIMACS text:
    interpreted kernels, CaDiCaL 1.9.5 with its parser reachable, and every block a 2-D
    integer array of clauses of width >= 1 without a 0."""
    return (is_interpreted() and _is_cadical(solver) and cadical_read() is not None
            and all(isinstance(b, np.ndarray) and b.ndim == 2 and b.dtype.kind in "iu"
                    and b.shape[1] and b.all() for b in blocks))


def load(solver: Solver, blocks: Iterable[Block], fresh: bool = False) -> None:
    """Add every clause of ``blocks`` to the PySAT ``solver`` (a ``pysat.solvers.Solver``),
    in order: 2-D integer arrays of clauses of one width, or lists of clauses; in bulk
    (one compiled call per run of arrays) when :func:`bulk_capable`; as DIMACS text parsed
    by CaDiCaL when ``fresh`` (the caller vouches that nothing was added to ``solver``
    yet: CaDiCaL's parser aborts the process otherwise) and :func:`text_capable`; else
    clause by clause through PySAT."""
    if not isinstance(blocks, list):
        blocks = list(blocks)
    if fresh and text_capable(solver, blocks):
        _read_text(solver, [b for b in blocks if isinstance(b, np.ndarray)])   # all of them
        return
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


def _read_text(solver: Solver, blocks: list[np.ndarray]) -> None:
    """The clauses of ``blocks`` as one DIMACS text, parsed by the fresh CaDiCaL itself."""
    from formats import dimacs
    blocks = [b for b in blocks if b.shape[0]]
    if not blocks:
        return
    nvars = max(int(np.abs(b).max()) for b in blocks)
    text = dimacs.dumps(nvars, blocks)
    reader = cadical_read()
    assert reader is not None                    # text_capable() found it
    read, fmemopen, fclose = reader
    stream = fmemopen(text, len(text), b"r")
    if not stream:
        raise OSError(ctypes.get_errno(), "fmemopen failed")
    try:
        found = ctypes.c_int(0)
        error = read(_pointer(solver.solver.cadical), stream, b"<clauses>", ctypes.byref(found), 1)
    finally:
        fclose(stream)
    if error:                            # the writer's own text: never expected
        raise ValueError(f"CaDiCaL refused the DIMACS text: {error.decode(errors='replace')}")


def _add_in_bulk(solver: Solver, blocks: list[np.ndarray]) -> None:
    """The clauses of ``blocks`` (0-free arrays) in one compiled call, DIMACS style."""
    if not blocks:
        return
    literals = np.concatenate([np.pad(block.astype(np.int32, copy=False), ((0, 0), (0, 1))).ravel()
                               for block in blocks])
    _add_all(cadical_add(), _pointer(solver.solver.cadical), literals)
