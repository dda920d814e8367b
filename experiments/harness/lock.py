"""One writer per campaign: ``race run`` holds ``<campaign>/run.lock`` while it runs.

The lock is an ``fcntl.flock`` on the file, so the kernel releases it when the
holder dies, however it dies (SIGKILL included); the holder's ``pid host time``
is written inside, for the message a second run gets. A lock file that still
names a holder but is not locked was left by a run that died: it is taken over
with a note. A clean release removes the file while it still holds the lock, and a run
that took the lock checks that the file it locked is still the one of that name (else it
locked a file a release just removed, and tries again): two runs never hold two files of
the same name, and a finished campaign has no ``run.lock`` left in it.
"""

from __future__ import annotations

import fcntl
import os
import socket
import sys
from pathlib import Path

from experiments.harness.provenance import utc_now
from formats.errors import RaceError
from solvers.processes.tree import exists

#: the lock file's name in a campaign directory
LOCK_NAME = "run.lock"


def _holder(text: str) -> str:
    """``pid P on host H (since T)`` from a lock file's content (``?`` for unreadable parts)."""
    parts = text.split()
    pid = parts[0] if parts and parts[0].isdigit() else "?"
    host = parts[1] if len(parts) > 1 else "?"
    since = f" (since {parts[2]})" if len(parts) > 2 else ""
    return f"pid {pid} on host {host}{since}"


class CampaignLock:
    """The exclusive right to write a campaign directory (a context manager).

    Raises RaceError naming the holder (pid, host) when another process holds it.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.path = self.directory / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock or raise RaceError; note on stderr when a stale holder is replaced."""
        self.directory.mkdir(parents=True, exist_ok=True)
        for _ in range(100):
            fd = self._locked()
            if fd is not None:
                break
        else:
            raise RaceError(f"{self.path}: the campaign lock keeps being removed while it is taken")
        previous = os.pread(fd, 256, 0).decode("utf-8", "replace").strip()
        if previous:
            self._note_stale(previous)
        mine = f"{os.getpid()} {socket.gethostname()} {utc_now()}\n".encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, mine, 0)
        self._fd = fd

    def _locked(self) -> int | None:
        """The locked descriptor of the lock file, or None when the file locked was removed
        (by a release) before the lock was taken. Raises RaceError when another run holds it."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise RaceError(f"{self.path}: cannot open the campaign lock: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(os.pread(fd, 256, 0).decode("utf-8", "replace"))
            os.close(fd)
            raise RaceError(f"{self.directory}: campaign in use by another `race run` ({holder}); "
                            f"wait for it or stop it (lock file {self.path})") from None
        try:
            named = os.stat(self.path)
        except FileNotFoundError:
            named = None
        mine = os.fstat(fd)
        if named is None or (named.st_dev, named.st_ino) != (mine.st_dev, mine.st_ino):
            os.close(fd)
            return None
        return fd

    def _note_stale(self, previous: str) -> None:
        parts = previous.split()
        same_host = len(parts) > 1 and parts[1] == socket.gethostname()
        gone = same_host and parts[0].isdigit() and not exists(int(parts[0]))
        why = "its process is gone" if gone else "it no longer holds the lock"
        print(f"race: note: {self.directory}: taking over the lock of a run that ended without "
              f"releasing it ({_holder(previous)}; {why})", file=sys.stderr)

    def release(self) -> None:
        """Remove the lock file (emptied first) and unlock it (idempotent)."""
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, 0)
            os.unlink(self.path)                  # still locked: no run holds the old file
        except OSError:
            pass                                  # the kernel still drops the lock on close
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> CampaignLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
