"""Benchmark: batch throughput of dlx on 17-clue 9x9 puzzles.

Puzzles: the 100 17-clue puzzles of tests/bench/data/sudoku17_sample.txt (the
start of Gordon Royle's public list of 17-clue puzzles), each also relabelled
and shuffled by Sudoku symmetries (digits, rows in bands, bands, columns in
stacks, stacks, transpose), which keeps 17 clues and a unique solution: 2,000
puzzles. Measured in this run, JIT compile excluded (warm-up first):

* baseline: the per-puzzle path of ``race solve`` today,
  ``registry.create('dlx').solve(grid)`` for each grid;
* batch: :func:`formats.grid_text.parse_one_line_many` on the file text +
  :func:`solvers.batch.solve_many` (one compiled call, vectorised
  verification, a verified Result per puzzle) + formatting the answer lines.

Targets: batch >= 20,000 puzzles/s and faster than the baseline; every answer
of both paths verified and equal. Exit 1 when a target is missed.
Run: ``.venv/bin/python tests/bench/bench_batch.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from formats import grid_text  # noqa: E402
from solvers import batch, registry  # noqa: E402
from solvers.interface import SOLVED  # noqa: E402

SAMPLE = ROOT / "tests" / "bench" / "data" / "sudoku17_sample.txt"
TARGET_PER_S = 20_000
PUZZLES = 2_000


def shuffled(cells: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A symmetry-equivalent 9x9 puzzle: same clue count, same number of solutions."""
    n = 3
    rows = np.concatenate([b * n + rng.permutation(n) for b in rng.permutation(n)])
    cols = np.concatenate([b * n + rng.permutation(n) for b in rng.permutation(n)])
    digits = np.concatenate([[0], rng.permutation(9) + 1])
    out = digits[cells[rows][:, cols]]
    return out.T if rng.random() < 0.5 else out


def puzzle_text(count: int) -> str:
    _, seeds = grid_text.parse_one_line_many(SAMPLE.read_text(), str(SAMPLE))
    rng = np.random.default_rng(14)
    grids = [seeds[i % len(seeds)] if i < len(seeds) else shuffled(seeds[i % len(seeds)], rng)
             for i in range(count)]
    return "\n".join("".join(map(str, g.ravel())) for g in grids) + "\n"


def per_puzzle(text: str) -> tuple[float, float, list]:
    t0, c0 = time.perf_counter(), time.process_time()
    grids = grid_text.parse(text).grids
    solver = registry.create("dlx")
    results = [solver.solve(g) for g in grids]
    lines = [grid_text.format_one_line(r.solution) for r in results]
    return time.process_time() - c0, time.perf_counter() - t0, [results, lines]


def batched(text: str) -> tuple[float, float, list]:
    t0, c0 = time.perf_counter(), time.process_time()
    n, puzzles = grid_text.parse_one_line_many(text)
    results = batch.solve_array(puzzles, n)
    solved = np.stack([r.solution.cells for r in results])
    lines = batch.format_one_line_many(solved)
    return time.process_time() - c0, time.perf_counter() - t0, [results, lines]


def main() -> int:
    text = puzzle_text(PUZZLES)
    clues = {line.count("0") for line in text.split()}
    warm = puzzle_text(20)
    per_puzzle(warm)
    batched(warm)
    base_s, base_wall, (base_results, base_lines) = min((per_puzzle(text) for _ in range(3)),
                                                        key=lambda r: r[0])
    fast_s, fast_wall, (fast_results, fast_lines) = min((batched(text) for _ in range(5)),
                                                        key=lambda r: r[0])
    ok = all(r.status == SOLVED and r.verified for r in base_results + fast_results)
    ok &= base_lines == fast_lines
    base_rate, fast_rate = PUZZLES / base_s, PUZZLES / fast_s
    print(f"{PUZZLES} 9x9 puzzles with {sorted(81 - c for c in clues)} clues, dlx, best of runs "
          "(CPU seconds of this process; wall in brackets)")
    print(f"  per-puzzle path (registry.create('dlx').solve): {base_s * 1e3:8.1f} ms  "
          f"{base_rate:9,.0f} puzzles/s  [{PUZZLES / base_wall:9,.0f}/s wall]")
    print(f"  batch path (solvers.batch, one compiled call):  {fast_s * 1e3:8.1f} ms  "
          f"{fast_rate:9,.0f} puzzles/s  [{PUZZLES / fast_wall:9,.0f}/s wall]   "
          f"ratio {fast_rate / base_rate:.1f}x")
    failures = []
    if not ok:
        failures.append("answers differ or are not all verified")
    if fast_rate < TARGET_PER_S:
        failures.append(f"batch {fast_rate:,.0f}/s < target {TARGET_PER_S:,}/s")
    if fast_rate <= base_rate:
        failures.append("batch is not faster than the per-puzzle path")
    for failure in failures:
        print(f"  MISSED: {failure}")
    print("  targets met" if not failures else "")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
