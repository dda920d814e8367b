"""Calibration: the reference kernels do exactly their known work; drift and score."""

from __future__ import annotations

import pytest

from experiments.harness import calibration


def test_the_kernels_do_their_known_work():
    dlx = calibration.dlx_kernel(samples=2, min_time=0.001)
    assert dlx["updates"] == 198264 and dlx["samples"] == 2 and dlx["seconds"] > 0
    sat = calibration.sat_kernel(samples=1)
    assert sat["conflicts"] > 0 and sat["seconds"] > 0 and sat["formula"] == "php7.cnf"


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
