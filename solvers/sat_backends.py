"""SAT backends: PySAT in-process, or an external binary speaking DIMACS.

:func:`backend` turns a name into a backend object with one method,
``enumerate(formula, limit, timeout) -> Enumeration``: up to ``limit`` models
(true variables), whether the search was complete, the solver's conflicts /
decisions / propagations and the phase times (``write`` for external
binaries, ``search``). Names:

* a PySAT solver name (``cadical195``, ``glucose4``, ``minisat22``, ...):
  in-process. CaDiCaL's ``solve()`` holds the GIL and cannot be interrupted,
  so a timeout is enforced by solving in conflict-budget slices and checking
  the clock between them. PySAT's own kissat (``kissat404`` and its aliases)
  is refused: it ignores assumptions and aborts the interpreter on a second
  solve.
* ``kissat``: the kissat binary, found from ``$KISSAT``, then ``PATH``, then
  the binary shipped in the ``passagemath-kissat`` wheel (located through its
  installed file list; the package itself is never imported).
* any other name or path: an executable found on ``PATH`` or at that path
  (``cadical``, ``minisat`` from Debian, ...). minisat writes its answer to a
  result file, the others to stdout in the competition format.

External solvers get the formula as a DIMACS file in a ``race-sat-PID-*``
temporary directory (removed on every path; one left by a killed process is
removed by the next run), run in their own session (the process group is
killed once the solver returns or times out) and die with this process
(``PR_SET_PDEATHSIG``), so a killed worker leaves no solver running. Their
stdout and stderr go to files limited to :func:`output_limit` bytes
(``RLIMIT_FSIZE``): a solver that floods its output is stopped with an error. Counting
with an external solver re-runs it with the blocking clauses found so far.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from formats import dimacs, sat_output
from formats.errors import RaceError
from formats.source import decode_utf8
from solvers import clause_loading
from solvers.limited_process import child_setup, owned_temp_dir
from solvers.sat_counting import enumerate_models, pysat_solver, refuse_broken_pysat

#: grace period (s) between an external solver's own time limit and the hard kill.
KILL_GRACE = 2.0

#: seconds between SIGTERM (a chance to print statistics) and SIGKILL at a hard kill.
TERM_GRACE = 0.5

#: bytes of output any external solver may write, before room for its model.
BASE_OUTPUT_BYTES = 64 << 20


@dataclass
class Enumeration:
    """Models found (each an array of true variables), whether the search ran
    to its end (unsat proved or ``limit`` reached), counters and phase times."""
    models: list[np.ndarray]
    complete: bool
    counters: dict[str, int] = field(default_factory=dict)
    times: dict[str, float] = field(default_factory=dict)
    message: str = ""

    @property
    def count(self) -> int:
        return len(self.models)


def _pysat_names() -> dict[str, str]:
    from pysat.solvers import SolverNames
    return {alias: key for key, aliases in vars(SolverNames).items()
            if not key.startswith("_") for alias in aliases}


#: CaDiCaL's named configurations (its ``--sat`` and ``--unsat`` command-line options, as
#: in CaDiCaL 1.9.5's ``config.cpp``), for the in-process ``cadical195`` backend
CADICAL_CONFIGS = {
    "default": {},
    "sat": {"elimreleff": 10, "stabilizeonly": 1, "subsumereleff": 60},
    "unsat": {"stabilize": 0, "walk": 0},
}
#: the PySAT backends that take a configuration
CONFIGURABLE = ("cadical195",)


def configurable(name: str) -> bool:
    """Can the backend called ``name`` (any of PySAT's names for it) take CaDiCaL options
    (``solver.configure``)? Callers ask this, never compare names themselves."""
    return name != "kissat" and _pysat_names().get(name) in CONFIGURABLE


#: the largest random seed a backend takes (CaDiCaL's and kissat's option range)
MAX_SEED = 2**31 - 1


def backend(name: str, negative_phase: bool = False, config: str = "default", seed: int = 0):
    """The backend called ``name`` (see the module docstring); ``negative_phase``
    makes the solver try every variable false first (PySAT: ``set_phases``;
    kissat: ``--phase=false``; other binaries: ignored); ``config``, one of
    :data:`CADICAL_CONFIGS`, configures CaDiCaL in-process, or kissat with its own options of
    the same names (``--sat``: ``--target=2 --restartint=50``; ``--unsat``: ``--stable=0``;
    other backends: only ``default``);
    ``seed`` (0, the solvers' own default, .. :data:`MAX_SEED`) is the solver's random seed:
    CaDiCaL's ``seed`` option in-process, ``--seed=`` of the kissat and cadical binaries."""
    if config not in CADICAL_CONFIGS:
        raise RaceError(f"unknown SAT configuration {config!r} "
                        f"(known: {', '.join(CADICAL_CONFIGS)})")
    canonical = _pysat_names().get(name)
    if config != "default" and name != "kissat" and not configurable(name):
        raise RaceError(f"config={config} needs backend={'/'.join(CONFIGURABLE)} (in-process "
                        f"CaDiCaL) or kissat, not {name!r}")
    if not 0 <= seed <= MAX_SEED:
        raise RaceError(f"seed={seed} must be in 0..{MAX_SEED}")
    if seed and name != "kissat" and not configurable(name) and "cadical" not in Path(name).name:
        raise RaceError(f"seed={seed} needs backend=cadical195 (in-process), kissat or a cadical "
                        f"binary, not {name!r}")
    if name == "kissat":
        return ExternalBackend(find_kissat(), "kissat", negative_phase, seed, config)
    if canonical is not None:
        refuse_broken_pysat(name)
        options = dict(CADICAL_CONFIGS[config], **({"seed": seed} if seed else {}))
        return PySATBackend(name, negative_phase, options)
    return ExternalBackend(find_binary(name), Path(name).name, negative_phase, seed)


# -- in-process ----------------------------------------------------------------------

class PySATBackend:
    """A PySAT solver, built fresh for each formula, counting with blocking clauses."""

    external = False

    def __init__(self, name: str, negative_phase: bool = False,
                 options: dict[str, int] | None = None) -> None:
        self.name = name
        self.negative_phase = negative_phase
        self.options = dict(options or {})

    def enumerate(self, formula, limit: int | None, timeout: float = 0.0,
                  conflicts: int = 0) -> Enumeration:
        """Up to ``limit`` models; incomplete when ``timeout`` seconds or, per solver call,
        ``conflicts`` conflicts (0: no bound) ran out first."""
        deadline = time.perf_counter() + timeout if timeout > 0 else None
        t0 = time.perf_counter()
        if self.options:       # options before the clauses (CaDiCaL's configuring state)
            solver = pysat_solver(self.name)
            solver.configure(self.options)
            clause_loading.load(solver, formula.blocks, fresh=True)
        else:
            solver = pysat_solver(self.name, formula.blocks)
        try:
            if self.negative_phase and formula.nvars:
                solver.set_phases((-np.arange(1, formula.nvars + 1)).tolist())
            count, models, complete = enumerate_models(
                solver, formula.primary, limit,
                solve=lambda s, a: solve_until(s, a, deadline, conflicts))
            stats = solver.accum_stats() or {}
        finally:
            solver.delete()
        counters = {k: int(stats[k]) for k in ("conflicts", "decisions", "propagations")
                    if k in stats}
        return Enumeration(models, complete, counters, {"search": time.perf_counter() - t0},
                           "" if complete else f"timeout after {timeout:g} s" if timeout > 0
                           else f"no answer within {conflicts} conflicts")


def solve_until(solver, assumptions: list[int], deadline: float | None,
                conflicts: int = 0) -> bool | None:
    """``solver.solve(assumptions)``, but give up (None) once ``deadline``
    (a ``perf_counter`` time) has passed, or after ``conflicts`` conflicts (0: no bound).
    A conflict bound alone is one budgeted call: the very search of ``solve()``, cut
    short. With a deadline: solve in growing conflict budgets and look at the clock
    between them (CaDiCaL cannot be interrupted otherwise); each slice restarts the search
    (learnt clauses kept), which costs: measured on three hard 25x25, 2-3x the conflicts
    of one call."""
    if deadline is None:
        if not conflicts:
            return solver.solve(assumptions=assumptions)
        solver.conf_budget(conflicts)
        return solver.solve_limited(assumptions=assumptions)
    budget = 500
    spent = 0
    while True:
        start = time.perf_counter()
        left = deadline - start
        if left <= 0 or (conflicts and spent >= conflicts):
            return None
        if conflicts:
            budget = min(budget, conflicts - spent)
        solver.conf_budget(budget)
        spent += budget
        answer = solver.solve_limited(assumptions=assumptions)
        if answer is not None:
            return answer
        # size the next slice to about a tenth of the time left (at least 100 conflicts)
        rate = budget / max(time.perf_counter() - start, 1e-6)
        budget = int(max(100, min(budget * 2, rate * min(left / 10, 1.0))))


# -- external binaries ------------------------------------------------------------------

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
                                    start_new_session=True, preexec_fn=child_setup(file_bytes=limit))
        except OSError as exc:
            raise RaceError(f"cannot run {command[0]}: {exc.strerror}") from None
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
        _kill_group(proc, signal.SIGTERM)     # kissat and cadical print their statistics
        try:
            proc.wait(timeout=TERM_GRACE)
        except subprocess.TimeoutExpired:
            pass
    finally:
        _kill_group(proc)
        proc.wait()
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
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


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
                 config: str = "default") -> None:
        self.path = path
        self.negative_phase = negative_phase
        self.seed = seed
        self.config = config
        self.flavour = "minisat" if "minisat" in flavour else "cadical" if "cadical" in flavour \
            else "kissat" if "kissat" in flavour else flavour

    def command(self, cnf: str, result: str, timeout: float) -> list[str]:
        seconds = str(max(1, math.ceil(timeout))) if timeout > 0 else None
        seed = [f"--seed={self.seed}"] if self.seed else []
        if self.flavour == "kissat":
            return [self.path, *([f"--time={seconds}"] if seconds else []),
                    *(["--phase=false"] if self.negative_phase else []), *seed,
                    *([f"--{self.config}"] if self.config != "default" else []), cnf]
        if self.flavour == "cadical":
            return [self.path, *(["-t", seconds] if seconds else []), *seed, cnf]
        if self.flavour == "minisat":
            return [self.path, *([f"-cpu-lim={seconds}"] if seconds else []), cnf, result]
        return [self.path, cnf]

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

    def enumerate(self, formula, limit: int | None, timeout: float = 0.0) -> Enumeration:
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
                true = answer.model[(answer.model > 0)
                                    & (answer.model <= formula.primary)].astype(np.int32)
                models.append(true)
                if true.size == 0:
                    break
                blocking.append(-true.reshape(1, -1))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return Enumeration(models, True, counters, times)
