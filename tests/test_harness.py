"""The race harness (`race run`): campaigns end to end, limits, resume, dask."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments.cli.main import main
from experiments.harness import records, runs_table, schema
from experiments.harness.cells import Cell
from experiments.harness.config import default_name, parse_n
from experiments.harness.entrants import jsonable, parse_entrants, split_specs
from experiments.harness.escalation import Escalation
from experiments.harness.instances import (
    ensure_instances,
    instance_dir,
    instance_name,
    read_instance,
)
from experiments.harness.messages import Measurement
from experiments.harness.referee import Referee
from experiments.harness.rows import Row, make_row
from experiments.harness.worker import MIN_TIME, measure
from formats import grid_text
from formats.errors import RaceError
from formats.grid import MAX_N, Grid
from solvers import registry
from solvers.backtracking import Backtracking
from solvers.status import Status
from tests.conftest import full_grid, puzzle_from
from tests.fake_solvers import fake_registry

ROOT = Path(__file__).resolve().parent.parent
META_KEYS = {"campaign", "command", "commands", "created_at", "n_values", "entrants", "family_labels", "seed", "instances",
             "repeats", "timeout_s", "memory_mb", "jobs", "executor", "git_commit", "python",
             "packages", "kissat_version", "machine", "families", "order", "pinning",
             "machine_state", "calibration", "runs_conditions", "instance_names", "entrant_code"}


def write_instances(out: Path, n: int, count: int, kind: str = "unique", seed: int = 0) -> Path:
    """An instance set as the generator caches it (files + manifest.csv): blanked valid grids."""
    directory = instance_dir(out, kind, n, seed)
    directory.mkdir(parents=True, exist_ok=True)
    rows = []
    for index in range(count):
        rng = np.random.default_rng([seed, n, index])
        grid = puzzle_from(full_grid(n, rng), 0.5, rng)
        name = instance_name(kind, n, seed, index)
        data = grid_text.format_native(grid, {"kind": kind, "n": n}).encode()
        (directory / name).write_bytes(data)
        rows.append({"file": name, "kind": kind, "n": n, "seed": seed, "index": index,
                     "clues": grid.clues(), "sha256": hashlib.sha256(data).hexdigest()})
    with open(directory / "manifest.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return directory


@pytest.fixture
def out(tmp_path: Path) -> Path:
    for n in (2, 3):
        write_instances(tmp_path, n, 2)
    return tmp_path


@pytest.fixture
def fakes():
    """The built-in solvers plus the misbehaving ones of tests/fake_solvers.py."""
    return fake_registry()


def race(out: Path, *args: str):
    return race_with(registry.BUILTIN, out, *args)


def race_with(solvers: registry.Registry, out: Path, *args: str):
    """``race run --out OUT ARGS`` with the solvers of ``solvers`` (on the ``unique`` family
    of the fixtures unless ARGS name a --kind)."""
    kind = [] if "--kind" in args else ["--kind", "unique"]
    return CliRunner().invoke(main, ["run", "--no-report", "--out", str(out), *kind, *args],
                              obj={"registry": solvers})


def rows_of(out: Path, campaign: str | None = None) -> list[dict[str, str]]:
    directories = [d for d in out.iterdir() if d.name != "instances"]
    directory = out / campaign if campaign else directories[0]
    return runs_table.read_rows(directory / "runs.csv")


#: the entrants of the end-to-end campaign, each with the phases it times and the counters
#: that are a function of the instance alone (equal in the worker and in this process)
END_TO_END = {"backtracking": ({"check", "build", "search", "verify"}, ("nodes", "checks")),
              "dlx": ({"check", "build", "search", "decode", "verify"}, ("nodes", "updates")),
              "sat": ({"check", "encode", "search", "decode", "verify"}, ("vars", "clauses"))}


# -- end to end ---------------------------------------------------------------------
def test_small_campaign_end_to_end(out):
    # every built-in entrant runs: a broken dlx or sat fails here, it is not swapped for another
    entrants = list(END_TO_END)
    r = race(out, "--n", "2..3", "--solvers", ",".join(entrants), "--instances", "2",
             "--timeout", "30", "--campaign", "small")
    assert r.exit_code == 0, r.output
    directory = out / "small"
    header = (directory / "runs.csv").read_text().splitlines()[0].split(",")
    assert tuple(header) == schema.COLUMNS
    rows = runs_table.read_rows(directory / "runs.csv")
    assert len(rows) == 3 * 2 * 2
    assert {(r["entrant"], int(r["n"])) for r in rows} == {(e, n) for e in entrants for n in (2, 3)}
    manifest = {}
    for n in (2, 3):
        with open(instance_dir(out, "unique", n, 0) / "manifest.csv") as f:
            manifest.update({m["file"]: m for m in csv.DictReader(f)})
    for row in rows:
        assert row["status"] == "solved" and row["verified"] == "True", row
        assert float(row["wall_s"]) > 0 and float(row["cpu_s"]) > 0 and float(row["peak_rss_mb"]) > 0
        # a solve under MIN_TIME is repeated until the repeats add up to MIN_TIME
        assert float(row["wall_s"]) * int(row["iterations"]) >= 0.999 * MIN_TIME
        assert float(row["timeout_s"]) == 30
        assert row["instance_sha256"] == manifest[row["instance"]]["sha256"]
        assert int(row["clues"]) == int(manifest[row["instance"]]["clues"])
        assert row["worker"].count(":") == 1 and row["started_at"].endswith("Z")
        solver = registry.create(row["entrant"])
        assert row["campaign"] == "small" and row["solver"] == row["entrant"]
        assert json.loads(row["params"]) == jsonable(solver.params)
        phases, counters = END_TO_END[row["entrant"]]
        assert {p for p in schema.PHASES if row[f"t_{p}"] != ""} == phases, row
        assert all(float(row[f"t_{p}"]) >= 0 for p in phases)
        grid = grid_text.parse((instance_dir(out, "unique", int(row["n"]), 0) / row["instance"])
                               .read_text()).grids[0]
        here = solver.solve(grid)
        assert {c: int(row[c]) for c in counters} == {c: here.counters[c] for c in counters}, row
    meta = json.loads((directory / "meta.json").read_text())
    assert set(meta) == META_KEYS
    assert meta["instance_names"] == "family"           # a new campaign names files after the family
    assert meta["n_values"] == [2, 3] and meta["entrants"] == entrants
    assert meta["machine"]["cores"] >= 1 and meta["python"].count(".") == 2
    assert "backtracking" in r.output and "2/2" in r.output and str(directory) in r.output
    # the stopwatch: order, pinning (each worker on one CPU when they fit), readings, calibration
    assert meta["order"] == {"mode": "random", "seed": 0}
    workers = {row["worker"] for row in rows}
    assert set(meta["pinning"]["workers"]) >= workers
    if meta["pinning"]["enabled"]:
        assert all(len(cpus) == 1 and cpus[0] in meta["pinning"]["cpus"]
                   for cpus in meta["pinning"]["workers"].values())
    for moment in ("start", "end"):
        assert meta["machine_state"][moment]["usable_cpus"]
        assert meta["calibration"][moment]["dlx"]["updates"] == 198264
        assert meta["calibration"][moment]["score_s"] > 0
    assert meta["runs_conditions"] == [{**{k: meta[k] for k in ("machine_state", "calibration",
                                                               "pinning", "order")},
                                        "cells": len(rows)}]


def test_hanging_solver_times_out_and_escalation_skips(out, fakes):
    r = race_with(fakes, out, "--n", "2..3", "--solvers", "hang,backtracking", "--instances", "2",
             "--timeout", "1", "--campaign", "hang")
    assert r.exit_code == 0, r.output
    rows = rows_of(out, "hang")
    by = {(r["entrant"], int(r["n"])): [] for r in rows}
    for row in rows:
        by[(row["entrant"], int(row["n"]))].append(row)
    assert [r["status"] for r in by[("hang", 2)]] == ["timeout", "timeout"]
    assert all(float(r["wall_s"]) == 1.0 == float(r["timeout_s"]) for r in by[("hang", 2)])
    assert [r["status"] for r in by[("hang", 3)]] == ["skipped", "skipped"]
    assert all(r["wall_s"] == "" for r in by[("hang", 3)])
    assert all(r["status"] == "solved" for n in (2, 3) for r in by[("backtracking", n)])


def test_timeout_kills_the_whole_process_group(out, fakes, tmp_path):
    pidfile = tmp_path / "child.pid"
    r = race_with(fakes, out, "--n", "2", "--solvers", f"hang-child:pidfile={pidfile}", "--instances", "1",
             "--timeout", "1", "--campaign", "child")
    assert r.exit_code == 0, r.output
    assert [row["status"] for row in rows_of(out, "child")] == ["timeout"]
    pid = int(pidfile.read_text())
    for _ in range(50):                      # the orphan is reaped by init shortly after the kill
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except FileNotFoundError:
            break
        if state == "Z":
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the solver's child process {pid} survived the timeout kill")


def test_wrong_grid_is_wrong_and_crash_is_error(out, fakes):
    r = race_with(fakes, out, "--n", "2", "--solvers", "wrong,crash,backtracking", "--instances", "2",
             "--timeout", "10", "--campaign", "bad")
    assert r.exit_code == 0, r.output
    rows = rows_of(out, "bad")
    status = {(r["entrant"], r["instance"]): r for r in rows}
    assert len(status) == 6
    for row in rows:
        if row["entrant"] == "wrong":
            assert row["status"] == "wrong" and row["verified"] == "False"
        elif row["entrant"] == "crash":
            assert row["status"] == "error" and "SIGSEGV" in row["message"]
        else:
            assert row["status"] == "solved"
    assert "WRONG ANSWERS: 2" in r.output


def test_entrant_that_cannot_start_is_not_recorded_and_not_retried_forever(out, fakes):
    r = race_with(fakes, out, "--n", "2..3", "--solvers", "bad-warmup,backtracking", "--instances", "2",
             "--jobs", "1", "--campaign", "broken")
    assert r.exit_code == 1, r.output
    rows = rows_of(out, "broken")
    assert not [row for row in rows if row["entrant"] == "bad-warmup"]
    assert [row["status"] for row in rows] == ["solved"] * 4          # backtracking's 4 cells
    (warning,) = [line for line in r.output.splitlines() if "did not start" in line]
    assert "no engine in this worker" in warning and "its 4 cell(s) are not recorded" in warning
    assert "--campaign broken" in warning


def test_memory_hog_is_memout(out, fakes):
    r = race_with(fakes, out, "--n", "2", "--solvers", "hog:mb=500", "--instances", "1", "--memory", "300",
             "--timeout", "8", "--campaign", "hog")
    assert r.exit_code == 0, r.output
    (row,) = rows_of(out, "hog")
    assert row["status"] == "memout" and float(row["peak_rss_mb"]) > 300, row


def test_interrupted_campaign_resumes_without_rerunning(out, fakes):
    args = ["run", "--no-report", "--out", str(out), "--kind", "unique", "--n", "2..3", "--solvers",
            "slow:delay=0.25", "--instances", "2", "--repeats", "2", "--jobs", "1", "--timeout", "10",
            "--campaign", "resume"]
    boot = ("import sys; from tests.fake_solvers import fake_registry; "
            "from experiments.cli.main import main; "
            "sys.argv = ['race'] + sys.argv[1:]; main(obj={'registry': fake_registry()})")
    proc = subprocess.Popen([sys.executable, "-c", boot, *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    runs = out / "resume" / "runs.csv"
    deadline = time.monotonic() + 60
    while len(runs_table.read_rows(runs)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "resume" in stderr
    before = runs_table.read_rows(runs)
    assert 3 <= len(before) < 8
    r = CliRunner().invoke(main, args, obj={"registry": fakes})
    assert r.exit_code == 0, r.output
    assert f"{len(before)} already recorded, {8 - len(before)} to run" in r.output
    after = runs_table.read_rows(runs)
    assert len(after) == 8 and after[: len(before)] == before
    assert len({records.cell_key(row) for row in after}) == 8
    assert all(row["status"] == "solved" for row in after)


def test_cut_last_row_is_dropped_and_repaired(tmp_path):
    path = tmp_path / "runs.csv"
    with runs_table.RunsWriter(path) as w:
        w.write(Row(entrant="a", n=2, instance="x", repeat=0, status="solved"))
    with open(path, "a") as f:
        f.write("cam,b,b,{},2,unique,0,y,")           # a row cut by a kill
    assert [r["entrant"] for r in runs_table.read_rows(path)] == ["a"]
    with runs_table.RunsWriter(path) as w:
        w.write(Row(entrant="c", n=3, instance="z", repeat=1, status="timeout"))
    rows = runs_table.read_rows(path)
    assert [(r["entrant"], r["status"]) for r in rows] == [("a", "solved"), ("c", "timeout")]


def test_dask_local_cluster_gives_the_same_records(out, fakes):
    import distributed

    common = ["--n", "2..3", "--solvers", "backtracking,wrong,hang", "--instances", "2",
              "--timeout", "1"]
    r = race_with(fakes, out, *common, "--campaign", "local")
    assert r.exit_code == 0, r.output
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        r = race_with(fakes, out, *common, "--campaign", "dask", "--executor", "dask",
                 "--scheduler", cluster.scheduler_address)
    assert r.exit_code == 0, r.output
    keep = ["entrant", "n", "instance", "repeat", "status", "verified", "instance_sha256", "clues",
            "timeout_s", *schema.WORK_COUNTERS]
    local = sorted(tuple(row[k] for k in keep) for row in rows_of(out, "local"))
    remote = sorted(tuple(row[k] for k in keep) for row in rows_of(out, "dask"))
    assert local == remote and len(local) == 12
    assert {s[4] for s in local} == {"solved", "wrong", "timeout", "skipped"}
    meta = json.loads((out / "dask" / "meta.json").read_text())
    assert meta["executor"] == "dask"
    # the dask worker's cell ran in a worker subprocess pinned to one core of the machine
    assert meta["pinning"]["enabled"] is True
    reported = meta["pinning"]["workers"]
    assert set(reported) >= {row["worker"] for row in rows_of(out, "dask") if row["status"] == "solved"}
    assert all(len(cpus) == 1 for cpus in reported.values())


# -- bad input ------------------------------------------------------------------------
@pytest.mark.parametrize("args, needle", [
    (["--n", "5..2"], "empty range"),
    (["--n", "two"], "expected N"),
    (["--n", "0"], "out of range"),
    (["--n", "2..99"], "out of range"),
    (["--n", ""], "expected N"),
    (["--solvers", "nosuch"], "unknown solver"),
    (["--solvers", "backtracking:colour=red"], "no parameter"),
    (["--solvers", "backtracking", "--executor", "dask"], "--scheduler"),
    (["--solvers", "backtracking", "--scheduler", "tcp://x:1"], "only used with"),
    (["--solvers", "backtracking", "--executor", "dask", "--scheduler", "bogus://x"], "dask scheduler"),
    (["--solvers", "backtracking", "--kind", "unique", "--holes", "0.5"], "goes with --family unsat or holes"),
    (["--solvers", "backtracking", "--kind", "holes", "--holes", "1.5"], "[0, 1]"),
    (["--solvers", "backtracking", "--kind", "holes", "--holes", "lots"], "[0, 1]"),
    (["--solvers", "backtracking", "--base", "minimal"], "goes with --family unsat"),
    (["--solvers", "backtracking", "--kind", "nosuch"], "unknown family"),
])
def test_bad_input_exits_2_with_one_line(tmp_path, args, needle):
    r = race(tmp_path, *args)
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]


def test_holes_campaign_passes_the_options_to_the_generator(tmp_path):
    r = race(tmp_path, "--n", "2", "--solvers", "backtracking", "--instances", "2", "--kind", "holes",
             "--holes", "0.55", "--pattern", "balanced", "--timeout", "30")
    assert r.exit_code == 0, r.output
    name = "race-n2-holes-holes0.55-balanced-s0-i2-t30"
    rows = rows_of(tmp_path, name)
    assert len(rows) == 2 and all(row["status"] == "solved" for row in rows)
    assert {int(row["clues"]) for row in rows} == {16 - 9}      # round(0.55 * 16) = 9 holes
    for file in (instance_dir(tmp_path, "holes", 2, 0, {"holes": 0.55, "pattern": "balanced"})
                 .glob("*.sudoku")):
        meta = grid_text.read(file).metadata
        assert (meta["holes"], meta["pattern"]) == ("0.55", "balanced")
    meta = json.loads((tmp_path / name / "meta.json").read_text())
    assert meta["generator_options"] == {"holes": 0.55, "pattern": "balanced"}
    assert "--holes 0.55 --pattern balanced" in meta["command"]


def test_rows_censor_at_the_limit_and_refuse_unknown_statuses():
    (entrant,) = parse_entrants("backtracking")
    cell = Cell("backtracking", 2, "i0", 0)
    timeout = make_row("c", 0, 7.5, entrant, cell,
                       Measurement(Status.TIMEOUT, wall_s=9.9, counters={"nodes": 3}))
    assert (timeout.status, timeout.wall_s, timeout.cpu_s) == ("timeout", 7.5, 7.5)
    assert timeout.nodes is None and timeout.verified is False
    solved = make_row("c", 0, 7.5, entrant, cell,
                      Measurement(Status.SOLVED, verified=True, wall_s=0.25,
                                  times={"search": 0.5, "bogus": 1.0}, counters={"nodes": 3}))
    assert (solved.status, solved.wall_s, solved.t_search, solved.nodes) == ("solved", 0.25, 0.5, 3)
    assert json.loads(solved.extra or "{}") == {"t_bogus": 1.0}
    wire = Measurement(Status.SOLVED, wall_s=0.1).to_wire(0)
    wire[2] = "maybe"
    odd = Measurement.from_wire(wire)
    assert odd.status is Status.ERROR and "'maybe'" in odd.message
    assert schema.answered("solved", "True") and schema.answered("unsat", "")
    assert not schema.answered("solved", "") and not schema.answered("solved", float("nan"))
    assert not schema.answered("timeout", True)


def test_resume_with_other_limits_is_refused(out):
    r = race(out, "--n", "2", "--solvers", "backtracking", "--instances", "1", "--campaign", "c")
    assert r.exit_code == 0, r.output
    r = race(out, "--n", "2", "--solvers", "backtracking", "--instances", "1", "--campaign", "c",
             "--timeout", "3")
    assert r.exit_code == 2 and "timeout_s" in r.stderr


# -- units ------------------------------------------------------------------------------
@given(st.lists(st.integers(2, MAX_N), min_size=1, max_size=6))
def test_parse_n_lists(values):
    assert parse_n(",".join(map(str, values))) == sorted(set(values))


@given(st.integers(2, MAX_N), st.integers(0, 5))
def test_parse_n_ranges(lo, width):
    hi = min(MAX_N, lo + width)
    assert parse_n(f"{lo}..{hi}") == list(range(lo, hi + 1))
    assert parse_n(f"{lo}..{hi},{lo}") == list(range(lo, hi + 1))


def test_entrant_specs_split_on_entrants_not_parameters():
    assert split_specs("backtracking,sat:backend=glucose4,encoding=x,dlx") == [
        "backtracking", "sat:backend=glucose4,encoding=x", "dlx"]
    (e,) = parse_entrants("backtracking:node_limit=5")
    assert e.name == "backtracking" and e.params == {"node_limit": 5}


def test_default_name_resumes_the_same_directory():
    d = {"instances": 5, "timeout_s": 20.0, "memory_mb": 4096.0}
    assert default_name([2, 3, 4, 5], "unique", 0, 5, 20.0, 4096.0, d) == "race-n2-5-unique-s0"
    assert default_name([2, 4, 6], "unique", 1, 3, 5.0, 4096.0, d) == \
        "race-n2_4_6-unique-s1-i3-t5"


def _cell(entrant: str, n: int, i: int) -> Cell:
    return Cell(entrant, n, f"i{i}", 0)


def test_escalation_waits_for_a_settled_median_then_skips():
    cells = [_cell(e, n, i) for e in ("a", "b") for n in (2, 3, 4) for i in range(3)]
    esc = Escalation(cells)
    assert esc.may_start(_cell("a", 2, 0)) and not esc.may_start(_cell("a", 3, 0))
    esc.record(_cell("a", 2, 0), "timeout")
    assert not esc.may_start(_cell("a", 3, 0)) and esc.dead_at("a") is None
    esc.record(_cell("a", 2, 1), "memout")      # 2 of 3 censored: the median is, whatever comes
    assert esc.dead_at("a") == 2
    esc.record(_cell("b", 2, 0), "solved")      # one answer of three settles nothing
    assert not esc.may_start(_cell("b", 3, 0))
    esc.record(_cell("b", 2, 1), "unsat")       # two of three: the median is finite
    assert esc.may_start(_cell("b", 3, 0)) and not esc.may_start(_cell("b", 4, 0))
    assert esc.dead_at("b") is None
    esc.record(_cell("b", 3, 0), "skipped")     # skipped counts as censored, never as missing
    esc.record(_cell("b", 3, 1), "error")
    assert esc.dead_at("b") == 3


def test_measure_calibrates_fast_solves_and_the_parent_verifies():
    rng = np.random.default_rng(7)
    solution = full_grid(2, rng)
    puzzle = puzzle_from(solution, 0.5, rng)
    solver = Backtracking()
    solver.warmup()
    m = measure(solver, puzzle, min_time=0.01)
    assert m.status is Status.SOLVED and m.solution is not None
    assert m.iterations is not None and m.wall_s is not None
    assert m.iterations > 1 and m.wall_s * m.iterations >= 0.01
    assert m.counters == solver.solve(puzzle).counters
    assert set(m.times) == {"check", "build", "search", "verify"}
    one = measure(solver, puzzle, min_time=0.0)
    assert one.iterations == 1

    class Liar(Backtracking):            # claims solved, but the grid breaks a clue
        def _run(self, grid, limit, keep):
            result = super()._run(grid, limit, keep)
            bad = result.solutions[0].cells.copy()
            bad[grid.cells == 0] = 0
            result.solutions[0] = Grid(grid.n, bad)
            return result

    assert Liar().solve(puzzle).status == "solved"     # the solver's own check passes it
    m = measure(Liar(), puzzle, min_time=0.0)
    assert m.status is Status.SOLVED and not m.verified     # the worker vouches for nothing
    referee = Referee(1.0)
    case = referee.case("sha", grid_text.format_native(puzzle), "p.sudoku")
    judged = referee.judge(case, m, "liar", "backtracking")
    assert judged.status is Status.WRONG and not judged.verified and judged.solution is None
    assert judged.message == "the harness could not verify the returned grid against the puzzle"


def test_instances_come_from_the_generator_and_are_cached(tmp_path):
    first = ensure_instances(tmp_path, "unique", 2, 2, 5)
    assert [i.file for i in first] == [instance_name("unique", 2, 5, k) for k in range(2)]
    stamps = [i.path.stat().st_mtime_ns for i in first]
    again = ensure_instances(tmp_path, "unique", 2, 2, 5)
    assert again == first and [i.path.stat().st_mtime_ns for i in again] == stamps
    for inst in first:
        grid = grid_text.parse(read_instance(inst)).grids[0]
        assert grid.n == 2 and grid.clues() == inst.clues
    first[0].path.write_text(first[0].path.read_text() + "# tampered\n")
    with pytest.raises(RaceError, match="sha256"):
        read_instance(first[0])
    from experiments.harness.instances import open_directory
    directory = open_directory(first[1].directory)
    assert directory is not None
    try:                                # the set's directory held open: the same text, errors
        assert read_instance(first[1], directory) == read_instance(first[1])
        with pytest.raises(RaceError, match="sha256"):
            read_instance(first[0], directory)
        first[1].path.unlink()
        with pytest.raises(FileNotFoundError) as missing:
            read_instance(first[1], directory)
        assert missing.value.filename == str(first[1].path)     # named by its whole path
    finally:
        os.close(directory)


def test_unknown_kind_exits_2_before_touching_the_disk(tmp_path):
    r = race(tmp_path, "--n", "2", "--solvers", "backtracking", "--kind", "nosuch")
    assert r.exit_code == 2 and "nosuch" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_first_cell_of_a_size_gets_an_unmeasured_warm_up_solve():
    rng = np.random.default_rng(3)
    puzzle = puzzle_from(full_grid(2, rng), 0.5, rng)

    class Counting(Backtracking):
        calls = 0

        def search(self, grid, limit, keep):
            type(self).calls += 1
            return super().search(grid, limit, keep)

    solver = Counting()
    solver.warmup()
    Counting.calls = 0
    m = measure(solver, puzzle, min_time=0.0, rewarm_below=10.0)
    assert Counting.calls == 2 and m.iterations == 1 and m.status is Status.SOLVED
    Counting.calls = 0
    measure(solver, puzzle, min_time=0.0)
    assert Counting.calls == 1


def test_the_escalation_sweep_is_not_quadratic_in_the_campaign(out, monkeypatch):
    """The pending cells are swept for skips only when an entrant's first censored n
    changes, not after every row: a sweep per row would cost O(cells) per cell."""
    from experiments.harness.campaign import prepare
    from experiments.harness.config import Config
    from experiments.harness.executor import LocalExecutor
    from experiments.harness.scheduling import run
    cells = 120
    write_instances(out, 2, cells)
    config = Config(n_values=[2], entrants=parse_entrants("backtracking"), family_labels="unique",
                    instances=cells, timeout_s=10.0, memory_mb=4096.0, jobs=1, out=out,
                    campaign="sweeps", order="fixed", pin=False)
    sweeps = []
    original = Escalation.dead_at
    monkeypatch.setattr(Escalation, "dead_at",
                        lambda self, *a: sweeps.append(1) or original(self, *a))
    stats = run(prepare(config), LocalExecutor(1, 10.0, 4096.0, min_time=0.0))
    assert stats.ran == cells
    assert len(sweeps) <= 2 * cells + 2         # one look per row, not one per pending cell


def test_the_peak_rss_of_a_cell_is_its_own_and_read_from_files_kept_open(rng):
    """A cell that allocates ~200 MB has that peak; the next cell's peak is reset and
    small; both readings come from the /proc files the worker keeps open."""
    from experiments.harness import worker

    class Greedy(Backtracking):
        grab = True

        def search(self, grid, limit, keep):
            if type(self).grab:
                block = bytearray(200 * 1024 * 1024)
                block[::4096] = b"1" * len(block[::4096])
                del block
            return super().search(grid, limit, keep)

    solver = Greedy()
    solver.warmup()
    puzzle = puzzle_from(full_grid(2, rng), 0.5, rng)
    big = worker.measure(solver, puzzle, min_time=0.0)
    Greedy.grab = False
    small = worker.measure(solver, puzzle, min_time=0.0)
    assert big.peak_rss_mb is not None and small.peak_rss_mb is not None
    assert big.peak_rss_mb > small.peak_rss_mb + 150, (big.peak_rss_mb, small.peak_rss_mb)
    if os.path.exists("/proc/self/clear_refs"):
        assert worker._PROC.pid == os.getpid() and worker._PROC.status is not None


def test_a_cell_quicker_than_a_memory_poll_is_held_to_the_limit_too(tmp_path):
    """--memory 1: a warm worker holds ~140 MB, so no cell can keep the limit; a quick cell
    finished between two polls was recorded solved at 148 MB."""
    result = race(tmp_path, "--n", "2", "--instances", "2", "--solvers", "dlx,sat",
                  "--timeout", "10", "--memory", "1", "--jobs", "1")
    assert result.exit_code == 0, result.output
    rows = rows_of(tmp_path)
    assert len(rows) == 4 and {r["status"] for r in rows} == {"memout"}
    assert all(float(r["peak_rss_mb"]) > 1 for r in rows)


@given(st.lists(st.one_of(st.none(), st.integers(), st.floats(allow_nan=False),
                          st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FF),
                                  max_size=8).filter(str.isprintable)),
                min_size=len(schema.COLUMNS), max_size=len(schema.COLUMNS)))
def test_a_row_line_is_what_the_csv_module_writes(values):
    """rows.encode quotes a field only where csv.writer would, the same way (printable text)."""
    import io

    from experiments.harness.rows import encode
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(
        ["" if v is None else v if isinstance(v, str) else f"{v:.9g}" if isinstance(v, float)
         else str(v) for v in values])
    assert encode(values).decode() == buffer.getvalue()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(), st.booleans(), st.floats(),
                          st.text(max_size=6)),
                min_size=len(schema.COLUMNS), max_size=len(schema.COLUMNS)))
def test_a_rows_line_is_the_encoding_of_its_values(values):
    """Row.line (each field's text written out per column) is rows.encode of the row's values
    in column order, whatever the fields hold (None, integers, booleans, floats, any text)."""
    from experiments.harness.rows import _VALUES, encode
    row = Row(*values)
    assert row.line() == encode(_VALUES(row)) == encode(values)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["nodes", "guesses", "a b", "é", "t_x", "k9", "Z_"]),
                       st.one_of(st.integers(-10**30, 10**30), st.booleans(), st.floats(),
                                 st.text(max_size=3)), min_size=1, max_size=5))
def test_a_rows_extra_counters_are_written_as_json_writes_them(extra):
    """The template of a row's extra counters (plain names, integer values) gives the very
    text ``json.dumps(sort_keys=True)`` gives; anything else is written by json itself."""
    from experiments.harness.rows import _extra_text
    assert _extra_text(extra) == json.dumps(extra, sort_keys=True, default=str)
