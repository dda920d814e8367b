"""Dancing links (Tasks 12-15): Knuth's toroidal 0-1 matrix in flat integer arrays.

Every object is an integer index into six parallel integer arrays, Knuth's
fields (one uint32 block of shape (6, size), so a compiled kernel takes a single
argument; unsigned because numba then drops the negative-index wraparound test
on every access, which makes the search about 1.5x faster):

* ``L``, ``R``: left/right links. The root ``h = 0`` and the headers of the
  *primary* items form one circular list; each option's nodes form another.
  A *secondary* item's header links to itself (Knuth: "The header for each
  secondary column should have L and R fields that simply point to itself"),
  so it is never chosen, yet covering it hides its options.
* ``U``, ``D``: up/down links; each item's header and its nodes form a circular list.
* ``C`` (Knuth's TOP): the header of a node's item; ``C[c] = c`` for a header.
* ``S`` (Knuth's LEN): the number of nodes in a header's list (headers only).

Layout: node 0 is the root, nodes ``1..N`` are the headers of items ``0..N-1``
(item ``t`` has header ``t + 1``), and the options' nodes follow from
``first = N + 1``, option by option in the items' given order. ``option_of[x]``
is the option index of node ``x`` (-1 for the root and headers); ``names[t]``
the name of item ``t``, so :meth:`DancingLinks.column_name` works from any node.

:func:`hook_right`, :func:`hook_down`, :func:`unlink_lr`, :func:`link_lr`,
:func:`unlink_ud`, :func:`link_ud` are the elementary dance steps of the
assignment (Equations 7 and 8); unlinking leaves the removed node's own links
intact, which is what lets linking put it back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from formats.compiled import kernel
from formats.exact_cover import INDEX_DTYPE, ExactCover

LINK_DTYPE = np.uint32      # unsigned on purpose (see the module docstring)
ROOT = 0
#: rows of the link block
L_, R_, U_, D_, C_, S_ = range(6)


# -- the dance steps (compiled, inlined into the search kernels) -------------

@kernel(cache=True, inline="always")
def hook_right(L: np.ndarray, R: np.ndarray, x: int, y: int) -> None:
    """Insert node y into x's left-right list, just right of x."""
    R[y] = R[x]
    L[R[y]] = y
    L[y] = x
    R[x] = y


@kernel(cache=True, inline="always")
def hook_down(U: np.ndarray, D: np.ndarray, x: int, y: int) -> None:
    """Insert node y into x's up-down list, just below x."""
    D[y] = D[x]
    U[D[y]] = y
    U[y] = x
    D[x] = y


@kernel(cache=True, inline="always")
def unlink_lr(L: np.ndarray, R: np.ndarray, x: int) -> None:
    """Remove x from its left-right list; x keeps its own links (Equation 7)."""
    R[L[x]] = R[x]
    L[R[x]] = L[x]


@kernel(cache=True, inline="always")
def link_lr(L: np.ndarray, R: np.ndarray, x: int) -> None:
    """Put x back where unlink_lr took it from (Equation 8)."""
    L[R[x]] = x
    R[L[x]] = x


@kernel(cache=True, inline="always")
def unlink_ud(U: np.ndarray, D: np.ndarray, x: int) -> None:
    """Remove x from its up-down list; x keeps its own links."""
    D[U[x]] = D[x]
    U[D[x]] = U[x]


@kernel(cache=True, inline="always")
def link_ud(U: np.ndarray, D: np.ndarray, x: int) -> None:
    """Put x back where unlink_ud took it from."""
    U[D[x]] = x
    D[U[x]] = x


# -- the structure -------------------------------------------------------------

@dataclass(eq=False)
class DancingLinks:
    """The dancing-links form of an exact cover problem (see the module docstring).

    ``links`` is the (6, size) uint32 block; ``L, R, U, D, C, S`` are views of
    its rows. ``primary`` items have headers 1..primary, secondary ones follow."""

    links: np.ndarray
    option_of: np.ndarray
    names: list[str]
    primary: int

    @property
    def L(self) -> np.ndarray: return self.links[L_]
    @property
    def R(self) -> np.ndarray: return self.links[R_]
    @property
    def U(self) -> np.ndarray: return self.links[U_]
    @property
    def D(self) -> np.ndarray: return self.links[D_]
    @property
    def C(self) -> np.ndarray: return self.links[C_]
    @property
    def S(self) -> np.ndarray: return self.links[S_]

    @property
    def first(self) -> int:
        """Index of the first option node (= number of items + 1)."""
        return len(self.names) + 1

    @property
    def size(self) -> int:
        return self.links.shape[1]

    def copy(self) -> DancingLinks:
        return DancingLinks(self.links.copy(), self.option_of, self.names, self.primary)

    def column_name(self, x: int) -> str:
        """The name of the item (column) that node or header x belongs to."""
        c = int(self.C[x])
        if c == ROOT:
            raise ValueError("the root h belongs to no column")
        return self.names[c - 1]

    def option_items(self, x: int) -> list[str]:
        """The item names of the option that node x belongs to, starting at x
        and walking right (Knuth's Print: N[C[x]], N[C[R[x]]], ...)."""
        out, j = [], x
        while True:
            out.append(self.column_name(j))
            j = int(self.R[j])
            if j == x:
                return out

    def active_items(self) -> list[int]:
        """Headers of the primary items still in the root's list, in list order."""
        out, c = [], int(self.R[ROOT])
        while c != ROOT:
            out.append(c)
            c = int(self.R[c])
        return out

    # -- constructors ------------------------------------------------------------
    @classmethod
    def from_problem(cls, problem: ExactCover, order: np.ndarray | None = None) -> DancingLinks:
        """Build from an :class:`ExactCover`. ``order`` (a permutation of the
        primary items) is the order in which their headers are linked into the
        root's list (default: the given order)."""
        return cls.from_csr(problem.items, problem.primary, problem.starts, problem.flat, order)

    @classmethod
    def from_dense(cls, matrix: np.ndarray, names: list[str] | None = None,
                   primary: int | None = None) -> DancingLinks:
        """Build from a dense 0-1 matrix (rows = options, columns = items)."""
        return cls.from_problem(ExactCover.from_dense(matrix, names, primary))

    @classmethod
    def from_csr(cls, names: list[str], primary: int, starts: np.ndarray, flat: np.ndarray,
                 order: np.ndarray | None = None) -> DancingLinks:
        """Build from CSR option arrays (option o covers items flat[starts[o]:starts[o+1]])
        as the assignment describes: the root, the primary headers hooked right
        of each other (in ``order``; default: given order), secondary headers
        linked to themselves, then each option's nodes hooked right of each other
        and below the last node of their column. One compiled pass over the nodes."""
        n_items = len(names)
        if order is None:
            ring = np.arange(primary, dtype=np.int64)
        else:
            ring = np.asarray(order, dtype=np.int64)
            if len(ring) != primary or not np.array_equal(np.sort(ring), np.arange(primary)):
                raise ValueError("order must be a permutation of the primary items")
        starts = np.asarray(starts, dtype=np.int64)
        size = n_items + 1 + int(starts[-1])
        links = np.empty((6, size), dtype=LINK_DTYPE)
        option_of = np.empty(size, dtype=np.int64)
        _hook_all(links, option_of, n_items, ring, starts, np.asarray(flat, dtype=INDEX_DTYPE))
        return cls(links, option_of, list(names), primary)


@kernel(cache=True)
def _hook_all(links: np.ndarray, option_of: np.ndarray, n_items: int, ring: np.ndarray,
              starts: np.ndarray, flat: np.ndarray) -> None:
    L, R, U, D, C, S = links[0], links[1], links[2], links[3], links[4], links[5]
    for x in range(n_items + 1):          # fresh nodes: every link to itself
        L[x] = R[x] = U[x] = D[x] = x
        C[x] = x
        S[x] = 0
        option_of[x] = -1
    last = ROOT
    for t in ring:                        # primary headers, left to right after h
        hook_right(L, R, last, t + 1)
        last = t + 1
    first = n_items + 1
    for o in range(len(starts) - 1):
        for p in range(starts[o], starts[o + 1]):
            x = first + p
            c = flat[p] + 1
            L[x] = R[x] = U[x] = D[x] = x
            C[x] = c
            S[x] = 0
            option_of[x] = o
            if p > starts[o]:
                hook_right(L, R, x - 1, x)
            hook_down(U, D, U[c], x)      # at the bottom of column c
            S[c] += 1


def format_links(dl: DancingLinks, max_options: int | None = 50) -> str:
    """A human-readable print of the current matrix (Task 15).

    Lists the active primary items (the root's list) with their sizes, then
    every option still reachable from a column list, once each (a set of
    printed nodes prevents repeats), as item names from the column it was
    found in. Options hidden by covering are not shown."""
    L, R, U, D, C, S = dl.links
    lines = ["items: " + " ".join(f"{dl.names[c - 1]}({S[c]})" for c in dl.active_items())]
    secondary = [c for c in range(dl.primary + 1, dl.first) if U[c] != c or D[c] != c]
    if secondary:
        lines[0] += " | " + " ".join(f"{dl.names[c - 1]}({S[c]})" for c in secondary)
    printed: set[int] = set()
    shown = 0
    for c in dl.active_items() + secondary:
        x = int(D[c])
        while x != c:
            if x not in printed:
                row = dl.option_items(x)
                j = x
                while True:
                    printed.add(j)
                    j = int(R[j])
                    if j == x:
                        break
                shown += 1
                if max_options is None or shown <= max_options:
                    lines.append(f"option {dl.option_of[x] + 1}: " + " ".join(row))
            x = int(D[x])
    if max_options is not None and shown > max_options:
        lines.append(f"... {shown - max_options} more options")
    return "\n".join(lines)
