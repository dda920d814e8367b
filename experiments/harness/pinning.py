"""Core allocation for pinned workers (BenchExec's rule): each local worker gets a core of
its own, and two workers never share the hyperthread siblings of one physical core.

:func:`sibling_groups` reads the topology (``/sys/devices/system/cpu/cpuN/topology/
thread_siblings_list``): the usable CPUs grouped by physical core. :func:`allocate`
hands out one CPU per worker from distinct physical cores (the first sibling of each),
or None when there are fewer physical cores than workers: then nothing is pinned,
since two workers on siblings would measure each other.

A cell of several cores (``parallel``: one per member) holds as many worker slots and runs
on their CPUs, one member on each (:mod:`experiments.harness.executor`), so its members
too never share a physical core with each other or with another cell.
"""

from __future__ import annotations

import os
from pathlib import Path

_CPU_SYS = Path("/sys/devices/system/cpu")


def parse_cpu_list(text: str) -> list[int]:
    """The CPUs of a kernel CPU list such as ``0-3,8,10-11``. Raises ValueError."""
    cpus: list[int] = []
    for part in text.strip().split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        cpus.extend(range(int(low), int(high or low) + 1))
    return cpus


def sibling_groups(cpus: list[int], root: Path = _CPU_SYS) -> list[list[int]] | None:
    """``cpus`` grouped by physical core (hyperthread siblings together), in the order of
    each group's first CPU; None when the topology is unreadable. Siblings outside
    ``cpus`` are left out (a CPU we may not use cannot disturb the allocation)."""
    usable = set(cpus)
    groups: dict[tuple[int, ...], list[int]] = {}
    for cpu in sorted(cpus):
        try:
            text = (root / f"cpu{cpu}/topology/thread_siblings_list").read_text()
            siblings = tuple(c for c in parse_cpu_list(text) if c in usable) or (cpu,)
        except (OSError, ValueError):
            return None
        groups.setdefault(siblings, [])
        if cpu not in groups[siblings]:
            groups[siblings].append(cpu)
    return [sorted(set(g) | set(k)) for k, g in groups.items()]


def usable_cpus() -> list[int]:
    """The CPUs this process may run on (``os.sched_getaffinity``), ascending."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return list(range(os.cpu_count() or 1))


def allocate(workers: int, cpus: list[int] | None = None,
             root: Path = _CPU_SYS) -> list[int] | None:
    """One CPU per worker, each on a different physical core (hyperthread siblings kept
    apart); None when there are fewer physical cores than workers (or no affinity
    support): the workers then run unpinned. Without a readable topology every usable CPU
    counts as a core of its own."""
    if workers < 1 or not hasattr(os, "sched_setaffinity"):
        return None
    cpus = usable_cpus() if cpus is None else sorted(cpus)
    groups = sibling_groups(cpus, root) or [[c] for c in cpus]
    if len(groups) < workers:
        return None
    # the last cores first: CPU 0 takes most interrupts and the parent's own work
    chosen = [group[0] for group in groups[::-1][:workers]]
    return sorted(chosen)


def pin(cpu: int) -> None:
    """Restrict the calling process (and the processes it starts) to ``cpu``."""
    os.sched_setaffinity(0, {cpu})
