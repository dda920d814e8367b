"""Benchmark: 9x9 batch throughput.

Part 1, dlx on 17-clue 9x9 puzzles.

Puzzles: the 100 17-clue puzzles of tests/bench/data/sudoku17_sample.txt (the
start of Gordon Royle's public list of 17-clue puzzles), each also relabelled
and shuffled by Sudoku symmetries (digits, rows in bands, bands, columns in
stacks, stacks, transpose), which keeps 17 clues and a unique solution: 2,000
puzzles. Measured in this run, JIT compile excluded (warm-up first):

* baseline: the per-puzzle path of ``race solve`` today,
  ``registry.create('dlx').solve(grid)`` for each grid;
* batch: :func:`formats.grid_text.parse_one_line_many` on the file text +
  :func:`solvers.exact_cover.batch.solve_many` (one compiled call, vectorised
  verification, a verified Result per puzzle) + formatting the answer lines.

Targets: batch >= 20,000 puzzles/s and faster than the baseline; every answer
of both paths verified and equal. Exit 1 when a target is missed.

Part 2, ``race solve --solver bitset`` against the fastest 9x9 solvers.

Work: solve each puzzle of a one-line file once, check the grid and print it, in a whole process
(``race solve --solver bitset FILE``; the peers' programs of peers.py do the same). CPU time of
each process (user + system, from the kernel's accounting of the finished child), median of
:data:`RUNS` runs taken A/B interleaved (one run of each contestant per round, the order turned
each round). Every contestant's output must equal ours (the one solution of each puzzle).
The kernel alone: ours (:func:`solvers.bitset9_native.solve_many` on the whole array) and each
peer's (``-k``: puzzles in memory, solver calls only), least CPU of three passes, per puzzle.

Sets: with ``SUDOKU_PUBLIC_SETS=DIR`` holding ``sudoku.many.17clue.txt`` (Royle's 49,151 17-clue
puzzles) and ``sudoku.many.hardest110626.txt`` (375 of the hardest known), from the public
repository https://github.com/rkkautsar/sudoku-solver (``data/``), those (the hard set as 20
symmetric copies of each puzzle, 7,500); else the sets shipped here, made by batch_data.py:
minimal9.txt (300 minimal puzzles) and hard9.txt (50 hard minimal puzzles), each as 50,000
puzzles (symmetric copies, seeded), the size of the public 17-clue set: a whole process has a
fixed start (about 0.17 s of CPU for ``race``, most of it importing numpy) that weighs less the
more puzzles a file holds.

Peers: ``SUDOKU_PEERS=/path/to/tdoku`` (see peers.py for how to get it); without it the peer
comparison is skipped with a note. Targets against JCZSolve (or, when only tdoku is built,
against tdoku, which is faster: a stricter bound): whole process on the minimal (17-clue) set
<= 3x its CPU, the kernel alone <= 1.5x its CPU per puzzle, whole process on the hard set <= 3x;
always: the whole process at most half of ``race solve --solver dlx``'s on the minimal set.
Run: ``.venv/bin/python tests/bench/bench_batch.py``.
"""

from __future__ import annotations

import hashlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import batch_data  # noqa: E402
import peers  # noqa: E402

from formats import grid_text  # noqa: E402
from formats.grid import Grid  # noqa: E402
from solvers import registry  # noqa: E402
from solvers.exact_cover import batch
from solvers.interface import SOLVED, Result  # noqa: E402
from tests.bench.targets import Targets  # noqa: E402

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
    parsed = grid_text.parse_one_line_many(SAMPLE.read_text(), str(SAMPLE))
    assert parsed is not None
    _, seeds = parsed
    rng = np.random.default_rng(14)
    grids = [seeds[i % len(seeds)] if i < len(seeds) else shuffled(seeds[i % len(seeds)], rng)
             for i in range(count)]
    return "\n".join("".join(map(str, g.ravel())) for g in grids) + "\n"


def _solution(result: Result) -> Grid:
    """The grid of a solved puzzle (every sample has one)."""
    assert result.solution is not None
    return result.solution


def per_puzzle(text: str) -> tuple[float, float, list]:
    t0, c0 = time.perf_counter(), time.process_time()
    grids = grid_text.parse(text).grids
    solver = registry.create("dlx")
    results = [solver.solve(g) for g in grids]
    lines = [grid_text.format_one_line(_solution(r)) for r in results]
    return time.process_time() - c0, time.perf_counter() - t0, [results, lines]


def batched(text: str) -> tuple[float, float, list]:
    t0, c0 = time.perf_counter(), time.process_time()
    parsed = grid_text.parse_one_line_many(text)
    assert parsed is not None
    n, puzzles = parsed
    results = batch.solve_array(puzzles, n)
    solved = np.stack([_solution(r).cells for r in results])
    lines = batch.format_one_line_many(solved)
    return time.process_time() - c0, time.perf_counter() - t0, [results, lines]


def dlx_batch() -> int:
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
    print(f"  batch path (solvers.exact_cover.batch, one compiled call):  {fast_s * 1e3:8.1f} ms  "
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
    return len(failures)


RUNS = 5
#: puzzles of each shipped set's workload: about the size of the public 17-clue set, so that the
#: fixed cost of a start weighs as it does there
SHIPPED = 50_000
PUBLIC = "SUDOKU_PUBLIC_SETS"
SEVENTEEN, HARDEST = "sudoku.many.17clue.txt", "sudoku.many.hardest110626.txt"


def workloads(folder: Path) -> list[tuple[str, str, Path]]:
    """(short name, description, file) of the minimal and the hard set (module docstring)."""
    public = os.environ.get(PUBLIC)
    out = []
    for short, public_name, shipped, count in (("minimal", SEVENTEEN, batch_data.MINIMAL, SHIPPED),
                                               ("hard", HARDEST, batch_data.HARD, SHIPPED)):
        source = Path(public) / public_name if public else None
        if source is not None and source.is_file():
            puzzles = batch_data.read(source)
            if short == "hard":
                puzzles = batch_data.symmetric_copies(puzzles, 20 * len(puzzles), seed=20)
            what = f"{public_name}, {len(puzzles):,} puzzles"
        else:
            puzzles = batch_data.symmetric_copies(batch_data.read(shipped), count, seed=20)
            what = f"{shipped.name} as {count:,} symmetric copies"
        path = folder / f"{short}.txt"
        path.write_text(batch_data.lines(puzzles))
        out.append((short, what, path))
    return out


def whole_process(command: list[str]) -> tuple[float, str, int]:
    """(CPU seconds of the child, SHA-256 of its stdout, exit status) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, hashlib.sha256(done.stdout).hexdigest(), done.returncode


def interleaved(contestants: dict[str, list[str]]) -> dict[str, tuple[float, set[str], set[int]]]:
    """{name: (median CPU seconds, output digests, exit statuses)} over :data:`RUNS` rounds."""
    names = list(contestants)
    times: dict[str, list[float]] = {name: [] for name in names}
    digests: dict[str, set[str]] = {name: set() for name in names}
    codes: dict[str, set[int]] = {name: set() for name in names}
    for round_ in range(RUNS):
        turn = round_ % len(names)
        for name in names[turn:] + names[:turn]:
            cpu, digest, code = whole_process(contestants[name])
            times[name].append(cpu)
            digests[name].add(digest)
            codes[name].add(code)
    return {name: (statistics.median(times[name]), digests[name], codes[name]) for name in names}


def our_kernel(path: Path) -> float:
    """Least CPU seconds per puzzle of three passes of the bit-set kernel over the file."""
    from solvers import bitset9_native
    puzzles = np.ascontiguousarray(batch_data.read(path), dtype=np.uint8).reshape(-1, 81)
    bitset9_native.solve_many(puzzles[:10])
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        counts, _, _, _ = bitset9_native.solve_many(puzzles)
        best = min(best, time.process_time() - t0)
        assert (counts == 1).all()
    return best / len(puzzles)


def peer_kernel(program: Path, path: Path) -> float:
    done = subprocess.run([str(program), "-k", str(path)], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{program.name} -k failed ({done.returncode})")
    return float(done.stdout)


def against_peers(failures: int) -> int:
    race = Path(sys.executable).with_name("race")
    ours = [str(race)] if race.exists() else [sys.executable, "-c",
                                              "from experiments.cli.entry import race; race()"]
    with tempfile.TemporaryDirectory(prefix="bench-peers9-") as tmp:
        folder = Path(tmp)
        sets = workloads(folder)
        programs, notes = peers.build(folder)
        for note in notes:
            print(f"note: {note}")
        # JCZSolve is the bar; tdoku, faster than JCZSolve on these sets in tdoku's published
        # benchmarks, stands in for it when only tdoku is built (a stricter bound)
        peer = "jczsolve" if "jczsolve" in programs else "tdoku" if "tdoku" in programs else None
        label = {"jczsolve": "JCZSolve", "tdoku": "tdoku", None: "dlx"}[peer]
        targets = Targets(__file__, f"{label} built from its public source, same work, same run"
                          if peer else "race solve --solver dlx, same run", label)
        subprocess.run([*ours, "solve", "--solver", "bitset", str(sets[0][2])],
                       stdout=subprocess.DEVNULL, check=True)           # the C kernel built
        for short, what, path in sets:
            contestants = {"race solve --solver bitset": [*ours, "solve", "--solver", "bitset",
                                                          str(path)]}
            if short == "minimal":
                contestants["race solve --solver dlx"] = [*ours, "solve", "--solver", "dlx",
                                                          str(path)]
            contestants.update({name: [str(prog), str(path)] for name, prog in programs.items()})
            measured = interleaved(contestants)
            print(f"{short} set ({what}): whole process CPU, median of {RUNS} A/B interleaved runs")
            mine, my_digests, my_codes = measured["race solve --solver bitset"]
            for name, (cpu, digests, codes) in measured.items():
                same = "same output" if digests == my_digests and len(digests) == 1 else "OUTPUT DIFFERS"
                print(f"  {name:28s} {cpu:7.3f} s  {mine / cpu:6.2f}x  exit {sorted(codes)}  {same}")
                failures += digests != my_digests or len(digests) != 1 or codes != {0}
            kernels = {"bitset": our_kernel(path)}
            kernels.update({name: peer_kernel(prog, path) for name, prog in programs.items()})
            print("  kernel alone, CPU per puzzle (least of 3 passes): "
                  + ", ".join(f"{name} {sec * 1e6:.2f} us" for name, sec in kernels.items()))
            if peer:
                targets.at_most(f"{short} set, whole process CPU, race solve bitset/{label}",
                                mine / measured[peer][0], 3.0)
                if short == "minimal":
                    targets.at_most(f"minimal set, kernel CPU per puzzle, bitset/{label}",
                                    kernels["bitset"] / kernels[peer], 1.5)
            if short == "minimal":
                targets.at_most("minimal set, whole process CPU, race solve bitset/dlx",
                                mine / measured["race solve --solver dlx"][0], 0.5,
                                "race solve --solver dlx, same run")
        if peer is None:
            print("note: no peer built: the peer targets were not checked")
        elif peer == "tdoku":
            print("note: JCZSolve not built: the peer targets were checked against tdoku (stricter)")
        if failures:
            print(f"{failures} failure(s): see above")
            return 1
        targets.exit()


def main() -> int:
    return against_peers(dlx_batch())


if __name__ == "__main__":
    sys.exit(main())
