"""Bootstrap intervals: seeds, resample counts and confidence reach the result (survivors of
the mutation pass)."""

from __future__ import annotations

import math

import numpy as np

from experiments.analysis import bootstrap

NOISY = {2: np.array([0.01, 0.02, 0.015, 0.03]), 3: np.array([0.1, 0.3, 0.2, 0.25])}


def test_slopes_censor_only_their_own_row():
    fitted = bootstrap.slopes(np.array([2, 3, 4]), np.array([[0.0, 1.0, 2.0], [0.0, math.inf, 1.0]]))
    assert fitted.tolist() == [1.0, math.inf]


def test_growth_interval_is_fixed_by_its_seed_and_counts_its_resamples():
    first = bootstrap.growth_interval(NOISY, resamples=200, seed=5)
    assert first == bootstrap.growth_interval(NOISY, resamples=200, seed=5)
    assert first.low < first.high
    one = bootstrap.growth_interval(NOISY, resamples=1, seed=5)     # one resample: one value
    assert one.low == one.high
    half = bootstrap.growth_interval(NOISY, resamples=200, seed=5, confidence=0.5)
    assert half.confidence == 0.5 and first.low <= half.low <= half.high <= first.high


def test_ratio_interval_is_fixed_by_its_seed_and_keeps_its_confidence():
    ratios = [0.5, 1.5, 2.0, 0.8, 3.0, 1.1, 0.9]
    first = bootstrap.ratio_interval(ratios, resamples=300, seed=9)
    assert first == bootstrap.ratio_interval(ratios, resamples=300, seed=9)
    assert first == bootstrap.median_interval(ratios, resamples=300, seed=9)
    assert bootstrap.ratio_interval(ratios, resamples=300, seed=9, confidence=0.5).confidence == 0.5
