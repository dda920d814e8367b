"""The local executor's limits, driven directly (no campaign around it)."""

from __future__ import annotations

import contextlib
import os
import sys
import time

import numpy as np
import pytest

from experiments.harness import executor
from experiments.harness.entrants import parse_entrants
from experiments.harness.executor import LocalExecutor
from experiments.harness.identity import CellKey
from experiments.harness.messages import Measurement, Request
from experiments.harness.schema import Status
from formats import grid_text
from formats.grid import Grid
from solvers.interface import RawAnswer, Solver
from tests.conftest import full_grid, process_alive, puzzle_from
from tests.fake_solvers import fake_registry


def key(name: str) -> CellKey:
    """A cell key named ``name``."""
    return ("test", "entrant", 2, name, 0)


def request(spec: str, n: int = 2, registry=None, name: str = "cell",
            cores: int = 1) -> tuple[dict, Request]:
    """The ``init`` request of ``spec`` (from ``registry``, default the fakes) and a cell's
    request on a half-blank n-puzzle."""
    (entrant,) = parse_entrants(spec, registry or fake_registry())
    rng = np.random.default_rng(n)
    text = grid_text.format_native(puzzle_from(full_grid(n, rng), 0.5, rng), {})
    return entrant.init_request(), Request(key(name), spec, f"p{n}.sudoku", text, cores)


def run_one(ex: LocalExecutor, spec: str, within: float = 60.0, registry=None) -> Measurement:
    """Submit one cell and poll until its outcome comes back."""
    init, cell = request(spec, registry=registry)
    ex.submit_batch(init, [cell])
    end = time.monotonic() + within
    while time.monotonic() < end:
        done = ex.poll(0.1)
        if done:
            ((got, outcome),) = done
            assert got == key("cell") and isinstance(outcome, Measurement)
            return outcome
    pytest.fail(f"no outcome for {spec} within {within} s")


def test_answer_after_the_limit_but_before_the_kill_is_a_timeout(monkeypatch):
    # the watchdog fires at limit + GRACE_S; a long grace makes the late answer arrive first
    monkeypatch.setattr(executor, "GRACE_S", 30.0)
    ex = LocalExecutor(1, timeout_s=0.3, min_time=0.0)
    try:
        late = run_one(ex, "slow:delay=0.6")
        assert late.status == Status.TIMEOUT
        assert late.message.startswith("finished in ") and \
            late.message.endswith(" s, over the 0.3 s limit")
        assert late.wall_s is None and late.verified is False
        assert late.cores == 1 and late.started_at and late.worker
        assert ex.free() == 1 and ex.warm_entrants() == {"slow:delay=0.6"}  # the worker is kept
    finally:
        ex.close()


def test_answer_within_the_limit_is_solved_and_the_worker_stays_warm():
    ex = LocalExecutor(1, timeout_s=30.0, min_time=0.0)
    try:
        first = run_one(ex, "slow:delay=0.01")
        assert first.status == Status.SOLVED and first.solution is not None
        assert first.iterations == 1 and first.message == ""
        pid = first.worker.split(":")[1]
        second = run_one(ex, "slow:delay=0.01")
        assert second.status == Status.SOLVED and second.worker.split(":")[1] == pid
    finally:
        ex.close()


def test_a_busy_worker_is_killed_at_the_deadline():
    ex = LocalExecutor(1, timeout_s=0.5)
    try:
        outcome = run_one(ex, "hang")
        assert outcome.status == Status.TIMEOUT
        assert outcome.message.startswith("killed after ") and outcome.message.endswith(
            " s (limit 0.5 s)")
        assert ex.free() == 1 and ex.warm_entrants() == set()       # the killed worker is gone
    finally:
        ex.close()


def test_entrant_that_cannot_start_reports_start_failed():
    ex = LocalExecutor(1, timeout_s=5.0)
    try:
        outcome = run_one(ex, "bad-warmup")
        assert outcome.status == Status.ERROR and outcome.start_failed is True
        assert outcome.message == ("entrant failed to start: RuntimeError: "
                                      "no engine in this worker")
        assert ex.warm_entrants() == set()
    finally:
        ex.close()


def test_jobs_below_one_is_a_user_error():
    from formats.errors import RaceError
    with pytest.raises(RaceError, match="--jobs must be >= 1, got 0"):
        LocalExecutor(0, timeout_s=1.0)


# -- The local executor's failure paths, exactly (survivors of the mutation pass) ------------------------------------------------------

class Exits(Solver):
    """Writes four lines to stderr, then exits with status 3 in the middle of a solve."""
    name = "exits"

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        sys.stderr.write("line 1\nline 2\nline 3\nline 4\n")
        sys.stderr.flush()
        os._exit(3)


class ExitsCleanly(Solver):
    """Writes one line that is not UTF-8 to stderr, then exits with status 0 mid-solve."""
    name = "exits-cleanly"

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        os.write(2, b"\xffonly line\n")
        os._exit(0)


class SlowWarmup(Solver):
    """Takes 30 s to warm up."""
    name = "slow-warmup"

    def warmup(self) -> None:
        time.sleep(30)

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        return RawAnswer(0)


REGISTRY = fake_registry().register("exits", f"{__name__}:Exits", {}) \
    .register("exits-cleanly", f"{__name__}:ExitsCleanly", {}) \
    .register("slow-warmup", f"{__name__}:SlowWarmup", {})


def run_registered(ex: LocalExecutor, spec: str, within: float = 60.0) -> Measurement:
    """:func:`run_one` with the solvers of :data:`REGISTRY` registered."""
    return run_one(ex, spec, within, registry=REGISTRY)


def test_a_worker_that_exits_is_an_error_with_its_last_three_stderr_lines():
    ex = LocalExecutor(1, timeout_s=30.0)
    try:
        outcome = run_registered(ex, "exits")
        assert outcome.status == Status.ERROR and not outcome.start_failed
        assert outcome.message == "crashed: worker died (exit status 3): line 2 | line 3 | line 4"
        assert outcome.cores == 1 and outcome.worker
        assert ex.free() == 1 and ex.warm_entrants() == set()
    finally:
        ex.close()


def test_a_worker_killed_by_a_signal_names_it():
    ex = LocalExecutor(1, timeout_s=30.0)
    try:
        outcome = run_registered(ex, "crash")
        assert outcome.status == Status.ERROR
        assert outcome.message == "crashed: worker died (killed by SIGSEGV)"     # nothing on stderr
    finally:
        ex.close()


def test_a_warm_up_past_its_limit_is_a_start_failure():
    ex = LocalExecutor(1, timeout_s=30.0, init_timeout_s=0.5)
    try:
        outcome = run_registered(ex, "slow-warmup")
        assert outcome.status == Status.ERROR and outcome.start_failed is True
        assert outcome.message == "entrant did not warm up within 0.5 s"
        assert ex.free() == 1 and ex.warm_entrants() == set()
    finally:
        ex.close()


def test_a_killed_busy_worker_reports_its_memory_and_the_time_it_had():
    ex = LocalExecutor(1, timeout_s=0.5)
    try:
        outcome = run_registered(ex, "hang")
        assert outcome.status == Status.TIMEOUT
        assert isinstance(outcome.peak_rss_mb, float) and outcome.peak_rss_mb > 1.0
        words = outcome.message.split()           # "killed after 0.75 s (limit 0.5 s)"
        assert words[:2] == ["killed", "after"] and 0.5 <= float(words[2]) < 30.0
    finally:
        ex.close()


def test_a_worker_over_its_memory_limit_is_killed_with_a_message():
    ex = LocalExecutor(1, timeout_s=30.0, memory_mb=150)
    try:
        outcome = run_registered(ex, "hog:mb=400")
        assert outcome.status == Status.MEMOUT and outcome.peak_rss_mb > 150
        words = outcome.message.split()          # "killed at 160 MB after 0.42 s (limit 150 MB)", MB rounded
        assert words[:2] == ["killed", "at"] and int(words[2]) >= 150 and words[3:5] == ["MB", "after"]
        assert 0.0 < float(words[5]) < 30.0 and words[6:] == ["s", "(limit", "150", "MB)"]
        assert ex.free() == 1 and ex.warm_entrants() == set()         # the worker is gone
    finally:
        ex.close()


def test_children_and_tree_memory_include_a_child_process():
    import subprocess

    from solvers.processes import tree as process_tree
    child = subprocess.Popen([sys.executable, "-c", "import sys, time; b = bytearray(60 << 20); "
                              "print('ready', flush=True); time.sleep(30)"], stdout=subprocess.PIPE)
    try:
        assert child.stdout.readline() == b"ready\n"          # allocated; now it only sleeps
        time.sleep(0.2)
        assert child.pid in process_tree.descendants(os.getpid())
        page_kb = os.sysconf("SC_PAGE_SIZE") // 1024

        def own_mb(pid: int) -> float:
            with open(f"/proc/{pid}/statm") as f:
                return int(f.read().split()[1]) * page_kb / 1024.0

        # a sleeping child with no children of its own: exactly its resident pages (read
        # between two direct readings, in case the kernel still settles a page)
        before = own_mb(child.pid)
        tree = process_tree.tree_rss_mb(child.pid)
        after = own_mb(child.pid)
        assert min(before, after) <= tree <= max(before, after) and tree >= 60
        # this process's tree counts it and the child (and any other child) together
        assert process_tree.tree_rss_mb(os.getpid()) >= own_mb(os.getpid()) + own_mb(child.pid) - 5
    finally:
        child.kill()
        child.wait()


def test_tree_memory_of_a_process_that_is_gone_is_zero():
    import subprocess

    from solvers.processes import tree as process_tree
    gone = subprocess.Popen(["true"])
    gone.wait()                                   # reaped: its pid names no process now
    assert process_tree.tree_rss_mb(gone.pid) == 0.0 and process_tree.descendants(gone.pid) == []


@pytest.mark.parametrize("when", ["children", "memory"])
def test_a_process_that_ends_between_two_readings_does_not_stop_the_poller(monkeypatch, when):
    """The tree is read in steps (the processes, then each one's memory): a process that ends
    in between is left out (its memory reads 0), never an error."""
    import subprocess

    from solvers.processes import tree as process_tree
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        time.sleep(0.2)
        if when == "children":              # named as a child, gone before it is read
            gone = subprocess.Popen(["true"])
            gone.wait()
            monkeypatch.setattr(process_tree, "children",
                                lambda pid: [child.pid, gone.pid] if pid == os.getpid() else [])
            alone = process_tree.rss_mb(os.getpid()) + process_tree.rss_mb(child.pid)
            assert process_tree.tree(os.getpid()) == [os.getpid(), child.pid, gone.pid]
            assert abs(process_tree.tree_rss_mb(os.getpid()) - alone) < 5
        else:                               # the child ends after the tree was read
            memory = process_tree.TreeMemory(os.getpid(), whole_tree=True)
            own, below = memory.split()
            assert child.pid in memory.members and below >= process_tree.rss_mb(child.pid) - 1
            child.kill()
            child.wait()
            assert memory.split()[1] < below    # read within TREE_REFRESH_S: its memory is 0
            memory.close()
    finally:
        child.kill()
        child.wait()


class CountsCalls(Solver):
    """Answers at once (no solution found, nothing compiled) and reports, as ``nodes``, how
    many searches this process has run."""
    name = "counts-calls"
    calls = 0

    def warmup(self) -> None:
        pass

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        type(self).calls += 1
        return RawAnswer(0, counters={"nodes": type(self).calls})


REGISTRY = REGISTRY.register("counts-calls", f"{__name__}:CountsCalls", {})


def test_the_worker_gets_the_limit_and_warms_each_size_once():
    # the limit travels with the request: well inside it (30 s / 10 > the solve) the first
    # cell of a size gets one unmeasured warm-up solve, later cells of that size none
    ex = LocalExecutor(1, timeout_s=30.0, min_time=0.0)
    try:
        first, second = run_registered(ex, "counts-calls"), run_registered(ex, "counts-calls")
        assert (first.counters["nodes"], first.iterations) == (2, 1)
        assert (second.counters["nodes"], second.iterations) == (3, 1)
    finally:
        ex.close()


def test_worker_path_keeps_existing_directories_once(monkeypatch, tmp_path):
    from experiments.harness import worker_process
    monkeypatch.setattr(sys, "path", ["", str(tmp_path / "missing"), str(tmp_path), str(tmp_path)])
    assert worker_process.worker_env()["PYTHONPATH"] == str(tmp_path)


class ShowsEnv(Solver):
    """Fails with a message naming its temp directory and the marker variable it inherited."""
    name = "shows-env"

    def warmup(self) -> None:
        pass

    def search(self, grid: Grid, limit, keep) -> RawAnswer:
        import tempfile
        raise RuntimeError(f"{os.environ.get('RACE_MUTANT_MARK')} {tempfile.gettempdir()}")


REGISTRY = REGISTRY.register("shows-env", f"{__name__}:ShowsEnv", {})


def test_a_worker_inherits_the_environment_with_a_temp_dir_of_its_own(monkeypatch):
    import tempfile
    monkeypatch.setenv("RACE_MUTANT_MARK", "inherited")
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)
    from experiments.harness import worker_process
    assert worker_process.worker_env()["PYTHONUNBUFFERED"] == "1"
    ex = LocalExecutor(1, timeout_s=30.0)
    try:
        outcome = run_registered(ex, "shows-env")
        assert outcome.status == Status.ERROR
        mark, tmp = outcome.message.split("RuntimeError: ", 1)[1].split()
        assert mark == "inherited" and tmp != tempfile.gettempdir() and os.path.isdir(tmp)
    finally:
        ex.close()
    assert not os.path.exists(tmp)                  # removed with its worker


def test_a_worker_process_started_on_its_own_gets_the_default_environment():
    import select

    from experiments.harness.worker_process import WorkerProcess
    (entrant,) = parse_entrants("counts-calls", REGISTRY)
    worker = WorkerProcess(entrant.init_request())          # env None: worker_env()
    try:
        readable, _, _ = select.select([worker], [], [], 60.0)
        assert readable == [worker]
        (reply,) = worker.receive()
        assert reply["op"] == "ready" and reply["solver"] == "counts-calls"
    finally:
        worker.stop()
    assert worker.proc.returncode is not None and not os.path.exists(worker.tmpdir)


def test_a_worker_that_exits_cleanly_mid_solve_is_still_an_error():
    ex = LocalExecutor(1, timeout_s=30.0)
    try:
        outcome = run_registered(ex, "exits-cleanly")
        assert outcome.status == Status.ERROR
        # the whole of stderr's only line, the byte that is not UTF-8 replaced
        assert outcome.message == "crashed: worker died (exit status 0): \ufffdonly line"
    finally:
        ex.close()


_ORPHAN_PARENT = """
import select, sys, time
from experiments.harness.worker_process import WorkerProcess
from tests.test_executor import request
init, cell = request("hang")
worker = (WorkerProcess(init) if sys.argv[1] == "default"
          else WorkerProcess(init, die_with_parent=False))
readable, _, _ = select.select([worker], [], [], 60.0)
assert readable == [worker] and worker.receive()[0]["op"] == "ready"
worker.send({"op": "solve", "wire": 1, "cells": [[0, cell.instance, cell.text]],
             "timeout": 300.0})                                  # busy: it no longer reads stdin
time.sleep(0.5)
print(worker.pid, worker.tmpdir, flush=True)
time.sleep(300)
"""


def _orphan_a_worker(mode: str) -> tuple[int, str, bool]:
    """Start a parent that starts a worker (``mode`` "default" or "detached"), SIGKILL
    the parent, and report (worker pid, its temp dir, whether it still ran 10 s later
    for "default" / 1 s later for "detached")."""
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parent = subprocess.Popen([sys.executable, "-c", _ORPHAN_PARENT, mode], cwd=root,
                              stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None               # stdout=PIPE
    try:
        pid_text, tmpdir = parent.stdout.readline().split()
    finally:
        parent.kill()
        parent.wait()
        parent.stdout.close()
    pid = int(pid_text)
    deadline = time.monotonic() + (10.0 if mode == "default" else 1.0)
    while process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return pid, tmpdir, process_alive(pid)


def test_a_worker_dies_with_its_parent():
    """A killed harness leaves no worker behind (PR_SET_PDEATHSIG is the default); the
    same worker started with die_with_parent=False outlives it, so the check can fail."""
    import shutil
    import signal
    pid, tmpdir, alive = _orphan_a_worker("default")
    shutil.rmtree(tmpdir, ignore_errors=True)        # its parent died before it could clean up
    assert not alive
    pid, tmpdir, alive = _orphan_a_worker("detached")
    try:
        assert alive
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        shutil.rmtree(tmpdir, ignore_errors=True)


def test_the_tree_memory_of_a_worker_counts_a_new_cells_processes_and_drops_ended_ones():
    """The poller reads which processes form the tree at the first poll of a cell (reset) and
    every TREE_REFRESH_S, their memory at every poll: a child the cell starts counts from the
    first poll, one that ends stops counting at the next, without an error."""
    import subprocess

    from solvers.processes.tree import TreeMemory
    memory = TreeMemory(os.getpid(), whole_tree=True)
    alone = memory.rss_mb()
    child = subprocess.Popen([sys.executable, "-c", "import sys, time; b = bytearray(80 << 20); "
                              "print('ready', flush=True); time.sleep(30)"], stdout=subprocess.PIPE)
    try:
        assert child.stdout.readline() == b"ready\n"
        memory.reset()                                  # a new cell
        assert memory.rss_mb() >= alone + 70
        assert child.pid in memory.members
    finally:
        child.kill()
        child.wait()
    assert memory.rss_mb() < alone + 70                 # gone before the tree is read again
    gone = memory.members.get(child.pid)
    assert memory.rss_mb() < alone + 70 and (gone is None or gone.mb() == 0.0)


def test_a_workers_replies_decode_in_one_pass_and_what_orjson_refuses_as_json_reads_it():
    """Replies come in whole lines, decoded together (orjson); a line orjson refuses (a NaN
    time, an integer beyond 64 bits) is read by json, as before; a part line waits."""
    import math

    from experiments.harness.worker_process import WorkerProcess
    read_end, write_end = os.pipe()
    worker = WorkerProcess.__new__(WorkerProcess)
    worker._buf = b""
    worker.fileno = lambda: read_end                # type: ignore[method-assign]
    try:
        os.write(write_end, b'["result", 0, "solved", 1.5e-05]\n{"op": "ready"}\n["res')
        assert worker.receive() == [["result", 0, "solved", 1.5e-05], {"op": "ready"}]
        os.write(write_end, b'ult", 1, NaN, 123456789012345678901234567890]\n')
        (reply,) = worker.receive()
        assert reply[:2] == ["result", 1] and math.isnan(reply[2])
        assert reply[3] == 123456789012345678901234567890
    finally:
        os.close(read_end)
        os.close(write_end)
