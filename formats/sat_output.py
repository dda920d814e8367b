"""SAT solver output (Task 9, parsing half): the competition format, and minisat's result file.

Competition format (kissat, cadical, ...)::

    c any comment, anywhere
    s SATISFIABLE              (or s UNSATISFIABLE / s UNKNOWN)
    v 1 -2 3 ...               the model, possibly over many v lines,
    v -9 10 0                  ended by 0

with exit code 10 for satisfiable and 20 for unsatisfiable. minisat writes its
result to a file instead: a first line ``SAT`` / ``UNSAT`` / ``INDET``, then the
model on one line ended by 0.

:func:`parse` is strict: a missing or duplicated ``s`` line, a model that is
not ended by 0, literals out of range or repeated, a model that does not
assign every declared variable, an exit code contradicting the ``s`` line, or
any unknown line raise :class:`RaceError` (file, line): truncated or garbage
output never becomes a grid. :func:`statistics` picks conflicts, decisions
and propagations out of a solver's ``c`` statistics lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from formats.dimacs import MAX_VARS
from formats.errors import RaceError
from formats.source import BLANKS, reject_carriage_return, split_lines

SAT, UNSAT, UNKNOWN = "SATISFIABLE", "UNSATISFIABLE", "UNKNOWN"
EXIT_CODES = {10: SAT, 20: UNSAT}
_MINISAT = {"SAT": SAT, "UNSAT": UNSAT, "INDET": UNKNOWN}


@dataclass
class SatOutput:
    """What a solver said: ``status`` (SATISFIABLE / UNSATISFIABLE / UNKNOWN)
    and, when satisfiable, ``model``: the signed literals in the order given."""
    status: str
    model: np.ndarray | None = None
    comments: list[str] = field(default_factory=list)


def parse(text: str, name: str = "<solver output>", nvars: int | None = None,
          exit_code: int | None = None) -> SatOutput:
    """Parse solver output in the competition format or minisat's result format.

    ``nvars``, when given, requires the model to assign exactly the variables
    1..nvars (each once). ``exit_code``, when given, must agree with the status
    (10 = SAT, 20 = UNSAT)."""
    lines = split_lines(text)
    first = next((ln.strip(BLANKS) for ln in lines if ln.strip(BLANKS)), "")
    if first in _MINISAT:
        out = _parse_minisat(lines, name)
    else:
        out = _parse_competition(lines, name)
    if exit_code is not None and exit_code in EXIT_CODES and EXIT_CODES[exit_code] != out.status:
        raise RaceError(f"exit code {exit_code} means {EXIT_CODES[exit_code]} but the output "
                        f"says {out.status}", source=name)
    if out.status == SAT:
        assert out.model is not None            # both parsers give a model with SAT
        _check_model(out.model, nvars, name)
    return out


def _parse_competition(lines: list[str], name: str) -> SatOutput:
    status = None
    status_line = 0
    comments: list[str] = []
    values: list[np.ndarray] = []
    ended = False
    last_v = 0
    for no, raw in enumerate(lines, 1):
        if "\r" in raw:                  # CR-only line ends: one line would hold them all
            reject_carriage_return(raw, name, no)
        line = raw.strip(BLANKS)
        if not line:
            continue
        tag = line[0]
        if tag == "c" and (len(line) == 1 or line[1] in " \t"):
            comments.append(line[1:].strip())
        elif tag == "s" and (len(line) == 1 or line[1] in " \t"):
            word = line[1:].strip(BLANKS)
            if word not in (SAT, UNSAT, UNKNOWN):
                raise RaceError(f"unknown status {word!r} (expected SATISFIABLE, UNSATISFIABLE "
                                f"or UNKNOWN)", source=name, line=no)
            if status is not None:
                raise RaceError("a second 's' status line", source=name, line=no)
            status, status_line = word, no
        elif tag == "v" and (len(line) == 1 or line[1] in " \t"):
            if status != SAT:
                raise RaceError("a 'v' line without a preceding 's SATISFIABLE'",
                                source=name, line=no)
            if ended:
                raise RaceError("a 'v' line after the model's terminating 0", source=name, line=no)
            chunk = _literals(line[1:], name, no)
            zeros = np.flatnonzero(chunk == 0)
            if zeros.size and zeros[0] != chunk.size - 1:
                raise RaceError("literals after the model's terminating 0", source=name, line=no)
            if zeros.size:
                ended = True
                chunk = chunk[:-1]
            values.append(chunk)
            last_v = no
        else:
            raise RaceError(f"unexpected line {line[:40]!r} (expected a 'c', 's' or 'v' line)",
                            source=name, line=no)
    if status is None:
        raise RaceError("no 's' status line: truncated or not solver output", source=name)
    if status != SAT:
        return SatOutput(status, None, comments)
    if not values:
        raise RaceError("'s SATISFIABLE' but no model ('v' lines)", source=name, line=status_line)
    if not ended:
        raise RaceError("the model is not terminated by 0: truncated output?",
                        source=name, line=last_v)
    return SatOutput(SAT, np.concatenate(values), comments)


def _parse_minisat(lines: list[str], name: str) -> SatOutput:
    for no, raw in enumerate(lines, 1):
        if "\r" in raw:
            reject_carriage_return(raw, name, no)
    content = [(no, ln.strip(BLANKS)) for no, ln in enumerate(lines, 1) if ln.strip(BLANKS)]
    status = _MINISAT[content[0][1]]
    if status != SAT:
        if len(content) > 1:
            raise RaceError("unexpected text after the status", source=name, line=content[1][0])
        return SatOutput(status)
    if len(content) < 2:
        raise RaceError("'SAT' but no model", source=name, line=content[0][0])
    tokens = np.concatenate([_literals(ln, name, no) for no, ln in content[1:]])
    if tokens.size == 0 or tokens[-1] != 0:
        raise RaceError("the model is not terminated by 0: truncated output?",
                        source=name, line=content[-1][0])
    if np.any(tokens[:-1] == 0):
        raise RaceError("literals after the model's terminating 0", source=name,
                        line=content[-1][0])
    return SatOutput(SAT, tokens[:-1])


def _literals(text: str, name: str, no: int) -> np.ndarray:
    """The ASCII decimal literals of one line of a model, each within +-MAX_VARS."""
    if not _LITERALS.fullmatch(text):
        raise RaceError("the model holds something that is not an integer literal (ASCII digits)",
                        source=name, line=no)
    try:
        chunk = np.array(text.split(), dtype=np.int64)
    except (ValueError, OverflowError):
        raise RaceError("the model holds something that is not an integer literal",
                        source=name, line=no) from None
    if chunk.size and (chunk.min() < -MAX_VARS or chunk.max() > MAX_VARS):
        raise RaceError(f"a literal beyond +-{MAX_VARS} (the largest variable number)",
                        source=name, line=no)
    return chunk


_LITERALS = re.compile(r"[-0-9 \t\r\f\v]*")


def _check_model(model: np.ndarray, nvars: int | None, name: str) -> None:
    var = np.abs(model)
    if nvars is not None and var.size and var.max() > nvars:
        raise RaceError(f"the model names variable {int(var.max())} but the formula has only "
                        f"{nvars}", source=name)
    if np.unique(var).size != var.size:
        raise RaceError("the model assigns a variable twice", source=name)
    if nvars is not None and var.size != nvars:
        raise RaceError(f"the model assigns {var.size} of the {nvars} variables: truncated output?",
                        source=name)


_STAT = re.compile(r"^c?\s*(conflicts|decisions|propagations)\s*:\s*(\d+)", re.MULTILINE)


def statistics(text: str) -> dict[str, int]:
    """conflicts / decisions / propagations from a solver's statistics lines
    (kissat and cadical ``c conflicts: 123 ...``, minisat ``conflicts : 123``);
    the last occurrence of each wins."""
    found: dict[str, int] = {}
    for key, value in _STAT.findall(text):
        found[key] = int(value)
    return found
