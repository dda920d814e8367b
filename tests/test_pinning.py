"""Core allocation: one CPU per worker, hyperthread siblings kept apart (a fake /sys topology)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.harness import pinning


def fake_topology(root: Path, siblings: dict[int, str]) -> Path:
    for cpu, text in siblings.items():
        path = root / f"cpu{cpu}" / "topology"
        path.mkdir(parents=True)
        (path / "thread_siblings_list").write_text(text + "\n")
    return root


def test_cpu_lists():
    assert pinning.parse_cpu_list("0-3,8,10-11") == [0, 1, 2, 3, 8, 10, 11]
    assert pinning.parse_cpu_list("5") == [5]
    with pytest.raises(ValueError):
        pinning.parse_cpu_list("a-b")


def test_siblings_are_grouped_and_kept_apart(tmp_path):
    # 4 physical cores with 2 hyperthreads each: cpu i and i+4 are siblings
    root = fake_topology(tmp_path, {c: f"{c % 4},{c % 4 + 4}" for c in range(8)})
    assert pinning.sibling_groups(list(range(8)), root) == [[0, 4], [1, 5], [2, 6], [3, 7]]
    chosen = pinning.allocate(4, list(range(8)), root)
    assert chosen is not None and len(chosen) == 4
    assert len({c % 4 for c in chosen}) == 4            # never two siblings
    # more workers than physical cores: nothing is pinned
    assert pinning.allocate(5, list(range(8)), root) is None
    # the siblings outside the usable CPUs do not count
    assert pinning.sibling_groups([0, 1], root) == [[0], [1]]
    assert pinning.allocate(2, [0, 4], root) is None     # one physical core only


def test_without_smt_every_cpu_is_a_core(tmp_path):
    root = fake_topology(tmp_path, {0: "0", 1: "1", 2: "2"})
    assert pinning.allocate(2, [0, 1, 2], root) == [1, 2]     # CPU 0 (interrupts) last
    assert pinning.allocate(3, [0, 1, 2], root) == [0, 1, 2]
    assert pinning.allocate(0, [0, 1, 2], root) is None
    # no readable topology: each usable CPU a core of its own
    assert pinning.sibling_groups([0, 1], tmp_path / "none") is None
    assert pinning.allocate(2, [0, 1], tmp_path / "none") == [0, 1]


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this OS")
def test_pin_restricts_a_process_and_its_children():
    cpu = pinning.usable_cpus()[-1]
    code = ("import os, subprocess, sys; from experiments.harness.pinning import pin; "
            f"pin({cpu}); print(sorted(os.sched_getaffinity(0))); sys.stdout.flush(); "
            "subprocess.run([sys.executable, '-c', 'import os; print(sorted(os.sched_getaffinity(0)))'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout.split("\n")
    assert out[0] == out[1] == f"[{cpu}]"


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this OS")
def test_a_pinned_worker_runs_on_its_cpu_and_says_so():
    from experiments.harness.executor import LocalExecutor
    from tests.test_executor import run_one
    cpu = pinning.usable_cpus()[-1]
    ex = LocalExecutor(1, timeout_s=30.0, min_time=0.0, cpus=[cpu])
    try:
        outcome = run_one(ex, "slow:delay=0.01")
        assert outcome.status == "solved"
        assert ex.worker_cpus == {outcome.worker: [cpu]}
    finally:
        ex.close()
    free = LocalExecutor(1, timeout_s=30.0, min_time=0.0)
    try:
        outcome = run_one(free, "slow:delay=0.01")
        assert free.worker_cpus == {outcome.worker: pinning.usable_cpus()}
    finally:
        free.close()
    with pytest.raises(ValueError):
        LocalExecutor(2, timeout_s=1.0, cpus=[cpu])


def test_a_slot_keeps_a_warm_worker_per_entrant():
    """Interleaved entrants reuse their parked workers: no start-up after the first cell."""
    from experiments.harness.executor import LocalExecutor
    from tests.test_executor import run_one
    ex = LocalExecutor(1, timeout_s=30.0, min_time=0.0, keep_warm=2)
    try:
        first = [run_one(ex, spec).worker for spec in ("slow:delay=0.01", "slow:delay=0.02")]
        again = [run_one(ex, spec).worker for spec in ("slow:delay=0.01", "slow:delay=0.02")]
        assert first == again and first[0] != first[1]
        assert ex.warm_entrants() == {"slow:delay=0.01", "slow:delay=0.02"}
        third = run_one(ex, "slow:delay=0.03").worker          # evicts the longest unused
        assert run_one(ex, "slow:delay=0.02").worker == first[1]
        assert run_one(ex, "slow:delay=0.01").worker not in first + [third]
    finally:
        ex.close()
    single = LocalExecutor(1, timeout_s=30.0, min_time=0.0)      # keep_warm=1: the old way
    try:
        a = run_one(single, "slow:delay=0.01").worker
        run_one(single, "slow:delay=0.02")
        assert run_one(single, "slow:delay=0.01").worker != a
    finally:
        single.close()
