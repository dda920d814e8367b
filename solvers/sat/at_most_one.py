"""At-most-one and exactly-one constraints over many groups of literals, as CNF.

Every encoding is first built once per group width k as a *template*: clauses
over local indices 0..k-1 (the group's own literals) and k..k+a-1 (its a
auxiliary variables), with signs. Instantiating a template for g groups at once
is one numpy fancy-index: the (g, k + a) table of each group's literals and fresh
auxiliaries, indexed by the template. No Python loop runs over groups.

Encodings (k = group width; clauses and auxiliaries per group):

``pairwise``    k(k-1)/2 binary clauses, no auxiliaries.
``sequential``  Sinz's sequential counter: 3k-4 clauses, k-1 auxiliaries.
``commander``   Klieber & Kwon: subgroups of 3, each with a commander c <-> OR(subgroup),
                pairwise inside, recursion over the commanders; ~3k clauses, ~k/2 auxiliaries.
``bimander``    Nguyen & Mai: subgroups of 2 (pairwise inside), each literal implies the
                binary code of its subgroup over ceil(log2(k/2)) bits.
``binary``      the bitwise (binary) encoding: k·ceil(log2 k) clauses, ceil(log2 k) auxiliaries.
``product``     Chen's 2-product: a p×q grid with p·q >= k, row and column auxiliaries,
                each literal implies both; recursion on the rows and columns; ~2k + O(√k) clauses.
``pysat-<e>``   PySAT's ``CardEnc.atmost(bound=1)`` with encoding <e> (``seqcounter``,
                ``ladder``, ``bitwise``, ``totalizer``, ``mtotalizer``, ``kmtotalizer``,
                ``sortnetwrk``, ``cardnetwrk``), taken as a template.
``auto``        the default chosen by measurement (tests/bench/bench_large_n.py):
                pairwise up to width :data:`AUTO_PAIRWISE_MAX`, else :data:`AUTO_WIDE`.

Output: clauses as a list of fixed-width int32 blocks (an (m, w) array is m
clauses of w literals), the layout of ``solvers.sat.sudoku_cnf.Formula.blocks``;
:func:`flat_clauses` gives the DIMACS-style flat array with 0 terminators.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from formats.errors import RaceError

LIT_DTYPE = np.int32
PYSAT_ENCODINGS = ("seqcounter", "ladder", "bitwise", "totalizer", "mtotalizer", "kmtotalizer",
                   "sortnetwrk", "cardnetwrk")
VARIANTS = ("pairwise", "sequential", "commander", "bimander", "binary", "product",
            *(f"pysat-{e}" for e in PYSAT_ENCODINGS), "auto")
#: ``auto`` uses pairwise up to this width and :data:`AUTO_WIDE` above it (set by measurement).
AUTO_PAIRWISE_MAX = 6
AUTO_WIDE = "product"
#: the encoding callers get when they name none
DEFAULT = "auto"

# A template: local clauses, each a list of (local index, positive?) pairs, and the aux count.
Clause = list[tuple[int, bool]]


# -- templates over local indices --------------------------------------------------------

def _pairwise(lits: list[int]) -> list[Clause]:
    return [[(a, False), (b, False)] for i, a in enumerate(lits) for b in lits[i + 1:]]


def _sequential(lits: list[int], fresh: list[int]) -> list[Clause]:
    k = len(lits)
    if k <= 1:
        return []
    s = [_take(fresh) for _ in range(k - 1)]
    out: list[Clause] = [[(lits[0], False), (s[0], True)]]
    for i in range(1, k - 1):
        out += [[(lits[i], False), (s[i], True)], [(s[i - 1], False), (s[i], True)],
                [(lits[i], False), (s[i - 1], False)]]
    out.append([(lits[k - 1], False), (s[k - 2], False)])
    return out


def _commander(lits: list[int], fresh: list[int], size: int = 3) -> list[Clause]:
    if len(lits) <= size + 1:
        return _pairwise(lits)
    out: list[Clause] = []
    commanders = []
    for start in range(0, len(lits), size):
        part = lits[start:start + size]
        c = _take(fresh)
        commanders.append(c)
        out += _pairwise(part)
        out += [[(x, False), (c, True)] for x in part]
        out.append([(c, False)] + [(x, True) for x in part])
    return out + _commander(commanders, fresh, size)


def _bimander(lits: list[int], fresh: list[int], size: int = 2) -> list[Clause]:
    parts = [lits[s:s + size] for s in range(0, len(lits), size)]
    if len(parts) <= 1:
        return _pairwise(lits)
    bits = [_take(fresh) for _ in range((len(parts) - 1).bit_length())]
    out: list[Clause] = []
    for index, part in enumerate(parts):
        out += _pairwise(part)
        out += [[(x, False), (b, bool(index >> j & 1))] for x in part for j, b in enumerate(bits)]
    return out


def _product(lits: list[int], fresh: list[int]) -> list[Clause]:
    k = len(lits)
    if k <= 4:
        return _pairwise(lits)
    p = int(np.ceil(np.sqrt(k)))
    q = -(-k // p)
    rows = [_take(fresh) for _ in range(p)]
    cols = [_take(fresh) for _ in range(q)]
    out: list[Clause] = []
    for t, x in enumerate(lits):
        out += [[(x, False), (rows[t // q], True)], [(x, False), (cols[t % q], True)]]
    return out + _product(rows, fresh) + _product(cols, fresh)


def _take(fresh: list[int]) -> int:
    fresh[0] += 1
    return fresh[0] - 1


def _pysat(k: int, encoding: str) -> tuple[list[Clause], int]:
    from pysat.card import CardEnc, EncType
    cnf = CardEnc.atmost(lits=list(range(1, k + 1)), bound=1, top_id=k,
                         encoding=getattr(EncType, encoding))
    aux = sorted({abs(v) for c in cnf.clauses for v in c if abs(v) > k})
    local = {v: i + 1 for i, v in enumerate(range(1, k + 1))} | {v: k + 1 + i for i, v in enumerate(aux)}
    return [[(local[abs(v)] - 1, v > 0) for v in c] for c in cnf.clauses], len(aux)


@cache
def template(name: str, k: int) -> tuple[tuple[tuple[np.ndarray, np.ndarray], ...], int]:
    """The at-most-one encoding ``name`` for one group of width k: per clause width,
    (local indices (m, w), signs (m, w) of ±1), and the number of auxiliaries."""
    name = _resolve(name, k)
    lits = list(range(k))
    fresh = [k]
    if name.startswith("pysat-"):
        clauses, aux = _pysat(k, name[len("pysat-"):])
    else:
        build = {"pairwise": lambda: _pairwise(lits), "sequential": lambda: _sequential(lits, fresh),
                 "commander": lambda: _commander(lits, fresh), "bimander": lambda: _bimander(lits, fresh),
                 "binary": lambda: _bimander(lits, fresh, 1), "product": lambda: _product(lits, fresh)}
        clauses, aux = build[name](), fresh[0] - k
    by_width: dict[int, list[Clause]] = {}
    for c in clauses:
        by_width.setdefault(len(c), []).append(c)
    blocks = tuple((np.array([[i for i, _ in c] for c in cs], np.int64),
                    np.array([[1 if s else -1 for _, s in c] for c in cs], np.int64))
                   for _, cs in sorted(by_width.items()))
    return blocks, aux


def _resolve(name: str, k: int) -> str:
    if name == "auto":
        return "pairwise" if k <= AUTO_PAIRWISE_MAX else AUTO_WIDE
    if name not in VARIANTS:
        raise RaceError(f"unknown at-most-one encoding {name!r} (known: {', '.join(VARIANTS)})")
    return name


# -- instantiation over many groups ----------------------------------------------------------

def _same_width(name: str, rows: np.ndarray, next_var: int) -> tuple[list[np.ndarray], int]:
    g, k = rows.shape
    blocks, aux = template(name, k)
    if next_var + g * aux > np.iinfo(LIT_DTYPE).max:
        raise RaceError(f"at-most-one: more than {np.iinfo(LIT_DTYPE).max} variables")
    table = np.empty((g, k + aux), LIT_DTYPE)
    table[:, :k] = rows
    table[:, k:] = np.arange(next_var, next_var + g * aux, dtype=LIT_DTYPE).reshape(g, aux)
    out = [np.multiply(table[:, idx], sign.astype(LIT_DTYPE)).reshape(-1, idx.shape[1])
           for idx, sign in blocks]
    return out, next_var + g * aux


def _by_width(groups: np.ndarray | Sequence[Sequence[int]]) -> list[np.ndarray]:
    if isinstance(groups, np.ndarray):
        if groups.ndim != 2:
            raise RaceError(f"at-most-one groups: expected a 2-D array, got shape {groups.shape}")
        return [groups.astype(LIT_DTYPE, copy=False)] if groups.size else []
    rows = [np.asarray(r, LIT_DTYPE).ravel() for r in groups]
    widths = np.array([r.size for r in rows], np.int64)
    return [np.stack([rows[i] for i in np.flatnonzero(widths == w)]) for w in np.unique(widths) if w]


def at_most_one(groups: np.ndarray | Sequence[Sequence[int]], next_var: int,
                name: str = "auto") -> tuple[list[np.ndarray], int]:
    """Clauses saying at most one literal of each group is true.

    ``groups``: a (g, k) int array (one group per row) or a list of groups of any
    widths, each of positive DIMACS literals; ``next_var``: the first variable number
    free for auxiliaries. Returns (blocks, next free variable): fixed-width int32
    clause blocks. Raises RaceError for an unknown ``name`` (see :data:`VARIANTS`)."""
    if next_var < 1:
        raise RaceError(f"next free variable must be >= 1, got {next_var}")
    blocks: list[np.ndarray] = []
    for rows in _by_width(groups):
        if rows.shape[1] > 1:
            new, next_var = _same_width(name, rows, next_var)
            blocks += [b for b in new if b.size]
    return blocks, next_var


def exactly_one(groups: np.ndarray | Sequence[Sequence[int]], next_var: int,
                name: str = "auto") -> tuple[list[np.ndarray], int]:
    """At-most-one clauses plus one at-least-one clause (the group itself) per group."""
    blocks, next_var = at_most_one(groups, next_var, name)
    return [rows.astype(LIT_DTYPE) for rows in _by_width(groups)] + blocks, next_var


def amo(name: str, groups: np.ndarray | Sequence[Sequence[int]], next_var: int,
        exactly: bool = False) -> tuple[list[np.ndarray], int]:
    """Name-first chooser: :func:`exactly_one` if ``exactly`` else :func:`at_most_one`."""
    return (exactly_one if exactly else at_most_one)(groups, next_var, name)


def flat_clauses(blocks: Sequence[np.ndarray]) -> np.ndarray:
    """The clauses of fixed-width blocks as one flat int32 array, each clause followed by 0."""
    parts = [np.hstack([b, np.zeros((b.shape[0], 1), b.dtype)]).ravel() for b in blocks if b.size]
    return np.concatenate(parts).astype(LIT_DTYPE) if parts else np.zeros(0, LIT_DTYPE)
