"""Running an outside program under limits: time, memory, output size, no shell.

:func:`run_limited` starts a command (an argument list, never a shell string)
in its own session, so its whole process group can be killed; the child also
dies with this process (``PR_SET_PDEATHSIG``) and, when asked, runs under an
address-space limit (``RLIMIT_AS``). Standard input comes from a file (never a
pipe, so a child that does not read it cannot block us). Standard output and
error are read with a byte bound: past ``max_output`` bytes the group is
killed and the run is reported as flooded. After the run, the process group
is killed whatever happened, so a solver's forgotten children do not linger.

This is the one place that knows how to run a child under limits; the ``cmd``
entrant (:mod:`solvers.command`) uses it, and the external SAT backends
(:mod:`solvers.sat.backends`) can too.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import BinaryIO

from formats.errors import RaceError
from solvers.processes.control import kill_group, start_hook
from solvers.processes.tree import (
    child_pids,
    exists,
    is_subreaper,
    kill_adopted,
    reap,
    set_subreaper,
)

#: default bound on the bytes read from a child's stdout (and, separately, stderr).
MAX_OUTPUT = 16 << 20
#: after the program exits, how long (s) the rest of its output may take to arrive
EXIT_GRACE = 0.2
#: how often (s) a read that waits checks whether the program has exited
POLL_EXIT = 0.05


@dataclass
class Finished:
    """How a limited run ended. ``code`` is None when the run was killed
    (``timed_out`` or ``flooded``); output past the bound is dropped."""
    stdout: bytes
    stderr: bytes
    code: int | None
    timed_out: bool = False
    flooded: bool = False
    seconds: float = 0.0
    #: which output flooded: "stdout" or "stderr" ("" when none did)
    flooded_stream: str = ""


def run_limited(command: list[str], *, stdin: BinaryIO | None = None, pass_fds: tuple[int, ...] = (),
                timeout: float = 0.0, memory_mb: int = 0, max_output: int = MAX_OUTPUT) -> Finished:
    """Run ``command`` (no shell) with stdin from the open file ``stdin`` (else
    /dev/null); ``pass_fds`` stay open in the child under the same numbers.

    ``timeout`` seconds (0 = none) of wall time, then the group is killed
    (``timed_out``); ``memory_mb`` (0 = none) caps the child's address space;
    more than ``max_output`` bytes on stdout or stderr kills the group
    (``flooded``). Raises RaceError when the command cannot be started."""
    memory = int(memory_mb) << 20
    t0 = time.perf_counter()
    # the reaper of the orphans of what it starts, for the run: a program that double-forks
    # and leaves with setsid escapes its group's kill, but not kill_adopted
    reaper = not is_subreaper() and set_subreaper(True)
    known = child_pids() if reaper else set()
    try:
        return _run(command, stdin, pass_fds, timeout, memory, max_output, t0)
    finally:
        if reaper:
            kill_adopted(known)
            set_subreaper(False)


def _run(command: list[str], stdin: BinaryIO | None, pass_fds: tuple[int, ...], timeout: float,
         memory: int, max_output: int, t0: float) -> Finished:
    try:
        proc = subprocess.Popen(command, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=pass_fds,
                                start_new_session=True, preexec_fn=start_hook(memory_bytes=memory))
    except OSError as exc:
        raise RaceError(f"cannot run {command[0]}: {exc.strerror}") from None
    try:
        out, err, timed_out, flooded = _read_bounded(proc, timeout, max_output)
        if not (timed_out or flooded):
            # its pipes are closed: let the program finish exiting before its group is
            # killed, or a plain `exit 1` is reported as "killed by signal 9"
            with contextlib.suppress(subprocess.TimeoutExpired):
                reap(proc, EXIT_GRACE)
        kill_group(proc.pid)
        code = reap(proc)
    except BaseException:
        kill_group(proc.pid)
        reap(proc)
        raise
    finally:
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    killed = timed_out or bool(flooded)
    return Finished(out, err, None if killed else code, timed_out, bool(flooded),
                    time.perf_counter() - t0, flooded)


def _read_bounded(proc: subprocess.Popen[bytes], timeout: float, max_output: int
                  ) -> tuple[bytes, bytes, bool, str]:
    """Read both pipes until EOF, the deadline or the byte bound: (stdout, stderr, timed out,
    the stream that passed the bound: "stdout", "stderr" or "" when none did). Once the program itself
    has exited, what is left in the pipes is read for at most :data:`EXIT_GRACE` s: a child
    it forked and left holding the pipes does not hold the answer back."""
    deadline = time.monotonic() + timeout if timeout > 0 else None
    chunks: dict[int, list[bytes]] = {1: [], 2: []}
    sizes = {1: 0, 2: 0}
    exited_at = None
    assert proc.stdout is not None and proc.stderr is not None      # both piped
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ, 1)
        selector.register(proc.stderr, selectors.EVENT_READ, 2)
        while selector.get_map():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return b"".join(chunks[1]), b"".join(chunks[2]), True, ""
            if exited_at is None and proc.poll() is not None:
                exited_at = time.monotonic()
            if exited_at is not None:
                grace = exited_at + EXIT_GRACE - time.monotonic()
                if grace <= 0:
                    break
                left = grace if left is None else min(left, grace)
            else:           # wake up now and then to notice the exit
                left = POLL_EXIT if left is None else min(left, POLL_EXIT)
            for key, _ in selector.select(left):
                data = os.read(key.fd, 65536)
                if not data:
                    selector.unregister(key.fileobj)
                    continue
                sizes[key.data] += len(data)
                if sizes[key.data] > max_output:
                    return (b"".join(chunks[1]), b"".join(chunks[2]), False,
                            "stdout" if key.data == 1 else "stderr")
                chunks[key.data].append(data)
    if deadline is not None:        # pipes closed; the exit itself must also come in time
        try:
            proc.wait(max(deadline - time.monotonic(), 0.0))
        except subprocess.TimeoutExpired:
            return b"".join(chunks[1]), b"".join(chunks[2]), True, ""
    return b"".join(chunks[1]), b"".join(chunks[2]), False, ""


def owned_temp_dir(tag: str) -> str:
    """A fresh ``race-TAG-PID-*`` directory in the system temp dir, owned by this
    process, after removing the ``race-TAG-*`` directories of processes that no
    longer exist (a process killed at its limit cannot clean up after itself)."""
    root = tempfile.gettempdir()
    pattern = re.compile(rf"race-{re.escape(tag)}-([0-9]{{1,10}})-[A-Za-z0-9_]+")
    try:
        entries = os.listdir(root)
    except OSError:
        entries = []
    for entry in entries:
        match = pattern.fullmatch(entry)
        if match and not exists(int(match.group(1))):
            shutil.rmtree(os.path.join(root, entry), ignore_errors=True)
    return tempfile.mkdtemp(prefix=f"race-{tag}-{os.getpid()}-", dir=root)
