"""Benchmark: hard 36x36 puzzles (the ``hard`` family at n = 6) answered within 60 s CPU each.

Instances: the ``hard`` family at n = 6 (``holes`` at its hardness peak, 50 % of the cells
emptied evenly over rows, columns and boxes: ``generators/hardness_peaks.csv``), made by
``race generate --n 6 --kind holes --holes 0.5 --pattern balanced --instances 10`` with seed 0 (the
ten puzzles of ``results/reference-hard-n6``, checked by sha256 against its runs.csv) and
seed 1. Each entrant gets each puzzle in a fresh ``race solve -s ENTRANT`` process limited
to ``--limit`` CPU seconds (RLIMIT_CPU, for the race process and any solver binary it
starts); a puzzle counts as answered when the process printed a grid that solves it (checked
here against the clues) and used at most the limit in all (its own CPU and its children's).
Two puzzles run at a time (the bench machine has two cores; each entrant here uses one).

Target: ``TARGET_ENTRANT`` answers at least 5 of the 10 puzzles of each seed. The
reference campaigns answered 1 of the seed-0 ten, the same puzzle (``results/reference-hard-n6``:
kissat 30 s, sat none; ``results/reference-hard-n6-config``: sat:config=sat 35 s). The entrants of ``--entrants`` (default: the target's; specs separated by spaces)
are all measured in this run; only the target's count is checked.

Run: ``.venv/bin/python tests/bench/bench_hard.py`` (20 puzzles, about 10-15 minutes on two
idle cores); ``--limit 600 --entrants "sat kissat ..."`` measures the distance past the target
(``--seeds 0 --puzzles 2,3 --csv FILE`` on chosen puzzles only, appending each attempt to FILE).
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT)]

from formats import grid_text  # noqa: E402
from solvers.rules import is_solution_of  # noqa: E402
from tests.bench.targets import Targets  # noqa: E402

TARGET_ENTRANT = "sat:config=sat"
SEEDS = (0, 1)
PER_SEED = 10
AT_LEAST = 5
REFERENCE = ROOT / "results" / "reference-hard-n6" / "runs.csv"
RACE = "import sys; from experiments.cli.main import main; sys.argv[0] = 'race'; main()"


def generate(out: Path, seed: int) -> list[Path]:
    """The ``hard`` n = 6 puzzles of ``seed`` in ``out`` (``race generate``)."""
    subprocess.run([sys.executable, "-c", RACE, "generate", "--n", "6", "--kind", "holes",
                    "--holes", "0.5", "--pattern", "balanced", "--instances", str(PER_SEED),
                    "--seed", str(seed), "-o", str(out), "--no-progress"],
                   check=True, cwd=ROOT, capture_output=True)
    with open(out / "manifest.csv") as handle:
        rows = list(csv.DictReader(handle))
    if seed == 0:                       # the very puzzles of the reference campaign
        with open(REFERENCE) as handle:
            recorded = {row["instance"].rsplit("/", 1)[-1]: row["instance_sha256"]
                        for row in csv.DictReader(handle)}
        for row in rows:
            if recorded.get(row["file"]) != row["sha256"]:
                raise SystemExit(f"{row['file']}: not the puzzle of {REFERENCE} (sha256 differs)")
    return [out / row["file"] for row in rows]


def attempt(entrant: str, path: Path, limit: float) -> tuple[bool, float]:
    """(answered, CPU s) of one ``race solve`` process limited to ``limit`` CPU seconds."""
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (int(limit), int(limit) + 1))
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([sys.executable, "-c", RACE, "solve", "-s", entrant, str(path)],
                                stdout=out, stderr=subprocess.DEVNULL, cwd=ROOT,
                                preexec_fn=limited)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        cpu = usage.ru_utime + usage.ru_stime        # the process and the children it waited for
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    if proc.returncode != 0 or cpu > limit:
        return False, cpu
    puzzle = grid_text.read(path).grids[0]
    try:
        answer = grid_text.parse(text, "race solve output").grids[0]
    except Exception:                                # no grid printed: not an answer
        return False, cpu
    return is_solution_of(puzzle, answer), cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=float, default=60.0, help="CPU seconds per puzzle")
    parser.add_argument("--entrants", default=TARGET_ENTRANT,
                        help="entrant specs separated by spaces (the target's is checked)")
    parser.add_argument("--jobs", type=int, default=2, help="puzzles at a time")
    parser.add_argument("--seeds", default=",".join(map(str, SEEDS)),
                        help="seeds to measure, comma-separated (the target needs both)")
    parser.add_argument("--puzzles", default="",
                        help="0-based puzzle indices to measure, comma-separated (default: all "
                             f"{PER_SEED}; the target is checked only on all of them)")
    parser.add_argument("--csv", type=Path, help="append one row per attempt to this CSV file "
                        "(entrant, seed, puzzle, limit_cpu_s, answered, cpu_s)")
    args = parser.parse_args()
    entrants = args.entrants.split()
    seeds = tuple(int(s) for s in args.seeds.split(","))
    chosen = sorted({int(k) for k in args.puzzles.split(",")}) if args.puzzles else list(range(PER_SEED))
    if any(not 0 <= k < PER_SEED for k in chosen) or any(s not in SEEDS for s in seeds):
        parser.error(f"--puzzles takes indices 0..{PER_SEED - 1}, --seeds some of {SEEDS}")
    complete = chosen == list(range(PER_SEED)) and seeds == SEEDS
    targets = Targets(__file__, f"absolute: puzzles answered of {PER_SEED} per seed within "
                      f"{args.limit:g} CPU s each", "absolute")
    with tempfile.TemporaryDirectory() as tmp:
        puzzles = {seed: generate(Path(tmp) / f"s{seed}", seed) for seed in seeds}
        for entrant in entrants:
            for seed in seeds:
                t0 = time.perf_counter()
                with ThreadPoolExecutor(args.jobs) as pool:
                    found = list(pool.map(lambda k: attempt(entrant, puzzles[seed][k], args.limit),
                                          chosen))
                answered = sum(ok for ok, _ in found)
                cells = " ".join(f"#{k}:{cpu:.0f}" if ok else f"#{k}:-" for k, (ok, cpu) in zip(chosen, found))
                print(f"{entrant} seed {seed}: {answered}/{len(chosen)} answered "
                      f"(CPU s per puzzle, - = none within {args.limit:g} s: {cells}; "
                      f"{time.perf_counter() - t0:.0f} s wall)", flush=True)
                if args.csv:
                    new_file = not args.csv.exists()
                    with open(args.csv, "a", newline="") as handle:
                        rows = csv.writer(handle)
                        if new_file:
                            rows.writerow(["entrant", "seed", "puzzle", "limit_cpu_s", "answered", "cpu_s"])
                        rows.writerows([entrant, seed, k, f"{args.limit:g}", int(ok), f"{cpu:.1f}"]
                                       for k, (ok, cpu) in zip(chosen, found))
                if entrant == TARGET_ENTRANT and complete:
                    targets.at_least(f"hard n=6 seed {seed}: {entrant} answered of {PER_SEED} "
                                     f"within {args.limit:g} s CPU", answered, AT_LEAST)
    targets.exit()


if __name__ == "__main__":
    main()
