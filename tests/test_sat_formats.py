"""DIMACS reader/writer and SAT solver output parsing (Task 9)."""

from __future__ import annotations

import io
from unittest.mock import patch

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import full_grid, puzzle_from
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.formula import CNF

from experiments.cli.main import main
from formats import dimacs, sat_output
from formats.errors import RaceError
from formats.grid import Grid
from solvers.sat import sudoku_cnf
from solvers.sat.sudoku_cnf import structural_clause_count


def test_dimacs_round_trip_matches_pysat(rng, tmp_path):
    puzzle = puzzle_from(full_grid(3, rng), 0.5, rng)
    for encoding in sudoku_cnf.ENCODINGS:
        formula = sudoku_cnf.encode(puzzle, encoding)
        path = tmp_path / f"{encoding}.cnf"
        size = dimacs.write_formula(path, formula)
        assert size == path.stat().st_size
        back = dimacs.read(path)
        assert back.nvars == formula.nvars and back.nclauses == formula.nclauses
        assert list(back.clauses()) == list(formula.clauses())
        assert f"n=3 encoding={encoding}" in back.comments[0]
        theirs = CNF(from_file=str(path))                       # PySAT reads it the same way
        assert theirs.nv == formula.nvars and theirs.clauses == list(formula.clauses())


def test_dimacs_reader_follows_the_rules():
    text = "c top\np cnf 4 3\n1 -2\n 3 0\nc between\n-4 0 2\n0\n"   # clauses span and share lines
    parsed = dimacs.parse(text, "x.cnf")
    assert list(parsed.clauses()) == [[1, -2, 3], [-4], [2]]
    assert parsed.comments == ["top", "between"]
    assert [b.shape for b in parsed.blocks()] == [(2, 1), (1, 3)]
    with_marker = dimacs.parse("p cnf 1 1\n1 0\n%\n0\n", "satlib.cnf")
    assert list(with_marker.clauses()) == [[1]]


@pytest.mark.parametrize("text, message, line", [
    ("p cnf x 1\n1 0\n", "preamble", 1),
    ("c a\n1 2 0\n", "preamble", 2),
    ("p cnf 2 1\n1 3 0\n", "literal 3 out of range", 2),
    ("p cnf 2 1\n1 -3 0\n", "literal -3 out of range", 2),
    ("p cnf 2 2\n1 2 0\n\n-1\n", "not terminated by 0", 4),
    ("p cnf 2 3\n1 2 0\n-1 0\n", "declares 3 clauses, the file has 2", 3),
    ("p cnf 2 1\n1 0\n2 0\n", "more clauses than the 1", 3),
    ("p cnf 2 1\n1 two 0\n", "integer literal", 2),
    ("p cnf 2 1\np cnf 2 1\n1 0\n", "second preamble", 2),
])
def test_dimacs_reader_rejects_malformed_files(text, message, line):
    with pytest.raises(RaceError, match=message) as info:
        dimacs.parse(text, "bad.cnf")
    assert info.value.source == "bad.cnf" and info.value.line == line


@pytest.mark.parametrize("text", ["p cnf 2\n1 2 0\n", "p cnf 2 1\n1 3 0\n", "p cnf 2 1\n1 2\n"])
def test_malformed_dimacs_exits_2_with_one_line(text, tmp_path):
    path = tmp_path / "bad.cnf"
    path.write_text(text)
    result = CliRunner().invoke(main, ["sat-solve", str(path)])
    assert result.exit_code == 2
    assert "bad.cnf, line" in result.output and len(result.output.strip().splitlines()) == 1


def test_writer_handles_stream_targets_and_single_clauses():
    sink = io.BytesIO()
    dimacs.write(sink, 3, [np.array([[1, -2], [3, 2]], np.int32), [-1], []], ["two\nlines"])
    assert sink.getvalue() == b"c two\nc lines\np cnf 3 4\n1 -2 0\n3 2 0\n-1 0\n0\n"
    big = np.array([[2_000_000_000, -2_000_000_000]], np.int32)
    assert dimacs.dumps(2_000_000_000, [big]).endswith(b"2000000000 -2000000000 0\n")


def _naive_dimacs(nvars: int, blocks: list[np.ndarray]) -> bytes:
    """The oracle: the DIMACS text of ``blocks`` one literal at a time."""
    lines = [f"p cnf {nvars} {sum(len(b) for b in blocks)}"]
    lines += [" ".join(map(str, row.tolist())) + " 0" for b in blocks for row in b]
    return ("\n".join(lines) + "\n").encode()


@settings(max_examples=60, deadline=None)
@given(st.integers(26, 200), st.lists(st.tuples(st.integers(1, 5), st.integers(0, 40), st.integers()),
                                      min_size=1, max_size=4))
def test_writer_streams_every_chunk_of_a_block(chunk, shapes):
    # blocks bigger than one write chunk (a real formula from n = 6 on): every chunk is written
    blocks = []
    for width, rows, seed in shapes:
        values = np.random.default_rng(seed % 2**32).integers(1, 1000, size=(rows, width))
        signs = np.random.default_rng(seed % 2**31).choice([-1, 1], size=(rows, width))
        blocks.append((values * signs).astype(np.int32))
    with patch.object(dimacs, "CHUNK_BYTES", chunk):
        sink = io.BytesIO()
        size = dimacs.write(sink, 999, blocks)
    assert sink.getvalue() == _naive_dimacs(999, blocks) and size == len(sink.getvalue())


def test_formula_over_several_chunks_round_trips_through_a_file(tmp_path, monkeypatch):
    formula = sudoku_cnf.encode(Grid.empty(3), "extended")
    monkeypatch.setattr(dimacs, "CHUNK_BYTES", 4096)      # ~150 binary clauses a chunk
    assert max(len(b) for b in formula.blocks) * 26 > 10 * 4096
    path = tmp_path / "empty9.cnf"
    assert dimacs.write_formula(path, formula) == path.stat().st_size
    back = dimacs.read(path)
    assert back.nclauses == formula.nclauses == structural_clause_count(3, "extended") == 11988
    assert list(back.clauses()) == list(formula.clauses())


# -- solver output ---------------------------------------------------------------

def test_output_multiline_model_and_comments():
    text = "c kissat\ns SATISFIABLE\nv 1 -2\nc in between\nv 3\nv -4 0\nc conflicts: 7 x\n"
    out = sat_output.parse(text, "o.txt", nvars=4, exit_code=10)
    assert out.status == "SATISFIABLE" and out.model.tolist() == [1, -2, 3, -4]
    assert sat_output.statistics(text) == {"conflicts": 7}
    assert sat_output.parse("s UNSATISFIABLE\n", exit_code=20).status == "UNSATISFIABLE"
    assert sat_output.parse("c x\ns UNKNOWN\n", exit_code=0).status == "UNKNOWN"


def test_minisat_result_file():
    assert sat_output.parse("SAT\n1 -2 3 0\n", nvars=3).model.tolist() == [1, -2, 3]
    assert sat_output.parse("UNSAT\n").status == "UNSATISFIABLE"
    with pytest.raises(RaceError, match="not terminated"):
        sat_output.parse("SAT\n1 -2 3\n")


@pytest.mark.parametrize("text, nvars, code, message", [
    ("s SATISFIABLE\nv 1 -2\n", 2, None, "not terminated by 0"),
    ("s SATISFIABLE\nv 1 -2 0\n", 3, None, "assigns 2 of the 3"),
    ("s SATISFIABLE\nv 1 -2 0\n", 1, None, "names variable 2"),
    ("s SATISFIABLE\nv 1 -1 0\n", None, None, "twice"),
    ("s SATISFIABLE\n", None, None, "no model"),
    ("c only comments\nv 1 0\n", None, None, "without a preceding"),
    ("c only comments\n", None, None, "no 's' status line"),
    ("", None, None, "no 's' status line"),
    ("s SATISFIABLE\nv 1 0 2\n", None, None, "after the model's terminating 0"),
    ("s SATISFIABLE\nv 1 0\nv 2 0\n", None, None, "after the model's terminating 0"),
    ("s SATISFIABLE\nv 1 x 0\n", None, None, "not an integer"),
    ("s SATISFYING\n", None, None, "unknown status"),
    ("s SATISFIABLE\ns SATISFIABLE\n", None, None, "second 's'"),
    ("garbage\n", None, None, "unexpected line"),
    ("s UNSATISFIABLE\n", None, 10, "exit code 10"),
])
def test_output_parser_rejects_truncated_or_garbage(text, nvars, code, message):
    with pytest.raises(RaceError, match=message):
        sat_output.parse(text, "out.txt", nvars=nvars, exit_code=code)


def test_every_prefix_of_a_model_is_rejected_or_complete():
    formula = sudoku_cnf.encode(Grid.empty(2), "extended")
    model = [v if v % 4 == 1 else -v for v in range(1, formula.nvars + 1)]
    text = "s SATISFIABLE\n" + "".join(f"v {' '.join(map(str, model[s:s + 10]))}\n"
                                       for s in range(0, len(model), 10)) + "v 0\n"
    for cut in range(len("s SATISFIABLE\n"), len(text) - 1, 7):
        with pytest.raises(RaceError):
            out = sat_output.parse(text[:cut], "cut.txt", nvars=formula.nvars)
            sudoku_cnf.decode(formula, out.model)


@pytest.mark.parametrize("text, nvars, code, where, message", [
    ("s SATISFIABLE\nv 1 -2\n", 2, None, "out.txt, line 2",
     "the model is not terminated by 0: truncated output?"),
    ("c a\n\ns SATISFIABLE\n\nv 1 -2\nc mid\nv 3\n", None, None, "out.txt, line 7",
     "the model is not terminated by 0: truncated output?"),
    ("s SATISFIABLE\nv 1 -2 0\n", 3, None, "out.txt",
     "the model assigns 2 of the 3 variables: truncated output?"),
    ("s SATISFIABLE\nv 1 -2 0\n", 1, None, "out.txt",
     "the model names variable 2 but the formula has only 1"),
    ("s SATISFIABLE\nv 1 -1 0\n", None, None, "out.txt", "the model assigns a variable twice"),
    ("c x\ns SATISFIABLE\n", None, None, "out.txt, line 2", "'s SATISFIABLE' but no model ('v' lines)"),
    ("c only comments\nv 1 0\n", None, None, "out.txt, line 2",
     "a 'v' line without a preceding 's SATISFIABLE'"),
    ("c only comments\n", None, None, "out.txt",
     "no 's' status line: truncated or not solver output"),
    ("s SATISFIABLE\nv 1 0 2\n", None, None, "out.txt, line 2",
     "literals after the model's terminating 0"),
    ("s SATISFIABLE\nv 1 0\n\nv 2 0\n", None, None, "out.txt, line 4",
     "a 'v' line after the model's terminating 0"),
    ("s SATISFIABLE\nv 1 x 0\n", None, None, "out.txt, line 2",
     "the model holds something that is not an integer literal (ASCII digits)"),
    ("s SATISFIABLE\nv 1 99999999999999999999 0\n", None, None, "out.txt, line 2",
     "the model holds something that is not an integer literal"),
    ("s SATISFIABLE\nv 2147483648 0\n", None, None, "out.txt, line 2",
     "a literal beyond +-2147483647 (the largest variable number)"),
    ("s SATISFIABLE\nv -2147483648 0\n", None, None, "out.txt, line 2",
     "a literal beyond +-2147483647 (the largest variable number)"),
    ("c\n\ns SATISFYING\n", None, None, "out.txt, line 3",
     "unknown status 'SATISFYING' (expected SATISFIABLE, UNSATISFIABLE or UNKNOWN)"),
    ("s\n", None, None, "out.txt, line 1",
     "unknown status '' (expected SATISFIABLE, UNSATISFIABLE or UNKNOWN)"),
    ("s SATISFIABLE\ns SATISFIABLE\n", None, None, "out.txt, line 2", "a second 's' status line"),
    ("c x\ncx\n", None, None, "out.txt, line 2", "unexpected line 'cx' (expected a 'c', 's' or 'v' line)"),
    ("s SATISFIABLE\nvv 1 0\n", None, None, "out.txt, line 2",
     "unexpected line 'vv 1 0' (expected a 'c', 's' or 'v' line)"),
    ("sx\n", None, None, "out.txt, line 1", "unexpected line 'sx' (expected a 'c', 's' or 'v' line)"),
    ("s UNSATISFIABLE\n", None, 10, "out.txt",
     "exit code 10 means SATISFIABLE but the output says UNSATISFIABLE"),
    ("s SATISFIABLE\nv 1 0\n", None, 20, "out.txt",
     "exit code 20 means UNSATISFIABLE but the output says SATISFIABLE"),
    ("UNSAT\n\nextra\n", None, None, "out.txt, line 3", "unexpected text after the status"),
    ("\nSAT\n", None, None, "out.txt, line 2", "'SAT' but no model"),
    ("SAT\n1 -2\n\n3\n", None, None, "out.txt, line 4",
     "the model is not terminated by 0: truncated output?"),
    ("SAT\n1 0 2 0\n", None, None, "out.txt, line 2", "literals after the model's terminating 0"),
    ("SAT\n1 0\n\n2 0\n", None, None, "out.txt, line 4", "literals after the model's terminating 0"),
    ("SAT\n1 x 0\n", None, None, "out.txt, line 2",
     "the model holds something that is not an integer literal (ASCII digits)"),
    ("SAT\n1 2 0\n", 3, None, "out.txt", "the model assigns 2 of the 3 variables: truncated output?"),
])
def test_output_errors_name_the_file_and_line(text, nvars, code, where, message):
    with pytest.raises(RaceError) as info:
        sat_output.parse(text, "out.txt", nvars=nvars, exit_code=code)
    assert str(info.value) == f"{where}: {message}"
    assert info.value.message == message and info.value.source == "out.txt"


def test_output_accepts_every_well_formed_variant():
    bare = sat_output.parse("c\ns\tSATISFIABLE\nv\nv\t1 -2\nv 3 0\n", nvars=3, exit_code=10)
    assert (bare.status, bare.model.tolist(), bare.comments) == ("SATISFIABLE", [1, -2, 3], [""])
    assert sat_output.parse("s UNKNOWN\n", exit_code=0).model is None
    minisat = sat_output.parse("\nSAT\n\n1 -2\n3 0\n", nvars=3, exit_code=10)
    assert (minisat.status, minisat.model.tolist()) == ("SATISFIABLE", [1, -2, 3])
    assert sat_output.parse("INDET\n\n").status == "UNKNOWN"
    assert sat_output.parse("UNSAT\n", exit_code=20).model is None
    assert sat_output.parse("s SATISFIABLE\nv 0\n").model.tolist() == []
    stats = ("c conflicts: 1\nc decisions:  22 (x)\nconflicts             : 333   (0 /sec)\n"
             "propagations : 4\nc restarts: 5\n")
    assert sat_output.statistics(stats) == {"conflicts": 333, "decisions": 22, "propagations": 4}


def test_writer_to_stdout_and_empty_comment_lines(capsysbinary, tmp_path):
    blocks = [np.array([[1, -2]], np.int32)]
    assert dimacs.write("-", 2, blocks, ["", "a\n\nb"]) == len(b"c \nc a\nc \nc b\np cnf 2 1\n1 -2 0\n")
    assert capsysbinary.readouterr().out == b"c \nc a\nc \nc b\np cnf 2 1\n1 -2 0\n"
    assert dimacs.dumps(2, blocks, ["x"]) == b"c x\np cnf 2 1\n1 -2 0\n"
    with pytest.raises(RaceError) as info:
        dimacs.write(tmp_path, 2, blocks)                          # a directory
    assert str(info.value) == f"{tmp_path}: cannot write: Is a directory"


def test_sat_solve_checks_a_backends_model_against_every_clause(tmp_path):
    """A backend that says SATISFIABLE with a model breaking a clause was printed as is."""
    cnf = tmp_path / "f.cnf"
    cnf.write_text("p cnf 2 2\n1 2 0\n-1 0\n")
    liar = tmp_path / "liar.sh"
    liar.write_text('#!/bin/sh\necho "s SATISFIABLE"\necho "v 1 2 0"\nexit 10\n')
    liar.chmod(0o755)
    result = CliRunner().invoke(main, ["sat-solve", "-b", str(liar), str(cnf)])
    assert result.exit_code == 2 and "clause 2 false" in result.output
    assert "s SATISFIABLE" not in result.output
    honest = CliRunner().invoke(main, ["sat-solve", str(cnf)])
    assert honest.exit_code == 10 and "v -1 2 0" in honest.output


@given(st.lists(st.lists(st.integers(1, 6).flatmap(lambda v: st.sampled_from([v, -v])),
                         min_size=0, max_size=4), min_size=1, max_size=12),
       st.sets(st.integers(1, 6)))
@settings(max_examples=200, deadline=None)
def test_first_false_clause_agrees_with_a_plain_loop(clauses, true_vars):
    text = f"p cnf 6 {len(clauses)}\n" + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    parsed = dimacs.parse(text.encode(), "<t>")
    plain = next((k + 1 for k, c in enumerate(clauses)
                  if not any((lit > 0) == (abs(lit) in true_vars) for lit in c)), None)
    assert parsed.first_false_clause(sorted(true_vars)) == plain
