"""Workers forked from a warm zygote: the same processes as fresh ones, seen from the harness."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

from experiments.harness import executor as executor_module
from experiments.harness import worker_zygote
from experiments.harness.executor import LocalExecutor
from experiments.harness.messages import Measurement
from experiments.harness.schema import Status
from experiments.harness.worker_process import WorkerProcess, worker_env
from tests.conftest import process_alive
from tests.test_executor import request, run_one

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def worker_pid(outcome: Measurement) -> int:
    return int(outcome.worker.rsplit(":", 1)[1])


def test_the_executor_forks_each_worker_from_its_zygote_and_leaves_it_to_the_next():
    worker_zygote.end_left()
    ex = LocalExecutor(2, timeout_s=0.5, min_time=0.0, cpus=[0, 0])
    try:
        first = run_one(ex, "dlx")
        assert first.status == Status.SOLVED and first.solution is not None
        zygote = ex._zygote
        assert zygote is not None and zygote.alive()
        pid = worker_pid(first)
        assert parent_of(pid) == zygote.proc.pid != os.getpid()
        assert os.getsid(pid) == pid                    # a session of its own: killpg takes it
        assert os.sched_getaffinity(pid) == {0}         # pinned to its slot's CPU
        late = run_one(ex, "hang")                      # killed at its limit ...
        assert late.status == Status.TIMEOUT and not process_alive(worker_pid(late))
        again = run_one(ex, "hang")                     # ... and the next worker is forked too
        assert again.status == Status.TIMEOUT
        assert worker_pid(again) != worker_pid(late)
        assert ex._zygote is zygote
    finally:
        ex.close()
    assert not process_alive(pid)                       # its workers end with the executor
    assert zygote.alive()                               # the zygote waits for the next one
    following = LocalExecutor(1, timeout_s=30.0, min_time=0.0)
    try:
        outcome = run_one(following, "dlx")
        assert outcome.status == Status.SOLVED and following._zygote is zygote
        assert parent_of(worker_pid(outcome)) == zygote.proc.pid
    finally:
        following.close()
    worker_zygote.end_left()
    assert zygote.proc.returncode is not None and not zygote.alive()


def test_a_zygote_left_unused_ends_itself_and_is_never_taken_across_threads():
    import threading
    worker_zygote.end_left()
    idle = worker_zygote.Zygote(worker_env(), idle_s=0.3)
    assert idle.proc.wait(timeout=30) == 0              # no worker, no request: it ends
    assert not idle.alive()
    zygote = worker_zygote.take(worker_env())
    worker_zygote.leave(zygote)
    taken: list = []
    other = threading.Thread(target=lambda: taken.append(worker_zygote.take(worker_env())))
    other.start()
    other.join()
    try:
        assert taken[0] is not zygote                   # another thread starts its own
        assert worker_zygote.take(worker_env()) is zygote
    finally:
        zygote.close()
        taken[0].close()
    worker_zygote.leave(taken[0])                       # ended: not left for anyone
    assert worker_zygote._LEFT == {}


def test_a_forked_worker_works_in_the_parents_directory_of_the_moment(tmp_path, monkeypatch):
    """A zygote started in one directory and reused after the parent moved on forks each
    worker where the parent is then (a relative ``cmd:path=./prog`` means the same to both),
    with the parent's umask of then."""
    (tmp_path / "first").mkdir()
    (tmp_path / "then").mkdir()
    monkeypatch.chdir(tmp_path / "first")
    zygote = worker_zygote.Zygote(worker_env())
    mask = os.umask(0o027)
    try:
        monkeypatch.chdir(tmp_path / "then")
        worker = WorkerProcess(request("hang")[0], zygote=zygote)
        assert isinstance(worker.proc, worker_zygote.ForkedWorker)
        assert select.select([worker], [], [], 60.0)[0] == [worker]
        assert worker.receive()[0]["op"] == "ready"
        assert os.readlink(f"/proc/{worker.pid}/cwd") == str(tmp_path / "then")
        assert os.readlink(f"/proc/{zygote.proc.pid}/cwd") == str(tmp_path / "first")
        assert umask_of(worker.pid) == 0o027 != umask_of(zygote.proc.pid)
        os.kill(worker.pid, signal.SIGKILL)
        assert worker.receive() is None
    finally:
        os.umask(mask)
        zygote.close()


def umask_of(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1], 8) for line in f if line.startswith("Umask:"))


def test_a_forked_workers_end_reaches_the_parent_as_popens_would():
    from tests.test_executor import REGISTRY
    zygote = worker_zygote.Zygote(worker_env())
    try:
        worker = WorkerProcess(request("hang")[0], zygote=zygote)
        assert isinstance(worker.proc, worker_zygote.ForkedWorker)
        assert select.select([worker], [], [], 60.0)[0] == [worker]
        assert worker.receive()[0]["op"] == "ready"
        assert worker.proc.poll() is None
        os.kill(worker.pid, signal.SIGKILL)
        assert worker.receive() is None                 # EOF
        assert worker.death() == "worker died (killed by SIGKILL)"
        assert worker.proc.returncode == -signal.SIGKILL
        worker.kill()
        init, cell = request("exits-cleanly", registry=REGISTRY)
        exits = WorkerProcess(init, zygote=zygote)
        assert select.select([exits], [], [], 60.0)[0] == [exits]
        assert exits.receive()[0]["op"] == "ready"
        exits.send({"op": "solve", "wire": 1, "cells": [[0, cell.instance, cell.text]],
                    "timeout": 30.0})
        while (replies := exits.receive()) is not None:
            assert replies == []
        assert exits.death().startswith("worker died (exit status 0)")
        exits.kill()
    finally:
        zygote.close()


def test_without_a_zygote_or_when_it_cannot_start_workers_are_fresh_interpreters(monkeypatch):
    def cannot_start(*args, **kwargs):
        raise OSError("the worker zygote did not start")

    for wanted in (False, True):
        if wanted:
            monkeypatch.setattr(executor_module.worker_zygote, "take", cannot_start)
        ex = LocalExecutor(1, timeout_s=30.0, min_time=0.0, zygote=wanted)
        try:
            outcome = run_one(ex, "dlx")
            assert outcome.status == Status.SOLVED and ex._zygote is None
            assert parent_of(worker_pid(outcome)) == os.getpid()
        finally:
            ex.close()


def test_a_worker_of_another_environment_is_not_forked():
    zygote = worker_zygote.Zygote(worker_env())
    try:
        other = dict(worker_env(), RACE_OTHER_MARK="1")
        worker = WorkerProcess(request("dlx")[0], env=other, zygote=zygote)
        assert isinstance(worker.proc, subprocess.Popen)
        worker.stop()
        same = WorkerProcess(request("dlx")[0], env=dict(worker_env(), TMPDIR="/x"),
                             zygote=zygote)
        assert isinstance(same.proc, worker_zygote.ForkedWorker)   # TMPDIR is its own
        same.stop()
        assert same.proc.returncode is not None
    finally:
        zygote.close()


_PARENT = """
import sys, time
from experiments.harness.executor import LocalExecutor
from tests.test_executor import request
ex = LocalExecutor(1, timeout_s=300.0)
ex.submit_batch(request("hang")[0], [request("hang")[1]])
while ex.slots[0].phase != "solve":
    ex.poll(0.1)
time.sleep(0.5)
print(ex.slots[0].worker.pid, ex._zygote.proc.pid, flush=True)
time.sleep(300)
"""


def test_when_the_harness_is_killed_its_zygote_and_forked_workers_die_with_it():
    parent = subprocess.Popen([sys.executable, "-c", _PARENT], cwd=ROOT, stdout=subprocess.PIPE,
                              text=True)
    try:
        worker, zygote = map(int, parent.stdout.readline().split())
    finally:
        parent.kill()
        parent.wait()
        parent.stdout.close()
    deadline = time.monotonic() + 10.0
    while (process_alive(worker) or process_alive(zygote)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(worker) and not process_alive(zygote)
