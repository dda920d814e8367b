"""``race solve|count --timeout S``: the work runs in a child process; at the limit it is
stopped with every solver it started, and the command exits 3 with one line on stderr."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import process_alive

ROOT = Path(__file__).resolve().parents[1]
SLEEPER = ROOT / "tests" / "outside_solvers" / "sleeper.py"
RACE = "import sys; from experiments.cli.main import main; sys.argv[0] = 'race'; main()"
PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n"


def race(*args: str, stdin: str | None = None) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-c", RACE, *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    return done, time.monotonic() - t0


def test_an_outside_solver_that_never_answers_is_killed_with_its_child(tmp_path):
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(PUZZLE)
    pid_file = tmp_path / "child.pid"
    spec = f"cmd:path={SLEEPER},args={{input}} {pid_file}"
    done, seconds = race("solve", "--timeout", "1.5", "-s", spec, str(puzzle))
    assert done.returncode == 3 and done.stdout == ""
    assert done.stderr == f"race solve: no answer within 1.5 s ({puzzle})\n"
    assert 1.5 <= seconds < 30
    child = int(pid_file.read_text())            # the sleeper's own child, one level further
    for _ in range(100):
        if not process_alive(child):
            break
        time.sleep(0.05)
    assert not process_alive(child)


def test_a_compiled_kernel_that_runs_on_is_killed(tmp_path):
    """Backtracking on a 16x16 with 60% balanced holes runs for minutes (uninterruptible
    numba code: SIGTERM cannot stop it, SIGKILL does)."""
    puzzle = tmp_path / "h4.sudoku"
    made, _ = race("generate", "--n", "4", "--kind", "holes", "--holes", "0.6",
                   "--pattern", "balanced", "--seed", "0")
    puzzle.write_text(made.stdout)
    done, seconds = race("count", "--timeout", "1", "-s", "backtracking", str(puzzle))
    assert done.returncode == 3 and done.stdout == ""
    assert done.stderr == f"race count: no answer within 1 s ({puzzle})\n"
    assert seconds < 30


def test_within_the_limit_the_output_and_status_are_unchanged(tmp_path):
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(PUZZLE)
    plain, _ = race("solve", "-s", "dlx", str(puzzle))
    limited, _ = race("solve", "--timeout", "60", "-s", "dlx", str(puzzle))
    assert plain.returncode == limited.returncode == 0
    assert limited.stdout == plain.stdout and len(plain.stdout.strip()) == 81
    empty = ". . . .\n. . . .\n. . . .\n. . . .\n"
    counted, _ = race("count", "--timeout", "60", "-s", "sat", "-", stdin=empty)
    assert counted.returncode == 0 and counted.stdout == "288\n"
    clash = "1 1 . .\n. . . .\n. . . .\n. . . .\n"
    none, _ = race("solve", "--timeout", "60", "-s", "sat", "-", stdin=clash)
    assert none.returncode == 1 and none.stderr == "no solution\n"


@pytest.mark.parametrize("value", ["0", "-1", "abc"])
def test_a_bad_timeout_is_a_usage_error(tmp_path, value):
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(PUZZLE)
    done, _ = race("solve", "--timeout", value, str(puzzle))
    assert done.returncode == 2 and "--timeout" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_child_reports_a_bad_file_as_usual(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x00\x01 not a puzzle\n")
    plain, _ = race("solve", str(bad))
    limited, _ = race("solve", "--timeout", "30", str(bad))
    assert plain.returncode == limited.returncode == 2
    assert limited.stderr == plain.stderr and len(plain.stderr.strip().splitlines()) == 1
    assert not os.path.exists(tmp_path / "core")


# -- every interleaving of the limit with the end of the work, injected one at a time ------

#: ``race solve --timeout 60 -s dlx PUZZLE`` with an event injected in the child at POINT:
#: WHAT = "stop": the parent's SIGTERM arrives there; WHAT = "limit": the limit passes there
#: (the parent's clock says so once the child touches FLAG; the child then waits: for the
#: stop where the parent must say no, on to the end where it has said yes)
INJECTED = '''
import os, signal, sys, time
from pathlib import Path
from experiments.cli import solve, time_limit
from experiments.cli.main import main
from solvers import interface
point, what, flag, puzzle = sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4]
sys.argv = ["race", "solve", "--timeout", "60", "-s", "dlx", puzzle]
time_limit.past = lambda deadline: flag.exists()

def event(stopped_here):
    if what == "stop":
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)                   # the handler runs at once; never reached
        return
    flag.touch()
    while stopped_here:                 # the parent's stop ends this wait
        time.sleep(0.05)
    time.sleep(0.5)                     # past the limit, after the parent's yes

def wrap(owner, name, before=False, after=False, stopped_here=True):
    original = getattr(owner, name)
    def wrapped(*args, **kwargs):
        if before:
            event(stopped_here)
        found = original(*args, **kwargs)
        if after:
            event(stopped_here)
        return found
    setattr(owner, name, wrapped)

class AskedThenLimit:                   # the request is written; the verdict not yet read
    def __getattr__(self, name):
        return getattr(os, name)
    def read(self, fd, size):
        event(stopped_here=False)
        return os.read(fd, size)

if point == "before-work":
    wrap(solve, "answer_within", before=True)
elif point == "in-search":
    wrap(interface.Solver, "_run", before=True)
elif point == "end-of-work":
    wrap(solve, "answers", after=True)
elif point == "asked":
    def leave(original=time_limit.wait_for_leave):
        time_limit.os = AskedThenLimit()
        original()
    time_limit.wait_for_leave = leave
elif point == "writing":
    wrap(solve, "_solution_lines", after=True, stopped_here=False)
main()
'''


@pytest.mark.parametrize("point, what, answered", [
    ("before-work", "stop", False), ("in-search", "stop", False), ("end-of-work", "stop", False),
    ("asked", "stop", False),
    ("before-work", "limit", False), ("in-search", "limit", False),
    ("end-of-work", "limit", False), ("asked", "limit", True), ("writing", "limit", True)])
def test_the_answer_and_the_exit_status_agree_wherever_the_limit_or_the_stop_falls(
        tmp_path, point, what, answered):
    """The parent's stop, or the limit itself, falls at each point of the child's life (before
    the work, in the search, after it, with the request to answer written, while the answer is
    written): never a traceback, and either the whole answer with exit 0 (the request was in
    by the limit) or no output with exit 3 -- never an answer followed by "no answer"."""
    from formats import grid_text
    puzzle = tmp_path / "p.sudoku"              # the per-puzzle path, through Solver._run
    puzzle.write_text(grid_text.format_native(grid_text.parse(PUZZLE).grids[0]))
    done = subprocess.run([sys.executable, "-c", INJECTED, point, what, str(tmp_path / "flag"),
                           str(puzzle)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert "Traceback" not in done.stderr and "Stop" not in done.stderr, done.stderr
    if answered:
        assert done.returncode == 0 and done.stderr == "", done
        assert grid_text.parse(done.stdout).grids[0].empties() == 0
    else:
        assert done.returncode == 3 and done.stdout == "", done
        said = f"race solve: no answer within 60 s ({puzzle})\n"
        assert done.stderr == (said if what == "limit" else "")
