"""Calibration: the reference kernels do exactly their known work; the reading is the
minimum of the samples after the warm-up; drift and score."""

from __future__ import annotations

import pytest

from experiments.harness import calibration


def test_the_kernels_do_their_known_work():
    dlx = calibration.dlx_kernel(samples=2, min_time=0.001)
    assert dlx["updates"] == 198264 and dlx["samples"] == 2 and dlx["warmup"] == 1
    assert 0 < dlx["seconds"] <= dlx["median_seconds"] and dlx["statistic"] == "min"
    sat = calibration.sat_kernel(samples=1)
    assert sat["conflicts"] > 0 and sat["seconds"] > 0 and sat["formula"] == "php7.cnf"


class Clock:
    """``time`` for the calibration module with a scripted ``perf_counter`` (the real
    ``process_time``): each call returns the next of ``ticks``."""

    def __init__(self, ticks):
        self.ticks = iter(ticks)
        self.process_time = calibration.time.process_time

    def perf_counter(self):
        return next(self.ticks)


@pytest.mark.parametrize("kernel", ["dlx", "sat"])
def test_the_reading_is_the_minimum_after_the_warmup(monkeypatch, kernel):
    """Samples of 5 s (the warm-up), 2, 1 and 3 s: the reading is 1 s, the warm-up's 5 s is
    not among the samples (else the median would be 2.5 s, not 2 s)."""
    # each sample reads the clock twice: at its start and after its (one) search or solve
    monkeypatch.setattr(calibration, "time", Clock([0, 5, 5, 7, 7, 8, 8, 11]))
    reading = (calibration.dlx_kernel(samples=3, min_time=0.5, warmup=1) if kernel == "dlx"
               else calibration.sat_kernel(samples=3, warmup=1))
    assert (reading["seconds"], reading["median_seconds"]) == (1, 2)
    assert reading["samples"] == 3 and reading["statistic"] == "min"
    assert reading["spread"] == pytest.approx(0.5)          # cv of 2, 1, 3


def test_a_reading_interleaves_the_kernels_so_a_short_slow_phase_cannot_cover_one(monkeypatch):
    """The SAT samples come spread among the DLX ones (after each kernel's warm-up), no more
    than two DLX samples apart, from the first to the last. A slow phase of the host over a
    few consecutive samples (here every sample taken during it is 40% slower) leaves fast
    samples of both kernels, so both readings stay at the fast time."""
    order = []
    clock = {"t": 0}

    def sampler(name, fast):
        def sample():
            order.append(name)
            slow = 8 <= len(order) <= 11                 # the host's slow phase
            clock["t"] += 1
            return (fast * (1.4 if slow else 1.0), fast)
        return sample

    monkeypatch.setattr(calibration, "_dlx_sampler", lambda: sampler("dlx", 0.0015))
    monkeypatch.setattr(calibration, "_sat_sampler",
                        lambda: (sampler("sat", 0.04), {"conflicts": 7}))
    reading = calibration.calibrate()
    warm = calibration.WARMUP
    assert order[:2 * warm] == ["dlx"] * warm + ["sat"] * warm
    timed = order[2 * warm:]
    assert timed.count("dlx") == calibration.SAMPLES and timed.count("sat") == calibration.SAT_SAMPLES
    sat_at = [i for i, name in enumerate(timed) if name == "sat"]
    assert max(b - a for a, b in zip(sat_at, sat_at[1:])) <= 3      # spread, not one block
    assert sat_at[0] <= 1 and sat_at[-1] >= len(timed) - 4
    assert reading["dlx"]["seconds"] == 0.0015 and reading["sat"]["seconds"] == 0.04
    assert reading["sat"]["conflicts"] == 7 and reading["sat"]["interleaved"]


def test_a_broken_kernel_is_refused(monkeypatch):
    monkeypatch.setattr(calibration, "QUEENS_WORK", (724, 11578, 1))
    with pytest.raises(calibration.RaceError, match="DLX kernel is broken"):
        calibration.dlx_kernel(samples=1, min_time=0.0)


def reading(dlx: float, sat: float) -> dict:
    return {"dlx": {"seconds": dlx}, "sat": {"seconds": sat}, "score_s": (dlx * sat) ** 0.5}


def test_drift_and_its_warning():
    steady = {"start": reading(0.004, 0.1), "end": reading(0.00404, 0.102)}
    assert calibration.drift_warning(steady) is None
    assert calibration.drifts(steady) == pytest.approx({"dlx": 0.01, "sat": 0.02})
    slower = {"start": reading(0.004, 0.1), "end": reading(0.005, 0.101)}
    warning = calibration.drift_warning(slower, "campaign B")
    assert warning.startswith("WARNING: campaign B: the calibration drifted by more than 5%")
    assert "dlx +25%" in warning and "sat" not in warning.split("(")[1]
    assert calibration.drift_warning({"start": reading(0.004, 0.1)}) is None   # no end reading
    assert calibration.drift_warning(None) is None


def test_score_is_the_mean_of_the_readings():
    cal = {"start": reading(0.004, 0.1), "end": reading(0.004, 0.1)}
    assert calibration.score(cal) == pytest.approx(0.02)
    assert calibration.score({"start": reading(0.001, 0.1)}) == pytest.approx(0.01)
    assert calibration.score({}) is None and calibration.score(None) is None


def test_a_small_campaign_takes_fewer_samples_and_a_large_one_all(monkeypatch):
    """The calibration fits the campaign: fewer than SMALL_CAMPAIGN cells to run take
    SMALL_SAMPLES DLX samples (and half as many SAT ones, at least 2), larger ones SAMPLES."""
    assert calibration.samples_for(calibration.SMALL_CAMPAIGN - 1) == calibration.SMALL_SAMPLES
    assert calibration.samples_for(calibration.SMALL_CAMPAIGN) == calibration.SAMPLES
    counts = {"dlx": 0, "sat": 0}

    def sampler(name):
        def sample():
            counts[name] += 1
            return 0.01, 0.01
        return sample
    monkeypatch.setattr(calibration, "_dlx_sampler", lambda: sampler("dlx"))
    monkeypatch.setattr(calibration, "_sat_sampler", lambda: (sampler("sat"), {"conflicts": 7}))
    reading = calibration.calibrate(calibration.SMALL_SAMPLES)
    warm = calibration.WARMUP
    assert reading["dlx"]["samples"] == calibration.SMALL_SAMPLES == counts["dlx"] - warm
    assert reading["sat"]["samples"] == max(2, calibration.SMALL_SAMPLES // 2) == counts["sat"] - warm


def test_a_campaign_passes_its_size_to_both_readings(tmp_path, monkeypatch):
    from experiments.harness import conditions
    from tests.test_harness import race
    seen = []
    monkeypatch.setattr(conditions, "_calibrate_on", lambda cpu, samples=None: seen.append(samples))
    result = race(tmp_path / "out", "--n", "2", "--instances", "1", "--solvers", "dlx",
                  "--timeout", "5", "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert seen == [calibration.SMALL_SAMPLES, calibration.SMALL_SAMPLES]


def test_a_run_takes_both_readings_in_one_process_of_its_own_and_its_parent_loads_no_kernel(
        tmp_path, monkeypatch):
    """The start and end readings come from one calibration process (the kernels load once),
    not from the race's own process (which has not loaded numba, as `race run`'s has not)."""
    from experiments.harness import conditions
    from tests.test_harness import race
    started, pids = [], []
    real_start = calibration.Calibrator._start

    def start(self):
        proc = real_start(self)
        if proc.pid not in pids:
            started.append(self.cpu)
            pids.append(proc.pid)
        return proc
    monkeypatch.setattr(calibration.Calibrator, "_start", start)
    monkeypatch.setattr(conditions, "_kernels_loaded", lambda: False)   # as in `race run`
    monkeypatch.setattr(calibration, "calibrate",       # never in this process
                        lambda *args: pytest.fail("the race's own process calibrated"))
    result = race(tmp_path / "out", "--n", "2", "--instances", "1", "--solvers", "dlx",
                  "--timeout", "5", "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert len(pids) == 1 and not conditions._CALIBRATORS
    import json
    (meta,) = (tmp_path / "out").glob("*/meta.json")
    readings = json.loads(meta.read_text())["calibration"]
    for moment in ("start", "end"):
        assert readings[moment]["dlx"]["updates"] == calibration.QUEENS_WORK[2]
        assert readings[moment]["score_s"] > 0


@pytest.mark.parametrize("program, said", [
    ("import sys\nsys.stderr.write('no kernel here\\n')\nsys.exit(3)\n", "no kernel here"),
    ("print('not json', flush=True)\nimport time\ntime.sleep(0.2)\n", "exit status"),
])
def test_a_calibration_process_that_fails_gives_an_error_reading(monkeypatch, program, said):
    monkeypatch.setattr(calibration, "_PROGRAM", program)
    calibrator = calibration.Calibrator()
    try:
        reading = calibrator.reading(2)
    finally:
        calibrator.close()
    assert set(reading) == {"error"} and said in reading["error"], reading


def test_a_calibration_process_past_its_time_is_ended(monkeypatch):
    monkeypatch.setattr(calibration, "_PROGRAM", "import time\ntime.sleep(60)\n")
    calibrator = calibration.Calibrator(timeout=0.5)
    reading = calibrator.reading(2)
    assert "took over 0.5 s" in reading["error"] and calibrator._proc is None


def test_a_process_with_numba_loaded_calibrates_itself(tmp_path, monkeypatch):
    """A race started from Python where numba is loaded already (the API after a solve, a
    notebook) takes its readings in its own process: no calibration process is started."""
    from experiments.harness import conditions
    from tests.test_harness import race
    monkeypatch.setattr(conditions, "_kernels_loaded", lambda: True)
    monkeypatch.setattr(calibration.Calibrator, "_start",
                        lambda self: pytest.fail("a calibration process was started"))
    result = race(tmp_path / "out", "--n", "2", "--instances", "1", "--solvers", "dlx",
                  "--timeout", "5", "--jobs", "1")
    assert result.exit_code == 0, result.output
    import json
    (meta,) = (tmp_path / "out").glob("*/meta.json")
    readings = json.loads(meta.read_text())["calibration"]
    assert all(readings[m]["dlx"]["updates"] == calibration.QUEENS_WORK[2] for m in ("start", "end"))
