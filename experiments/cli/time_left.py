"""How long the rest of a ``race run`` will take, said only where the measurements support it.

Cells go out n by n (ascending), family by family, and their times grow with n, often by
orders of magnitude from one n to the next (the hard family at its hardness peak): the first
cells say nothing about the last. So the time left is summed per *group* (an entrant, a
family, an n), from this run's rows and, in a resumed campaign, the earlier runs' rows:

* a *settled* group (half its cells or more finished, at least :data:`MEASURED`): its cells
  left take what its finished ones took on average, a censored cell (timeout, memout)
  counted at its limit;
* a group not settled: the entrant's mean at its last settled n of the family, grown by the
  growth per step of n over its last three settled n when that growth is steady (the two
  steps within a factor :data:`STEADY` of each other; their mean growth, capped at the
  limit) -- in a group under way the cells done first are the quick ones; without a steady
  growth, the mean of its finished cells once there are :data:`MEASURED`; else nothing is
  said of it, and the line names its n as not measured yet;
* a group whose entrant's median is censored at a smaller n of the family, or foreseen to be
  (half the finished cells of a group censored, a grown time at the limit): nothing -- the
  skip rule records those cells as skipped at once.

A cell's seconds become wall-clock seconds on the run's ``jobs`` workers: each cell costs its
time (times its cores) plus an overhead per cell (dispatch, verification, the record), the
overhead measured on this run's rows (:meth:`TimeLeft.overhead`). :class:`TimeLeft` is fed
each finished row; :meth:`TimeLeft.line` says the estimate a few times, never per cell.
"""

from __future__ import annotations

import csv
import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from experiments.harness.schema import CENSORED, LIMIT_STATUSES, Status

#: finished cells a group needs before its mean time stands for its cells left
MEASURED = 2
#: measured n an extrapolation needs (two steps of growth)
GROWTH_POINTS = 3
#: two steps of growth within this factor of each other make a steady growth
STEADY = 3.0
#: the overhead per cell is measured on windows of this many of this run's rows per worker ...
WINDOW = 4
#: ... the median of the last this many windows (a window while long cells run has their
#: clock time without their work, the next one their work without the clock: both are off)
WINDOWS = 50
#: the estimate is worked out at most this often (seconds) ...
EVERY_S = 5.0
#: ... said first once this long passed since the first cell went out ...
FIRST_S = 3.0
#: ... and said again when it moved by more than this factor from what was said (counted
#: down), at most every :data:`AGAIN_S` seconds
MOVED = 1.5
AGAIN_S = 20.0
#: a full estimate under this many seconds is not worth a line: the run is about to end
QUIET_S = 10.0

#: an entrant, a family, an n
Group = tuple[str, str, int]
#: an entrant and a family
Line = tuple[str, str]


class FinishedCell(Protocol):
    """What the estimate reads of a row (:class:`experiments.harness.rows.Row` has it)."""
    entrant: str
    family: str
    n: int
    status: str
    wall_s: float | None
    timeout_s: float | None
    cores: int


@dataclass(slots=True)
class Recorded:
    """A row of an earlier run of the campaign, as :func:`recorded_rows` reads it."""
    entrant: str
    family: str
    n: int
    status: str
    wall_s: float | None
    timeout_s: float | None
    cores: int = 1


@dataclass(slots=True)
class _Tally:
    total: int = 0          # the group's cells in the campaign, recorded or not
    left: int = 0           # its cells this run has still to finish
    finished: int = 0       # its cells with a known time (this run's and recorded)
    seconds: float = 0.0    # their worker-seconds, a censored cell at its limit
    censored: int = 0       # those that are censored (as the skip rule counts them)


@dataclass
class Estimate:
    """The time left: ``seconds`` for the cells it covers (None: none are covered),
    ``cells`` left in all, ``unknown`` (n -> cells left there not measured yet), the n whose
    time is ``extrapolated``, and ``most``: the time should those cells all reach the limit."""
    seconds: float | None
    cells: int
    unknown: dict[int, int] = field(default_factory=dict)
    extrapolated: set[int] = field(default_factory=set)
    most: float | None = None
    limit: float = 0.0

    @property
    def full(self) -> bool:
        """True when every cell left is covered."""
        return not self.unknown and self.seconds is not None


def cost(row: FinishedCell) -> float:
    """The worker-seconds a finished cell took: its wall time (its limit when censored by
    it) times its cores; 0 for a cell without a time (skipped, failed to start)."""
    limit = row.timeout_s
    if str(row.status) in LIMIT_STATUSES and limit is not None and math.isfinite(limit):
        seconds = limit
    else:
        seconds = row.wall_s if row.wall_s is not None and math.isfinite(row.wall_s) else 0.0
    return max(0.0, seconds) * max(1, row.cores or 1)


def _censored(status: str) -> bool:
    return status in CENSORED and status != Status.WRONG.value


class TimeLeft:
    """The estimate of a run's time left (module docstring). ``pending``: the (entrant,
    family, n) of each cell the run is to finish; ``recorded``: the campaign's rows of
    earlier runs (those of an entrant and family with cells left count); ``jobs``: the
    workers; ``timeout_s``: the limit per cell; ``start``: the clock when the first cell
    went out (the clock is the caller's, in seconds)."""

    def __init__(self, pending: Iterable[Group], jobs: int, timeout_s: float, start: float,
                 recorded: Iterable[FinishedCell] = ()) -> None:
        self.jobs, self.limit, self.start = max(1, jobs), timeout_s, start
        self.groups: dict[Group, _Tally] = {}
        for group in pending:
            tally = self.groups.setdefault(group, _Tally())
            tally.total += 1
            tally.left += 1
        lines = {(entrant, family) for entrant, family, _ in self.groups}
        for row in recorded:
            if (row.entrant, row.family) in lines:
                tally = self.groups.setdefault((row.entrant, row.family, int(row.n)), _Tally())
                self._count(tally, row)
                tally.total += 1
        self.ran = 0                        # this run's finished cells ...
        self.ran_seconds = 0.0              # ... and their worker-seconds
        self.window = max(8, WINDOW * self.jobs)
        self.mark = (start, 0.0)            # the clock and worker-seconds at a window's start
        self.windows: deque[float] = deque(maxlen=WINDOWS)     # overhead per cell in each
        self.checked_at: float | None = None
        self.said: tuple[float, float | None, tuple[int, ...]] | None = None

    def _count(self, tally: _Tally, row: FinishedCell) -> float:
        """Count ``row`` in ``tally``; its :func:`cost`."""
        seconds = cost(row)
        tally.finished += 1
        tally.seconds += seconds
        tally.censored += _censored(str(row.status))
        return seconds

    def add(self, row: FinishedCell, now: float) -> None:
        """Count a finished row of this run, at clock ``now``."""
        key = (row.entrant, row.family, int(row.n))
        tally = self.groups.get(key)
        if tally is None:
            tally = self.groups[key] = _Tally(total=1, left=1)
        seconds = self._count(tally, row)
        tally.left = max(0, tally.left - 1)
        self.ran += 1
        self.ran_seconds += seconds
        if self.ran % self.window == 0:
            clock, work = self.mark
            self.windows.append(((now - clock) * self.jobs - (self.ran_seconds - work)) / self.window)
            self.mark = (now, self.ran_seconds)

    def overhead(self) -> float | None:
        """Worker-seconds per cell beyond the cells' own times: on the workers, the clock
        time of a window of rows less the rows' own times, per row; the median of the last
        :data:`WINDOWS` windows (None before the first)."""
        if not self.windows:
            return None
        ordered = sorted(self.windows)
        middle = len(ordered) // 2
        median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
        return max(0.0, median)

    def _measured(self, tally: _Tally) -> bool:
        return tally.finished >= min(MEASURED, tally.total)

    def estimate(self) -> Estimate:
        """The time left from what is measured now (:class:`Estimate`)."""
        overhead = self.overhead()
        cells = sum(t.left for t in self.groups.values())
        if overhead is None:
            return Estimate(None, cells)
        lines: dict[Line, list[int]] = {}
        for entrant, family, n in self.groups:
            lines.setdefault((entrant, family), []).append(n)
        work, covered, worst = 0.0, 0, 0.0      # worst: the extrapolated cells at the limit
        unknown: dict[int, int] = {}
        extrapolated: set[int] = set()
        for (entrant, family), ns in lines.items():
            points: list[tuple[int, float]] = []    # (n, mean time) of the settled n
            dead = False
            for n in sorted(ns):
                tally = self.groups[(entrant, family, n)]
                if dead:
                    covered += tally.left          # skipped at once: no time
                    continue
                grown = _grown(points, n, self.limit)
                if self._measured(tally) and 2 * tally.finished >= tally.total:
                    mean = tally.seconds / tally.finished           # settled: a point
                    points.append((n, mean))
                    dead = 2 * tally.censored >= tally.finished
                elif grown is not None:            # the first cells done are the quick ones
                    mean = grown
                    dead = grown >= self.limit or 2 * tally.censored >= tally.total
                    if tally.left:
                        extrapolated.add(n)
                        worst += tally.left * (self.limit - grown)
                elif self._measured(tally):
                    mean = tally.seconds / tally.finished
                    dead = 2 * tally.censored >= tally.finished
                else:
                    if tally.left:
                        unknown[n] = unknown.get(n, 0) + tally.left
                    continue
                if tally.left:
                    work += tally.left * (mean + overhead)
                    covered += tally.left
        if not covered:
            return Estimate(None, cells, unknown)
        return Estimate(work / self.jobs, cells, unknown, extrapolated,
                        (work + worst) / self.jobs, self.limit)

    def line(self, now: float) -> str | None:
        """The estimate as a line when it is time to say it (module constants), else None."""
        if now - self.start < FIRST_S:
            return None
        if self.checked_at is not None and now - self.checked_at < EVERY_S:
            return None
        self.checked_at = now
        guess = self.estimate()
        if guess.seconds is None and not guess.unknown:
            return None
        kind = tuple(sorted(guess.unknown))
        if self.said is None:
            if guess.full and guess.seconds is not None and guess.seconds < QUIET_S:
                return None
        else:
            said_at, said_seconds, said_kind = self.said
            if now - said_at < (EVERY_S if kind != said_kind else AGAIN_S):
                return None
            if kind == said_kind:
                if not guess.full or said_seconds is None or guess.seconds is None:
                    return None
                expected = max(said_seconds - (now - said_at), 1.0)
                if max(guess.seconds, 1.0) / expected < MOVED \
                        and expected / max(guess.seconds, 1.0) < MOVED:
                    return None
        self.said = (now, guess.seconds, kind)
        return describe(guess)


def _grown(means: list[tuple[int, float]], n: int, limit: float) -> float | None:
    """The mean time at ``n`` grown from the measured ``means`` ((n, mean) ascending) when
    their last two steps grew steadily (within :data:`STEADY`), capped at ``limit``; None
    when they are too few or unsteady."""
    if len(means) < GROWTH_POINTS:
        return None
    (a, ta), (b, tb), (c, tc) = means[-3:]
    if min(ta, tb, tc) <= 0:
        return None
    first, second = (tb / ta) ** (1 / (b - a)), (tc / tb) ** (1 / (c - b))
    if max(first, second) > STEADY * min(first, second):
        return None
    growth = (tc / ta) ** (1 / (c - a))          # both steps: one noisy mean sways it less
    return min(limit, tc * max(growth, 1.0) ** (n - c))


def describe(guess: Estimate) -> str:
    """``guess`` as the line ``race run`` prints."""
    if guess.full:
        assert guess.seconds is not None
        grown = sorted(guess.extrapolated)
        text = f"time left: about {duration(guess.seconds)} for the {guess.cells} cells left"
        if grown:
            text += f", n = {_ns(grown)} extrapolated from the smaller n"
            if guess.most is not None and guess.most > 2 * guess.seconds:
                text += (f" (up to {duration(guess.most)} should their cells reach the "
                         f"{guess.limit:g} s limit)")
        return text
    unknown = sum(guess.unknown.values())
    ns = sorted(guess.unknown)
    text = (f"time left: no estimate yet: the cells of n = {_ns(ns)} ({unknown} of the "
            f"{guess.cells} left) are not measured yet")
    if guess.seconds is not None and guess.cells > unknown:
        text += f"; the other {guess.cells - unknown} take about {duration(guess.seconds)}"
    return text


def _ns(ns: list[int]) -> str:
    return ", ".join(map(str, ns))


def duration(seconds: float) -> str:
    """``seconds`` rounded for a person: 40 s, 12 min, 2.5 h."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def recorded_rows(path: Path, lines: set[Line]) -> list[Recorded]:
    """The rows of runs.csv at ``path`` whose (entrant, family) is in ``lines`` (rows that
    do not read as numbers are left out; no file: none)."""
    out: list[Recorded] = []
    try:
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                try:
                    if (row["entrant"], row["family"]) not in lines:
                        continue
                    out.append(Recorded(row["entrant"], row["family"], int(row["n"]), row["status"],
                                        _number(row.get("wall_s")), _number(row.get("timeout_s")),
                                        int(row.get("cores") or 1)))
                except (KeyError, TypeError, ValueError):
                    continue
    except (OSError, UnicodeDecodeError, csv.Error):
        return []
    return out


def _number(text: str | None) -> float | None:
    return float(text) if text not in (None, "") else None
