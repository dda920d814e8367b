"""Large-n SAT benchmark: puzzles up to 400x400, each at-most-one encoding side by side.

Run: ``.venv/bin/python tests/bench/bench_large_n.py [--quick] [--seeds 5] [--limit 10]`` (``--quick``: 3 seeds).

Instances: a random solved grid from ``generators.solved_grids.latin_grid`` (the
las-vegas fill is too slow beyond n = 6, see that module), a fraction of its cells
emptied at random, per n in {6, 8, 10, 12, 15, 20} and seed. Pipeline per instance:
the project's ``reduced`` encoder (``solvers.sat.sudoku_cnf.encode_reduced``: the compiled
singles propagation of the rules core, then exactly-one over the REMAINING candidates
of every cell and every (row|column|box, value), with each at-most-one encoding of
``solvers.sat.at_most_one``); solved by CaDiCaL 1.9.5 in-process (PySAT; default phase,
and every variable false first: ``cadical-neg``) and by kissat (DIMACS streamed to its
stdin). Every variant side by side up to n = 10; beyond, where timeouts dominate the
cost, the default encoding on cadical and kissat only. Each solve runs in a forked child with a wall-clock
limit, so a timeout cannot hang the bench and the child's peak RSS (VmHWM) is the
peak of that one encode+load+solve. Every model is decoded and checked with
``solvers.rules.is_solution_of`` against the puzzle.

The table's hole fraction is 33% up to n = 10 and, from n = 12, the last measured
point of the landscape (:data:`MEASURED_POINT`): at 33% those instances sit on the
hardness plateau (quasigroup with holes, past the peak), where neither CaDiCaL nor
kissat solves them in 600 s, so there are no 33% targets at n >= 12.

Prints the median time of a random solved grid per n, then one row per (n, encoding, backend): medians over seeds of encode s, solve s
(PySAT: loading the clauses plus search; kissat: its whole run including parsing),
vars, clauses, conflicts, peak RSS MB, and solved/tried. Then the hole-fraction
landscape: per n, the hardest fraction in :data:`LADDER` at which the default encoding
on CaDiCaL solves every seed within the limit (2 seeds), found by starting at the
committed point and stepping up until a miss (or down until every seed is solved);
then the encoding with the lowest total time (timeouts count as the limit), which
is what ``amo=auto`` should use.

Targets (TARGET lines; exit 1 when one is missed): per n, the landscape's hardest
fraction solved by every seed >= :data:`MEASURED_POINT` (the last measured point:
2 seeds, limit 10 s, n = 20: 30 s; a regression check); for the default encoding
on CaDiCaL at 33%, every n <= 10 instance solved and the median encode+solve
<= 0.5 s at n = 10 (CPU seconds, which are the wall time on an idle machine: the bench
machine is shared); peak RSS at n = 20 <= 2 GB; a random grid <= 1 s at n = 10
and <= 10 s at n = 20. The time and memory bounds are absolute, set from
a published solver's times, not ratios; the landscape's baseline is the committed
table. Default run: ~10 minutes (``--quick``: a smoke run to n = 10, no landscape).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]

from formats import dimacs  # noqa: E402
from formats.grid import Grid  # noqa: E402
from generators.solved_grids import latin_grid  # noqa: E402
from solvers.rules import is_solution_of  # noqa: E402
from solvers.sat import sudoku_cnf  # noqa: E402
from solvers.sat.backends import find_kissat  # noqa: E402
from solvers.sat.counting import pysat_solver  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tests.bench.targets import Targets  # noqa: E402

NS = (6, 8, 10, 12, 15, 20)
#: n at which every at-most-one variant is run side by side (beyond: the default only)
SIDE_BY_SIDE_MAX_N = 10
AMOS = ("pairwise", "sequential", "commander", "bimander", "product")
PYSAT_AMOS = ("pysat-ladder", "pysat-totalizer")
DEFAULT_AMO = "auto"
#: cadical: CaDiCaL 1.9.5 in-process, its default phase (true); cadical-neg: every
#: variable false first; kissat: the binary, DIMACS streamed to its stdin.
SMALL_BACKENDS = ("cadical", "cadical-neg", "kissat")
LARGE_BACKENDS = ("cadical", "kissat")
TARGET_SECONDS = {10: 0.5}
TARGET_GRID_SECONDS = {10: 1.0, 20: 10.0}
TARGET_RSS_MB = 2048
LIMIT = {20: 30.0}              # seconds per solve; others: --limit
#: the hole fractions the landscape steps through
LADDER = (0.10, 0.15, 0.20, 0.25, 0.30, 0.33, 0.40, 0.45, 0.50, 0.55, 0.60, 0.70)
#: the last measured landscape: per n, the hardest fraction of LADDER solved by every
#: seed (2 seeds, limit 10 s, n = 20: 30 s)
MEASURED_POINT = {6: 0.45, 8: 0.33, 10: 0.33, 12: 0.25, 15: 0.25, 20: 0.20}
#: the table's hole fraction: 33%, or the measured point where 33% is past it (n >= 12)
TABLE_HOLES = 0.33


def table_holes(n: int) -> float:
    """The hole fraction of the table at box size n: 33%, lowered to the committed
    measured point where that is below (the 33% instances at n >= 12 are on the plateau)."""
    return min(TABLE_HOLES, MEASURED_POINT.get(n, TABLE_HOLES))


def puzzle(n: int, holes: float, seed: int) -> Grid:
    """A latin-fill grid with ``holes`` of its cells emptied at random (seeded)."""
    rng = np.random.default_rng([n, seed])
    cells = latin_grid(n, rng).cells.copy().ravel()
    cells[rng.choice(cells.size, int(round(holes * cells.size)), replace=False)] = 0
    return Grid(n, cells.reshape(n * n, n * n))


def encode(grid: Grid, amo: str) -> sudoku_cnf.Formula | None:
    """The project's reduced encoding (compiled propagation, then exactly-one over the
    remaining candidates with at-most-one ``amo``). None when propagation finds a
    contradiction."""
    formula = sudoku_cnf.encode_reduced(grid, amo)
    assert formula.var_cell is not None              # the reduced encoding numbers its variables
    return None if formula.var_cell.size == 2 and formula.var_cell[1] == -1 else formula


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished children (kissat): on a shared,
    loaded machine the wall clock measures the neighbours as much as the solver."""
    import resource
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def solve_cell(grid: Grid, amo: str, backend: str, limit: float, report=lambda row: None) -> dict:
    """Encode and solve one instance (runs in the forked child); ``report`` gets the
    partial row once encoded, so a timeout still shows the encoding's size and RSS."""
    t0, c0 = time.perf_counter(), cpu_seconds()
    formula = encode(grid, amo)
    encode_s = time.perf_counter() - t0
    if formula is None:
        return {"status": "contradiction", "encode": encode_s}
    row = {"encode": encode_s, "vars": formula.nvars, "clauses": formula.nclauses, "status": "t/o"}
    report(dict(row, rss=peak_rss_mb()))
    t0 = time.perf_counter()
    if backend.startswith("cadical"):
        model, conflicts = _pysat(formula, negative=backend == "cadical-neg")
    else:
        model, conflicts = _kissat(formula, limit, negative=backend == "kissat-neg")
    row.update(solve=time.perf_counter() - t0, cpu=cpu_seconds() - c0, conflicts=conflicts,
               rss=peak_rss_mb())
    if model is None:
        row["status"] = "t/o"
    elif is_solution_of(grid, sudoku_cnf.decode(formula, model)):
        row["status"] = "ok"
    else:
        row["status"] = "WRONG"
    return row


def _pysat(formula, negative: bool):
    solver = pysat_solver("cadical195", formula.blocks)
    try:
        if negative:
            solver.set_phases((-np.arange(1, formula.nvars + 1)).tolist())
        found = solver.solve()
        return (solver.get_model() if found else None), solver.accum_stats().get("conflicts", 0)
    finally:
        solver.delete()


def _kissat(formula, limit: float, negative: bool):
    """kissat with the DIMACS streamed to its stdin (no file, no whole text in memory)."""
    proc = subprocess.Popen([find_kissat(), f"--time={max(1, int(limit))}",
                             *(["--phase=false"] if negative else [])],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)     # parse errors of a stream cut at the limit
    assert proc.stdin is not None and proc.stdout is not None     # both PIPE
    dimacs.write(proc.stdin, max(formula.nvars, 1), formula.blocks)
    proc.stdin.close()
    out = proc.stdout.read().decode()
    proc.wait()
    conflicts = next((int(line.split()[2]) for line in out.splitlines()
                      if line.startswith("c conflicts:")), 0)
    if "s SATISFIABLE" not in out:
        return None, conflicts
    model = [int(v) for line in out.splitlines() if line.startswith("v ") for v in line.split()[1:]]
    return model, conflicts


def _child(conn, grid, amo, backend, limit):
    conn.send(solve_cell(grid, amo, backend, limit, conn.send))
    conn.close()


def run_limited(grid: Grid, amo: str, backend: str, limit: float) -> dict:
    """solve_cell in a forked child, killed after ``limit`` seconds (status t/o)."""
    parent, child = mp.get_context("fork").Pipe(duplex=False)
    proc = mp.get_context("fork").Process(target=_child, args=(child, grid, amo, backend, limit))
    t0 = time.perf_counter()
    proc.start()
    child.close()
    row: dict[str, object] = {"status": "t/o"}
    while row["status"] == "t/o" and parent.poll(max(0.0, limit - (time.perf_counter() - t0))):
        try:
            row = parent.recv()
        except EOFError:              # the child died without a final row
            break
    proc.kill()
    proc.join()
    row.setdefault("wall", time.perf_counter() - t0)
    return row


def median(rows: list[dict], key: str) -> str:
    values = [r[key] for r in rows if key in r]
    if not values:
        return "-"
    m = float(np.median(values))
    return f"{m:.3f}" if isinstance(values[0], float) else f"{int(m)}"


def table(ns, seeds, amos, backends, limit: float) -> dict:
    """Run every (n, amo, backend) over the seeds at :func:`table_holes` (beyond
    SIDE_BY_SIDE_MAX_N: the default amo and LARGE_BACKENDS only); print one row each;
    return the rows."""
    results: dict[tuple[int, str, str], list[dict]] = {}
    for n in ns:
        small = n <= SIDE_BY_SIDE_MAX_N
        results.update(_table(n, seeds, amos if small else [DEFAULT_AMO],
                              backends if small else [b for b in backends if b in LARGE_BACKENDS],
                              table_holes(n), LIMIT.get(n, limit), first=n == ns[0]))
    return results


def _table(n, seeds, amos, backends, holes: float, limit: float, first: bool) -> dict:
    """Run every (n, amo, backend) over the seeds; print one row each; return the rows."""
    results: dict[tuple[int, str, str], list[dict]] = {}
    head = (f"{'n':>2} {'amo':>16} {'backend':>11} {'encode s':>9} {'solve s':>9} {'cpu s':>7} {'vars':>9} "
            f"{'clauses':>10} {'conflicts':>9} {'RSS MB':>7} {'solved':>7}")
    if first:
        print(f"\n{len(seeds)} seeds (medians: solve s and conflicts over solved seeds, the rest "
              "over every encoded seed); holes: 33%, from n = 12 the measured point")
        print(head + "\n" + "-" * len(head), flush=True)
    if holes != TABLE_HOLES:
        print(f"-- n = {n}: {int(round(holes * 100))}% holes (the measured point; 33% is on the plateau)")
    for n in [n]:  # noqa: B020 (the measured n only)
        grids = [puzzle(n, holes, seed) for seed in seeds]
        for amo in amos:
            for backend in backends:
                rows = [run_limited(g, amo, backend, limit) for g in grids]
                results[n, amo, backend] = rows
                ok = [r for r in rows if r["status"] == "ok"]
                bad = [r["status"] for r in rows if r["status"] not in ("ok", "t/o")]
                print(f"{n:>2} {amo:>16} {backend:>11} {median(rows, 'encode'):>9} {median(ok, 'solve'):>9} {median(ok, 'cpu'):>7} "
                      f"{median(rows, 'vars'):>9} {median(rows, 'clauses'):>10} {median(ok, 'conflicts'):>9} "
                      f"{median(rows, 'rss'):>7} {len(ok):>3}/{len(rows):<3}" + (f" {bad}" if bad else "")
                      + f" (limit {limit:g} s)", flush=True)
    return results


def landscape(ns, seeds, limit: float) -> dict[int, float | None]:
    """Per n, the hardest fraction of LADDER at which the default encoding on CaDiCaL
    solves every seed within the limit: starting at the committed MEASURED_POINT (or
    33% for an n it lacks), stepping up until a miss, or, when the start is already
    missed, down until every seed is solved (None: not even the lowest)."""
    print(f"\nhole-fraction landscape (amo={DEFAULT_AMO}, cadical, {len(seeds)} seeds, limit {limit:g} s)")
    hardest: dict[int, float | None] = {}
    for n in ns:
        start = LADDER.index(MEASURED_POINT.get(n, TABLE_HOLES))
        if _all_solved(n, LADDER[start], seeds, limit):
            hardest[n] = LADDER[start]
            for holes in LADDER[start + 1:]:
                if not _all_solved(n, holes, seeds, limit):
                    break
                hardest[n] = holes
        else:
            hardest[n] = next((h for h in reversed(LADDER[:start]) if _all_solved(n, h, seeds, limit)),
                              None)
        print(f"  n={n:>2}: hardest fraction solved by every seed: "
              f"{'none' if hardest[n] is None else f'{hardest[n]:.2f}'}", flush=True)
    return hardest


def _all_solved(n: int, holes: float, seeds, limit: float) -> bool:
    rows = []
    for s in seeds:                   # stop at the first miss: the fraction is already lost
        rows.append(run_limited(puzzle(n, holes, s), DEFAULT_AMO, "cadical", LIMIT.get(n, limit)))
        if rows[-1]["status"] != "ok":
            break
    solved = sum(r["status"] == "ok" for r in rows)
    print(f"  n={n:>2} holes={holes:.2f}: {solved}/{len(rows)} solved, "
          f"max wall {max(r['wall'] for r in rows):.2f} s", flush=True)
    return solved == len(rows)


def recommend(results: dict, amos, limit: float) -> str:
    """The encoding with the lowest total wall time on CaDiCaL (a timeout counts as the limit)."""
    totals = {amo: sum(r["wall"] if r["status"] == "ok" else limit
                       for (n, a, b), rows in results.items()
                       if a == amo and b == "cadical" and n <= SIDE_BY_SIDE_MAX_N
                       for r in rows) for amo in amos}
    print("\ntotal wall s per encoding (cadical, timeouts = limit): "
          + ", ".join(f"{a}={t:.1f}" for a, t in sorted(totals.items(), key=lambda kv: kv[1])))
    return min(totals, key=lambda amo: totals[amo])


def check_targets(targets: Targets, results: dict, ns, limit: float) -> None:
    """The table's targets: every instance up to n = 10 (33%) solved, the median
    encode+solve within TARGET_SECONDS, peak RSS at n = 20 within TARGET_RSS_MB."""
    for n in ns:
        rows = results.get((n, DEFAULT_AMO, "cadical"), [])
        if n <= SIDE_BY_SIDE_MAX_N and rows:
            targets.at_least(f"n={n}: 33% instances solved (cadical, amo={DEFAULT_AMO}), share",
                             sum(r["status"] == "ok" for r in rows) / len(rows), 1.0,
                             f"{len(rows)} seeds, limit {LIMIT.get(n, limit):g} s")
        ok = [r for r in rows if r["status"] == "ok"]
        if n in TARGET_SECONDS and rows:
            total = float(np.median([r["encode"] + r["solve"] for r in ok])) if ok else float("inf")
            cpu = float(np.median([r["cpu"] for r in ok])) if ok else float("inf")
            targets.at_most(f"n={n}: median encode+solve CPU s (33%, cadical)", cpu, TARGET_SECONDS[n],
                            f"absolute bound, wall on an idle machine; {total:.2f} s wall")
        rss = [r["rss"] for r in rows if "rss" in r]
        if n == 20 and rss:
            targets.at_most(f"n=20: peak RSS MB ({int(table_holes(20) * 100)}% holes)", max(rss),
                            TARGET_RSS_MB, "absolute bound")


def grid_times(ns, seeds) -> dict[int, float]:
    """Median seconds of one random solved grid (the latin fill) per n."""
    print("\nrandom solved grid (latin fill), median over seeds:")
    out = {}
    for n in ns:
        times = []
        for seed in seeds:
            t0 = time.perf_counter()
            latin_grid(n, np.random.default_rng([n, seed]))
            times.append(time.perf_counter() - t0)
        out[n] = float(np.median(times))
        print(f"  n={n:>2}: {out[n]:.3f} s", flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 seeds (an odd count: a true median), n up to 10, 5 s limit, no landscape")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--limit", type=float, default=10.0, help="seconds per solve (n = 20: 30)")
    ap.add_argument("--ns", default=",".join(map(str, NS)))
    ap.add_argument("--amos", default=",".join((DEFAULT_AMO, *AMOS)))
    ap.add_argument("--pysat-amos", action="store_true", help="also PySAT's ladder and totalizer")
    ap.add_argument("--no-kissat", action="store_true")
    ap.add_argument("--landscape-seeds", type=int, default=2)
    ap.add_argument("--no-landscape", action="store_true")
    args = ap.parse_args()
    ns = [int(v) for v in args.ns.split(",")]
    amos = args.amos.split(",") + (list(PYSAT_AMOS) if args.pysat_amos else [])
    seeds = list(range(3 if args.quick else args.seeds))
    limit = 5.0 if args.quick else args.limit
    if args.quick:
        ns = [n for n in ns if n <= 10]
    backends = tuple(b for b in SMALL_BACKENDS if not (args.no_kissat and b.startswith("kissat")))
    # compile the numba code and import PySAT once, in the parent, outside the timings
    from pysat.solvers import Solver  # noqa: F401
    dimacs.dumps(1, [np.array([[1, -1]], np.int32)])
    encode(puzzle(3, 0.5, 0), "auto")
    targets = Targets(__file__, "absolute bounds (time, memory) and the committed "
                      "last measured landscape point per n (MEASURED_POINT)", "absolute bounds")
    grids = grid_times(ns, seeds)
    results = table(ns, seeds, amos, backends, limit)
    best = recommend(results, amos, limit)
    print(f"fastest encoding by measurement: {best}")
    if not (args.no_landscape or args.quick):
        hardest = landscape(ns, list(range(args.landscape_seeds)), limit)
        for n, point in hardest.items():
            if n in MEASURED_POINT:
                targets.at_least(f"n={n}: hardest hole fraction solved by every seed", point or 0.0,
                                 MEASURED_POINT[n], f"the last measured point, {MEASURED_POINT[n]:.2f}"
                                 f" ({args.landscape_seeds} seeds, limit {LIMIT.get(n, limit):g} s)")
    check_targets(targets, results, ns, limit)
    for n, bound in TARGET_GRID_SECONDS.items():
        if n in grids:
            targets.at_most(f"n={n}: random grid s", grids[n], bound, "absolute bound")
    targets.exit()


if __name__ == "__main__":
    sys.exit(main())
