"""Edges of the file formats found by a fuzz audit: an UNSAT claim the puzzle file
contradicts (race decode), a signed zero in DIMACS, carriage-return line ends in the
DIMACS, dlx and solver-output readers, and an empty color in a dlx option. Each is a
one-line ``race: error: ...`` with exit 2, never a wrong answer."""

import numpy as np
import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from formats import dimacs, exact_cover, grid_text, sat_output
from formats.errors import RaceError
from solvers import rules
from tests.conftest import full_grid, puzzle_from

CNF = "c a small formula\np cnf 3 3\n1 -2 0\n2 3 0\n-1 -3 0\n"
CR_WORDS = "carriage return inside a line"


def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def one_line_error(r) -> str:
    assert r.exit_code == 2, (r.exit_code, r.output)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("race: error: "), r.stderr
    assert "Traceback" not in r.output
    return lines[0]


@pytest.fixture
def puzzle():
    rng = np.random.default_rng(7)
    solution = full_grid(2, rng)
    return solution, puzzle_from(solution, 0.5, rng)


def _write_puzzle(tmp_path, puzzle, metadata):
    f = tmp_path / "p.sudoku"
    f.write_text(grid_text.format_native(puzzle, metadata))
    return f


# -- 1. race decode checks an UNSAT claim against the puzzle's own record ---------------

def test_decode_unsat_claim_contradicted_by_recorded_solution(tmp_path, puzzle):
    solution, grid = puzzle
    p = _write_puzzle(tmp_path, grid, {"kind": "unique", "solution": grid_text.format_compact(solution)})
    out = tmp_path / "u.txt"
    out.write_text("s UNSATISFIABLE\n")
    line = one_line_error(run("decode", str(p), str(out)))
    assert "claimed no solution" in line and "records its solution" in line
    assert "p.sudoku" in line and "u.txt" in line


def test_decode_unsat_claim_contradicted_by_imported_count(tmp_path, puzzle):
    _, grid = puzzle
    p = _write_puzzle(tmp_path, grid, {"solutions": "1"})
    out = tmp_path / "u.txt"
    out.write_text("UNSAT\n")                                  # minisat's result file
    line = one_line_error(run("decode", str(p), str(out)))
    assert "claimed no solution, but dlx found a verified solution" in line


@pytest.mark.parametrize("metadata", [None, {"kind": "unsat"}, {"solutions": "0"}])
def test_decode_unsat_claim_is_confirmed_by_a_second_method_whatever_the_header_says(
        tmp_path, puzzle, metadata):
    """A header that says "no solution" is a claim, not proof: on a solvable puzzle the
    second method refutes the solver's UNSAT (and names the file's record as wrong); on a
    puzzle without a solution it confirms it."""
    from tests.test_referee import unsat_without_record
    _, grid = puzzle
    out = tmp_path / "u.txt"
    out.write_text("s UNSATISFIABLE\n")
    r = run("decode", str(_write_puzzle(tmp_path, grid, metadata)), str(out))
    assert r.exit_code == 2 and r.stdout == ""
    assert "claimed no solution, but dlx found a verified solution" in r.stderr
    assert ("the file's record is wrong" in r.stderr) is (metadata is not None)
    r = run("decode", str(_write_puzzle(tmp_path, unsat_without_record(), metadata)), str(out))
    assert r.exit_code == 1 and r.stdout == "" and r.stderr == "no solution\n"


# -- 2. a signed zero is not the end of a clause ---------------------------------------

@pytest.mark.parametrize("text,token,column", [("p cnf 1 1\n-0\n", "-0", 1),
                                               ("p cnf 2 1\n1 -0 2 0\n", "-0", 3),
                                               ("p cnf 2 1\n1 2 -00\n", "-00", 5),
                                               ("p cnf 1 1\n+0\n", "+0", 1)])
def test_signed_zero_is_a_malformed_literal(text, token, column):
    line = one_line_error(run("sat-solve", "-", input=text))
    assert f"<stdin>, line 2, column {column}:" in line and repr(token) in line
    with pytest.raises(RaceError) as caught:
        dimacs.parse(text)
    assert (caught.value.line, caught.value.column) == (2, column)


def test_leading_zeros_still_read():
    parsed = dimacs.parse("p cnf 2 2\n01 -02 0\n2 00\n")
    assert list(parsed.clauses()) == [[1, -2], [2]]


# -- 3. carriage returns -----------------------------------------------------------------

def test_dimacs_cr_only_line_ends(tmp_path):
    f = tmp_path / "cr.cnf"
    f.write_bytes(CNF.replace("\n", "\r").encode())
    line = one_line_error(run("sat-solve", str(f)))
    assert "cr.cnf, line 1, column 18:" in line and CR_WORDS in line


def test_dimacs_mixed_line_ends_name_the_line(tmp_path):
    f = tmp_path / "mixed.cnf"
    f.write_bytes(b"c one\nc two\np cnf 3 2\r1 -2 0\r2 3 0\n")          # CR after the preamble
    line = one_line_error(run("sat-solve", str(f)))
    assert "mixed.cnf, line 3, column 10:" in line and CR_WORDS in line
    f.write_bytes(b"p cnf 3 2\n1 -2 0\r2 3 0\n")                        # CR in the body
    line = one_line_error(run("sat-solve", str(f)))
    assert "mixed.cnf, line 2, column 7:" in line and CR_WORDS in line
    f.write_bytes(b"p cnf 3 2\n1 -2 0\nc note\r2 3 0\n")                # a comment swallowing a clause
    line = one_line_error(run("sat-solve", str(f)))
    assert "mixed.cnf, line 3, column 7:" in line and CR_WORDS in line


def test_dimacs_crlf_still_accepted(tmp_path):
    f = tmp_path / "crlf.cnf"
    f.write_bytes(CNF.replace("\n", "\r\n").encode())
    r = run("sat-solve", str(f))
    assert r.exit_code == 10 and "s SATISFIABLE" in r.stdout
    parsed = dimacs.parse(CNF.replace("\n", " \r \n"))               # blanks around the CR
    assert list(parsed.clauses()) == [[1, -2], [2, 3], [-1, -3]]


def test_dlx_cr_only_line_ends():
    queens = run("example", "queens", "4")
    assert queens.exit_code == 0
    line = one_line_error(run("cover", "-", input=queens.stdout.replace("\n", "\r")))
    assert "<stdin>, line 1, column" in line and CR_WORDS in line
    r = run("cover", "-", input=queens.stdout.replace("\n", "\r\n"))
    assert r.exit_code == 0, r.output
    with pytest.raises(RaceError, match=f"line 2, column 4: .*{CR_WORDS}"):
        exact_cover.parse("A B\nA B\rA\n")


def test_solver_output_cr_only_line_ends(tmp_path, puzzle):
    _, grid = puzzle
    p = _write_puzzle(tmp_path, grid, None)
    cnf = run("encode", "--encoding", "minimal", str(p))
    solved = run("sat-solve", "-", input=cnf.stdout)
    assert solved.exit_code == 10
    cr = tmp_path / "cr.txt"
    cr.write_bytes(solved.stdout.replace("\n", "\r").encode())
    line = one_line_error(run("decode", str(p), str(cr)))
    assert "cr.txt, line 1, column" in line and CR_WORDS in line
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(solved.stdout.replace("\n", "\r\n").encode())
    r = run("decode", str(p), str(crlf))
    assert r.exit_code == 0, r.output
    assert rules.is_solution_of(grid, grid_text.parse(r.stdout).grids[0])
    with pytest.raises(RaceError, match=f"line 2, column 4: .*{CR_WORDS}"):
        sat_output.parse("SAT\n1 2\r0\n")


# -- 4. an empty color -------------------------------------------------------------------

def test_dlx_empty_color_is_named():
    line = one_line_error(run("cover", "-", input="A | X\nA X:\n"))
    assert "line 2" in line and "'X:'" in line and "empty color" in line
    assert "only a secondary item" not in line
    line = one_line_error(run("cover", "-", input="A | X\nA:red X\n"))
    assert "only a secondary item takes a color" in line
