"""Warm worker starts: a *zygote* process forks each measurement worker.

A fresh worker (``python -m experiments.harness.worker``) spends about 1 s of CPU before its
first cell: the interpreter, numpy, numba and its compiler, the solvers. A race replaces the
worker of every cell killed at its limit, so on hard puzzles those starts add up (a campaign
of 40 timeouts pays 40 s of them). The zygote pays them once: it imports what every worker
imports, initialises numba's compiler, then waits. Each worker is ``fork()``-ed from it, in a
session of its own, pinned to its CPU, asked to die with the zygote (which dies with the
harness), with the pipes and stderr file the parent handed over (``SCM_RIGHTS``) as its fds 0,
1 and 2, in the parent's working directory of that moment (handed over as a fd too) and with
its umask; it then runs :func:`experiments.harness.worker.main` as a fresh worker would, and
loads its entrant's own compiled kernels itself (no other entrant's code is in its memory
beyond what every worker holds). Its CPU time and peak memory are its own (a forked process
starts with zero CPU time; the harness resets its peak RSS before each cell).

The parent talks to the zygote over a Unix socket, one JSON line each way: ``{"op": "fork",
"cpu", "die_with_parent", "env", "umask"}`` with four fds -> ``{"op": "forked", "pid"}``; the
zygote reaps its children and sends ``{"op": "exit", "pid", "code"}`` for each (``code`` as
:attr:`subprocess.Popen.returncode`: negative for a signal). :class:`ForkedWorker` is the
parent's handle, with the part of :class:`subprocess.Popen` the harness uses.

The executor (:mod:`experiments.harness.executor`) takes its zygote (:func:`take`) with its
first worker and leaves it when it closes (:func:`leave`): the next executor of the same thread
and environment (a Python program or a notebook that runs several races) forks from it instead
of paying a start of its own. A zygote left unused ends itself after :data:`IDLE_S`, and it
ends with the process that started it. If the zygote cannot start or fork, or a worker needs
another environment, the worker is a fresh interpreter as before
(:mod:`experiments.harness.worker_process`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from solvers.processes import control
from solvers.processes.tree import exists

#: the environment variables a worker may have of its own (the rest is the zygote's)
OWN_ENV = ("TMPDIR",)
#: how long the zygote may take to import and initialise before the harness gives up on it
START_TIMEOUT_S = 60.0
#: a zygote without a worker ends itself after this many seconds without a request; an executor
#: takes a zygote left by an earlier one only within half of it (no race with its end)
IDLE_S = 60.0


def _env_key(env: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in env.items() if k not in OWN_ENV))


class Zygote:
    """The parent's handle on one zygote process (started with ``env``; with
    ``die_with_parent`` the kernel kills it when the thread that started it ends, and its
    workers that ask to die with their parent die with it)."""

    def __init__(self, env: dict[str, str], die_with_parent: bool = True,
                 idle_s: float = IDLE_S) -> None:
        from solvers.processes.control import die_with_parent as die_with_parent_signal
        self.key = _env_key(env)
        self.die_with_parent = die_with_parent
        #: the thread that started it (with ``die_with_parent``, it ends when that thread does)
        self.thread = threading.get_ident()
        self.codes: dict[int, int] = {}
        self._buf = b""
        self._lock = threading.Lock()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "experiments.harness.worker_zygote", str(theirs.fileno()),
                 repr(float(idle_s))],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),), env=env, start_new_session=True,
                preexec_fn=die_with_parent_signal if die_with_parent else None)
        finally:
            theirs.close()
        self.sock = ours
        reply = self._next(lambda m: m.get("op") == "ready", time.monotonic() + START_TIMEOUT_S)
        if reply is None:
            self.close()
            raise OSError("the worker zygote did not start")

    def _next(self, wanted: Callable[[dict[str, Any]], bool], deadline: float | None
              ) -> dict[str, Any] | None:
        """Read the zygote's messages (recording exits) until one is ``wanted``; None at
        EOF or past ``deadline`` (None: no wait beyond what is already there)."""
        while True:
            while b"\n" in self._buf:
                line, self._buf = self._buf.split(b"\n", 1)
                message = json.loads(line)
                if message.get("op") == "exit":
                    self.codes[int(message["pid"])] = int(message["code"])
                if wanted(message):
                    return message
            if self.sock.fileno() < 0:          # closed: this zygote is gone for the harness
                return None
            left = 0.0 if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                if not select.select([self.sock], [], [], left)[0]:
                    return None
                data = self.sock.recv(1 << 16)
            except OSError:
                return None
            if not data:
                return None
            self._buf += data

    def alive(self) -> bool:
        return self.sock.fileno() >= 0 and self.proc.poll() is None

    def fork(self, env: dict[str, str], die_with_parent: bool, cpu: int | None,
             stderr: IO[bytes]) -> ForkedWorker:
        """A new worker forked by the zygote, with pipes to its stdin and stdout."""
        here = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)   # as Popen: our cwd
        try:
            child_in, to_child = os.pipe()
            from_child, child_out = os.pipe()
        except OSError:
            os.close(here)
            raise
        request = {"op": "fork", "cpu": cpu, "die_with_parent": die_with_parent,
                   "env": {k: env[k] for k in OWN_ENV if k in env}, "umask": _umask()}
        try:
            with self._lock:
                socket.send_fds(self.sock, [(json.dumps(request) + "\n").encode()],
                                [child_in, child_out, stderr.fileno(), here])
                reply = self._next(lambda m: m.get("op") in ("forked", "failed"),
                                   time.monotonic() + START_TIMEOUT_S)
        except OSError:
            reply = None
        finally:
            os.close(child_in)
            os.close(child_out)
            os.close(here)
        if reply is None or reply["op"] != "forked":
            os.close(to_child)
            os.close(from_child)
            raise OSError("the worker zygote did not fork" +
                          (f": {reply['message']}" if reply else ""))
        self.codes.pop(int(reply["pid"]), None)     # an earlier worker's of the same pid
        return ForkedWorker(self, int(reply["pid"]), os.fdopen(to_child, "wb", buffering=0),
                            os.fdopen(from_child, "rb", buffering=0))

    def code(self, pid: int, timeout: float | None) -> int | None:
        """``pid``'s exit code once the zygote has reaped it (waiting up to ``timeout`` s,
        None: as long as it takes); None if it has not (or the zygote is gone)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while pid not in self.codes:
                left = 3600.0 if deadline is None else max(0.0, deadline - time.monotonic())
                if self._next(lambda m: m.get("op") == "exit" and int(m["pid"]) == pid,
                              time.monotonic() + left) is None:
                    break
            return self.codes.pop(pid, None)

    def close(self) -> None:
        """End the zygote (its idle children are the executor's to stop first)."""
        with contextlib.suppress(OSError):
            self.sock.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class ForkedWorker:
    """A worker forked by a :class:`Zygote`: what the harness uses of :class:`subprocess.Popen`
    (``pid``, ``stdin``, ``stdout``, ``poll``, ``wait``, ``returncode``)."""

    def __init__(self, zygote: Zygote, pid: int, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        self.zygote, self.pid, self.stdin, self.stdout = zygote, pid, stdin, stdout
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """The exit code if the worker has ended (reaped by the zygote), else None."""
        if self.returncode is None:
            code = self.zygote.code(self.pid, 0.0)
            if code is not None:
                self.returncode = code
            elif not self.zygote.alive() or not exists(self.pid):
                self.returncode = -signal.SIGKILL       # no zygote left to say: killed with it
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """The exit code, waiting up to ``timeout`` s (None: as long as it takes)."""
        if self.returncode is None:
            code = self.zygote.code(self.pid, timeout)
            if code is None and self.zygote.alive() and exists(self.pid):
                raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout or 0.0)
            self.returncode = code if code is not None else -signal.SIGKILL
        return self.returncode


def _umask() -> int | None:
    """This process's umask, as a fresh worker would inherit it (None where the kernel does
    not say: the worker keeps the zygote's)."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return None


def matches(zygote: Zygote, env: dict[str, str]) -> bool:
    """Whether ``zygote`` can fork a worker of environment ``env`` (the same but for
    :data:`OWN_ENV`)."""
    return zygote.key == _env_key(env)


#: the zygotes executors of this process left (:func:`leave`), by the thread that started
#: each and its environment: (zygote, when it was left)
_LEFT: dict[tuple[int, tuple[tuple[str, str], ...]], tuple[Zygote, float]] = {}
#: at most this many zygotes are left waiting at once (the oldest is ended first)
MAX_LEFT = 2


def take(env: dict[str, str], die_with_parent: bool = True) -> Zygote:
    """A zygote for an executor of environment ``env``: the one an earlier executor of this
    thread left for the same environment, if it is alive and was left less than half of
    :data:`IDLE_S` ago; else a new one (OSError when it cannot start)."""
    if die_with_parent:
        left = _LEFT.pop((threading.get_ident(), _env_key(env)), None)
        if left is not None:
            zygote, when = left
            if time.monotonic() - when < IDLE_S / 2 and zygote.alive():
                return zygote
            zygote.close()
    return Zygote(env, die_with_parent)


def leave(zygote: Zygote) -> None:
    """An executor is done with ``zygote`` (its workers stopped): it waits for the next executor
    of this thread and environment (:func:`take`), ending itself after :data:`IDLE_S`; one
    that does not die with this process (or whose thread is another) is ended now."""
    if not zygote.die_with_parent or zygote.thread != threading.get_ident() or not zygote.alive():
        zygote.close()
        return
    key = (zygote.thread, zygote.key)
    earlier = _LEFT.pop(key, None)
    if earlier is not None and earlier[0] is not zygote:
        earlier[0].close()
    while len(_LEFT) >= MAX_LEFT:
        _LEFT.pop(next(iter(_LEFT)))[0].close()
    _LEFT[key] = (zygote, time.monotonic())


def end_left() -> None:
    """End every zygote waiting for an executor (at exit; a caller that wants none left)."""
    while _LEFT:
        _LEFT.popitem()[1][0].close()


atexit.register(end_left)


# -- the zygote's side ---------------------------------------------------------------------

#: the fds of a fork request: the worker's stdin, stdout and stderr, and its working directory
_FDS = 4
#: the directory the zygote started in (``sys.path[0]`` of ``python -m``; set by :func:`serve`)
_STARTED_IN: str | None = None


def _preload() -> None:
    """Import what every worker imports and initialise numba's compiler (by loading one tiny
    kernel): the part of a worker's start that does not depend on its entrant."""
    import experiments.harness.worker  # noqa: F401
    import solvers.registry  # noqa: F401
    for name in ("solvers.backtracking", "solvers.exact_cover.dlx", "solvers.bitsets.solver", "solvers.sat.solver"):
        with contextlib.suppress(ImportError):
            __import__(name)
    from solvers.rules.bitsets import popcount
    popcount(7)


def _child(request: dict[str, Any], fds: list[int], sock: socket.socket,
           wake: tuple[int, int]) -> None:
    """In the forked child: become a worker (never returns)."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        sock.close()
        for fd in wake:
            os.close(fd)
        if request.get("cpu") is not None:
            control.pin({int(request["cpu"])})
        here = fds.pop()                        # the parent's working directory, now the worker's
        os.fchdir(here)
        os.close(here)
        if sys.path and sys.path[0] == _STARTED_IN:     # as `python -m` in that directory
            with contextlib.suppress(OSError):
                sys.path[0] = os.getcwd()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.environ.update(request.get("env") or {})
        if request.get("umask") is not None:
            os.umask(int(request["umask"]))
        import tempfile
        tempfile.tempdir = None                 # TMPDIR is the worker's own
        atexit._clear()                         # the zygote's exit handlers are not the worker's
        from experiments.harness import worker
        worker.main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        import traceback
        traceback.print_exc()
    finally:
        try:
            atexit._run_exitfuncs()             # what its entrant registered, as at any exit
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def serve(fd: int, idle_s: float = IDLE_S) -> None:
    """The zygote: preload, say ready, then fork a worker per request and report each exit,
    until the parent closes the socket, or none of its workers is left and no request came
    for ``idle_s`` seconds."""
    global _STARTED_IN
    _STARTED_IN = os.getcwd()
    sock = socket.socket(fileno=fd)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    _preload()
    sock.sendall(b'{"op": "ready"}\n')
    buf = b""
    fds: list[int] = []
    children: set[int] = set()
    while True:
        readable = select.select([sock.fileno(), wake_r], [], [],
                                 None if children else idle_s)[0]
        if not readable and not children:
            return                              # idle: no worker, no request
        if wake_r in readable:
            os.read(wake_r, 4096)
        while (ended := control.reap_any()) is not None:    # every child that has ended
            pid, status = ended
            children.discard(pid)
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            sock.sendall((json.dumps({"op": "exit", "pid": pid, "code": code}) + "\n").encode())
        if sock.fileno() not in readable:
            continue
        data, got, _, _ = socket.recv_fds(sock, 1 << 16, _FDS)
        if not data:
            return
        buf += data
        fds += got
        while b"\n" in buf and len(fds) >= _FDS:
            line, buf = buf.split(b"\n", 1)
            mine, fds = fds[:_FDS], fds[_FDS:]
            request = json.loads(line)
            try:                                # a session of its own, dying with the zygote if asked
                pid = control.fork_here(new_session=True,
                                        die_with_parent_too=bool(request.get("die_with_parent")))
            except OSError as exc:
                for f in mine:
                    os.close(f)
                sock.sendall((json.dumps({"op": "failed", "message": str(exc)}) + "\n").encode())
                continue
            if pid == 0:
                _child(request, mine, sock, (wake_r, wake_w))
            children.add(pid)
            for f in mine:
                os.close(f)
            sock.sendall((json.dumps({"op": "forked", "pid": pid}) + "\n").encode())


if __name__ == "__main__":
    serve(int(sys.argv[1]), float(sys.argv[2]) if len(sys.argv) > 2 else IDLE_S)
