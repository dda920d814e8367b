"""The ``cmd`` entrant: race any executable, run without a shell, under limits.

Spec: ``cmd:path=PROGRAM[,args=ARGS][,input=file|stdin][,format=native|oneline]
[,timeout=SECONDS][,memory_mb=MB][,count_args=ARGS][,name=LABEL]``, e.g.
``cmd:path=./my_solver,args=-q --fast,input=stdin,format=oneline,timeout=10,name=mine``.

* ``name``: a short label (letters, digits, ``_.+-``, at most :data:`MAX_LABEL` characters)
  the tables, figures and ``race compare`` call the entrant by instead of its whole spec
  (:func:`solvers.registry.entrant_label`).

* ``path``: the executable (a path, or a name looked up on ``PATH``).
* ``args``: fixed arguments, split like a POSIX shell would (:func:`shlex.split`)
  but never given to a shell. With ``input=file`` the puzzle file's path
  replaces ``{input}`` in them, or is appended when there is no ``{input}``;
  ``{{input}}`` is a literal ``{input}``. A comma in any value (path, args) is
  written ``\\,`` (a comma alone separates parameters and entrants).
* ``input``: ``file`` (the puzzle's path on the command line: an unlinked
  temporary file seen as ``/proc/self/fd/N``, so no file is ever left behind)
  or ``stdin`` (the puzzle on standard input).
* ``format``: the puzzle as written for the program: ``native`` (rows of
  tokens, ``.`` empty) or ``oneline`` (n⁴ characters, n <= 5).
* ``timeout``: wall seconds (0 = none); then the process group is killed
  and the answer is ``unknown``. ``memory_mb`` (0 = none): address-space limit.
* ``count_args``: for ``race count``, arguments appended after ``args``;
  ``{limit}`` in them becomes the limit (0 = all). Without them a count
  request runs the program as for solve: a grid it prints is "at least 1".

What the program prints (stdout; blank lines, ``#`` lines and ``c `` lines
are ignored):

* a solved grid, in the native format (rows of values; rows of n² digits
  without spaces are accepted for n <= 3) or one line of n⁴ characters;
* or a line saying there is none: ``no solution``, ``no solutions``,
  ``unsat``, ``unsatisfiable``, ``none`` (any case) -> ``unsat``;
* in count mode, first a line with the count (``K``, ``count K`` or
  ``solutions K``), then, when K >= 1, one solution grid (verified like any
  answer: a count without a grid is ``wrong``).

A grid is verified by the base class (``wrong`` if it is not a solution of
the puzzle). A program that times out gives ``unknown``; one that floods its
output past ``max_output`` bytes, crashes, exits non-zero without an answer or
prints something unreadable raises :class:`RaceError` (the harness records
``error``). :func:`binary_provenance` gives the path, sha256 and ``--version``
line for ``meta.json``, and :meth:`Command.provenance` adds the program's start-up
(:func:`startup_seconds`: its time on an empty 4x4 puzzle), which each of its times includes.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from formats import grid_text
from formats.errors import RaceError
from formats.grid import Grid
from solvers.interface import RawAnswer, Solver
from solvers.processes.limited import MAX_OUTPUT, Finished, run_limited

#: answers meaning "this puzzle has no solution" (compared lower-case, stripped)
NO_SOLUTION_WORDS = frozenset({"no solution", "no solutions", "unsat", "unsatisfiable", "none"})
_COUNT_LINE = re.compile(r"^(?:(?:count|solutions)\s*[:=]?\s*)?(\d+)$", re.IGNORECASE)
#: seconds allowed for ``PROGRAM --version``
VERSION_TIMEOUT = 2.0


def resolve_program(path: str) -> str:
    """The absolute path of the executable ``path`` (a path, or a name on PATH);
    RaceError when there is no such executable."""
    if not path:
        raise RaceError("solver 'cmd': parameter path=PROGRAM is required "
                        "(e.g. cmd:path=./my_solver,input=stdin)")
    found = path if "/" in path else shutil.which(path)
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise RaceError(f"solver 'cmd': path={path!r} is not an executable file"
                        + ("" if "/" in path else " on PATH"))
    return str(Path(found).resolve())


def binary_provenance(path: str) -> dict[str, str | None]:
    """``{"path", "sha256", "version"}`` of an executable for ``meta.json``:
    resolved path, sha256 of its bytes, first line of ``PROGRAM --version``
    (None when it fails, times out or prints nothing)."""
    resolved = resolve_program(path)
    digest = hashlib.sha256()
    with open(resolved, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    version = None
    try:
        done = run_limited([resolved, "--version"], timeout=VERSION_TIMEOUT, max_output=65536)
        if done.code == 0:
            text = (done.stdout or done.stderr).decode("utf-8", "replace").strip()
            version = text.splitlines()[0].strip() if text else None
    except RaceError:
        pass
    return {"path": resolved, "sha256": digest.hexdigest(), "version": version}


#: the largest memory_mb a cmd entrant accepts (1 PB: RLIMIT_AS in bytes stays an int64)
MAX_MEMORY_MB = 1 << 30
#: the longest ``name=`` label
MAX_LABEL = 24
_LABEL = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_.+-]{{0,{MAX_LABEL - 1}}}")
#: runs of the program on the empty 4x4 puzzle whose fastest is its start-up
STARTUP_RUNS = 3
#: seconds one of those runs may take
STARTUP_TIMEOUT = 5.0


class Command(Solver):
    """Any executable reading a puzzle and printing a solved grid (no shell)."""

    name = "cmd"
    method = "external"
    counters = ("exit_code",)
    phases = ("write", "search", "parse")
    parameters = {
        "path": ("", None),
        "args": ("", None),
        "input": ("file", ("file", "stdin")),
        "format": ("native", ("native", "oneline")),
        "timeout": (0.0, None),
        "memory_mb": (0, None),
        "max_output": (MAX_OUTPUT, None),
        "count_args": ("", None),
        "name": ("", None),
    }

    @property
    def starts_processes(self) -> bool:
        return True                     # an outside program: the cell's memory is its tree's

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        if int(self.params["memory_mb"]) > MAX_MEMORY_MB:
            raise RaceError(f"solver 'cmd': memory_mb={self.params['memory_mb']} is above "
                            f"{MAX_MEMORY_MB} (1 PB), more than any address space")
        if int(self.params["max_output"]) < 1:    # unlike timeout=0 / memory_mb=0, not "none"
            raise RaceError("solver 'cmd': max_output=0 would refuse every answer; give the most "
                            f"bytes its stdout may print (default {MAX_OUTPUT})")
        label = str(self.params["name"])
        if label and not _LABEL.fullmatch(label):
            raise RaceError(f"solver 'cmd': name={label!r}: expected a short label (a letter or "
                            f"digit, then letters, digits or _.+-, at most {MAX_LABEL} characters)")
        self.program = resolve_program(str(self.params["path"]))
        try:
            self.args = shlex.split(str(self.params["args"]))
            self.count_args = shlex.split(str(self.params["count_args"]))
        except ValueError as exc:
            raise RaceError(f"solver 'cmd': args: {exc}") from None

    def provenance(self) -> dict[str, str | float | None]:
        """Path, sha256 and version of the program (see :func:`binary_provenance`), and
        ``startup_s``, its start-up (:func:`startup_seconds`)."""
        return {**binary_provenance(self.program), "startup_s": startup_seconds(self)}

    def command(self, puzzle_path: str, limit: int | None) -> list[str]:
        """The argument list for one run (``limit`` != 1 adds ``count_args``)."""
        args = list(self.args)
        if limit != 1 and self.count_args:
            args += [a.replace("{limit}", str(limit or 0)) for a in self.count_args]
        if self.params["input"] == "file":
            if any("{input}" in a.replace("{{input}}", "") for a in args):
                args = [_fill(a, puzzle_path) for a in args]
            else:
                args = [a.replace("{{input}}", "{input}") for a in args] + [puzzle_path]
        else:
            args = [a.replace("{{input}}", "{input}") for a in args]
        return [self.program, *args]

    def search(self, grid: Grid, limit: int | None, keep: int) -> RawAnswer:
        fmt = grid_text.ONE_LINE if self.params["format"] == "oneline" else grid_text.NATIVE
        t0 = time.perf_counter()
        # an unlinked temporary file: nothing is left on disk even when the harness
        # SIGKILLs this worker mid-run; the program reads it as /proc/self/fd/N
        with tempfile.TemporaryFile(prefix="race-cmd-") as puzzle:
            puzzle.write(grid_text.format_grid(grid, fmt).encode("utf-8"))
            puzzle.flush()
            puzzle.seek(0)
            t1 = time.perf_counter()
            by_file = self.params["input"] == "file"
            done = run_limited(self.command(f"/proc/self/fd/{puzzle.fileno()}", limit),
                               stdin=None if by_file else puzzle,
                               pass_fds=(puzzle.fileno(),) if by_file else (),
                               timeout=float(self.params["timeout"]),
                               memory_mb=int(self.params["memory_mb"]),
                               max_output=int(self.params["max_output"]))
        t2 = time.perf_counter()
        times = {"write": t1 - t0, "search": t2 - t1}
        if done.timed_out:
            return RawAnswer(0, [], complete=False, times=times)
        counting = limit != 1 and bool(self.count_args)
        count, cells = self.parse_answer(done, grid, counting)
        times["parse"] = time.perf_counter() - t2
        complete = count == 0 or counting or limit == 1
        return RawAnswer(count, [cells] if cells is not None and keep > 0 else [], complete,
                      {"exit_code": int(done.code)} if done.code is not None else {}, times)

    def parse_answer(self, done: Finished, grid: Grid, counting: bool) -> tuple[int, np.ndarray | None]:
        """(solutions counted, first solution's cells or None) from a finished
        run; RaceError when the run failed or printed nothing readable."""
        where = f"solver {self.spec}"
        if done.flooded and done.flooded_stream != "stderr":
            raise RaceError(f"{where}: printed more than {self.params['max_output']} bytes on "
                            f"{done.flooded_stream or 'its output'}")
        if done.code is not None and done.code < 0:
            raise RaceError(f"{where}: killed by signal {-done.code}{_tail(done.stderr)}")
        lines = [line.strip() for line in done.stdout.decode("utf-8", "replace").splitlines()]
        lines = [line for line in lines if line and not line.startswith(("#", "c "))]
        said_none = [line for line in lines if line.lower() in NO_SOLUTION_WORDS]
        if said_none:
            # "no solution" beside a grid is a contradiction: the grid, verified by the base
            # class, wins (a grid that fails verification makes the answer wrong)
            rest = [line for line in lines if line.lower() not in NO_SOLUTION_WORDS]
            if not rest:
                return 0, None
            try:
                return 1, read_grid_lines(rest, grid.n, where)
            except RaceError:
                return 0, None
        count = None
        if counting and lines:
            match = _COUNT_LINE.match(lines[0])
            if match is None:
                raise RaceError(f"{where}: expected a count on the first output line, "
                                f"got {lines[0][:40]!r}")
            count, lines = int(match.group(1)), lines[1:]
            if count == 0 or not lines:
                return count, None
        if not lines:
            if done.flooded:
                raise RaceError(f"{where}: printed more than {self.params['max_output']} bytes on "
                                "stderr and no answer on stdout")
            raise RaceError(f"{where}: exited with code {done.code} and no answer{_tail(done.stderr)}")
        cells = read_grid_lines(lines, grid.n, where)
        return (1 if count is None else count), cells


def startup_seconds(solver: Command) -> float | None:
    """The fastest of :data:`STARTUP_RUNS` wall times of ``solver``'s program answering an
    empty puzzle, 4x4 (else 9x9, for a program that takes no other): its interpreter's or
    runtime's start, reading, a trivial search and exit, which each of its measured times
    includes beyond its search. None when it answers neither with a verified grid within its
    limits (at most :data:`STARTUP_TIMEOUT` a run; one run past it ends the measurement)."""
    from solvers.interface import SOLVED, UNKNOWN
    limit = float(solver.params["timeout"]) or STARTUP_TIMEOUT
    probe = Command(**{**solver.params, "timeout": min(limit, STARTUP_TIMEOUT)})
    for n in (2, 3):
        empty = Grid(n, np.zeros((n * n, n * n), dtype=np.int32))
        times = []
        for _ in range(STARTUP_RUNS):
            t0 = time.perf_counter()
            try:
                status = probe.solve(empty).status
            except RaceError:
                status = "error"
            if status == UNKNOWN:               # out of time: not worth a second try
                return None
            if status != SOLVED:
                break
            times.append(time.perf_counter() - t0)
        if len(times) == STARTUP_RUNS:
            return min(times)
    return None


def _fill(argument: str, path: str) -> str:
    """``argument`` with ``{input}`` replaced by ``path`` and ``{{input}}`` (the escape) by a
    literal ``{input}``."""
    return "{input}".join(part.replace("{input}", path) for part in argument.split("{{input}}"))


def read_grid_lines(lines: list[str], n: int, where: str) -> np.ndarray:
    """The first grid in ``lines`` (native, one-line, or n² rows of n² digits)
    as an (n², n²) array, after any chatter lines before it; RaceError when there
    is none (the error of reading from the first line) or it is of another size."""
    try:
        return _grid_at(lines, n, where)
    except RaceError as first:
        for start in range(1, len(lines)):
            try:
                return _grid_at(lines[start:], n, where)
            except RaceError:
                continue
        raise first from None


def _grid_at(lines: list[str], n: int, where: str) -> np.ndarray:
    """The grid that starts at ``lines[0]`` (see :func:`read_grid_lines`)."""
    side = n * n
    if len(lines[0]) == side * side and " " not in lines[0] and side > 1:
        lines = lines[:1]                         # one line of n⁴ characters
    elif len(lines) >= side and all(len(line) == side and " " not in line for line in lines[:side]) \
            and side > 1 and side <= 9:
        lines = ["".join(lines[:side])]          # rows of digits without spaces
    elif len(lines) >= side and all(len(line.split()) == side for line in lines[:side]):
        lines = lines[:side]                      # a native grid, perhaps followed by chatter
    try:
        found = grid_text.parse("\n".join(lines), f"output of {where}").grids[0]
    except RaceError as exc:
        raise RaceError(f"unreadable answer: {exc}") from None
    if found.n != n:
        raise RaceError(f"{where}: answered a grid with n={found.n}, the puzzle has n={n}")
    return found.cells


def _tail(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    return f": {text.splitlines()[-1][:200]}" if text else ""
