"""Temp directories of worker processes: ``race-worker-PARENTPID-*`` in the system temp dir.

Each worker runs with ``TMPDIR`` pointing at a directory of its own, which the
parent removes when it reaps the worker (:mod:`experiments.harness.executor`).
A parent that was itself killed cannot; the next :func:`make` removes the
directories of parents that no longer exist.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile

_NAME = re.compile(r"race-worker-([0-9]{1,10})-[A-Za-z0-9_]+")


def make() -> str:
    """A fresh temp directory for one worker of this process (after removing orphans)."""
    root = tempfile.gettempdir()
    _sweep(root)
    return tempfile.mkdtemp(prefix=f"race-worker-{os.getpid()}-", dir=root)


def remove(path: str) -> None:
    """Remove a worker's temp directory and everything in it (absent is fine)."""
    shutil.rmtree(path, ignore_errors=True)


def _sweep(root: str) -> None:
    """Remove the worker directories of parents that no longer exist."""
    try:
        entries = os.listdir(root)
    except OSError:
        return
    for entry in entries:
        match = _NAME.fullmatch(entry)
        if match and not _alive(int(match.group(1))):
            remove(os.path.join(root, entry))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True
