"""Exact values of the campaign statistics where a mutation pass found only loose checks."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from experiments.analysis import censored_stats, growth
from tests.test_analysis import run, write_campaign


def test_growth_table_rows_are_exact(tmp_path):
    rows = [run("a", n, "i", "solved", t) for n, t in ((2, 0.01), (3, 0.04), (5, 0.64), (6, 1.28))]
    rows += [run("b", 2, "i", "timeout", None), run("c", 4, "i", "solved", 0.5)]
    c = censored_stats.load(write_campaign(tmp_path / "g", rows, {"entrants": ["a", "b", "c"]}))
    gt = growth.growth_table(c).set_index("entrant")
    a = gt.loc["a"]
    assert (a["n_from"], a["n_to"], a["points"]) == (2, 6, 4)
    assert a["last_ratio"] == pytest.approx(2.0)               # 1.28 / 0.64, the last step
    g = growth.growth(censored_stats.summary(c), "a")
    assert g.ratios == {3: pytest.approx(4.0), 6: pytest.approx(2.0)}   # no ratio across 3 -> 5
    # least squares over n = 2, 3, 5, 6 (mean 4, sum of squared deviations 10)
    slope = (2 * math.log10(1.28) + math.log10(0.64) - math.log10(0.04) - 2 * math.log10(0.01)) / 10
    assert a["slope"] == pytest.approx(slope) and a["factor"] == pytest.approx(10 ** slope)
    for entrant, points in (("b", 0), ("c", 1)):
        r = gt.loc[entrant]
        assert r["points"] == points and math.isnan(r["slope"]) and math.isnan(r["factor"])
        assert math.isnan(r["last_ratio"])
    assert math.isnan(gt.loc["b", "n_from"]) and math.isnan(gt.loc["b", "n_to"])
    assert (gt.loc["c", "n_from"], gt.loc["c", "n_to"]) == (4, 4)


def test_a_zero_median_ends_the_growth_range():
    table = pd.DataFrame({"entrant": ["a"] * 3, "n": [2, 3, 4], "median_s": [0.1, 0.0, 1.0]})
    g = growth.growth(table, "a")
    assert g.n_values == [2] and g.ratios == {} and math.isnan(g.slope)


def test_instance_times_status_and_repeats(tmp_path):
    rows = [run("a", 2, "i2", "timeout", None), run("a", 2, "i2", "error", None, repeat=1),
            run("a", 2, "i2", "wrong", 0.5, repeat=2),
            run("a", 2, "i1", "solved", 1.0), run("a", 2, "i1", "solved", 3.0, repeat=1),
            run("a", 2, "i1", "timeout", None, repeat=2),
            run("a", 2, "i0", "timeout", None), run("a", 2, "i0", "error", None, repeat=1),
            run("a", 3, "i3", "unsat", 2.0, verified=""), run("a", 3, "i4", "solved", None)]
    c = censored_stats.load(write_campaign(tmp_path / "t", rows))
    t = censored_stats.instance_times(c.runs)
    assert list(t.columns) == ["entrant", "family", "n", "instance", "instance_sha256", "time",
                               "status", "repeats", "spread"]
    assert list(t["instance"]) == ["i2", "i1", "i0", "i3", "i4"]     # first-seen order
    got = {r.instance: (r.n, r.time, r.status, r.repeats) for r in t.itertuples()}
    assert got["i1"] == (2, pytest.approx(3.0), "solved", 3)     # median of 1, 3, inf: finite
    assert got["i2"][1:] == (math.inf, "wrong", 3)             # the worst status of the repeats
    assert got["i0"][1:] == (math.inf, "error", 2)             # by severity, not by name
    assert got["i3"] == (3, pytest.approx(2.0), "unsat", 1)    # unsat is an answer
    assert got["i4"][1:] == (math.inf, "solved", 1)            # no time: censored
    empty = censored_stats.instance_times(c.runs.iloc[:0])
    assert empty.empty and list(empty.columns) == list(t.columns)


def test_answered_keeps_the_index():
    runs = pd.DataFrame({"status": ["solved", "solved", "unsat", "timeout", "wrong"],
                         "verified": [True, False, "", True, True]}, index=[7, 8, 9, 10, 11])
    got = censored_stats.answered(runs)
    assert got.dtype == bool and got.to_dict() == {7: True, 8: False, 9: True, 10: False, 11: False}


@pytest.mark.parametrize("value, limit, text", [
    (1.0, None, "1 s"), (0.999, None, "999 ms"), (1e-3, None, "1 ms"), (9.99e-4, None, "999 µs"),
    (1e-6, None, "1 µs"), (1e-9, None, "0.001 µs"), (1234.5, None, "1234 s"), (9.9996e-4, None, "1 ms"), (0, None, "0 s"),
    (0.0, None, "0 s"), (None, None, "n/a"), (math.nan, 5.0, "n/a"), (math.inf, None, "> limit"),
    (math.inf, math.inf, "> limit"), (math.inf, 0.5, "> 500 ms"), (math.inf, 60, "> 60 s"),
])
def test_format_seconds_at_every_boundary(value, limit, text):
    assert censored_stats.format_seconds(value, limit) == text
