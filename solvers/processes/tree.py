"""A worker's process tree: the processes below a worker (to kill their process groups with it)
and the resident memory they hold (its memory limit and peak).

Every reading here costs in proportion to the tree it reads, never to the machine: the
children of a process are read from ``/proc/PID/task/*/children`` (Linux), walked down from the
root; a process's resident memory from its ``/proc/PID/statm``, a file kept open and read again
with one ``pread``. Where ``/proc`` has no ``children`` files (another system, or a kernel built
without them) psutil answers instead, which reads every process of the machine: a fallback, not
the way on Linux.

:class:`TreeMemory` is what the harness polls every 50 ms for each busy worker: the worker's
own memory only, unless its solver starts processes of its own (:attr:`solvers.interface.Solver.
starts_processes`: ``cmd:``, an outside SAT binary, ``parallel``); then the tree's members are
read again at most every :data:`TREE_REFRESH_S` and their memory at every poll.

Every process may end while it is read: it is then left out, never an error of the poller.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from solvers.processes import control

if TYPE_CHECKING:
    import subprocess

#: seconds between two readings of which processes form a busy worker's tree (their memory
#: is read at every poll); a process that starts in between is counted from the next one
TREE_REFRESH_S = 0.25
_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20 if hasattr(os, "sysconf") else 4096 / 2**20
#: whether this system has /proc/PID/task/TID/children (Linux >= 3.5 built with it)
_PROC_CHILDREN = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def children(pid: int) -> list[int]:
    """The pids of ``pid``'s own children (empty when it is gone)."""
    if not _PROC_CHILDREN:
        return _psutil_children(pid)
    found: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in threads:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                found += [int(p) for p in f.read().split()]
        except (OSError, ValueError):
            continue                            # the thread ended meanwhile
    return found


def _psutil_children(pid: int) -> list[int]:
    import psutil
    try:
        return [p.pid for p in psutil.Process(pid).children()]
    except psutil.Error:
        return []


def tree(pid: int) -> list[int]:
    """``pid`` and every process below it (parents before their children); empty when ``pid``
    is gone. A process that ends while the tree is read is left out."""
    if not exists(pid):
        return []
    members, at = [pid], 0
    while at < len(members):
        members += [c for c in children(members[at]) if c not in members]
        at += 1
    return members


def descendants(pid: int) -> list[int]:
    """The pids of every process below ``pid``."""
    return tree(pid)[1:]


def exists(pid: int) -> bool:
    """Whether a process ``pid`` exists (one that belongs to another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


class Rss:
    """The resident memory of one process, read again from its ``statm`` kept open (one
    ``pread``, a few microseconds); 0 once it is gone."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        try:
            self._fd: int | None = os.open(f"/proc/{pid}/statm", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self._fd = None

    def mb(self) -> float:
        if self._fd is None:
            return _psutil_rss_mb(self.pid)
        try:
            return int(os.pread(self._fd, 128, 0).split()[1]) * _PAGE_MB
        except (OSError, IndexError, ValueError):      # gone (ESRCH) since it was opened
            return 0.0

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _psutil_rss_mb(pid: int) -> float:
    if _PROC_CHILDREN:                  # /proc is there but this process is gone
        return 0.0
    import psutil
    try:
        return psutil.Process(pid).memory_info().rss / 2**20
    except psutil.Error:
        return 0.0


def rss_mb(pid: int) -> float:
    """Resident memory (MB) of process ``pid`` alone (0 if gone)."""
    reader = Rss(pid)
    try:
        return reader.mb()
    finally:
        reader.close()


def tree_rss_mb(pid: int) -> float:
    """Resident memory (MB) of process ``pid`` and all its descendants (0 if gone)."""
    return sum(rss_mb(p) for p in tree(pid))


class TreeMemory:
    """The resident memory of the worker ``pid``: its own (``whole_tree`` False: a solver
    that runs in the worker), or its and every process below it (``whole_tree`` True: the
    members are read again at the first poll after :meth:`reset` and then every
    :data:`TREE_REFRESH_S`). :meth:`split` gives the worker's own and the rest apart."""

    def __init__(self, pid: int, whole_tree: bool = False) -> None:
        self.pid = pid
        self.whole_tree = whole_tree
        self.own = Rss(pid)
        self.members: dict[int, Rss] = {}
        self.read_at: float | None = None

    def reset(self) -> None:
        """Read the members again at the next poll (a new cell, whose solver starts its own
        processes)."""
        self.read_at = None

    def split(self) -> tuple[float, float]:
        """(the worker's own MB, the MB of the processes below it)."""
        own = self.own.mb()
        if not self.whole_tree:
            return own, 0.0
        now = time.monotonic()
        if self.read_at is None or now - self.read_at >= TREE_REFRESH_S:
            below = set(descendants(self.pid))
            for pid in set(self.members) - below:
                self.members.pop(pid).close()
            for pid in below - set(self.members):
                self.members[pid] = Rss(pid)
            self.read_at = now
        return own, sum(r.mb() for r in self.members.values())

    def rss_mb(self) -> float:
        own, below = self.split()
        return own + below

    def close(self) -> None:
        self.own.close()
        for reader in self.members.values():
            reader.close()
        self.members.clear()


#: the largest peak RSS (kB) of a child reaped by :func:`reap` since :func:`reaped_peak_kb`
#: was last reset
_REAPED_KB = [0]


def reap(proc: subprocess.Popen[bytes], timeout: float | None = None) -> int:
    """``proc.wait(timeout)`` for a :class:`subprocess.Popen`, reaped with ``wait4`` so its own
    peak memory is kept (:func:`reaped_peak_kb`): a solver's program measured exactly, however
    briefly it ran. Raises :class:`subprocess.TimeoutExpired` as ``wait`` does."""
    import subprocess
    if proc.returncode is not None:
        return proc.returncode
    deadline = None if timeout is None else time.monotonic() + timeout
    pause = 0.0005
    while True:
        try:
            pid, status, usage = os.wait4(proc.pid, 0 if deadline is None else os.WNOHANG)
        except ChildProcessError:               # reaped already (by Popen itself)
            return proc.wait()
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            _REAPED_KB[0] = max(_REAPED_KB[0], usage.ru_maxrss)
            return proc.returncode
        if deadline is not None and time.monotonic() >= deadline:
            raise subprocess.TimeoutExpired(proc.args, timeout or 0.0)
        time.sleep(pause)
        pause = min(pause * 2, 0.02)


def reaped_peak_kb(reset: bool = False) -> int:
    """The largest peak RSS (kB) of the children :func:`reap` reaped since the last reset (0
    when none); with ``reset``, start again from 0."""
    peak = _REAPED_KB[0]
    if reset:
        _REAPED_KB[0] = 0
    return peak


def child_pids() -> set[int]:
    """The pids of this process's own children (zombies included)."""
    return set(children(os.getpid()))


def kill_adopted(known: set[int], rounds: int = 10) -> float:
    """Kill and reap every child of this process not in ``known``: the orphans it adopted as a
    child subreaper (a solver's program that double-forked and left with ``setsid``), with
    their process groups and everything below them, until none is left (an orphan's own
    children are adopted in turn when it dies). Returns their CPU seconds."""
    cpu = 0.0
    for _ in range(rounds):
        adopted = child_pids() - known
        if not adopted:
            break
        for pid in adopted:
            for below in [*descendants(pid), pid]:
                if _group(below) > 0:
                    control.kill_group(_group(below))
                if below > 0:
                    control.kill(below)
        for pid in adopted:
            try:
                _, _, usage = os.wait4(pid, 0)
                cpu += usage.ru_utime + usage.ru_stime
            except ChildProcessError:
                pass
    return cpu


def _group(pid: int) -> int:
    """The process group of ``pid`` (0 when it is gone or is this process's own group)."""
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
