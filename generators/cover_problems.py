"""Example exact cover problems in Knuth's style: queens, rooks, Latin squares, the blog's grids.

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

:func:`toroidal_queens` is the thesis's N queens on a torus (diagonals wrap
around: A(i+j mod N), B(i-j mod N), secondary), :func:`rooks` N rooks (ranks and
files only: N! solutions), :func:`plus_noise` the blog's "plus noise" grid
(every plus of a cell and its four toroidal neighbours holds 1..5; 5 x 5:
240 solutions) and :func:`windowed_sudoku` its generalized Sudoku on the 9 x 9
torus where every 3 x 3 window (one centred on each cell) holds 1..9 (none),
``relaxed`` without the row and column constraints.

The polyomino, polyiamond and polystick problems of the paper live in
:mod:`generators.polyominoes`, :mod:`generators.polyiamonds` and
:mod:`generators.polysticks`; :data:`EXAMPLES` lists every problem ``race
example`` knows, with its known answer and where it comes from.
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


def toroidal_queens(n: int) -> ExactCover:
    """N queens on the torus: as :func:`queens` (ranks and files primary in
    organ-pipe order), but the diagonals wrap around, A(i+j mod N) and
    B(i-j mod N), all 2N of them secondary. Solutions exist exactly when N is
    prime to 6 (Pólya, cited by the thesis)."""
    if n < 1:
        raise RaceError(f"toroidal N queens needs N >= 1, got {n}")
    primary = [name for t in organ_pipe(n) for name in (f"R{t}", f"F{t}")]
    items = primary + [f"A{d}" for d in range(n)] + [f"B{d}" for d in range(n)]
    index = {name: t for t, name in enumerate(items)}
    options = [[index[f"R{i}"], index[f"F{j}"], index[f"A{(i + j) % n}"], index[f"B{(i - j) % n}"]]
               for i in range(n) for j in range(n)]
    return ExactCover.from_options(items, len(primary), options)


def rooks(n: int) -> ExactCover:
    """N rooks on an N x N board, no two attacking (the blog's N rooks): one option
    ``Ri Fj`` per square, ranks and files primary; N! solutions."""
    if n < 1:
        raise RaceError(f"N rooks needs N >= 1, got {n}")
    items = [f"R{i}" for i in range(n)] + [f"F{j}" for j in range(n)]
    return ExactCover.from_options(items, None, [[i, n + j] for i in range(n) for j in range(n)])


PLUS = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1))


def plus_noise(n: int = 5) -> ExactCover:
    """The blog's plus-noise grid on the n x n torus: each cell holds one of
    1..5 and every plus (a cell and its four neighbours, wrapping around)
    holds each of 1..5 once. Items: ``p{x}_{y}`` (the cell is filled), then
    ``s{x}_{y}v{v}`` (the plus centred at (x, y) holds v); one option per cell
    and value. n = 5: 240 solutions (the blog: two formulas times 5! relabellings)."""
    if n < 1:
        raise RaceError(f"plus noise needs a side >= 1, got {n}")
    cells = [(x, y) for y in range(n) for x in range(n)]
    items = [f"p{x}_{y}" for x, y in cells] + [f"s{x}_{y}v{v}" for x, y in cells for v in range(1, 6)]
    index = {name: t for t, name in enumerate(items)}
    options = []
    for x, y in cells:
        for v in range(1, 6):
            # the pluses that contain (x, y) are centred on (x, y) and its neighbours
            centres = {((x - dx) % n, (y - dy) % n) for dx, dy in PLUS}
            if len(centres) < 5:        # a plus overlapping itself (n < 3) would hold v twice
                continue
            options.append([index[f"p{x}_{y}"]] + [index[f"s{cx}_{cy}v{v}"] for cx, cy in
                                                    [((x - dx) % n, (y - dy) % n) for dx, dy in PLUS]])
    if not options:
        raise RaceError(f"no plus fits on a {n} x {n} torus without overlapping itself")
    return ExactCover.from_options(items, None, options)


def windowed_sudoku(relaxed: bool = False, knuth: bool = False) -> ExactCover:
    """The blog's generalized Sudoku: a 9 x 9 torus in which every row, every
    column and every 3 x 3 window (one centred on each cell, wrapping around)
    holds 1..9. Items: ``p{r}{c}`` (cell filled), ``r{r}v{v}``, ``c{c}v{v}``
    (omitted when ``relaxed``), ``w{r}{c}v{v}`` (the window centred at (r, c)
    holds v); one option per cell and value. No solution; the relaxed form
    (windows only) has 9! x 133,838. ``knuth`` fixes the window centred at
    (1, 1) to 1..9 row by row (only that option in each of its cells):
    relabelling the values maps solutions one to one, so the count is the
    total divided by 9!."""
    rng = range(9)
    values = range(1, 10)
    items = [f"p{r}{c}" for r in rng for c in rng]
    if not relaxed:
        items += [f"r{r}v{v}" for r in rng for v in values] + [f"c{c}v{v}" for c in rng for v in values]
    items += [f"w{r}{c}v{v}" for r in rng for c in rng for v in values]
    index = {name: t for t, name in enumerate(items)}
    options = []
    for r in rng:
        for c in rng:
            for v in values:
                if knuth and r < 3 and c < 3 and v != 3 * r + c + 1:
                    continue
                option = [index[f"p{r}{c}"]]
                if not relaxed:
                    option += [index[f"r{r}v{v}"], index[f"c{c}v{v}"]]
                option += [index[f"w{(r - dr) % 9}{(c - dc) % 9}v{v}"]
                           for dr in (-1, 0, 1) for dc in (-1, 0, 1)]
                options.append(option)
    return ExactCover.from_options(items, None, options)


def sudoku_file(path: str) -> ExactCover:
    """The Sudoku puzzle in the file (either grid format; ``-`` = stdin) as the
    assignment's exact cover matrix (Task 18: 4n⁴ items, one option per cell
    and value the clues allow). The file must hold one puzzle."""
    from formats import grid_text  # here: only this example needs the Sudoku stack
    from solvers.exact_cover.sudoku_cover import sudoku_cover
    puzzles = grid_text.read(path)
    if len(puzzles.grids) != 1:
        raise RaceError(f"expected one puzzle, found {len(puzzles.grids)}", source=path)
    return sudoku_cover(puzzles.grids[0]).problem
