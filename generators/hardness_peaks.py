"""The committed table of hardness peaks: for each box size n, the fraction of empty cells
(balanced holes) where the best solver of a ``race landscape`` campaign found the puzzles
hardest. The ``hard`` family of the race reads it, so a campaign on ``hard`` instances is
reproducible from the repository alone.

The table is ``generators/hardness_peaks.csv``, one row per (n, pattern):
``n, pattern, holes`` (the peak), ``low, high`` (its bootstrap interval over instances),
``entrant`` and ``measure`` (whose censored median work or time located it), ``instances``, ``timeout_s`` and
``campaign`` (where it was measured). ``race landscape`` writes its peaks to the table its
``--peaks`` names (``hardness_peaks.csv`` in the current directory unless told; this one with
``--peaks generators/hardness_peaks.csv`` in a checkout), never over a row measured on more
instances or with a longer time limit (:func:`write_peaks`).

**Rule for an n the table lacks**: the peak of the nearest measured n (the smaller one
on a tie). Above the table's largest n this extrapolates the last measured peak, which is
where the easy-hard-easy curve of balanced holes stays (it drifts slowly with n).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from formats.errors import RaceError

#: the committed table
PEAKS_PATH = Path(__file__).with_name("hardness_peaks.csv")
FIELDS = ("n", "pattern", "holes", "low", "high", "entrant", "measure", "instances", "timeout_s",
          "campaign")


#: a field of a peak row: text as read from the table, a number as measured
Value = str | int | float


def read_peaks(path: Path = PEAKS_PATH, pattern: str = "balanced") -> dict[int, dict[str, str]]:
    """The rows of the table for ``pattern``, by n (empty when the file does not exist).
    Raises RaceError for a malformed table."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise RaceError(f"cannot read the hardness peaks: {exc}", source=str(path)) from None
    rows: dict[int, dict[str, str]] = {}
    for line, row in enumerate(csv.DictReader(io.StringIO(text)), start=2):
        try:
            n, holes = int(row["n"]), float(row["holes"])
        except (KeyError, TypeError, ValueError):
            raise RaceError(f"expected the columns {', '.join(FIELDS)} with an integer n and a "
                            "fraction holes", source=str(path), line=line) from None
        if not 0 <= holes <= 1:
            raise RaceError(f"holes must be a fraction in [0, 1], got {holes!r}",
                            source=str(path), line=line)
        if row.get("pattern") == pattern:
            rows[n] = row
    return rows


def peak_holes(n: int, path: Path = PEAKS_PATH, pattern: str = "balanced") -> float:
    """The hole fraction of the hardness peak at box size ``n``: the table's, or the nearest
    measured n's (the smaller one on a tie; see the module docstring). Raises RaceError when
    the table has no row for ``pattern``."""
    rows = read_peaks(path, pattern)
    if not rows:
        raise RaceError(f"no hardness peak for pattern {pattern!r}: run `race landscape` "
                        "to measure one", source=str(path))
    nearest = min(rows, key=lambda m: (abs(m - n), m))
    return float(rows[nearest]["holes"])


def weaker(new: Mapping[str, Value], old: Mapping[str, Value]) -> bool:
    """Is peak row ``new`` measured on less than ``old`` (fewer instances, or a shorter time
    limit)? A field either row lacks does not count."""
    for field in ("instances", "timeout_s"):
        try:
            if float(new[field]) < float(old[field]):
                return True
        except (KeyError, TypeError, ValueError):
            continue
    return False


def write_peaks(peaks: Sequence[Mapping[str, Value]], path: Path) -> list[tuple[str, int]]:
    """Add or replace the rows of ``peaks`` (keyed by n and pattern) in the table at
    ``path``; rows of other (n, pattern) are kept, and so is a row the new one is
    :func:`weaker` than (a quick landscape must not overwrite a better-measured peak; write it
    to another table instead). Rows are sorted by pattern, then n. Returns the (pattern, n)
    whose recorded row was kept."""
    path = Path(path)
    rows: dict[tuple[str, int], Mapping[str, Value]] = {}
    if path.exists():
        for pattern in {r.get("pattern", "") for r in _raw_rows(path)}:
            rows.update({(pattern, n): r for n, r in read_peaks(path, pattern).items()})
    kept = []
    for peak in peaks:
        key = (str(peak["pattern"]), int(peak["n"]))
        if key in rows and weaker(peak, rows[key]):
            kept.append(key)
            continue
        rows[key] = peak
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=FIELDS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for key in sorted(rows):
        writer.writerow(rows[key])
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(buf.getvalue(), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise RaceError(f"cannot write the hardness peaks: {exc.strerror}", source=str(path)) from None
    return kept


def _raw_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))
