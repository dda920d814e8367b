"""Benchmark: our DLX against the exact cover solvers from PyPI (miniexact, exact-cover).

Every solver gets the same exact cover problem (the Task 18 matrix of a Sudoku,
or Knuth's N queens) and must give the same count. Kernel vs kernel: each side's
data structure is built outside the timing, and the timed call is the search
only, all three through ``timing.per_call_prepared`` with the same minimum time
and repeats in this run (JIT cache load excluded, reported separately):

* ours:        the compiled DLX search (``dlx_search``, default MRV) on prebuilt links;
* miniexact:   ``solve()`` calls on a solver whose items and options were added before;
* exact-cover: one C call on the prebuilt dense 0-1 matrix (secondary items as slack rows).

Set-up costs (our link build, miniexact's per-option Python calls) are printed apart.

Then the exact cover problems of the source documents (``race example``), each
counted by ours and by miniexact in this run and checked against the source's
count (and, where the paper fixes them, its nodes and updates): Scott's
problem, the 6 x 10 and other pentomino rectangles (the 6 x 10 also without the
S heuristic: 4.1 billion updates, the paper's second count, ~25 s), the
hexiamonds, the one-sided pentominoes in 3 x 30, Dudeney's chessboard, the five
tetrastick problems, toroidal queens, plus noise and the relaxed windowed Sudoku;
with ``BENCH_DLX_LONG=1`` also the 45 Y pentominoes (24.5 billion updates, minutes
for each side). One
timed run each (they take seconds to minutes); target ours/miniexact <=
``TARGET["paper"]``.
Targets: ours/fastest peer <= ``TARGET`` on every problem. Also printed: our
updates/s, and the Sudoku pipeline end to end (DLX solver from the grid,
verified) and count_sudoku. Run: ``.venv/bin/python tests/bench/bench_dlx.py``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from formats.exact_cover import ExactCover  # noqa: E402
from formats.grid import Grid  # noqa: E402
from formats.grid_text import parse  # noqa: E402
from generators import cover_problems, polyiamonds, polyominoes, polysticks  # noqa: E402
from generators.cover_problems import queens  # noqa: E402
from solvers.exact_cover.algorithm_x import FIRST, MRV, dlx_search  # noqa: E402
from solvers.exact_cover.dancing_links import DancingLinks  # noqa: E402
from solvers.exact_cover.dlx import DLX, count_sudoku  # noqa: E402
from solvers.exact_cover.sudoku_cover import sudoku_cover  # noqa: E402
from tests.bench.targets import Targets  # noqa: E402
from tests.bench.timing import per_call, per_call_prepared  # noqa: E402
from tests.conftest import full_grid as pattern_grid  # noqa: E402

MIN_TIME, REPEATS = 0.1, 5      # the same for every side of every ratio
#: highest acceptable (our search time / the fastest peer's, miniexact on every problem here).
#: Measured kernel vs kernel on the busy shared 2-core machine: Sudoku problems 0.24-0.39,
#: N queens 0.62-0.91, once 1.52 (queens 11) while other jobs loaded the machine. Bounds:
#: Sudoku 0.8 (ours clearly faster, 2x room); N queens 2.0 (ours about as fast as miniexact's
#: C search, so the bound only says "within 2x of it": a slow-down of the kernel by 2-3x
#: fails; the typical ratio is in the table).
TARGET = {"sudoku": 0.8, "queens": 2.0, "paper": 2.0}

KNUTH_QUEENS = {8: (92, 1049, 16680), 9: (352, 3440, 54818), 10: (724, 11578, 198264),
                11: (2680, 45393, 783140), 12: (14200, 211716, 3594752),
                13: (73712, 1046319, 17463157)}


# -- problems ------------------------------------------------------------------------

def random_full_grid(n: int, rng: np.random.Generator) -> Grid:
    """A less regular full grid than the pattern: a random first row completed
    by DLX, then rows/columns/bands/stacks/digits shuffled (pattern grids blanked
    by half keep many solutions through their swap symmetries)."""
    side = n * n
    cells = np.zeros((side, side), dtype=np.int32)
    cells[0] = rng.permutation(side) + 1
    solution = DLX().solve(Grid(n, cells)).solution
    assert solution is not None                    # a first row alone always completes
    solved = solution.cells
    rows = np.concatenate([b * n + rng.permutation(n) for b in rng.permutation(n)])
    cols = np.concatenate([b * n + rng.permutation(n) for b in rng.permutation(n)])
    digits = np.concatenate([[0], rng.permutation(side) + 1])
    return Grid(n, digits[solved[rows][:, cols]])


def unique_puzzle(n: int, seed: int, fraction: float = 0.5, budget: int = 20_000) -> Grid:
    """A full grid with ``fraction`` of its cells blanked and a unique solution:
    cells are blanked in random order, each kept blank only if count_sudoku
    proves the solution still unique within ``budget`` nodes (Algorithm 2's
    second phase)."""
    rng = np.random.default_rng(seed)
    cells = random_full_grid(n, rng).cells.copy()
    side = n * n
    target = int(fraction * side * side)
    blanked = 0
    for cell in rng.permutation(side * side):
        i, j = divmod(int(cell), side)
        value, cells[i, j] = cells[i, j], 0
        count, _, complete = count_sudoku(Grid(n, cells), limit=2, node_limit=budget)
        if count == 1 and complete:
            blanked += 1
            if blanked == target:
                return Grid(n, cells)
        else:
            cells[i, j] = value
    raise RuntimeError(f"could not blank {target} cells of a {side}x{side} keeping it unique")


def many_solutions_puzzle(seed: int, low: int = 1000, high: int = 9999) -> tuple[Grid, int]:
    """A 9x9 with between low and high solutions: blank cells of a solved grid one by one."""
    for attempt in range(100):
        rng = np.random.default_rng(seed + attempt)
        cells = pattern_grid(3, rng).cells.copy().ravel()
        for cell in rng.permutation(cells.size):
            cells[cell] = 0
            count = count_sudoku(Grid(3, cells.reshape(9, 9)), limit=high + 1)[0]
            if count >= low:
                if count <= high:
                    return Grid(3, cells.reshape(9, 9)), count
                break
    raise RuntimeError("no puzzle with a few thousand solutions found")


# -- solvers ----------------------------------------------------------------------------

def ours_links(problem: ExactCover):
    """Our prepared input: the links plus the output arrays the kernel needs."""
    dl = DancingLinks.from_problem(problem)
    return (dl.links, np.zeros((1, max(dl.primary, 1)), dtype=np.int64), np.zeros(1, dtype=np.int64))


def ours_search(prepared, limit: int, heuristic: int = MRV):
    """The compiled search (it restores the links before returning, so they can be reused)."""
    links, chosen, depth = prepared
    count, nodes, updates, _ = dlx_search(links, heuristic, limit, 0, 1, chosen, depth)
    return count, nodes, updates


def miniexact_setup(problem: ExactCover):
    from miniexact import miniexacts_x
    s = miniexacts_x()
    ids = [s.primary(nm) for nm in problem.items[:problem.primary]] + \
          [s.secondary(nm) for nm in problem.items[problem.primary:]]
    for o in problem.options:
        s.add([ids[i] for i in o])
    return s


def miniexact_solve(s, limit: int) -> int:
    count = 0
    while s.solve() == 10:
        count += 1
        if limit and count >= limit:
            break
    return count


def exact_cover_matrix(problem: ExactCover) -> np.ndarray:
    dense = problem.to_dense().astype(bool)
    if problem.secondary:     # at most once -> exactly once, with one slack row per secondary item
        slack = np.zeros((problem.secondary, len(problem.items)), dtype=bool)
        slack[np.arange(problem.secondary), problem.primary + np.arange(problem.secondary)] = True
        dense = np.vstack([dense, slack])
    return np.ascontiguousarray(dense)


def exact_cover_solve(matrix: np.ndarray, limit: int) -> int:
    import exact_cover as ec
    if limit == 1:
        try:
            ec.get_exact_cover(matrix)
            return 1
        except ec.NoSolution:
            return 0
    return int(ec.get_solution_count(matrix))


# -- the source documents' problems ---------------------------------------------------------

#: (row name, problem maker, heuristic, solutions, (nodes, updates) of the paper or None, source)
#: Our nodes are the paper's + 1 for Scott (its level 0 holds the X already placed) and + the
#: solutions for the 6x10 (its count leaves the solution leaves out); see tests/test_cover_examples.py.
PAPER = [
    ("scott X at 23", lambda: polyominoes.scott(x="23"), MRV, 19, (10_421 + 1, 3_617_723), "paper"),
    ("scott X at 24", lambda: polyominoes.scott(x="24"), MRV, 20, (12_900 + 1, 4_547_186), "paper"),
    ("scott X at 33", lambda: polyominoes.scott(x="33"), MRV, 26, None, "paper (nodes 14,045+1)"),
    ("scott, all", polyominoes.scott, MRV, 520, None, "paper: 8 x 65"),
    ("pentominoes 6x10 --knuth", lambda: polyominoes.pentomino_rectangle(6, 10, True), MRV, 2339,
     (902_631 + 2339, 309_134_131), "paper"),
    ("pentominoes 5x12 --knuth", lambda: polyominoes.pentomino_rectangle(5, 12, True), MRV, 1010, None,
     "Golomb"),
    ("pentominoes 4x15 --knuth", lambda: polyominoes.pentomino_rectangle(4, 15, True), MRV, 368, None,
     "Golomb"),
    ("hexiamonds --knuth", lambda: polyiamonds.hexiamond_rhombus(knuth=True), MRV, 156, None, "paper"),
    ("one-sided 3x30 --knuth", lambda: polyominoes.one_sided_rectangle(3, 30, True), MRV, 46, None,
     "paper"),
    ("dudeney --knuth", lambda: polyominoes.dudeney(True), MRV, 16_146, None, "paper"),
    *[(f"tetrasticks --omit {o} --knuth", (lambda o=o: polysticks.tetrastick_grid(o, True)), MRV, c, None,
       "paper, Figure 11") for o, c in polysticks.OMITTABLE.items()],
    ("toroidal-queens 13", lambda: cover_problems.toroidal_queens(13), MRV, 4524, None, "OEIS A051906"),
    ("plus-noise 5", lambda: cover_problems.plus_noise(5), MRV, 240, None, "blog"),
    ("windowed-sudoku --relaxed --knuth", lambda: cover_problems.windowed_sudoku(True, True), MRV,
     133_838, None, "ours, x 9! in all"),
    ("pentominoes 6x10, no S heuristic", lambda: polyominoes.pentomino_rectangle(6, 10, True), FIRST,
     2339, (28_320_810 + 2339, 4_107_105_935), "paper"),
]
PAPER_LONG = [
    ("y-pentominoes 15", lambda: polyominoes.y_pentominoes(15), MRV, 1696, None, "paper: 8 x 212"),
]


def paper_problems(targets: Targets, long: bool) -> None:
    """Count each problem of :data:`PAPER` with ours and with miniexact (one timed run each),
    check the source's numbers, print updates/s and the time ratio."""
    print()
    print("The source documents' problems (race example ...; one timed run each, search only):")
    header = (f"{'problem':36s} {'sols':>6s} {'nodes':>10s} {'updates':>13s} {'ours s':>8s} "
              f"{'Mupd/s':>7s} {'mini s':>8s} {'ours/mini':>9s}  source")
    print(header)
    print("-" * len(header))
    for name, make, heuristic, solutions, knuth, source in PAPER + (PAPER_LONG if long else []):
        problem = make()
        prepared = ours_links(problem)
        t_ours, (count, nodes, updates) = per_call(lambda: ours_search(prepared, 0, heuristic), 0.0, 1)
        if count != solutions or (knuth is not None and (nodes, updates) != knuth):
            raise SystemExit(f"{name}: ours {count} solutions, {nodes} nodes, {updates} updates; "
                             f"the source: {solutions}, {knuth}")
        if heuristic == MRV:
            solver = miniexact_setup(problem)
            t_mini, mini_count = per_call(lambda: miniexact_solve(solver, 0), 0.0, 1)
            if mini_count != count:
                raise SystemExit(f"{name}: miniexact counts {mini_count}, ours {count}")
            ratio = f"{t_ours / t_mini:9.2f}"
        else:
            t_mini, ratio = float("nan"), f"{'-':>9s}"     # miniexact has no plain-order mode
        print(f"{name:36s} {count:6d} {nodes:10d} {updates:13d} {t_ours:8.2f} "
              f"{updates / t_ours / 1e6:7.1f} {t_mini:8.2f} {ratio}  {source}", flush=True)
        if heuristic == MRV and t_ours > 0.05:
            targets.at_most(f"{name}: ours/miniexact time", t_ours / t_mini, TARGET["paper"],
                            "miniexact's count of the same problem in this run")


# -- main -------------------------------------------------------------------------------

def main() -> None:
    t0 = time.perf_counter()
    DLX().warmup()
    load = time.perf_counter() - t0

    hard9 = parse((ROOT / "tests/data/hard9.txt").read_text().splitlines()[0]).grids[0]
    many, many_count = many_solutions_puzzle(seed=2024)
    p16 = unique_puzzle(4, seed=16)
    p25 = unique_puzzle(5, seed=25)
    sudokus = [("hard 9x9 (solve)", hard9, 1, 15), (f"9x9 count all ({many_count})", many, 0, 9),
               ("16x16 50% blank (solve)", p16, 1, 9), ("25x25 50% blank (solve)", p25, 1, 7)]
    problems: list[tuple[str, ExactCover, int, int, Grid | None]] = \
        [(name, sudoku_cover(g).problem, limit, reps, g) for name, g, limit, reps in sudokus]
    problems += [(f"queens {n} (count)", queens(n), 0, 0, None) for n in range(8, 13)]

    targets = Targets(__file__, "the faster of miniexact (solve() calls) and exact-cover (one C "
                      "call on the dense matrix) on the same problem, search only on every side, "
                      "timed by per_call_prepared in this run", "fastest of miniexact, exact-cover")
    header = (f"{'problem':26s} {'sols':>6s} {'nodes':>9s} {'updates':>11s} {'ours ms':>9s} "
              f"{'Mupd/s':>7s} {'miniexact':>10s} {'exact-cover':>11s} {'(our set-up':>11s} "
              f"{'mini set-up)':>12s} {'ours/best':>9s}")
    print(header)
    print("-" * len(header))
    ratios = {}
    for name, problem, limit, _, _grid in problems:
        setup_ours, prepared = per_call(lambda: ours_links(problem), 0.0, 1)
        t_ours, (count, nodes, updates) = per_call_prepared(
            lambda: prepared, lambda p: ours_search(p, limit), MIN_TIME, REPEATS)
        setup_mini, _ = per_call(lambda: miniexact_setup(problem), 0.0, 1)
        t_mini, mini_count = per_call_prepared(lambda: miniexact_setup(problem),
                                               lambda s: miniexact_solve(s, limit), MIN_TIME, REPEATS)
        matrix = exact_cover_matrix(problem)
        t_ec, ec_count = per_call_prepared(lambda: matrix, lambda m: exact_cover_solve(m, limit),
                                           MIN_TIME, REPEATS)
        if not (count == mini_count == ec_count):
            raise SystemExit(f"{name}: counts disagree: ours {count}, miniexact {mini_count}, "
                             f"exact-cover {ec_count}")
        if name.startswith("queens"):
            n = int(name.split()[1])
            assert (count, nodes, updates) == KNUTH_QUEENS[n], f"{name}: not Knuth's numbers"
        ratios[name] = t_ours / min(t_mini, t_ec)
        print(f"{name:26s} {count:6d} {nodes:9d} {updates:11d} {t_ours * 1e3:9.3f} "
              f"{updates / t_ours / 1e6:7.1f} {t_mini * 1e3:10.3f} {t_ec * 1e3:11.3f} "
              f"{setup_ours * 1e3:11.2f} {setup_mini * 1e3:12.2f} {ratios[name]:9.2f}", flush=True)

    print()
    print("Sudoku end to end (our solver from the grid; median ms):")
    solver = DLX()
    for name, grid, limit, _reps in sudokus:
        t_dlx, res = per_call(lambda: solver.count(grid, limit=limit or None), MIN_TIME, REPEATS)
        t_cs, cs = per_call(lambda: count_sudoku(grid, limit=limit), MIN_TIME, REPEATS)
        print(f"  {name:26s} DLX solver (check+build+search+decode+verify) {t_dlx * 1e3:8.3f}"
              f"   count_sudoku {t_cs * 1e3:8.3f}  [{res.status}, {res.count} / {cs[0]}]")
    print()
    print(f"JIT: loading the compiled kernels from the cache {load:.2f} s (excluded from the times above)")
    for name, ratio in ratios.items():
        targets.at_most(f"{name}: ours/fastest peer time", ratio,
                        TARGET["queens" if name.startswith("queens") else "sudoku"])
    paper_problems(targets, long=os.environ.get("BENCH_DLX_LONG") == "1")
    targets.exit()


if __name__ == "__main__":
    main()
