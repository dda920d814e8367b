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
RACE = "import sys; from experiments.cli import main; sys.argv[0] = 'race'; main()"
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
