"""The campaign record: ``runs.csv``, one row per cell (its columns in docs/formats.md,
their meaning in :mod:`experiments.harness.schema`).

Rows are appended as each cell finishes, one ``write(2)`` per row, so a killed
campaign loses nothing that finished; a row whose write fails (ENOSPC) is cut
off again, and the run ends with :class:`RecordWriteError`.

The file is read by one owner, :class:`experiments.harness.runs_table.RunsTable` (in
columns when every row is valid, else row by row by :func:`scan`), and every row is validated
as it is read (the contract :func:`scan` spells out row by row): the header must be one
valid line naming every required column (:data:`experiments.harness.schema.REQUIRED`;
other columns missing from an older file read as empty); a row must be one
line of valid UTF-8 without NUL, with one field per column, a known status, an
integer n in 1..MAX_N, an integer repeat and numbers in the numeric columns; a
second row of the same cell is a duplicate (the same outcome) or a conflict (another
outcome: the worse record counts, so a wrong answer is never hidden behind a solved row
of its cell, and the other is set aside naming both). A row failing any of this is
*damaged*: readers skip it (so its cell counts as not done and is re-run, and no
summary counts it), and :func:`set_aside` -- called when a run opens the file --
moves it to ``runs.damaged.csv`` with the reason, reporting one line on stderr.
:func:`make_row` shapes a cell's outcome into a row.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.harness.identity import CellKey, row_key, upgrade_row
from experiments.harness.provenance import utc_now
from experiments.harness.rows import encode
from experiments.harness.schema import COLUMNS, NUMERIC, REQUIRED, SEVERITY, STATUSES
from formats.errors import RaceError, printable
from formats.grid import MAX_N
from formats.whole_file import write_whole

#: where damaged rows go, next to runs.csv
DAMAGED_NAME = "runs.damaged.csv"
#: the columns of the side file
DAMAGED_COLUMNS = ("set_aside_at", "line", "reason", "row")
_VERIFIED = frozenset({"", "true", "false", "1", "0", "1.0", "0.0"})
_INTEGERS = ("n", "repeat", "seed", "clues", "cores")




class RecordWriteError(RaceError):
    """A record could not be written (disk full, I/O error); nothing before it is lost."""


@dataclass
class Damaged:
    """A line of runs.csv that is not a valid record: its 1-based line number, bytes, why."""
    line: int
    raw: bytes
    reason: str


@dataclass
class Scan:
    """What :func:`scan` found: the valid rows, the damaged lines, and whether the
    file is exactly what :class:`RunsWriter` appends to (canonical header, nothing damaged)."""
    rows: list[dict[str, str]] = field(default_factory=list)
    damaged: list[Damaged] = field(default_factory=list)
    header_problem: str | None = None
    canonical: bool = True
    #: the 1-based line number of each row of ``rows``
    lines: list[int] = field(default_factory=list)


def cell_key(row: dict[str, Any]) -> CellKey:
    """The identity of the cell a row records (:func:`experiments.harness.identity.row_key`)."""
    return row_key(row)


def row_problem(row: dict[str, str]) -> str | None:
    """Why ``row`` (column -> text, as read back) is not a valid record, or None."""
    for column in ("entrant", "instance", "status", "n"):
        if not row[column].strip():
            return f"empty {column}"
    if row["status"] not in STATUSES:
        return f"unknown status {row['status'][:40]!r}"
    for column in _INTEGERS:
        text = row[column]
        if text and not (text.isascii() and text.isdigit()):
            return f"{column} {text[:40]!r} is not an integer"
    if not 1 <= int(row["n"]) <= MAX_N:
        return f"n {row['n'][:40]} is outside 1..{MAX_N}"
    for column in NUMERIC:
        text = row[column]
        if text and column not in _INTEGERS and not _finite_number(text):
            return f"{column} {text[:40]!r} is not a non-negative number"
    if row["verified"].strip().lower() not in _VERIFIED:
        return f"verified {row['verified'][:40]!r} is not true or false"
    return None


def _finite_number(text: str) -> bool:
    if not text.isascii() or "_" in text:
        return False
    try:
        value = float(text)
    except ValueError:
        return False
    return math.isfinite(value) and value >= 0


def _header_problem(names: list[str]) -> str | None:
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        return f"header missing column(s) {', '.join(missing)}"
    if len(set(names)) != len(names):
        return "header names a column twice"
    return None


def _fields(raw: bytes) -> tuple[list[str] | None, str | None]:
    """One line's fields, or why they cannot be read."""
    if b"\0" in raw:
        return None, "NUL byte in the row"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"invalid UTF-8 at byte {exc.start + 1}"
    try:
        parsed = list(csv.reader([text.rstrip("\r")], strict=True))
    except csv.Error as exc:
        return None, f"malformed CSV ({exc})"
    return (parsed[0] if parsed else []), None


def scan(path: Path) -> Scan:
    """Read and validate ``path`` (see the module docstring); an absent file is empty.

    Raises RecordWriteError only when the file cannot be read at all."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Scan()
    except OSError as exc:
        raise RecordWriteError(f"cannot read: {exc.strerror}", source=str(path)) from None
    if not data:
        return Scan()
    lines = data.split(b"\n")
    cut = lines.pop()                                   # b"" when the file ends with a newline
    result = Scan(canonical=not cut)
    names, problem = _fields(lines[0]) if lines else (None, "the header is cut short")
    if names is None or problem:
        problem = problem or "the header is not one CSV line"
    problem = problem or _header_problem(names or [])
    if problem or names is None:
        result.header_problem, result.canonical = problem, False
        result.damaged = [Damaged(k + 1, raw, f"line 1: {problem}") for k, raw in
                          enumerate(lines + ([cut] if cut else []))]
        return result
    result.canonical = result.canonical and tuple(names) == COLUMNS
    seen: dict[tuple, int] = {}                         # cell -> its place in rows
    for number, raw in enumerate(lines[1:], start=2):
        row, why = _row(raw, names)
        if row is not None:
            key = cell_key(row)
            if key not in seen:
                seen[key] = len(result.rows)
            else:                                       # a second record of the cell
                kept = seen[key]
                first, line = result.rows[kept], result.lines[kept]
                why = _conflict(first, line, row)
                if why is None:                         # the later, worse row counts
                    result.damaged.append(Damaged(line, lines[line - 1],
                                                  _conflict(row, number, first) or ""))
                    result.rows[kept], result.lines[kept] = row, number
                    continue
                row = None
        if row is None:
            result.damaged.append(Damaged(number, raw, why or "damaged"))
        else:
            result.rows.append(row)
            result.lines.append(number)
    if cut:
        result.damaged.append(Damaged(len(lines) + 1, cut, "cut short (no newline at the end)"))
    result.damaged.sort(key=lambda d: d.line)
    result.canonical = result.canonical and not result.damaged
    return result


def _worse(row: dict[str, str]) -> tuple[int, bool]:
    """How bad a record's outcome is: its status's place in
    :data:`~experiments.harness.schema.SEVERITY`, then unverified after verified."""
    return SEVERITY.index(row["status"]), row["verified"].strip().lower() not in ("true", "1", "1.0")


def _conflict(first: dict[str, str], line: int, row: dict[str, str]) -> str | None:
    """Why ``row``, a second record of the cell ``first`` (on line ``line``) records, is set
    aside: a duplicate (the same outcome), or a conflict in which it is not the worse; None
    when ``row`` is the worse and counts instead. The worse record of a cell counts, whichever
    came first: a wrong answer is never hidden behind a solved row of its cell."""
    if _worse(row) == _worse(first):
        return f"duplicate of the cell on line {line}"
    if _worse(row) < _worse(first):
        return (f"{row['status']}, conflicts with {first['status']} on line {line}: the "
                "cell's worse record counts")
    return None


def _row(raw: bytes, names: list[str]) -> tuple[dict[str, str] | None, str | None]:
    values, why = _fields(raw)
    if values is None:
        return None, why
    if len(values) != len(names):
        return None, f"{len(values)} fields, expected {len(names)} (a cut or merged row)"
    given = upgrade_row(dict(zip(names, values)))
    row = {c: given.get(c, "") for c in COLUMNS}
    why = row_problem(row)
    return (None, why) if why else (row, None)


def describe(damaged: list[Damaged], limit: int = 3) -> str:
    """The damaged lines in a few words: ``line 5 (cut short ...), line 9 (...)``."""
    parts = [f"line {d.line} ({d.reason})" for d in damaged[:limit]]
    more = f" and {len(damaged) - limit} more" if len(damaged) > limit else ""
    return printable(", ".join(parts) + more)


def append_damaged(side: Path, damaged: list[Damaged]) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if not side.exists() or side.stat().st_size == 0:
        writer.writerow(DAMAGED_COLUMNS)
    now = utc_now()
    for d in damaged:
        text = d.raw.decode("utf-8", "backslashreplace").replace("\0", "\\x00")
        writer.writerow([now, d.line, d.reason, text])
    try:
        with open(side, "a", encoding="utf-8", newline="") as f:
            f.write(buffer.getvalue())
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        raise RecordWriteError(f"cannot set damaged rows aside: {exc.strerror}",
                               source=str(side)) from None


def rewrite(path: Path, rows: list[dict[str, str]]) -> None:
    """Replace ``path`` by the canonical runs.csv of ``rows`` (atomically)."""
    _rewrite(path, rows)


def _rewrite(path: Path, rows: list[dict[str, str]]) -> None:
    """Replace ``path`` by the canonical file of ``rows`` (atomically: a kill leaves
    the old file or the new one)."""
    data = _header_line() + b"".join(encode_row(row) for row in rows)
    try:
        write_whole(path, data)
    except OSError as exc:
        raise RecordWriteError(f"cannot rewrite without its damaged rows: {exc.strerror}",
                               source=str(path)) from None


def _header_line() -> bytes:
    return (",".join(COLUMNS) + "\n").encode()


def encode_row(row: dict[str, Any]) -> bytes:
    """``row`` (as read back: column -> text) as the line runs.csv holds (what a row set aside
    keeps)."""
    return encode(map(row.get, COLUMNS))
