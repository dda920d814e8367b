"""SAT solvers run as programs of their own (kissat, cadical, minisat, ...), speaking DIMACS:
found (:func:`find_kissat`, :func:`find_binary`), run under limits (:func:`run_solver`) and
asked for models (:class:`ExternalBackend`), for :func:`solvers.sat.backends.backend`.

The formula goes to a DIMACS file in a ``race-sat-PID-*`` temporary directory (removed on every
path; one left by a killed process is removed by the next run); the solver runs in its own
session (its process group is killed once it returns or times out) and dies with this process
(``PR_SET_PDEATHSIG``); its stdout and stderr go to files limited to :func:`output_limit` bytes.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from formats import dimacs, sat_output
from formats.errors import RaceError
from formats.source import decode_utf8
from solvers.processes.control import kill_group, start_hook
from solvers.processes.limited import owned_temp_dir
from solvers.processes.tree import reap

if TYPE_CHECKING:
    from solvers.sat.sudoku_cnf import Formula



@dataclass
class Enumeration:
    """What every SAT backend answers (the in-process ones of :mod:`solvers.sat.backends` too):
    the models found (each an array of true variables), whether the search ran to its end
    (unsat proved or ``limit`` reached), counters and phase times."""
    models: list[np.ndarray]
    complete: bool
    counters: dict[str, int] = field(default_factory=dict)
    times: dict[str, float] = field(default_factory=dict)
    message: str = ""

    @property
    def count(self) -> int:
        return len(self.models)


#: grace period (s) between an external solver's own time limit and the hard kill.
KILL_GRACE = 2.0

#: seconds between SIGTERM (a chance to print statistics) and SIGKILL at a hard kill.
TERM_GRACE = 0.5

#: bytes of output any external solver may write, before room for its model.
BASE_OUTPUT_BYTES = 64 << 20


def find_kissat() -> str:
    """The kissat executable: ``$KISSAT``, else ``PATH``, else the passagemath-kissat wheel."""
    looked = []
    env = os.environ.get("KISSAT")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise RaceError(f"$KISSAT={env} is not an executable file")
    looked.append("$KISSAT (unset)")
    found = shutil.which("kissat")
    if found:
        return found
    looked.append("PATH")
    try:
        from importlib.metadata import PackageNotFoundError, distribution
        dist = distribution("passagemath-kissat")
        for entry in dist.files or ():
            if str(entry).endswith("bin/kissat"):
                path = str(dist.locate_file(entry))
                if os.path.isfile(path):
                    if not os.access(path, os.X_OK):
                        os.chmod(path, os.stat(path).st_mode | 0o111)
                    return path
        looked.append("the passagemath-kissat wheel (no bin/kissat in it)")
    except PackageNotFoundError:
        looked.append("the passagemath-kissat wheel (not installed)")
    raise RaceError("kissat binary not found; looked in " + ", ".join(looked))


def find_binary(name: str) -> str:
    """An executable given by path (contains '/') or looked up on PATH."""
    if "/" in name:
        if os.path.isfile(name) and os.access(name, os.X_OK):
            return name
        raise RaceError(f"SAT solver {name!r}: no executable file at that path")
    found = shutil.which(name)
    if not found:
        raise RaceError(f"SAT backend {name!r} is neither a PySAT solver name nor an executable "
                        f"on PATH (looked in PySAT's solver names and PATH)")
    return found


def output_limit(nvars: int | None) -> int:
    """Bytes an external solver may write (stdout, stderr, result file each):
    room for a model of ``nvars`` variables plus statistics."""
    return BASE_OUTPUT_BYTES + 24 * (nvars or 0)




#: a competition-format status line (``s SATISFIABLE`` ...)
_STATUS_LINE = re.compile(r"^s ", re.MULTILINE)


def run_solver(command: list[str], timeout: float | None, workdir: str,
               limit: int) -> tuple[str, str, int | None]:
    """Run ``command`` in its own session with stdout and stderr going to files
    in ``workdir``, none of which may grow beyond ``limit`` bytes; after
    ``timeout`` seconds kill its whole process group. Returns (stdout, stderr,
    exit code or None if killed at the timeout). The process group is killed
    on every path, so nothing the solver started outlives the call."""
    out_path, err_path = os.path.join(workdir, "stdout.txt"), os.path.join(workdir, "stderr.txt")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        try:
            proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    start_new_session=True, preexec_fn=start_hook(file_bytes=limit))
        except OSError as exc:
            raise RaceError(f"cannot run {command[0]}: {exc.strerror}") from None
    try:
        code = reap(proc, timeout)            # reaped with its peak memory (the cell's)
    except subprocess.TimeoutExpired:
        code = None
        _kill_group(proc, signal.SIGTERM)     # kissat and cadical print their statistics
        with contextlib.suppress(subprocess.TimeoutExpired):
            reap(proc, TERM_GRACE)
    finally:
        _kill_group(proc)
        reap(proc)
    stdout = _read_output(out_path, command[0], limit)
    stderr = _read_output(err_path, command[0], limit).decode("utf-8", "replace")
    return decode_utf8(stdout, f"output of {command[0]}"), stderr, code


def _read_output(path: str, program: str, limit: int) -> bytes:
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) >= limit:
        raise RaceError(f"{program} wrote {len(data)} bytes or more, the limit for its output "
                        f"({limit} bytes); stopped it")
    return data


def _kill_group(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    kill_group(proc.pid, sig)


def work_directory() -> str:
    """A fresh ``race-sat-PID-*`` directory in the temp dir, after removing those
    left by processes that no longer exist (a worker killed at its limit cannot
    clean up after itself)."""
    return owned_temp_dir("sat")
    return True


class ExternalBackend:
    """A solver binary reading DIMACS; ``flavour`` picks its command line
    (kissat, cadical, minisat, or anything printing the competition format)."""

    external = True

    def __init__(self, path: str, flavour: str, negative_phase: bool = False, seed: int = 0,
                 config: str = "default", options: tuple[str, ...] = ()) -> None:
        self.path = path
        self.negative_phase = negative_phase
        self.seed = seed
        self.config = config
        #: the program's own options, given as they are after the race's (kissat's last wins)
        self.options = tuple(options)
        self.flavour = "minisat" if "minisat" in flavour else "cadical" if "cadical" in flavour \
            else "kissat" if "kissat" in flavour else flavour

    def command(self, cnf: str, result: str, timeout: float) -> list[str]:
        seconds = str(max(1, math.ceil(timeout))) if timeout > 0 else None
        seed = [f"--seed={self.seed}"] if self.seed else []
        if self.flavour == "kissat":
            return [self.path, *([f"--time={seconds}"] if seconds else []),
                    *(["--phase=false"] if self.negative_phase else []), *seed,
                    *([f"--{self.config}"] if self.config != "default" else []), *self.options, cnf]
        if self.flavour == "cadical":
            return [self.path, *(["-t", seconds] if seconds else []), *seed, *self.options, cnf]
        if self.flavour == "minisat":
            return [self.path, *([f"-cpu-lim={seconds}"] if seconds else []), *self.options, cnf,
                    result]
        return [self.path, *self.options, cnf]

    def solve_file(self, cnf: str, nvars: int | None, timeout: float = 0.0,
                   workdir: str | None = None
                   ) -> tuple[sat_output.SatOutput | None, dict[str, int], float]:
        """Run the solver on a DIMACS file; (parsed output or None on a hard
        kill, statistics, seconds). Its files go to ``workdir`` (default: a
        temporary directory removed on return)."""
        if workdir is None:
            tmp = work_directory()
            try:
                return self.solve_file(cnf, nvars, timeout, tmp)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        result = os.path.join(workdir, "result.txt")
        if os.path.exists(result):          # from an earlier run in the same directory
            os.remove(result)
        limit = output_limit(nvars)
        t0 = time.perf_counter()
        out, err, code = run_solver(self.command(cnf, result, timeout),
                                    timeout + KILL_GRACE if timeout > 0 else None, workdir, limit)
        seconds = time.perf_counter() - t0
        stats = sat_output.statistics(out)
        if code is None:
            return None, stats, seconds
        if self.flavour == "minisat":
            name = f"{self.path} result file"
            try:
                text = decode_utf8(_read_output(result, self.path, limit), name)
            except FileNotFoundError:
                text = ""
        else:
            text, name = out, f"output of {self.path}"
        if timeout > 0 and not _STATUS_LINE.search(text) and seconds >= 0.9 * min(timeout, 1.0):
            return None, stats, seconds     # stopped by its own time limit (cadical -t says nothing)
        if not text.strip():
            tail = (err.strip().splitlines() or ["no output"])[-1]
            raise RaceError(f"{self.path} exited with code {code} and no answer: {tail[:200]}")
        return sat_output.parse(text, name, nvars, code), stats, seconds

    def enumerate(self, formula: Formula, limit: int | None, timeout: float = 0.0) -> Enumeration:
        deadline = time.perf_counter() + timeout if timeout > 0 else None
        models: list[np.ndarray] = []
        blocking: list[np.ndarray] = []
        counters: dict[str, int] = {}     # only what the binary reports: never a made-up 0
        times = {"write": 0.0, "search": 0.0}
        tmp = work_directory()
        try:
            cnf = os.path.join(tmp, "formula.cnf")
            while limit is None or len(models) < limit:
                left = 0.0
                if deadline is not None:
                    left = deadline - time.perf_counter()
                    if left <= 0:
                        return Enumeration(models, False, counters, times, "timeout")
                t0 = time.perf_counter()
                dimacs.write(cnf, formula.nvars, [*formula.blocks, *blocking], formula.header())
                times["write"] += time.perf_counter() - t0
                answer, stats, seconds = self.solve_file(cnf, formula.nvars, left, tmp)
                times["search"] += seconds
                for key, value in stats.items():
                    counters[key] = counters.get(key, 0) + value
                if answer is None or answer.status == sat_output.UNKNOWN:
                    return Enumeration(models, False, counters, times, "timeout")
                if answer.status == sat_output.UNSAT:
                    return Enumeration(models, True, counters, times)
                assert answer.model is not None         # SATISFIABLE comes with its model
                true = answer.model[(answer.model > 0)
                                    & (answer.model <= formula.primary)].astype(np.int32)
                models.append(true)
                if true.size == 0:
                    break
                blocking.append(-true.reshape(1, -1))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return Enumeration(models, True, counters, times)
