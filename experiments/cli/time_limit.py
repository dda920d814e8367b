"""The wall-time limit of ``race solve|count --timeout S``: the answer and the exit status
agree in every interleaving of the limit with the end of the work.

:func:`limit_wall_time` forks. The child does the work in a session of its own; the parent
keeps the time. They meet once, when the work is done (:func:`answer_within`): the child
asks to answer (a byte on one pipe) and waits for the verdict; the parent says yes (a byte
on the other pipe) when the request is in by the limit -- it looks once more when the limit
passes, so a request that came in just before is granted -- and from then on the limit no
longer applies: the child writes its answer (or its error) and its exit status is the
command's. Otherwise the parent says no (closes its end) and stops the child: SIGTERM, and
after :data:`TERM_GRACE_S` SIGKILL to its process group; then it exits
:data:`TIMEOUT_EXIT` with one line on stderr. The child writes nothing to stdout before the
yes, so an answer is printed only when granted and "no answer within S s" only when not.

SIGTERM in the child: during the work it raises :class:`solvers.interface.Stop`, which stops
the search where it is (the solvers it started are killed on the way out); before the work,
after it and while waiting for the verdict it ends the child at once. Either way the child
exits :data:`TIMEOUT_EXIT` quietly: no traceback, in any interleaving. SIGTERM is blocked
across the fork, so it never meets the child before its handler is in place.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import TypeVar

import click

from solvers.processes import control

#: exit status of ``race solve|count`` without an answer (the limit, or no answer found)
TIMEOUT_EXIT = 3
#: after SIGTERM, how long the child gets to stop the solvers it started before SIGKILL
TERM_GRACE_S = 0.5
#: how often (s) the parent looks at the child and the clock
POLL_S = 0.01

T = TypeVar("T")

#: in the child: (the end on which it asks to answer, the end on which the verdict comes)
_pipes: tuple[int, int] | None = None


def limit_wall_time(timeout: float | None, command: str, source: str) -> None:
    """With ``timeout``: fork (module docstring). The child returns at once and does the
    command's work, which must go through :func:`answer_within`; the parent never returns:
    it exits with the child's status, or ``TIMEOUT_EXIT`` with one line on stderr naming
    ``command`` and ``source``. Without ``timeout``: nothing."""
    global _pipes
    if timeout is None:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    ask_r, ask_w = os.pipe()
    verdict_r, verdict_w = os.pipe()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    pid = control.fork_here(new_session=True)           # the child: a group of its own
    if pid == 0:
        os.close(ask_r)
        os.close(verdict_w)
        _pipes = (ask_w, verdict_r)
        signal.signal(signal.SIGTERM, _exit_quietly)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        return
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    os.close(ask_w)
    os.close(verdict_r)
    os.set_blocking(ask_r, False)
    try:
        if _asked_in_time(pid, ask_r, time.monotonic() + timeout, command, source):
            with contextlib.suppress(OSError):      # gone already: its status says how
                os.write(verdict_w, b"1")
            ended = control.reap(pid)
            os._exit(_exit_code(ended[0] if ended else 0, command, source))
    except BaseException:
        _stop(pid)
        raise
    os.close(verdict_w)                     # no: a child still waiting reads the end of it
    _stop(pid)
    click.echo(f"race {command}: no answer within {timeout:g} s ({source})", err=True)
    os._exit(TIMEOUT_EXIT)


def _asked_in_time(pid: int, ask_r: int, deadline: float, command: str, source: str) -> bool:
    """Did the child ask to answer by ``deadline``? A child that ends without asking ends
    the parent with its status."""
    while True:
        ended = control.reap(pid, block=False)
        if ended is not None:
            os._exit(_exit_code(ended[0], command, source))
        if _asked(ask_r):
            return True
        if past(deadline):
            return _asked(ask_r)            # once more: a request that came in by now counts
        time.sleep(POLL_S)


def past(deadline: float) -> bool:
    """Has the clock passed ``deadline``?"""
    return time.monotonic() >= deadline


def _asked(ask_r: int) -> bool:
    try:
        return os.read(ask_r, 1) == b"1"
    except BlockingIOError:
        return False


def _exit_code(status: int, command: str, source: str) -> int:
    """The child's exit status as the command's; a child killed by a signal is an error."""
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        click.echo(f"race {command}: error: the process answering {source} died "
                   f"(signal {-code})", err=True)
        return 2
    return code


def answer_within(work: Callable[[], T]) -> T:
    """In the child of :func:`limit_wall_time`: ``work()``, which SIGTERM stops
    (:class:`solvers.interface.Stop`), then the parent's leave to answer. Returns what
    ``work`` returned, or raises what it raised, only with that leave; without it the child
    exits :data:`TIMEOUT_EXIT` quietly. Without a limit: ``work()``."""
    if _pipes is None:
        return work()
    from solvers.interface import Stop
    try:
        try:
            signal.signal(signal.SIGTERM, _raise_stop)
            found = work()
        finally:
            signal.signal(signal.SIGTERM, _exit_quietly)
    except Stop:
        _exit_quietly()
    except BaseException:
        wait_for_leave()                    # an error is an answer too: it is written only
        raise                               # with the leave, or not at all
    wait_for_leave()
    return found


def wait_for_leave() -> None:
    """In the child: ask the parent to answer and wait for its verdict; no leave (the limit
    passed) ends the child quietly. Nothing to do without a limit or once granted."""
    global _pipes
    if _pipes is None:
        return
    ask_w, verdict_r = _pipes
    try:
        os.write(ask_w, b"1")
        granted = os.read(verdict_r, 1) == b"1"
    except OSError:
        granted = False
    if not granted:
        _exit_quietly()
    _pipes = None
    signal.signal(signal.SIGTERM, signal.SIG_DFL)   # granted: the parent stops it no more


def _raise_stop(signum=None, frame=None) -> None:
    """SIGTERM during the work: stop the search (the solvers it started are killed on the way
    out, then :func:`answer_within` exits quietly)."""
    from solvers.interface import Stop
    raise Stop()


def _exit_quietly(signum=None, frame=None) -> None:
    """SIGTERM outside the work, or no leave to answer: end the child now, writing nothing
    (the parent says why)."""
    os._exit(TIMEOUT_EXIT)


def _stop(pid: int) -> None:
    """SIGTERM the child, give it :data:`TERM_GRACE_S` to exit, then SIGKILL its group."""
    control.kill(pid, signal.SIGTERM)
    end = time.monotonic() + TERM_GRACE_S
    while time.monotonic() < end and control.running(pid):
        time.sleep(POLL_S)
    control.kill_group(pid)
    control.reap(pid)                                   # reaped already: nothing to do
