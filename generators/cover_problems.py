"""Example exact cover problems in Knuth's style: N queens and Latin squares.

:func:`queens` is the generalized cover problem of Knuth's "Dancing Links"
paper exactly: primary items R0..R(N-1) (ranks) and F0..F(N-1) (files) linked
in *organ-pipe order* (for N = 8: R4 F4 R3 F3 R5 F5 R2 F2 R6 F6 R1 F1 R7 F7 R0
F0), secondary items A1..A(2N-3) and B1..B(2N-3) (the diagonals; A0, A(2N-2),
B0 and B(2N-2) occur in one option only and are left out, as in the paper),
and one option ``Ri Fj A(i+j) B(N-1-i+j)`` per square (i, j), listed rank by
rank. Solved with the S heuristic it reproduces the paper's table of
solutions, nodes and updates.

:func:`latin_square` covers an N x N Latin square: items ``pIJ`` (cell (i, j)
is filled), ``rIvV`` (row i holds v), ``cJvV`` (column j holds v); one option
per (i, j, v). It has N!·(N-1)!·L(N) solutions (N = 4: 576).
"""

from __future__ import annotations

from formats.errors import RaceError
from formats.exact_cover import ExactCover


def organ_pipe(n: int) -> list[int]:
    """0..n-1 from the middle outwards: n//2, n//2-1, n//2+1, ... (Knuth's
    order; for n = 8: 4 3 5 2 6 1 7 0)."""
    return [(n - 1 - t if t % 2 else n + t) // 2 for t in range(n)]


def queens(n: int) -> ExactCover:
    """The N queens problem as Knuth's generalized exact cover (see module docstring)."""
    if n < 1:
        raise RaceError(f"N queens needs N >= 1, got {n}")
    primary = [name for t in organ_pipe(n) for name in (f"R{t}", f"F{t}")]
    diagonals = range(1, 2 * n - 2)          # 0 and 2N-2 are the one-option corners
    secondary = [f"A{d}" for d in diagonals] + [f"B{d}" for d in diagonals]
    items = primary + secondary
    index = {name: t for t, name in enumerate(items)}
    options = []
    for i in range(n):
        for j in range(n):
            names = [f"R{i}", f"F{j}", f"A{i + j}", f"B{n - 1 - i + j}"]
            options.append([index[x] for x in names if x in index])
    return ExactCover.from_options(items, len(primary), options)


def latin_square(n: int) -> ExactCover:
    """The N x N Latin squares as an exact cover problem (3N² items, N³ options)."""
    if n < 1:
        raise RaceError(f"a Latin square needs N >= 1, got {n}")
    rng = range(n)
    items = ([f"p{i}{j}" if n <= 10 else f"p{i}_{j}" for i in rng for j in rng]
             + [f"r{i}v{v}" for i in rng for v in rng] + [f"c{j}v{v}" for j in rng for v in rng])
    sq = n * n
    options = [[i * n + j, sq + i * n + v, 2 * sq + j * n + v] for i in rng for j in rng for v in rng]
    return ExactCover.from_options(items, None, options)
