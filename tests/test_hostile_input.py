"""Hostile input through the real CLI: every case ends in a
correct answer or in one line ``race: error: ...`` with exit status 2."""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from formats import dimacs, exact_cover, grid_text, sat_output
from formats.errors import RaceError
from formats.grid import MAX_N
from solvers import registry
from solvers.sat import backends as sat_backends
from tests.conftest import full_grid

ROOT = Path(__file__).resolve().parents[1]
EMPTY4 = ". . . .\n. . . .\n. . . .\n. . . .\n"


def race(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def race_process(*args, stdin=None, stdout=subprocess.PIPE, env=None, timeout=120):
    """The real ``race`` in a subprocess (for /dev/full, /dev/zero, encodings)."""
    code = "import sys; from experiments.cli.main import main; sys.argv[0] = 'race'; main()"
    return subprocess.run([sys.executable, "-c", code, *args], stdin=stdin, stdout=stdout,
                          stderr=subprocess.PIPE, cwd=ROOT, env={**os.environ, **(env or {})},
                          timeout=timeout)


def one_line_error(result) -> str:
    """The error of a CliRunner result, asserted to be one line with exit 2."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("race: error: "), result.stderr
    return lines[0]


# -- item 1: numbers are ASCII decimal, bounded, range-checked ----------------------------

def test_dimacs_variables_beyond_32_bits_are_an_error_not_unsat(tmp_path):
    f = tmp_path / "wrap.cnf"
    f.write_text("p cnf 4294967297 2\n1 0\n-4294967297 0\n")
    line = one_line_error(race("sat-solve", str(f)))
    assert "4294967297" in line and "2147483647" in line and "line 1" in line
    f.write_text("p cnf 5 1\n4294967296 0\n")       # wraps to 0 as int32
    assert "out of range" in one_line_error(race("sat-solve", str(f)))


def test_dimacs_largest_accepted_variable_is_read_exactly():
    parsed = dimacs.parse(b"p cnf 2147483647 2\n1 0\n-2147483647 0\n")
    assert parsed.lits.tolist() == [1, -2147483647] and parsed.nclauses == 2


@pytest.mark.parametrize("token", ["1_0", "\uff11", "\u0661", "+1", "0x1", "1e1", "\u00b9"])
def test_non_ascii_decimal_numbers_are_errors_everywhere(tmp_path, token):
    cnf = tmp_path / "f.cnf"
    cnf.write_text(f"p cnf 20 1\n{token} 0\n", encoding="utf-8")
    assert "f.cnf, line 2" in one_line_error(race("sat-solve", str(cnf)))
    grid = tmp_path / "g.sudoku"
    grid.write_text(f"1 . . .\n. . 1 .\n. 1 . .\n. . . {token}\n", encoding="utf-8")
    assert "g.sudoku, line 4, column 7" in one_line_error(race("check", str(grid)))
    with pytest.raises(RaceError, match="line 2"):
        sat_output.parse(f"s SATISFIABLE\nv {token} 0\n")


def test_one_line_grid_takes_only_ascii_letters():
    puzzle = "." * 80
    for ch in ("\u0131", "\u017f", "\uff11"):          # dotless i / long s upper-case to I / S
        with pytest.raises(RaceError, match="column 81"):
            grid_text.parse(puzzle + ch)
    assert grid_text.parse(puzzle + "9").grids[0].cells[8, 8] == 9


@pytest.mark.parametrize("command,suffix", [("check", ".sudoku"), ("sat-solve", ".cnf")])
def test_a_4400_digit_token_is_one_line(tmp_path, command, suffix):
    f = tmp_path / f"huge{suffix}"
    big = "9" * 4400
    f.write_text(f"p cnf {big} 1\n1 0\n" if suffix == ".cnf" else f"1 . . .\n. . 1 .\n. 1 . .\n. . . {big}\n")
    assert "huge" in one_line_error(race(command, str(f)))


def test_literal_too_long_in_a_clause(tmp_path):
    with pytest.raises(RaceError, match="line 2: expected an integer literal"):
        dimacs.parse(b"p cnf 3 1\n" + b"1" * 4400 + b" 0\n")


def test_grid_beyond_max_n_is_refused_before_allocating():
    text = ". . .\n" * 10_000                               # 10000 rows: n = 100
    with pytest.raises(RaceError, match=f"more than the 400 .*n <= {MAX_N}"):
        grid_text.parse(text)
    with pytest.raises(RaceError, match="401"):
        grid_text.parse(". \n" * 401)


def test_400x400_grid_with_3_digit_tokens_reads_back(rng):
    grid = full_grid(20, rng)
    assert grid_text.parse(grid_text.format_native(grid)).grids[0] == grid


@pytest.mark.parametrize("sep,blank", [("\f", True), ("\v", True), ("\r", True),
                                       ("\x85", False), ("\u2028", False), ("\x1c", False)])
def test_lines_are_counted_on_newline_only(sep, blank):
    """An ASCII blank inside a line is a blank; any other separator is an error
    on its own line; neither shifts the line numbers."""
    cases = [(grid_text.parse, f"1 . . .\n. . 1 .{sep}\n. 1 . .\n. . . x\n", 4, 2),
             (dimacs.parse, f"p cnf 3 2\n1 0{sep}\nc\n2 x 0\n", 4, 2),
             (exact_cover.parse, f"A B{sep}\nA\nC\n", 3, 1),
             (sat_output.parse, f"s SATISFIABLE{sep}\nv 1 0\nv 2 0\n", 3, 1)]
    for parse, text, at_blank, at_other in cases:
        with pytest.raises(RaceError) as caught:
            parse(text)
        assert caught.value.line == (at_blank if blank else at_other), (parse, str(caught.value))


def test_unicode_separators_are_not_blanks():
    with pytest.raises(RaceError, match="line 1, column 2"):
        grid_text.parse("1\u3000. . .\n. . 1 .\n. 1 . .\n. . . 1\n")
    with pytest.raises(RaceError, match="illegal item name"):
        exact_cover.parse("A\u2028B\nA\n")


def test_invalid_utf8_names_line_and_column(tmp_path):
    f = tmp_path / "bad.sudoku"
    f.write_bytes(b"1 . . .\n. . 1 .\n. 1 \xff .\n. . . 1\n")
    assert "bad.sudoku, line 3, column 5: not a text file" in one_line_error(race("check", str(f)))
    with pytest.raises(RaceError, match="line 3, column 3"):
        dimacs.parse(b"p cnf 2 1\nc ok\nc \xc3\n1 0\n")


def test_invalid_utf8_on_stdin_under_a_utf8_locale():
    proc = subprocess.run([sys.executable, "-c", "import sys; from experiments.cli.main import main; "
                           "sys.argv[0] = 'race'; main()", "check", "-"], input=b"\xff\xfe 1\n",
                          capture_output=True, cwd=ROOT, env={**os.environ, "PYTHONIOENCODING": "utf-8"},
                          timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [
        "race: error: <stdin>, line 1, column 1: not a text file: not UTF-8 (byte 0xff: invalid start byte)"]


@pytest.mark.parametrize("device,command", [("/dev/zero", "check"), ("/dev/urandom", "sat-solve"),
                                            ("/dev/zero", "cover")])
def test_endless_devices_end_in_one_line(device, command):
    proc = race_process(command, device)
    assert proc.returncode == 2
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"race: error: {device}"), lines
    assert "NUL byte" in lines[0]


def test_bounded_read_names_the_limit(tmp_path, monkeypatch):
    from formats import source
    f = tmp_path / "big.sudoku"
    f.write_text(EMPTY4 * 2)
    monkeypatch.setattr(source, "MAX_INPUT_BYTES", 40)
    with pytest.raises(RaceError, match="more than 40 bytes"):
        source.read_source(f, limit=40)


# -- item 2: the SAT bridge ---------------------------------------------------------------

def test_flooding_solver_is_stopped_with_one_line(tmp_path):
    r = race("solve", "-s", "sat:backend=/usr/bin/yes", "-", input=EMPTY4)
    line = one_line_error(r)
    assert "/usr/bin/yes wrote" in line and "limit" in line


def test_huge_declared_variable_count_is_refused(tmp_path):
    r = race("sat-solve", "-", input="p cnf 1000000000 1\n1 0\n")
    assert "1000000000 variables" in one_line_error(r)
    assert "s SATISFIABLE" not in r.stdout


def test_sat_solve_prints_every_variable_of_the_model():
    r = race("sat-solve", "-", input="p cnf 45 2\n1 -3 0\n-1 45 0\n")
    assert r.exit_code == 10
    parsed = sat_output.parse(r.stdout, nvars=45)
    model = set(parsed.model.tolist())
    assert (1 in model or -3 in model) and (-1 in model or 45 in model)
    assert r.stdout.splitlines()[-1].endswith(" 0")


def _race_sat_dirs(pid: int) -> list[str]:
    root = Path(tempfile.gettempdir())
    return sorted(p.name for p in root.glob(f"race-sat-{pid}-*"))


def test_timeout_leaves_no_process_and_no_temp_dir(tmp_path):
    pidfile = tmp_path / "pid"
    script = tmp_path / "slow-solver"
    script.write_text(f"#!/bin/sh\nsleep 60 &\necho $! > {pidfile}\nwait\n")
    script.chmod(0o755)
    solver = registry.create(f"sat:backend={script},timeout=1.5")
    result = solver.solve(grid_text.parse(EMPTY4).grids[0])
    assert result.status == "unknown"
    assert _race_sat_dirs(os.getpid()) == []
    assert _gone(int(pidfile.read_text()))


def _gone(pid: int) -> bool:
    """Whether ``pid`` has exited (or is a zombie awaiting init), allowing the
    kernel a few seconds to deliver the SIGKILL."""
    for _ in range(100):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0]
        except (FileNotFoundError, IndexError):
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def test_error_path_leaves_no_temp_dir(tmp_path):
    script = tmp_path / "liar"
    script.write_text("#!/bin/sh\necho 's SATISFIABLE'\necho 'v 1 0'\nexit 10\n")
    script.chmod(0o755)
    solver = registry.create(f"sat:backend={script}")
    with pytest.raises(RaceError, match="assigns 1 of the"):
        solver.solve(grid_text.parse(EMPTY4).grids[0])
    assert _race_sat_dirs(os.getpid()) == []


def test_directories_of_dead_processes_are_swept():
    dead = subprocess.Popen(["true"])
    dead.wait()
    root = Path(tempfile.gettempdir())
    stale = root / f"race-sat-{dead.pid}-abc123"
    stale.mkdir()
    (stale / "formula.cnf").write_text("p cnf 1 1\n1 0\n")
    fresh = sat_backends.work_directory()
    try:
        assert not stale.exists() and Path(fresh).name.startswith(f"race-sat-{os.getpid()}-")
    finally:
        os.rmdir(fresh)


# -- item 3: writes, options, parameters -------------------------------------------------

@pytest.mark.parametrize("args", [["solve", "{p}"], ["count", "{p}"], ["check", "{p}"],
                                  ["encode", "{p}"], ["example", "queens", "6"], ["solvers"],
                                  ["--version"], ["solve", "--help"]])
def test_a_full_device_is_one_line_exit_2(tmp_path, args):
    p = tmp_path / "p.sudoku"
    p.write_text(EMPTY4)
    with open("/dev/full", "wb") as full:
        proc = race_process(*[a.format(p=p) for a in args], stdout=full)
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [
        "race: error: cannot write the output: No space left on device"]


@pytest.mark.parametrize("args,expected", [
    (["solve", "--foo"], "No such option '--foo'"),
    (["count", "--limit", "0", "-"], "--limit"),
    (["nosuch"], "No such command 'nosuch'"),
    (["example", "cubes", "3"], "'cubes'"),
])
def test_bad_options_give_one_line(args, expected):
    assert expected in one_line_error(race(*args))


def test_newline_in_a_file_name_stays_on_one_line(tmp_path):
    f = tmp_path / "a\nb.sudoku"
    f.write_text("1 2\n")
    assert "a\\nb.sudoku" in one_line_error(race("check", str(f)))


def test_directory_message_grammar(tmp_path):
    assert one_line_error(race("check", str(tmp_path))).endswith("is a directory, expected a puzzle file")
    assert one_line_error(race("cover", str(tmp_path))).endswith("expected a dlx file")


def test_decode_errors_name_the_output_file(tmp_path):
    p = tmp_path / "p.sudoku"
    p.write_text("1 . . .\n. . . .\n. . . .\n. . . .\n")
    out = tmp_path / "out.txt"
    lits = [-v for v in range(1, 65)]
    lits[0] = 1
    lits[1] = 2                                         # cell (1,1) gets two values
    out.write_text("s SATISFIABLE\nv " + " ".join(map(str, lits)) + " 0\n")
    line = one_line_error(race("decode", str(p), str(out)))
    assert f"{out}:" in line


@pytest.mark.parametrize("spec,expected", [
    ("kissat:timeout=inf", "finite number of seconds"),
    ("sat:timeout=1e300", "finite number of seconds"),
    ("sat:timeout=nan", "finite number of seconds"),
    ("sat:timeout=-1", "finite number of seconds"),
    ("backtracking:node_limit=-5", "node_limit=-5"),
    ("backtracking:node_limit=1_0", "node_limit='1_0'"),
    ("dlx:node_limit=\u0661", "node_limit="),
    ("dlx:heuristic=first,heuristic=mrv", "'heuristic' given twice"),
])
def test_parameters_are_range_checked(spec, expected):
    assert expected in one_line_error(race("solve", "-s", spec, "-", input=EMPTY4))


def test_valid_parameters_still_work():
    assert registry.create("sat:timeout=2.5").params["timeout"] == 2.5
    assert registry.create("backtracking:node_limit=100").params["node_limit"] == 100
    with pytest.raises(RaceError, match="finite"):
        registry.solver_class("sat")(timeout=float("inf"))


def test_endless_text_on_stdin_stops_at_the_limit(monkeypatch):
    from formats import source

    class Endless:
        def read(self, size):
            return b" " * size

    with pytest.raises(RaceError, match="more than 3000000 bytes"):
        source._read_bounded(Endless(), "<stdin>", 3_000_000, "a puzzle file")


@pytest.mark.parametrize("args, said", [
    (["cover", "{q6}", "--limit", "1000000000000"], None),            # prints the 4, reserves 4
    (["cover", "{q6}", "--limit", "9223372036854775808"], "must be at most 9223372036854775807"),
    (["count", "-l", "18446744073709551616", "{e4}"], "must be at most 9223372036854775807"),
    (["count", "-l", "-1", "{e4}"], "must be at least 1, not -1"),
    (["solve", "--timeout", "-1", "{e4}"], "-1 is not a finite number > 0"),
    (["animate", "{e4}", "-s", "sat", "--seed", "-5", "-o", "{gif}"], "must be at least 0, not -5"),
])
def test_integers_are_range_checked_before_any_work(tmp_path, args, said):
    """Huge limits reached numpy (87 TiB asked for) or numba (int64 overflow) as tracebacks;
    a negative number was called 'not an integer'."""
    from click.testing import CliRunner

    from experiments.cli.main import main
    q6 = tmp_path / "q6.dlx"
    q6.write_text(CliRunner().invoke(main, ["example", "queens", "6"]).output)
    e4 = Path(__file__).parent / "data" / "empty4.sudoku"
    filled = [a.format(q6=q6, e4=e4, gif=tmp_path / "a.gif") for a in args]
    result = CliRunner().invoke(main, filled)
    if said is None:
        assert result.exit_code == 0 and len(result.output.strip().split("\n\n")) == 4
    else:
        assert result.exit_code == 2 and said in result.output, result.output
        assert "Traceback" not in result.output
