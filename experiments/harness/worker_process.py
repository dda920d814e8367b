"""One worker process, seen from the parent: started in a session of its own (so a kill takes
its whole process group, solver binaries included), pinned to its CPUs before its program
starts, fed one JSON line per request on stdin and read one JSON line per reply from stdout
(:mod:`experiments.harness.worker`), its process tree's memory read on demand, and killed
with every process group below it. The executor (:mod:`experiments.harness.executor`)
decides when; this module knows how.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from typing import IO, Any

import orjson

from experiments.harness import worker_tmpdir, worker_zygote
from solvers.processes import control
from solvers.processes.control import start_hook
from solvers.processes.tree import TreeMemory, descendants


def worker_env() -> dict[str, str]:
    """The environment of a worker: this process's, with ``sys.path`` as PYTHONPATH
    so whatever the parent can import (e.g. a solver defined by a test) the worker can too."""
    env = dict(os.environ)
    paths = [p for p in sys.path if p and os.path.isdir(p)]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


class WorkerProcess:
    """The parent's handle on one worker subprocess (in a session of its own).

    The worker gets a temp directory of its own (``TMPDIR``), removed when the worker
    is reaped: a worker killed at its limit cannot clean up its temporary files (an
    external SAT solver's DIMACS file, ...), so the parent does."""

    def __init__(self, init: dict[str, Any], env: dict[str, str] | None = None,
                 die_with_parent: bool = True, cpu: int | None = None,
                 zygote: worker_zygote.Zygote | None = None) -> None:
        self.entrant: str = init["spec"]
        self.ready: dict[str, Any] | None = None
        self._stderr = tempfile.TemporaryFile()    # noqa: SIM115 - the worker's, closed with it
        self.tmpdir = worker_tmpdir.make()
        env = dict(env if env is not None else worker_env(), TMPDIR=self.tmpdir)
        self.proc: subprocess.Popen[bytes] | worker_zygote.ForkedWorker
        try:
            self.proc = self._fork(zygote, env, die_with_parent, cpu) or subprocess.Popen(
                [sys.executable, "-m", "experiments.harness.worker"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=self._stderr, start_new_session=True,
                env=env, bufsize=0, preexec_fn=start_hook(die_with_parent, cpu))
        except BaseException:
            worker_tmpdir.remove(self.tmpdir)
            raise
        assert self.proc.stdin is not None and self.proc.stdout is not None   # both piped
        self.stdin: IO[bytes] = self.proc.stdin
        self.stdout: IO[bytes] = self.proc.stdout
        self._buf = b""
        self.memory = TreeMemory(self.proc.pid)
        self.send({"op": "init", **init})

    def _fork(self, zygote: worker_zygote.Zygote | None, env: dict[str, str],
              die_with_parent: bool, cpu: int | None) -> worker_zygote.ForkedWorker | None:
        """The worker forked by ``zygote`` (warm: ready in milliseconds), or None when there
        is none for this environment or it cannot fork (then a fresh interpreter starts)."""
        if zygote is None or not zygote.alive() or not worker_zygote.matches(zygote, env):
            return None
        try:
            return zygote.fork(env, die_with_parent, cpu, self._stderr)
        except OSError:
            return None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def fileno(self) -> int:
        return self.stdout.fileno()

    def send(self, message: dict[str, Any]) -> bool:
        """Send one request; False when the worker is gone."""
        try:
            data = orjson.dumps(message)
        except TypeError:               # what orjson cannot write (an integer beyond 64 bits)
            data = json.dumps(message).encode()
        try:
            self.stdin.write(data + b"\n")
            return True
        except (BrokenPipeError, OSError):
            return False

    def receive(self) -> list[Any] | None:
        """The complete replies available now (call when readable), decoded in one pass;
        None at EOF. A line that is not JSON (nothing but the worker writes there) ends the
        protocol: :class:`ValueError`."""
        data = os.read(self.fileno(), 1 << 20)
        if not data:
            return None
        self._buf += data
        *lines, self._buf = self._buf.split(b"\n")
        lines = [line for line in lines if line.strip()]
        if not lines:
            return []
        try:                            # orjson: a quarter of json's time per reply
            return orjson.loads(b"[" + b",".join(lines) + b"]")   # type: ignore[no-any-return]
        except ValueError:              # what orjson refuses (NaN, huge integers): json decides
            return [json.loads(line) for line in lines]

    def kill(self) -> None:
        """SIGKILL the worker's whole process group, and the groups of its descendants (an
        outside program runs in a session of its own; its children would outlive the
        worker), then reap it."""
        groups = {self.proc.pid}
        for pid in descendants(self.proc.pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                groups.add(os.getpgid(pid))
        groups.discard(os.getpgrp())
        for group in groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                control.kill_group(group)
        self.proc.wait()
        self._close_files()
        self.memory.close()
        worker_tmpdir.remove(self.tmpdir)

    def stop(self) -> None:
        """Ask an idle worker to exit (closes its stdin); kill it if it lingers."""
        try:
            self.stdin.close()
            self.proc.wait(timeout=2)
        except (subprocess.TimeoutExpired, OSError):
            pass
        self.kill()

    def _close_files(self) -> None:
        for f in (self.stdin, self.stdout, self._stderr):
            with contextlib.suppress(OSError):
                f.close()

    def death(self) -> str:
        """Why the worker died, with the tail of its stderr (call after EOF)."""
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        if code is not None and code < 0:
            how = f"killed by {signal.Signals(-code).name}"
        else:
            how = f"exit status {code}"
        try:
            self._stderr.seek(0)
            tail = self._stderr.read().decode(errors="replace").strip().splitlines()[-3:]
        except (OSError, ValueError):
            tail = []
        return f"worker died ({how})" + (": " + " | ".join(tail) if tail else "")

    def rss_mb(self) -> float:
        return self.memory.rss_mb()
