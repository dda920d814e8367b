"""The time left that `race run` prints (experiments/cli/time_left.py), fed synthetic campaigns.

Each campaign is a seeded list of cells in the order `race run` sends them (n ascending, family
by family, a random order within), whose times grow with n; a simulated run of `jobs` workers
(each cell its time, at most the limit, plus an overhead; the skip rule applied) gives the
clock at which each row arrives and so the true time left after each row. No assertion is on
this machine's speed: the clock is the simulation's.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from experiments.cli import time_left
from experiments.cli.time_left import Estimate, TimeLeft, recorded_rows
from experiments.harness.rows import Row

FAMILIES = ("unique", "hard")


@dataclass
class Entrant:
    name: str
    base: float                 # median seconds at n = 2
    growth: float               # per step of n
    jump: dict[int, float] | None = None    # n -> an extra factor from that n on


def cells(entrants: list[Entrant], ns: range, instances: int, seed: int
          ) -> list[tuple[str, str, int, float]]:
    """(entrant, family, n, seconds) in the order the cells go out: n ascending, then family,
    a seeded random order within; each cell's time lognormal about its entrant's median."""
    rng = np.random.default_rng(seed)
    out = []
    for n in ns:
        for k, family in enumerate(FAMILIES):
            group = []
            for e in entrants:
                factor = math.prod(f for at, f in (e.jump or {}).items() if n >= at)
                median = e.base * e.growth ** (n - 2) * factor * (1.5 if k else 1.0)
                group += [(e.name, family, n, float(median * rng.lognormal(0, 0.6)))
                          for _ in range(instances)]
            out += [group[i] for i in rng.permutation(len(group))]
    return out


def simulate(order: list[tuple[str, str, int, float]], jobs: int, overhead: float, limit: float
             ) -> tuple[list[tuple[float, Row]], float]:
    """The rows of a run of ``order`` on ``jobs`` workers, each with the clock it arrives at,
    and the clock at the end. A cell costs its time (the limit when longer: status timeout)
    plus ``overhead``; once an entrant's cells at some n of a family are half censored, its
    cells at larger n of the family are recorded as skipped when their turn comes."""
    totals: dict[tuple[str, str, int], int] = {}
    censored: dict[tuple[str, str, int], int] = {}
    for entrant, family, n, seconds in order:
        totals[(entrant, family, n)] = totals.get((entrant, family, n), 0) + 1
        censored[(entrant, family, n)] = censored.get((entrant, family, n), 0) + (seconds >= limit)
    dead = {}
    for (entrant, family, n), total in sorted(totals.items(), key=lambda kv: kv[0][2]):
        if 2 * censored[(entrant, family, n)] >= total and (entrant, family) not in dead:
            dead[(entrant, family)] = n
    free = [0.0] * jobs
    rows = []
    for entrant, family, n, seconds in order:
        if n > dead.get((entrant, family), n):
            rows.append((free[0], Row(entrant=entrant, family=family, n=n, status="skipped",
                                      timeout_s=limit)))
            continue
        start = heapq.heappop(free)
        status = "timeout" if seconds >= limit else "solved"
        took = min(seconds, limit)
        heapq.heappush(free, start + took + overhead)
        rows.append((start + took + overhead, Row(entrant=entrant, family=family, n=n, status=status,
                                                 wall_s=took, timeout_s=limit)))
    rows.sort(key=lambda r: r[0])
    return rows, max(free)


def checkpoints(rows: list[tuple[float, Row]], estimator: TimeLeft, end: float, first: float = 0.1
                ) -> list[tuple[float, Estimate, float]]:
    """Feed every row; at each 5 % of the rows from ``first`` on: (share, estimate, true time
    left)."""
    marks = {max(1, math.ceil(len(rows) * share / 100)): share / 100
             for share in range(int(first * 100), 100, 5)}
    out = []
    for i, (clock, row) in enumerate(rows, start=1):
        estimator.add(row, clock)
        if i in marks:
            out.append((marks[i], estimator.estimate(), end - clock))
    return out


def within_2x(guess: float, truth: float, end: float) -> bool:
    """``guess`` within 2x of ``truth``; in the last tenth of the run's time (``end``), within
    2x of a tenth of it: there a cell or two in flight for a while make most of what is left,
    and a row cannot show how far along they are."""
    floor = 0.1 * end
    return max(guess, floor) <= 2 * max(truth, floor) and max(truth, floor) <= 2 * max(guess, floor)


STEADY = [Entrant("fast", 1e-4, 2.0), Entrant("mid", 5e-4, 3.0), Entrant("slow", 1e-3, 4.5)]
#: one entrant reaches the 10 s limit at n = 6 and is skipped from n = 7 on
TIMEOUTS = [Entrant("fast", 1e-4, 2.0), Entrant("mid", 5e-4, 3.0), Entrant("steep", 2e-3, 9.0)]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("entrants", [STEADY, TIMEOUTS], ids=["steady", "timeouts"])
def test_a_grown_campaign_is_estimated_within_2x_after_a_tenth_of_its_cells(
        seed: int, entrants: list[Entrant]) -> None:
    """A campaign grown by more n (n = 2..4 recorded, n = 5..8 to run): from 10 % of the
    cells to run on, the estimate covers every cell left and is within 2x of the truth."""
    recorded = cells(entrants, range(2, 5), 10, seed)
    order = cells(entrants, range(5, 9), 10, seed + 100)
    rows, end = simulate(order, jobs=2, overhead=0.02, limit=10.0)
    earlier = [Row(entrant=e, family=f, n=n, status="timeout" if s >= 10 else "solved",
                   wall_s=min(s, 10.0), timeout_s=10.0) for e, f, n, s in recorded]
    estimator = TimeLeft([(e, f, n) for e, f, n, _ in order], jobs=2, timeout_s=10.0, start=0.0,
                         recorded=earlier)
    seen = checkpoints(rows, estimator, end)
    assert seen and seen[0][0] == pytest.approx(0.1)
    for share, guess, truth in seen:
        assert guess.full, f"{share:.0%}: {time_left.describe(guess)}"
        assert guess.seconds is not None and within_2x(guess.seconds, truth, end), \
            f"{share:.0%} of {len(rows)} cells: estimated {guess.seconds:.1f} s, truly {truth:.1f} s"


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("entrants", [STEADY, TIMEOUTS], ids=["steady", "timeouts"])
def test_a_fresh_campaign_says_a_number_only_when_it_holds(seed: int, entrants: list[Entrant]) -> None:
    """A fresh campaign of n = 2..8: a tenth of its cells is the first n only, which says
    nothing of the last; the estimate is then partial (it names the n not measured yet) and
    every full estimate from 10 % on is within 2x of the truth; once three n are measured
    (their growth extrapolates) it is full."""
    order = cells(entrants, range(2, 9), 10, seed)
    rows, end = simulate(order, jobs=2, overhead=0.02, limit=10.0)
    estimator = TimeLeft([(e, f, n) for e, f, n, _ in order], jobs=2, timeout_s=10.0, start=0.0)
    seen = checkpoints(rows, estimator, end)
    assert not seen[0][1].full and 8 in seen[0][1].unknown     # 10 %: only n = 2 measured
    for share, guess, truth in seen:
        if guess.full:
            assert guess.seconds is not None and within_2x(guess.seconds, truth, end), \
                f"{share:.0%}: estimated {guess.seconds:.1f} s, truly {truth:.1f} s"
    assert all(guess.full for share, guess, _ in seen if share >= 0.6)


def test_an_unsteady_growth_is_not_extrapolated() -> None:
    """An entrant whose time grows 1.5x then 40x per step (a hardness peak ahead): its next
    n is not guessed from that, the estimate names it as not measured yet."""
    entrants = [Entrant("steady", 1e-3, 2.0), Entrant("peak", 1e-3, 1.5, jump={4: 40.0})]
    order = cells(entrants, range(2, 7), 10, 3)
    rows, end = simulate(order, jobs=2, overhead=0.01, limit=60.0)
    estimator = TimeLeft([(e, f, n) for e, f, n, _ in order], jobs=2, timeout_s=60.0, start=0.0)
    for clock, row in rows:
        estimator.add(row, clock)
        if row.n == 4 and row.entrant == "peak" and estimator.groups[("peak", "hard", 4)].finished >= 10:
            break
    guess = estimator.estimate()
    assert not guess.full and {5, 6} <= set(guess.unknown)
    assert "the cells of n = 5, 6" in time_left.describe(guess)


def test_a_censored_median_foresees_the_skipped_cells() -> None:
    """Once an entrant's cells at some n are half censored, its larger n cost nothing: the
    skip rule records them at once."""
    estimator = TimeLeft([("a", "hard", 3)] * 4 + [("a", "hard", 4)] * 4 + [("a", "hard", 5)] * 4,
                         jobs=1, timeout_s=10.0, start=0.0)
    for i in range(10):                 # the overhead: 10 quick cells of another kind
        estimator.add(Row(entrant="b", family="hard", n=2, status="solved", wall_s=0.0), 0.1 * (i + 1))
    for i in range(2):
        estimator.add(Row(entrant="a", family="hard", n=3, status="timeout", wall_s=10.0,
                          timeout_s=10.0), 1.0 + 10 * (i + 1))
    guess = estimator.estimate()
    assert guess.full and guess.cells == 10
    assert guess.seconds == pytest.approx(2 * (10 + 0.1), rel=0.05)    # the two left at n = 3


def test_the_line_is_said_a_few_times_not_per_cell() -> None:
    """Fed a row every 0.05 s for 20 minutes of a steady campaign, the line comes rarely,
    never twice within EVERY_S, and reads as an estimate."""
    order = cells(STEADY, range(2, 9), 10, 0)
    rows, end = simulate(order, jobs=2, overhead=0.02, limit=10.0)
    estimator = TimeLeft([(e, f, n) for e, f, n, _ in order], jobs=2, timeout_s=10.0, start=0.0)
    said = []
    for clock, row in rows:
        estimator.add(row, clock)
        line = estimator.line(clock)
        if line:
            said.append((clock, line))
    assert 1 <= len(said) <= 12, said
    assert all(b - a >= time_left.EVERY_S for (a, _), (b, _) in zip(said, said[1:]))
    assert any(line.startswith("time left: about ") for _, line in said)
    assert all(line.startswith("time left: ") for _, line in said)


def test_the_line_names_what_is_not_measured_yet() -> None:
    guess = Estimate(12.0, 700, {4: 200, 5: 200})
    assert time_left.describe(guess) == ("time left: no estimate yet: the cells of n = 4, 5 (400 of "
                                         "the 700 left) are not measured yet; the other 300 take "
                                         "about 12 s")
    assert time_left.describe(Estimate(300.0, 80, {}, {7}, 1200.0, 20.0)) == (
        "time left: about 5 min for the 80 cells left, n = 7 extrapolated from the smaller n (up "
        "to 20 min should their cells reach the 20 s limit)")
    assert time_left.describe(Estimate(300.0, 80, {}, {7}, 400.0, 20.0)).endswith("from the smaller n")
    assert time_left.describe(Estimate(30.0, 80)) == "time left: about 30 s for the 80 cells left"


def test_recorded_rows_reads_the_rows_of_the_entrants_and_families_left(tmp_path: Path) -> None:
    runs = tmp_path / "runs.csv"
    runs.write_text("entrant,family,n,status,wall_s,timeout_s,cores\n"
                    "dlx,hard,4,solved,0.5,10,1\n"
                    "dlx,unique,4,solved,0.1,10,1\n"
                    "sat,hard,4,timeout,10,10,2\n"
                    "dlx,hard,x,solved,0.5,10,1\n", encoding="utf-8")
    rows = recorded_rows(runs, {("dlx", "hard"), ("sat", "hard")})
    assert [(r.entrant, r.n, r.status, r.wall_s, r.cores) for r in rows] == [
        ("dlx", 4, "solved", 0.5, 1), ("sat", 4, "timeout", 10.0, 2)]
    assert time_left.cost(rows[1]) == 20.0          # at its limit, on two cores
    assert recorded_rows(tmp_path / "none.csv", {("dlx", "hard")}) == []
