"""Faults around a campaign's records: the parent killed mid-run, a second run
at the same time, damaged rows of runs.csv, a full disk, two Ctrl-C, workers that do not
start, temporary files of killed SAT cells. Each ends with every cell recorded exactly once."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from experiments.cli.main import main
from experiments.harness import records, runs_table
from experiments.harness.lock import LOCK_NAME
from experiments.harness.rows import Row
from experiments.harness.scheduling import START_ATTEMPTS
from tests.fake_solvers import fake_registry
from tests.test_harness import write_instances

ROOT = Path(__file__).resolve().parent.parent
BOOT = ("import sys; from tests.fake_solvers import fake_registry; "
        "from experiments.cli.main import main; "
        "sys.argv = ['race'] + sys.argv[1:]; main(obj={'registry': fake_registry()})")


@pytest.fixture
def out(tmp_path: Path) -> Path:
    for n in (2, 3):
        write_instances(tmp_path, n, 2)
    return tmp_path


def slow_args(out: Path, campaign: str, delay: float = 0.2) -> list[str]:
    """8 cells (n=2,3 x 2 instances x 2 repeats) of a solver slow enough to interrupt."""
    return ["run", "--no-report", "--out", str(out), "--kind", "unique", "--n", "2..3", "--solvers", f"slow:delay={delay}",
            "--instances", "2", "--repeats", "2", "--jobs", "1", "--timeout", "10",
            "--campaign", campaign]


def start(args: list[str], env: dict | None = None) -> subprocess.Popen:
    """``race ARGS`` (with the fake solvers) in a process of its own."""
    return subprocess.Popen([sys.executable, "-c", BOOT, *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def wait_rows(path: Path, count: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while len(runs_table.read_rows(path)) < count:
        assert proc.poll() is None and time.monotonic() < deadline, "the campaign ended early"
        time.sleep(0.02)


def race(args: list[str]):
    return CliRunner().invoke(main, args, obj={"registry": fake_registry()})


def assert_each_cell_once(runs: Path, cells: int) -> list[dict]:
    """Every row valid, one per cell, ``cells`` of them, all solved."""
    found = records.scan(runs)
    assert found.canonical and not found.damaged
    keys = [records.cell_key(row) for row in found.rows]
    assert len(keys) == cells and len(set(keys)) == cells
    assert {row["status"] for row in found.rows} == {"solved"}
    return found.rows


def test_parent_killed_mid_run_then_resumed_records_each_cell_once(out):
    args = slow_args(out, "killed")
    runs = out / "killed" / "runs.csv"
    proc = start(args)
    wait_rows(runs, 3, proc)
    proc.kill()                                          # SIGKILL: no clean-up at all
    proc.communicate(timeout=30)
    before = runs_table.read_rows(runs)
    assert 3 <= len(before) < 8
    r = race(args)
    assert r.exit_code == 0, r.output
    assert f"{len(before)} already recorded, {8 - len(before)} to run" in r.output
    assert f"taking over the lock of a run that ended without releasing it (pid {proc.pid} on host " \
           f"{socket.gethostname()}" in r.output
    after = assert_each_cell_once(runs, 8)
    assert after[: len(before)] == before
    assert not (out / "killed" / LOCK_NAME).exists()               # removed by the clean end


#: the columns a cell's result is (the rest says when, where and how fast it ran)
RESULT = ("campaign", "entrant", "solver", "params", "n", "family", "holes", "seed", "instance",
          "instance_sha256", "clues", "repeat", "status", "verified", "timeout_s", "message",
          "referee")


@pytest.mark.parametrize("order", ["fixed", "random"])
def test_a_kill_in_the_middle_of_a_cell_loses_nothing(tmp_path, order):
    """kill -9 of race run while a cell's solver is running (not at start-up, not after the
    last cell), then a resume: every cell recorded once, and each row's result the same as
    an uninterrupted run's."""
    marks = tmp_path / "marks"
    marks.mkdir()
    outs = {}
    for name in ("killed", "whole"):
        outs[name] = tmp_path / name
        for n in (2, 3):
            write_instances(outs[name], n, 2)
    def args(out):
        return [*slow_args(out, "c", 0.6)[:-2], "--campaign", "c", "--order", order,
                "--solvers", f"slow:delay=0.6,marks={marks}"]
    runs = outs["killed"] / "c" / "runs.csv"
    proc = start(args(outs["killed"]))
    wait_rows(runs, 2, proc)
    seen = len(list(marks.iterdir()))
    deadline = time.monotonic() + 60
    while len(list(marks.iterdir())) == seen:            # the next cell's solver has started
        assert proc.poll() is None and time.monotonic() < deadline, "the campaign ended early"
        time.sleep(0.01)
    proc.kill()
    proc.communicate(timeout=30)
    before = runs_table.read_rows(runs)
    assert 2 <= len(before) < 8
    resumed = race(args(outs["killed"]))
    assert resumed.exit_code == 0, resumed.output
    whole = race(args(outs["whole"]))
    assert whole.exit_code == 0, whole.output
    killed = assert_each_cell_once(runs, 8)
    uninterrupted = assert_each_cell_once(outs["whole"] / "c" / "runs.csv", 8)
    assert killed[: len(before)] == before

    def results(rows):
        return {records.cell_key(r): {c: r.get(c, "") for c in RESULT} for r in rows}
    assert results(killed) == results(uninterrupted)
    meta = json.loads((outs["killed"] / "c" / "meta.json").read_text())
    assert meta["entrants"] == [f"slow:delay=0.6,marks={marks}"] and meta["repeats"] == 2
    killed_run, resumed_run = meta["runs_conditions"]        # the killed run's readings kept
    assert killed_run["interrupted"] is True and "end" not in killed_run["machine_state"]
    assert killed_run["machine_state"]["start"] != resumed_run["machine_state"]["start"]
    assert "end" in resumed_run["machine_state"] and "interrupted" not in resumed_run


def test_a_resume_keeps_every_earlier_runs_readings(out):
    """A resume rewrote meta.json without ``runs_conditions``: the readings (machine load,
    calibration) every earlier run measured under were lost. Each run's are kept, oldest
    first."""
    args = ["run", "--out", str(out), "--kind", "unique", "--n", "2", "--solvers", "backtracking",
            "--instances", "2", "--jobs", "1", "--campaign", "twice"]
    for _ in range(2):
        assert race(args).exit_code == 0
    meta = json.loads((out / "twice" / "meta.json").read_text())
    first, second = meta["runs_conditions"]
    assert first["machine_state"]["start"]["at"] < second["machine_state"]["start"]["at"]
    assert meta["machine_state"] == second["machine_state"]


def test_second_concurrent_run_is_refused_naming_the_holder(out):
    args = slow_args(out, "busy")
    runs = out / "busy" / "runs.csv"
    proc = start(args)
    wait_rows(runs, 1, proc)
    r = race(args)
    assert r.exit_code == 2
    assert r.output.count("\n") == 1 and r.output.startswith("race: error: ")
    assert f"in use by another `race run` (pid {proc.pid} on host {socket.gethostname()}" in r.output
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    r = race(args)                                      # the holder is gone: resume
    assert r.exit_code == 0, r.output
    assert_each_cell_once(runs, 8)                      # not 16: the refused run ran nothing


def test_stale_lock_of_a_dead_process_is_taken_over(out):
    dead = subprocess.Popen(["true"])
    dead.wait()                                         # a pid that no longer exists
    campaign = out / "stale"
    campaign.mkdir()
    (campaign / LOCK_NAME).write_text(f"{dead.pid} {socket.gethostname()} 2026-01-01T00:00:00Z\n")
    r = race(["run", "--no-report", "--out", str(out), "--kind", "unique", "--n", "2", "--solvers", "backtracking", "--instances", "2",
              "--campaign", "stale"])
    assert r.exit_code == 0, r.output
    assert f"(pid {dead.pid} on host {socket.gethostname()} (since 2026-01-01T00:00:00Z); " \
           "its process is gone)" in r.output
    assert_each_cell_once(campaign / "runs.csv", 2)


# ------------------------------------------------------------------------ damaged rows

def _cut_midway_newline_kept(lines: list[bytes]) -> None:
    lines[2] = lines[2][: len(lines[2]) // 2]


def _cut_midway_no_newline(lines: list[bytes]) -> None:
    lines[-1] = lines[-1][: len(lines[-1]) // 2] + b"<no newline>"


def _cut_after_status_timeout(lines: list[bytes]) -> None:
    fields = lines[2].split(b",")
    status = records.COLUMNS.index("status")
    lines[2] = b",".join(fields[:status] + [b"timeout"])


def _nul_inside(lines: list[bytes]) -> None:
    lines[2] = lines[2][:20] + b"\0" + lines[2][20:]


def _non_integer_n(lines: list[bytes]) -> None:
    fields = lines[2].split(b",")
    fields[records.COLUMNS.index("n")] = b"2.5"
    lines[2] = b",".join(fields)


def _invalid_utf8(lines: list[bytes]) -> None:
    lines[2] = lines[2].replace(b",2,", b",\xff\xfe2,", 1)


def _unknown_status(lines: list[bytes]) -> None:
    lines[2] = lines[2].replace(b",solved,", b",solvd,", 1)


DAMAGE = {
    "cut mid-way, newline kept": (_cut_midway_newline_kept, "fields, expected"),
    "cut mid-way, no newline": (_cut_midway_no_newline, "cut short (no newline at the end)"),
    "cut after its status field": (_cut_after_status_timeout, "fields, expected"),
    "NUL inside": (_nul_inside, "NUL byte in the row"),
    "non-integer n": (_non_integer_n, "n '2.5' is not an integer"),
    "invalid UTF-8": (_invalid_utf8, "invalid UTF-8 at byte"),
    "unknown status": (_unknown_status, "unknown status 'solvd'"),
}
SMALL = ["--kind", "unique", "--n", "2", "--solvers", "backtracking", "--instances", "2", "--repeats", "2", "--jobs", "1"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A finished 4-cell campaign ``d`` (run once; each test damages a copy)."""
    root = tmp_path_factory.mktemp("finished")
    write_instances(root, 2, 2)
    assert race(["run", "--no-report", "--out", str(root), *SMALL, "--campaign", "d"]).exit_code == 0
    return root


@pytest.mark.parametrize("case", list(DAMAGE))
def test_damaged_row_is_left_out_set_aside_and_its_cell_rerun(finished, tmp_path, case):
    damage, reason = DAMAGE[case]
    out = tmp_path / "copy"
    shutil.copytree(finished, out)
    args = ["run", "--no-report", "--out", str(out), *SMALL, "--campaign", "d"]
    campaign, runs = out / "d", out / "d" / "runs.csv"
    lines = runs.read_bytes().split(b"\n")[:-1]        # header + 4 rows
    damage(lines)
    broken = lines[2] if case != "cut mid-way, no newline" else lines[-1]
    data = b"\n".join(lines) + (b"" if case == "cut mid-way, no newline" else b"\n")
    runs.write_bytes(data)
    # the analysis sees the 3 valid rows only, and says why in one line
    r = CliRunner().invoke(main, ["export", str(campaign), "--format", "markdown"])
    assert r.exit_code == 0, r.output
    (warning,) = [line for line in r.output.splitlines() if line.startswith("race: warning:")]
    assert "left out 1 damaged row(s)" in warning and reason in warning
    (table_row,) = [line for line in r.output.splitlines() if "| backtracking" in line]
    assert [c.strip() for c in table_row.strip("|").split("|")][:4] == \
        ["unique", "backtracking", "2", "2/2"]             # no phantom timeout, no phantom cell
    valid = records.scan(runs).rows
    assert len(valid) == 3 and {row["status"] for row in valid} == {"solved"}
    # the resume moves the row aside, re-runs that one cell and nothing else
    r = race(args)
    assert r.exit_code == 0, r.output
    assert "3 already recorded, 1 to run" in r.output
    assert "set aside 1 damaged row(s)" in r.output and reason in r.output
    assert_each_cell_once(runs, 4)
    side = (campaign / records.DAMAGED_NAME).read_text(encoding="utf-8")
    assert side.startswith(",".join(records.DAMAGED_COLUMNS) + "\n") and reason in side
    assert broken.decode("utf-8", "backslashreplace").replace("\0", "\\x00")[:15] in side


def test_header_missing_a_column_sets_the_file_aside_and_reruns_everything(out):
    args = ["run", "--no-report", "--out", str(out), *SMALL, "--campaign", "h"]
    campaign, runs = out / "h", out / "h" / "runs.csv"
    assert race(args).exit_code == 0
    original = runs.read_bytes()
    runs.write_bytes(original.replace(b",wall_s,", b",", 1))
    r = CliRunner().invoke(main, ["plot", str(campaign)])
    assert r.exit_code == 2 and r.output.count("\n") == 1
    assert "runs.csv, line 1: header missing column(s) wall_s" in r.output
    r = race(args)
    assert r.exit_code == 0, r.output
    assert "0 already recorded, 4 to run" in r.output and "set aside 5 damaged row(s)" in r.output
    assert_each_cell_once(runs, 4)
    side = (campaign / records.DAMAGED_NAME).read_text()
    assert side.count("header missing column(s) wall_s") == 5


# ------------------------------------------------------------------------ disk full

def test_disk_full_ends_the_run_with_one_line_and_loses_nothing(out, monkeypatch):
    args = ["run", "--no-report", "--out", str(out), *SMALL, "--campaign", "full"]
    runs = out / "full" / "runs.csv"
    calls = {"rows": 0}
    real_write = runs_table._write

    def write_until_full(fd: int, data) -> int:
        calls["rows"] += 1
        if calls["rows"] <= 3:                           # the header and two rows
            return real_write(fd, data)
        if calls["rows"] == 4:                           # half a row, then the disk is full
            return real_write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(runs_table, "_write", write_until_full)
    monkeypatch.setattr(runs_table, "FLUSH_ROWS", 1)        # a write per row, as each is held
    r = race(args)
    assert r.exit_code == 2
    assert r.output.count("race: error:") == 1
    (error,) = [line for line in r.output.splitlines() if line.startswith("race: error:")]
    assert "runs.csv: cannot write a record (disk full)" in error
    assert "re-run the same command to resume: race run --n 2 --solvers backtracking" in error
    assert "--campaign full" in error
    found = records.scan(runs)
    assert found.canonical and len(found.rows) == 2    # the half row was cut off again
    monkeypatch.setattr(runs_table, "_write", real_write)
    r = race(args)
    assert r.exit_code == 0, r.output
    assert "2 already recorded, 2 to run" in r.output
    assert_each_cell_once(runs, 4)


# ------------------------------------------------------------------------ interrupts

def test_two_ctrl_c_print_the_resume_hint_not_aborted(out):
    args = slow_args(out, "twice")
    runs = out / "twice" / "runs.csv"
    proc = start(args)
    wait_rows(runs, 2, proc)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "re-run the same command to resume" in stderr and "Aborted!" not in stderr
    assert "Traceback" not in stderr
    r = race(args)
    assert r.exit_code == 0, r.output
    assert_each_cell_once(runs, 8)


# ------------------------------------------------------------------------ start failures

def test_worker_start_failure_is_retried_on_resume(out):
    flag = out / "not-installed"
    flag.write_text("")
    args = ["run", "--no-report", "--out", str(out), "--kind", "unique", "--n", "2..3", "--solvers", f"flaky-warmup:flag={flag}",
            "--instances", "2", "--jobs", "1", "--campaign", "flaky"]
    runs = out / "flaky" / "runs.csv"
    r = race(args)
    assert r.exit_code == 1, r.output
    assert "engine not installed yet" in r.output and "its 4 cell(s) are not recorded" in r.output
    assert runs_table.read_rows(runs) == []
    assert START_ATTEMPTS == 2
    flag.unlink()                                       # the engine is there now
    r = race(args)
    assert r.exit_code == 0, r.output
    assert "0 already recorded, 4 to run" in r.output
    assert_each_cell_once(runs, 4)


# ------------------------------------------------------------------------ temporary files

FAKE_KISSAT = """#!/bin/sh
# kissat that answers a worker's warm-up solve (through cadical), then hangs on every cell
if [ "$1" = --version ]; then echo 4.0.4-fake; exit 0; fi
for arg; do cnf=$arg; done
warm="${{TMPDIR:-/tmp}}/warm-$PPID"
if [ -e "$warm" ]; then exec sleep 60; fi
touch "$warm"
exec {cadical} -q "$cnf"
"""


def test_kissat_cells_killed_at_the_limit_leave_no_temporary_files(out, tmp_path):
    (tmp_path / "bin").mkdir()
    kissat = tmp_path / "bin" / "kissat"
    kissat.write_text(FAKE_KISSAT.format(cadical=shutil.which("cadical")))
    kissat.chmod(0o755)
    temp = tmp_path / "tmp"
    temp.mkdir()
    args = ["run", "--no-report", "--out", str(out), "--kind", "unique", "--n", "3", "--solvers", "sat:backend=kissat",
            "--instances", "2", "--jobs", "2", "--timeout", "0.5", "--campaign", "kissat"]
    proc = start(args, env={"KISSAT": str(kissat), "TMPDIR": str(temp)})
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    rows = runs_table.read_rows(out / "kissat" / "runs.csv")
    assert [row["status"] for row in rows] == ["timeout", "timeout"]
    assert all(row["message"].startswith("killed after") for row in rows)
    assert sorted(p.name for p in temp.rglob("*")) == []


# ------------------------------------------------------------------------ properties

TEXT = st.text(st.characters(codec="utf-8"), max_size=30)


def _rows(messages: list[str]) -> list[dict]:
    return [{"campaign": "c", "entrant": "e", "n": 3, "instance": f"i{k}", "repeat": 0,
             "status": "solved", "verified": True, "wall_s": 0.5, "timeout_s": 1.0,
             "params": text, "message": text} for k, text in enumerate(messages)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=st.lists(TEXT, min_size=1, max_size=6))
def test_any_text_in_a_row_stays_one_valid_record(tmp_path, messages):
    """Newlines, NUL, quotes or any Unicode in a field never split or damage a record."""
    path = tmp_path / f"runs-{abs(hash(tuple(messages)))}.csv"
    path.unlink(missing_ok=True)
    with runs_table.RunsWriter(path) as writer:
        for row in _rows(messages):
            writer.write(Row(**row))
    found = records.scan(path)
    assert found.canonical and len(found.rows) == len(messages)
    assert [row["instance"] for row in found.rows] == [f"i{k}" for k in range(len(messages))]
    assert all(row["message"].isprintable() for row in found.rows)
    assert all(row["message"] == text for row, text in zip(found.rows, messages)
               if text.isprintable())


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=st.lists(TEXT, min_size=1, max_size=5), cut=st.floats(0, 1))
def test_a_file_cut_anywhere_reads_as_a_prefix_of_its_rows(tmp_path, messages, cut):
    """A kill at any byte leaves the rows before the cut valid, at most one damaged, never more."""
    path = tmp_path / f"cut-{abs(hash((tuple(messages), cut)))}.csv"
    path.unlink(missing_ok=True)
    with runs_table.RunsWriter(path) as writer:
        for row in _rows(messages):
            writer.write(Row(**row))
    data = path.read_bytes()
    path.write_bytes(data[: int(cut * len(data))])
    found = records.scan(path)
    whole = data[: int(cut * len(data))].count(b"\n") - 1      # complete rows kept
    assert len(found.rows) == max(whole, 0)
    assert [row["instance"] for row in found.rows] == [f"i{k}" for k in range(len(found.rows))]
    assert len(found.damaged) <= 1
