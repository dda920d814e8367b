"""Process control, in one place: forking a child, a pool of forked processes, a child that
dies with its parent, pinning to CPUs, limits on memory and file size, killing a process or
its group, and reaping a child with its resource usage.

Every process the project starts goes through here: the harness's workers and their zygote
(:mod:`experiments.harness.worker_zygote`, :mod:`experiments.harness.worker_process`), the
members of ``parallel`` (:mod:`solvers.processes.members`), ``cmd:`` programs and the second
methods' solvers (:mod:`solvers.processes.limited`), the generators' pools
(:mod:`generators.parallel_sets`, :mod:`generators.speculative_removal`), the report's forked
page writer (:mod:`experiments.cli.run_report`) and the CLI's wall-time limit
(:mod:`experiments.cli.time_limit`). Reading a process tree and its memory is
:mod:`solvers.processes.tree`'s.

Every child here dies with the process that started it (``PR_SET_PDEATHSIG``, and at once if
that one is gone already), so a killed race leaves nothing running behind it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

#: the signal a child gets when its parent dies
PARENT_DEATH_SIGNAL = signal.SIGKILL


def die_with_parent() -> None:
    """In a child (before exec, or forked): ask the kernel to SIGKILL it when its parent dies
    (``PR_SET_PDEATHSIG``); nothing where the kernel has no such call."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, PARENT_DEATH_SIGNAL)


def die_with(parent: int) -> None:
    """In a forked child: die with ``parent`` (:func:`die_with_parent`), and at once if it is
    gone already (ended between the fork and this call)."""
    die_with_parent()
    if os.getppid() != parent:
        os._exit(1)


def pin(cpus: set[int] | list[int] | None) -> bool:
    """Run this process on ``cpus`` only (None or empty: leave it); False where the OS cannot
    pin or refuses these CPUs."""
    if not cpus or not hasattr(os, "sched_setaffinity"):
        return False
    try:
        os.sched_setaffinity(0, {int(c) for c in cpus})
        return True
    except OSError:
        return False


def start_hook(die_with_parent_too: bool = True, cpu: int | None = None,
               memory_bytes: int = 0, file_bytes: int = 0) -> Callable[[], None] | None:
    """A ``preexec_fn`` for :class:`subprocess.Popen`: in the child, before its program starts,
    die with the parent, run on ``cpu`` alone, and cap the address space (``RLIMIT_AS``) and
    the size of any file written (``RLIMIT_FSIZE``: SIGXFSZ beyond) when > 0. None when
    there is nothing to do."""
    if not die_with_parent_too and cpu is None and memory_bytes <= 0 and file_bytes <= 0:
        return None

    def setup() -> None:                  # runs in the child, before exec
        if die_with_parent_too:
            die_with_parent()
        if cpu is not None:
            pin({cpu})
        if memory_bytes > 0:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        if file_bytes > 0:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    return setup


def fork_here(*, new_session: bool = False, die_with_parent_too: bool = True) -> int:
    """Fork; both go on from here: the parent gets the child's pid, the child 0, after it
    started a session of its own with ``new_session`` (a group of its own: killed with
    whatever it starts) and, with ``die_with_parent_too``, asked to die with its parent."""
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        if new_session:
            os.setsid()
        if die_with_parent_too:
            die_with(parent)
    return pid


def fork(child: Callable[[], None], *, new_session: bool = False,
         die_with_parent_too: bool = True) -> int:
    """Fork (:func:`fork_here`); the child runs ``child()`` and exits (0, or 1 when it raised;
    never returns). Returns the child's pid. A caller that must not be interrupted between the
    fork and its record of the child blocks the signals around this call (the child unblocks
    them in ``child``)."""
    pid = fork_here(new_session=new_session, die_with_parent_too=die_with_parent_too)
    if pid == 0:
        code = 1
        try:
            child()
            code = 0
        finally:
            os._exit(code)
    return pid


def fork_context() -> Any:
    """multiprocessing's ``fork`` context (a child inherits the warm parent: imports and
    compiled kernels)."""
    import multiprocessing
    return multiprocessing.get_context("fork")


def pool(jobs: int) -> ProcessPoolExecutor:
    """A pool of ``jobs`` forked processes that die with this one."""
    from concurrent.futures import ProcessPoolExecutor
    return ProcessPoolExecutor(max_workers=jobs, mp_context=fork_context(), initializer=die_with,
                               initargs=(os.getpid(),))


def kill(pid: int, sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` (SIGKILL) to ``pid``; gone already or not ours: nothing to do."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` (SIGKILL) to the process group ``pgid`` (gone already: nothing to do)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def running(pid: int) -> bool:
    """Whether this process's child ``pid`` is still running (not exited, not reaped)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return not done      # exited: its status is gone now (reaped here)


def reap_any() -> tuple[int, int] | None:
    """An ended child of this process, reaped: its pid and wait status; None when none has
    ended (or there is no child)."""
    try:
        pid, status = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return None
    return (pid, status) if pid else None


def reap(pid: int, block: bool = True) -> tuple[int, resource.struct_rusage] | None:
    """Wait for this process's child ``pid`` (``block`` False: only if it has ended) and return
    its wait status and resource usage (its own and its waited-for children's: CPU, peak
    memory); None when it has not ended or is not (or no longer) this process's child."""
    try:
        done, status, usage = os.wait4(pid, 0 if block else os.WNOHANG)
    except ChildProcessError:
        return None
    return (status, usage) if done else None
