"""``race compare``'s table text and ratio formatting, exactly (survivors of the mutation pass)."""

from __future__ import annotations

import math

import pytest

from experiments.analysis import bootstrap, compare
from experiments.analysis.signed_rank import SignedRank


@pytest.mark.parametrize("value, text", [(math.nan, "n/a"), (math.inf, "inf"), (0.0, "0"), (-0.0, "0"),
                                         (1.0, "1"), (1.0125, "1.01"), (1234.5, "1.23e+03")])
def test_format_ratio(value, text):
    assert compare.format_ratio(value) == text


def test_comparison_text_exactly():
    rows = [compare.PairedRow("unique", 2, 6, 2, 2, 2, bootstrap.Interval(1.0125, 0.5, math.inf),
                              SignedRank(9.0, 6.0, 5, math.nan, 26 / 32, "exact")),
            compare.PairedRow("hard", None, 1, 1, 0, 0, bootstrap.Interval(0.0, 0.0, math.nan),
                              SignedRank(0.0, 0.0, 0, math.nan, 1.0, "none"))]
    result = compare.Comparison("camp", "a", "b", 0.7, rows, ["WARNING: w1", "note: n2"])
    # columns: family <9, n >4, pairs >7, A faster >10, B faster >10, ties >6, median >12, two
    # spaces, CI <17, p >14; 100 * 0.7 = 70 (%), 26/32 = 0.8125 -> "0.81" (2 significant digits)
    assert compare.comparison_text(result).split("\n") == [
        "campaign camp: A = a, B = b (paired on identical instances: instance_sha256, n, kind)",
        "family      n  pairs  A faster  B faster  ties  median B/A  95% CI            signed-rank p",
        "-" * 91,
        "unique      2      6         2         2     2        1.01  [0.5, inf]                 0.81",
        "hard      all      1         1         0     0           0  [0, n/a]                    n/a",
        "",
        "ties: times within 70% or both censored; a timeout (any censored run) loses to any answer.",
        "B/A < 1: B faster; inf: only A answered; 0: only B answered. CI: bootstrap over pairs "
        "(2000 resamples, seeded).",
        "p: two-sided Wilcoxon signed-rank test on log(B/A), censored = slowest (exact without ties, "
        "else normal approximation).",
        "WARNING: w1",
        "note: n2"]
