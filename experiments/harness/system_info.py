"""What a campaign ran with, as meta.json records it: the package's git commit, the versions
of the packages that measure, kissat's version, and the machine's hardware (its state while
running is :mod:`experiments.harness.machine`'s)."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

#: packages whose versions go into meta.json (this one first: the version `race --version` prints)
PACKAGES = ("sudoku-race", "numpy", "numba", "python-sat", "passagemath-kissat", "ortools", "pandas",
            "click", "tqdm", "dask", "distributed")


def repo_root() -> Path:
    """The project directory (where ``experiments/`` lives)."""
    return Path(__file__).resolve().parents[2]


def git_commit() -> str | None:
    """``git rev-parse HEAD`` of the project (``-dirty`` with uncommitted changes), if any."""
    root = repo_root()
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                                text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (commit + ("-dirty" if dirty else "")) or None


def kissat_version() -> str | None:
    """``kissat --version`` of the binary the SAT solver would use, if there is one."""
    try:
        from solvers.sat.backends import find_kissat
        binary: str | None = find_kissat()
    except Exception:  # noqa: BLE001 - no SAT module or no binary: just "no version"
        binary = shutil.which("kissat")
    if not binary:
        return None
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip().splitlines()[0] if out.stdout.strip() else None
    except (OSError, subprocess.SubprocessError):
        return None


def machine() -> dict[str, Any]:
    """CPU model, cores, RAM (GB), OS and host name of this machine."""
    cpu = platform.processor() or None
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")),
                       cpu)
    except OSError:
        pass
    ram = None
    try:
        with open("/proc/meminfo") as f:
            kb = next(int(line.split()[1]) for line in f if line.startswith("MemTotal:"))
            ram = round(kb / 1024 ** 2, 1)
    except (OSError, StopIteration):
        pass
    return {"cpu_model": cpu, "cores": os.cpu_count(), "ram_gb": ram,
            "os": platform.platform(), "hostname": socket.gethostname()}


def packages() -> dict[str, str | None]:
    """Installed versions of :data:`PACKAGES` (None when missing)."""
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions
