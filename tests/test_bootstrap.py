"""Bootstrap intervals on censored medians and growth factors, and the signed-rank test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments.analysis import bootstrap, censored_stats, growth
from experiments.analysis.signed_rank import average_ranks, exact_cdf, signed_rank_test


def test_censored_medians_follow_the_censored_quantile_rule():
    rows = np.array([[3.0, 1.0, 2.0, 4.0], [1.0, np.inf, 2.0, np.inf], [np.inf, 1.0, 2.0, 3.0]])
    assert bootstrap.censored_medians(rows).tolist() == [2.5, math.inf, 2.5]


def test_median_interval_is_deterministic_with_a_seed():
    times = [0.5, 1.0, 1.2, 2.0, 3.5, 0.7, 9.0, 1.1]
    first = bootstrap.median_interval(times, seed=7)
    assert first == bootstrap.median_interval(times, seed=7)
    assert first.estimate == pytest.approx(1.15)
    assert first.low < first.estimate < first.high
    others = {bootstrap.median_interval(times, seed=s) for s in range(5)}
    assert len(others) > 1                      # the seed is what fixes the draws


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(1e-6, 1e3), min_size=1, max_size=25), st.integers(0, 10),
       st.integers(0, 2 ** 31))
def test_median_interval_contains_the_median(values, censored, seed):
    data = values + [math.inf] * censored
    interval = bootstrap.median_interval(data, resamples=400, seed=seed)
    assert interval.estimate == censored_stats.censored_quantile(data, 0.5)
    assert interval.low <= interval.high
    assert interval.contains(interval.estimate)
    assert interval.low >= min(data) and interval.high <= max(data)


def test_censoring_reaches_the_interval():
    solved = [float(k) for k in range(1, 13)]
    all_censored = bootstrap.median_interval([math.inf] * 5)
    assert (all_censored.estimate, all_censored.low, all_censored.high) == (math.inf,) * 3
    # 8 of 20 censored: the median is measured, but a resample often draws half censored
    some = bootstrap.median_interval(solved + [math.inf] * 8)
    assert math.isfinite(some.estimate) and math.isfinite(some.low) and math.isinf(some.high)
    assert censored_stats.format_interval(some.low, some.high, 20.0).endswith("> 20 s]")
    # 1 of 20 censored: a resample practically never draws 10 of them
    rare = bootstrap.median_interval(solved + [13.0 + k for k in range(7)] + [math.inf])
    assert math.isfinite(rare.high)
    assert math.isnan(bootstrap.median_interval([]).estimate)


def test_growth_interval_of_exact_growth_is_the_factor():
    exact = {n: np.array([0.5, 1.0, 2.0]) * 10.0 ** n for n in (2, 3, 4)}
    interval = bootstrap.growth_interval(exact, resamples=300)
    assert interval.estimate == pytest.approx(10.0)
    assert interval.low <= 10.0 + 1e-9 and interval.high >= 10.0 - 1e-9
    same = {n: np.full(4, 3.0 ** n) for n in (2, 3, 4, 5)}
    flat = bootstrap.growth_interval(same, resamples=100)
    assert (flat.estimate, flat.low, flat.high) == pytest.approx((3.0, 3.0, 3.0))
    assert math.isnan(bootstrap.growth_interval({2: np.array([1.0])}).estimate)


def test_growth_interval_censored_resamples_are_unbounded():
    noisy = {2: np.array([0.01, 0.02, 0.015]), 3: np.array([0.1, 0.3, 0.2, math.inf])}
    interval = bootstrap.growth_interval(noisy, resamples=500, seed=3)
    assert math.isfinite(interval.estimate) and interval.low > 1
    assert math.isinf(interval.high)     # resamples with 2+ of the 4 at n = 3 censored


def test_growth_table_carries_the_interval(tmp_path):
    from tests.test_analysis import run, write_campaign
    rows = [run("a", n, f"i{k}", "solved", t * f) for n, t in ((2, 0.01), (3, 0.1), (4, 1.0))
            for k, f in enumerate((0.5, 1.0, 2.0))]
    table = growth.growth_table(censored_stats.load(write_campaign(tmp_path / "g", rows)))
    row = table.iloc[0]
    assert row["factor"] == pytest.approx(10.0)
    assert row["factor_lo"] <= 10.0 <= row["factor_hi"] and row["factor_hi"] < 100


# ---------------------------------------------------------------- signed-rank test

def test_average_ranks_share_ties():
    assert average_ranks(np.array([3.0, 1.0, 3.0, 2.0, math.inf, math.inf])).tolist() == \
        [3.5, 1.0, 3.5, 2.0, 5.5, 5.5]


def test_signed_rank_exact_by_hand():
    # |d| ranks: 0.5->1, 1->2, 1.5->3, 2->4, 3->5, 4->6; the zero is dropped.
    # W+ = 3+4+5+6 = 18, W- = 1+2 = 3. Under the null each of the 2**6 sign patterns is
    # equally likely; rank sums <= 3: {}, {1}, {2}, {3}, {1,2}: 5 of 64, two-sided 10/64.
    result = signed_rank_test([1.5, -0.5, 2.0, 3.0, -1.0, 4.0, 0.0])
    assert (result.w_plus, result.w_minus, result.used, result.method) == (18, 3, 6, "exact")
    assert result.p == pytest.approx(10 / 64)
    assert exact_cdf(5, 6) * 32 == 13           # {},1,2,3,12,4,13,5,14,23,15,24,123


def test_signed_rank_normal_approximation_with_ties_by_hand():
    # |d| = 1,1,2,3,3,3,4,5 -> ranks 1.5,1.5,3,5,5,5,7,8; W+ = 25, W- = 11;
    # mean 8*9/4 = 18; variance 8*9*17/24 - (2**3-2 + 3**3-3)/48 = 51 - 0.625;
    # z = (25 - 18 - 0.5) / sqrt(50.375) = 0.9158; p = erfc(z / sqrt 2) = 0.3598
    result = signed_rank_test([1, 1, -2, 3, 3, 3, 4, -5])
    assert (result.w_plus, result.w_minus, result.method) == (25, 11, "normal")
    assert result.z == pytest.approx(6.5 / math.sqrt(50.375))
    assert result.p == pytest.approx(0.35977, abs=1e-5)


def test_signed_rank_censored_differences_rank_highest():
    result = signed_rank_test([math.inf, 0.1, -0.2, math.inf, -math.inf])
    # ranks: 0.1->1, 0.2->2, the three infinities share (3+4+5)/3 = 4
    assert (result.w_plus, result.w_minus, result.method) == (9, 6, "normal")
    assert signed_rank_test([0.0, 0.0]).p == 1.0 and signed_rank_test([]).method == "none"


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-100, 100).filter(lambda v: v != 0), min_size=1, max_size=12, unique=True))
def test_signed_rank_is_symmetric_in_the_sign(values):
    plus, minus = signed_rank_test(values), signed_rank_test([-v for v in values])
    assert plus.w_plus == minus.w_minus and plus.p == pytest.approx(minus.p)
    assert 0 < plus.p <= 1


def test_summary_text_shows_intervals_and_families(tmp_path):
    from experiments.analysis.summary import summary_text
    from tests.test_analysis import run, write_campaign
    rows = [run("a", n, f"{family}{k}", "solved", 10.0 ** (n - 3) * (1 + k), family=family)
            for family in ("hard", "unique") for n in (2, 3) for k in range(5)]
    rows += [run("a", 4, f"hard{k}", "timeout" if k < 2 else "solved", 0.5, family="hard") for k in range(5)]
    campaign = censored_stats.load(write_campaign(tmp_path / "s", rows))
    assert campaign.families == ["unique", "hard"]          # the assignment's family first
    text = summary_text(campaign)
    lines = text.splitlines()
    assert "95% CI" in lines[0]
    assert lines.index("[unique puzzles]") < lines.index("[hard puzzles]")
    hard4 = next(line for line in lines if line.split()[:2] == ["a", "4"])
    assert "3/5" in hard4 and "> 10 s]" in hard4            # censored upper end of the interval
    table = censored_stats.summary(campaign)
    r = table[(table["family"] == "unique") & (table["n"] == 2)].iloc[0]
    assert r["median_lo"] <= r["median_s"] <= r["median_hi"]
    assert "unique: a" in text and "hard: a" in text and "x10 " in text


# -- Bootstrap intervals: seeds, resample counts and confidence reach the result (survivors of ------------------------------------------------------

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
