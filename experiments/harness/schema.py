"""The record schema of a campaign: the columns of ``runs.csv``, the phases, the work
counters and the status of a cell (:class:`Status`, spelled once in :mod:`solvers.status`
and imported here). Every other module of ``experiments`` imports these names; none spells a
column list or a status word itself.

Censoring is decided here, once: a cell counts as *answered* (its time is a
measurement) only when its status is ``solved`` with ``verified`` true, or
``unsat``; any other cell is censored ("more than the limit"). A blank or missing
``verified`` is not true.
"""

from __future__ import annotations

from typing import Any

from solvers.status import Status

#: every status word, in the contract's order
STATUSES: tuple[str, ...] = tuple(s.value for s in Status)
#: statuses that are a correct answer within the limit (when verified, for solved)
ANSWERED: frozenset[str] = frozenset({Status.SOLVED.value, Status.UNSAT.value})
#: statuses whose time columns hold the limit, not a measured time
LIMIT_STATUSES: frozenset[str] = frozenset({Status.TIMEOUT.value, Status.MEMOUT.value})
#: statuses that are censored (no measured time to average): all but the answers
CENSORED: frozenset[str] = frozenset(STATUSES) - ANSWERED
#: statuses that are a cell's failure, as the summaries count them
FAILURES: tuple[str, ...] = (Status.TIMEOUT.value, Status.MEMOUT.value, Status.ERROR.value,
                             Status.UNKNOWN.value, Status.SKIPPED.value)
#: order from best to worst, for the status of an instance over its repeats
SEVERITY: tuple[str, ...] = (Status.SOLVED.value, Status.UNSAT.value, Status.UNKNOWN.value,
                             Status.SKIPPED.value, Status.TIMEOUT.value, Status.MEMOUT.value,
                             Status.ERROR.value, Status.WRONG.value)

#: the phases a solver may time, in pipeline order (column ``t_<phase>``)
PHASES: tuple[str, ...] = ("check", "build", "encode", "write", "search", "decode", "verify")
#: the phase-time columns
PHASE_COLUMNS: tuple[str, ...] = tuple(f"t_{p}" for p in PHASES)
#: the work counters a solver may report (one column each)
WORK_COUNTERS: tuple[str, ...] = ("nodes", "updates", "checks", "conflicts", "decisions",
                                  "propagations", "vars", "clauses")

#: the columns of runs.csv, in order (``family`` is the key of the instance family
#: (:mod:`experiments.harness.identity`: its label such as ``unique`` or ``hard``, plus
#: ``@<fraction>`` when it fixes its hole fraction), part of the cell's identity; ``holes``
#: the fraction of empty cells of a holes/hard instance, else empty; ``referee`` on what
#: the verdict on a claim rests (e.g. "the instance records a solution", "confirmed by
#: sat"); ``extra`` the solver's own counters and phases beyond :data:`WORK_COUNTERS` and
#: :data:`PHASES`, as a JSON object; ``wall_s`` the cell's wall time, ``cpu_s`` the CPU time of
#: every process of the cell, ``cores`` how many cores the cell held: 1, or one per member
#: of an entrant that runs several searches at once, whose ``cpu_s`` sums them all, so
#: ``wall_s`` compares its answers with the others' and ``cpu_s`` its work; a cell at the
#: limit gets the limit as ``wall_s`` and ``cores`` times it as ``cpu_s``; blank in rows
#: written before the column existed: 1). Rows written before a column existed read it as
#: empty; a file written before ``family`` replaced ``kind`` (which held the family's
#: label) is read by :func:`experiments.harness.identity.upgrade_row`.
COLUMNS: tuple[str, ...] = (
    "campaign", "entrant", "solver", "params", "n", "family", "holes", "seed", "instance", "instance_sha256",
    "clues", "repeat", "status", "verified", "wall_s", "cpu_s", "cores", "peak_rss_mb", "timeout_s",
    "iterations", *PHASE_COLUMNS, *WORK_COUNTERS, "worker", "started_at", "message",
    "referee", "extra",
)
#: columns without which no analysis is possible
REQUIRED: tuple[str, ...] = ("entrant", "n", "instance", "status", "wall_s", "timeout_s")
#: columns holding numbers
NUMERIC: tuple[str, ...] = ("n", "holes", "repeat", "wall_s", "cpu_s", "cores", "timeout_s", "peak_rss_mb",
                            "iterations", *PHASE_COLUMNS, *WORK_COUNTERS)

_TRUE = frozenset({"true", "1", "1.0"})


def is_true(value: Any) -> bool:
    """A ``verified`` cell read back from CSV: True, "True", "1" or 1 only (blank is False)."""
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in _TRUE


def answered(status: str, verified: Any) -> bool:
    """True when a cell with this status and ``verified`` value is a measured answer
    (see the module docstring); every other cell is censored."""
    if status == Status.UNSAT:
        return True
    return status == Status.SOLVED and is_true(verified)
