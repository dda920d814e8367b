"""Benchmark: the constraint-programming entrant (cpsat, OR-Tools CP-SAT, one worker) on the hard
25x25 puzzles of the reference campaign ``results/reference-hard-n5`` (20 puzzles, balanced
holes at the hardness peak, seed 10; regenerated from its meta.json and checked against the
sha256 its runs.csv recorded, :mod:`reference_set`).

Each puzzle is solved by each model in this process, warm, under the campaign's time limit
(20 s) counted in CPU seconds of this process (``RLIMIT_CPU``: at the limit the kernel's
SIGXCPU raises :class:`solvers.interface.Stop`, which stops CP-SAT as ``race solve --timeout``
does); CPU, not wall, because the bench machine is shared. ``sat:config=sat`` (the fastest
entrant on these puzzles) runs interleaved with them, as the baseline of the printed ratios.

Target: the default model answers every puzzle within the limit (answered share >= 1.00).
Printed: each model's answered share, CPU sum (a puzzle past the limit counts 2 x limit,
PAR-2) and its ratio to ``sat:config=sat``'s. Run: ``.venv/bin/python tests/bench/bench_cpsat.py``.
"""

from __future__ import annotations

import resource
import signal
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT)]

from reference_set import puzzles  # noqa: E402

from solvers import rules  # noqa: E402
from solvers.interface import SOLVED, Stop  # noqa: E402
from solvers.registry import BUILTIN  # noqa: E402
from solvers.sat.cpsat import DEFAULT_MODEL, MODELS  # noqa: E402
from tests.bench.targets import Targets  # noqa: E402

CAMPAIGN = "reference-hard-n5"
BASELINE = "sat:config=sat"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _stop(signum, frame) -> None:
    raise Stop()


def solve_capped(solver, grid, limit: float) -> tuple[bool, float]:
    """(answered within ``limit`` CPU seconds with a verified grid, CPU seconds spent)."""
    start = _cpu()
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (int(start + limit) + 1, hard))
    try:
        result = solver.solve(grid)
        ok = result.status == SOLVED and rules.is_solution_of(grid, result.solution)
    except Stop:
        ok = False
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    spent = _cpu() - start
    return ok and spent <= limit, spent


def main() -> None:
    limit, grids = puzzles(CAMPAIGN, 5)
    targets = Targets(__file__, f"{BASELINE} on the same {len(grids)} puzzles, in this run (CPU s)",
                      BASELINE)
    signal.signal(signal.SIGXCPU, _stop)
    specs = [f"cpsat:model={m}" for m in MODELS]
    solvers = {spec: BUILTIN.create(spec) for spec in [*specs, BASELINE]}
    for solver in solvers.values():
        solver.warmup()
    answered = {spec: 0 for spec in solvers}
    par2 = {spec: 0.0 for spec in solvers}
    t0 = time.perf_counter()
    for name, grid in grids:
        line = [f"{name}:"]
        for spec, solver in solvers.items():        # interleaved, puzzle by puzzle
            ok, cpu = solve_capped(solver, grid, limit)
            answered[spec] += ok
            par2[spec] += cpu if ok else 2 * limit
            line.append(f"{spec} {cpu:.2f} s{'' if ok else ' (over the limit)'}")
        print("  ".join(line), flush=True)
    print(f"({time.perf_counter() - t0:.0f} s wall in all)")
    for spec in specs:
        print(f"{spec}: {answered[spec]}/{len(grids)} answered within {limit:g} s CPU, PAR-2 sum "
              f"{par2[spec]:.1f} s, {par2[spec] / par2[BASELINE]:.2f}x {BASELINE}'s {par2[BASELINE]:.1f} s")
    default = f"cpsat:model={DEFAULT_MODEL}"
    targets.at_least(f"{default}: share of the {len(grids)} hard 25x25 of {CAMPAIGN} answered "
                     f"within {limit:g} s", answered[default] / len(grids), 1.0,
                     f"every puzzle; {BASELINE} answered {answered[BASELINE]}")
    targets.exit()


if __name__ == "__main__":
    main()
