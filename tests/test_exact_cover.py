"""Exact cover problems, Knuth's dlx format, and the `race cover` / `race example` commands."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from formats import exact_cover
from formats.errors import RaceError
from formats.exact_cover import ExactCover
from generators.cover_problems import latin_square, queens

TOY = """\
| the toy problem of the paper's Equation (3)
A B C D E F G
C E F
A D G
B C F
A D
B G
D E G
"""


def test_parse_toy_problem():
    p = exact_cover.parse(TOY)
    assert p.items == list("ABCDEFG") and p.primary == 7 and p.secondary == 0
    assert len(p) == 6
    assert p.options[1] == [0, 3, 6]
    assert p.option_names(5) == ["D", "E", "G"]
    assert p.to_dense().tolist()[0] == [0, 0, 1, 0, 1, 1, 0]


def test_parse_secondary_items_and_comments():
    p = exact_cover.parse("| comment\n\n  | indented comment\nA B | x y\nA x\nB y\nA B x y\n")
    assert p.primary == 2 and p.items[2:] == ["x", "y"]
    assert p.options == [[0, 2], [1, 3], [0, 1, 2, 3]]


@pytest.mark.parametrize("problem", [queens(5), latin_square(3), exact_cover.parse(TOY)])
def test_format_round_trip(problem):
    again = exact_cover.parse(exact_cover.format_dlx(problem, comment="a\nb"))
    assert again.items == problem.items and again.primary == problem.primary
    assert again.options == problem.options


def test_dense_round_trip():
    m = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1]])
    p = ExactCover.from_dense(m, ["a", "b", "c"], primary=2)
    assert p.options == [[0, 2], [1], [0, 1, 2]] and p.secondary == 1
    assert np.array_equal(p.to_dense(), m)


@pytest.mark.parametrize("text, line, message", [
    ("A B\nA C\n", 2, "unknown item 'C'"),
    ("A B A\nA\n", 1, "duplicate item name 'A'"),
    ("A B\nA A\n", 2, "occurs twice"),
    ("A | x\nx\n", 2, "empty option"),
    ("A | x | y\nA\n", 1, "more than one '|'"),
    ("A B:c\nA\n", 1, "illegal item name"),
])
def test_malformed_dlx_names_line(text, line, message):
    with pytest.raises(RaceError) as err:
        exact_cover.parse(text, "bad.dlx")
    assert err.value.line == line and err.value.source == "bad.dlx"
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("text, message", [("| only a comment\n", "no item line"),
                                           ("", "no item line")])
def test_malformed_dlx_without_items(text, message):
    with pytest.raises(RaceError, match=message):
        exact_cover.parse(text)


def test_programmatic_errors():
    with pytest.raises(RaceError, match="empty"):
        ExactCover.from_options(["a", "b"], None, [[0], []])
    with pytest.raises(RaceError, match="twice"):
        ExactCover.from_options(["a", "b"], None, [[0, 1, 0]])
    with pytest.raises(RaceError, match="outside"):
        ExactCover.from_options(["a"], None, [[3]])
    with pytest.raises(RaceError, match="duplicate"):
        ExactCover.from_options(["a", "a"], None, [[0]])
    with pytest.raises(RaceError, match="empty"):
        ExactCover.from_dense(np.array([[1, 0], [0, 0]]))
    with pytest.raises(RaceError, match="only 0 and 1"):
        ExactCover.from_dense(np.array([[2]]))


# -- CLI -----------------------------------------------------------------------------

def invoke(args, stdin=None):
    return CliRunner().invoke(main, args, input=stdin)


def test_queens_8_pipeline_prints_knuths_numbers():
    dlx = invoke(["example", "queens", "8"])
    assert dlx.exit_code == 0
    result = invoke(["cover", "-", "--count", "--stats"], stdin=dlx.output)
    assert result.exit_code == 0
    assert "92" in result.output.splitlines()
    assert "92 solutions, 1049 nodes, 16680 updates" in result.output


def test_cover_prints_solutions_separated_by_blank_lines():
    result = invoke(["cover", "-"], stdin=invoke(["example", "queens", "4"]).output)
    assert result.exit_code == 0
    blocks = result.output.strip().split("\n\n")
    assert len(blocks) == 2
    assert all(len(b.splitlines()) == 4 for b in blocks)
    assert "R2 F0 A2 B1" in blocks[0].splitlines()


def test_cover_limit_and_heuristic():
    latin = invoke(["example", "latin", "4"]).output
    assert invoke(["cover", "-", "--count"], stdin=latin).output.strip() == "576"
    limited = invoke(["cover", "-", "--count", "--limit", "10"], stdin=latin)
    assert limited.stdout.strip() == "10" and "(limit reached" in limited.stderr
    first = invoke(["cover", "-", "--count", "--heuristic", "first"], stdin=latin)
    assert first.output.strip() == "576"
    shown = invoke(["cover", "-", "--limit", "3"], stdin=latin)
    assert len(shown.output.strip().split("\n\n")) == 3


def test_cover_toy_solution(tmp_path):
    path = tmp_path / "toy.dlx"
    path.write_text(TOY)
    result = invoke(["cover", str(path)])
    assert result.exit_code == 0
    assert sorted(result.output.strip().splitlines()) == ["A D", "B G", "C E F"]


@pytest.mark.parametrize("text", ["A B\nA C\n", "A A\nA\n", "A | x\nx\n", "A B\nA A\n"])
def test_cover_malformed_file_exits_2_with_one_line(tmp_path, text):
    path = tmp_path / "bad.dlx"
    path.write_text(text)
    result = invoke(["cover", str(path)])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "bad.dlx, line" in result.output


def test_cover_missing_file_exits_2():
    result = invoke(["cover", "no/such.dlx"])
    assert result.exit_code == 2 and "no such file" in result.output


def test_example_latin_is_parseable():
    p = exact_cover.parse(invoke(["example", "latin", "3"]).output)
    assert len(p) == 27 and len(p.items) == 27 and p.primary == 27


def test_cover_show_prints_the_matrix():
    result = CliRunner().invoke(main, ["cover", "-", "--show"], input="A B C\nA B\nC\nA\nB C\n")
    assert result.exit_code == 0
    assert "items: A(2) B(2) C(2)" in result.output and "option 4: B C" in result.output


def test_race_solve_and_count_with_dlx_on_grids(tmp_path):
    from formats.grid_text import format_native, parse
    from solvers import rules
    from tests.test_dlx import blank, pattern_grid
    rng = np.random.default_rng(11)
    puzzle = blank(pattern_grid(5, rng), 0.5, rng)
    path = tmp_path / "p25.sudoku"
    path.write_text(format_native(puzzle))
    result = invoke(["solve", "--solver", "dlx", str(path)])
    assert result.exit_code == 0
    solved = parse(result.output).grids[0]
    assert solved.n == 5 and rules.is_solution_of(puzzle, solved)
    counted = invoke(["count", "--solver", "dlx:heuristic=first", "tests/data/empty4.sudoku"])
    assert counted.exit_code == 0 and counted.output.strip() == "288"


def test_from_dense_names_columns_and_rejects_bad_matrices():
    problem = ExactCover.from_dense(np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1]]), primary=2)
    assert problem.items == ["1", "2", "3"] and problem.primary == 2
    assert problem.options == [[0, 2], [1], [0, 1, 2]]
    assert problem.to_dense().tolist() == [[1, 0, 1], [0, 1, 0], [1, 1, 1]]
    for matrix, names, message in [
            (np.zeros(3), None, "a 0-1 matrix must be 2-dimensional, got shape (3,)"),
            (np.array([[2, 0]]), None, "a 0-1 matrix may hold only 0 and 1"),
            (np.eye(2), ["a"], "1 names for 2 columns"),
            (np.eye(2), ["a", "a"], "matrix: duplicate item name 'a'"),
            (np.array([[1, 0], [0, 0], [0, 1]]), None,
             "matrix: option 2 is empty (an option must cover at least one item)")]:
        with pytest.raises(RaceError) as info:
            ExactCover.from_dense(matrix, names)
        assert str(info.value) == message
