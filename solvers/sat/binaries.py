"""Where the SAT programs the race can run live, and which version each is (``race solvers``).

kissat comes with the Python dependencies (the ``passagemath-kissat`` wheel puts it at
``site-packages/sage_wheels/bin/kissat``; ``$KISSAT`` or the ``PATH`` go first, as
:func:`solvers.sat.programs.find_kissat` looks); cadical and minisat are programs on the
``PATH``, e.g. from Debian's packages of those names. :func:`locate` says for one of them where
it is, where it came from and what ``--version`` prints; it never raises for a missing program.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass

from formats.errors import RaceError

#: the SAT programs the race knows by name (``sat:backend=NAME``, ``race sat-solve --backend``)
PROGRAMS: tuple[str, ...] = ("kissat", "cadical", "minisat")
#: how to get each when it is missing
INSTALL = {"kissat": "pip install passagemath-kissat (a dependency of sudoku-race)",
           "cadical": "apt-get install cadical", "minisat": "apt-get install minisat"}
#: seconds a program may take to say its version
VERSION_TIMEOUT = 5.0


@dataclass(frozen=True)
class Located:
    """One SAT program: its name, its path (None: not found), where it came from (the wheel,
    ``$KISSAT``, a Debian package and its version, the PATH) and its ``--version`` line (None:
    it has no such option, as minisat)."""
    name: str
    path: str | None
    origin: str
    version: str | None

    def line(self) -> str:
        """One line for ``race solvers``."""
        if self.path is None:
            return f"{self.name:8s} not found ({self.origin}); to install: {INSTALL[self.name]}"
        version = self.version or "(no --version)"
        return f"{self.name:8s} {version:16s} {self.path} ({self.origin})"


def locate(name: str) -> Located:
    """Where the program ``name`` (one of :data:`PROGRAMS`) is, its origin and version."""
    path: str | None
    if name == "kissat":
        from solvers.sat.programs import find_kissat
        try:
            path = find_kissat()
        except RaceError as exc:
            return Located(name, None, str(exc).removeprefix("kissat binary not found; "), None)
        origin = ("$KISSAT" if os.environ.get("KISSAT") else
                  "the passagemath-kissat wheel" if "sage_wheels" in path else _origin(path))
        return Located(name, path, origin, version_of(path))
    path = shutil.which(name)
    if path is None:
        return Located(name, None, "not on PATH", None)
    return Located(name, path, _origin(path), version_of(path))


def version_of(path: str) -> str | None:
    """The first line ``PATH --version`` prints when it exits 0, else None."""
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True,
                              timeout=VERSION_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    text = done.stdout.strip() or done.stderr.strip()
    return text.splitlines()[0].strip() if done.returncode == 0 and text else None


def _origin(path: str) -> str:
    """The Debian package (and its version) that installed ``path``, else ``PATH``."""
    query = shutil.which("dpkg-query")
    if query is None:
        return "PATH"
    try:
        owner = subprocess.run([query, "-S", os.path.realpath(path)], capture_output=True,
                               text=True, timeout=VERSION_TIMEOUT)
        package = owner.stdout.split(":", 1)[0].strip() if owner.returncode == 0 else ""
        if not package:
            return "PATH"
        version = subprocess.run([query, "-W", "-f=${Version}", package], capture_output=True,
                                 text=True, timeout=VERSION_TIMEOUT).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "PATH"
    return f"Debian package {package} {version}".strip()
