"""The dask executor on a LocalCluster: each thread slot of each worker process pinned to a core
of its own, and one warm measurement worker per slot for the whole campaign."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from experiments.harness import dask_executor, runs_table
from experiments.harness.pinning import allocate
from experiments.harness.synthetic_campaign import write_instances

distributed = pytest.importorskip("distributed")


def test_claimed_cpus_are_distinct_and_released_with_the_process(tmp_path):
    import subprocess
    import sys
    code = ("from experiments.harness.dask_executor import claim_cpu; import sys; "
            f"print(claim_cpu([0, 1], __import__('pathlib').Path({str(tmp_path)!r}))); "
            "sys.stdout.flush(); sys.stdin.read()")
    first = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    a = first.stdout.readline().strip()
    second = subprocess.run([sys.executable, "-c", code], input="", capture_output=True, text=True)
    assert (a, second.stdout.strip()) == ("1", "0")      # the last core first, then the other
    third = subprocess.run([sys.executable, "-c", code.replace("[0, 1]", "[1]")], input="",
                           capture_output=True, text=True)
    assert third.stdout.strip() == "None"                 # held by the first process
    first.communicate("")
    again = subprocess.run([sys.executable, "-c", code.replace("[0, 1]", "[1]")], input="",
                           capture_output=True, text=True)
    assert again.stdout.strip() == "1"                    # released when it exited


@pytest.mark.parametrize("workers, threads", [(1, 2), (2, 1)])
def test_local_cluster_slots_pinned_apart_and_kept_warm(tmp_path, monkeypatch, workers, threads):
    if not allocate(2):
        pytest.skip("needs two physical cores to pin two slots apart")
    monkeypatch.setenv(dask_executor.SLOTS_ENV, str(tmp_path / "slots"))
    instances = tmp_path / "set"
    write_instances(instances, 24)
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True,
                                  dashboard_address=None) as cluster:
        result = CliRunner().invoke(main, ["run", "--no-report", "--out", str(tmp_path / "out"),
                                           "--instances", str(instances), "--solvers", "dlx",
                                           "--n", "3", "--campaign", "c", "--executor", "dask",
                                           "--scheduler", cluster.scheduler_address])
    assert result.exit_code == 0, result.output
    rows = runs_table.read_rows(tmp_path / "out" / "c" / "runs.csv")
    assert len(rows) == 24 and {r["status"] for r in rows} == {"solved"}
    meta = json.loads((tmp_path / "out" / "c" / "meta.json").read_text())
    pinned = meta["pinning"]["workers"]            # measurement worker (host:pid) -> its CPUs
    used = {r["worker"] for r in rows}
    # one warm measurement worker per slot for all 24 cells: none was restarted between cells
    assert len(used) == 2 and used == set(pinned)
    cores = sorted(c for cpus in pinned.values() for c in cpus)
    print(f"{workers} x {threads}: pinned cores {pinned}")
    assert all(len(cpus) == 1 for cpus in pinned.values()) and len(set(cores)) == 2
