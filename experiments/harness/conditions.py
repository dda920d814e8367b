"""The conditions a run measured under: which cores its workers were pinned to, what the
machine was doing and how fast the calibration kernels ran, at the start and at the end.

:func:`pinned_cpus` decides the pinning of a local run; :func:`begin` takes the start
readings (before the instances are prepared, so the run's own work is not in them) and
:func:`end` the end readings (after the workers are stopped), and writes them all into
``meta.json``:

* ``pinning``: ``{"enabled", "cpus", "workers"}`` (the CPUs of each worker as it reported
  them, ``host:pid`` -> list);
* ``order``: ``{"mode", "seed"}`` (:mod:`experiments.harness.scheduling`);
* ``machine_state``: ``{"start", "end"}`` readings of :mod:`experiments.harness.machine`;
* ``calibration``: ``{"start", "end"}`` readings of :mod:`experiments.harness.calibration`.

A resumed campaign keeps the latest run's readings (each run's are also appended to
``runs_conditions``, oldest first, with ``cells``, how many cells it measured; those of a run
that never ended, marked ``interrupted``, when the next one starts). The noise warnings are
computed from every run in ``runs_conditions`` that measured cells
(:func:`experiments.analysis.noise.sessions`).
"""

from __future__ import annotations

import os
from typing import Any

from experiments.harness import calibration, machine, pinning, provenance
from experiments.harness.config import Config
from formats.errors import RaceError


def pinned_cpus(config: Config) -> list[int] | None:
    """One CPU per local worker when ``config.pin`` and the workers fit on distinct
    physical cores (:func:`experiments.harness.pinning.allocate`), else None."""
    if not config.pin or config.executor != "local":
        return None
    return pinning.allocate(config.jobs)


#: the calibration process of this run, by the CPU it runs on (:func:`_calibrate_on`)
_CALIBRATORS: dict[int | None, calibration.Calibrator] = {}


def _calibrate_on(cpu: int | None, samples: int = calibration.SAMPLES) -> dict[str, Any] | None:
    """A calibration reading of ``samples`` DLX samples, on ``cpu`` alone when given (as a
    pinned worker runs). Taken by the run's calibration process
    (:class:`experiments.harness.calibration.Calibrator`, started at the first reading, ended
    by :func:`close`), unless this process has numba loaded already (a race started from
    Python where solvers ran before: the API, a notebook, a test): then here, where the kernels
    cost little more and a process of their own a second of CPU. A reading that could not be
    taken records its error instead (a missing kernel must not stop the race)."""
    if _kernels_loaded():
        return _calibrate_here(cpu, samples)
    calibrator = _CALIBRATORS.get(cpu)
    if calibrator is None:
        calibrator = _CALIBRATORS[cpu] = calibration.Calibrator(cpu)
    return calibrator.reading(samples)


def _kernels_loaded() -> bool:
    """Whether this process has numba (the compiled kernels' compiler) loaded."""
    import sys
    return "numba" in sys.modules


def _calibrate_here(cpu: int | None, samples: int) -> dict[str, Any]:
    """:func:`experiments.harness.calibration.calibrate` in this process, on ``cpu`` alone
    meanwhile when given."""
    before = None
    if cpu is not None:
        before = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {cpu})
    try:
        return calibration.calibrate(samples)
    except Exception as exc:  # noqa: BLE001 - a missing kernel must not stop the race
        return {"error": f"{type(exc).__name__}: {exc}"}
    finally:
        if before is not None:
            os.sched_setaffinity(0, before)


def close() -> None:
    """End the run's calibration processes."""
    while _CALIBRATORS:
        _CALIBRATORS.popitem()[1].close()


#: seconds over which the machine reading samples the other processes' CPU use when the run
#: has no cell to run and so no calibration either (a resume with nothing left): its readings
#: describe no measurement, a glance will do
GLANCE_S = 0.05


def begin(config: Config, cpus: list[int] | None, calibrate: bool = True,
          samples: int = calibration.SAMPLES) -> dict[str, Any]:
    """The start readings (machine, then calibration on the first worker's CPU, of
    ``samples`` DLX samples: :func:`experiments.harness.calibration.samples_for`); without
    ``calibrate``, a glance at the machine (:data:`GLANCE_S`)."""
    state = machine.reading() if calibrate else machine.reading(GLANCE_S)
    reading = _calibrate_on(cpus[0] if cpus else None, samples) if calibrate else None
    return {"machine_state": {"start": state},
            "calibration": {"start": reading},
            "pinning": {"enabled": cpus is not None or (config.executor == "dask" and config.pin),
                        "cpus": cpus},
            "order": {"mode": config.order, "seed": config.seed}}


def end(config: Config, started: dict[str, Any], cpus: list[int] | None,
        worker_cpus: dict[str, list[int]] | None = None, calibrate: bool = True,
        cells: int | None = None, samples: int = calibration.SAMPLES) -> dict[str, Any]:
    """The end readings (calibration first, while the machine is as the run left it, then
    the machine), merged with ``started`` into ``meta.json``, with the number of ``cells``
    the run measured (when given) in its ``runs_conditions`` entry; returns the conditions."""
    cal_end = _calibrate_on(cpus[0] if cpus else None, samples) if calibrate else None
    conditions = dict(started)
    conditions["machine_state"] = {**started["machine_state"],
                                   "end": machine.reading() if calibrate else machine.reading(GLANCE_S)}
    conditions["calibration"] = {**started["calibration"], "end": cal_end}
    close()
    conditions["pinning"] = {**started["pinning"], "workers": dict(worker_cpus or {})}
    if cells is not None:
        conditions["cells"] = int(cells)
    record(config, conditions, history=True)
    return conditions


#: the readings of one run in meta.json (:func:`begin`, :func:`end`)
READINGS = ("machine_state", "calibration", "pinning", "order")


def record(config: Config, conditions: dict[str, Any], history: bool = False) -> None:
    """Write ``conditions`` into the campaign's meta.json at the top level (the latest
    run's; :func:`begin`'s as soon as meta.json exists, so an interrupted run keeps them),
    and with ``history`` append them to ``runs_conditions`` (every finished run's). A run
    that starts over the start readings of one that never ended (killed, interrupted: its
    cells are recorded, measured under those readings) first appends those to
    ``runs_conditions``, marked ``"interrupted": true``: no run's readings are lost.
    Nothing happens without a meta.json."""
    path = config.directory / "meta.json"
    try:
        meta = provenance.read_meta(path)
    except RaceError:
        return
    state = meta.get("machine_state")
    if not history and isinstance(state, dict) and state.get("start") and "end" not in state:
        unfinished = {key: meta[key] for key in READINGS if key in meta}
        meta["runs_conditions"] = [*meta.get("runs_conditions", []),
                                   {**unfinished, "interrupted": True}]
    meta.update({key: value for key, value in conditions.items() if key in READINGS})
    if history:
        meta["runs_conditions"] = [*meta.get("runs_conditions", []), conditions]
    provenance.save_meta(path, meta)
