"""The command line's number types: ASCII decimal only, finite, in range.

click's ``FloatRange`` takes ``nan`` and ``inf`` (a limit of ``nan`` runs cells without
a limit) and its ``IntRange`` takes any Unicode digit (``٣`` or full-width ``３``). Every
option of ``race`` that takes a number uses these two types instead.
"""

from __future__ import annotations

import math
import re

import click

from experiments.cli.integer_text import parse_integer

_DECIMAL = re.compile(r"[-+]?([0-9]{1,30}(\.[0-9]{0,30})?|\.[0-9]{1,30})([eE][-+]?[0-9]{1,4})?")


#: the largest integer an option takes: int64, as the compiled kernels count
MAX_INTEGER = 2**63 - 1


class Integer(click.ParamType):
    """An ASCII decimal integer in ``min..max`` (``min`` None: open; ``max`` at most
    :data:`MAX_INTEGER`, the kernels' int64)."""
    name = "integer"

    def __init__(self, min: int | None = None, max: int | None = MAX_INTEGER) -> None:
        self.min, self.max = min, MAX_INTEGER if max is None or max > MAX_INTEGER else max

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            parsed = parse_integer(str(value))
            if parsed is None:
                self.fail(f"{str(value)[:40]!r} is not an integer (ASCII digits 0-9)", param, ctx)
            number = parsed
        if (self.min is not None and number < self.min) or (self.max is not None and number > self.max):
            self.fail(f"must be {self._range(number)}, not {number}", param, ctx)
        return number

    def _range(self, number: int) -> str:
        """The bounds ``number`` breaks as the help writes them: ``in 1..20``, or ``at least
        1`` when the top is only the kernels' int64 (never ``1..9223372036854775807``)."""
        if self.max == MAX_INTEGER and number > self.max:
            return f"at most {self.max} (a 64-bit integer)"
        if self.max == MAX_INTEGER:
            return f"at least {self.min}"
        if self.min is None:
            return f"at most {self.max}"
        return f"in {self.min}..{self.max}"


class Number(click.ParamType):
    """A finite ASCII decimal number greater than (``open``) or at least ``min`` and at most
    ``max``: never ``nan`` or ``inf``."""
    name = "number"

    def __init__(self, min: float = 0.0, open: bool = False, max: float = 1e9) -> None:
        self.min, self.open, self.max = min, open, max

    def convert(self, value, param, ctx):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number = float(value)
        else:
            text = str(value).strip()
            if not _DECIMAL.fullmatch(text):
                self.fail(f"{str(value)[:40]!r} is not a finite decimal number", param, ctx)
            number = float(text)
        low_ok = number > self.min if self.open else number >= self.min
        if not math.isfinite(number) or not low_ok or number > self.max:
            bound = f"> {self.min:g}" if self.open else f">= {self.min:g}"
            self.fail(f"{number:g} is not a finite number {bound} and <= {self.max:g}", param, ctx)
        return number


#: a time limit in seconds (positive, finite, at most about 11 days)
SECONDS = Number(0.0, open=True, max=1e6)
#: a memory limit in MB (0 = none; at most 1 PB)
MEGABYTES = Number(0.0, max=1e9)


def code_change_options(command):
    """``--mixed`` and ``--rerun ENTRANT``: what a command that resumes a campaign does when an
    entrant's code differs from the code that measured its rows
    (:mod:`experiments.harness.code_change`)."""
    command = click.option("--rerun", "rerun", multiple=True, metavar="ENTRANT",
                           help="Run ENTRANT's cells again: its rows move to runs.replaced.csv "
                                "beside runs.csv (repeatable).")(command)
    return click.option("--mixed", is_flag=True,
                        help="Resume although an entrant's code differs from the code that "
                             "measured its rows: keep them, and record in meta.json which code "
                             "measured which.")(command)
