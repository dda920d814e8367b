"""Many puzzles at once: parse together, solve in one compiled call, verify vectorised.

``race solve`` / ``race count`` over a file of thousands of puzzles pay Python
overhead per puzzle (building an exact cover matrix, a Grid, a Result). Here:

* :func:`formats.grid_text.parse_one_line_many` (the one-line reader, vectorised)
  turns a one-line file into one ``(P, side, side)`` array;
* :func:`dlx_many` runs the DLX counter over every puzzle in one compiled call,
  on the full Sudoku matrix built once per n (:func:`solvers.exact_cover.dlx.full_links`):
  each puzzle's clues are covered, DLX (MRV) runs, the covers are undone;
* :func:`solvers.rules.are_solutions_of` (IsSolved of the rules core, for many
  grids at once) checks every answer;
* :func:`solve_many` wraps it all into the same :class:`~solvers.interface.Result`
  objects (same statuses, same verification) as ``Solver.solve`` / ``count``.
  Entrants the batch kernel does not cover (anything but ``dlx`` with the MRV
  heuristic) fall back to the per-puzzle path.

Per-puzzle times in a batch Result are the batch's times divided by the number
of puzzles (``load``, ``search``, ``verify``): one call cannot time puzzles apart. ``load`` is
building or loading the C kernel, or loading numba's (see :func:`solve_array`).
"""

from __future__ import annotations

import time

import numpy as np

from formats.compiled import interpreted, is_interpreted, kernel, load_seconds
from formats.errors import RaceError
from formats.grid import Grid
from formats.grid_text import ONE_LINE_DIGITS
from solvers import dlx_native, registry, rules
from solvers.exact_cover.dlx import count_with_clues, full_links
from solvers.interface import SOLVED, UNKNOWN, UNSAT, WRONG, Result


@kernel(cache=True, nogil=True)
def _dlx_kernel(links: np.ndarray, puzzles: np.ndarray, n: int, limit: int, node_limit: int,
                solutions: np.ndarray, counts: np.ndarray, nodes: np.ndarray,
                complete: np.ndarray) -> None:
    for p in range(puzzles.shape[0]):
        c, k, done = count_with_clues(links, puzzles[p], n, limit, node_limit, solutions[p])
        counts[p] = c
        nodes[p] = k
        complete[p] = done


#: puzzles per thread below which :func:`dlx_many` stays on one thread
PUZZLES_PER_THREAD = 2000


def dlx_many(puzzles: np.ndarray, n: int, limit: int = 1, node_limit: int = 0, threads: int = 1
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """DLX (MRV) on every puzzle of ``puzzles`` (P, n², n²) in one compiled call,
    or in up to ``threads`` calls side by side (the kernel releases the GIL; each
    thread has its own copy of the links; at least :data:`PUZZLES_PER_THREAD`
    puzzles each; interpreted kernels use one thread).

    Returns (counts, nodes, complete, solutions): solutions found per puzzle
    up to ``limit`` (0 = all), search nodes, False where ``node_limit`` (0 =
    none) stopped the search, and the first solution of each puzzle (rows of
    a puzzle without one are undefined). Clues that conflict give count 0.
    Unverified: see :func:`solvers.rules.are_solutions_of`.

    The search runs in the C port of the kernel (:mod:`solvers.dlx_native`) when it could be
    built, and numba is then not imported at all (the links are built by the kernels
    interpreted); else in the numba kernel. Same answers, same node counts."""
    puzzles = np.ascontiguousarray(puzzles, dtype=np.int32)
    count = puzzles.shape[0]
    solutions = np.zeros_like(puzzles)
    counts = np.zeros(count, dtype=np.int64)
    nodes = np.zeros(count, dtype=np.int64)
    complete = np.zeros(count, dtype=np.bool_)
    native = not is_interpreted() and dlx_native.library() is not None
    parts = 1 if is_interpreted() else max(1, min(threads, count // PUZZLES_PER_THREAD))
    bounds = np.linspace(0, count, parts + 1).astype(int)
    # each part's own links, copied here before any thread starts: the kernel changes its
    # links while it runs (and restores them), so a copy taken while part 0 runs on the
    # shared block is a torn one (it crashed `race solve` on 20,000 puzzles)
    with interpreted(native):
        shared = full_links(n)
    links = [shared] + [shared.copy() for _ in range(parts - 1)]
    search = dlx_native.count_many if native else _dlx_kernel

    def run(part: int) -> None:
        chunk = slice(bounds[part], bounds[part + 1])
        search(links[part], puzzles[chunk], n, limit, node_limit, solutions[chunk], counts[chunk],
               nodes[chunk], complete[chunk])

    if parts > 1 and not native:
        # compiled (or loaded from numba's cache) for these argument types here, once, before
        # the threads start: numba compiles a signature at its first call, and two threads
        # making that first call at once on a fresh clone (empty cache, being written) crashed CI
        empty = slice(0, 0)
        _dlx_kernel(links[0], puzzles[empty], n, limit, node_limit, solutions[empty],
                    counts[empty], nodes[empty], complete[empty])
    if parts == 1:
        if count:
            run(0)
    else:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(parts) as pool:
            list(pool.map(run, range(parts)))
    return counts, nodes, complete, solutions


def format_one_line_many(solutions: np.ndarray) -> list[str]:
    """Each (side, side) grid of ``solutions`` as one line (n <= 5), vectorised."""
    count, side = solutions.shape[0], solutions.shape[1]
    alphabet = np.frombuffer(("." + ONE_LINE_DIGITS[:side]).encode(), dtype=np.uint8)
    text = alphabet[solutions.reshape(count, side * side)].tobytes().decode()
    width = side * side
    return [text[i * width:(i + 1) * width] for i in range(count)]


def batch_capable(spec: str) -> bool:
    """True when ``spec`` is an entrant :func:`solve_many` runs in one compiled
    call (``dlx`` with the MRV heuristic, any ``node_limit``)."""
    name, params = registry.parse_spec(spec)
    try:
        return registry.BUILTIN.solver_class(name).batch_capable(params)
    except RaceError:
        return False


def solve_many(grids: list[Grid], spec: str, limit: int | None = 1,
               solvers: registry.Registry = registry.BUILTIN) -> list[Result]:
    """Solve (``limit`` = 1) or count (up to ``limit``, None = all) every grid
    with the entrant ``spec`` (created through ``solvers``); one verified Result
    per grid, with the statuses and checks of :meth:`Solver.solve` /
    :meth:`Solver.count`. Grids of several sizes are batched per size;
    non-batch entrants run one by one."""
    if limit is not None and limit < 1:
        raise RaceError(f"the solution limit must be >= 1, got {limit}")
    solver = solvers.create(spec)             # validates the parameters
    if not batch_capable(spec):
        return [solver.solve(g) if limit == 1 else solver.count(g, limit) for g in grids]
    node_limit = int(solver.params["node_limit"])
    results: list[Result | None] = [None] * len(grids)
    for n in sorted({g.n for g in grids}):
        where = [i for i, g in enumerate(grids) if g.n == n]
        puzzles = np.stack([grids[i].cells for i in where])
        for i, result in zip(where, solve_array(puzzles, n, limit, node_limit)):
            results[i] = result
    return results  # type: ignore[return-value]


def _checked_grid(n: int, cells: np.ndarray) -> Grid:
    """A Grid around ``cells`` without Grid's range scan: the batch already
    checked every value (rules.are_solutions_of), and the scan costs as much as the search."""
    grid = object.__new__(Grid)
    grid.n, grid.cells = n, cells
    return grid


def solve_array(puzzles: np.ndarray, n: int, limit: int | None = 1, node_limit: int = 0,
                threads: int = 1) -> list[Result]:
    """:func:`solve_many` for one (P, n², n²) array of puzzles of box size n (dlx),
    on up to ``threads`` threads (see :func:`dlx_many`)."""
    t0 = time.perf_counter()
    loaded = load_seconds()
    if not is_interpreted():
        dlx_native.library()          # built, or loaded, once: the load, not the search
    native = time.perf_counter() - t0
    counts, nodes, complete, solutions = dlx_many(puzzles, n, limit or 0, node_limit, threads)
    t1 = time.perf_counter()
    load = native + load_seconds() - loaded         # + numba's, when the C kernel is not there
    found = counts > 0
    ok = np.ones(len(counts), dtype=bool)
    ok[found] = rules.are_solutions_of(puzzles[found], solutions[found], n)
    t2 = time.perf_counter()
    per = max(len(counts), 1)
    share = {**({"load": load / per} if load > 0 else {}), "search": (t1 - t0 - load) / per,
             "verify": (t2 - t1) / per}
    results = []
    for p in range(len(counts)):
        count = int(counts[p])
        if count and not ok[p]:
            status, message = WRONG, "solver dlx returned a grid that is not a solution"
        else:
            status = SOLVED if count else UNSAT if complete[p] else UNKNOWN
            message = "budget exhausted before an answer" if status == UNKNOWN else ""
        limit_hit = limit is not None and count >= limit
        results.append(Result(status, count, limit, limit_hit,
                              [] if not count else [_checked_grid(n, solutions[p]) if ok[p]
                                                    else Grid(n, solutions[p])],
                              {"nodes": int(nodes[p])},
                              dict(share), verified=status != WRONG, message=message,
                              # a node budget that ran out: the count is a lower bound
                              complete=bool(complete[p]) or limit_hit))
    return results


def count_up_to_two(grids: list[Grid]) -> list[str]:
    """"0", "1" or "many" per grid: its solutions counted by DLX up to 2, all grids
    of one n in one compiled call (clues that conflict count 0)."""
    words = [""] * len(grids)
    for n in sorted({g.n for g in grids}):
        where = [i for i, g in enumerate(grids) if g.n == n]
        counts, _, _, _ = dlx_many(np.stack([grids[i].cells for i in where]), n, limit=2)
        for i, count in zip(where, counts.tolist()):
            words[i] = ("0", "1", "many")[min(count, 2)]
    return words
