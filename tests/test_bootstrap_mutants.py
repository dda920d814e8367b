"""Bootstrap intervals: seeds, resample counts and confidence reach the result (survivors of
the mutation pass)."""

from __future__ import annotations

import math

import numpy as np
import pytest

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
    assert first == bootstrap.median_interval(ratios, resamples=300, seed=9)
    for seed in range(8):
        assert bootstrap.ratio_interval(ratios, resamples=1, seed=seed).low == one_draw_median(ratios, seed)
    assert bootstrap.ratio_interval(ratios, resamples=300, seed=9, confidence=0.5).confidence == 0.5


def one_draw_median(values: list[float], seed: int) -> float:
    """The censored median of one resample drawn as the module documents: seeded generator,
    indices uniform over the values, with replacement."""
    picks = np.random.default_rng(seed).integers(0, len(values), size=(1, len(values)))
    return float(np.median(np.asarray(values)[picks]))


def test_one_resample_is_the_seeded_draw():
    values = [0.5, 1.5, 2.0, 0.8, 3.0, 1.1, 0.9]
    for seed in range(8):
        interval = bootstrap.median_interval(values, resamples=1, seed=seed)
        assert (interval.low, interval.high) == (one_draw_median(values, seed),) * 2
    wide = bootstrap.median_interval(values, seed=3)          # 2000 resamples reach further
    assert wide.low < wide.high
    assert bootstrap.median_interval(values, seed=3, confidence=0.5).confidence == 0.5


def test_percentile_interval_of_nothing_measured():
    interval = bootstrap.percentile_interval(3.0, np.array([math.nan, math.nan]), confidence=0.8)
    assert interval.estimate == 3.0 and interval.confidence == 0.8
    assert math.isnan(interval.low) and math.isnan(interval.high)
    single = bootstrap.percentile_interval(3.0, np.array([2.0]))
    assert (single.estimate, single.low, single.high) == (3.0, 2.0, 2.0)


def test_one_growth_resample_is_the_seeded_draw_per_n():
    for seed in range(8):
        rng = np.random.default_rng(seed)        # one generator, n = 2 drawn first, then n = 3
        medians = [float(np.median(NOISY[n][rng.integers(0, 4, size=(1, 4))])) for n in (2, 3)]
        interval = bootstrap.growth_interval(NOISY, resamples=1, seed=seed)
        assert interval.low == interval.high == pytest.approx(medians[1] / medians[0])


@pytest.mark.parametrize("size, low, high", [(5, 1.0, 3.0), (11, 2.0, 8.0)])
def test_percentile_interval_order_statistics(size, low, high):
    # confidence 0.5: tails of 0.25; low = floor(0.25 (size - 1)), high = ceil(0.75 (size - 1))
    interval = bootstrap.percentile_interval(7.0, np.arange(size, dtype=float)[::-1], confidence=0.5)
    assert (interval.estimate, interval.low, interval.high, interval.confidence) == (7.0, low, high, 0.5)
