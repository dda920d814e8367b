"""Same-work timing for the benchmarks: every side of a ratio goes through :func:`per_call`.

Each repeat calls ``fn`` back to back until at least ``min_time`` seconds have
passed and keeps the mean time per call; the result is the median over the
repeats. A ratio between two sides measured with the same ``min_time`` and
``repeats`` compares the same kind of number (no "last repeat" on one side and
"one cold call" on the other), and the median shrugs off a repeat that a busy
machine slowed down.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
P = TypeVar("P")


def per_call(fn: Callable[[], T], min_time: float = 0.2, repeats: int = 5) -> tuple[float, T]:
    """(median seconds per call of ``fn``, the last value it returned).

    ``fn`` must do the whole piece of work being compared each time it is
    called (it is called at least ``repeats`` times)."""
    if repeats < 1 or min_time < 0:
        raise ValueError(f"need repeats >= 1 and min_time >= 0, got {repeats}, {min_time}")
    def one_repeat() -> tuple[float, T]:
        calls = 0
        t0 = time.perf_counter()
        while True:
            out = fn()
            calls += 1
            elapsed = time.perf_counter() - t0
            if elapsed >= min_time:
                return elapsed / calls, out

    per_repeat = []
    for _ in range(repeats):
        seconds, out = one_repeat()
        per_repeat.append(seconds)
    return statistics.median(per_repeat), out


def per_call_prepared(prepare: Callable[[], P], run: Callable[[P], T], min_time: float = 0.2,
                      repeats: int = 5, max_calls: int = 50) -> tuple[float, T]:
    """Like :func:`per_call` for work whose input is used up by one call (a solver object that
    can answer once): each repeat prepares enough inputs with ``prepare`` (not timed) and
    times ``run`` on each of them back to back, at most ``max_calls`` of them (preparing can
    cost far more than running). (median seconds per ``run``, its last value)."""
    if repeats < 1 or min_time < 0:
        raise ValueError(f"need repeats >= 1 and min_time >= 0, got {repeats}, {min_time}")
    first = prepare()
    t0 = time.perf_counter()
    out = run(first)
    calls = max(1, min(max_calls, math.ceil(min_time / max(time.perf_counter() - t0, 1e-9))))
    per_repeat = []
    for _ in range(repeats):
        inputs = [prepare() for _ in range(calls)]
        t0 = time.perf_counter()
        for x in inputs:
            out = run(x)
        per_repeat.append((time.perf_counter() - t0) / calls)
    return statistics.median(per_repeat), out
