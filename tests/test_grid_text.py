from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments.cli.main import main
from formats import grid_text
from formats.errors import RaceError
from formats.grid import Grid
from tests.conftest import full_grid, puzzle_from


def random_puzzle(n, seed, blanks=0.5):
    rng = np.random.default_rng(seed)
    return puzzle_from(full_grid(n, rng), blanks, rng)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 5), seed=st.integers(0, 2**32 - 1),
       blanks=st.floats(0, 1))
def test_round_trip_both_formats(n, seed, blanks):
    g = random_puzzle(n, seed, blanks)
    native = grid_text.parse(grid_text.format_native(g, {"kind": "test", "n": n}))
    assert native.format == grid_text.NATIVE and native.grids == [g]
    assert native.metadata == {"kind": "test", "n": str(n)}
    if n > 1:   # a 1x1 grid is the same text in both formats; it reads as native
        one = grid_text.parse(grid_text.format_one_line(g) + "\n")
        assert one.format == grid_text.ONE_LINE and one.grids == [g]


def test_native_accepts_zero_dot_comments_and_blank_lines():
    text = "# a comment\n\n1 0 . 4\n# mid\n. . . .\n\n. . . .\n. . . 3\n"
    (g,) = grid_text.parse(text).grids
    assert g.n == 2 and g.cells[0].tolist() == [1, 0, 0, 4] and g.cells[3, 3] == 3


def test_one_line_many_puzzles_and_letters():
    g = random_puzzle(4, 1, 0.3)
    line = grid_text.format_one_line(g)
    assert any(c in line for c in "ABCDEFG")
    pf = grid_text.parse(line + "\n" + line.lower() + "\n")
    assert pf.format == grid_text.ONE_LINE and pf.grids == [g, g]


def test_native_width_for_two_digit_values():
    g = random_puzzle(4, 2, 0.0)
    assert grid_text.parse(str(g)).grids == [g]
    assert "16" in str(g)


def test_one_line_refuses_n6():
    with pytest.raises(RaceError, match="n <= 5"):
        grid_text.format_one_line(Grid.empty(6))


MALFORMED = {
    "ragged row": (". . . .\n. . .\n. . . .\n. . . .\n", "line 2", "expected 4"),
    "non-square rows": (". . .\n. . .\n. . .\n", "line 3", "n² rows"),
    "value out of range": ("1 2 3 4\n. . . .\n. . . .\n. . . 5\n", "line 4", "out of range"),
    "bad token": ("1 2 3 4\n. x . .\n. . . .\n. . . .\n", "line 2, column 3", "bad cell"),
    "negative": ("1 2 3 4\n. -1 . .\n. . . .\n. . . .\n", "line 2", "bad cell"),
    "one-line bad length": ("1" * 80 + "\n", "line 1", "expected n⁴"),
    "one-line bad character": ("." * 40 + "?" + "." * 40 + "\n", "line 1, column 41", "bad character"),
    "one-line value too big": ("1234G" + "." * 11 + "\n", "column 5", "out of range"),
    "only comments": ("# nothing here\n\n", "", "no grid"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_input_exit_2_one_line(case, tmp_path):
    text, where, what = MALFORMED[case]
    path = tmp_path / "bad.sudoku"
    path.write_text(text)
    for command in (["solve", str(path)], ["count", str(path)], ["check", str(path)]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 2, (case, command, result.output)
        err = result.stderr.strip()
        assert "\n" not in err and str(path) in err and where in err and what in err, err
        assert "Traceback" not in result.output


def test_ten_in_a_9x9_grid(tmp_path):
    rows = [". " * 8 + "."] * 9
    rows[4] = ". . . 10 . . . . ."
    path = tmp_path / "ten.sudoku"
    path.write_text("\n".join(rows) + "\n")
    result = CliRunner().invoke(main, ["solve", str(path)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"race: error: {path}, line 5, column 7: value 10 out of range, "
                                     "expected 1..9 for a 9x9 grid (n=3)")


def test_missing_file_and_directory(tmp_path):
    for target, what in ((tmp_path / "nope.sudoku", "no such file"), (tmp_path, "directory")):
        result = CliRunner().invoke(main, ["solve", str(target)])
        assert result.exit_code == 2 and what in result.stderr and "\n" not in result.stderr.strip()


def test_binary_file(tmp_path):
    path = tmp_path / "bin.sudoku"
    path.write_bytes(b"\xff\xfe\x00\x01")
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 2 and "not a text file" in result.stderr


HARD9 = Path(__file__).parent / "data" / "hard9.txt"


def test_parse_one_line_many_reads_what_parse_reads():
    text = HARD9.read_text()
    n, puzzles = grid_text.parse_one_line_many(text)
    assert n == 3 and puzzles.shape == (4, 9, 9)
    expected = [g.cells for g in grid_text.parse(text).grids]
    assert all(np.array_equal(a, b) for a, b in zip(puzzles, expected))
    blanks = "# c\n\n  " + "4" + "." * 15 + " \r\n" + "1230" + "0" * 12 + "\n"
    n, puzzles = grid_text.parse_one_line_many(blanks)
    assert n == 2 and puzzles[:, 0, :].tolist() == [[4, 0, 0, 0], [1, 2, 3, 0]]
    lower = "a" + "." * 254 + "G\n"
    n, puzzles = grid_text.parse_one_line_many(lower)
    assert n == 4 and (puzzles[0, 0, 0], puzzles[0, 15, 15]) == (10, 16)
    assert np.array_equal(puzzles[0], grid_text.parse(lower).grids[0].cells)


@pytest.mark.parametrize("text", [
    "1 2 3 4\n3 4 1 2\n2 1 4 3\n4 3 2 1\n",           # native
    "1" + "." * 15 + "\n" + "1" + "." * 80 + "\n",           # one-line, two sizes
])
def test_parse_one_line_many_leaves_other_files_to_parse(text):
    assert grid_text.parse_one_line_many(text) is None
    grid_text.parse(text)                                  # which reads them


@pytest.mark.parametrize("text", [
    "1234" + "." * 12 + "\n12x4" + "." * 12 + "\n",
    "1234" + "." * 12 + "\n\n123\n",
    "12345\n",
    "# nothing\n\n",
    "1235" + "." * 12 + "\n",
    "1234" + "." * 12 + "\n12\u00e94" + "." * 12 + "\n",
    "1234" + "." * 11 + "\x0c\n",
])
def test_parse_one_line_many_raises_what_parse_raises(text):
    with pytest.raises(RaceError) as many:
        grid_text.parse_one_line_many(text)
    with pytest.raises(RaceError) as one:
        grid_text.parse(text)
    assert str(many.value) == str(one.value)


def test_a_size_line_the_grid_contradicts_is_an_error_naming_it():
    from formats.errors import RaceError
    text = "# kind=holes\n# n=3\n1 . . .\n. . . .\n. . . .\n. . . .\n"
    with pytest.raises(RaceError, match=r"line 2: '# n=3', but the grid below is 4x4 \(n=2\)"):
        grid_text.parse(text, "p.sudoku")
    assert grid_text.parse(text.replace("n=3", "n=2")).grids[0].n == 2


def test_lines_ending_in_cr_alone_are_named_not_read_as_one_long_row():
    from formats.errors import RaceError
    with pytest.raises(RaceError, match=r"line 1, column 8: a carriage return inside a line"):
        grid_text.parse("1 . . .\r. . . .\r. . . .\r. . . .\r", "mac.sudoku")
    assert grid_text.parse("1 . . .\r\n. . . .\r\n. . . .\r\n. . . .\r\n").grids[0].n == 2


def test_two_native_puzzles_in_one_file_are_named_as_such():
    from formats.errors import RaceError
    one = ". . . .\n" * 4
    with pytest.raises(RaceError, match=r"8 grid rows of 4 cells: 2 puzzles of 4x4\?"):
        grid_text.parse("# index=0\n" + one + "# index=1\n" + one, "two.sudoku")


_WRITTEN_PARTS = ["# kind=imported\n", "#\n", "\n", " \n", "# a b c d e f g h i\n",
                  ". 2 . 4\n", "1 . 3 .\n", ". . . . . . . 1 .\n", "4 . . . . . . . .\n",
                  "1 2\t3 4\n", ". . . . . . . .\n", "\u00a0 . . .\n", ". . .\r\n", "#"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_WRITTEN_PARTS), max_size=14), st.sampled_from(["", "\n", " "]))
def test_the_written_form_is_read_as_the_expressions_read_it(parts, tail):
    """The quick reading of files as the generators write them gives what the expressions
    give, on texts near that form (headers, rows of both sizes, tabs, odd spaces, CR)."""
    text = "".join(parts) + tail
    assert grid_text.single_character_cells(text) == grid_text._expression_cells(text)


def test_the_written_forms_are_read_quickly_and_right():
    from formats.grid_text import _written_cells
    nine = "# kind=imported\n# clues=17\n" + "".join(
        " ".join(f"{(r * 3 + r // 3 + c) % 9 + 1}" for c in range(9)) + "\n" for r in range(9))
    assert _written_cells(nine) == grid_text._expression_cells(nine) and len(_written_cells(nine)) == 81
    four = ". 2 . 4\n3 . 1 .\n. 1 . 3\n4 . 2 .\n"
    assert _written_cells(four) == ".2.43.1..1.34.2."
    assert _written_cells(four[:-1]) is None and _written_cells(four + "\n") is None


_HEADERS = ["# kind=imported\n", "#\n", "\n", " \n", "# a b c d e f g h i\n", "\t# x\n"]
_NINE_ROWS = [". . . . . . . 1 .\n", "4 . . . . . . . .\n", "1 2 3 4 5 6 7 8 9\n",
              "# . . . . . . . .\n", "1  2 3 4 5 6 7 8 9\n", ". . . . . . . . \n",
              "1 2 3 4 5 6 7 8 \u00e9\n", "1 2 3 4 5 6 7 8 9"]
_FOUR_ROWS = [". 2 . 4\n", "1 . 3 .\n", "1 2 3 \u00a0\n", "#. . .\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_HEADERS), max_size=3), st.booleans(),
       st.data(), st.sampled_from(["", "\n", " \n"]))
def test_near_written_grids_are_read_as_the_expressions_read_them(headers, nine, data, tail):
    rows = _NINE_ROWS if nine else _FOUR_ROWS
    count = data.draw(st.sampled_from([9, 4, 8, 10] if nine else [4, 3, 5, 9]))
    weights = st.sampled_from(rows[:3] * 6 + rows)     # mostly written rows
    text = "".join(headers) + "".join(data.draw(weights) for _ in range(count)) + tail
    assert grid_text.single_character_cells(text) == grid_text._expression_cells(text)
