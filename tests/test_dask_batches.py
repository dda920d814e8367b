"""The dask executor's batches: several cells per task, and still every cell comes back exactly
once, with its own fault (timeout, crash, wrong answer, an entrant that cannot start, a task the
cluster lost) as the local executor records it."""

from __future__ import annotations

from collections import Counter

import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from experiments.harness import dask_executor, runs_table
from experiments.harness.messages import Measurement, Request
from experiments.harness.synthetic_campaign import write_instances
from solvers.status import Status
from tests.fake_solvers import fake_registry

distributed = pytest.importorskip("distributed")

#: the batch size the tests force (the adaptive size starts at one cell)
BATCH = 4


def _spy_on_executors(monkeypatch) -> list[dask_executor.DaskExecutor]:
    """Every DaskExecutor made from now on, built with batches of :data:`BATCH` cells."""
    made: list[dask_executor.DaskExecutor] = []
    original = dask_executor.DaskExecutor.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **{**kwargs, "batch": BATCH})
        made.append(self)
    monkeypatch.setattr(dask_executor.DaskExecutor, "__init__", init)
    return made


def test_batched_cells_come_back_once_each_with_their_faults(tmp_path, monkeypatch):
    monkeypatch.setenv(dask_executor.SLOTS_ENV, str(tmp_path / "slots"))
    made = _spy_on_executors(monkeypatch)
    instances = tmp_path / "set"
    names, _, _ = write_instances(instances, 6)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                  dashboard_address=None) as cluster:
        result = CliRunner().invoke(
            main, ["run", "--no-report", "--out", str(tmp_path / "out"), "--instances", str(instances),
                   "--solvers", "backtracking,wrong,crash,hang,bad-warmup", "--n", "3", "--timeout", "1",
                   "--campaign", "c", "--executor", "dask", "--scheduler", cluster.scheduler_address],
            obj={"registry": fake_registry()})
    assert result.exit_code == 1, result.output          # bad-warmup's cells are not recorded
    (executor,) = made
    assert executor.sent < executor.sent_cells           # the cells really went out in batches
    rows = runs_table.read_rows(tmp_path / "out" / "c" / "runs.csv")
    # each cell once: no batch lost a cell or ran one twice into the records
    cells = Counter((r["entrant"], r["instance"], r["repeat"]) for r in rows)
    assert set(cells.values()) == {1}
    assert set(cells) == {(e, name, "0") for e in ("backtracking", "wrong", "crash", "hang") for name in names}
    status = {e: Counter(r["status"] for r in rows if r["entrant"] == e)
              for e in ("backtracking", "wrong", "crash", "hang")}
    assert status == {"backtracking": {"solved": 6}, "wrong": {"wrong": 6}, "crash": {"error": 6},
                      "hang": {"timeout": 6}}
    assert all("SIGSEGV" in r["message"] for r in rows if r["entrant"] == "crash")
    assert all(float(r["wall_s"]) == 1.0 for r in rows if r["entrant"] == "hang")
    # a killed cell's neighbours in its batch ran in a fresh worker, measured on their own
    solved = [r for r in rows if r["status"] == "solved"]
    assert all(float(r["wall_s"]) < 1.0 and r["verified"] == "True" for r in solved)
    (warning,) = [line for line in result.output.splitlines() if "did not start" in line]
    assert "no engine in this worker" in warning and "its 6 cell(s) are not recorded" in warning


def _fake_batch(cells, timeout_s, memory_mb, min_time, pin=False, keep_warm=1):
    """A batch that fails as a lost dask task when it holds the cell ``"lost"``."""
    if any(request.key[3] == "lost" for _, request in cells):
        raise RuntimeError("worker gone")
    return ([(request.key, Measurement(Status.SOLVED, worker="w:1", cpus=[0])) for _, request in cells],
            [0.001] * len(cells))


def test_a_lost_task_ends_each_of_its_cells_as_an_error_and_no_other(monkeypatch):
    monkeypatch.setattr(dask_executor, "run_batch", _fake_batch)
    keys = [f"cell{i}" for i in range(10)] + ["lost"] + [f"cell{i}" for i in range(10, 14)]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        executor = dask_executor.DaskExecutor(client, None, 1.0, batch=BATCH)
        pending, back = list(keys), []
        while pending or executor.tasks or executor.waiting:
            while pending and executor.free() > 0:
                executor.submit_batch({}, [Request(("f", "x", 2, pending.pop(0), 0), "x", "i", "")])
            back.extend(executor.poll(0.5))
        executor.close()
    assert executor.sent < executor.sent_cells
    assert sorted(key[3] for key, _ in back) == sorted(keys)            # each once
    lost = {key[3] for key, outcome in back if outcome.status == "error"}
    # the batch of "lost": its BATCH cells in submission order, all errors, the others solved
    start = keys.index("lost") // BATCH * BATCH
    assert lost == set(keys[start:start + BATCH])
    assert all("dask task failed: RuntimeError: worker gone" in o.message
               for key, o in back if key[3] in lost)
    assert executor.held == 0 and executor.worker_cpus == {"w:1": [0]}


#: the n of each cell of the batches :func:`_timed_batch` ran, batch by batch
_BATCHES: list[list[int]] = []


def _timed_batch(cells, timeout_s, memory_mb, min_time, pin=False, keep_warm=1):
    """A batch whose cells at n = 3 take 2 ms each, the others 1 s (recorded in _BATCHES)."""
    _BATCHES.append([request.key[2] for _, request in cells])
    return ([(request.key, Measurement(Status.SOLVED)) for _, request in cells],
            [0.002 if request.key[2] == 3 else 1.0 for _, request in cells])


def test_batches_fill_to_a_quarter_second_of_measured_cells_and_an_unmeasured_group_goes_alone(monkeypatch):
    monkeypatch.setattr(dask_executor, "run_batch", _timed_batch)
    _BATCHES.clear()
    batches = _BATCHES

    def run(executor, cells):
        pending, back = list(cells), []
        while pending or executor.tasks or executor.waiting:
            while pending and executor.free() > 0:
                key, n = pending.pop(0)
                executor.submit_batch({}, [Request(("f", "x", n, key, 0), "x", "i", "", 1, ("f", "x", n))])
            back.extend(executor.poll(0.5))
        return back

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        executor = dask_executor.DaskExecutor(client, None, 10.0)
        first = run(executor, [("probe", 3)])
        cells = [(f"easy{i}", 3) for i in range(70)] + [(f"hard{i}", 4) for i in range(3)]
        back = run(executor, cells)
        executor.close()
    assert [key[3] for key, _ in first] == ["probe"] and batches[0] == [3]   # nothing known: alone
    assert sorted(key[3] for key, _ in back) == sorted(key for key, _ in cells)
    # 2 ms cells: full batches of MAX_BATCH (64 ms of work, under the quarter second)
    assert max(len(b) for b in batches) == dask_executor.MAX_BATCH
    # the n = 4 cells, never measured when sent, and then 1 s each: never two in one batch
    assert all(b.count(4) <= 1 for b in batches) and sum(b.count(4) for b in batches) == 3
    assert executor.group_s[("f", "x", 4)] == 1.0
