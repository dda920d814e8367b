"""Benchmark: the `sat` entrant against the CaDiCaL binary on the very same CNF.

Instances: random-holes puzzles from the latin fill (``bench_large_n.puzzle``), 5 seeds
per n: n = 5 at 60% holes (like the public 25x25), 6 at 45%, 8 and 10 at 33%, and
n = 12 (144x144) at 25% (3 seeds; at 33% n = 12 is on the hardness plateau, see
``bench_large_n.py``); and the public 100x100 (34% holes) and two 144x144 (35%) of
``data/public-large`` (their README says where from). The latin fill cannot stand in for those:
at 34% holes its 100x100 take the CaDiCaL binary 20 s to minutes (plateau), the public one 0.1 s.
Each is encoded once (``reduced``, ``amo=auto``) and written as DIMACS; then, measured in this run:

* baseline: the CaDiCaL 1.9.5 binary (Debian ``cadical``, the solver PySAT ships as
  ``cadical195``) solving that DIMACS file, whole process (wall and CPU);
* in-process: ``solvers.sat_counting.pysat_solver`` loading the same clauses (in bulk,
  ``solvers.clause_loading``) and solving, warm (PySAT and the kernels loaded first);
* whole process: ``race solve --solver sat`` on the puzzle file (seed 0 of each n, and each
  public puzzle), median of 3 fresh processes;
* the encoder's first call in a fresh interpreter (n = 8 and 10): what
  ``race solve`` pays before its first clause, in the mode it picks for one puzzle
  (:meth:`solvers.sat.SAT.interpreted`: numpy up to n = 12, else numba's import and cache).

Targets, on CPU seconds (the bench machine is shared; wall is printed too):
per n, in-process load + solve summed over the seeds <= 1.3x the binary's whole runs;
``race solve -s sat`` <= 2x (binary + 0.3 s) per n; the encoder's first call at
n >= 8 <= 0.1 s. Run: ``.venv/bin/python tests/bench/bench_sat_binary.py``.
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT)]

from bench_large_n import puzzle                              # noqa: E402
from targets import Targets                                   # noqa: E402

from formats import dimacs, grid_text                         # noqa: E402
from solvers import sudoku_cnf                                # noqa: E402
from solvers.rules import is_solution_of                      # noqa: E402
from solvers.sat_counting import pysat_solver                 # noqa: E402

#: (n, hole fraction, seeds)
INSTANCES = ((5, 0.60, 5), (6, 0.45, 5), (8, 0.33, 5), (10, 0.33, 5), (12, 0.25, 3))
#: public large puzzles (file names in data/public-large)
PUBLIC = ("sudoku-100-1.txt", "sudoku-144-1.txt", "sudoku-144-2.txt")
PUBLIC_DIR = HERE / "data" / "public-large"
RACE = "import sys; from experiments.cli import main; sys.argv[0] = 'race'; main()"
FIRST_ENCODE = """
import sys, time
from formats import grid_text
from formats.compiled import interpreted
from solvers import sudoku_cnf
from solvers.sat import SAT
g = grid_text.read(sys.argv[1]).grids[0]
t0, c0 = time.perf_counter(), time.process_time()
with interpreted(SAT.interpreted(g.n, 1, 1)):      # as `race solve -s sat` of one puzzle does
    sudoku_cnf.encode_reduced(g)
print(time.perf_counter() - t0, time.process_time() - c0)
"""


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(command: list[str]) -> tuple[float, float, str]:
    """(wall s, CPU s, stdout) of one process."""
    t0, c0 = time.perf_counter(), children_cpu()
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT).stdout
    return time.perf_counter() - t0, children_cpu() - c0, out


def in_process(blocks, grid, formula) -> tuple[float, float]:
    """(wall s, CPU s) of loading ``blocks`` into CaDiCaL in-process and solving; the
    model is checked against the puzzle."""
    t0, c0 = time.perf_counter(), time.process_time()
    solver = pysat_solver("cadical195", blocks)
    found = solver.solve()
    model = solver.get_model()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    solver.delete()
    if not (found and is_solution_of(grid, sudoku_cnf.decode(formula, model))):
        raise SystemExit("in-process sat gave no verified solution")
    return wall, cpu


def groups() -> list[tuple[str, list[tuple[str, object]]]]:
    """The puzzles, in groups with one in-process target each: (label, [(name, grid)])."""
    out = [(f"n={n} ({holes:.0%} holes, {seeds} seeds)",
            [(f"n{n}-{holes:.2f}-{seed}", puzzle(n, holes, seed)) for seed in range(seeds)])
           for n, holes, seeds in INSTANCES]
    for name in PUBLIC:
        grid = grid_text.read(PUBLIC_DIR / name).grids[0]
        holes = float((grid.cells == 0).mean())
        out.append((f"public {name} ({grid.side}x{grid.side}, {holes:.1%} holes)",
                    [(Path(name).stem, grid)]))
    return out


def main() -> None:
    cadical = shutil.which("cadical")
    if cadical is None:
        raise SystemExit("the cadical binary is not on PATH (Debian: apt-get install cadical)")
    targets = Targets(__file__, "the CaDiCaL 1.9.5 binary's whole run on the same DIMACS file, in "
                      "this run", "cadical binary")
    py = sys.executable
    # warm: PySAT imported, the encoder's and the loader's kernels compiled
    in_process(sudoku_cnf.encode_reduced(puzzle(3, 0.5, 0)).blocks, puzzle(3, 0.5, 0),
               sudoku_cnf.encode_reduced(puzzle(3, 0.5, 0)))
    print(f"{'puzzle':>24} {'clauses':>8} | {'binary wall':>11} {'cpu':>6} | "
          f"{'in-process wall':>15} {'cpu':>6} | ratio cpu")
    with tempfile.TemporaryDirectory() as tmp:
        whole = []                          # (label, puzzle file, its DIMACS) raced whole process
        for label, members in groups():
            binary_cpu = inproc_cpu = 0.0
            clauses = 0
            for name, grid in members:
                formula = sudoku_cnf.encode_reduced(grid)
                clauses += formula.nclauses
                cnf = Path(tmp) / f"{name}.cnf"
                dimacs.write(cnf, formula.nvars, formula.blocks)
                b_wall, b_cpu, out = run([cadical, "-q", str(cnf)])
                if "s SATISFIABLE" not in out:
                    raise SystemExit(f"cadical did not solve {name}")
                i_wall, i_cpu = in_process(formula.blocks, grid, formula)
                binary_cpu += b_cpu
                inproc_cpu += i_cpu
                print(f"{name:>24} {formula.nclauses:>8} | {b_wall:>11.3f} "
                      f"{b_cpu:>6.3f} | {i_wall:>15.3f} {i_cpu:>6.3f} | {i_cpu / max(b_cpu, 1e-3):.2f}",
                      flush=True)
                if name.endswith("-0") or name.startswith("sudoku-"):
                    path = Path(tmp) / f"{name}.sudoku"
                    path.write_text(grid_text.format_native(grid))
                    whole.append((name, path, cnf))
            if clauses == 0:        # the clue propagation decided every cell: no search to compare
                print(f"  {label}: no clause left after propagation, no in-process ratio")
                continue
            targets.at_most(f"{label}: in-process load+solve / binary, CPU",
                            inproc_cpu / binary_cpu, 1.3)
        print("\nwhole process, median of 3 (wall / CPU s): race solve -s sat vs the binary")
        for name, path, cnf in whole:
            race = [run([py, "-c", RACE, "solve", "-s", "sat", str(path)]) for _ in range(3)]
            binary = [run([cadical, "-q", str(cnf)]) for _ in range(3)]
            r_wall, r_cpu = (statistics.median(r[i] for r in race) for i in (0, 1))
            b_wall, b_cpu = (statistics.median(r[i] for r in binary) for i in (0, 1))
            print(f"  {name}: race {r_wall:.3f} / {r_cpu:.3f}   binary {b_wall:.3f} / {b_cpu:.3f}",
                  flush=True)
            targets.at_most(f"{name}: race solve -s sat / (binary + 0.3 s), whole process, CPU",
                            r_cpu / (b_cpu + 0.3), 2.0, "the binary's whole run + 0.3 s, in this run")
        print("\nthe encoder's first call in a fresh interpreter (wall / CPU s)")
        for n in (8, 10):
            path = next(path for name, path, _ in whole if name.startswith(f"n{n}-"))
            first = [tuple(map(float, run([py, "-c", FIRST_ENCODE, str(path)])[2].split()))
                     for _ in range(3)]
            wall, cpu = (statistics.median(f[i] for f in first) for i in (0, 1))
            print(f"  n={n:>2}: {wall:.3f} / {cpu:.3f}", flush=True)
            targets.at_most(f"n={n}: the encoder's first call, CPU s", cpu, 0.1, "absolute")
    targets.exit()


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
