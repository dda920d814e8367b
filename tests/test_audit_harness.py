"""Faults of the harness itself: the worker zygote killed under a campaign, a solver's child
process and its memory, a plugin's exit handlers in a forked worker, the generators' processes
when the race is killed, and what the parent reads of the machine per cell."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import psutil

from experiments.harness import records
from solvers.interface import Solver
from tests.test_records_faults import start, wait_rows
from tests.test_harness import write_instances


def zygote_of(pid: int) -> psutil.Process:
    """The worker zygote started by the race ``pid``."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for child in psutil.Process(pid).children():
            try:
                if "experiments.harness.worker_zygote" in " ".join(child.cmdline()):
                    return child
            except psutil.Error:
                continue
        time.sleep(0.05)
    raise AssertionError("no worker zygote started")


def zygote_killed_run(tmp_path: Path) -> tuple[subprocess.Popen, str, str, Path]:
    for n in (2, 3):
        write_instances(tmp_path, n, 6)
    args = ["run", "--no-report", "--out", str(tmp_path), "--kind", "unique", "--n", "2..3",
            "--solvers", "slow:delay=0.15", "--instances", "6", "--repeats", "2", "--jobs", "2",
            "--timeout", "10", "--campaign", "zygote"]
    runs = tmp_path / "zygote" / "runs.csv"
    proc = start(args)
    wait_rows(runs, 3, proc)
    zygote_of(proc.pid).kill()                  # kill -9 in the middle of the campaign
    out, err = proc.communicate(timeout=120)
    return proc, out, err, runs


def test_Z1_a_killed_zygote_ends_no_race_in_a_traceback(tmp_path):
    proc, out, err, runs = zygote_killed_run(tmp_path)
    assert "Traceback" not in err and "ValueError" not in err, err
    assert proc.returncode == 0, err
    assert len(records.read_rows(runs)) == 24


def test_Z2_cells_in_flight_when_the_zygote_dies_are_run_again_not_the_entrants_error(tmp_path):
    proc, out, err, runs = zygote_killed_run(tmp_path)
    assert proc.returncode == 0, err
    found = records.scan(runs)
    assert not found.damaged
    keys = [records.cell_key(row) for row in found.rows]
    assert len(keys) == len(set(keys)) == 24
    assert {row["status"] for row in found.rows} == {"solved"}, \
        [row["message"] for row in found.rows if row["status"] != "solved"]


class ExitHandler(Solver):
    """Backtracking whose warm-up registers an exit handler that appends a line to the file
    ``path`` (a plugin that flushes its state when its process ends)."""
    name = "exit-handler"
    parameters = {"path": ("", None)}

    def warmup(self) -> None:
        import atexit
        path = str(self.params["path"])
        atexit.register(lambda: open(path, "a").write(f"{os.getpid()}\n"))

    def search(self, grid, limit, keep):
        from solvers.backtracking import Backtracking
        return Backtracking().search(grid, limit, keep)


def test_Z4_a_plugins_exit_handlers_run_once_per_forked_worker(tmp_path):
    from experiments.harness.executor import LocalExecutor
    from tests.fake_solvers import fake_registry
    from tests.test_executor import run_one
    registry = fake_registry().register("exit-handler", f"{__name__}:ExitHandler", {})
    marks = tmp_path / "exits.txt"
    spec = f"exit-handler:path={marks}"
    ex = LocalExecutor(2, timeout_s=30.0, min_time=0.0, cpus=[0, 0], keep_warm=1)
    try:
        first = run_one(ex, spec, registry=registry)
        assert first["status"] == "solved"
        assert ex._zygote is not None                 # the worker was forked
        worker = int(first["worker"].rsplit(":", 1)[1])
    finally:
        ex.close()                                    # the worker ends as a fresh one would
    assert marks.read_text().split() == [str(worker)]


def test_G1_the_processes_making_a_large_set_die_with_a_killed_race(tmp_path):
    """kill -9 of ``race run`` while ``-j 2`` forked processes make its n = 5 puzzles: they die
    with it (and a half-made file is never kept: puzzle files are written whole or not at all)."""
    args = ["run", "--no-report", "--out", str(tmp_path), "--kind", "unique", "--n", "5",
            "--solvers", "dlx", "--instances", "6", "--jobs", "2", "--campaign", "big"]
    proc = start(args)
    makers: list[psutil.Process] = []
    deadline = time.monotonic() + 60
    while len(makers) < 2 and time.monotonic() < deadline:
        makers = [p for p in psutil.Process(proc.pid).children()
                  if "worker_zygote" not in " ".join(p.cmdline())]
        time.sleep(0.05)
    assert len(makers) >= 2, "no processes making the set"
    proc.kill()
    proc.communicate(timeout=30)
    gone, alive = psutil.wait_procs(makers, timeout=10)
    assert not alive, f"{len(alive)} set-making processes outlived the race"
