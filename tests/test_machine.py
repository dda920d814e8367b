"""Machine readings: load, frequency, governor, SMT, the other processes' CPU; the busy warning."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from experiments.harness import machine

psutil = pytest.importorskip("psutil")


def test_a_reading_is_complete_json_with_missing_values_as_none():
    state = machine.reading(interval=0.1)
    assert json.loads(json.dumps(state)) == state
    assert set(state) == {"at", "load_avg", "cpu_mhz", "governor", "smt", "usable_cpus",
                          "others_busy_cores", "busiest"}
    assert state["usable_cpus"] == machine.usable_cpus() and state["usable_cpus"]
    assert state["load_avg"] is None or len(state["load_avg"]) == 3
    assert set(state["cpu_mhz"]) == {"current", "min", "max"}
    for value in state["cpu_mhz"].values():         # a number or missing, never 0
        assert value is None or value > 0
    assert state["smt"] in (True, False, None)
    assert state["others_busy_cores"] is None or state["others_busy_cores"] >= 0


def test_unreadable_frequency_is_missing(monkeypatch, tmp_path):
    monkeypatch.setattr(machine, "_CPU_SYS", tmp_path)      # no cpufreq at all
    monkeypatch.setattr(psutil, "cpu_freq", lambda: None)
    assert machine.cpu_mhz([0]) == {"current": None, "min": None, "max": None}
    assert machine.governor([0]) is None
    (tmp_path / "cpu0/cpufreq").mkdir(parents=True)
    for name, value in (("scaling_cur_freq", "2400000"), ("cpuinfo_min_freq", "800000"),
                        ("cpuinfo_max_freq", "3600000"), ("scaling_governor", "powersave")):
        (tmp_path / "cpu0/cpufreq" / name).write_text(value + "\n")
    assert machine.cpu_mhz([0]) == {"current": 2400.0, "min": 800.0, "max": 3600.0}
    assert machine.governor([0]) == "powersave"
    (tmp_path / "smt").mkdir()
    (tmp_path / "smt/active").write_text("1\n")
    assert machine.smt() is True


def test_a_busy_loop_shows_in_the_reading_and_the_warning():
    """The other processes' share rises by about a core while a busy loop runs; the warning
    names it when the run used every core, and is gone when the loop is not counted."""
    loop = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)
        busy = machine.reading(interval=0.5)
    finally:
        loop.kill()
        loop.wait()
    assert busy["others_busy_cores"] >= 0.8
    # named among the busiest, unless that list is full of processes busier still (a loaded machine)
    assert any(b["pid"] == loop.pid for b in busy["busiest"]) \
        or len(busy["busiest"]) == machine.BUSIEST
    cores = len(busy["usable_cpus"])
    warning = machine.busy_warning({"start": busy}, cores, "campaign B")
    assert warning.startswith("WARNING: campaign B: the machine was busy")
    assert "other processes kept" in warning and "at the start" in warning


def test_the_busy_warning_appears_and_disappears():
    quiet = {"load_avg": [0.2, 0.2, 0.1], "usable_cpus": [0, 1], "others_busy_cores": 0.1,
             "busiest": []}
    assert machine.busy_warning({"start": quiet, "end": quiet}, 2) is None
    assert machine.busy_warning({}, 2) is None                      # nothing read: no claim
    loaded = dict(quiet, load_avg=[2.5, 1.0, 0.5])
    assert "load average 2.5 at the end" in machine.busy_warning({"start": quiet, "end": loaded}, 2)
    assert machine.busy_warning({"end": loaded}, 3) is None         # 3 cores in use: not above
    others = dict(quiet, others_busy_cores=1.2, busiest=[{"pid": 7, "name": "yes", "cpu_percent": 99.0}])
    assert "(yes 99%)" in machine.busy_warning({"start": others}, 2)
    assert machine.busy_warning({"start": others}, 1) is None       # one core was left free
    missing = dict(quiet, load_avg=None, others_busy_cores=None)
    assert machine.busy_warning({"start": missing}, 1) is None
