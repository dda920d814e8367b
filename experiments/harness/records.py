"""The campaign record: ``runs.csv``, one row per cell (the contract in briefs/records.md).

Rows are appended and flushed as each cell finishes, so a killed campaign loses
nothing that finished. A row cut short by a kill (no trailing newline) is
dropped when the file is opened again. :func:`done_keys` tells a resumed
campaign which cells already have a record; :func:`make_row` shapes a cell's
outcome into a row (the columns are :data:`experiments.harness.schema.COLUMNS`).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.harness.schema import COLUMNS, LIMIT_STATUSES, PHASES, WORK_COUNTERS, Status

if TYPE_CHECKING:
    from experiments.harness.entrants import Entrant
    from experiments.harness.scheduling import Cell


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


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def make_row(campaign: str, kind: str, seed: int, timeout_s: float, entrant: "Entrant", cell: "Cell",
             outcome: dict[str, Any]) -> dict[str, Any]:
    """The runs.csv row of a finished (or skipped) cell of campaign ``campaign`` run on
    instances of family ``kind`` and ``seed`` under the limit ``timeout_s``. A cell that
    hit the limit gets the limit in its time columns (the record contract)."""
    try:
        status = Status(outcome.get("status", Status.ERROR))
    except ValueError:                                  # a status word outside the contract
        outcome = {**outcome, "message": f"unknown status {outcome.get('status')!r}"}
        status = Status.ERROR
    inst = cell.instance
    row: dict[str, Any] = {
        "campaign": campaign, "entrant": entrant.spec, "solver": entrant.name,
        "params": json.dumps(entrant.params, sort_keys=True), "n": cell.n, "kind": kind,
        "seed": seed, "instance": cell.instance_file,
        "instance_sha256": inst.sha256 if inst else None, "clues": inst.clues if inst else None,
        "repeat": cell.repeat, "status": status.value, "verified": bool(outcome.get("verified", False)),
        "timeout_s": timeout_s, "worker": outcome.get("worker"),
        "started_at": outcome.get("started_at"), "message": outcome.get("message") or None,
        "peak_rss_mb": _number(outcome.get("peak_rss_mb")),
    }
    if status in LIMIT_STATUSES:
        row["wall_s"] = row["cpu_s"] = timeout_s
    elif status not in (Status.SKIPPED, Status.ERROR):
        row["wall_s"] = _number(outcome.get("wall_s"))
        row["cpu_s"] = _number(outcome.get("cpu_s"))
        row["iterations"] = outcome.get("iterations")
        for phase, seconds in (outcome.get("times") or {}).items():
            if phase in PHASES:
                row[f"t_{phase}"] = _number(seconds)
        for name, value in (outcome.get("counters") or {}).items():
            if name in WORK_COUNTERS:
                row[name] = value
    return row
