"""Noise you can see, end to end: `race run` records the readings and warns (busy machine,
calibration drift, repeats that disagree); `race compare OLD NEW` names the busy campaign
and gates a deliberately slowed entrant; `race plot` and the report warn too."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from experiments.harness import conditions, machine, pinning
from tests.fake_solvers import fake_registry
from tests.test_harness import write_instances


def race(out, *args):
    return CliRunner().invoke(main, ["run", "--no-report", "--out", str(out), "--kind", "unique", "--n", "2",
                                     "--timeout", "20", *args], obj={"registry": fake_registry()})


def warnings_of(output: str, what: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("WARNING") and what in line]


@pytest.fixture
def quiet(monkeypatch):
    """A quiet machine: no load, no other process busy (what the sensors would read on an
    idle machine; this shared test machine is never idle, so the readings are replaced)."""
    monkeypatch.setattr(machine, "others_busy", lambda interval=0.0: (0.0, []))
    monkeypatch.setattr(machine, "load_avg", lambda: [0.0, 0.0, 0.0])


def busy_loop(cpu: int | None = None) -> subprocess.Popen:
    """A process spinning on ``cpu`` (any CPU when None), returned once it spins."""
    loop = subprocess.Popen([sys.executable, "-c", "print('spinning', flush=True)\nwhile True: pass"],
                            stdout=subprocess.PIPE, text=True)
    if cpu is not None:
        os.sched_setaffinity(loop.pid, {cpu})
    assert loop.stdout is not None and loop.stdout.readline() == "spinning\n"
    return loop


def stop(loop: subprocess.Popen) -> None:
    loop.kill()
    loop.wait()
    if loop.stdout is not None:
        loop.stdout.close()


def test_repeats_that_disagree_warn_and_steady_ones_do_not(tmp_path, quiet, monkeypatch):
    monkeypatch.setattr(conditions, "_calibrate_on", lambda cpu, samples=None: None)     # not measured here
    write_instances(tmp_path, 2, 2)
    jittery = race(tmp_path, "--solvers", "jittery:delay=0.05", "--instances", "2", "--repeats", "3",
                   "--jobs", "1", "--campaign", "jittery")
    assert jittery.exit_code == 0, jittery.output
    (line,) = warnings_of(jittery.output, "repeats")
    assert line.startswith("WARNING: jittery:delay=0.05: the repeats of")
    steady = race(tmp_path, "--solvers", "slowed:delay=0.25", "--instances", "2", "--repeats", "2",
                  "--jobs", "1", "--campaign", "steady")
    assert steady.exit_code == 0, steady.output
    assert warnings_of(steady.output, "") == []        # quiet machine, steady repeats: silence


def test_a_busy_loop_makes_the_busy_warning_appear(tmp_path, monkeypatch):
    monkeypatch.setattr(conditions, "_calibrate_on", lambda cpu, samples=None: None)
    write_instances(tmp_path, 2, 1)
    jobs = str(len(pinning.usable_cpus()))                 # every core in use: none left free
    loop = busy_loop()
    try:
        busy = race(tmp_path, "--solvers", "slow:delay=0.01", "--instances", "1", "--jobs", jobs,
                    "--campaign", "busy")
    finally:
        stop(loop)
    assert busy.exit_code == 0, busy.output
    (line,) = warnings_of(busy.output, "the machine was busy")
    assert "other processes kept" in line and f"with {jobs} core(s) in use" in line
    meta = json.loads((tmp_path / "busy" / "meta.json").read_text())
    assert meta["machine_state"]["start"]["others_busy_cores"] >= 0.8


def test_the_busy_warning_disappears_on_a_quiet_machine(tmp_path, quiet, monkeypatch):
    monkeypatch.setattr(conditions, "_calibrate_on", lambda cpu, samples=None: None)
    write_instances(tmp_path, 2, 1)
    result = race(tmp_path, "--solvers", "slow:delay=0.01", "--instances", "1", "--campaign", "q")
    assert result.exit_code == 0 and warnings_of(result.output, "busy") == []


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this OS")
def test_a_busy_loop_on_the_calibration_core_makes_it_drift(tmp_path, quiet, monkeypatch):
    """The end calibration shares its core with three busy loops started after the run's
    cells: it runs at a quarter of the speed or less, the drift warning names it. (Three,
    not one: the start reading may share its core too, with the suite's other workers.)"""
    real_end = conditions.end
    cpu = pinning.usable_cpus()[-1]
    monkeypatch.setattr(conditions, "pinned_cpus", lambda config: [cpu])

    def end_under_load(*args, **kwargs):
        loops = [busy_loop(cpu) for _ in range(3)]
        try:
            return real_end(*args, **kwargs)
        finally:
            for loop in loops:
                stop(loop)
    monkeypatch.setattr(conditions, "end", end_under_load)
    write_instances(tmp_path, 2, 1)
    result = race(tmp_path, "--solvers", "slow:delay=0.01", "--instances", "1", "--jobs", "1",
                  "--campaign", "drift")
    assert result.exit_code == 0, result.output
    (line,) = warnings_of(result.output, "calibration drifted")
    meta = json.loads((tmp_path / "drift" / "meta.json").read_text())
    start, end = meta["calibration"]["start"], meta["calibration"]["end"]
    assert end["score_s"] > 1.05 * start["score_s"]
    assert "between the start and the end of the run" in line


def test_compare_two_runs_names_the_busy_one_and_gates_the_slowed_entrant(tmp_path, monkeypatch):
    """Two `race run` of the same command with different --out: the second with the fake
    entrant slowed down (and a busy loop): compare names the busy campaign, --fail-above
    1.2 is inconclusive (4), with --force exits 1; with the slowdown off it exits 0."""
    monkeypatch.setattr(conditions, "_calibrate_on", lambda cpu, samples=None: None)
    outs = [tmp_path / name for name in ("first", "second", "third")]
    for out in outs:
        write_instances(out, 2, 6)
    command = ["--solvers", "slowed:delay=0.05", "--instances", "6", "--jobs", "1",
               "--campaign", "same"]
    assert race(outs[0], *command).exit_code == 0
    monkeypatch.setenv("SUDOKU_RACE_TEST_SLOWDOWN", "2")
    loop = busy_loop()
    try:
        second = race(outs[1], *command, "--jobs", str(len(pinning.usable_cpus())))
    finally:
        stop(loop)
    assert second.exit_code == 0, second.output
    monkeypatch.delenv("SUDOKU_RACE_TEST_SLOWDOWN")
    assert race(outs[2], *command).exit_code == 0
    a, b, c = (str(out / "same") for out in outs)
    noisy = CliRunner().invoke(main, ["compare", a, b, "--fail-above", "1.2"])
    assert noisy.exit_code == 4 and "inconclusive" in noisy.stderr, noisy.output
    slower = CliRunner().invoke(main, ["compare", a, b, "--fail-above", "1.2", "--force"])
    assert slower.exit_code == 1, slower.output
    assert "regression" in slower.output and "REGRESSION (> 1.2)" in slower.output
    assert any("NEW same" in w for w in warnings_of(slower.output, "the machine was busy"))
    same = CliRunner().invoke(main, ["compare", a, c, "--fail-above", "1.2", "--force"])
    assert same.exit_code == 0, same.output
    assert "REGRESSION" not in same.output


def test_plot_and_report_warn(tmp_path):
    from tests.test_analysis import run, write_campaign
    rows = [run("a", 2, "i1", "solved", t, repeat=k) for k, t in enumerate((1.0, 2.0, 1.5))]
    busy = {"load_avg": [5.0, 4.0, 3.0], "usable_cpus": [0, 1], "others_busy_cores": 1.5, "busiest": []}
    directory = write_campaign(tmp_path / "c", rows, {"machine_state": {"start": busy, "end": busy},
                                                      "jobs": 2})
    plot = CliRunner().invoke(main, ["plot", str(directory), "-o", str(tmp_path / "p")])
    assert plot.exit_code == 0, plot.output
    assert len(warnings_of(plot.output, "the machine was busy")) == 1
    assert len(warnings_of(plot.output, "repeats")) == 1
    report = CliRunner().invoke(main, ["report", str(directory), "--report-dir", str(tmp_path / "r"),
                                       "--no-pdf"])
    assert report.exit_code == 0, report.output
    assert len(warnings_of(report.output, "the machine was busy")) == 1
    noise = (tmp_path / "r" / "generated" / "noise.tex").read_text()
    assert noise.count(r"\item") == 2 and "machine was busy" in noise


def test_the_html_report_lists_the_noise_warnings(tmp_path):
    from experiments.analysis import censored_stats
    from experiments.report import html
    from tests.test_analysis import run, write_campaign
    busy = {"load_avg": [5.0, 4.0, 3.0], "usable_cpus": [0, 1], "others_busy_cores": 1.5, "busiest": []}
    rows = [run("a", 2, "i1", "solved", 1.0)]
    loaded = write_campaign(tmp_path / "busy", rows, {"machine_state": {"start": busy}, "jobs": 2})
    assert any(w.startswith("the machine was busy") for w in html.warnings(censored_stats.load(loaded)))
    calm = write_campaign(tmp_path / "calm", rows, {"jobs": 2})
    assert not any("busy" in w for w in html.warnings(censored_stats.load(calm)))


def test_a_resume_with_nothing_to_run_keeps_the_drift_warning_and_the_verdict(tmp_path, quiet,
                                                                                monkeypatch):
    """A campaign whose calibration drifted (dlx -7%: faster at the end, as the issue's
    campaign) is run again with nothing left to run: that session's steady readings replace the
    top-level ones, but the summary, the HTML page and the gate still warn, naming the session
    that measured the cells; the gate stays inconclusive."""
    readings = iter([{"dlx": {"seconds": 0.0100}, "sat": {"seconds": 0.0100}},
                     {"dlx": {"seconds": 0.0093}, "sat": {"seconds": 0.0100}}])
    monkeypatch.setattr(conditions, "_calibrate_on",
                        lambda cpu, samples=None: next(readings, {"dlx": {"seconds": 0.0093},
                                                    "sat": {"seconds": 0.0100}}))
    write_instances(tmp_path, 2, 2)
    command = ["--solvers", "slow:delay=0.01", "--instances", "2", "--jobs", "1",
               "--campaign", "drifted"]
    first = race(tmp_path, *command)
    assert first.exit_code == 0, first.output
    (line,) = warnings_of(first.output, "calibration drifted")
    assert "dlx -7%" in line
    campaign = str(tmp_path / "drifted")
    gate = CliRunner().invoke(main, ["compare", campaign, campaign, "--fail-above", "1.2"])
    assert gate.exit_code == 4 and "the calibration drifted" in gate.output
    again = race(tmp_path, *command)                         # nothing left to run
    assert again.exit_code == 0, again.output
    (kept,) = warnings_of(again.output, "calibration drifted")
    assert "dlx -7%" in kept and "run 1 of 2, started " in kept
    meta = json.loads((tmp_path / "drifted" / "meta.json").read_text())
    assert [s.get("cells") for s in meta["runs_conditions"]] == [2, 0]
    assert meta["calibration"]["start"] == meta["calibration"]["end"]    # the no-op's readings
    gate = CliRunner().invoke(main, ["compare", campaign, campaign, "--fail-above", "1.2"])
    assert gate.exit_code == 4 and "run 1 of 2" in gate.output, gate.output
    from experiments.analysis.censored_stats import load
    from experiments.report import html
    (shown,) = [w for w in html.warnings(load(campaign)) if "drifted" in w]   # the HTML page's
    assert shown == kept.removeprefix("WARNING: ")
    plot = CliRunner().invoke(main, ["plot", campaign, "-o", str(tmp_path / "plots")])
    assert "dlx -7%" in plot.output


def test_a_merge_keeps_each_sources_sessions(tmp_path):
    """Each source's sessions travel under merged_from: a source whose cells were measured under
    a drifted calibration, then resumed with nothing to run, still warns in the merge."""
    from experiments.analysis import noise
    from experiments.analysis.censored_stats import load
    from tests.test_campaign_diff import BASE, campaign
    drifted = {"start": {"dlx": {"seconds": 0.01}, "sat": {"seconds": 0.01}},
               "end": {"dlx": {"seconds": 0.0093}, "sat": {"seconds": 0.01}}}
    steady = {"start": drifted["end"], "end": drifted["end"]}
    sessions = [{"calibration": drifted, "cells": 10}, {"calibration": steady, "cells": 0}]
    one = campaign(tmp_path / "one", {"dlx": BASE}, {"calibration": steady, "runs_conditions": sessions})
    other = campaign(tmp_path / "other", {"dlx": BASE}, {"calibration": steady})
    (alone,) = noise.machine_warnings(load(one))
    assert "run 1 of 2" in alone and "dlx -7%" in alone
    merged = CliRunner().invoke(main, ["merge", str(one), str(other), "-o", str(tmp_path / "m")])
    assert merged.exit_code == 0, merged.output
    (line,) = noise.machine_warnings(load(tmp_path / "m"))
    assert line.startswith("WARNING: one, run 1 of 2: the calibration drifted") and "dlx -7%" in line
