"""The ``parallel`` entrant: several entrants race on one puzzle at once, one per core, each in
a process of its own; the first verified answer wins and the others are stopped at once.

``parallel:members=SPEC+SPEC+...[,timeout=SECONDS]``, e.g.
``parallel:members=sat:config=sat+kissat``, ``parallel:members=cpsat:seed=1+cpsat:seed=2``.

Member syntax:

* ``+`` separates the members; each member is an entrant spec (``name`` or
  ``name:key=value``). A member's own parameters are separated by ``\\,`` (an escaped
  comma: a plain comma separates the parameters of ``parallel`` itself, and entrants in
  ``race run --solvers``): ``parallel:members=sat:config=sat\\,phase=false+kissat``.
  A ``+`` inside a member's value is written ``\\+``.
* A member cannot be ``parallel`` itself, a member may not be given twice (two identical
  searches give the same run twice: give each its own seed or configuration), and every
  member must be creatable here: an unknown solver, a bad parameter or a member that
  cannot run on this machine (``cpsat`` without OR-Tools) is a one-line error naming it.

How a puzzle is raced: the members are created and warmed up once, in this process
(:meth:`Parallel.warmup`). For each puzzle every member gets a process of its own, forked
from this warm one (no start-up inside the measurement; from the second race on, forked
while the previous race searched, waiting for its puzzle on a pipe), in a session of its own and
pinned to a core of its own when this process may run on at least as many CPUs as there
are members (``race run`` gives such a cell one core per member; otherwise they share).
Each member solves through the solver interface, so its answer is verified in its process;
this process verifies a returned grid again (:func:`solvers.rules.is_solution_of`) before it
wins: a member whose grid fails is out (``wrong_members``) and the others race on. The
first verified grid wins; the other members' processes are killed at once with their
process groups and those of their children (an outside solver binary dies too). A "no
solution" claim cannot be verified here: it wins only once every member has finished
without a verified grid (the harness's referee then checks it like any claim). When no
member answers, the answer is ``unknown``; when every member failed (crashed, or returned
only grids that are not solutions), a one-line error names each failure.

Time: the wall time is the race's; the CPU time of the process that ran it (``cpu_s`` in
runs.csv) includes every member's, the killed ones' and their outside solvers' too (this
process is their child subreaper, so it reaps even the orphans of a killed member).
Counters: ``members``, ``winner`` (the 0-based index of the member that answered, -1 when
none did), ``pinned`` (1 when each member had a core of its own), ``wrong_members``,
``member_cpu_ms_I`` (the CPU milliseconds of member I), plus the winner's own counters.
Phases: ``start`` (forking the members), ``search`` (until the answer), ``stop`` (killing and
reaping the others). Counting is refused: counts cannot be verified, and racing them
would only repeat the slowest member's count.

Measured on hard 25x25 (balanced holes at the hardness peak; tests/bench/bench_parallel.py) as
the wall time on free cores (each member alone: its CPU seconds; the parallel entrant: the
answering member's CPU seconds up to its answer, plus its own fork and stop time). A portfolio
pays where its members' hard cases differ: ``kissat:config=sat\\,encoding=extended+
sat:config=sat\\,phase=false`` (another solver, encoding and phase) took 0.50x its best member
alone on the 20 puzzles of seed 10 and 0.72x on those of seed 11. Against ``sat:config=sat``
alone, the fastest single entrant on seed 10, it took 1.11x and 0.58x: one member that is fast on
most puzzles is hard to beat on a few. From each member's CPU seconds alone (the lower of the
two per puzzle), over 28 pairs of CaDiCaL and kissat configurations, seeds, phases and
encodings, that pair gave 0.55x its best member over 50 puzzles of seeds 10, 11 and 0, and the
pair of the two fastest single entrants (``sat:config=sat+kissat:config=sat\\,seed=1``) 0.70x,
in about the same time in all (14.0 s for the first pair, 13.3 s for the second;
``sat:config=sat`` alone 18.8 s).
Differently seeded CaDiCaL (its ``seed`` option) barely differs: ``sat:config=sat+sat:config=sat\\,seed=2``
0.94x. Which member wins varies with the puzzle.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from formats.errors import RaceError
from formats.grid import Grid
from solvers import rules
from solvers.interface import SOLVED, UNSAT, WRONG, RawAnswer, Solver
from solvers.processes.control import kill, kill_group, running
from solvers.processes.members import (
    Member,
    close_pipes,
    placement,
    reap,
    spawn_all,
    write_all,
)
from solvers.processes.tree import child_pids, descendants, kill_adopted, set_subreaper

if TYPE_CHECKING:
    from solvers.registry import Registry

#: the most members one parallel entrant may have
MAX_MEMBERS = 64
#: seconds a race goes without an answer before the next race's processes are forked (from
#: the second race on; an easy puzzle is answered first and pays no fork beside its search).
#: Forking at once (0) measured the same within the noise in tests/bench/bench_parallel.py
#: (0.83x against 0.82x the best member on free cores)
PREFORK_AFTER = 0.05
#: the example shown when members are missing
EXAMPLE = "parallel:members=sat:config=sat+kissat"
_SPLIT = re.compile(r"(?<!\\)\+")


def split_members(text: str) -> list[str]:
    """The member specs of a ``members`` value: split at each ``+`` not escaped as ``\\+``
    (which becomes a ``+`` in the member). Raises RaceError for an empty member."""
    if not text.strip():
        raise RaceError(f"solver 'parallel': members=... is required, e.g. {EXAMPLE} "
                        "(members separated by '+', a member's own parameters by '\\,')")
    members = [part.strip().replace("\\+", "+") for part in _SPLIT.split(text)]
    if any(not m for m in members):
        raise RaceError(f"solver 'parallel': members={text!r} has an empty member "
                        "(a '+' at the start or end, or two in a row)")
    return members


class Parallel(Solver):
    """Several entrants at once, one per core; the first verified answer wins."""

    name = "parallel"
    #: the family of its members when they share one (set per instance), else this
    method = "portfolio"
    #: its own counters (the winner's come along under their own names)
    counters = ("members", "winner", "pinned", "wrong_members")
    phases = ("start", "search", "stop")
    parameters = {"members": ("", None), "timeout": (0.0, None)}

    def __init__(self, registry: Registry | None = None, **params: object) -> None:
        """``registry``: where the members are looked up (default: the built-ins and the
        installed plugins, :data:`solvers.registry.INSTALLED`)."""
        super().__init__(**params)
        from solvers.registry import INSTALLED, parse_spec
        registry = INSTALLED if registry is None else registry
        specs = split_members(str(self.params["members"]))
        if len(specs) > MAX_MEMBERS:
            raise RaceError(f"solver 'parallel': {len(specs)} members, at most {MAX_MEMBERS}")
        self.specs = specs
        self.members: list[Solver] = []
        created: dict[tuple[str, str], str] = {}        # (name, parameters) -> the spec given
        for spec in specs:
            where = f"solver 'parallel': member {spec!r}"
            try:
                name, _ = parse_spec(spec)
                if name == self.name:
                    raise RaceError("a parallel entrant cannot be a member of another")
                member = registry.create(spec)
                same = (member.name, repr(sorted(member.params.items())))
                if same in created:         # compared as created: dlx and dlx:heuristic=mrv
                    raise RaceError(f"given twice (the same entrant as {created[same]!r}): "
                                    "identical members run the same search "
                                    "(give each its own seed or configuration)")
                created[same] = spec
            except RaceError as exc:
                raise RaceError(f"{where}: {exc.message}") from None
            self.members.append(member)
        methods = {m.method for m in self.members}
        self.method = methods.pop() if len(methods) == 1 else Parallel.method
        self.warm = False               # members warmed in this process (warmup)
        #: the next race's member processes, forked while the last one searched (or None)
        self.standby: list[Member] | None = None
        self.races = 0

    @property
    def cores(self) -> int:
        return len(self.members)

    @property
    def starts_processes(self) -> bool:
        return True                     # each member searches in a process of its own

    def warmup(self) -> None:
        """Warm every member in this process: the members' processes are forked from it."""
        for member in self.members:
            member.warmup()
        self.warm = True

    def search(self, grid: Grid, limit: int | None, keep: int) -> RawAnswer:
        if limit != 1:
            raise RaceError(f"solver {self.spec} answers one solution only and cannot count "
                            f"(count with one of its members, e.g. race count -s {self.specs[0]})")
        if not self.warm:                      # race solve: warm once, not in every member
            self.warmup()
        ready, self.standby = self.standby, None
        # from the second race on, the next race's processes are forked while this one
        # searches (once it has gone PREFORK_AFTER s without an answer): off its critical path
        prefork = self._prefork if self.races else None
        self.races += 1
        race = _Race(self.members, grid, float(self.params["timeout"]), ready, prefork)
        try:
            race.start()
            race.wait()
        finally:
            race.stop()
        return race.answer(self.specs, keep)

    def _prefork(self) -> list[Member] | None:
        try:
            self.standby = spawn_all(self.members)
        except RaceError:
            self.standby = None             # the next race forks its own
        return self.standby

    def close(self) -> None:
        """Kill and reap the member processes waiting for a next race (none is left)."""
        standby, self.standby = self.standby, None
        for member in standby or ():
            kill_group(member.pid)
            reap(member.pid)
            close_pipes(member)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):    # at interpreter exit, os may be half gone
            self.close()


class _Race:
    """The processes of one puzzle's race, from fork to the last reaped one."""

    def __init__(self, members: list[Solver], grid: Grid, timeout: float,
                 ready: list[Member] | None = None,
                 prefork: Callable[[], list[Member] | None] | None = None) -> None:
        self.solvers, self.grid = members, grid
        self.deadline = time.monotonic() + timeout if timeout > 0 else None
        self.ready, self.prefork = ready, prefork
        self.members: list[Member] = []
        self.winner: Member | None = None
        self.times: dict[str, float] = {}
        self.cpus = placement(len(members))
        self.subreaper = False
        self.stopped = False

    # -- start ----------------------------------------------------------------------------
    def start(self) -> None:
        t0 = time.perf_counter()
        self.subreaper = set_subreaper(True)
        #: this process's children before the race (any other child of it at the end is an
        #: orphan it adopted: killed and reaped by stop)
        self.known = child_pids() | {m.pid for m in self.ready or ()}
        if self.ready is not None and all(running(m.pid) for m in self.ready):
            self.members = self.ready
        else:
            for member in self.ready or ():          # one died while waiting: a fresh set
                kill_group(member.pid)
                reap(member.pid)
                close_pipes(member)
            self.members = spawn_all(self.solvers)
        n, cells = self.grid.n, self.grid.cells.reshape(-1).tolist()
        for member in self.members:
            cpu = self.cpus[member.index] if self.cpus else None
            line = json.dumps({"n": n, "cells": cells, "cpu": cpu}).encode() + b"\n"
            with contextlib.suppress(OSError):      # gone: its answer pipe says so
                write_all(member.command, line)
            os.close(member.command)
            member.command = -1
        self.t_started = time.perf_counter()
        self.times["start"] = self.t_started - t0

    # -- wait for the first verified answer -----------------------------------------------
    def wait(self) -> None:
        while self.winner is None and not all(m.done for m in self.members):
            left = None if self.deadline is None else self.deadline - time.monotonic()
            if left is not None and left <= 0:
                break
            waiting = [m for m in self.members if not m.done]
            wait = 0.5 if self.prefork is None else PREFORK_AFTER
            ready, _, _ = select.select([m.fd for m in waiting], [], [],
                                        wait if left is None else min(left, wait))
            if not ready and self.prefork is not None:
                spared = self.prefork()             # the members search: fork the next set
                self.known |= {m.pid for m in spared or ()}
                self.prefork = None
                continue
            for member in waiting:
                if member.fd in ready:
                    self._read(member)
                    if self.winner is not None:
                        break
        self.times["search"] = time.perf_counter() - self.t_started

    def _read(self, member: Member) -> None:
        chunk = os.read(member.fd, 1 << 20)
        if chunk:
            member.data += chunk
            return
        member.done = True                                   # EOF: the member has answered
        try:
            member.reply = json.loads(member.data.decode()) if member.data else None
        except ValueError:
            member.reply = None
        reply = member.reply or {"status": "failed", "message": "died without an answer"}
        status = reply.get("status")
        if status == SOLVED:
            cells = reply.get("cells")
            ok = False
            if isinstance(cells, list):
                try:
                    found = Grid(self.grid.n, np.asarray(cells, dtype=np.int32).reshape(
                        self.grid.side, self.grid.side))
                    ok = rules.is_solution_of(self.grid, found)
                except (ValueError, TypeError, RaceError):
                    ok = False
            if ok:
                member.verdict, member.grid = SOLVED, found.cells
                self.winner = member
            else:
                member.verdict = WRONG
        elif status in (UNSAT, WRONG, "unknown"):
            member.verdict = status
        else:
            member.verdict = "failed"

    # -- stop the others and reap everyone -------------------------------------------------
    def stop(self) -> None:
        """Kill every member still running (its group and its children's groups), reap them
        all and their orphans, and note each one's CPU time. Safe to call twice."""
        if self.stopped:
            return
        self.stopped = True
        t0 = time.perf_counter()
        orphans: list[int] = []
        for member in self.members:
            below = descendants(member.pid)
            member.below = below
            orphans += below
            for pid in below:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    kill_group(os.getpgid(pid))
                kill(pid)
            kill_group(member.pid)
        for member in self.members:
            member.cpu_s = reap(member.pid)
            close_pipes(member)
        for pid in orphans:                # reparented to this process (the subreaper)
            cpu = reap(pid, block=self.subreaper)
            owner = next((m for m in self.members if pid in m.below), None)
            if owner is not None:
                owner.cpu_s += cpu
        if self.subreaper:              # an orphan that left its member's session too
            kill_adopted(self.known | {m.pid for m in self.members})    # the process's CPU
            set_subreaper(False)
        self.times["stop"] = time.perf_counter() - t0

    # -- the answer ------------------------------------------------------------------------
    def answer(self, specs: list[str], keep: int) -> RawAnswer:
        counters: dict[str, int] = {}
        if self.winner is not None and self.winner.reply:
            counters.update({k: int(v) for k, v in (self.winner.reply.get("counters") or {}).items()
                             if isinstance(v, (int, float)) and not isinstance(v, bool)})
        counters.update({"members": len(self.members),
                         "winner": self.winner.index if self.winner is not None else -1,
                         "pinned": int(self.cpus is not None),
                         "wrong_members": sum(m.verdict == WRONG for m in self.members)})
        for member in self.members:
            counters[f"member_cpu_ms_{member.index}"] = int(round(member.cpu_s * 1000))
        if self.winner is not None:
            assert self.winner.grid is not None      # set with the winner
            return RawAnswer(1, [self.winner.grid][:keep], True, counters, self.times)
        verdicts = [m.verdict for m in self.members]
        timed_out = not all(m.done for m in self.members)
        if not timed_out and UNSAT in verdicts:
            return RawAnswer(0, [], True, counters, self.times)
        if not timed_out and all(v in (WRONG, "failed") for v in verdicts):
            why = "; ".join(f"{spec}: {_failure(m)}" for spec, m in zip(specs, self.members))
            raise RaceError(f"every member of parallel failed: {why}")
        return RawAnswer(0, [], False, counters, self.times)


def _failure(member: Member) -> str:
    reply = member.reply or {}
    if member.verdict == WRONG and "cells" in reply:
        return "returned a grid that is not a solution"
    return str(reply.get("message") or "died without an answer")[:200]

