"""The local executor's limits, driven directly (no campaign around it)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from experiments.harness import executor
from experiments.harness.entrants import parse_entrants
from experiments.harness.executor import LocalExecutor
from experiments.harness.schema import Status
from formats import grid_text
from tests.conftest import full_grid, puzzle_from
from tests.fake_solvers import fake_registry


def request(spec: str, n: int = 2, registry=None) -> dict:
    """A cell's request for ``spec`` (from ``registry``, default the fakes) on a
    half-blank n-puzzle."""
    (entrant,) = parse_entrants(spec, registry or fake_registry())
    rng = np.random.default_rng(n)
    text = grid_text.format_native(puzzle_from(full_grid(n, rng), 0.5, rng), {})
    return {"entrant": spec, "init": entrant.init_request(),
            "solve": {"instance": f"p{n}.sudoku", "text": text}}


def run_one(ex: LocalExecutor, spec: str, within: float = 60.0, registry=None) -> dict:
    """Submit one cell and poll until its outcome comes back."""
    ex.submit("cell", request(spec, registry=registry))
    end = time.monotonic() + within
    while time.monotonic() < end:
        done = ex.poll(0.1)
        if done:
            ((key, outcome),) = done
            assert key == "cell"
            return outcome
    pytest.fail(f"no outcome for {spec} within {within} s")


def test_answer_after_the_limit_but_before_the_kill_is_a_timeout(monkeypatch):
    # the watchdog fires at limit + GRACE_S; a long grace makes the late answer arrive first
    monkeypatch.setattr(executor, "GRACE_S", 30.0)
    ex = LocalExecutor(1, timeout_s=0.3, min_time=0.0)
    try:
        late = run_one(ex, "slow:delay=0.6")
        assert late["status"] == Status.TIMEOUT
        assert late["message"].startswith("finished in ") and \
            late["message"].endswith(" s, over the 0.3 s limit")
        assert "wall_s" not in late and "verified" not in late
        assert late["solver"] == "slow" and late["params"] == {"delay": 0.6}
        assert ex.free() == 1 and ex.warm_entrants() == {"slow:delay=0.6"}  # the worker is kept
    finally:
        ex.close()


def test_answer_within_the_limit_is_solved_and_the_worker_stays_warm():
    ex = LocalExecutor(1, timeout_s=30.0, min_time=0.0)
    try:
        first = run_one(ex, "slow:delay=0.01")
        assert first["status"] == Status.SOLVED and first["verified"] is True
        assert first["iterations"] == 1 and first["message"] == ""
        pid = first["worker"].split(":")[1]
        second = run_one(ex, "slow:delay=0.01")
        assert second["status"] == Status.SOLVED and second["worker"].split(":")[1] == pid
    finally:
        ex.close()


def test_a_busy_worker_is_killed_at_the_deadline():
    ex = LocalExecutor(1, timeout_s=0.5)
    try:
        outcome = run_one(ex, "hang")
        assert outcome["status"] == Status.TIMEOUT
        assert outcome["message"].startswith("killed after ") and outcome["message"].endswith(
            " s (limit 0.5 s)")
        assert ex.free() == 1 and ex.warm_entrants() == set()       # the killed worker is gone
    finally:
        ex.close()


def test_entrant_that_cannot_start_reports_start_failed():
    ex = LocalExecutor(1, timeout_s=5.0)
    try:
        outcome = run_one(ex, "bad-warmup")
        assert outcome["status"] == Status.ERROR and outcome["start_failed"] is True
        assert outcome["message"] == ("entrant failed to start: RuntimeError: "
                                      "no engine in this worker")
        assert ex.warm_entrants() == set()
    finally:
        ex.close()


def test_jobs_below_one_is_a_user_error():
    from formats.errors import RaceError
    with pytest.raises(RaceError, match="--jobs must be >= 1, got 0"):
        LocalExecutor(0, timeout_s=1.0)
