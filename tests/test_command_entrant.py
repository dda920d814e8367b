"""The ``cmd`` entrant: outside solvers (tests/outside_solvers/*.py) run without a
shell, under limits, and every fault becomes a status or a one-line RaceError."""

from __future__ import annotations

import glob
import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from formats.errors import RaceError
from formats.grid import Grid
from solvers import registry
from solvers.command import Command, binary_provenance
from solvers.interface import SOLVED, UNKNOWN, UNSAT, WRONG
from solvers.processes.limited import run_limited
from tests.conftest import process_alive

HERE = Path(__file__).parent / "outside_solvers"
SOLVER = str(HERE / "backtrack_solver.py")

# the classic 30-clue 9x9 (unique solution) and its solution
SOLUTION = np.array([
    [5, 3, 4, 6, 7, 8, 9, 1, 2], [6, 7, 2, 1, 9, 5, 3, 4, 8], [1, 9, 8, 3, 4, 2, 5, 6, 7],
    [8, 5, 9, 7, 6, 1, 4, 2, 3], [4, 2, 6, 8, 5, 3, 7, 9, 1], [7, 1, 3, 9, 2, 4, 8, 5, 6],
    [9, 6, 1, 5, 3, 7, 2, 8, 4], [2, 8, 7, 4, 1, 9, 6, 3, 5], [3, 4, 5, 2, 8, 6, 1, 7, 9]])
PUZZLE = np.array([0 if ch == "." else int(ch) for ch in
                   "53..7....6..195....98....6.8...6...34..8.3..17...2...6"
                   ".6....28....419..5....8..79"]).reshape(9, 9)
#: consistent clues, but cell (1, 3) has no candidate (1, 2 in its row; 3, 4 in its column)
CONFLICT_FREE_UNSAT = np.array([[1, 2, 0, 0], [0, 0, 3, 0], [0, 0, 4, 0], [0, 0, 0, 0]])


def _temp_leftovers() -> set[str]:
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "race-cmd-*")))


@pytest.fixture(autouse=True)
def no_leftover_temp_dirs():
    before = _temp_leftovers()
    yield
    assert _temp_leftovers() == before


@pytest.mark.parametrize("spec_tail", ["", ",input=stdin", ",format=oneline",
                                       ",input=stdin,format=oneline,args=--oneline-out"])
def test_correct_solver_is_solved_and_verified(spec_tail):
    solver = registry.create(f"cmd:path={SOLVER}{spec_tail}")
    result = solver.solve(Grid(3, PUZZLE))
    assert result.status == SOLVED and result.verified
    assert np.array_equal(result.solution.cells, SOLUTION)
    assert result.counters["exit_code"] == 0


def test_no_solution_line_is_unsat():
    grid = Grid(2, CONFLICT_FREE_UNSAT)
    result = registry.create(f"cmd:path={SOLVER}").solve(grid)
    assert result.status == UNSAT and result.count == 0


def test_count_mode_passes_limit_and_reads_count():
    solver = registry.create(f"cmd:path={SOLVER},count_args=--count {{limit}}")
    empty4 = Grid(2)
    assert solver.count(empty4).count == 288
    limited = solver.count(empty4, limit=5)
    assert (limited.status, limited.count, limited.limit_hit) == (SOLVED, 5, True)
    unique = solver.count(Grid(3, PUZZLE), limit=2)
    assert (unique.status, unique.count, unique.limit_hit) == (SOLVED, 1, False)


def test_wrong_grid_is_wrong():
    result = registry.create(f"cmd:path={HERE / 'wrong_solver.py'}").solve(Grid(3, PUZZLE))
    assert result.status == WRONG and not result.verified


def test_timeout_is_unknown_and_kills_the_process_group(tmp_path):
    pid_file = tmp_path / "child.pid"
    solver = registry.create(f"cmd:path={HERE / 'sleeper.py'},args={{input}} {pid_file},timeout=3")
    t0 = time.monotonic()
    result = solver.solve(Grid(3, PUZZLE))
    assert result.status == UNKNOWN and result.count == 0
    assert time.monotonic() - t0 < 30
    child = int(pid_file.read_text())
    for _ in range(50):                       # SIGKILL is asynchronous: give it a moment
        if not process_alive(child):
            break
        time.sleep(0.05)
    assert not process_alive(child)


def test_flood_is_an_error_not_a_hang():
    solver = registry.create(f"cmd:path={HERE / 'flooder.py'},max_output=100000,timeout=30")
    with pytest.raises(RaceError, match="printed more than 100000 bytes"):
        solver.solve(Grid(3, PUZZLE))


def test_nonzero_exit_without_answer_is_an_error_naming_stderr():
    solver = registry.create(f"cmd:path={HERE / 'crasher.py'}")
    with pytest.raises(RaceError, match=r"exited with code 3 and no answer: crasher: cannot cope"):
        solver.solve(Grid(3, PUZZLE))


def test_memory_limit_stops_a_hog():
    solver = registry.create(f"cmd:path={HERE / 'memory_hog.py'},memory_mb=300")
    with pytest.raises(RaceError, match="no answer.*MemoryError"):
        solver.solve(Grid(2))


def test_garbage_answer_is_an_error():
    solver = registry.create(f"cmd:path={sys.executable},args=-c \"print('hello world')\"")
    with pytest.raises(RaceError, match="unreadable answer"):
        solver.solve(Grid(2))


def test_answer_of_another_size_is_an_error():
    solver = registry.create(f"cmd:path={sys.executable},args=-c \"print('1234'*4)\",input=stdin")
    with pytest.raises(RaceError, match="n=1, the puzzle has n=3|n=2, the puzzle has n=3"):
        solver.solve(Grid(3, PUZZLE))


def test_no_shell_is_involved(tmp_path):
    marker = tmp_path / "marker"
    solver = registry.create(f"cmd:path={SOLVER},args=--oneline-out ; touch {marker}")
    with pytest.raises(RaceError):             # the solver sees ';' and 'touch' as file names
        solver.solve(Grid(2))
    assert not marker.exists()


@pytest.mark.parametrize("spec, message", [
    ("cmd", "path=PROGRAM is required"),
    ("cmd:path=/no/such/solver", "is not an executable file"),
    ("cmd:path=no-such-solver-on-path", "not an executable file on PATH"),
    (f"cmd:path={SOLVER},input=pipe", "input='pipe' is not one of file, stdin"),
    (f"cmd:path={SOLVER},args=\"unclosed", "args: No closing quotation"),
])
def test_bad_specs_are_one_line_errors(spec, message):
    with pytest.raises(RaceError, match=message):
        registry.create(spec)


def test_provenance_records_path_sha256_and_version():
    info = binary_provenance(SOLVER)
    assert info["path"] == str(Path(SOLVER).resolve())
    assert info["sha256"] == hashlib.sha256(Path(SOLVER).read_bytes()).hexdigest()
    assert info["version"] == "backtrack-solver 1.0 (test fixture)"
    said = Command(path=SOLVER).provenance()
    assert {k: v for k, v in said.items() if k != "startup_s"} == info and said["startup_s"] > 0
    silent = binary_provenance(str(HERE / "crasher.py"))
    assert silent["version"] is None


def test_run_limited_reports_exit_code_and_output():
    done = run_limited([sys.executable, "-c", "import sys; print('out'); sys.exit(4)"], timeout=30)
    assert (done.stdout, done.code, done.timed_out, done.flooded) == (b"out\n", 4, False, False)


def test_race_run_races_outside_solvers(tmp_path):
    """The acceptance path: `race run` with outside scripts as entrants records
    a verified answer, a timeout and a caught wrong answer."""
    import csv

    from click.testing import CliRunner

    from experiments.cli.main import main
    entrants = ",".join(f"cmd:path={HERE / script}"
                        for script in ("backtrack_solver.py", "sleeper.py", "wrong_solver.py"))
    result = CliRunner().invoke(main, ["run", "--no-report", "--kind", "unique", "--n", "2", "--solvers", entrants, "--instances", "1",
                                       "--timeout", "2", "--jobs", "2", "--out", str(tmp_path),
                                       "--campaign", "outside"])
    with open(tmp_path / "outside" / "runs.csv", newline="") as handle:
        statuses = {Path(row["entrant"].split("=", 1)[1]).name: (row["status"], row["verified"])
                    for row in csv.DictReader(handle)}
    assert statuses["backtrack_solver.py"] == ("solved", "True")
    assert statuses["sleeper.py"][0] == "timeout"
    assert statuses["wrong_solver.py"] == ("wrong", "False")
    assert "WRONG" in result.output
    for _ in range(50):                      # the killed worker's sleeper dies with it
        if not _running(str(HERE / "sleeper.py")):
            break
        time.sleep(0.1)
    assert not _running(str(HERE / "sleeper.py"))


def _running(fragment: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and fragment in (entry / "cmdline").read_bytes().decode(
                    "utf-8", "replace") and process_alive(int(entry.name)):
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def test_max_output_zero_is_refused_not_every_answer():
    from solvers import registry as registries
    with pytest.raises(RaceError, match="max_output=0 would refuse every answer"):
        registries.BUILTIN.create("cmd:path=/bin/true,max_output=0")


def test_a_program_that_exits_on_its_own_is_never_reported_as_killed(tmp_path):
    """Its pipes closed, the program was killed with its group before it had finished
    exiting: `race solve -s cmd:path=/bin/false` said "killed by signal 9" in about 5 runs of 6."""
    from click.testing import CliRunner

    from experiments.cli.main import main
    puzzle = tmp_path / "p.sudoku"
    puzzle.write_text(". . . .\n" * 4)
    for _ in range(12):
        result = CliRunner().invoke(main, ["solve", "-s", "cmd:path=/bin/false", str(puzzle)])
        assert result.exit_code == 2
        assert "exited with code 1" in result.stderr and "signal" not in result.stderr
