"""Benchmark: ``race cover --count`` against the ``miniexact`` command line, on the same files.

Every problem is written once as a dlx file (``race example ...``) and both programs read that
file: ``race cover FILE --count`` and ``miniexact -c -e -D FILE`` (Algorithm C, every solution,
Knuth's dlx format; ``-m`` for multiplicities). Both counts must agree.

* Whole process: the CPU time (user + system) of each program, from its start to its exit, as
  the operating system accounts it (getrusage of the finished child), the two run in turn
  (A B A B ...); the medians are compared. Targets: ``race cover`` at most miniexact + 0.15 s
  on queens 8 and 12, toroidal queens 13 and ``scott --knuth``; at most 1.0x miniexact on
  ``pentominoes 6x10 --knuth``, ``pentominoes 6x10`` and ``scott``.
* Search alone, as updates per second (Knuth's measure of work: one per item covered and one per
  node hidden). Ours: our kernel's updates over the CPU time of its search in this process (the
  problem linked before the clock starts). miniexact's: its whole-process CPU time minus that of
  the same file with one more primary item that no option names (miniexact reads it and stops at
  once: its parse and start-up), medians of runs in turn; its updates are ours, since both
  programs make the same search tree (Algorithm X's covers; the first item of least length, in
  the order of the item line). Targets: at least 1.0x miniexact's on queens 14, toroidal queens 13
  and the 6x10 (both forms).
* ``-j 2`` against ``-j 1`` (wall time, whole process, in turn): at most 0.6x on the 6x10 and
  Scott's problem. Two cores must be idle for this to mean anything: the load average is printed
  with it.
* Counts, nodes and updates of every problem of ``race example --list`` with published values:
  the source's numbers from the C kernel, and the numba kernels' numbers (the search before the C
  kernel) equal to the C kernel's on every problem.
* Multiplicities and colors: seeded random problems (the same generator and seeds in every
  run), ``race cover --count`` (the default choice: the numba kernel's tree) and ``race cover
  --count --heuristic slack`` (Knuth's choice of Algorithm M) against ``miniexact -m``, whole
  process CPU, counts equal. Our branching is not Knuth's Algorithm M, so the trees differ;
  target: ``--heuristic slack`` at most miniexact + 0.15 s.
* The first build of the C kernel (``cc -O2``, once per machine and source), timed apart.

Every run is warm: the C kernel built and the project's bytecode compiled before the first timed
run (as Python caches it after a first run).

Run: ``.venv/bin/python tests/bench/bench_cover.py`` (``BENCH_COVER_RUNS`` sets the runs per
whole-process figure, default 7).
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from formats import dlx_format  # noqa: E402
from generators import cover_problems, polyiamonds, polyominoes, polysticks  # noqa: E402
from solvers import cover_native  # noqa: E402
from solvers.cover_native import FIRST, MRV, CoverKernel  # noqa: E402
from tests.bench.targets import Targets  # noqa: E402

RUNS = int(os.environ.get("BENCH_COVER_RUNS", "7"))
BIN = Path(sys.executable).parent
RACE = [str(BIN / "race")] if (BIN / "race").exists() else \
    [sys.executable, "-c", "import sys; from experiments.cli.main import main; sys.argv[0] = 'race'; main()"]
MINIEXACT = str(BIN / "miniexact") if (BIN / "miniexact").exists() else shutil.which("miniexact")


def _miniexact() -> str:
    """The miniexact command (:func:`main` refuses to start without it)."""
    if MINIEXACT is None:
        raise SystemExit("miniexact is not installed (pip install miniexact)")
    return MINIEXACT


#: the problems timed: name -> the arguments of race example
TIMED = {
    "queens 8": ["queens", "8"], "queens 12": ["queens", "12"], "queens 14": ["queens", "14"],
    "toroidal-queens 13": ["toroidal-queens", "13"], "scott --knuth": ["scott", "--knuth"],
    "scott": ["scott"], "pentominoes 6x10 --knuth": ["pentominoes", "6x10", "--knuth"],
    "pentominoes 6x10": ["pentominoes", "6x10"], "dudeney --knuth": ["dudeney", "--knuth"],
}
#: whole process: race cover at most miniexact + this many CPU seconds ...
PLUS_SECONDS = 0.15
PLUS = ["queens 8", "queens 12", "toroidal-queens 13", "scott --knuth"]
#: ... or at most this multiple of miniexact's CPU time
TIMES = 1.0
RATIO = ["pentominoes 6x10 --knuth", "pentominoes 6x10", "scott"]
#: miniexact's search alone is measured when it takes at least this many CPU seconds
MEASURABLE = 0.002
#: search alone: our updates/s at least this multiple of miniexact's
RATE = 1.0
RATE_ON = ["queens 14", "toroidal-queens 13", "pentominoes 6x10 --knuth", "pentominoes 6x10"]
#: seeded problems with colors and multiplicities: (seed, primary, secondary, options)
RANDOM_M = [(18, 36, 12, 130), (66, 36, 12, 130), (5, 28, 10, 120)]
#: -j 2 at most this fraction of -j 1 (wall)
SPLIT = 0.6
SPLIT_ON = ["pentominoes 6x10 --knuth", "scott"]
#: runs of each of -j 1 and -j 2: Scott's are a few tenths of a second, where one slow run
#: in three moved the median ratio by 0.05
SPLIT_RUNS = 2 * RUNS + 1

#: the problems with published values: (name, maker, heuristic, solutions, (nodes, updates) or
#: None, source). Our nodes count the root (Scott: the paper's + 1) and the solution leaves
#: (the 6x10: the paper's + 2339); see tests/test_cover_examples.py.
PUBLISHED = [
    *[(f"queens {n}", (lambda n=n: cover_problems.queens(n)), MRV, c, (nodes, updates),
       "Knuth's table") for n, (c, nodes, updates) in {
           4: (2, 13, 183), 8: (92, 1049, 16680), 10: (724, 11578, 198264),
           11: (2680, 45393, 783140), 12: (14200, 211716, 3594752),
           13: (73712, 1046319, 17463157)}.items()],
    ("scott X at 23", lambda: polyominoes.scott(x="23"), MRV, 19, (10_421 + 1, 3_617_723), "paper"),
    ("scott X at 23, no S", lambda: polyominoes.scott(x="23"), FIRST, 19, (103_005 + 1, 17_818_752),
     "paper"),
    ("scott X at 24", lambda: polyominoes.scott(x="24"), MRV, 20, (12_900 + 1, 4_547_186), "paper"),
    ("scott X at 33", lambda: polyominoes.scott(x="33"), MRV, 26, None, "paper"),
    ("scott --knuth", lambda: polyominoes.scott(knuth=True), MRV, 65, None, "paper: 19+20+26"),
    ("scott", polyominoes.scott, MRV, 520, None, "paper: 8 x 65"),
    ("pentominoes 6x10 --knuth", lambda: polyominoes.pentomino_rectangle(6, 10, True), MRV, 2339,
     (902_631 + 2339, 309_134_131), "paper"),
    ("pentominoes 6x10 --knuth, no S", lambda: polyominoes.pentomino_rectangle(6, 10, True), FIRST,
     2339, (28_320_810 + 2339, 4_107_105_935), "paper"),
    ("pentominoes 6x10", lambda: polyominoes.pentomino_rectangle(6, 10), MRV, 9356, None, "4 x 2339"),
    ("pentominoes 5x12 --knuth", lambda: polyominoes.pentomino_rectangle(5, 12, True), MRV, 1010, None,
     "Golomb"),
    ("pentominoes 4x15 --knuth", lambda: polyominoes.pentomino_rectangle(4, 15, True), MRV, 368, None,
     "Golomb"),
    ("pentominoes 3x20 --knuth", lambda: polyominoes.pentomino_rectangle(3, 20, True), MRV, 2, None,
     "Golomb"),
    ("hexiamonds --knuth", lambda: polyiamonds.hexiamond_rhombus(knuth=True), MRV, 156, None,
     "paper, Torbijn"),
    ("one-sided 3x30 --knuth", lambda: polyominoes.one_sided_rectangle(3, 30, True), MRV, 46, None,
     "paper, Leech"),
    ("dudeney --knuth", lambda: polyominoes.dudeney(True), MRV, 16_146, None, "paper"),
    *[(f"tetrasticks --omit {o} --knuth", (lambda o=o: polysticks.tetrastick_grid(o, True)), MRV, c,
       None, "paper, Figure 11") for o, c in polysticks.OMITTABLE.items()],
    ("toroidal-queens 13", lambda: cover_problems.toroidal_queens(13), MRV, 4524, None, "OEIS A051906"),
    ("plus-noise 5", lambda: cover_problems.plus_noise(5), MRV, 240, None, "blog"),
    ("windowed-sudoku", lambda: cover_problems.windowed_sudoku(), MRV, 0, None, "blog"),
    ("latin 4", lambda: cover_problems.latin_square(4), MRV, 576, None, "4!3!L(4)"),
]


# -- running programs -------------------------------------------------------------------------

def run_cpu(argv: list[str]) -> tuple[float, float, str]:
    """(CPU seconds user + system, wall seconds, stdout) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 20):           # miniexact exits 10/20 (found some / none)
        if not (argv[0] == MINIEXACT and done.returncode == 10):
            raise SystemExit(f"{argv} failed ({done.returncode}): {done.stderr[-500:]}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return cpu, wall, done.stdout


def paired(a: list[str], b: list[str], runs: int = RUNS):
    """Medians of (A CPU, A wall, B CPU, B wall) over ``runs`` runs in turn after one of each
    unmeasured, and the last outputs."""
    run_cpu(a), run_cpu(b)
    ac, aw, bc, bw = [], [], [], []
    out_a = out_b = ""
    for _ in range(runs):
        c, w, out_a = run_cpu(a)
        ac.append(c)
        aw.append(w)
        c, w, out_b = run_cpu(b)
        bc.append(c)
        bw.append(w)
    med = statistics.median
    return med(ac), med(aw), med(bc), med(bw), out_a, out_b


def median_cpu(argv: list[str], runs: int = RUNS) -> float:
    """Median CPU seconds of ``runs`` runs of ``argv`` (after one unmeasured)."""
    run_cpu(argv)
    return statistics.median(run_cpu(argv)[0] for _ in range(runs))


def miniexact_count(stdout: str) -> int:
    m = re.search(r"Found (\d+) solutions", stdout)
    if not m:
        raise SystemExit(f"miniexact printed no count: {stdout[-300:]}")
    return int(m.group(1))


def parse_only(path: Path) -> Path:
    """The same file with one more primary item that no option names: miniexact reads it and
    stops at once (no option can cover it)."""
    text = path.read_text()
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("|")]
    lines[0] = "ZZunused " + lines[0]
    out = path.with_suffix(".parse.dlx")
    out.write_text("\n".join(lines) + "\n")
    return out


def our_search(path: Path) -> tuple[int, int, float]:
    """(solutions, updates, median CPU seconds of the search alone) of our kernel on the file,
    three searches of the problem linked once."""
    problem = dlx_format.parse(path.read_text(), str(path))
    kernel = CoverKernel.from_dlx(problem)
    times, found = [], None
    for _ in range(3):
        t0 = time.process_time()
        found = kernel.search()
        times.append(time.process_time() - t0)
    assert found is not None
    return found.count, found.updates, statistics.median(times)


# -- the parts ----------------------------------------------------------------------------------

def timed_problems(folder: Path, targets: Targets) -> None:
    print("\nWhole process (CPU s, median of runs in turn) and search alone (updates/s):")
    header = (f"{'problem':26s} {'sols':>7s} {'updates':>13s} {'race s':>8s} {'mini s':>8s} "
              f"{'race-mini':>9s} {'race/mini':>9s} {'ours Mupd/s':>11s} {'mini Mupd/s':>11s} "
              f"{'ratio':>6s}")
    print(header)
    print("-" * len(header))
    for name, args in TIMED.items():
        path = folder / (name.replace(" ", "_").replace("--", "") + ".dlx")
        with open(path, "w") as out:
            subprocess.run([*RACE, "example", *args], stdout=out, check=True, cwd=ROOT)
        runs = RUNS if name not in ("pentominoes 6x10", "dudeney --knuth") else max(3, RUNS // 2)
        race_cpu, _, mini_cpu, _, race_out, mini_out = paired(
            [*RACE, "cover", str(path), "--count"], [_miniexact(), "-c", "-e", "-D", str(path)], runs)
        count = int(race_out.strip())
        if count != miniexact_count(mini_out):
            raise SystemExit(f"{name}: race cover counts {count}, miniexact "
                             f"{miniexact_count(mini_out)}")
        start_cpu = median_cpu([_miniexact(), "-c", "-e", "-D", str(parse_only(path))], runs)
        ours_count, updates, ours_s = our_search(path)
        assert ours_count == count
        mini_search = mini_cpu - start_cpu
        ours_rate = updates / max(ours_s, 1e-9)
        if mini_search < MEASURABLE:                 # below the clock's reach: no rate
            mini_rate, rates = float("nan"), f"{'-':>11s} {'-':>6s}"
        else:
            mini_rate = updates / mini_search
            rates = f"{mini_rate / 1e6:11.1f} {ours_rate / mini_rate:6.2f}"
        print(f"{name:26s} {count:7d} {updates:13d} {race_cpu:8.3f} {mini_cpu:8.3f} "
              f"{race_cpu - mini_cpu:+9.3f} {race_cpu / mini_cpu:9.2f} {ours_rate / 1e6:11.1f} "
              f"{rates}", flush=True)
        if name in PLUS:
            targets.at_most(f"{name}: race cover - miniexact, CPU s (whole process)",
                            race_cpu - mini_cpu, PLUS_SECONDS)
        if name in RATIO:
            targets.at_most(f"{name}: race cover / miniexact, CPU (whole process)",
                            race_cpu / mini_cpu, TIMES)
        if name in RATE_ON:
            targets.at_least(f"{name}: our updates/s / miniexact's (search alone)",
                             ours_rate / mini_rate, RATE,
                             "miniexact's whole CPU minus its parse-only run, in this run")


def split_runs(folder: Path, targets: Targets) -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\n-j 2 against -j 1, whole process wall s (median of {SPLIT_RUNS} runs each, in turn; "
          f"load average {load:.1f} on {os.cpu_count()} cores, so {'busy' if load > 0.5 else 'idle'}):")
    for name in SPLIT_ON:
        path = folder / (name.replace(" ", "_").replace("--", "") + ".dlx")
        _, one, _, two, out_one, out_two = paired([*RACE, "cover", str(path), "--count", "-j", "1"],
                                                  [*RACE, "cover", str(path), "--count", "-j", "2"],
                                                  SPLIT_RUNS)
        assert out_one == out_two, (out_one, out_two)
        busiest = busiest_thread(path)
        print(f"  {name:26s} -j 1 {one:7.3f} s   -j 2 {two:7.3f} s   ratio {two / one:.2f}   (the "
              f"busier of the two threads: {busiest:.3f} s CPU of pieces)", flush=True)
        targets.at_most(f"{name}: -j 2 / -j 1 wall (two idle cores; load {load:.1f})", two / one,
                        SPLIT, "-j 1 of the same command in this run")


def busiest_thread(path: Path) -> float:
    """CPU seconds of the pieces the busier thread searched, in a split over two threads in
    this process (what the -j 2 wall time is made of on two idle cores, start-up apart)."""
    import threading

    from solvers.exact_cover import threads as cover_threads
    kernel = CoverKernel.from_dlx(dlx_format.parse(path.read_text(), str(path)))
    _, pieces = cover_threads.split(kernel, 2)
    queue = iter(pieces)
    lock = threading.Lock()
    spent = [0.0, 0.0]

    def work(t: int, copy: CoverKernel) -> None:
        t0 = time.thread_time()
        while True:
            with lock:
                piece = next(queue, None)
            if piece is None:
                break
            copy.search(prefix=piece)
        spent[t] = time.thread_time() - t0
    threads = [threading.Thread(target=work, args=(t, kernel.clone())) for t in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return max(spent)


def published(targets: Targets) -> None:
    """The source's numbers from the C kernel; the numba kernel's equal to the C kernel's."""
    import numpy as np

    from solvers.exact_cover.algorithm_x import dlx_search
    from solvers.exact_cover.dancing_links import DancingLinks
    print("\nPublished counts (C kernel; numba kernel the same nodes and updates):")
    header = f"{'problem':36s} {'sols':>7s} {'nodes':>11s} {'updates':>14s} {'C s':>7s} {'numba s':>8s}  source"
    print(header)
    print("-" * len(header))
    bad = 0
    for name, make, heuristic, solutions, knuth, source in PUBLISHED:
        problem = make()
        kernel = CoverKernel.from_dlx(problem.to_dlx())
        t0 = time.process_time()
        ours = kernel.search(heuristic)
        t_c = time.process_time() - t0
        dl = DancingLinks.from_problem(problem)
        t0 = time.process_time()
        count, nodes, updates, _ = dlx_search(dl.links, heuristic, 0, 0, 0,
                                              np.zeros((1, 1), np.int64), np.zeros(1, np.int64))
        t_n = time.process_time() - t0
        same = (ours.count, ours.nodes, ours.updates) == (count, nodes, updates)
        right = ours.count == solutions and (knuth is None or (ours.nodes, ours.updates) == knuth)
        bad += not (same and right)
        print(f"{name:36s} {ours.count:7d} {ours.nodes:11d} {ours.updates:14d} {t_c:7.2f} "
              f"{t_n:8.2f}  {source}{'' if right else '  WRONG: ' + str((solutions, knuth))}"
              f"{'' if same else '  numba: ' + str((count, nodes, updates))}", flush=True)
    targets.at_most("published problems whose counts, nodes or updates differ (source or numba)",
                    float(bad), 0.0, "the source documents and the numba kernel")


def random_extended(folder: Path, targets: Targets) -> None:
    """Seeded problems with colors and multiplicities, race cover against miniexact -m."""
    print("\nColors and multiplicities, seeded random problems (whole process CPU s, median; "
          "race cover with the default choice and with --heuristic slack):")
    for seed, primary, secondary, options in RANDOM_M:
        text = random_problem(seed, primary, secondary, options)
        path = folder / f"random-m{seed}.dlx"
        path.write_text(text)
        mini = folder / f"random-m{seed}.mini.dlx"
        mini.write_text(miniexact_bounds(text))
        runs = max(3, RUNS // 2)
        race_cpu, _, mini_cpu, _, race_out, mini_out = paired(
            [*RACE, "cover", str(path), "--count"], [_miniexact(), "-m", "-e", "-D", str(mini)], runs)
        slack_cpu, _, mini2_cpu, _, slack_out, _ = paired(
            [*RACE, "cover", str(path), "--count", "--heuristic", "slack"],
            [_miniexact(), "-m", "-e", "-D", str(mini)], runs)
        counts = {int(race_out.strip()), int(slack_out.strip()), miniexact_count(mini_out)}
        if len(counts) != 1:
            raise SystemExit(f"seed {seed}: counts differ: race cover {race_out.strip()}, "
                             f"--heuristic slack {slack_out.strip()}, miniexact -m "
                             f"{miniexact_count(mini_out)}")
        mini_cpu = statistics.median([mini_cpu, mini2_cpu])
        print(f"  seed {seed} ({primary} primary with bounds, {secondary} secondary, {options} "
              f"options): {counts.pop()} solutions; miniexact -m {mini_cpu:.3f} s; race cover "
              f"{race_cpu:.3f} s (ratio {race_cpu / mini_cpu:.2f}), --heuristic slack "
              f"{slack_cpu:.3f} s (ratio {slack_cpu / mini_cpu:.2f})", flush=True)
        targets.at_most(f"seed {seed} with bounds: race cover --heuristic slack - miniexact -m, "
                        f"CPU s (whole process)", slack_cpu - mini_cpu, PLUS_SECONDS)


def random_problem(seed: int, primary: int, secondary: int, options: int) -> str:
    """A seeded problem in Knuth's dlx format: ``primary`` items with random bounds lo:hi
    (0 <= lo <= hi <= 3, hi >= 1), ``secondary`` ones, ``options`` options of 2-4 primary items
    and 0-2 secondary ones, a color (of 3) on about 60% of those."""
    rng = np.random.default_rng(seed)
    head = []
    for i in range(primary):
        hi = int(rng.integers(1, 4))
        lo = int(rng.integers(0, hi + 1))
        head.append(f"{lo}:{hi}|p{i}" if (lo, hi) != (1, 1) else f"p{i}")
    lines = []
    for _ in range(options):
        names = [f"p{i}" for i in sorted(rng.choice(primary, int(rng.integers(2, 5)), replace=False))]
        for j in rng.choice(secondary, int(rng.integers(0, 3)), replace=False):
            names.append(f"s{j}" + (f":c{rng.integers(3)}" if rng.random() < 0.6 else ""))
        lines.append(" ".join(names))
    return (" ".join(head) + " | " + " ".join(f"s{j}" for j in range(secondary)) + "\n"
            + "\n".join(lines) + "\n")


def miniexact_bounds(text: str) -> str:
    """Knuth's bounds ``lo:hi|NAME`` written as miniexact's ``NAME:lo;hi``."""
    head, rest = text.split("\n", 1)
    def convert(token: str) -> str:
        m = re.fullmatch(r"(?:(\d+):)?(\d+)\|(.*)", token)
        return f"{m.group(3)}:{m.group(1) or m.group(2)};{m.group(2)}" if m else token
    return " ".join(convert(t) for t in head.split()) + "\n" + rest


def first_build() -> float:
    """Seconds of one run-time build of the C kernel from scratch (into a fresh folder, as a
    checkout whose source was edited after the package's build)."""
    from solvers.native_library import NativeLibrary
    with tempfile.TemporaryDirectory() as tmp:
        fresh = NativeLibrary(cover_native.NATIVE.source, cover_native.NATIVE.declare)
        fresh.cache_dirs = lambda: [Path(tmp)]      # type: ignore[method-assign]
        fresh.built = lambda: Path(tmp) / "not-built.so"     # type: ignore[method-assign]
        t0 = time.perf_counter()
        assert fresh.library() is not None, fresh.why_not
        return time.perf_counter() - t0


def warm_bytecode() -> None:
    """Compile the project's modules to bytecode, as Python caches it after a first run (where
    PYTHONDONTWRITEBYTECODE is set, Python would compile them again in every process)."""
    import compileall
    for package in ("formats", "solvers", "generators", "experiments"):
        compileall.compile_dir(str(ROOT / package), quiet=1)


def main() -> None:
    _miniexact()
    if cover_native.library() is None:
        raise SystemExit(f"the C kernel cannot be built: {cover_native.NATIVE.why_not}")
    targets = Targets(__file__, "the miniexact command line (1.6.1, -c -e -D) on the same file, "
                      "CPU time (user + system) of whole processes run in turn in this run",
                      "miniexact on the same file")
    print(f"a run-time build of the C kernel (cc -O2, a checkout whose source was edited): "
          f"{first_build():.2f} s")
    warm_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        timed_problems(folder, targets)
        split_runs(folder, targets)
        random_extended(folder, targets)
    published(targets)
    targets.exit()


if __name__ == "__main__":
    main()
