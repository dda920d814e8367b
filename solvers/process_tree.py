"""A worker's process tree, read with psutil (Linux, macOS and the rest): the processes below
a worker (to kill their process groups with it) and the resident memory they hold together
(its memory limit and peak).

Two readings, of different cost. *Which* processes form the tree costs a pass over every
process of the machine (psutil reads each one's parent); *how much* memory a known process
holds costs one small read. A busy worker is polled every 50 ms, so :class:`TreeMemory`
reads which processes are in the tree at most every :data:`TREE_REFRESH_S` and their memory
at every poll. Measured on a 2-core machine with 143 processes, a worker with one child
polled every 50 ms for 20 s in interleaved 1 s blocks, the poller's CPU time: the Linux-only
walk of ``/proc/PID/task/*/children`` this replaced 0.22 ms a poll (0.45 % of a core),
psutil's whole tree at every poll 2.8 ms (4.9 %), :class:`TreeMemory` 0.71 ms (1.4 %).

Every process may end while it is read: it is then left out (psutil's ``NoSuchProcess``,
``ZombieProcess``, ``AccessDenied``), never an error of the poller.
"""

from __future__ import annotations

import time

import psutil

#: seconds between two readings of which processes form a busy worker's tree (their memory
#: is read at every poll); a process that starts in between is counted from the next one
TREE_REFRESH_S = 0.25


def tree(pid: int) -> list[psutil.Process]:
    """``pid`` and every process below it (parents before their children); empty when
    ``pid`` is gone. A process that ends while the tree is read is not in it."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:                        # gone (or a zombie) since it was named
        return []


def descendants(pid: int) -> list[int]:
    """The pids of every process below ``pid``."""
    return [p.pid for p in tree(pid)[1:]]


def rss_mb(processes: list[psutil.Process]) -> tuple[float, list[psutil.Process]]:
    """The resident memory (MB) of ``processes`` together, and those still there."""
    total, alive = 0, []
    for process in processes:
        try:
            total += process.memory_info().rss
        except psutil.Error:                    # ended since it was found: nothing
            continue
        alive.append(process)
    return total / 2**20, alive


def tree_rss_mb(pid: int) -> float:
    """Resident memory (MB) of process ``pid`` and all its descendants (0 if gone)."""
    return rss_mb(tree(pid))[0]


class TreeMemory:
    """The resident memory of the tree below ``pid`` (module docstring): the members are
    read again at the first poll after :meth:`reset` (a new cell, whose solver starts its
    own processes) and then every :data:`TREE_REFRESH_S`."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.members: list[psutil.Process] = []
        self.read_at: float | None = None

    def reset(self) -> None:
        """Read the members again at the next poll."""
        self.read_at = None

    def rss_mb(self) -> float:
        now = time.monotonic()
        if self.read_at is None or now - self.read_at >= TREE_REFRESH_S:
            self.members, self.read_at = tree(self.pid), now
        total, self.members = rss_mb(self.members)
        return total


def child_pids() -> set[int]:
    """The pids of this process's own children (zombies included)."""
    try:
        return {p.pid for p in psutil.Process().children()}
    except psutil.Error:
        return set()


def kill_adopted(known: set[int], rounds: int = 10) -> float:
    """Kill and reap every child of this process not in ``known``: the orphans it adopted as a
    child subreaper (a solver's program that double-forked and left with ``setsid``), with
    their process groups and everything below them, until none is left (an orphan's own
    children are adopted in turn when it dies). Returns their CPU seconds."""
    import os
    import signal
    cpu = 0.0
    for _ in range(rounds):
        adopted = child_pids() - known
        if not adopted:
            break
        for pid in adopted:
            for below in [*descendants(pid), pid]:
                for kill, target in ((os.killpg, _group(below)), (os.kill, below)):
                    try:
                        if target > 0:
                            kill(target, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
        for pid in adopted:
            try:
                _, _, usage = os.wait4(pid, 0)
                cpu += usage.ru_utime + usage.ru_stime
            except ChildProcessError:
                pass
    return cpu


def _group(pid: int) -> int:
    """The process group of ``pid`` (0 when it is gone or is this process's own group)."""
    import os
    try:
        group = os.getpgid(pid)
    except (ProcessLookupError, PermissionError):
        return 0
    return 0 if group == os.getpgid(0) else group


_PR_SET_CHILD_SUBREAPER, _PR_GET_CHILD_SUBREAPER = 36, 37


def set_subreaper(on: bool) -> bool:
    """Make this process the reaper of its descendants' orphans (Linux), so that it reaps a
    killed member's outside solver and counts its CPU; False where that is not possible."""
    import ctypes
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def is_subreaper() -> bool:
    """Whether this process is a child subreaper already (a parallel entrant running a member
    in-process, say)."""
    import ctypes
    flag = ctypes.c_int(0)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0)
    except (OSError, AttributeError):
        return False
    return bool(flag.value)
