"""Benchmark: the ``parallel`` entrant on 2 cores against its best member alone, on the hard 25x25
puzzles of the reference campaign ``results/reference-hard-n5`` (20 puzzles, balanced holes at
the hardness peak, seed 10; regenerated from its meta.json and checked against the sha256 its
runs.csv recorded, :mod:`reference_set`).

For each member set, puzzle by puzzle and interleaved: each member alone (warm, in this
process, on one core), then ``parallel:members=...`` (warm; its members forked per puzzle, one
per core). Measured per side: the wall seconds, and the wall seconds on free cores -- for a
member alone its CPU seconds (its own and its solver binary's), for the parallel entrant the
CPU seconds of the member that answered, up to its answer, plus the entrant's own wall time
to fork its members and to stop and reap them (phases ``start`` and ``stop``). The bench
machine is shared (2 cores, a load average of 8-18 in the measured runs): there the measured wall of two
processes against one is a race against the neighbours, not between the two sides (one run
measured wall ratios of 0.43 and 0.37 for sets whose answering member needed 0.89x and 0.84x
the CPU of the best member), so the target is checked on the wall time on free cores, and the
measured wall is printed beside it. The CPU seconds of all members (what the entrant spends)
are printed too.

Target (on :data:`CHOSEN`): the parallel entrant's wall time on free cores, summed over the 20
puzzles, is at most 0.7x its best member's alone (the member whose own sum is lowest). Beside
it, not targets: the same set against :data:`SINGLE` alone (the fastest single entrant on these
puzzles: what a user gives up by not racing two), and the same comparison on the 20 hard 25x25
of another seed (``results/reference-hard-n5-fallback``, seed 11), since :data:`CHOSEN` was picked
on seed 10. The other sets are measured and printed for comparison. Run:
``.venv/bin/python tests/bench/bench_parallel.py`` (``--sets all`` measures every set of
:data:`SETS`, the default only :data:`CHOSEN`).

Why :data:`CHOSEN`: the members differ in solver, encoding and phase, so their hard cases
differ. From each candidate's CPU seconds alone (the lower of two per puzzle, 28 pairs of
CaDiCaL and kissat with ``config=sat`` and seeds, ``phase=false`` or ``encoding=extended``) it
gave 0.49x its best member on seed 10, 0.64x on seed 11 and 0.75x on the 10 puzzles of seed 0
(``results/reference-hard-n5-fallback-s0``), 0.55x over the 50; the pair of the two fastest
single entrants (``sat:config=sat+kissat:config=sat\\,seed=1``) gave 0.72x, 0.62x and 0.99x,
0.70x over the 50, in about the same time in all (13.3 s for that pair, 14.0 s for the
chosen one; ``sat:config=sat`` alone 18.8 s).
"""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT)]

from reference_set import puzzles  # noqa: E402

from formats.grid import Grid  # noqa: E402
from solvers import rules  # noqa: E402
from solvers.interface import SOLVED, Result, Solver  # noqa: E402
from solvers.parallel import Parallel  # noqa: E402
from solvers.registry import BUILTIN  # noqa: E402
from tests.bench.targets import Targets  # noqa: E402

CAMPAIGN = "reference-hard-n5"
#: the member sets measured (``+``-joined member specs; ``\\,`` separates a member's parameters)
SETS = (
    "kissat:config=sat\\,encoding=extended+sat:config=sat\\,phase=false",
    "sat:config=sat+kissat:config=sat\\,seed=1",
    "sat:config=sat+kissat:config=sat",
    "sat:config=sat+sat:config=sat\\,seed=2",
    "kissat:config=sat+kissat:config=sat\\,seed=1",
    "sat:config=sat+cpsat:model=onehot",
)
#: the set the target is checked on
CHOSEN = SETS[0]
RATIO = 0.7
#: the fastest single entrant on these puzzles, timed beside the chosen set
SINGLE = "sat:config=sat"
#: hard 25x25 of another seed (11), measured with the chosen set (not a target)
OTHER_SEED = "reference-hard-n5-fallback"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(solver: Solver, grid: Grid) -> tuple[float, float, Result]:
    """(wall s, CPU s of this process and its children, result) of one verified solve."""
    c0, t0 = _self_cpu() + _children_cpu(), time.perf_counter()
    result = solver.solve(grid)
    wall = time.perf_counter() - t0
    if result.status != SOLVED or result.solution is None \
            or not rules.is_solution_of(grid, result.solution):
        raise SystemExit(f"{getattr(solver, 'spec', solver)}: no verified answer ({result.status})")
    return wall, _self_cpu() + _children_cpu() - c0, result


def measure(members_text: str, grids: list, single: str | None = None) -> dict:
    """Time the set's members alone and the set (and ``single`` alone, when it is not a member)."""
    parallel = BUILTIN.create(f"parallel:members={members_text}")
    assert isinstance(parallel, Parallel)
    members = parallel.specs                    # as the entrant splits them (``\\,`` unescaped)
    alone = {spec: BUILTIN.create(spec) for spec in members}
    if single is not None and single not in alone:
        alone[single] = BUILTIN.create(single)
    for solver in [*alone.values(), parallel]:
        solver.warmup()
    wall = {spec: 0.0 for spec in alone}
    free = {spec: 0.0 for spec in alone}        # wall on a free core: its CPU
    par_wall = par_free = par_cpu = 0.0
    wins: dict[str, int] = {}
    for name, grid in grids:
        parts = []
        for spec, solver in alone.items():
            w, c, _ = timed(solver, grid)
            wall[spec] += w
            free[spec] += c
            parts.append(f"{spec} {w:.2f} ({c:.2f})")
        w, c, result = timed(parallel, grid)
        winner = result.counters["winner"]
        own = result.times.get("start", 0.0) + result.times.get("stop", 0.0)
        answer = result.counters[f"member_cpu_ms_{winner}"] / 1000 + own
        par_wall += w
        par_cpu += c
        par_free += answer
        wins[members[winner]] = wins.get(members[winner], 0) + 1
        parts.append(f"parallel {w:.2f} ({answer:.2f}, won by {members[winner]})")
        print(f"  {name} wall s (on free cores): " + ", ".join(parts), flush=True)
    best = min(members, key=lambda s: free[s])
    best_wall = min(members, key=lambda s: wall[s])
    print(f"members {members_text}: alone, wall on a free core: "
          + ", ".join(f"{s} {free[s]:.2f} s" for s in free) + "; measured wall: "
          + ", ".join(f"{s} {wall[s]:.2f} s" for s in wall))
    print(f"  parallel: wall on free cores {par_free:.2f} s = {par_free / free[best]:.2f}x {best}'s; "
          f"measured wall {par_wall:.2f} s = {par_wall / wall[best_wall]:.2f}x {best_wall}'s; all "
          f"members' CPU {par_cpu:.2f} s; answers: " + ", ".join(f"{s} {k}" for s, k in wins.items()),
          flush=True)
    if single is not None:
        print(f"  against {single} alone: wall on free cores {par_free / free[single]:.2f}x, "
              f"measured wall {par_wall / wall[single]:.2f}x", flush=True)
    return {"ratio": par_free / free[best], "best": best, "wall_ratio": par_wall / wall[best_wall],
            "best_wall": best_wall}


def main() -> None:
    if len(os.sched_getaffinity(0)) < 2:
        raise SystemExit("bench_parallel needs 2 CPUs (the parallel entrant runs one member per core)")
    _, grids = puzzles(CAMPAIGN, 5)
    targets = Targets(__file__, f"the parallel entrant's best member alone, on the same {len(grids)} "
                      "puzzles, interleaved, in this run (wall s on free cores)", "best member alone")
    sets = SETS if "--sets" in sys.argv and sys.argv[sys.argv.index("--sets") + 1] == "all" else (CHOSEN,)
    found = {members: measure(members, grids, SINGLE if members == CHOSEN else None)
             for members in sets}
    chosen = found[CHOSEN]
    _, other = puzzles(OTHER_SEED, 5)
    print(f"the same set on the {len(other)} hard 25x25 of {OTHER_SEED} (seed 11), not a target:")
    measure(CHOSEN, other, SINGLE)
    targets.at_most(f"parallel:members={CHOSEN} on 2 cores: wall on free cores summed over the "
                    f"{len(grids)} hard 25x25 of {CAMPAIGN} / its best member's alone", chosen["ratio"],
                    RATIO, f"{chosen['best']} alone; measured wall (load {os.getloadavg()[0]:.1f}): "
                    f"{chosen['wall_ratio']:.2f}x {chosen['best_wall']}'s")
    targets.exit()


if __name__ == "__main__":
    main()
