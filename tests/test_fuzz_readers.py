"""Fuzzing every reader: native and one-line grids, DIMACS,
solver output and dlx exact-cover files.

Valid files are mutated (byte flips, insertions of odd Unicode, control
characters and huge numbers, deletions, truncation) and random bytes are fed
as well. Each case must end either in a valid parsed object (checked against
its invariants; a grid is solved and the solution verified) or in a RaceError
whose message is one printable line. Most cases call the readers in-process;
a few go through the real CLI.
"""

from __future__ import annotations

import numpy as np
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from experiments.cli.main import main
from formats import dimacs, exact_cover, grid_text, sat_output
from formats.errors import RaceError
from formats.grid import Grid
from formats.source import decode_utf8
from solvers import registry, rules
from tests.conftest import full_grid, puzzle_from

#: about 60 s for the whole file on a loaded 2-core machine.
FUZZ = settings(max_examples=2500, deadline=None, suppress_health_check=list(HealthCheck))
GRID_FUZZ = settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))
CLI_FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))

_rng = np.random.default_rng(2026)
_puzzle4 = puzzle_from(full_grid(2, _rng), 0.5, _rng)
_puzzle9 = puzzle_from(full_grid(3, _rng), 0.6, _rng)
NATIVE = [grid_text.format_native(_puzzle4, {"kind": "fuzz"}).encode(),
          grid_text.format_native(_puzzle9).encode()]
ONE_LINE = [(grid_text.format_one_line(_puzzle9) + "\n" + grid_text.format_one_line(_puzzle9)
             + "\n").encode()]
DIMACS = [b"c a formula\np cnf 5 4\n1 -2 0\n2 3 -4 0\n-1 5\n0\n-5 -3 0\n",
          dimacs.dumps(8, [np.array([[1, 2], [-3, 4]], dtype=np.int32), [5, -6, 7, 8]])]
SOLVER_OUTPUT = [b"c kissat\ns SATISFIABLE\nv 1 -2 3\nv -4 5 0\nc conflicts: 3\n",
                 b"s UNSATISFIABLE\n", b"SAT\n1 -2 3 -4 5 0\n", b"UNSAT\n"]
DLX = [b"| a comment\nA B C D | E\nA C\nB D E\nA B\nC D\n",
       exact_cover.format_dlx(exact_cover.ExactCover.from_dense(
           np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]), ["p", "q", "r", "s"])).encode()]

#: what a hostile user inserts: odd blanks and line ends, look-alike digits, huge numbers.
ODD = ["\x00", "\t", "\r", "\f", "\v", "\x85", "\u2028", "\u3000", "\x1c", "\ufeff", "\uff11",
       "\u0663", "\u00b2", "1_0", "-", "--1", "+1", "0", "00", "-0", "9" * 25, "9" * 4400,
       "4294967297", "-4294967297", "2147483648", "18446744073709551616", "#", "c", "p cnf 3 1",
       "s SATISFIABLE", "v", "|", ":", ".", "A", "z", "\n", " "]


@st.composite
def mutated(draw, bases: list[bytes]) -> bytes:
    """A valid file with a few hostile edits (or plain random bytes)."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=300))
    data = bytearray(draw(st.sampled_from(bases)))
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["flip", "insert", "raw", "delete", "truncate", "repeat"]))
        if kind == "flip" and data:
            data[min(pos, len(data) - 1)] ^= 1 << draw(st.integers(0, 7))
        elif kind == "insert":
            text = draw(st.sampled_from(ODD) | st.text(max_size=4))
            data[pos:pos] = text.encode("utf-8", "surrogatepass")
        elif kind == "raw":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=3))
        elif kind == "delete":
            del data[pos:pos + draw(st.integers(1, 6))]
        elif kind == "truncate":
            del data[pos:]
        elif kind == "repeat":
            data[pos:pos] = data[:pos][-8:] * draw(st.integers(1, 3))
    return bytes(data)


def assert_one_line(error: RaceError) -> None:
    event("error")
    text = str(error)
    assert text and "\n" not in text and text.isprintable(), repr(text)


def read_text(data: bytes, parse):
    """What the readers do with a file's bytes: strict UTF-8, then parse."""
    return parse(decode_utf8(data, "fuzz"), "fuzz")


def check_grids(pf: grid_text.PuzzleFile) -> None:
    solver = registry.create("dlx")
    for grid in pf.grids:
        assert isinstance(grid, Grid) and grid.cells.shape == (grid.side, grid.side)
        assert grid.cells.min() >= 0 and grid.cells.max() <= grid.side
        assert grid_text.parse(grid_text.format_native(grid)).grids[0] == grid
        if grid.n <= 3:
            result = solver.solve(grid)
            assert result.status in ("solved", "unsat")
            if result.status == "solved":
                assert result.solution is not None and rules.is_solution_of(grid, result.solution)


@GRID_FUZZ
@given(mutated(NATIVE + ONE_LINE))
def test_fuzz_grid_reader(data):
    try:
        pf = read_text(data, grid_text.parse)
    except RaceError as error:
        assert_one_line(error)
        return
    event("parsed")
    check_grids(pf)


@FUZZ
@given(mutated(DIMACS))
def test_fuzz_dimacs_reader(data):
    try:
        parsed = dimacs.parse(data, "fuzz")
    except RaceError as error:
        assert_one_line(error)
        return
    event("parsed")
    assert 0 <= parsed.nvars <= dimacs.MAX_VARS
    assert parsed.offsets[0] == 0 and np.all(np.diff(parsed.offsets) >= 0)
    assert parsed.offsets[-1] == parsed.lits.size
    if parsed.lits.size:
        assert np.all(parsed.lits != 0) and np.abs(parsed.lits.astype(np.int64)).max() <= parsed.nvars
    again = dimacs.parse(dimacs.dumps(parsed.nvars, list(parsed.clauses())))
    assert list(again.clauses()) == list(parsed.clauses())


@FUZZ
@given(mutated(SOLVER_OUTPUT), st.sampled_from([None, 5]))
def test_fuzz_solver_output_reader(data, nvars):
    try:
        out = read_text(data, lambda text, name: sat_output.parse(text, name, nvars=nvars))
    except RaceError as error:
        assert_one_line(error)
        return
    event("parsed")
    assert out.status in (sat_output.SAT, sat_output.UNSAT, sat_output.UNKNOWN)
    if out.status == sat_output.SAT:
        var = np.abs(out.model)
        assert np.all(var >= 1) and np.unique(var).size == var.size
        if nvars is not None:
            assert sorted(var.tolist()) == list(range(1, nvars + 1))
    else:
        assert out.model is None


@FUZZ
@given(mutated(DLX))
def test_fuzz_dlx_reader(data):
    try:
        problem = read_text(data, exact_cover.parse)
    except RaceError as error:
        assert_one_line(error)
        return
    event("parsed")
    problem.validate("fuzz")
    again = exact_cover.parse(exact_cover.format_dlx(problem))
    assert again.items == problem.items and again.primary == problem.primary
    assert again.options == problem.options


# -- a few through the real CLI -------------------------------------------------------

@CLI_FUZZ
@given(mutated(NATIVE + ONE_LINE))
def test_fuzz_cli_solve(data):
    result = CliRunner().invoke(main, ["solve", "-s", "dlx", "-"], input=data)
    if result.exit_code == 2:
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("race: error: ")
        return
    assert result.exit_code in (0, 1), result.output
    pf = grid_text.parse(decode_utf8(data, "fuzz"))
    solved = [g for g in grid_text.parse(result.stdout).grids] if result.stdout.strip() else []
    for grid in solved:
        assert any(rules.is_solution_of(p, grid) for p in pf.grids)


@CLI_FUZZ
@given(mutated(DIMACS))
def test_fuzz_cli_sat_solve(data):
    result = CliRunner().invoke(main, ["sat-solve", "-"], input=data)
    if result.exit_code == 2:
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("race: error: ")
        return
    assert result.exit_code in (10, 20), result.output
    parsed = dimacs.parse(data)
    if result.exit_code == 10:                          # the model satisfies every clause
        model = sat_output.parse(result.stdout, nvars=parsed.nvars).model
        value = np.zeros(parsed.nvars + 1, dtype=bool)
        value[model[model > 0]] = True
        for clause in parsed.clauses():
            assert any(value[lit] if lit > 0 else not value[-lit] for lit in clause)


@CLI_FUZZ
@given(mutated(DLX))
def test_fuzz_cli_cover(data):
    result = CliRunner().invoke(main, ["cover", "--count", "-"], input=data)
    if result.exit_code == 2:
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("race: error: ")
        return
    assert result.exit_code == 0, result.output
    assert int(result.stdout) >= 0


@CLI_FUZZ
@given(data=mutated(SOLVER_OUTPUT))
def test_fuzz_cli_decode(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("decode")
    puzzle = folder / "p.sudoku"
    puzzle.write_text(NATIVE[0].decode())
    result = CliRunner().invoke(main, ["decode", str(puzzle), "-"], input=data)
    if result.exit_code == 2:
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("race: error: ")
        return
    assert result.exit_code in (0, 1), result.output
    if result.exit_code == 0:
        assert rules.is_solution_of(_puzzle4, grid_text.parse(result.stdout).grids[0])
