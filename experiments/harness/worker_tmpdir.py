"""Temp directories of worker processes: ``race-worker-PARENTPID-*`` in the system temp dir.

Each worker runs with ``TMPDIR`` pointing at a directory of its own, which the
parent removes when it reaps the worker (:mod:`experiments.harness.executor`).
A parent that was itself killed cannot; the next :func:`make` removes the
directories of parents that no longer exist.
"""

from __future__ import annotations

import shutil

from solvers.processes.limited import owned_temp_dir


def make() -> str:
    """A fresh temp directory for one worker of this process (after removing orphans)."""
    return owned_temp_dir("worker")


def remove(path: str) -> None:
    """Remove a worker's temp directory and everything in it (absent is fine)."""
    shutil.rmtree(path, ignore_errors=True)

