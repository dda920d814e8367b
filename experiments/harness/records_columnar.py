"""``runs.csv`` read once into columns: the fast path of every reader of a campaign.

:func:`read_valid` parses the file with pandas' C reader and checks the whole of
:func:`experiments.harness.records.row_problem`'s contract column by column (the canonical
header, one line per row with one field per column, no NUL or carriage return, UTF-8, a known
status, integers and non-negative numbers where the schema says, no duplicate cell). A file
passing every check gives exactly the rows :func:`experiments.harness.records.scan` would;
anything else (a damaged row, an older header) returns None and the caller falls back to
:func:`~experiments.harness.records.scan`, which names each damaged line. The checks are
conservative: any ``nan`` or ``inf`` in the file (which the C reader would take for a float)
sends it to the row-by-row reader, which decides.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.harness.schema import COLUMNS, NUMERIC, STATUSES
from formats.grid import MAX_N

_INTEGERS = ("n", "repeat", "seed", "clues", "cores")
_VERIFIED = frozenset({"", "true", "false", "1", "0", "1.0", "0.0"})


def _special(block: bytes) -> bool:
    """Whether ``block`` holds ``nan`` or ``inf`` in any case: text the C reader would take for
    a float where the row-by-row reader rejects the row (two substring searches, no regex)."""
    low = block.lower()
    return b"nan" in low or b"inf" in low


#: columns read as floats by the C reader (the integer columns are checked as text)
_FLOATS = tuple(c for c in NUMERIC if c not in _INTEGERS)
#: bytes examined at once by the line check
_BLOCK = 1 << 24


def _lines_have_one_field_per_column(path: Path) -> tuple[bool, int]:
    """Whether every line of ``path`` has ``len(COLUMNS) - 1`` delimiting commas (quotes
    balanced on each line), no NUL and no carriage return, and ends with a newline; and the
    number of lines. Reads the file in blocks (bounded memory)."""
    want = len(COLUMNS) - 1
    parity, before, at_last_end, lines, last = 0, 0, 0, 0, b""
    with open(path, "rb") as f:
        while block := f.read(_BLOCK):
            last = block[-1:]
            a = np.frombuffer(block, dtype=np.uint8)
            if (a == 0).any() or (a == 13).any() or _special(block):
                return False, 0
            quotes = np.flatnonzero(a == 34)
            commas = np.flatnonzero(a == 44)
            ends = np.flatnonzero(a == 10)
            delims = commas[(np.searchsorted(quotes, commas) + parity) % 2 == 0]
            if len(ends):
                if ((np.searchsorted(quotes, ends) + parity) % 2).any():
                    return False, 0                   # a quoted field runs over a line end
                at_ends = np.searchsorted(delims, ends) + before
                if (np.diff(at_ends, prepend=at_last_end) != want).any():
                    return False, 0
                at_last_end = int(at_ends[-1])
            parity, before = (parity + len(quotes)) % 2, before + len(delims)
            lines += len(ends)
    return last == b"\n", lines


#: the last file read: (path, size, mtime_ns) -> its table (a resumed run reads it twice)
_LAST: dict[tuple[str, int, int], pd.DataFrame | None] = {}


def read_valid(path: Path, remember: bool = False) -> pd.DataFrame | None:
    """:func:`_read_valid`'s table of ``path``. With ``remember`` it is kept for the next call
    while the file is unchanged (same size and modification time: a resumed run reads the file
    when it starts and again for its summary); a call without ``remember`` takes a kept table
    and lets it go. The caller must not modify the table it gets."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    key = (str(Path(path).resolve()), info.st_size, info.st_mtime_ns)
    if key in _LAST:
        return _LAST[key] if remember else _LAST.pop(key)
    _LAST.clear()
    frame = _read_valid(Path(path))
    if remember:
        _LAST[key] = frame
    return frame


def forget() -> None:
    """Let a kept table go (its file is about to change)."""
    _LAST.clear()


def read_text(path: Path) -> pd.DataFrame | None:
    """:func:`read_valid`'s rows of ``path`` with every column as written (text, blank = ``""``):
    what a reader that writes the rows again (``race merge``) keeps; None when the file needs the
    row-by-row reader."""
    return _read_valid(Path(path), text=True)


def _read_valid(path: Path, text: bool = False) -> pd.DataFrame | None:
    """The rows of ``path`` as a table of every column of :data:`~experiments.harness.schema.COLUMNS`
    (the float columns as floats, blank = NaN, or with ``text`` as written; the others text,
    blank = ``""``), when every row is valid (module docstring); None when the file needs the
    row-by-row reader."""
    try:
        with open(path, "rb") as f:
            header = f.readline()
    except OSError:
        return None
    if header.rstrip(b"\n").decode("utf-8", "replace") != ",".join(COLUMNS):
        return None
    ok, lines = _lines_have_one_field_per_column(path)
    if not ok or lines < 2:
        return None
    try:
        frame = pd.read_csv(path, dtype={c: (float if c in _FLOATS and not text else str) for c in COLUMNS},
                            keep_default_na=False, na_values={c: [""] for c in _FLOATS} if not text else None,
                            encoding="utf-8", encoding_errors="strict", engine="c")
        typed = frame if not text else frame.assign(**{
            c: pd.to_numeric(frame[c].where(frame[c] != "", np.nan)).astype(float) for c in _FLOATS})
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError):
        return None
    if list(frame.columns) != list(COLUMNS) or len(frame) != lines - 1 or not _valid(typed):
        return None
    return frame


def _valid(frame: pd.DataFrame) -> bool:
    """Every row of ``frame`` passes :func:`experiments.harness.records.row_problem` and no
    two rows record the same cell."""
    for column in ("entrant", "instance", "status", "n"):
        if (frame[column].str.strip() == "").any():
            return False
    if not frame["status"].isin(STATUSES).all():
        return False
    for column in _INTEGERS:
        text = frame[column]
        if not (text.str.fullmatch(r"\d*")).all():
            return False
    n = pd.to_numeric(frame["n"])
    if ((n < 1) | (n > MAX_N)).any():
        return False
    for column in _FLOATS:
        values = frame[column].to_numpy(dtype=float)
        if (np.isinf(values) | (values < 0)).any():
            return False
    verified = pd.Series(frame["verified"].unique())
    if not verified.str.strip().str.lower().isin(_VERIFIED).all():
        return False
    keys = pd.DataFrame({"family": frame["family"].str.strip(), "entrant": frame["entrant"], "n": n,
                         "instance": frame["instance"],
                         "repeat": pd.to_numeric(frame["repeat"].replace("", "0"))})
    return not keys.duplicated().any()


def cell_keys(frame: pd.DataFrame) -> set[tuple[str, str, int, str, int]]:
    """The cells (:func:`experiments.harness.identity.cell_key`) that the rows of ``frame``
    (:func:`read_valid`'s) record."""
    repeat = pd.to_numeric(frame["repeat"].replace("", "0")).astype(int)
    return set(zip(frame["family"].astype(str).str.strip(), frame["entrant"].astype(str),
                   pd.to_numeric(frame["n"]).astype(int).tolist(), frame["instance"].astype(str),
                   repeat.tolist()))
