"""A race of many runs: 49,151 puzzles x bitset at -j 2, the analysis of 49k and 1,000,000 rows, and the dask
executor against the local one.

The puzzles: Gordon Royle's 49,151 17-clue puzzles when ``RACE_17CLUE`` names the file
(``sudoku.many.17clue.txt`` of the public rkkautsar/sudoku-solver repository), imported by
``race import``; otherwise as many synthetic 9 x 9 puzzles with one solution each
(:mod:`experiments.harness.synthetic_campaign`: transformations of a generated puzzle, easier
than 17-clue ones). Each command runs in a process of its own; its wall time and peak RSS
(``wait4``) are printed and checked against the bounds below. The million rows are a synthetic
campaign (2 entrants x 10 repeats x 50,000 instances); the first command reading it parses
runs.csv and keeps its columns beside it (:mod:`experiments.harness.runs_cache`), the others
map them. The dask figures are cells/s of a LocalCluster of 2 workers x 1 thread and of 1
worker x 2 threads against the local executor (``-j 2``) on the same 5,000 cells, measured in
the same run (the local executor's wall time is the mean of a run before the clusters and one
after).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: the race command, run by this Python
RACE = [sys.executable, "-c", "from experiments.cli.entry import race; race()"]
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from experiments.harness import synthetic_campaign  # noqa: E402
from tests.bench.targets import Targets  # noqa: E402

PUZZLES = 49_151
#: seconds and MB: the bounds of each step
RUN_S, RUN_MB, RESUME_S = 60.0, 400.0, 2.0
ANALYSIS_S, ANALYSIS_MB = 5.0, 500.0
MILLION_S, MILLION_MB = 15.0, 1024.0
DASK_RATIO = 0.9


def race(*args: str) -> tuple[float, float, str]:
    """(wall s, peak RSS MB, output) of ``race ARGS`` in a process of its own."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([*RACE, *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "MPLBACKEND": "Agg"})
    assert proc.stdout is not None                 # stdout=PIPE
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        print(output[-3000:])
        raise SystemExit(f"bench_scale: race {' '.join(args)} failed")
    return wall, usage.ru_maxrss / 1024.0, output


def puzzle_set(work: Path, count: int) -> tuple[Path, str]:
    """The instance set of ``count`` puzzles and what it is."""
    source = os.environ.get("RACE_17CLUE")
    directory = work / f"set{count}"
    if source:
        lines = Path(source).read_text().splitlines()[:count]
        one_line = work / f"puzzles{count}.txt"
        one_line.write_text("\n".join(lines) + "\n")
        race("import", str(one_line), "-o", str(directory))
        return directory, f"{len(lines)} 17-clue puzzles ({source})"
    synthetic_campaign.write_instances(directory, count)
    return directory, f"{count} synthetic puzzles (RACE_17CLUE not set)"


def step(targets: Targets, what: str, wall: float, peak: float, most_s: float, most_mb: float) -> None:
    print(f"{what}: {wall:.1f} s, peak RSS {peak:.0f} MB", flush=True)
    targets.at_most(f"{what} wall (s)", wall, most_s, "seconds, one process")
    targets.at_most(f"{what} peak RSS (GB)", peak / 1024.0, most_mb / 1024.0, "wait4 ru_maxrss")


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    targets = Targets(__file__, "bounds of the campaign targets on this machine (wall s, peak RSS GB)",
                      "bound")
    instances, what = puzzle_set(work, PUZZLES)
    print(f"puzzles: {what}", flush=True)
    run = ["run", "--instances", str(instances), "--solvers", "bitset", "--n", "3", "-j", "2",
           "--out", str(work / "out"), "--campaign", "c", "--no-report"]
    wall, peak, _ = race(*run)
    print(f"race run: {PUZZLES / wall:.0f} cells/s", flush=True)
    step(targets, "race run 49k bitset -j 2", wall, peak, RUN_S, RUN_MB)
    wall, peak, _ = race(*run)
    targets.at_most("resume with nothing to run wall (s)", wall, RESUME_S, "seconds, one process")
    campaign = str(work / "out" / "c")
    for name, args in (("plot", ["plot", campaign]), ("report --html", ["report", "--html", campaign]),
                       ("export -f markdown", ["export", campaign, "-f", "markdown"]),
                       ("compare", ["compare", campaign, campaign])):
        wall, peak, _ = race(*args)
        step(targets, f"49k {name}", wall, peak, ANALYSIS_S, ANALYSIS_MB)

    t0 = time.perf_counter()
    # written by a process of its own: a child's peak RSS (wait4) starts from its parent's at the
    # fork, so this process must never hold the million rows
    million = Path(subprocess.run(
        [sys.executable, "-c", "import sys; from pathlib import Path; "
         "from experiments.harness import synthetic_campaign; "
         "print(synthetic_campaign.write(Path(sys.argv[1]), 1_000_000, ('dlx', 'backtracking'), "
         "repeats=10))", str(work / "million")],
        cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout.strip().splitlines()[-1])
    print(f"1,000,000 synthetic rows written in {time.perf_counter() - t0:.0f} s", flush=True)
    for name, args in (("plot", ["plot", str(million)]), ("report --html", ["report", "--html", str(million)]),
                       ("export -f markdown", ["export", str(million), "-f", "markdown"]),
                       ("compare", ["compare", str(million), str(million)])):
        wall, peak, _ = race(*args)
        step(targets, f"1M rows {name}", wall, peak, MILLION_S, MILLION_MB)

    small, _ = puzzle_set(work, 5000)
    base = ["run", "--instances", str(small), "--solvers", "dlx", "--n", "3", "--out", str(work / "d"),
            "--no-report"]
    import distributed

    def on_cluster(campaign: str, workers: int, threads: int) -> float:
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True,
                                      dashboard_address=None) as cluster:
            return race(*base, "--campaign", campaign, "--executor", "dask", "--scheduler",
                        cluster.scheduler_address)[0]
    before = race(*base, "--campaign", "local-1", "-j", "2")[0]
    two_by_one = on_cluster("dask-2x1", 2, 1)
    one_by_two = on_cluster("dask-1x2", 1, 2)
    after = race(*base, "--campaign", "local-2", "-j", "2")[0]
    local = (before + after) / 2
    print(f"5,000 cells: local {5000 / before:.0f} and {5000 / after:.0f} cells/s (before and after the "
          f"clusters), dask 2x1 {5000 / two_by_one:.0f}, dask 1x2 {5000 / one_by_two:.0f}", flush=True)
    how = "the local executor, -j 2, same cells, same run: mean of a run before and one after"
    targets.at_least("dask 2x1 / local cells/s (5,000 cells)", local / two_by_one, DASK_RATIO, how)
    targets.at_least("dask 1x2 / local cells/s (5,000 cells)", local / one_by_two, DASK_RATIO, how)
    targets.exit()


if __name__ == "__main__":
    main()
