"""The race's parent process and the cores: its own CPU per cell, flat in the host, and cells/s
at each ``-j`` up to the machine's CPU count.

* **Parent CPU per cell**: ``race run`` of 1,000 and of 20,000 9x9 puzzles x ``bitset`` at
  ``-j`` = the CPU count, each in a process of its own that reports its ``getrusage(RUSAGE_SELF)``
  (children excluded) at exit; the CPU per cell is the difference of the two over the 19,000
  cells between them (start-up, calibration and the rest of a campaign's fixed cost cancel).
  Each campaign runs ``BENCH_PARENT_REPEATS`` times (2), interleaved, and its least CPU counts:
  on a shared machine a co-tenant only ever adds to it.
* **Flat in the host**: the same pair again with 1,000 idle processes started on the machine
  (``sleep``); the ratio of the two per-cell figures.
* **Scaling**: the same cells (``BENCH_SCALING_CELLS``, default 4,000 of the first puzzles) raced
  at ``-j`` 1, 2, 4, ... up to the CPU count; cells/s is what ``race run`` reports for its race
  (from the first cell sent to the last row written: without the start-up and the calibrations
  around it). On N cores, cells/s at ``-j N`` is held to at least 0.6 N times ``-j 1``'s, and at
  least 10 times at N >= 16.

The puzzles: Gordon Royle's 17-clue puzzles when ``RACE_17CLUE`` names the file
(``sudoku.many.17clue.txt``), else synthetic 9x9 puzzles of one solution each
(:mod:`experiments.harness.synthetic_campaign`). ``BENCH_JOBS`` (e.g. ``1,2,4,8,16``) sets
the ``-j`` values of the scaling part; ``BENCH_PARTS`` (``cpu,idle,scaling``) which parts run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import bench_scale  # noqa: E402

from tests.bench.targets import Targets  # noqa: E402

#: ``race run`` in this Python, reporting its own CPU (children excluded) as its last line
PROGRAM = ("import atexit, json, resource, sys\n"
           "def said():\n"
           "    r = resource.getrusage(resource.RUSAGE_SELF)\n"
           "    print('RUSAGE ' + json.dumps({'user': r.ru_utime, 'sys': r.ru_stime}), file=sys.stderr)\n"
           "atexit.register(said)\n"
           "from experiments.cli.main import main\n"
           "sys.argv = ['race'] + sys.argv[1:]\n"
           "main()\n")
SMALL, LARGE = 1_000, 20_000
CPU_PER_CELL_MS = 0.1
IDLE_PROCESSES = 1_000
IDLE_RATIO = 1.25
#: runs of each campaign of a CPU figure (the least CPU counts)
REPEATS = int(os.environ.get("BENCH_PARENT_REPEATS", "2"))


def race(*args: str) -> tuple[float, float, str]:
    """(wall s, the process's own CPU s, its output) of ``race ARGS`` in a process of its own."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", PROGRAM, *args], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "MPLBACKEND": "Agg"})
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        print(proc.stdout[-2000:], proc.stderr[-3000:])
        raise SystemExit(f"bench_parent: race {' '.join(args)} failed")
    usage = json.loads(proc.stderr.rsplit("RUSAGE ", 1)[1].splitlines()[0])
    return wall, usage["user"] + usage["sys"], proc.stdout + proc.stderr


def puzzle_set(work: Path, count: int) -> Path:
    """The first ``count`` puzzles, as bench_scale makes them."""
    return bench_scale.puzzle_set(work, count)[0]


def campaign(work: Path, instances: Path, jobs: int, name: str) -> tuple[float, float, str]:
    return race("run", "--instances", str(instances), "--solvers", "bitset", "--n", "3",
                "-j", str(jobs), "--no-report", "--quiet", "--out", str(work / "out"),
                "--campaign", name)


def cpu_per_cell_ms(work: Path, sets: dict[int, Path], jobs: int, tag: str) -> float:
    """The parent's CPU per cell: the difference of the two campaigns' CPU over the cells
    between them, each campaign's CPU the least of :data:`REPEATS` runs (interleaved): a
    co-tenant's burst only ever adds CPU time (cache and core sharing), as the calibration's
    minimum drops a disturbed sample."""
    cpu: dict[int, list[float]] = {count: [] for count in sets}
    for repeat in range(REPEATS):
        for count, instances in sets.items():
            name = f"{tag}-{count}-{repeat}"
            wall, used, _ = campaign(work, instances, jobs, name)
            cpu[count].append(used)
            print(f"{tag}: {count} cells at -j {jobs}: wall {wall:.1f} s, parent CPU {used:.2f} s"
                  f"{calibration(work / 'out' / name)}", flush=True)
    return 1000.0 * (min(cpu[LARGE]) - min(cpu[SMALL])) / (LARGE - SMALL)


def calibration(directory: Path) -> str:
    """The campaign's calibration scores at its start and end (what the machine's speed was:
    a host that slowed down shows here), as a note."""
    try:
        readings = json.loads((directory / "meta.json").read_text())["calibration"]
        start, end = (1000.0 * readings[moment]["score_s"] for moment in ("start", "end"))
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    return f" (calibration score {start:.2f} -> {end:.2f} ms)"


def raced(output: str) -> float:
    """cells/s of the race, as ``race run`` reports it."""
    found = re.search(r"raced (\d+) cell\(s\) in ([0-9.]+) s", output)
    if not found:
        raise SystemExit("bench_parent: race run reported no race")
    return int(found.group(1)) / float(found.group(2))


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-parent-"))
    cpus = len(os.sched_getaffinity(0))
    parts = os.environ.get("BENCH_PARTS", "cpu,idle,scaling").split(",")
    targets = Targets(__file__, f"the same race's smaller campaign (CPU) and -j 1 (cells/s), "
                      f"same run, {cpus} CPUs", "same run")
    source = "17-clue" if os.environ.get("RACE_17CLUE") else "synthetic 9x9"
    sets = {count: puzzle_set(work, count) for count in (SMALL, LARGE)}
    print(f"puzzles: {source}; machine: {cpus} CPUs, {len(os.listdir('/proc'))} /proc entries",
          flush=True)
    quiet = None
    if "cpu" in parts:
        quiet = cpu_per_cell_ms(work, sets, cpus, "quiet")
        print(f"parent CPU per cell: {quiet:.3f} ms", flush=True)
        targets.at_most("parent CPU per cell (ms)", quiet, CPU_PER_CELL_MS,
                        f"getrusage(RUSAGE_SELF), {LARGE:,}-cell minus {SMALL:,}-cell campaign")
    if "idle" in parts and quiet is not None:
        sleepers = [subprocess.Popen(["sleep", "3600"], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    for _ in range(IDLE_PROCESSES)]
        try:
            busy = cpu_per_cell_ms(work, sets, cpus, "idle")
        finally:
            for sleeper in sleepers:
                sleeper.kill()
            for sleeper in sleepers:
                sleeper.wait()
        print(f"parent CPU per cell with {IDLE_PROCESSES} idle processes: {busy:.3f} ms", flush=True)
        targets.at_most(f"parent CPU per cell, {IDLE_PROCESSES} idle processes / none", busy / quiet,
                        IDLE_RATIO, "the same pair of campaigns without them, same run")
    if "scaling" in parts:
        count = int(os.environ.get("BENCH_SCALING_CELLS", "4000"))
        instances = sets[LARGE] if count > SMALL else sets[SMALL]
        if count not in (SMALL, LARGE):
            instances = puzzle_set(work, count)
        given = os.environ.get("BENCH_JOBS")
        jobs = ([int(j) for j in given.split(",")] if given else
                sorted({1, *[2 ** k for k in range(1, 8) if 2 ** k <= cpus], cpus}))
        rates = {}
        for j in jobs:
            wall, cpu, output = campaign(work, instances, j, f"scaling-j{j}")
            rates[j] = raced(output)
            print(f"scaling: -j {j}: {rates[j]:.0f} cells/s ({count} cells; process wall "
                  f"{wall:.1f} s, parent CPU {cpu:.1f} s)", flush=True)
        for j in jobs[1:]:
            bound = 10.0 if j >= 16 else 0.6 * j
            targets.at_least(f"cells/s at -j {j} / -j 1", rates[j] / rates[1], bound,
                             "-j 1 on the same cells, same run")
    targets.exit()


if __name__ == "__main__":
    main()
