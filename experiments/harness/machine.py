"""What the machine was doing: the readings ``meta.json`` records at the start and the end
of a run (pyperf's system checks, BenchExec's core allocation).

:func:`reading` samples, over a short interval:

* ``load_avg``: the 1, 5 and 15 minute load averages;
* ``cpu_mhz``: the current frequency (mean over the CPUs), the minimum and the maximum;
* ``governor``: the cpufreq scaling governor(s) of the usable CPUs;
* ``smt``: whether simultaneous multithreading (hyperthreads) is on;
* ``usable_cpus``: the CPUs this process may run on (``os.sched_getaffinity``);
* ``others_busy_cores``: how many cores' worth of CPU the *other* processes used during
  the interval (all busy CPU time minus this process's own), and ``busiest``, the
  other processes that used the most.

A reading the machine does not offer (no cpufreq in a VM or container, no load average)
is ``None``: missing, never guessed. :func:`busy_warning` turns the readings into the
one-line warning the run summary, ``race plot``, the report and ``race compare`` print.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Any

from experiments.harness.pinning import sibling_groups, usable_cpus
from experiments.harness.provenance import utc_now

#: seconds over which the other processes' CPU use is sampled
INTERVAL_S = 0.3
#: the other processes must keep at least this much of a core busy to count as noise
BUSY_MARGIN = 0.5
#: how many of the busiest other processes a reading names
BUSIEST = 3

_CPU_SYS = Path("/sys/devices/system/cpu")


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def load_avg() -> list[float] | None:
    """The 1, 5 and 15 minute load averages, None where the OS has none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def _khz_to_mhz(text: str | None) -> float | None:
    try:
        value = int(text) / 1000.0 if text is not None else None
    except ValueError:
        return None
    return value if value else None


def cpu_mhz(cpus: list[int] | None = None) -> dict[str, float | None]:
    """Current (mean over ``cpus``), minimum and maximum frequency in MHz: from cpufreq in
    /sys, the current one else from ``psutil`` (/proc/cpuinfo); None when unreadable."""
    cpus = usable_cpus() if cpus is None else cpus
    current = [_khz_to_mhz(_read(_CPU_SYS / f"cpu{c}/cpufreq/scaling_cur_freq")) for c in cpus]
    lows = [_khz_to_mhz(_read(_CPU_SYS / f"cpu{c}/cpufreq/cpuinfo_min_freq")) for c in cpus]
    highs = [_khz_to_mhz(_read(_CPU_SYS / f"cpu{c}/cpufreq/cpuinfo_max_freq")) for c in cpus]
    now = [x for x in current if x]
    mean = round(sum(now) / len(now), 1) if now else None
    if mean is None:
        try:
            import psutil
            freq = psutil.cpu_freq()
            mean = round(freq.current, 1) if freq and freq.current else None
        except Exception:  # noqa: BLE001 - psutil's reading is optional
            mean = None
    low = min((x for x in lows if x), default=None)
    high = max((x for x in highs if x), default=None)
    return {"current": mean, "min": low, "max": high}


def governor(cpus: list[int] | None = None) -> str | None:
    """The scaling governor of ``cpus`` (several joined by ``,`` when they differ), None
    without cpufreq."""
    cpus = usable_cpus() if cpus is None else cpus
    found = [g for c in cpus if (g := _read(_CPU_SYS / f"cpu{c}/cpufreq/scaling_governor"))]
    return ",".join(dict.fromkeys(found)) or None


def smt() -> bool | None:
    """True when hyperthreads are on, False when off, None when the kernel does not say
    (no /sys/devices/system/cpu/smt/active and no thread-sibling topology)."""
    active = _read(_CPU_SYS / "smt/active")
    if active in ("0", "1"):
        return active == "1"
    groups = sibling_groups(usable_cpus())
    if groups is None:
        return None
    return any(len(group) > 1 for group in groups)


def _busy_seconds(times: Any) -> float:
    idle = getattr(times, "idle", 0.0) + getattr(times, "iowait", 0.0)
    return sum(times) - idle - getattr(times, "guest", 0.0) - getattr(times, "guest_nice", 0.0)


def others_busy(interval: float = INTERVAL_S) -> tuple[float | None, list[dict[str, Any]]]:
    """Cores' worth of CPU the other processes used over ``interval`` seconds (all busy
    CPU time minus this process's), and the busiest of them (pid, name, % of one core);
    (None, []) without psutil's readings."""
    try:
        import psutil
    except ImportError:
        return None, []
    me = psutil.Process()
    try:
        procs = [p for p in psutil.process_iter(["pid", "name"]) if p.pid != me.pid]
        for p in procs:
            with contextlib.suppress(psutil.Error):
                p.cpu_percent(None)
        total0, own0 = psutil.cpu_times(), sum(me.cpu_times()[:2])
        t0 = time.monotonic()
        time.sleep(interval)
        total1, own1 = psutil.cpu_times(), sum(me.cpu_times()[:2])
        elapsed = time.monotonic() - t0
    except (psutil.Error, OSError):
        return None, []
    busy = _busy_seconds(total1) - _busy_seconds(total0) - (own1 - own0)
    ranked = []
    for p in procs:
        try:
            share = p.cpu_percent(None)
        except psutil.Error:
            continue
        if share >= 5.0:
            ranked.append({"pid": p.pid, "name": p.info.get("name"), "cpu_percent": round(share, 1)})
    ranked.sort(key=lambda r: -r["cpu_percent"])
    return round(max(busy, 0.0) / elapsed, 2), ranked[:BUSIEST]


def reading(interval: float = INTERVAL_S) -> dict[str, Any]:
    """The machine's state now (see the module docstring); ``at`` is the UTC time."""
    cpus = usable_cpus()
    others, busiest = others_busy(interval)
    return {"at": utc_now(), "load_avg": load_avg(), "cpu_mhz": cpu_mhz(cpus),
            "governor": governor(cpus), "smt": smt(), "usable_cpus": cpus,
            "others_busy_cores": others, "busiest": busiest}


def busy_warning(readings: dict[str, Any], cores_in_use: int, where: str = "") -> str | None:
    """The pyperf-style warning when the machine was busy at the ``start`` or ``end``
    reading of ``readings`` (the ``machine_state`` block of meta.json): the 1-minute load
    average above the cores in use, or the other processes using more than the cores the
    run left free (:data:`BUSY_MARGIN`). None when it was not (or nothing was read)."""
    found = []
    for moment in ("start", "end"):
        state = readings.get(moment) or {}
        cpus = len(state.get("usable_cpus") or []) or (os.cpu_count() or 1)
        load = (state.get("load_avg") or [None])[0]
        others = state.get("others_busy_cores")
        free = max(cpus - cores_in_use, 0)
        if load is not None and load > cores_in_use:
            found.append(f"load average {load:g} at the {moment}")
        if others is not None and others > free + BUSY_MARGIN:
            names = ", ".join(f"{b['name']} {b['cpu_percent']:.0f}%" for b in state.get("busiest") or [])
            found.append(f"other processes kept {others:.1f} cores busy at the {moment}"
                         + (f" ({names})" if names else ""))
    if not found:
        return None
    prefix = f"{where}: " if where else ""
    return (f"WARNING: {prefix}the machine was busy: {'; '.join(found)}, with {cores_in_use} "
            f"core(s) in use: times may be inflated and noisy; rerun on a quiet machine")
