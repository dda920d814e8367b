"""Benchmark: the `sat` entrant against the CaDiCaL binary on the very same CNF.

Instances, all made by the project's generator: random-holes puzzles from the latin fill
(``bench_large_n.puzzle``), 5 seeds per n: n = 5 at 60% holes, 6 at 45%, 8 and 10 at 33%, and
n = 12 (144x144) at 25% (3 seeds; at 33% n = 12 is on the hardness plateau, see
``bench_large_n.py``). Each is encoded once (``reduced``, ``amo=auto``) and written as DIMACS;
then, measured in this run:

* baseline: the CaDiCaL binary (Debian ``cadical``: version 1.5.3, which reports itself as
  ``sc2021``; PySAT's ``cadical195`` in-process is the later 1.9.5, so on a hard puzzle the two
  searches differ) solving that DIMACS file, whole process (wall and CPU);
* in-process: ``solvers.sat.counting.pysat_solver`` loading the same clauses (in bulk,
  ``solvers.sat.clause_loading``) and solving, warm (PySAT and the kernels loaded first);
* whole process: ``race solve --solver sat`` on the puzzle file (seed 0 of each n), median of
  3 fresh processes;
* the encoder's first call in a fresh interpreter (n = 8 and 10): what
  ``race solve`` pays before its first clause, in the mode it picks for one puzzle
  (:meth:`solvers.sat.solver.SAT.interpreted`: numpy up to n = 12, else numba's import and cache).

Large puzzles, whole process: n = 10 at 34% and n = 12 at 35% random holes, made by
``race generate --n N --kind holes --holes H --pattern random --fill F --instances K --seed 0``
for each fill the family offers at that size (``latin``, ``symmetric``; :data:`LARGE`). They
are hard more often than not: measured with the binary (CPU s, 60 s cap), the n = 10 ones at
34% took 1.2-32 s or more than 60 s (six of eight within 60 s), and none of thirteen n = 12
ones at 35% was answered within 60 s (the fill's grids put 35% holes at n = 12 near the
hardness plateau). So each run has a cap (:data:`CAP` CPU s for the binary, RLIMIT_CPU;
``race solve`` gets 2 x (the binary's CPU + 0.3 s) where the binary answered, else the same
cap), and every answer is checked (the binary's "s SATISFIABLE", race solve's printed grid
against the clues).

On such puzzles the search time is heavy-tailed, and the binary (CaDiCaL 1.5.3) and PySAT's
``cadical195`` (1.9.5, race's default backend) search differently: measured on the eight n = 10
ones (CPU s), the binary took 18.6, -, 5.6, 1.1, 1.5, 22.0, 27.9 and 1.0 s ('-': none within
60 s), ``race solve -s sat`` 21.0, -, 7.7, 1.5, 1.7, 25.4, 122.6 and 0.8, and
``race solve -s sat:backend=cadical153`` (the binary's own version, in-process) 22.5, -, 7.7,
1.4, 1.7, 25.8, 32.1 and 1.6 (two runs at a time on two cores). So the large
puzzles are raced twice: ``race solve -s sat`` against the binary, the ratio summed over the
puzzles both answered (a miss is listed, with the ratio it gives counted at its cap), and
:data:`SAME_VERSION` against the binary on every puzzle the binary answered: what race adds
(process, encoding, loading) to the same search.

Targets, on CPU seconds (wall is printed too):
per n, in-process load + solve summed over the seeds <= 1.3x the binary's whole runs;
``race solve -s sat`` <= 2x (binary + 0.3 s) per n; the encoder's first call at
n >= 8 <= 0.1 s; on the large puzzles, ``race solve -s sat`` summed over the puzzles both
answered <= 2x (the binary's sum + 0.3 s each), and :data:`SAME_VERSION` summed over every
puzzle the binary answered within the cap <= 2x (an unanswered one makes it infinite).
Run: ``.venv/bin/python tests/bench/bench_sat_binary.py``.
"""

from __future__ import annotations

import math
import os
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

from bench_large_n import puzzle  # noqa: E402

from formats import dimacs, grid_text  # noqa: E402
from formats.grid import Grid  # noqa: E402
from solvers.rules import is_solution_of  # noqa: E402
from solvers.sat import sudoku_cnf  # noqa: E402
from solvers.sat.counting import pysat_solver  # noqa: E402
from tests.bench.targets import Targets  # noqa: E402

#: (n, hole fraction, seeds)
INSTANCES = ((5, 0.60, 5), (6, 0.45, 5), (8, 0.33, 5), (10, 0.33, 5), (12, 0.25, 3))
#: large puzzles raced whole process: (n, hole fraction, instances per fill), random holes
LARGE = ((10, 0.34, 4), (12, 0.35, 2))
#: the fills of the holes family at those sizes (algorithm2 and las-vegas take minutes there)
LARGE_FILLS = ("latin", "symmetric")
#: CPU seconds the binary gets per large puzzle
CAP = 30.0
#: the binary's own CaDiCaL version (1.5.3) as race's in-process backend (PySAT's cadical153):
#: race solve with it against the binary measures what race adds, the solver's search apart
SAME_VERSION = "sat:backend=cadical153"
RACE = "import sys; from experiments.cli.main import main; sys.argv[0] = 'race'; main()"
FIRST_ENCODE = """
import sys, time
from formats import grid_text
from formats.compiled import interpreted
from solvers.sat import sudoku_cnf
from solvers.sat.solver import SAT
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


def groups() -> list[tuple[str, list[tuple[str, Grid]]]]:
    """The puzzles, in groups with one in-process target each: (label, [(name, grid)])."""
    out = [(f"n={n} ({holes:.0%} holes, {seeds} seeds)",
            [(f"n{n}-{holes:.2f}-{seed}", puzzle(n, holes, seed)) for seed in range(seeds)])
           for n, holes, seeds in INSTANCES]
    return out


def limited(command: list[str], cap: float) -> tuple[float, float, str]:
    """(wall s, CPU s, stdout) of one process limited to ``cap`` CPU seconds (RLIMIT_CPU: the
    process and any it starts); its CPU is its own and its waited-for children's."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (math.ceil(cap), math.ceil(cap) + 1))
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL, cwd=ROOT,
                                preexec_fn=limit)
        _, _, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        return wall, usage.ru_utime + usage.ru_stime, out.read().decode("utf-8", "replace")


def solved_by_race(puzzle, text: str) -> bool:
    """Whether ``race solve`` printed a grid that solves ``puzzle``."""
    try:
        answer = grid_text.parse(text, "race solve output").grids[0]
    except Exception:                    # noqa: BLE001 - no grid printed: no answer
        return False
    return is_solution_of(puzzle, answer)


def generate_large(out: Path) -> list[tuple[str, Path]]:
    """The large puzzles (:data:`LARGE`), made by ``race generate``: [(label, file)]."""
    found = []
    for n, holes, count in LARGE:
        for fill in LARGE_FILLS:
            where = out / f"n{n}-{fill}"
            subprocess.run([sys.executable, "-c", RACE, "generate", "--n", str(n), "--kind", "holes",
                            "--holes", str(holes), "--pattern", "random", "--fill", fill,
                            "--instances", str(count), "--seed", "0", "-o", str(where),
                            "--no-progress"], check=True, cwd=ROOT, capture_output=True)
            found += [(f"n{n}-{holes:.2f}-{fill}-{path.stem.rsplit('-', 1)[-1]}", path)
                      for path in sorted(where.glob("*.sudoku"))]
    return found


def race_large(cadical: str, tmp: Path, targets: Targets) -> None:
    """The large puzzles, whole process, each run capped (module docstring)."""
    print(f"\nlarge puzzles, whole process, CPU s (cap: binary {CAP:g} s; race solve 2 x (binary "
          f"+ 0.3 s) where the binary answered, else {CAP:g} s; '-' = no answer within the cap);\n"
          f"race solve -s sat runs CaDiCaL 1.9.5, {SAME_VERSION} the binary's own 1.5.3 in-process")
    both: list[tuple[str, float, float]] = []
    same: list[tuple[str, float, float]] = []
    missed: list[tuple[str, float, float]] = []
    for label, path in generate_large(tmp / "large"):
        grid = grid_text.read(path).grids[0]
        formula = sudoku_cnf.encode_reduced(grid)
        cnf = path.with_suffix(".cnf")
        dimacs.write(cnf, formula.nvars, formula.blocks)
        b_wall, b_cpu, out = limited([cadical, "-q", str(cnf)], CAP)
        b_ok = "s SATISFIABLE" in out and b_cpu <= CAP
        cap = 2 * (b_cpu + 0.3) if b_ok else CAP
        commands = [[sys.executable, "-c", RACE, "solve", "-s", spec, str(path)]
                    for spec in ("sat", SAME_VERSION)]
        runs = [[limited([cadical, "-q", str(cnf)], CAP) for _ in range(2 if b_cpu < 2 else 0)]]
        for command in commands if b_ok else commands[:1]:  # no binary answer: nothing to match
            first = limited(command, cap)
            again = first[1] <= cap and solved_by_race(grid, first[2]) and b_ok and b_cpu < 2
            runs.append([first, *(limited(command, cap) for _ in range(2 if again else 0))])
        # quick ones: the median of 3 runs each
        b_wall = statistics.median([b_wall, *(r[0] for r in runs[0])])
        b_cpu = statistics.median([b_cpu, *(r[1] for r in runs[0])])
        answers = [(statistics.median(r[0] for r in taken), statistics.median(r[1] for r in taken),
                    all(r[1] <= cap and solved_by_race(grid, r[2]) for r in taken))
                   for taken in runs[1:]]
        shown = [f"{w:.2f} / {c:.2f}" if ok else f"- ({c:.1f} s CPU)"
                 for w, c, ok in [(b_wall, b_cpu, b_ok), *answers]]
        ratios = [f"{c / (b_cpu + 0.3):.2f}x" if b_ok and ok else "-" for _, c, ok in answers]
        print(f"  {label:>28} {formula.nclauses:>8} clauses: binary {shown[0]:>15}   race sat "
              f"{shown[1]:>15}   {ratios[0]:>5} (binary + 0.3 s)" +
              (f"   same version {shown[2]:>15}   {ratios[1]:>5}" if len(shown) > 2 else ""),
              flush=True)
        if not b_ok:
            continue
        (r_cpu, r_ok), (v_cpu, v_ok) = ((c, ok) for _, c, ok in answers)
        (both if r_ok else missed).append((label, b_cpu, r_cpu))
        same.append((label, b_cpu, v_cpu if v_ok else math.inf))
    per_n = ", ".join(f"n={n}: {sum(label.startswith(f'n{n}-') for label, _, _ in both)} of "
                      f"{count * len(LARGE_FILLS)}" for n, _, count in LARGE)
    binary, race = sum(b for _, b, _ in both), sum(r for _, _, r in both)
    targets.at_most(f"large random holes, answered by both ({per_n}): race solve -s sat / "
                    f"(binary + 0.3 s), summed, whole process, CPU",
                    race / (binary + 0.3 * len(both)) if both else math.inf, 2.0,
                    f"the binary's whole runs + 0.3 s each, in this run, {CAP:g} s CPU cap")
    if missed:
        every = [*both, *missed]
        print(f"  race solve -s sat found no answer within 2 x (binary + 0.3 s) on "
              f"{', '.join(label for label, _, _ in missed)}: CaDiCaL 1.9.5 drew a longer search "
              f"there than the binary's 1.5.3 (the same-version runs show what race solve adds); "
              f"counting those at their cap, race solve -s sat / (binary + 0.3 s) summed is at "
              f"least {sum(r for _, _, r in every) / sum(b + 0.3 for _, b, _ in every):.2f}")
    binary, race = sum(b for _, b, _ in same), sum(r for _, _, r in same)
    targets.at_most(f"large random holes, every one the binary answered within {CAP:g} s "
                    f"({len(same)}): race solve -s {SAME_VERSION} / (binary + 0.3 s), summed, whole "
                    f"process, CPU (an unanswered one counts as infinite)",
                    race / (binary + 0.3 * len(same)) if same else math.inf, 2.0,
                    "the binary's whole runs + 0.3 s each, in this run: the same CaDiCaL version")


def main() -> None:
    cadical = shutil.which("cadical")
    if cadical is None:
        raise SystemExit("the cadical binary is not on PATH (Debian: apt-get install cadical)")
    targets = Targets(__file__, "the CaDiCaL binary's whole run on the same DIMACS file, in "
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
                if name.endswith("-0"):
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
            r_wall, r_cpu = statistics.median(r[0] for r in race), statistics.median(r[1] for r in race)
            b_wall, b_cpu = (statistics.median(r[0] for r in binary),
                             statistics.median(r[1] for r in binary))
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
        race_large(cadical, Path(tmp), targets)
    targets.exit()


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
