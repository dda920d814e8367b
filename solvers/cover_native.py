"""The exact cover kernel of ``race cover`` in C (``cover_native.c``), called through ctypes.

Why: the numba kernels (:func:`solvers.exact_cover.algorithm_x.dlx_search`,
:func:`solvers.exact_cover.algorithm_m.multiplicity_search`) cost about 1.4 s of CPU to import numba and load
their cached machine code before the first node, which is most of a whole ``race cover`` run on
Knuth's queens or Scott's problem. This module needs neither numba nor numpy: a problem goes in
as ``array`` buffers (:class:`CoverKernel`), is linked in C in the layout of Knuth's TAOCP and
dlx1 (node arrays TOP, ULINK, DLINK; the nodes of an option consecutive, with spacers between
options; see the C file), and searched there. Same trees, same counts as the numba kernels
(tests/test_cover_native.py).

A ctypes call releases the GIL, so threads search side by side, each on its own copy
(:meth:`CoverKernel.clone`): :mod:`solvers.exact_cover.threads` splits one search over several
(:meth:`CoverKernel.split`, then ``search(prefix=piece)`` for each piece).
Built with the package (setup.py) and loaded by :class:`solvers.native_library.NativeLibrary`;
:func:`library` is None when the package holds no build (installed without a compiler), and the
caller uses the numba kernels.
"""

from __future__ import annotations

import ctypes
from array import array
from pathlib import Path

from formats.dlx_format import DlxProblem
from solvers.native_library import NativeLibrary

MRV, FIRST = 0, 1               # as solvers.exact_cover.algorithm_x
#: colors and multiplicities: Knuth's theta for the choice (solvers/exact_cover/algorithm_m.py, ``slack``)
SLACK = 2
HEURISTICS = {"mrv": MRV, "first": FIRST, "slack": SLACK}
#: the most nodes (headers, spacers and option entries) a problem may have: links are int32
MAX_NODES = 2**31 - 2

_i64 = ctypes.c_int64
_i32 = ctypes.c_int32
_ptr = ctypes.c_void_p


class _Run(ctypes.Structure):
    """``run`` of cover_native.c: one search's parameters and results."""
    _fields_ = [("heuristic", _i32), ("limit", _i64), ("node_limit", _i64), ("keep", _i64),
                ("chosen", _ptr), ("depth", _ptr), ("prefix", _ptr), ("prefix_length", _i32),
                ("split_depth", _i32), ("pieces", _ptr), ("piece_room", _i64), ("stop", _ptr),
                ("count", _i64), ("nodes", _i64), ("updates", _i64), ("pieces_found", _i64),
                ("complete", _i32)]


def _declare(lib: ctypes.CDLL) -> None:
    lib.cover_build.argtypes = [_i32, _i32, _i32, _ptr, _ptr, _ptr, _ptr, _ptr, _i32]
    lib.cover_build.restype = _ptr
    lib.cover_clone.argtypes = [_ptr]
    lib.cover_clone.restype = _ptr
    lib.cover_free.argtypes = [_ptr]
    lib.cover_free.restype = None
    for search in (lib.cover_search_x, lib.cover_search_m):
        search.argtypes = [_ptr, ctypes.POINTER(_Run)]
        search.restype = _i32


NATIVE = NativeLibrary(Path(__file__).with_name("cover_native.c"), _declare)


def library() -> ctypes.CDLL | None:
    """The compiled kernel (loaded on first use), or None (``NATIVE.why_not`` says why)."""
    return NATIVE.library()


def _address(buffer: array | None) -> int | None:
    if buffer is None or len(buffer) == 0:
        return None
    return buffer.buffer_info()[0]


class Outcome:
    """What a search found: solutions (up to the limit), nodes and updates (Knuth's counts),
    ``complete`` (False when stopped by a node budget or a stop request) and the options
    (0-based) of the first ``keep`` solutions. (A plain class: see
    :class:`formats.dlx_format.DlxProblem`.)"""

    def __init__(self, count: int, nodes: int, updates: int, complete: bool = True,
                 solutions: list[list[int]] | None = None) -> None:
        self.count = count
        self.nodes = nodes
        self.updates = updates
        self.complete = complete
        self.solutions = [] if solutions is None else solutions

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Outcome) and vars(self) == vars(other)

    def __repr__(self) -> str:
        return (f"Outcome(count={self.count}, nodes={self.nodes}, updates={self.updates}, "
                f"complete={self.complete}, solutions={len(self.solutions)})")


class StopFlag:
    """A flag another thread sets to stop a search at its next node."""

    def __init__(self) -> None:
        self.value = _i32(0)

    def set(self) -> None:
        self.value.value = 1

    def is_set(self) -> bool:
        return bool(self.value.value)

    @property
    def address(self) -> int:
        return ctypes.addressof(self.value)


class CoverKernel:
    """An exact cover problem linked by the C kernel, ready to search (any number of times:
    every search leaves it as it found it). Not shared between threads: :meth:`clone`.

    ``items`` names the number of items, the first ``primary`` of them primary; option ``o``
    covers ``flat[starts[o]:starts[o+1]]`` (0-based item indices, distinct, one primary at
    least: as :mod:`formats.exact_cover` checks). ``colors`` (per entry of flat, 0 = none) and
    ``lower``/``upper`` (per primary item) are the extensions; ``extended`` makes the problem
    one for :meth:`search` with colors and multiplicities (the kernel of
    :mod:`solvers.exact_cover.algorithm_m`), else it is searched by Algorithm X."""

    def __init__(self, items: int, primary: int, starts: array, flat: array,
                 colors: array | None = None, lower: array | None = None,
                 upper: array | None = None, extended: bool = False) -> None:
        self.handle: int | None = None
        lib = library()
        if lib is None:
            raise RuntimeError(f"no compiled exact cover kernel: {NATIVE.why_not}")
        self.lib = lib
        self.items, self.primary = items, primary
        self.options = len(starts) - 1
        self.extended = extended
        for name, buffer in (("starts", starts), ("flat", flat), ("colors", colors),
                             ("lower", lower), ("upper", upper)):
            if buffer is not None and (buffer.typecode != "i" or buffer.itemsize != 4):
                raise TypeError(f"{name} must be an array('i') of int32")
        if items + 2 + self.options + len(flat) > MAX_NODES:
            raise MemoryError("more nodes than the kernel's 32-bit links can number")
        self.handle = self.lib.cover_build(items, primary, self.options, _address(starts),
                                           _address(flat), _address(colors), _address(lower),
                                           _address(upper), int(extended))
        if not self.handle:
            raise MemoryError("out of memory linking the problem")

    @classmethod
    def from_dlx(cls, problem: DlxProblem) -> CoverKernel:
        """The kernel of a :class:`formats.dlx_format.DlxProblem`: Algorithm X, or the search
        with colors and multiplicities when it has either."""
        return cls(len(problem.items), problem.primary, problem.starts, problem.flat,
                   problem.colors, problem.lower, problem.upper, problem.extended)

    def clone(self) -> CoverKernel:
        """An independent copy (for another thread)."""
        handle = self.lib.cover_clone(self.handle)
        if not handle:
            raise MemoryError("out of memory copying the problem")
        copy = object.__new__(CoverKernel)
        copy.__dict__.update(self.__dict__)
        copy.handle = handle
        return copy

    def close(self) -> None:
        if self.handle:
            self.lib.cover_free(self.handle)
            self.handle = None

    def __del__(self) -> None:
        if getattr(self, "handle", None) and getattr(self, "lib", None) is not None:
            self.close()

    # -- searching ----------------------------------------------------------------------------
    def search(self, heuristic: int = MRV, limit: int = 0, keep: int = 0, node_limit: int = 0,
               stop: StopFlag | None = None, prefix: list[int] | None = None) -> Outcome:
        """Count the solutions (up to ``limit``, 0 = all; before trying an option once
        ``node_limit`` nodes were counted, 0 = no budget), keeping the options of the first
        ``keep``. ``prefix`` is a piece of :meth:`split`: its choices are made first, uncounted,
        and the counts are those of the search below them. ``heuristic``: MRV or FIRST for
        Algorithm X (SLACK is MRV there), MRV or SLACK with colors and multiplicities."""
        if self.extended and heuristic == FIRST:
            raise ValueError("colors and multiplicities: the MRV or SLACK choice")
        width = max(self.options if self.extended else self.primary, 1)
        chosen = array("i", bytes(4 * width * keep)) if keep else array("i")
        depth = array("i", bytes(4 * keep)) if keep else array("i")
        prefix_buffer = array("i", prefix or [])
        run = self._run(heuristic=heuristic, limit=limit, node_limit=node_limit, keep=keep,
                        chosen=_address(chosen), depth=_address(depth),
                        prefix=_address(prefix_buffer), prefix_length=len(prefix_buffer),
                        stop=stop.address if stop else None)
        found = min(run.count, keep)
        return Outcome(run.count, run.nodes, run.updates, bool(run.complete),
                       [chosen[s * width:s * width + depth[s]].tolist() for s in range(found)])

    def split(self, depth: int, heuristic: int = MRV) -> tuple[Outcome, list[list[int]]]:
        """The search down to ``depth`` levels: its own counts (the root, the choices made
        above ``depth``, the solutions found there) and the pieces, the choices made on each
        path that reaches ``depth`` (option nodes, or for colors and multiplicities branch
        numbers), in the order the search meets them. These counts plus those of
        ``search(prefix=piece)`` for every piece are the whole search's."""
        room = 1024
        while True:
            pieces = array("i", bytes(4 * room * depth))
            run = self._run(heuristic=heuristic, split_depth=depth, pieces=_address(pieces),
                            piece_room=room)
            if run.pieces_found <= room:
                break
            room = run.pieces_found
        found = [pieces[k * depth:(k + 1) * depth].tolist() for k in range(run.pieces_found)]
        return Outcome(run.count, run.nodes, run.updates, bool(run.complete)), found

    def _run(self, heuristic: int = MRV, **fields: int | None) -> _Run:
        """One call of cover_search_x (or _m) with these fields of its run; the run back."""
        if self.extended:
            run = _Run(heuristic=SLACK if heuristic == SLACK else MRV, **fields)
            status = self.lib.cover_search_m(self.handle, ctypes.byref(run))
        else:
            run = _Run(heuristic=FIRST if heuristic == FIRST else MRV, **fields)
            status = self.lib.cover_search_x(self.handle, ctypes.byref(run))
        if status != 0:
            raise MemoryError("out of memory in the search")
        return run
