"""Knuth's extensions in `race cover`: colors (dlx2) and multiplicities (dlx3), against miniexact."""

from __future__ import annotations

import miniexact  # in the test extra: an independent C implementation of Algorithms C and M
import numpy as np
import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from formats import exact_cover
from formats.errors import RaceError
from formats.exact_cover import ExactCover
from generators.cover_problems import queens
from solvers.exact_cover.algorithm_m import MultiplicityProblem
from solvers.exact_cover.algorithm_x import MRV, dlx_search
from solvers.exact_cover.dancing_links import DancingLinks

#: Knuth's test case at the head of dlx3.w: its unique solution is options 1, 3, 4 (0-based)
KNUTH_DLX3 = """| A simple example of color controls
A B 2:3|C | X Y
A B X:0 Y:0
A C X:1 Y:1
C X:0
B X:1
C Y:1
"""


def test_parse_bounds_and_colors():
    p = exact_cover.parse(KNUTH_DLX3)
    assert p.extended and p.primary == 3 and p.items == ["A", "B", "C", "X", "Y"]
    assert p.bounds()[0].tolist() == [1, 1, 2] and p.bounds()[1].tolist() == [1, 1, 3]
    assert p.entry_names(1) == ["A", "C", "X:1", "Y:1"] and p.color_names == ["0", "1"]
    again = exact_cover.parse(exact_cover.format_dlx(p))
    assert again.options == p.options and again.entry_names(4) == ["C", "Y:1"]
    assert exact_cover.parse("3|A B\nA\n").bounds()[0].tolist() == [3, 1]
    assert not exact_cover.parse("A B | x\nA x\nB\n").extended


@pytest.mark.parametrize("text, message", [
    ("A | x\nA:red\n", "only a secondary item takes a color"),
    ("A | x\nA x:\n", "'x:': an empty color"),
    ("A | 2|x\nA\n", "before primary items only"),
    ("3:2|A\nA\n", "need 0 <= lo <= hi"),
    ("0|A\nA\n", "need 0 <= lo <= hi"),
    ("a:b|A\nA\n", "bad item"),
])
def test_malformed_extensions(text, message):
    with pytest.raises(RaceError, match=message) as err:
        exact_cover.parse(text, "ext.dlx")
    assert err.value.source == "ext.dlx" and "\n" not in str(err.value)


def test_knuths_example_has_his_unique_solution():
    solutions, nodes, updates, complete, found = MultiplicityProblem(exact_cover.parse(KNUTH_DLX3)).search(keep=5)
    assert (solutions, complete) == (1, True) and sorted(found[0]) == [1, 3, 4]


def test_plain_problems_agree_with_dlx():
    """Without colors or bounds the search tree is DLX's: same solutions and nodes."""
    for n in range(4, 9):
        problem = queens(n)
        ours = MultiplicityProblem(problem).search()
        dl = DancingLinks.from_problem(problem)
        count, nodes, _, _ = dlx_search(dl.links, MRV, 0, 0, 0, np.zeros((1, 2 * n), dtype=np.int64),
                                        np.zeros(1, dtype=np.int64))
        assert ours[:2] == (count, nodes)


def test_search_restores_the_links_on_every_exit():
    prepared = MultiplicityProblem(exact_cover.parse(KNUTH_DLX3))
    before = prepared.dl.links.copy()
    for limit, node_limit in [(0, 0), (1, 0), (0, 3)]:
        prepared.search(limit, node_limit)
        assert np.array_equal(prepared.dl.links, before)
    assert prepared.search(0, 2)[3] is False


# -- 200 seeded random problems each, against miniexact --------------------------------------

COLORS = ["red", "blue", "green"]


def random_problem(rng: np.random.Generator, bounds: bool) -> ExactCover:
    """A small random problem: 2-5 primary and 1-4 secondary items, 3-14 options, each
    naming 1-3 primary items and some secondary ones, a color on about half of those;
    with ``bounds`` each primary item gets random bounds lo:hi with 0 <= lo <= hi <= 3, hi >= 1."""
    p, s = int(rng.integers(2, 6)), int(rng.integers(1, 5))
    lines = []
    for _ in range(int(rng.integers(3, 15))):
        names = [f"P{i}" for i in sorted(rng.choice(p, int(rng.integers(1, min(p, 3) + 1)), replace=False))]
        for j in range(s):
            if rng.random() < 0.4:
                names.append(f"S{j}" + (f":{COLORS[rng.integers(3)]}" if rng.random() < 0.5 else ""))
        lines.append(" ".join(names))
    head = []
    for i in range(p):
        if bounds:
            hi = int(rng.integers(1, 4))
            lo = int(rng.integers(0, hi + 1))
            head.append(f"{lo}:{hi}|P{i}")
        else:
            head.append(f"P{i}")
    text = " ".join(head) + " | " + " ".join(f"S{j}" for j in range(s)) + "\n" + "\n".join(lines) + "\n"
    return exact_cover.parse(text)


def miniexact_count(problem: ExactCover) -> int:
    """All solutions by miniexact's Algorithm M (C for colors alone), as sets of option indices."""
    solver = miniexact.miniexacts_m() if problem.lower is not None else miniexact.miniexacts_c()
    lower, upper = problem.bounds()
    ids = [solver.primary(name, int(lo), int(hi)) if problem.lower is not None else solver.primary(name)
           for name, lo, hi in zip(problem.items, lower, upper)]
    ids += [solver.secondary(name) for name in problem.items[problem.primary:]]
    colors = [solver.color(name) for name in problem.color_names]
    for o in range(len(problem)):
        entries = problem.flat[problem.starts[o]:problem.starts[o + 1]]
        cols = problem.colors[problem.starts[o]:problem.starts[o + 1]] if problem.colors is not None \
            else np.zeros(len(entries), dtype=int)
        for item, color in zip(entries, cols):
            if color:
                solver.add(ids[item], colors[color - 1])
            else:
                solver.add(ids[item])
        solver.add(0)
    seen = set()
    while solver.solve() == 10:
        seen.add(tuple(sorted(solver.selected_options())))
    return len(seen)


@pytest.mark.parametrize("bounds", [False, True], ids=["colors", "multiplicities"])
def test_random_problems_agree_with_miniexact(bounds):
    rng = np.random.default_rng(2024 if bounds else 1999)
    counts = []
    for _ in range(200):
        problem = random_problem(rng, bounds)
        ours = MultiplicityProblem(problem).search(keep=1000)
        assert ours[0] == miniexact_count(problem), exact_cover.format_dlx(problem)
        for options in ours[4]:                 # every solution obeys the rules
            assert_valid(problem, options)
        counts.append(ours[0])
    assert sum(c > 0 for c in counts) > 50 and max(counts) > 1     # the sample is not all trivial


def assert_valid(problem: ExactCover, options: list[int]) -> None:
    lower, upper = problem.bounds()
    hits = np.bincount(np.concatenate([np.zeros(0, dtype=int)] + [problem.option(o) for o in options]),
                       minlength=len(problem.items))
    assert (lower <= hits[:problem.primary]).all() and (hits[:problem.primary] <= upper).all()
    for item in range(problem.primary, len(problem.items)):
        seen = [problem.colors[problem.starts[o] + problem.option(o).index(item)]
                if problem.colors is not None else 0 for o in options if item in problem.option(o)]
        assert len(seen) <= 1 or (0 not in seen and len(set(seen)) == 1)


def test_race_cover_prints_colored_solutions_and_stats():
    result = CliRunner().invoke(main, ["cover", "-", "--stats"], input=KNUTH_DLX3)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["A C X:1 Y:1", "B X:1", "C Y:1"]
    assert "1 solutions" in result.stderr and "nodes" in result.stderr
    count = CliRunner().invoke(main, ["cover", "-", "--count"], input="2|A B\nA\nA B\nA\nB\n")
    # A twice, B once, from A / A B / A / B: {A B, A} twice over and {A, A, B}
    assert count.exit_code == 0 and count.stdout.strip() == "3"
