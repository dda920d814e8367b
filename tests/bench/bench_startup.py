"""Benchmark: start-up of the `race` command and `race solve` throughput.

Every figure is the median of repeated runs of a fresh interpreter (hyperfine
style, wall clock), warm numba cache (one unmeasured run first), measured in
this run against baselines measured in the same run:

* ``python -c pass``: the interpreter alone (the floor);
* the old start-up path of `race --help`: the same command after importing every
  command module eagerly, as the group did before it became lazy;
* the old path of `race solve` on one 9x9: the same command with its kernels always
  compiled (numba imported and its cache loaded, as before ``formats.compiled``);
  the same for `race solve -s sat` on one 25x25 with 40% holes (seeded latin fill),
  whose formula is built interpreted up to n = 7;
* `race solve -s dlx` over 2,000 17-clue 9x9 puzzles (tests/bench/data, shuffled
  by Sudoku symmetries as in bench_batch.py) through the CLI, batch path vs the
  per-puzzle path (the same CLI with ``batch_capable`` forced False);
* `race solve -s dlx` over :data:`WHOLE_PUZZLES` such puzzles, whole process (wall, start-up
  included; the batch kernel runs on every core this process may use);
* `race solve PUZZLE` (the default entrant, auto) against every single entrant (backtracking,
  dlx, sat, kissat) on the 9x9 puzzles of :func:`nine_by_nine` (tests/data/hard9.txt and
  generated unique, minimal and hard puzzles, several seeds), one puzzle per process, the
  entrants interleaved, median CPU (user + system, children included) of :data:`AUTO_RUNS`.

Targets: `race --help` <= 0.2 s and `race solve` of one 9x9 with dlx
<= 0.5 s (median), checked on the child's CPU time (user + system), which is the
wall time on an idle machine (the bench machine is shared; wall is printed too);
each faster than its old path; `race solve` over 2,000 puzzles >= 20,000
puzzles/s with start-up excluded (the CLI called in-process) and >= 2x its
per-puzzle path, with equal output; `race solve -s sat` of one 25x25 at most 0.8x its
always-compiled path (CPU); `race solve -s dlx` over 20,000 17-clue puzzles
>= 30,000 puzzles/s whole process, wall; `race solve` (auto) at most 1.2x the
fastest single entrant, over the 9x9 set (CPU, summed) and on each of its puzzles.
Exit 1 when a target is missed. Run: ``.venv/bin/python tests/bench/bench_startup.py``.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from tests.bench.targets import Targets  # noqa: E402

RUNS = 10
#: puzzles of the whole-process throughput run (10,000 or more)
WHOLE_PUZZLES = 20_000
PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n"
#: `race ARGS` as the CLI runs it, and as the old eager group did
RACE = "import sys; from experiments.cli.main import main; sys.argv[0] = 'race'; main()"
EAGER = ("import sys, importlib; from experiments.cli.main import COMMANDS, main; "
         "[importlib.import_module(m) for m, _, _ in COMMANDS.values()]; "
         "sys.argv[0] = 'race'; main()")
#: `race ARGS` with the kernels always compiled (the path before formats.compiled: numba
#: imported and its cache loaded even for one puzzle; the batch path's C kernel turned off,
#: or one puzzle would go to it and not to numba)
COMPILED = ("import os, sys; os.environ['RACE_NATIVE'] = '0'; "
            "from solvers.exact_cover.dlx import DLX; from solvers.sat.solver import SAT; "
            "DLX.INTERPRETED_MAX_PUZZLES = SAT.INTERPRETED_MAX_PUZZLES = 0; "
            "from experiments.cli.main import main; sys.argv[0] = 'race'; main()")
PER_PUZZLE = ("import sys; from solvers import batch; batch.batch_capable = lambda spec: False; "
              "from experiments.cli.main import main; sys.argv[0] = 'race'; main()")


def median_times(argv: list[str], runs: int = RUNS) -> tuple[float, float]:
    """Median (wall, CPU) seconds of ``argv`` over ``runs`` runs after one unmeasured
    run; CPU = user + system time of the child (what wall is on an idle machine)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    walls, cpus = [], []
    for i in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, env=env, cwd=ROOT)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"{argv} failed: {done.stderr.decode()[-500:]}")
        if i:
            walls.append(wall)
            cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def child_cpu(argv: list[str]) -> float:
    """CPU seconds (user + system, its children included) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed: {done.stderr.decode()[-500:]}")
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def puzzle_25x25() -> str:
    """One seeded 25x25 with 40% of its cells emptied at random, as native text."""
    import numpy as np

    from formats.grid import Grid
    from formats.grid_text import format_native
    from generators.solved_grids import latin_grid
    rng = np.random.default_rng([5, 2026])
    cells = latin_grid(5, rng).cells.copy().ravel()
    cells[rng.choice(cells.size, int(0.4 * cells.size), replace=False)] = 0
    return format_native(Grid(5, cells.reshape(25, 25)), {})


#: the entrants `race solve` (auto) is measured against, and the runs per puzzle and entrant
AUTO_RIVALS = ("backtracking", "dlx", "sat", "kissat")
AUTO_RUNS = 3
#: seeds of each generated family of :func:`nine_by_nine`
AUTO_SEEDS = range(4)


def nine_by_nine(directory: Path) -> list[Path]:
    """The 9x9 puzzles auto is measured on, one file each: tests/data/hard9.txt, and unique,
    minimal and hard (balanced holes at the hardness peak of n = 3) puzzles of
    :data:`AUTO_SEEDS`, as `race generate` writes them."""
    from formats.grid_text import format_native
    from generators.hardness_peaks import peak_holes
    from generators.puzzle_set import make
    paths = []
    for index, line in enumerate((ROOT / "tests" / "data" / "hard9.txt").read_text().split()):
        paths.append(directory / f"hard9-{index}.txt")
        paths[-1].write_text(line + "\n")
    families: list[tuple[str, dict[str, Any]]] = [
        ("unique", {}), ("minimal", {}), ("holes", {"holes": peak_holes(3), "pattern": "balanced"})]
    for kind, options in families:
        for seed in AUTO_SEEDS:
            grid, meta = make(kind, 3, seed, 0, **options)
            paths.append(directory / f"{kind}-s{seed}.sudoku")
            paths[-1].write_text(format_native(grid, meta))
    return paths


def auto_against_rivals(paths: list[Path]) -> dict[str, dict[str, float]]:
    """Per puzzle, the median CPU seconds of `race solve -s ENTRANT PUZZLE` for auto and each
    of :data:`AUTO_RIVALS`, whole process, the entrants interleaved run by run."""
    entrants = ("auto", *AUTO_RIVALS)
    table = {}
    for path in paths:
        cpus: dict[str, list[float]] = {e: [] for e in entrants}
        for run in range(AUTO_RUNS + 1):
            for entrant in entrants:
                cpu = child_cpu([sys.executable, "-c", RACE, "solve", "-s", entrant, str(path)])
                if run:                 # the first round warms the caches, unmeasured
                    cpus[entrant].append(cpu)
        table[path.name] = {e: statistics.median(v) for e, v in cpus.items()}
    return table


def cli_rate(path: Path, per_puzzle: bool) -> tuple[float, str]:
    """(puzzles/s CPU, stdout) of `race solve -s dlx PATH` called in this process (start-up
    excluded), best of 3 after a warm-up; ``per_puzzle`` forces the per-puzzle path."""
    from click.testing import CliRunner

    from experiments.cli.main import main
    from solvers.exact_cover import batch
    real = batch.batch_capable
    batch.batch_capable = (lambda spec: False) if per_puzzle else real
    try:
        best, out = float("inf"), ""
        for _ in range(4):
            c0 = time.process_time()
            result = CliRunner().invoke(main, ["solve", "-s", "dlx", str(path)])
            best = min(best, time.process_time() - c0)
            out = result.stdout
    finally:
        batch.batch_capable = real
    return len(out.split()) / best, out


def main() -> int:
    py = sys.executable
    targets = Targets(__file__, "the same command after importing every command module eagerly "
                      "(the old group), in this run", "old eager start-up")
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / "one.txt"
        one.write_text(PUZZLE)
        p25 = Path(tmp) / "p25.sudoku"
        p25.write_text(puzzle_25x25())
        many = Path(tmp) / "many.txt"
        from bench_batch import PUZZLES, puzzle_text
        many.write_text(puzzle_text(PUZZLES))
        whole = Path(tmp) / "whole.txt"
        whole.write_text(puzzle_text(WHOLE_PUZZLES))
        floor = median_times([py, "-c", "pass"])
        help_new = median_times([py, "-c", RACE, "--help"])
        help_old = median_times([py, "-c", EAGER, "--help"])
        solve_new = median_times([py, "-c", RACE, "solve", "-s", "dlx", str(one)])
        solve_old = median_times([py, "-c", COMPILED, "solve", "-s", "dlx", str(one)])
        sat_new = median_times([py, "-c", RACE, "solve", "-s", "sat", str(p25)])
        sat_old = median_times([py, "-c", COMPILED, "solve", "-s", "sat", str(p25)])
        many_wall = median_times([py, "-c", RACE, "solve", "-s", "dlx", str(many)], 3)
        whole_wall = median_times([py, "-c", RACE, "solve", "-s", "dlx", str(whole)], 3)
        whole_numba = median_times([py, "-c", "import os; os.environ['RACE_NATIVE'] = '0'; " + RACE,
                                    "solve", "-s", "dlx", str(whole)], 3)
        rate, fast_out = cli_rate(many, per_puzzle=False)
        slow_rate, slow_out = cli_rate(many, per_puzzle=True)
        auto = auto_against_rivals(nine_by_nine(Path(tmp)))
    print(f"median of {RUNS} fresh interpreters, wall / CPU (user+sys) in ms; "
          f"python -c pass: {floor[0] * 1e3:.0f} / {floor[1] * 1e3:.0f}")
    for what, new, old, baseline in (
            ("race --help", help_new, help_old, "old eager path"),
            ("race solve -s dlx (one 9x9)", solve_new, solve_old, "always compiled"),
            ("race solve -s sat (one 25x25)", sat_new, sat_old, "always compiled")):
        print(f"  {what:28s} {new[0] * 1e3:6.0f} / {new[1] * 1e3:5.0f}    {baseline} "
              f"{old[0] * 1e3:6.0f} / {old[1] * 1e3:5.0f}")
    print(f"  race solve -s dlx, {PUZZLES} 17-clue 9x9 in one file: {many_wall[0]:.2f} s wall, "
          f"{many_wall[1]:.2f} s CPU, whole command")
    print(f"  race solve -s dlx, {WHOLE_PUZZLES:,} 17-clue 9x9 in one file: {whole_wall[0]:.2f} s "
          f"wall, {whole_wall[1]:.2f} s CPU, whole command: {WHOLE_PUZZLES / whole_wall[0]:,.0f} "
          f"puzzles/s wall (with the numba kernel, RACE_NATIVE=0: {whole_numba[0]:.2f} s wall, "
          f"{whole_numba[1]:.2f} s CPU)")
    print(f"  the same in-process (start-up excluded, CPU): batch path {rate:,.0f} puzzles/s, "
          f"per-puzzle path {slow_rate:,.0f} puzzles/s; outputs equal: {fast_out == slow_out}")
    print(f"  race solve -s ENTRANT PUZZLE, one 9x9 per process, median CPU of {AUTO_RUNS} in ms "
          f"(auto/fastest: against the fastest entrant on that puzzle):")
    print(f"    {'puzzle':18s}" + "".join(f"{e:>14s}" for e in ("auto", *AUTO_RIVALS))
          + "  auto/fastest")
    worst = 0.0
    for name, cpus in auto.items():
        fastest = min(cpus[e] for e in AUTO_RIVALS)
        worst = max(worst, cpus["auto"] / fastest)
        print(f"    {name:18s}" + "".join(f"{cpus[e] * 1e3:14.0f}" for e in ("auto", *AUTO_RIVALS))
              + f"  {cpus['auto'] / fastest:12.2f}")
    totals = {e: sum(cpus[e] for cpus in auto.values()) for e in ("auto", *AUTO_RIVALS)}
    single = min(AUTO_RIVALS, key=lambda e: totals[e])
    print(f"    {'total':18s}" + "".join(f"{totals[e] * 1e3:14.0f}" for e in ("auto", *AUTO_RIVALS))
          + f"  {totals['auto'] / totals[single]:12.2f} (the fastest single entrant: {single})")
    targets.at_most("race --help: CPU s (target: <= 0.2 s wall, idle machine)", help_new[1], 0.2,
                    "absolute")
    targets.at_most("race solve one 9x9 dlx: CPU s (target: <= 0.5 s wall, idle machine)",
                    solve_new[1], 0.5, "absolute")
    targets.at_most("race --help: new/old CPU", help_new[1] / help_old[1], 0.5)
    targets.at_most("race solve one 9x9 dlx: new/always-compiled CPU", solve_new[1] / solve_old[1],
                    0.8, "the same command with the kernels always compiled, in this run")
    targets.at_most("race solve one 25x25 sat: new/always-compiled CPU", sat_new[1] / sat_old[1],
                    0.8, "the same command with the kernels always compiled, in this run")
    targets.at_least("race solve over 2,000 puzzles: puzzles/s (CPU, start-up excluded)", rate,
                     20_000, "absolute")
    targets.at_least("race solve over 2,000 puzzles: batch/per-puzzle", rate / slow_rate, 2.0,
                     "per-puzzle path of the same CLI")
    targets.at_least(f"race solve over {WHOLE_PUZZLES:,} puzzles: puzzles/s (wall, whole process)",
                     WHOLE_PUZZLES / whole_wall[0], 30_000, "absolute")
    targets.at_most(f"race solve (auto) on {len(auto)} 9x9 puzzles: auto/fastest single entrant, "
                    "CPU summed", totals["auto"] / totals[single], 1.2,
                    f"the fastest single entrant over the set ({single}), whole process, in this run")
    targets.at_most(f"race solve (auto) on {len(auto)} 9x9 puzzles: worst puzzle, auto/fastest "
                    "entrant on it, CPU", worst, 1.2,
                    "the fastest entrant on each puzzle, whole process, in this run")
    if fast_out != slow_out:
        targets.at_least("race solve over 2,000 puzzles: outputs equal", 0.0, 1.0, "per-puzzle path")
    targets.exit()


if __name__ == "__main__":
    main()
