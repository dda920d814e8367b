"""The signed-rank test's edge cases, exactly (survivors of the mutation pass)."""

from __future__ import annotations

import math

from experiments.analysis.signed_rank import EXACT_MAX, exact_cdf, signed_rank_test


def test_exact_cdf_of_three_by_hand():
    # positive rank sums of the 8 sign patterns of ranks 1, 2, 3: 0 1 2 3 3 4 5 6
    assert [exact_cdf(3, w) for w in range(7)] == [1 / 8, 2 / 8, 3 / 8, 5 / 8, 6 / 8, 7 / 8, 1.0]


def test_no_difference_at_all():
    result = signed_rank_test([0.0, 0.0])
    assert (result.w_plus, result.w_minus, result.used, result.p, result.method) == (0.0, 0.0, 0, 1.0, "none")
    assert math.isnan(result.z)


def test_exact_method_fields_and_p_capped_at_one():
    # ranks 1, 2 positive and 3 negative: W+ = W- = 3; 2 P(W <= 3) = 10/8, capped at 1
    result = signed_rank_test([1.0, 2.0, -3.0])
    assert (result.w_plus, result.w_minus, result.used, result.p, result.method) == (3.0, 3.0, 3, 1.0, "exact")
    assert math.isnan(result.z)


def test_exact_up_to_exact_max_differences():
    result = signed_rank_test([float(k) for k in range(1, EXACT_MAX + 1)])
    assert result.method == "exact" and result.used == EXACT_MAX
    assert result.p == 2.0 / 2.0 ** EXACT_MAX          # W- = 0: one sign pattern of 2**50


def test_normal_approximation_with_no_excess_is_z_zero():
    # |d| = 1 1 2 2 -> ranks 1.5 1.5 3.5 3.5; W+ = 5 = n(n+1)/4: the continuity correction
    # cannot push z past 0
    result = signed_rank_test([1.0, -1.0, 2.0, -2.0])
    assert (result.w_plus, result.w_minus, result.used, result.z, result.p, result.method) == \
        (5.0, 5.0, 4, 0.0, 1.0, "normal")
