"""Calibration: a fixed reference workload timed at the start and the end of every run.

Two kernels whose work is known exactly, so only the machine can change their time:

* ``dlx``: the project's compiled DLX search counting Knuth's 10 queens (724 solutions,
  11,578 nodes, 198,264 updates, checked on every run), repeated until
  :data:`DLX_MIN_TIME` s have passed; a sample is the time per search;
* ``sat``: one PySAT CaDiCaL solve of the committed formula ``data/php7.cnf`` (8
  pigeons into 7 holes: unsatisfiable; its conflicts are recorded).

In a reading (:func:`calibrate`) the two kernels' samples are interleaved after their
warm-ups. Each kernel first runs :data:`WARMUP` sample(s) that are thrown away (over 80 fresh
processes on this VM the first SAT solve took more CPU time than the median of the next
five in 68% of them, by more than 10% in one in ten, up to 38%; the first DLX sample
barely differed), then gives :data:`SAMPLES` (``dlx``) or :data:`SAT_SAMPLES` (``sat``)
samples; the reading is their **minimum** wall time, which estimates the kernel's time
undisturbed (as ``timeit`` advises): interference (another process's burst, an interrupt,
the hypervisor) only ever adds time, and the minimum drops the samples it hit, where a
median still moves with it. Each sample lasts tens of milliseconds, several scheduler time
slices, so a process that shares the core for the whole reading still slows every sample
and shows (the CPU time would not: it is recorded, not the reading). No garbage collection
ran during the timed loops (counted with ``gc.callbacks`` over the same 80 processes), so
gc is left on. The median, the coefficient of variation of the samples and the CPU time
are recorded too (under time-sharing the wall time grows while the CPU time does not, so
the two apart mean a busy core). The two minima's geometric mean is ``score_s``, the
number ``race compare --normalise`` divides by.

What it can correct: a machine that is uniformly faster or slower (clock,
micro-architecture, a steady background load). What it cannot: differences that touch the
entrants and the kernels unequally (memory bandwidth and cache size for large n, an
external binary's build, turbo that varies with the number of busy cores, noise that came
and went between the readings, or a host that ran slower for the second the reading took:
the minimum drops a disturbed sample, not a slow machine).
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from formats.errors import RaceError
from solvers.sat.counting import DEFAULT_BACKEND

#: the reference DLX problem: Knuth's N queens, and its exact (solutions, nodes, updates)
QUEENS = 10
QUEENS_WORK = (724, 11578, 198264)
#: the committed reference formula (unsatisfiable)
FORMULA = Path(__file__).with_name("data") / "php7.cnf"
#: the PySAT backend of the SAT kernel
SAT_BACKEND = DEFAULT_BACKEND
#: samples per kernel (their minimum is the reading); a DLX sample repeats the search
#: until this much time has passed
SAMPLES = 10
SAT_SAMPLES = 5
DLX_MIN_TIME = 0.025
#: a campaign with fewer cells to run than this takes SMALL_SAMPLES DLX samples (and half as
#: many SAT samples, at least 2) per reading: about 0.15 s of CPU instead of 0.35 s, for a
#: reading whose minimum is less sure, in a campaign whose cells cost about that much in all
#: (:func:`samples_for`)
SMALL_CAMPAIGN = 100
SMALL_SAMPLES = 4
#: samples run first and thrown away, per kernel
WARMUP = 1
#: drift between the start and the end readings above which a run is flagged
DRIFT_LIMIT = 0.05


def _spread(samples: list[float]) -> float:
    mean = statistics.fmean(samples)
    return statistics.stdev(samples) / mean if len(samples) > 1 and mean > 0 else 0.0


def _reading(times: list[float], cpu: list[float]) -> dict[str, Any]:
    """The kernel's reading from its samples (wall and CPU seconds): the minimum wall time
    (``seconds``), with the median and the spread (coefficient of variation) beside it."""
    return {"seconds": min(times), "statistic": "min", "median_seconds": statistics.median(times),
            "spread": round(_spread(times), 4), "cpu_seconds": min(cpu),
            "cpu_spread": round(_spread(cpu), 4), "samples": len(times)}


def _dlx_sampler(min_time: float = DLX_MIN_TIME) -> Callable[[], tuple[float, float]]:
    """A function timing one DLX sample (wall, CPU seconds per search of 10 queens). Raises
    RaceError when the search does not do exactly Knuth's work (the kernel is broken)."""
    import numpy as np

    from generators.cover_problems import queens
    from solvers.exact_cover.algorithm_x import MRV, dlx_search
    from solvers.exact_cover.dancing_links import DancingLinks

    links = DancingLinks.from_problem(queens(QUEENS)).links
    chosen, depth = np.zeros((1, 1), dtype=np.int64), np.zeros(1, dtype=np.int64)
    work = tuple(int(x) for x in dlx_search(links, MRV, 0, 0, 0, chosen, depth)[:3])  # + JIT load
    if work != QUEENS_WORK:
        raise RaceError(f"calibration: DLX on {QUEENS} queens gave (solutions, nodes, updates) "
                        f"{work}, expected {QUEENS_WORK}: the DLX kernel is broken")

    def sample() -> tuple[float, float]:
        runs, t0, c0 = 0, time.perf_counter(), time.process_time()
        while True:
            dlx_search(links, MRV, 0, 0, 0, chosen, depth)
            runs += 1
            spent = time.perf_counter() - t0
            if spent >= min_time:
                break
        return spent / runs, (time.process_time() - c0) / runs
    return sample


def _sat_sampler() -> tuple[Callable[[], tuple[float, float]], dict[str, int]]:
    """A function timing one SAT sample (wall, CPU seconds of a fresh solver on the
    committed formula), and a dict where it leaves the last solve's conflicts. Raises
    RaceError when the formula is not found unsatisfiable."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    clauses = CNF(from_file=str(FORMULA)).clauses
    seen = {"conflicts": -1}

    def sample() -> tuple[float, float]:
        t0, c0 = time.perf_counter(), time.process_time()
        with Solver(name=SAT_BACKEND, bootstrap_with=clauses) as solver:
            answer = solver.solve()
            seen["conflicts"] = int((solver.accum_stats() or {}).get("conflicts", -1))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        if answer is not False:
            raise RaceError(f"calibration: {SAT_BACKEND} found {FORMULA.name} satisfiable; "
                            "it is not: the SAT backend is broken")
        return wall, cpu
    return sample, seen


def _sampled(sample: Callable[[], tuple[float, float]], count: int) -> tuple[list, list]:
    pairs = [sample() for _ in range(count)]
    return [w for w, _ in pairs], [c for _, c in pairs]


def _dlx_reading(times: list[float], cpu: list[float], warmup: int) -> dict[str, Any]:
    return {**_reading(times, cpu), "warmup": warmup, "updates": QUEENS_WORK[2]}


def _sat_reading(times: list[float], cpu: list[float], warmup: int, conflicts: int) -> dict[str, Any]:
    return {**_reading(times, cpu), "warmup": warmup, "formula": FORMULA.name,
            "backend": SAT_BACKEND, "conflicts": conflicts}


def dlx_kernel(samples: int = SAMPLES, min_time: float = DLX_MIN_TIME,
               warmup: int = WARMUP) -> dict[str, Any]:
    """Time the DLX count of Knuth's 10 queens alone (the module docstring)."""
    times, cpu = _sampled(_dlx_sampler(min_time), warmup + samples)
    return _dlx_reading(times[warmup:], cpu[warmup:], warmup)


def sat_kernel(samples: int = SAT_SAMPLES, warmup: int = WARMUP) -> dict[str, Any]:
    """Time PySAT's CaDiCaL on the committed formula alone (the module docstring)."""
    sample, seen = _sat_sampler()
    times, cpu = _sampled(sample, warmup + samples)
    return _sat_reading(times[warmup:], cpu[warmup:], warmup, seen["conflicts"])


#: seconds a calibration process may take over one reading (about 0.5 s once the kernels load)
APART_TIMEOUT_S = 300.0
#: what a calibration process runs: a reading of N samples per line N read, printed as JSON
_PROGRAM = ("import json, sys\n"
            "from experiments.harness.calibration import calibrate\n"
            "for line in sys.stdin:\n"
            "    try:\n"
            "        out = calibrate(int(line))\n"
            "    except Exception as exc:\n"
            "        out = {'error': f'{type(exc).__name__}: {exc}'}\n"
            "    print(json.dumps(out), flush=True)\n")


class Calibrator:
    """Takes the readings of a run (:func:`calibrate`) in a process of its own, on ``cpu`` alone
    when given (as a pinned worker runs): the race's parent never loads the compiled kernels
    (numba: about 130 MB and a second of its CPU that no cell needs from it), and the kernels
    load once for the start and the end readings. A reading that cannot be taken is
    ``{"error": ...}`` saying why; :meth:`close` ends the process (it dies with its parent)."""

    def __init__(self, cpu: int | None = None, timeout: float = APART_TIMEOUT_S) -> None:
        self.cpu, self.timeout = cpu, timeout
        self._proc: Any = None
        self._errors: Any = None

    def reading(self, samples: int = SAMPLES) -> dict[str, Any]:
        """One reading of ``samples`` DLX samples."""
        import json
        import select
        try:
            proc = self._start()
            proc.stdin.write(f"{int(samples)}\n")
            proc.stdin.flush()
            if not select.select([proc.stdout], [], [], self.timeout)[0]:
                self.close()
                return {"error": f"the calibration process took over {self.timeout:g} s"}
            line = proc.stdout.readline()
        except OSError as exc:
            self.close()
            return {"error": f"the calibration process failed: {exc}"}
        try:
            reading = json.loads(line)
        except ValueError:
            reading = None
        if isinstance(reading, dict):
            return reading
        said = self._said()
        self.close()
        return {"error": f"the calibration process failed: {said}"}

    def _start(self) -> Any:
        if self._proc is None:
            import subprocess
            import sys
            import tempfile

            from solvers.processes.control import start_hook
            self._errors = tempfile.TemporaryFile()  # noqa: SIM115 - held until close()
            self._proc = subprocess.Popen([sys.executable, "-c", _PROGRAM], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=self._errors, text=True,
                                          preexec_fn=start_hook(cpu=self.cpu))
        return self._proc

    def _said(self) -> str:
        """The last line the process wrote to its standard error (or how it ended)."""
        lines: list[bytes] = []
        if self._errors is not None:
            self._errors.seek(0)
            lines = self._errors.read().strip().splitlines()
        code = self._proc.poll() if self._proc is not None else None
        return lines[-1].decode("utf-8", "replace") if lines else f"exit status {code}"

    def close(self) -> None:
        """End the process (and reap it)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            import contextlib
            import subprocess
            with contextlib.suppress(OSError):
                proc.stdin.close()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            with contextlib.suppress(OSError):
                proc.stdout.close()
        if self._errors is not None:
            self._errors.close()
            self._errors = None


def samples_for(cells: int) -> int:
    """The DLX samples of each reading of a campaign with ``cells`` cells to run: the
    calibration's cost fits the campaign's (:data:`SMALL_CAMPAIGN`)."""
    return SAMPLES if cells >= SMALL_CAMPAIGN else SMALL_SAMPLES


def calibrate(samples: int = SAMPLES) -> dict[str, Any]:
    """One calibration reading of ``samples`` DLX samples and half as many SAT ones (at least
    2): both kernels and ``score_s``, the geometric mean of their
    readings (minimum wall times). After their warm-ups the two kernels' samples are
    interleaved (the SAT samples spread evenly among the DLX ones), so each kernel's
    samples span the whole reading (~0.5 s): a slow phase of the host shorter than that
    cannot cover all the samples of one kernel, as it did when each ran its samples in one
    block (measured: one reading in 7 with every SAT sample 40% slow while its DLX block,
    just before, was not)."""
    from experiments.harness.provenance import utc_now
    at = utc_now()
    dlx_sample = _dlx_sampler()
    sat_sample, seen = _sat_sampler()
    _sampled(dlx_sample, WARMUP)
    _sampled(sat_sample, WARMUP)
    sat_samples = max(2, samples * SAT_SAMPLES // SAMPLES)
    sat_after = [j * samples // sat_samples for j in range(sat_samples)]   # DLX sample indices
    dlx_times, dlx_cpu, sat_times, sat_cpu = [], [], [], []
    for i in range(samples):
        wall, cpu = dlx_sample()
        dlx_times.append(wall)
        dlx_cpu.append(cpu)
        for _ in range(sat_after.count(i)):
            wall, cpu = sat_sample()
            sat_times.append(wall)
            sat_cpu.append(cpu)
    dlx = {**_dlx_reading(dlx_times, dlx_cpu, WARMUP), "interleaved": True}
    sat = {**_sat_reading(sat_times, sat_cpu, WARMUP, seen["conflicts"]), "interleaved": True}
    return {"at": at, "dlx": dlx, "sat": sat,
            "score_s": math.sqrt(dlx["seconds"] * sat["seconds"])}


def score(calibration: dict[str, Any] | None) -> float | None:
    """A campaign's calibration score (s): the mean of its start and end ``score_s``
    (either alone when the other is missing); None without a calibration."""
    values = [r["score_s"] for r in ((calibration or {}).get(k) for k in ("start", "end"))
              if isinstance(r, dict) and isinstance(r.get("score_s"), (int, float))]
    return statistics.fmean(values) if values else None


def drifts(calibration: dict[str, Any] | None) -> dict[str, float]:
    """Kernel -> relative change of its time from the start to the end reading
    (+0.08 = 8% slower at the end); empty without both readings."""
    start, end = ((calibration or {}).get(k) for k in ("start", "end"))
    if not isinstance(start, dict) or not isinstance(end, dict):
        return {}
    out = {}
    for kernel in ("dlx", "sat"):
        a, b = (start.get(kernel) or {}).get("seconds"), (end.get(kernel) or {}).get("seconds")
        if a and b:
            out[kernel] = b / a - 1.0
    return out


def drift_warning(calibration: dict[str, Any] | None, where: str = "",
                  limit: float = DRIFT_LIMIT) -> str | None:
    """The pyperf-style warning when a kernel's time drifted by more than ``limit``
    between the start and the end of the run; None otherwise."""
    moved = {k: d for k, d in drifts(calibration).items() if abs(d) > limit}
    if not moved:
        return None
    text = ", ".join(f"{k} {100 * d:+.0f}%" for k, d in moved.items())
    prefix = f"{where}: " if where else ""
    return (f"WARNING: {prefix}the calibration drifted by more than {100 * limit:.0f}% between "
            f"the start and the end of the run ({text}): the machine's speed changed during the "
            "run (load, frequency, thermals)")
