"""The C exact cover kernel of `race cover` (solvers/cover_native.c): the published counts of
the source documents (Knuth's queens table, Scott's problem, the 6x10), the numba kernels' counts,
nodes, updates and solutions problem by problem, brute force on seeded random problems (plain,
colors, multiplicities), the split of one count over threads (-j), and the CLI around it."""

from __future__ import annotations

import itertools
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from formats import dlx_format, exact_cover
from formats.errors import RaceError
from formats.exact_cover import ExactCover
from generators import cover_problems, polyiamonds, polyominoes, polysticks
from generators.cover_examples import build
from solvers import cover_native
from solvers.cover_native import FIRST, MRV, SLACK, CoverKernel, StopFlag
from solvers.exact_cover import threads as cover_threads
from solvers.exact_cover.algorithm_m import MultiplicityProblem
from solvers.exact_cover.algorithm_x import dlx_search
from solvers.exact_cover.dancing_links import DancingLinks

ROOT = Path(__file__).resolve().parents[1]

needs_native = pytest.mark.skipif(cover_native.library() is None,
                                  reason=f"the C kernel could not be built: {cover_native.NATIVE.why_not}")
pytestmark = needs_native

#: Knuth, "Dancing Links", N queens in organ-pipe order: N -> (solutions, nodes, updates)
KNUTH_QUEENS = {1: (1, 2, 3), 2: (0, 3, 19), 3: (0, 4, 56), 4: (2, 13, 183), 5: (10, 46, 572),
                6: (4, 93, 1497), 7: (40, 334, 5066), 8: (92, 1049, 16680), 9: (352, 3440, 54818),
                10: (724, 11578, 198264), 11: (2680, 45393, 783140), 12: (14200, 211716, 3594752),
                13: (73712, 1046319, 17463157)}


def kernel(problem: ExactCover) -> CoverKernel:
    return CoverKernel.from_dlx(problem.to_dlx())


def numba_x(problem: ExactCover, heuristic: int = MRV, limit: int = 0, node_limit: int = 0,
            keep: int = 0):
    """(count, nodes, updates, complete, solutions) of the numba Algorithm X."""
    dl = DancingLinks.from_problem(problem)
    chosen = np.zeros((max(keep, 1), max(dl.primary, 1)), dtype=np.int64)
    depth = np.zeros(max(keep, 1), dtype=np.int64)
    count, nodes, updates, complete = dlx_search(dl.links, heuristic, limit, node_limit, keep,
                                                 chosen, depth)
    found = [dl.option_of[chosen[s, :depth[s]]].tolist() for s in range(min(count, keep))]
    return count, nodes, updates, complete, found


def c_x(problem: ExactCover, heuristic: int = MRV, limit: int = 0, node_limit: int = 0,
        keep: int = 0):
    out = kernel(problem).search(heuristic, limit, keep, node_limit)
    return out.count, out.nodes, out.updates, out.complete, out.solutions


# -- the published counts ----------------------------------------------------------------------

@pytest.mark.parametrize("n", sorted(KNUTH_QUEENS))
def test_knuths_queens_table(n):
    count, nodes, updates, complete, _ = c_x(cover_problems.queens(n))
    assert (count, nodes, updates) == KNUTH_QUEENS[n] and complete


@pytest.mark.parametrize("x, heuristic, expected", [
    ("23", MRV, (19, 10_421 + 1, 3_617_723)), ("24", MRV, (20, 12_900 + 1, 4_547_186)),
    ("23", FIRST, (19, 103_005 + 1, 17_818_752)), ("33", MRV, (26, 14_045 + 1, None))])
def test_scotts_subproblems_are_the_papers(x, heuristic, expected):
    """The paper's nodes (+1: we count the root) and updates (see test_cover_examples.py)."""
    count, nodes, updates, _, _ = c_x(polyominoes.scott(x=x), heuristic)
    assert (count, nodes) == expected[:2]
    assert expected[2] is None or updates == expected[2]


def test_six_by_ten_is_the_papers():
    """2339 solutions, 902,631 nodes (+ one per solution) and 309,134,131 updates."""
    count, nodes, updates, _, _ = c_x(polyominoes.pentomino_rectangle(6, 10, knuth=True))
    assert (count, nodes, updates) == (2339, 902_631 + 2339, 309_134_131)


# -- the numba kernels' counts, problem by problem --------------------------------------------

#: (name, problem, node budget of the comparison: 0 = the whole search with both choices of
#: item; -1: MRV only (the first item's tree is too large); else MRV only, stopped at that many
#: nodes (the tetrasticks take 283 million updates))
SMALL = [
    ("queens 6", lambda: cover_problems.queens(6), 0),
    ("toroidal-queens 7", lambda: cover_problems.toroidal_queens(7), 0),
    ("toroidal-queens 6", lambda: cover_problems.toroidal_queens(6), 0),
    ("rooks 5", lambda: cover_problems.rooks(5), 0),
    ("latin 4", lambda: cover_problems.latin_square(4), 0),
    ("plus-noise 5", lambda: cover_problems.plus_noise(5), 0),
    ("pentominoes 3x20 --knuth", lambda: polyominoes.pentomino_rectangle(3, 20, knuth=True), -1),
    ("scott --knuth --x 24", lambda: polyominoes.scott(knuth=True, x="24"), 0),
    ("sudoku empty4", lambda: cover_problems.sudoku_file(str(ROOT / "tests/data/empty4.sudoku")), 0),
    ("tetrasticks --omit H --knuth", lambda: polysticks.tetrastick_grid("H", knuth=True), 20_000),
    ("hexiamonds --knuth", lambda: polyiamonds.hexiamond_rhombus(knuth=True), 20_000),
]


@pytest.mark.parametrize("name, make, budget", SMALL, ids=[name for name, _, _ in SMALL])
def test_the_c_kernel_makes_the_numba_kernels_search(name, make, budget):
    """Solutions, nodes, updates and the first solutions (in order) agree, with both choices
    of item; and under a solution limit and a node budget, where the search stops too."""
    problem = make()
    for heuristic in (MRV, FIRST) if not budget else (MRV,):
        assert c_x(problem, heuristic, 0, max(budget, 0), keep=50) == \
            numba_x(problem, heuristic, 0, max(budget, 0), keep=50)
    nodes = budget if budget > 0 else numba_x(problem)[1]
    for limit, node_limit in ((1, 0), (3, 0), (0, max(nodes // 3, 1)), (2, 7)):
        assert c_x(problem, MRV, limit, node_limit, keep=3) == \
            numba_x(problem, MRV, limit, node_limit, keep=3), (limit, node_limit)


def test_a_kernel_searches_again_and_again_with_the_same_answer():
    """Every exit (all found, a limit, a budget, a stop) leaves the links as they came."""
    k = kernel(cover_problems.queens(8))
    for limit, node_limit in ((0, 0), (5, 0), (0, 100), (1, 1)):
        k.search(MRV, limit, 2, node_limit)
    stop = StopFlag()
    stop.set()
    stopped = k.search(stop=stop)
    assert not stopped.complete and stopped.nodes == 1
    assert (k.search().count, k.search().nodes, k.search().updates) == KNUTH_QUEENS[8]
    copy = k.clone()
    k.close()
    assert copy.search().count == 92


# -- seeded random problems against brute force ------------------------------------------------

def random_problem(rng: np.random.Generator, colors: bool, bounds: bool) -> ExactCover:
    """2-5 primary and 0-4 secondary items, 1-10 options naming 1-3 primary items and some
    secondary ones (with ``colors``, a color on about half of those); with ``bounds``, random
    bounds lo:hi with 0 <= lo <= hi <= 3, hi >= 1."""
    p, s = int(rng.integers(2, 6)), int(rng.integers(0, 5))
    lines = []
    for _ in range(int(rng.integers(1, 11))):
        names = [f"P{i}" for i in sorted(rng.choice(p, int(rng.integers(1, min(p, 3) + 1)),
                                                    replace=False))]
        for j in range(s):
            if rng.random() < 0.4:
                names.append(f"S{j}" + (f":{'rgb'[rng.integers(3)]}" if colors and rng.random() < 0.5
                                        else ""))
        lines.append(" ".join(names))
    head = []
    for i in range(p):
        hi = int(rng.integers(1, 4)) if bounds else 1
        lo = int(rng.integers(0, hi + 1)) if bounds else 1
        head.append(f"{lo}:{hi}|P{i}" if (lo, hi) != (1, 1) else f"P{i}")
    text = " ".join(head) + (" | " + " ".join(f"S{j}" for j in range(s)) if s else "") + "\n"
    return exact_cover.parse(text + "\n".join(lines) + "\n")


def brute_force(problem: ExactCover) -> set[tuple[int, ...]]:
    """Every set of options that covers each primary item within its bounds, and each secondary
    item at most once or only in one color."""
    lower, upper = problem.bounds()
    found = set()
    for size in range(len(problem) + 1):
        for chosen in itertools.combinations(range(len(problem)), size):
            hits = np.zeros(len(problem.items), dtype=int)
            colors: dict[int, set[int]] = {}
            for o in chosen:
                lo, hi = problem.starts[o], problem.starts[o + 1]
                for e in range(lo, hi):
                    item = int(problem.flat[e])
                    hits[item] += 1
                    colors.setdefault(item, set()).add(
                        int(problem.colors[e]) if problem.colors is not None else 0)
            if not ((lower <= hits[:problem.primary]) & (hits[:problem.primary] <= upper)).all():
                continue
            if all(hits[i] <= 1 or (0 not in colors[i] and len(colors[i]) == 1)
                   for i in range(problem.primary, len(problem.items))):
                found.add(chosen)
    return found


@pytest.mark.parametrize("colors, bounds", [(False, False), (True, False), (False, True),
                                            (True, True)], ids=["plain", "colors", "bounds", "both"])
def test_random_problems_against_brute_force_and_numba(colors, bounds):
    rng = np.random.default_rng([7, colors, bounds])
    counts = []
    for _ in range(150):
        problem = random_problem(rng, colors, bounds)
        expected = brute_force(problem)
        ours = kernel(problem).search(keep=10_000)
        assert ours.count == len(expected), exact_cover.format_dlx(problem)
        assert {tuple(sorted(s)) for s in ours.solutions} == expected
        if problem.extended:
            for heuristic in (MRV, SLACK):
                mine = kernel(problem).search(heuristic, keep=10_000)
                reference = MultiplicityProblem(problem).search(keep=10_000, slack=heuristic == SLACK)
                assert (mine.count, mine.nodes, mine.updates, mine.complete, mine.solutions) == \
                    (reference[0], reference[1], reference[2], reference[3], reference[4])
        else:
            assert c_x(problem, MRV, keep=10_000) == numba_x(problem, MRV, keep=10_000)
            assert c_x(problem, FIRST) == numba_x(problem, FIRST)
        counts.append(ours.count)
    assert sum(c > 0 for c in counts) > 30 and max(counts) > 1      # not all trivial


def test_the_slack_choice_finds_the_same_solutions_from_a_smaller_tree():
    """Knuth's theta (--heuristic slack) on seeded problems with bounds: the same count as the
    default choice, far fewer nodes; on a problem without bounds the same search as mrv."""
    sys.path.insert(0, str(ROOT / "tests" / "bench"))
    from bench_cover import random_problem as seeded
    problem = dlx_format.parse(seeded(18, 36, 12, 130))
    k = CoverKernel.from_dlx(problem)
    default, slack = k.search(MRV), k.search(SLACK)
    assert default.count == slack.count == 3826 and slack.nodes * 10 < default.nodes
    plain = kernel(cover_problems.queens(8))
    assert (plain.search(SLACK).nodes, plain.search(SLACK).updates) == KNUTH_QUEENS[8][1:]
    dlx = invoke(["example", "queens", "8"]).stdout
    assert invoke(["cover", "-", "--count", "--heuristic", "slack"], stdin=dlx).stdout == "92\n"


def test_knuths_colored_example_and_a_multiplicity_limit():
    problem = exact_cover.parse("A B 2:3|C | X Y\nA B X:0 Y:0\nA C X:1 Y:1\nC X:0\nB X:1\nC Y:1\n")
    reference = MultiplicityProblem(problem)
    k = kernel(problem)
    for limit, node_limit in ((0, 0), (1, 0), (0, 3)):
        ours = k.search(MRV, limit, 5, node_limit)
        assert (ours.count, ours.nodes, ours.updates, ours.complete, ours.solutions) == \
            reference.search(limit, node_limit, 5)
    assert sorted(k.search(keep=1).solutions[0]) == [1, 3, 4]


# -- the split over threads ----------------------------------------------------------------------

@pytest.mark.parametrize("name, make", [
    ("queens 9", lambda: cover_problems.queens(9)),
    ("scott --knuth --x 23", lambda: polyominoes.scott(knuth=True, x="23")),
    ("latin 4", lambda: cover_problems.latin_square(4)),
    ("toroidal-queens 6", lambda: cover_problems.toroidal_queens(6)),
    ("queens 1", lambda: cover_problems.queens(1)),
    ("colors and bounds", lambda: random_problem(np.random.default_rng(3), True, True)),
    ("colors and bounds, many", lambda: exact_cover.parse(
        "2:3|A 0:2|B C 1:2|D | x y\nA B x:r\nA C y:s\nA D x:r y:s\nB C\nB D x:t\nC D y:s\n"
        "A\nB\nD\nA B\nA D\nC x:r\n"))])
def test_a_split_count_adds_up_to_the_one_thread_count(name, make):
    """The splitter's counts plus every piece's are the whole search's: solutions, nodes and
    updates, at every depth and for any number of threads; with colors and multiplicities too."""
    problem = make()
    k = kernel(problem)
    whole = k.search()
    for heuristic in (MRV, FIRST) if not problem.extended else (MRV,):
        alone = k.search(heuristic)
        for depth in (1, 2, 3):
            top, pieces = k.split(depth, heuristic)
            parts = [k.search(heuristic, prefix=piece) for piece in pieces]
            assert (top.count + sum(p.count for p in parts), top.nodes + sum(p.nodes for p in parts),
                    top.updates + sum(p.updates for p in parts)) == \
                (alone.count, alone.nodes, alone.updates), (heuristic, depth)
    for jobs in (1, 2, 3):
        split = cover_threads.count_split(k, jobs)
        assert (split.count, split.nodes, split.updates) == (whole.count, whole.nodes, whole.updates)
    assert k.search().updates == whole.updates                     # the links came back intact


def test_a_split_count_stops_at_the_limit():
    k = kernel(cover_problems.queens(10))
    assert cover_threads.count_split(k, 2, limit=100).count == 100
    assert cover_threads.count_split(k, 2, limit=724).count == 724
    assert cover_threads.count_split(k, 2, limit=10_000).count == 724
    assert k.search().count == 724


def test_ctrl_c_stops_a_search_running_in_its_thread(monkeypatch):
    """The search runs in a thread; a KeyboardInterrupt in the waiting thread stops it at its
    next node (a ctypes call cannot be interrupted otherwise) and leaves the links intact."""
    k = kernel(cover_problems.queens(14))            # about a second of search
    real_join = threading.Thread.join
    calls = []

    def interrupted_join(self, timeout=None):
        if not calls:
            calls.append(self)
            time.sleep(0.05)
            raise KeyboardInterrupt
        return real_join(self, timeout)
    monkeypatch.setattr(threading.Thread, "join", interrupted_join)
    t0 = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        cover_threads.search(k)
    assert time.perf_counter() - t0 < 5
    monkeypatch.undo()
    assert k.search(limit=92).count == 92 and kernel(cover_problems.queens(8)).search().count == 92


# -- the command line ------------------------------------------------------------------------------

def invoke(args, stdin=None):
    return CliRunner().invoke(main, args, input=stdin)


def test_race_cover_imports_neither_numba_nor_numpy(tmp_path):
    path = tmp_path / "q8.dlx"
    path.write_text(invoke(["example", "queens", "8"]).stdout)
    # the modules as the process ends (race cover ends at once, after the exit handlers)
    code = ("import atexit, sys; from experiments.cli.main import main; sys.argv = ['race', 'cover', "
            f"{str(path)!r}, '--count', '--stats']\n"
            "atexit.register(lambda: print(sorted(m for m in ('numba', 'numpy') if m in sys.modules),"
            " file=sys.stderr))\nmain()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout == "92\n" and done.returncode == 0
    assert "92 solutions, 1049 nodes, 16680 updates" in done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("args, expected", [
    (["queens", "8"], "92"), (["pentominoes", "3x20"], "8"), (["toroidal-queens", "7"], "28"),
    (["scott", "--knuth", "--x", "24"], "20")])
def test_race_example_count_counts_as_race_cover_does(args, expected):
    direct = invoke(["example", *args, "--count", "--stats"])
    piped = invoke(["cover", "-", "--count", "--stats"], stdin=invoke(["example", *args]).stdout)
    assert direct.exit_code == piped.exit_code == 0
    assert direct.stdout == piped.stdout == expected + "\n"
    stats = lambda result: result.stderr.split(" (build")[0]
    assert stats(direct) == stats(piped) and "nodes" in stats(direct)


def test_race_example_count_options_need_count():
    result = invoke(["example", "queens", "8", "--stats"])
    assert result.exit_code == 2 and "--stats goes with --count" in result.output
    printed = invoke(["example", "queens", "8"])
    assert printed.exit_code == 0 and printed.stdout.startswith("| race example queens 8")


def test_count_with_a_limit_prints_the_bare_number_and_says_so_on_stderr():
    dlx = invoke(["example", "queens", "8"]).stdout
    result = invoke(["cover", "-", "--count", "--limit", "5"], stdin=dlx)
    assert result.exit_code == 0 and result.stdout == "5\n"
    assert "(limit reached" in result.stderr
    unreached = invoke(["cover", "-", "--count", "--limit", "500"], stdin=dlx)
    assert unreached.stdout == "92\n" and "limit reached" not in unreached.stderr
    assert "(limit reached)" in invoke(["cover", "--help"]).stdout.replace("\n", " ").replace("  ", " ")


def test_j2_gives_the_one_thread_stats():
    dlx = invoke(["example", "scott", "--knuth", "--x", "23"]).stdout
    one = invoke(["cover", "-", "--count", "--stats"], stdin=dlx)
    two = invoke(["cover", "-", "--count", "--stats", "-j", "2"], stdin=dlx)
    assert one.stdout == two.stdout == "19\n"
    assert one.stderr.split(" (build")[0] == two.stderr.split(" (build")[0] == \
        "19 solutions, 10422 nodes, 3617723 updates"
    refused = invoke(["cover", "-", "-j", "2"], stdin=dlx)
    assert refused.exit_code == 2 and "use it with --count" in refused.output


def test_without_the_compiled_kernel_race_cover_uses_numba(monkeypatch):
    monkeypatch.setattr(cover_native, "library", lambda: None)
    dlx = invoke(["example", "queens", "8"]).stdout
    result = invoke(["cover", "-", "--count", "--stats", "-j", "2"], stdin=dlx)
    assert result.stdout == "92\n" and "92 solutions, 1049 nodes, 16680 updates" in result.stderr
    assert "the numba kernel counts on one thread" in result.stderr
    colored = invoke(["cover", "-"], stdin="A B 2:3|C | X Y\nA B X:0 Y:0\nA C X:1 Y:1\nC X:0\n"
                                            "B X:1\nC Y:1\n")
    assert colored.stdout.splitlines() == ["A C X:1 Y:1", "B X:1", "C Y:1"]


# -- the dlx format: a second ':' in a color ---------------------------------------------------

@pytest.mark.parametrize("line, column", [("A x::b", 3), ("A  x:a:b", 4), ("\tA x::", 4)])
def test_a_color_with_a_second_colon_is_malformed(line, column):
    with pytest.raises(RaceError) as err:
        dlx_format.parse(f"A | x\n{line}\n", "c.dlx")
    assert (err.value.line, err.value.column) == (2, column)
    assert "a second ':'" in str(err.value) and str(err.value).startswith("c.dlx, line 2, column")
    result = invoke(["cover", "-"], stdin=f"A | x\n{line}\n")
    assert result.exit_code == 2 and "line 2, column" in result.output
    assert "Traceback" not in result.output


def test_the_lean_parser_reads_what_the_numpy_one_did():
    """dlx_format.parse (no numpy) and ExactCover agree on the examples, colors and bounds."""
    for text in (exact_cover.format_dlx(build("pentominoes", "3x20")),
                 "A B 2:3|C | X Y\nA B X:0 Y:0\nA C X:1 Y:1\nC X:0\nB X:1\nC Y:1\n",
                 "A\tB | x y\nA x\n| a comment\n\nB y:r x:s\n  A B\n"):
        lean = dlx_format.parse(text)
        problem = exact_cover.parse(text)
        again = lean if not problem.extended else dlx_format.parse(exact_cover.format_dlx(problem))
        assert lean.items == problem.items and lean.primary == problem.primary
        assert list(lean.starts) == problem.starts.tolist() and list(lean.flat) == problem.flat.tolist()
        assert [lean.entry_names(o) for o in range(len(lean))] == \
            [problem.entry_names(o) for o in range(len(problem))] == \
            [again.entry_names(o) for o in range(len(again))]


def test_a_problem_too_large_for_the_kernel_is_a_one_line_error(monkeypatch):
    monkeypatch.setattr(cover_native, "MAX_NODES", 100)
    result = invoke(["cover", "-", "--count"], stdin=invoke(["example", "queens", "8"]).stdout)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.startswith("race: error: more nodes than") and "64 options" in result.output
