"""`race cover --trace`: the dance step by step, with the kernel's own counts."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from formats import exact_cover
from generators.cover_problems import latin_square, queens
from solvers.exact_cover.algorithm_x import FIRST, MRV, dlx_search
from solvers.exact_cover.dance_trace import totals, trace
from solvers.exact_cover.dancing_links import DancingLinks

TOY = "A B C D E F G\nC E F\nA D G\nB C F\nA D\nB G\nD E G\n"


def kernel_counts(problem, heuristic):
    dl = DancingLinks.from_problem(problem)
    count, nodes, updates, _ = dlx_search(dl.links, heuristic, 0, 0, 0,
                                          np.zeros((1, max(dl.primary, 1)), dtype=np.int64),
                                          np.zeros(1, dtype=np.int64))
    return count, nodes, updates


@pytest.mark.parametrize("problem", [queens(5), queens(6), latin_square(3), exact_cover.parse(TOY)],
                         ids=["queens5", "queens6", "latin3", "toy"])
@pytest.mark.parametrize("heuristic", [MRV, FIRST])
def test_a_full_trace_counts_what_the_kernel_counts(problem, heuristic):
    dl = DancingLinks.from_problem(problem)
    before = dl.links.copy()
    steps = list(trace(dl, heuristic))
    assert totals(steps) == kernel_counts(problem, heuristic)
    assert np.array_equal(dl.links, before)                 # every cover was undone
    covers = sum(s.action == "cover" for s in steps)
    assert covers == sum(s.action == "uncover" for s in steps)


def test_toy_trace_is_knuths_walkthrough():
    """The paper's equation (3) with the S heuristic: column A is chosen first (size 2),
    row A D G fails, row A D leads to the unique solution A D / B G / C E F. The steps
    are the hand trace of tests/test_dlx.py (cover A 4, D 3, G 2, ...: 30 updates)."""
    steps = list(trace(DancingLinks.from_problem(exact_cover.parse(TOY)), MRV))
    assert steps[0].action == "choose" and steps[0].item == "A" and steps[0].size == 2
    covers = [(s.item, s.updates) for s in steps if s.action == "cover"]
    assert covers[:3] == [("A", 4), ("D", 3), ("G", 2)] and sum(u for _, u in covers) == 30
    tried = [s.option for s in steps if s.action == "try" and s.level == 0]
    assert tried == [1, 3]                              # A D G, then A D
    (solution,) = [s for s in steps if s.action == "solution"]
    assert sorted(solution.options) == [0, 3, 4]


def test_race_cover_trace_prints_capped_steps():
    dlx = CliRunner().invoke(main, ["example", "queens", "6"]).output
    result = CliRunner().invoke(main, ["cover", "-", "--count", "--trace", "--trace-limit", "25"], input=dlx)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 25 + 2 and lines[-1] == "4" and "--trace-limit" in lines[-2]
    assert lines[0].startswith("L0") and "choose" in lines[0] and "(size " in lines[0]
    tries = [ln for ln in lines if " try option " in ln]
    assert tries and all(ln.split(": ")[1].split()[0].startswith(("R", "F")) for ln in tries)


def test_trace_refuses_colors():
    result = CliRunner().invoke(main, ["cover", "-", "--trace"], input="A | x\nA x:red\n")
    assert result.exit_code == 2 and "--trace" in result.output


def test_the_trace_stops_where_the_search_stops_under_limit():
    """`--limit 1 --trace` traced all 92 solutions of 8 queens while the search stopped at
    the first: the trace now ends at the limit-th solution, as the search does."""
    dlx = CliRunner().invoke(main, ["example", "queens", "8"]).output
    result = CliRunner().invoke(main, ["cover", "-", "--limit", "2", "--count", "--trace",
                                       "--trace-limit", "100000"], input=dlx)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert sum(" solution" in ln for ln in lines[:-2]) == 2
    assert lines[-2] == "... the search stops at solution 2 (--limit)" and lines[-1] == "2"


def test_cover_without_a_solution_exits_1_as_solve_does():
    """`race cover` said "no solution" with exit 0 (race solve: 1); --count prints 0, exit 0."""
    result = CliRunner().invoke(main, ["cover", "-"], input="A B\nA\nA\n")
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", "no solution\n")
    counted = CliRunner().invoke(main, ["cover", "-", "--count"], input="A B\nA\nA\n")
    assert (counted.exit_code, counted.stdout) == (0, "0\n")
