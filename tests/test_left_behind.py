"""What an outside program may leave behind: a daemon (double fork, setsid) of a ``cmd:``
entrant or of a ``parallel`` member is killed and reaped before ``race solve`` returns (O1);
after ``kill -9`` of ``race solve`` the members and their programs die, and what those programs
started themselves is the documented limit (O2, docs/solvers/plugins.md)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from formats import grid_text
from formats.grid import Grid
from solvers.registry import BUILTIN
from tests.conftest import process_alive
from tests.test_solve_timeout import PUZZLE, RACE, ROOT, SLEEPER, race

DAEMONIZER = ROOT / "tests" / "outside_solvers" / "daemonizer.py"


def _gone(pids: list[int], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(process_alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _wait_for(path: Path, seconds: float = 30.0) -> int:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} was never written"
        time.sleep(0.02)
    return int(path.read_text())


def test_o1_a_daemon_of_a_cmd_entrant_is_killed_before_race_solve_returns(tmp_path):
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(PUZZLE)
    n, grids = grid_text.parse_one_line_many(PUZZLE)
    solved = BUILTIN.create("dlx").solve(Grid(n, grids[0]))
    answer = tmp_path / "answer.txt"
    answer.write_text(str(solved.solution))
    pidfile = tmp_path / "daemon.pid"
    spec = f"cmd:path={DAEMONIZER},args={{input}} {pidfile} {answer}"
    done, _ = race("solve", "-s", spec, str(puzzle))
    daemon = int(pidfile.read_text())
    try:
        assert done.returncode == 0, done.stderr
        assert not process_alive(daemon), "the daemon outlived race solve"
    finally:
        _kill([daemon])


def test_o1_the_daemons_of_parallel_members_are_killed_before_race_solve_returns(tmp_path):
    """Two members that each leave a daemon and never answer, stopped at race solve's limit:
    their daemons (adopted by the parallel entrant) are killed with them."""
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(PUZZLE)
    pids = [tmp_path / f"daemon{i}.pid" for i in range(2)]
    members = "+".join(f"cmd:path={DAEMONIZER}\\,args={{input}} {p}" for p in pids)
    done, _ = race("solve", "--timeout", "3", "-s", f"parallel:members={members}", str(puzzle))
    daemons = [int(p.read_text()) for p in pids if p.exists()]
    try:
        assert done.returncode == 3, done.stderr
        assert len(daemons) == 2, "the members did not start their daemons within 3 s"
        assert _gone(daemons, 1.0), "a member's daemon outlived race solve"
    finally:
        _kill(daemons)


def test_o2_after_kill_9_only_what_a_members_program_started_itself_survives(tmp_path):
    """The documented limit: ``kill -9`` of race solve kills the parallel members (parent-death
    signal) and their programs (the same), but a process the program itself started, which
    asks for nothing, outlives them (here: the sleeper's child)."""
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(PUZZLE)
    pidfile = tmp_path / "child.pid"
    members = f"cmd:path={SLEEPER}\\,args={{input}} {pidfile}+cmd:path={SLEEPER}"
    proc = subprocess.Popen([sys.executable, "-c", RACE, "solve", "-s",
                             f"parallel:members={members}", str(puzzle)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    child = None
    try:
        child = _wait_for(pidfile)
        program = int(open(f"/proc/{child}/stat").read().rsplit(")", 1)[1].split()[1])
        proc.kill()
        proc.wait(30)
        assert _gone([program]), "the member's program outlived the kill"
        assert process_alive(child), "the limit changed: update docs/solvers/plugins.md"
    finally:
        proc.kill()
        _kill([child] if child else [])
