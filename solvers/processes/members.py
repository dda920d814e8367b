"""The processes of the ``parallel`` entrant's members (:mod:`solvers.parallel`): each forked
from the warm entrant process, in a session of its own, waiting on a pipe for its puzzle (one
JSON line), solving it through the solver interface and writing its answer (one JSON object);
killed with its process group, reaped with its CPU time counted (the entrant process is the
child subreaper of its members' orphans, so an outside solver binary of a killed member is
reaped and counted too).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import traceback

import numpy as np

from formats.errors import RaceError
from formats.grid import Grid
from solvers.interface import SOLVED, WRONG, Solver
from solvers.processes import control
from solvers.processes.control import kill_group

#: the signals that stop a search (a Stop, Ctrl-C, race solve's limit), held while a member starts
_STOPPING = {signal.SIGINT, signal.SIGTERM, signal.SIGALRM}


class Member:
    """One member's process of one race: its pid, the read end of its pipe, what it sent."""

    def __init__(self, index: int, pid: int, fd: int, command: int) -> None:
        self.index, self.pid, self.fd = index, pid, fd
        self.command = command          # where its puzzle goes (one JSON line)
        self.data = b""
        self.reply: dict | None = None
        self.done = False
        self.cpu_s = 0.0
        self.verdict = ""               # solved / unsat / unknown / wrong / failed
        self.grid: np.ndarray | None = None
        self.below: list[int] = []      # its descendants when it was stopped


def placement(count: int) -> list[int] | None:
    """A CPU for each of ``count`` members: this process's CPUs in order when there are at
    least ``count`` of them (the harness pins a parallel cell to one core per member),
    else None (the members share what there is)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:
        return None
    return cpus[:count] if len(cpus) >= count else None


def spawn_all(solvers: list[Solver]) -> list[Member]:
    """A process for each member, forked from this (warm) one, waiting for its puzzle."""
    members: list[Member] = []
    try:
        for index, solver in enumerate(solvers):
            members.append(_spawn(index, solver, members))
    except BaseException:
        for member in members:
            kill_group(member.pid)
            reap(member.pid)
            close_pipes(member)
        raise
    return members


def _spawn(index: int, solver: Solver, others: list[Member]) -> Member:
    """Fork the process of member ``index``: it waits for one puzzle (a JSON line on its
    command pipe), solves it, writes its answer (one JSON object) and exits."""
    answer_read, answer_write = os.pipe()
    command_read, command_write = os.pipe()
    # no signal (a Stop, Ctrl-C) between the fork and the member's record: a process nobody
    # knows of would be left running
    signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING)
    try:
        inherited = [answer_read, command_write] + [fd for m in others
                                                    for fd in (m.fd, m.command) if fd >= 0]
        # the member's process: its own group (killed with whatever it starts), dies with this
        pid = control.fork(lambda: _member_main(solver, command_read, answer_write, inherited),
                           new_session=True)
        return Member(index, pid, answer_read, command_write)
    except OSError as exc:
        os.close(answer_read)
        os.close(command_write)
        raise RaceError(f"parallel: cannot start a process for member {index}: "
                        f"{exc.strerror or exc}") from None
    finally:
        os.close(answer_write)
        os.close(command_read)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPPING)


def _member_main(solver: Solver, command: int, write: int, inherited: list[int]) -> None:
    """The body of a member's process: wait for the puzzle, solve it, send the answer as one
    JSON object, exit."""
    code = 0
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPPING)
        for fd in inherited:                     # the other processes' pipe ends
            os.close(fd)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        data = b""
        while not data.endswith(b"\n"):
            chunk = os.read(command, 1 << 20)
            if not chunk:                        # dropped without a puzzle
                os._exit(0)
            data += chunk
        puzzle = json.loads(data)
        if puzzle.get("cpu") is not None:
            os.sched_setaffinity(0, {int(puzzle["cpu"])})
        side = int(puzzle["n"]) ** 2
        grid = Grid(int(puzzle["n"]), np.asarray(puzzle["cells"], dtype=np.int32).reshape(side, side))
        result = solver.solve(grid)
        reply = {"status": result.status, "message": result.message,
                 "counters": {k: int(v) for k, v in result.counters.items()}}
        if result.status in (SOLVED, WRONG) and result.solution is not None:
            reply["status"] = SOLVED    # the race verifies the grid itself
            reply["cells"] = result.solution.cells.reshape(-1).tolist()
    except BaseException as exc:       # noqa: BLE001 - told to the race, never raised here
        reply = {"status": "failed", "message": f"{type(exc).__name__}: {exc}"}
        if not isinstance(exc, RaceError):
            traceback.print_exc(limit=-3)
        code = 1
    try:
        write_all(write, json.dumps(reply).encode())
    finally:
        os._exit(code)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def close_pipes(member: Member) -> None:
    """Close this process's ends of a member's pipes."""
    for fd in (member.fd, member.command):
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)
    member.fd = member.command = -1


def reap(pid: int, block: bool = True) -> float:
    """Wait for ``pid`` (a child of this process) and return its CPU seconds, its own and its
    waited-for children's; 0 when it is not (or no longer) this process's child."""
    ended = control.reap(pid, block)
    return ended[1].ru_utime + ended[1].ru_stime if ended else 0.0
