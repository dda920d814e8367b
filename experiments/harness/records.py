"""The campaign record: ``runs.csv``, one row per cell (the contract in briefs/records.md).

Rows are appended and flushed as each cell finishes, so a killed campaign loses
nothing that finished. A row cut short by a kill (no trailing newline) is
dropped when the file is opened again. :func:`done_keys` tells a resumed
campaign which cells already have a record.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Iterable

#: the outcome of one cell
STATUSES = ("solved", "unsat", "unknown", "timeout", "memout", "error", "wrong", "skipped")
#: statuses where the time columns hold the limit (censored, never a measured time)
LIMIT_STATUSES = ("timeout", "memout")

PHASES = ("check", "build", "encode", "write", "search", "decode", "verify")
COUNTERS = ("nodes", "updates", "checks", "conflicts", "decisions", "propagations", "vars", "clauses")

COLUMNS: tuple[str, ...] = (
    "campaign", "entrant", "solver", "params", "n", "kind", "seed", "instance", "instance_sha256",
    "clues", "repeat", "status", "verified", "wall_s", "cpu_s", "peak_rss_mb", "timeout_s",
    "iterations", *(f"t_{p}" for p in PHASES), *COUNTERS, "worker", "started_at", "message",
)


def cell_key(row: dict[str, Any]) -> tuple[str, int, str, int]:
    """The identity of a cell: (entrant, n, instance file name, repeat)."""
    return str(row["entrant"]), int(row["n"]), str(row["instance"]), int(row["repeat"])


def read_rows(path: Path) -> list[dict[str, str]]:
    """Every complete row of ``runs.csv`` (an empty list when there is none yet)."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):          # the last row was cut by a kill
        text = text[: text.rfind("\n") + 1]
    rows = list(csv.DictReader(io.StringIO(text)))
    return [r for r in rows if r.get("message") is not None]   # a short row has missing fields


def done_keys(path: Path) -> set[tuple[str, int, str, int]]:
    """The cells that already have a record in ``runs.csv``."""
    return {cell_key(r) for r in read_rows(path)}


class RunsWriter:
    """Appends rows to ``runs.csv``: writes the header on creation, flushes every row."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._repair()
        fresh = not path.exists() or path.stat().st_size == 0
        self._file = open(path, "a", encoding="utf-8", newline="")
        self._csv = csv.DictWriter(self._file, fieldnames=COLUMNS, extrasaction="raise",
                                   lineterminator="\n")
        if fresh:
            self._csv.writeheader()
            self._flush()

    def _repair(self) -> None:
        """Cut a partial last row (left by a kill in the middle of a write)."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with open(self.path, "r+b") as f:
                f.truncate(data.rfind(b"\n") + 1)

    def write(self, row: dict[str, Any]) -> None:
        """Append one record (missing columns are written empty)."""
        self._csv.writerow({c: _cell(row.get(c)) for c in COLUMNS})
        self._flush()

    def write_many(self, rows: Iterable[dict[str, Any]]) -> None:
        for row in rows:
            self._csv.writerow({c: _cell(row.get(c)) for c in COLUMNS})
        self._flush()

    def _flush(self) -> None:
        # flush to the OS: survives a kill of this process (not a power cut, by design:
        # an fsync per row would cost more than the harness overhead budget)
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> "RunsWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.9g}"
    return value
