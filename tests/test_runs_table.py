"""RunsTable owns the reading of runs.csv: a resume reads the file once (its preparation, the
scheduler's escalation and the summary all take that one table), and a table whose file
changed since it was read says so and reads it again."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from experiments.cli.main import main
from experiments.harness import records, records_columnar
from experiments.harness.runs_table import RunsTable
from tests.fake_solvers import fake_registry


def race(out: Path, *more: str) -> Result:
    return CliRunner().invoke(main, ["run", "--no-report", "--out", str(out), "--kind", "unique",
                                     "--n", "2", "--timeout", "20", "--solvers", "slow:delay=0.01",
                                     "--instances", "3", "--jobs", "1", "--campaign", "c", *more],
                              obj={"registry": fake_registry()})


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count every read of a runs.csv: the table's, and the two readers under it (in columns,
    row by row), whoever calls them."""
    counts = {"table": 0, "columns": 0, "rows": 0}

    def counted(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return real(*args, **kwargs)
        return call
    monkeypatch.setattr(RunsTable, "read", counted("table", RunsTable.read))
    monkeypatch.setattr(records_columnar, "parse", counted("columns", records_columnar.parse))
    monkeypatch.setattr(records, "scan", counted("rows", records.scan))
    return counts


def test_a_resume_reads_runs_csv_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = race(tmp_path)
    assert first.exit_code == 0, first.output
    runs = tmp_path / "c" / "runs.csv"
    before = runs.read_bytes()
    assert len(RunsTable(runs).frame) == 3
    counts = _count_reads(monkeypatch)
    again = race(tmp_path)                          # nothing to run: prepare, then the summary
    assert again.exit_code == 0, again.output
    assert "0 to run" in again.output and "3/3" in again.output
    assert counts["table"] == 1, counts
    assert counts["columns"] + counts["rows"] == 1, counts
    assert runs.read_bytes() == before


def test_a_damaged_row_is_set_aside_by_the_one_read_before_the_run(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    assert race(tmp_path).exit_code == 0
    runs = tmp_path / "c" / "runs.csv"
    lines = runs.read_text().splitlines(keepends=True)
    runs.write_text("".join(lines[:-1]) + lines[-1][:30])        # the last row cut short
    counts = _count_reads(monkeypatch)
    again = race(tmp_path)
    assert again.exit_code == 0, again.output
    assert "set aside 1 damaged row" in again.output
    assert counts["table"] == 1, counts            # prepare's; the summary takes the run's rows
    assert len(RunsTable(runs).frame) == 3
    assert len(records.scan(runs.with_name(records.DAMAGED_NAME)).rows) == 0    # its own format


def _summarised(monkeypatch: pytest.MonkeyPatch) -> list[RunsTable]:
    """The tables the end-of-run summary is handed."""
    from experiments.analysis import censored_stats
    handed: list[RunsTable] = []
    real = censored_stats.load

    def load(path: Any, table: RunsTable | None = None) -> Any:
        assert table is not None
        handed.append(table)
        return real(path, table=table)
    monkeypatch.setattr(censored_stats, "load", load)
    return handed


@pytest.mark.parametrize("earlier", [0, 2])
def test_the_rows_a_run_appends_are_taken_without_reading_runs_csv_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, earlier: int) -> None:
    """A new campaign (nothing earlier) or a resume (rows earlier): runs.csv is read once, by
    the preparation; the summary gets the rows the run appended added to those, the same rows
    in the same types as a read of the file gives, and no row of the run is taken for a
    stray."""
    import pandas as pd
    runs = tmp_path / "c" / "runs.csv"
    if earlier:
        assert race(tmp_path).exit_code == 0
        lines = runs.read_text().splitlines(keepends=True)
        runs.write_text("".join(lines[:1 + earlier]))       # the last cell to run again
    from experiments.harness import stray_rows
    counts = _count_reads(monkeypatch)
    handed = _summarised(monkeypatch)
    splits: list[int] = []
    real_split = stray_rows.split

    def split(frame: Any, *rest: Any) -> Any:
        splits.append(len(frame))
        return real_split(frame, *rest)
    monkeypatch.setattr(stray_rows, "split", split)
    done = race(tmp_path)
    assert done.exit_code == 0, done.output
    assert f"{3 - earlier} to run" in done.output and "3/3" in done.output
    assert counts == {"table": 1, "columns": int(bool(earlier)), "rows": int(not earlier)}, counts
    (table,) = handed
    assert not table.stale()
    pd.testing.assert_frame_equal(table.frame, RunsTable(runs).frame)
    assert splits == [earlier], splits              # the preparation's split, extended


def test_rows_written_by_another_process_meanwhile_are_read_not_taken(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table whose file changed between its read and the writer's start (not the state the
    writer appended to) takes nothing: it reads the file again, whole."""
    from experiments.harness.runs_table import RunsWriter
    assert race(tmp_path).exit_code == 0
    runs = tmp_path / "c" / "runs.csv"
    table = RunsTable(runs)
    rows = table.rows()
    with open(runs, "ab") as f:                      # another writer, after the table's read
        f.write(records.encode_row(dict(rows[0], repeat="7")))
    writer = RunsWriter(runs, checked=True)
    writer.close()
    with open(runs, "ab") as f:
        f.write(records.encode_row(dict(rows[0], repeat="8")))
    table.appended(writer.found, writer.start)
    assert table.stale() and len(table.frame) == 3
    assert len(table.fresh().frame) == 5


def test_a_table_knows_when_its_file_changed_and_reads_it_again(tmp_path: Path) -> None:
    assert race(tmp_path).exit_code == 0
    runs = tmp_path / "c" / "runs.csv"
    table = RunsTable(runs)
    rows = table.rows()
    assert len(rows) == 3 and not table.stale()
    grown = dict(rows[0], repeat="7")                # another cell: a repeat more
    with open(runs, "ab") as f:
        f.write(records.encode_row(grown))
    assert table.stale()
    assert len(table.frame) == 3                     # as read, until asked to read again
    assert len(table.fresh().frame) == 4 and not table.stale()
    assert (grown["family"], grown["entrant"], int(grown["n"]), grown["instance"], 7) in table.statuses()
    info = runs.stat()
    copy = runs.with_name("copy.csv")
    copy.write_bytes(runs.read_bytes())
    os.utime(copy, ns=(info.st_atime_ns, info.st_mtime_ns))
    os.replace(copy, runs)                           # another file, same size and mtime
    assert table.stale()
