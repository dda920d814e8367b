"""Benchmark: the calibration kernels' run-to-run spread (target < 3 % on an idle machine).

``race run`` times a fixed reference workload at its start and its end
(:mod:`experiments.harness.calibration`: the DLX count of 10 queens and CaDiCaL on a
pigeonhole formula) and warns when the two differ by more than 5 %; ``race compare
--normalise`` divides by it. Both only make sense if the kernel itself is steady: here it
runs :data:`RUNS` times in a row, on one pinned core, and the coefficient of variation
of each kernel's reading (the minimum of its samples) and of the score (their geometric
mean) must stay under :data:`TARGET_PCT`. The baseline is the run's own mean (the spread
is relative). Printed beside them, from the same samples, with no target: the spread the
median of the samples would have had (the reading before it became the minimum) and the
CPU times. The machine's readings are printed: on a busy machine the target can be missed
for the machine's sake, which is what the warning is for.

Run: ``.venv/bin/python tests/bench/bench_calibration.py``
"""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from experiments.harness import calibration, machine, pinning  # noqa: E402
from tests.bench.targets import Targets  # noqa: E402

RUNS = 7
TARGET_PCT = 3.0


def main() -> None:
    targets = Targets(__file__, "the mean of the same kernel's readings in this run", "own mean")
    cpus = pinning.allocate(1)
    if cpus:
        os.sched_setaffinity(0, set(cpus))
    state = machine.reading()
    print(f"machine: load {state['load_avg']}, other processes {state['others_busy_cores']} cores "
          f"busy, pinned to {cpus}")
    print(f"reading: the minimum of {calibration.SAMPLES} DLX samples of >= "
          f"{1e3 * calibration.DLX_MIN_TIME:.0f} ms and of {calibration.SAT_SAMPLES} SAT solves, "
          f"after {calibration.WARMUP} warm-up sample(s) each")
    calibration.calibrate()                                   # imports and JIT load
    readings = [calibration.calibrate() for _ in range(RUNS)]
    series = {"dlx (10 queens)": [r["dlx"]["seconds"] for r in readings],
              "sat (php7, CaDiCaL)": [r["sat"]["seconds"] for r in readings],
              "score": [r["score_s"] for r in readings]}
    scale = {"dlx median": [r["dlx"]["median_seconds"] for r in readings],
             "sat median": [r["sat"]["median_seconds"] for r in readings],
             "score of the medians": [(r["dlx"]["median_seconds"]
                                       * r["sat"]["median_seconds"]) ** 0.5 for r in readings],
             "dlx CPU time": [r["dlx"]["cpu_seconds"] for r in readings],
             "sat CPU time": [r["sat"]["cpu_seconds"] for r in readings]}
    print(f"{'kernel':<22}{'median':>12}{'min':>12}{'max':>12}{'spread':>9}")
    for name, values in series.items():
        spread = 100 * statistics.stdev(values) / statistics.fmean(values)
        print(f"{name:<22}{statistics.median(values) * 1e3:>9.3f} ms{min(values) * 1e3:>9.3f} ms"
              f"{max(values) * 1e3:>9.3f} ms{spread:>8.1f}%")
        targets.at_most(f"{name}: run-to-run spread (cv, %) over {RUNS} runs", spread, TARGET_PCT)
    for name, values in scale.items():       # for scale: the median, and time-sharing's part
        spread = 100 * statistics.stdev(values) / statistics.fmean(values)
        print(f"{name:<22}{statistics.median(values) * 1e3:>9.3f} ms{min(values) * 1e3:>9.3f} ms"
              f"{max(values) * 1e3:>9.3f} ms{spread:>8.1f}%  (printed, no target)")
    targets.exit()


if __name__ == "__main__":
    main()
