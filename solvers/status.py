"""The status words of an answer and of a cell: the one place they are spelled.

A solver's answer is ``solved`` (a verified solution, or count >= 1), ``unsat`` (proved no
solution), ``unknown`` (a budget ran out before an answer) or ``wrong`` (something that is not
a solution of the puzzle); a cell of a race may also end at a limit (``timeout``,
``memout``), in an ``error``, or be ``skipped`` (never run). :mod:`solvers.interface` names the
solver's four, :mod:`experiments.harness.schema` builds on all of them (which count as
answers, which are censored).
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """The outcome of one answer or cell (the value is the word written to runs.csv)."""
    SOLVED = "solved"
    UNSAT = "unsat"
    UNKNOWN = "unknown"
    TIMEOUT = "timeout"
    MEMOUT = "memout"
    ERROR = "error"
    WRONG = "wrong"
    SKIPPED = "skipped"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)
