"""Faults of the harness itself: the worker zygote killed under a campaign, a solver's child
process and its memory, a plugin's exit handlers in a forked worker, the generators' processes
when the race is killed, and what the parent reads of the machine per cell."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil

from experiments.harness import records, runs_table
from solvers.interface import Solver
from tests.test_harness import write_instances
from tests.test_records_faults import race, start, wait_rows


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
    assert len(runs_table.read_rows(runs)) == 24


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
        assert first.status == "solved"
        assert ex._zygote is not None                 # the worker was forked
        worker = int(first.worker.rsplit(":", 1)[1])
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


def test_a_sleeping_cell_is_killed_within_a_quarter_second_of_its_limit_under_load(tmp_path):
    """With the parent busy (one worker answering batches of fast cells as quickly as it can),
    a cell that sleeps on the other worker is killed at most 0.25 s past its limit, counted
    from when its search really began."""
    from experiments.harness.executor import LocalExecutor
    from experiments.harness.schema import Status
    from tests.test_executor import key as key_of
    from tests.test_executor import request, run_one
    marks = tmp_path / "marks"
    marks.mkdir()
    limit = 1.0
    ex = LocalExecutor(2, timeout_s=limit, min_time=0.0, cpus=[0, 1 % os.cpu_count()],
                       keep_warm=2)
    init, fast = request("dlx")
    sleeper = f"slow:delay=30,marks={marks}"
    try:
        run_one(ex, "dlx")                              # both workers warm
        ex.submit_batch(init, [request("dlx", name="warm")[1]])
        while ex.free() < 2:
            ex.poll(0.1)
        sleep_init, sleep_cell = request(sleeper, name="sleeper")
        ex.submit_batch(sleep_init, [sleep_cell])
        ended = None
        busy = 0
        while ended is None:
            if ex.free():
                ex.submit_batch(init, [dataclasses.replace(fast, key=("fast", "dlx", busy, "p", k))
                                       for k in range(200)])
                busy += 1
            for key, outcome in ex.poll(0.5):
                if key == key_of("sleeper"):
                    ended = time.monotonic_ns(), outcome
        (mark,) = list(marks.iterdir())
        began = int(mark.name.rsplit("-", 1)[1])
        late = (ended[0] - began) / 1e9 - limit
        assert ended[1].status == Status.TIMEOUT
        assert busy >= 2, "the parent was not kept busy"
        assert late <= 0.25, f"killed {late:.3f} s past the limit"
    finally:
        ex.close()


def test_the_parent_reads_no_other_process_of_the_machine_per_cell(tmp_path):
    """A race of 200 cells reads ``/proc/PID/stat`` of a process outside its own tree only for
    the machine's load before and after the campaign (a few times per process: 7 to 9 here),
    never per cell: what the parent reads per cell does not grow with the machine's
    processes."""
    write_instances(tmp_path, 2, 100)
    strangers = [subprocess.Popen(["sleep", "600"]) for _ in range(20)]
    code = f"""
import builtins, collections, io, os, re, sys
opened = collections.Counter()
real_open, real_os_open = builtins.open, os.open
def spy(path, *a, **k):
    opened[str(path)] += 1
    return real_open(path, *a, **k)
def spy_os(path, *a, **k):
    opened[str(path)] += 1
    return real_os_open(path, *a, **k)
builtins.open, io.open, os.open = spy, spy, spy_os
from tests.fake_solvers import fake_registry
from experiments.cli.main import main
sys.argv = ['race', 'run', '--no-report', '--out', {str(tmp_path)!r}, '--kind', 'unique', '--n', '2',
            '--solvers', 'dlx', '--instances', '100', '--repeats', '2', '--jobs', '2',
            '--campaign', 'scan', '--quiet']
try:
    main(obj={{'registry': fake_registry()}})
except SystemExit:
    pass
print('STATS', {{int(p.split('/')[2]): k for p, k in opened.items()
                if re.fullmatch(r'/proc/[0-9]+/stat', p)}})
"""
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parents[1], timeout=300)
    finally:
        for stranger in strangers:
            stranger.kill()
            stranger.wait()
    assert len(runs_table.read_rows(tmp_path / "scan" / "runs.csv")) == 200, proc.stderr[-2000:]
    line = next((x for x in proc.stdout.splitlines() if x.startswith("STATS ")), "")
    assert line, proc.stdout[-2000:] + proc.stderr[-3000:]
    reads = eval(line.split(" ", 1)[1])                 # {pid: opens of its /proc/PID/stat}
    for stranger in strangers:                          # a scan per cell would be >= 200
        assert reads.get(stranger.pid, 0) <= 20, \
            f"/proc/{stranger.pid}/stat read {reads[stranger.pid]} times in a race of 200 cells"


def test_Z3_a_cells_memory_is_its_solvers_processes_not_the_worker_twice(tmp_path):
    """A ``cmd:`` program that holds 250 MB, under ``--memory 320``: the worker (about 80 MB)
    waits for it and holds no part of its search, so the cell is solved and its peak is the
    program's, not the program's plus the worker's (which would be over the limit)."""
    program = tmp_path / "hog250.py"
    solver = Path(__file__).resolve().parent / "outside_solvers" / "backtrack_solver.py"
    program.write_text("#!/usr/bin/env python3\nimport runpy\n"
                       "hog = b'x' * (250 << 20)\n"
                       f"runpy.run_path({str(solver)!r}, run_name='__main__')\n")
    program.chmod(0o755)
    write_instances(tmp_path, 2, 2)
    r = race(["run", "--no-report", "--out", str(tmp_path), "--kind", "unique", "--n", "2",
              "--solvers", f"cmd:path={program}", "--instances", "2", "--jobs", "1",
              "--timeout", "30", "--memory", "320", "--campaign", "hog"])
    rows = runs_table.read_rows(tmp_path / "hog" / "runs.csv")
    assert r.exit_code == 0, r.output
    assert [row["status"] for row in rows] == ["solved", "solved"], [row["message"] for row in rows]
    for row in rows:                        # the program's own peak, each time it ran
        assert 250 <= float(row["peak_rss_mb"]) < 320, row["peak_rss_mb"]
