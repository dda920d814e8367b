"""Benchmark of the generators (``make bench``): time per puzzle and where it goes.

For n = 2..6: median seconds to generate one ``unique`` (Algorithm 2) and one
``minimal`` puzzle with the default (robust) counter, solver calls per puzzle
(questions propagation could not settle), questions settled by propagation,
and the split fill phase vs removal phase. Then n = 3 throughput against
QQwing (Debian package ``qqwing``, which generates minimal puzzles), measured
in the same run: the target is a ratio >= 1. Each row runs in a child process
stopped at its wall budget; the whole benchmark stays under 5 minutes.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from generators.counting import make_counter  # noqa: E402
from generators.unique import generate_unique  # noqa: E402

#: (n, kind) -> (runs, wall budget in s for the whole row); rows run in a child process that
#: is stopped at the budget (then the table says "> budget"): n = 5 minimal is heavy-tailed
#: (30 s to 500 s per puzzle here, hard SAT questions at ~57 % blanks)
RUNS = {(2, "unique"): (50, 30), (2, "minimal"): (50, 30), (3, "unique"): (30, 30),
        (3, "minimal"): (30, 30), (4, "unique"): (10, 30), (4, "minimal"): (5, 40),
        (5, "unique"): (3, 40), (5, "minimal"): (1, 150), (6, "unique"): (1, 100),
        (6, "minimal"): (1, 0)}
QQWING_COUNT = 300
HEADER = (f"{'n':>2} {'kind':8} {'runs':>4} {'median s':>9} {'fill s':>8} {'remove s':>9} "
          f"{'calls':>6} {'propag.':>7} {'clues':>6}")


def one(n: int, seed: int, minimal: bool, counter) -> tuple[float, dict]:
    ss = np.random.SeedSequence([seed, 0, n])
    fill, remove = (np.random.default_rng(s) for s in ss.spawn(2))
    t0 = time.perf_counter()
    r = generate_unique(n, fill, remove, counter, minimal=minimal)
    stats = dict(r.stats, clues=int(np.count_nonzero(r.puzzle)))
    return time.perf_counter() - t0, stats


def row(n: int, kind: str, runs: int) -> str:
    """One table row: ``runs`` puzzles of (n, kind), medians."""
    counter = make_counter(n)
    counter.warmup()
    times, stats = [], []
    for seed in range(runs):
        t, s = one(n, seed, kind == "minimal", counter)
        times.append(t)
        stats.append(s)
    counter.close()
    med = lambda key: statistics.median(s[key] for s in stats)  # noqa: E731
    return (f"{n:>2} {kind:8} {runs:>4} {statistics.median(times):>9.4f} {med('fill_seconds'):>8.4f} "
            f"{med('remove_seconds'):>9.4f} {med('calls'):>6.0f} {med('decided'):>7.0f} "
            f"{med('clues'):>6.0f}")


def table() -> None:
    print(HEADER)
    for (n, kind), (runs, budget) in RUNS.items():
        if budget == 0:
            print(f"{n:>2} {kind:8}    -  not run (minutes per puzzle)")
            continue
        try:
            out = subprocess.run([sys.executable, __file__, "--row", str(n), kind, str(runs)],
                                 capture_output=True, text=True, timeout=budget, check=True)
            print(out.stdout.rstrip("\n"), flush=True)
        except subprocess.TimeoutExpired:
            print(f"{n:>2} {kind:8} {runs:>4} {'> ' + str(budget):>9}  (stopped at the row budget)",
                  flush=True)


def qqwing() -> None:
    exe = shutil.which("qqwing")
    if exe is None:
        print("\nqqwing not installed (apt-get install qqwing): no baseline for n = 3")
        return
    t0 = time.perf_counter()
    out = subprocess.run([exe, "--generate", str(QQWING_COUNT), "--one-line"], check=True,
                         capture_output=True, text=True).stdout
    qq = time.perf_counter() - t0
    made = sum(1 for line in out.splitlines() if len(line.strip()) == 81)
    qq_rate = made / qq
    counter = make_counter(3)
    counter.warmup()
    print(f"\nn = 3 throughput, {QQWING_COUNT} puzzles each (one core):")
    print(f"  {'generator':28} {'puzzles/s':>10} {'ratio to QQwing':>16}")
    print(f"  {'qqwing --generate':28} {qq_rate:>10.0f} {1.0:>16.2f}")
    for kind in ("unique", "minimal"):
        t0 = time.perf_counter()
        for seed in range(QQWING_COUNT):
            one(3, seed, kind == "minimal", counter)
        rate = QQWING_COUNT / (time.perf_counter() - t0)
        print(f"  {'sudoku-race ' + kind:28} {rate:>10.0f} {rate / qq_rate:>16.2f}")


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--row":
        print(row(int(sys.argv[2]), sys.argv[3], int(sys.argv[4])))
        return
    t0 = time.perf_counter()
    print("Generators: seconds per puzzle (median), robust counter "
          "(propagation, DLX with a node budget, then SAT)")
    print("calls = questions that reached a solver; propag. = questions settled by propagation\n")
    table()
    qqwing()
    print(f"\n(benchmark took {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
